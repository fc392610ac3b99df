"""Inputs past what any GPU holds, and operands that would silently become defaults: one sentence, exit 2."""

from __future__ import annotations

import time

import pytest
from cli_run import bad, ok

HUGE = "9" * 5000  # past Python's 4,300-digit limit on int(str)


@pytest.mark.parametrize(
    "args",
    [
        ("layout", "16x256b", "--num", HUGE),
        ("layout", f"16x256b.x{HUGE}"),
        ("layout", f"16dp256b{HUGE}x"),
        ("layout", "16x256b", "--taddr", HUGE),
        ("layout", "16x256b", "--highlight", HUGE),
        ("desc", f"0x{HUGE}"),
        ("desc", "--sbo", HUGE, "--swizzle", "128B"),
        ("idesc", HUGE, "--kind", "f16"),
        ("idesc", f"0x{HUGE}", "--kind", "f16"),
        ("idesc", "--kind", "f16", "--n", HUGE),
        ("cp", "128x256b", "--taddr", HUGE),
        ("which", "16x256b", "--lane", HUGE, "--col", "1"),
        ("layout", f"tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {{%r1}}, [%r2], {HUGE};"),
    ],
    ids=lambda a: " ".join(a)[:30],
)
def test_a_huge_number_is_one_short_sentence(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    line = bad(capsys, *args)
    assert len(line) < 300, line
    assert "5000" in line  # the number is named by its length, not echoed


@pytest.mark.parametrize(
    "size",
    [
        ("--rows", str(2**64), "--cols", "64"),
        ("--rows", "1024", "--cols", "1024"),
        ("--rows", "4096", "--cols", "4096"),
    ],
)
def test_smem_refuses_a_tile_larger_than_shared_memory(
    capsys: pytest.CaptureFixture[str], size: tuple[str, ...]
) -> None:
    start = time.perf_counter()
    line = bad(capsys, "smem", "--major", "K", "--swizzle", "128B", "--dtype", "f16", *size)
    assert "233472 (228 KB)" in line
    assert time.perf_counter() - start < 2


def test_smem_refuses_m_k_repeats_past_shared_memory(capsys: pytest.CaptureFixture[str]) -> None:
    common = ("smem", "--major", "K", "--swizzle", "128B", "--dtype", "f16", "--sbo", "1024")
    assert "228 KB" in bad(capsys, *common, "--m", str(2**64), "--k", "1")
    assert "228 KB" in bad(capsys, *common, "--m", "1", "--k", "100000")
    ok(capsys, *common, "--m", "16", "--k", "4", "-f", "json")  # 128 x 64 f16: 16 KB


def test_the_largest_smem_tile_that_fits_is_drawn(capsys: pytest.CaptureFixture[str]) -> None:
    # 224 rows x 1024 e4m3 = 229376 bytes <= 233472: answered; 232 rows would not be.
    args = ("smem", "--major", "K", "--swizzle", "128B", "--dtype", "e4m3", "--cols", "1024")
    assert '"rows": 224' in ok(capsys, *args, "--rows", "224", "-f", "json")
    assert "is 237568 bytes" in bad(capsys, *args, "--rows", "232")


@pytest.mark.parametrize(
    "line",
    [
        "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2], %r3;",
        "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2], 1.5;",
        "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r2], zz, {%r1};",
        "16x32bx2.x1 [t], foo",
    ],
)
def test_a_bad_split_offset_is_refused_not_defaulted(capsys: pytest.CaptureFixture[str], line: str) -> None:
    assert "must be an immediate number" in bad(capsys, "layout", line)


def test_a_written_split_offset_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    for line in (
        "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r2], 2, {%r1};",
        "tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.f32 {%r1,%r2}, %r9, [%r2], 2;",
        "16x32bx2.x1 [t], 0x2",
    ):
        assert '"split_offset": 2' in ok(capsys, "layout", line, "-f", "json")


def test_tile_n_must_be_a_sum_of_legal_mma_ns(capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(capsys, "tile", "--n", "100", "--shape", "32x32b")
    assert "N=100 is not a sum of legal MMA N's" in line and "a multiple of 8 in 8..256" in line
    assert "a multiple of 8 in 8..256" in bad(capsys, "tile", "--m", "64", "--n", "100", "--shape", "32x32b")
    pair = bad(capsys, "tile", "--m", "256", "--cta-group", "2", "--n", "40", "--shape", "32x32b")
    assert "N=40 is not a sum" in pair and "a multiple of 16 in 16..256" in pair
    ok(capsys, "tile", "--n", "272", "--shape", "32x32b", "-f", "json")  # 256 + 16: two MMAs side by side


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["which", "16x256b", "-t", "3", "-r", "1"], "-t belongs to `tmemviz where`"),
        (["which", "16x256b", "--reg", "1"], "--reg belongs to `tmemviz where`"),
        (["where", "16x256b", "--lane", "3", "--col", "1"], "--lane belongs to `tmemviz which`"),
    ],
)
def test_which_and_where_options_swapped_say_which_command_takes_them(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    """Click would offer its nearest spelling (``--lane`` -> ``--nan``); the user mixed up the two."""
    message = bad(capsys, *argv)
    assert said in message and "--nan" not in message
