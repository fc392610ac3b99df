"""`tmemviz smem` and `tmemviz desc` end to end, in-process: what a user types and reads.

Expected values come from the PTX ISA (9.7.16.3, figures 188-192, the descriptor table) and CUTLASS's
make_umma_desc as the facts state them; the cells are checked against the core and an oracle.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import bad, flat, ok, run

from tmemviz.families.smem.layout import canonical, dense_tile

REPO = Path(__file__).resolve().parents[2]
DONE_WHEN = ("smem", "--major", "K", "--swizzle", "128B", "--dtype", "bf16", "--rows", "128", "--cols", "64")

# PTX ISA 9.7.16.3 figures as printed: (major, swizzle, dtype, m, k, LBO, SBO) -> notation.
FIGURES = {
    188: (("K", "none", "tf32", 2, 2, 256, 128), "((8,2),(4,4)):((4,32),(1,64))"),
    190: (("MN", "none", "bf16", 2, 2, 256, 128), "((8,1,2),(8,2)):((1,8,64),(8,128))"),
    191: (("MN", "32B", "bf16", 2, 2, 256, 512), "Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))"),
    192: (("MN", "64B", "bf16", 2, 2, 512, 1024), "Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"),
}


def formula_args(major: str, sw: str, dtype: str, m: int, k: int, lbo: int, sbo: int) -> list[str]:
    head = ["smem", "--major", major, "--swizzle", sw, "--dtype", dtype]
    return [*head, "--m", str(m), "--k", str(k), "--lbo", str(lbo), "--sbo", str(sbo)]


def test_done_when_command(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, *DONE_WHEN)
    lines = out.splitlines()
    assert lines[0].startswith("K-major, 128B swizzle, bf16, 128 x 64 elements")
    assert "layout      Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))" in lines
    assert "offsets     LBO unused (encoded 1), SBO 1024 bytes (encoded 64)" in lines
    assert "descriptor  0x4000404000010000 (start address 0, swizzle 128B)" in lines
    # The grid: row 1 starts with chunk 1 of its 128-byte line (byte 144), the swizzle at work.
    row1 = next(line.split() for line in lines if line.split()[:1] == ["1"])
    assert row1[1:9] == ["144", "146", "148", "150", "152", "154", "156", "158"]
    assert "note: byte offsets are from a base aligned to 1024 bytes" in out
    assert "first MMA K-block" in out
    assert "each cell: byte offset of the element's first byte" in flat(out)


@pytest.mark.parametrize("number", sorted(FIGURES))
def test_spec_examples_give_the_ptx_notation(
    capsys: pytest.CaptureFixture[str], plain_terminal: None, number: int
) -> None:
    args, notation = FIGURES[number]
    out = ok(capsys, *formula_args(*args))
    assert f"layout      {notation}" in out.splitlines()
    lbo, sbo = args[5], args[6]
    assert f"LBO {lbo} bytes (encoded {lbo // 16}), SBO {sbo} bytes (encoded {sbo // 16})" in out
    record = json.loads(ok(capsys, *formula_args(*args), "-f", "json"))
    assert record["layout"] == notation and (record["lbo"], record["sbo"]) == (lbo, sbo)


def test_figure_189_as_printed_is_an_overlap(capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(capsys, "smem", "--major", "K", "--swizzle", "32B", "--dtype", "tf32", "--m", "2", "--k", "2")
    assert "needs --sbo" in line
    line = bad(
        capsys,
        "smem",
        "--major",
        "K",
        "--swizzle",
        "32B",
        "--dtype",
        "tf32",
        "--m",
        "2",
        "--k",
        "4",
        "--sbo",
        "256",
    )
    assert "overlap" in line and "(row 0, col 8) and (row 1, col 0)" in line


def test_json_cells_are_the_core_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(ok(capsys, *DONE_WHEN, "--format", "json"))
    core = dense_tile("K", "128B", "bf16", 128, 64)
    assert {k: record[k] for k in ("major", "swizzle", "dtype", "bits", "rows", "cols", "lbo", "sbo")} == {
        "major": "K",
        "swizzle": "128B",
        "dtype": "bf16",
        "bits": 16,
        "rows": 128,
        "cols": 64,
        "lbo": None,
        "sbo": 1024,
    }
    assert record["descriptor"]["hex"] == "0x4000404000010000" and record["descriptor"]["problems"] == []
    assert [(c["row"], c["col"], c["byte"]) for c in record["cells"]] == list(core.cells())
    assert len({c["byte"] for c in record["cells"]}) == 128 * 64


def test_csv_and_file_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args, _ = FIGURES[192]
    text = ok(capsys, *formula_args(*args), "--format", "csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["row", "col", "byte"]
    core = canonical(*args)
    assert [tuple(map(int, r)) for r in rows[1:]] == list(core.cells())
    target = tmp_path / "cells.csv"
    assert ok(capsys, *formula_args(*args), "-f", "csv", "-o", str(target)) == ""
    assert target.read_text() == text


@pytest.mark.parametrize(
    "args",
    [
        DONE_WHEN,
        formula_args(*FIGURES[191][0]),
        ("smem", "--major", "MN", "--swizzle", "64B", "--dtype", "e4m3", "--rows", "128", "--cols", "16"),
        ("smem", "--major", "K", "--swizzle", "none", "--dtype", "tf32", "--rows", "16", "--cols", "8"),
    ],
    ids=["K128B", "fig191", "MN64B-e4m3", "Knone-tf32"],
)
def test_offset_round_trips_every_byte(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    record = json.loads(ok(capsys, *args, "-f", "json"))
    size = record["bits"] // 8
    for cell in record["cells"][:: max(1, len(record["cells"]) // 64)]:
        for extra in range(size):
            answer = json.loads(ok(capsys, *args, "--offset", str(cell["byte"] + extra), "-f", "json"))
            assert (answer["row"], answer["col"], answer["element_byte"]) == (cell["row"], cell["col"], extra)


def test_offset_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    assert ok(capsys, *DONE_WHEN, "--offset", "1040") == (
        "byte 1040 of K-major, 128B swizzle, bf16, 128 x 64 is element (row 8, col 8), bytes 1040..1041 "
        "(16-byte chunk 65)\n"
    )
    assert ok(capsys, *DONE_WHEN, "--offset", "0x90").split(" is ")[1].startswith("element (row 1, col 0)")
    out = ok(capsys, *DONE_WHEN, "--offset", "16384")
    assert out.endswith(" 128 x 64 holds no element; the elements occupy bytes 0..16383\n")


def test_chunk_labels(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, *DONE_WHEN, "--cells", "chunk")
    row1 = next(line.split() for line in out.splitlines() if line.split()[:1] == ["1"])
    assert row1[1:10] == ["9"] * 8 + ["8"]  # byte 144 is chunk 9, byte 128 chunk 8
    assert "each cell: the element's 16-byte chunk (byte // 16)" in flat(out)


@pytest.mark.parametrize(
    ("text", "name", "major"),
    [
        ("128B", "128B", None),
        ("128b", "128B", None),
        ("SW128", "128B", None),
        ("swizzle_128B", "128B", None),
        ("SWIZZLE_64B", "64B", None),
        ("Swizzle<1,4,3>", "32B", None),
        ("none", "none", None),
        ("interleave", "none", None),
        ("INTER", "none", None),
        ("K_SW128", "128B", "K"),
        ("Layout_MN_SW32_Atom", "32B", "MN"),
    ],
)
def test_swizzle_spellings(
    capsys: pytest.CaptureFixture[str], text: str, name: str, major: str | None
) -> None:
    args = ["smem", "--swizzle", text, "--dtype", "f16", "--m", "1", "--k", "1", "--sbo", "1024"]
    kind = major or "MN"
    args += ["--lbo", "256"] if (kind == "MN" or name == "none") else []
    if major is None:
        args += ["--major", "MN"]
    record = json.loads(ok(capsys, *args, "-f", "json"))
    assert (record["swizzle"], record["major"]) == (name, kind)


def test_major_and_dtype_spellings(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["smem", "--swizzle", "128B", "--rows", "128", "--cols", "64", "-f", "json"]
    for major, dtype, expect in (("k-major", "BF16", ("K", "bf16")), ("N", "float8_e4m3fn", ("MN", "e4m3"))):
        record = json.loads(ok(capsys, *base, "--major", major, "--dtype", dtype))
        assert (record["major"], record["dtype"]) == expect


BAD = [
    (("--rows", "120", "--cols", "60"), "cols (K) 60 is not a multiple of the K-major 128B bf16 atom"),
    (("--rows", "12", "--cols", "64"), "rows (M/N) 12 is not a multiple"),
    (("--rows", "128", "--lbo", "16"), "--rows and --lbo do not go together"),
    (("--rows", "128"), "--rows needs --cols"),
    (("--m", "2", "--k", "2"), "needs --sbo"),
    (
        ("--m", "2", "--k", "2", "--sbo", "1000"),
        "SBO 1000 bytes is not allowed; use a non-negative multiple of 16",
    ),
    (("--m", "2", "--k", "2", "--sbo", "300000"), "does not fit the descriptor's 14-bit field"),
    (("--m", "2", "--k", "2", "--sbo", "1024", "--lbo", "16"), "LBO is unused by K-major 128B layouts"),
    ((), "give --rows and --cols (a dense tile) or --m, --k, --lbo and --sbo"),
    (("--rows", "128", "--cols", "64", "--offset", "-1"), "--offset must be a byte offset in 0..233471"),
    (("--rows", "128", "--cols", "64", "--offset", "3", "-f", "csv"), "--offset answers in text or json"),
    (("--rows", "128", "--cols", "64", "--cells", "chunk", "-f", "json"), "--cells chooses what the grid"),
    (("--rows", "1x", "--cols", "64"), "Invalid value for '--rows'"),
]


@pytest.mark.parametrize(("extra", "message"), BAD, ids=[m[:30] for _, m in BAD])
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], extra: tuple[str, ...], message: str
) -> None:
    line = bad(capsys, "smem", "--major", "K", "--swizzle", "128B", "--dtype", "bf16", *extra)
    assert message in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--major", "MN", "--swizzle", "K_SW128"), "--swizzle K_SW128 names K-major, but --major says MN"),
        (("--swizzle", "128B"), "--major is required"),
        (("--major", "row", "--swizzle", "128B"), "is ambiguous"),
        (("--major", "K", "--swizzle", "128"), "bare number"),
        (("--major", "K", "--swizzle", "256B"), "unknown swizzle '256B'"),
        (
            ("--major", "MN", "--swizzle", "128B_base32B"),
            "128B_base32B (Swizzle<2,5,2>, descriptor code 1) is not drawn",
        ),
        (("--major", "MN", "--swizzle", "MN_SW128_32B"), "is not drawn"),
        (("--major", "K", "--swizzle", "Swizzle<3,4,4>"), "is not a tcgen05 swizzle"),
    ],
)
def test_bad_names_are_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    line = bad(capsys, "smem", *args, "--dtype", "bf16", "--rows", "64", "--cols", "64")
    assert message in line


def test_bad_dtype(capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(
        capsys, "smem", "--major", "K", "--swizzle", "none", "--dtype", "e2m1", "--rows", "8", "--cols", "8"
    )
    assert "unknown dtype 'e2m1'; known dtypes: e4m3, e5m2, s8, u8, f16, bf16, tf32, f32, s32" in line


# --------------------------------------------------------------------------- desc


def test_desc_decodes_the_cutlass_example(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, "desc", "0x4000404000010000")
    rows = {tuple(line.split()[:2]): line for line in out.splitlines() if line.strip()}
    assert "1024 bytes (encoded 64)" in rows[("32-45", "SBO")]
    assert "16 bytes (encoded 1)" in rows[("16-29", "LBO")]
    assert "2 = 128B (Swizzle<3,4,3>)" in rows[("61-63", "swizzle")]
    record = json.loads(ok(capsys, "desc", "0x4000_4040_0001_0000", "-f", "json"))
    assert record == {
        "hex": "0x4000404000010000",
        "start_address": 0,
        "lbo": 16,
        "sbo": 1024,
        "version": 1,
        "base_offset": 0,
        "lbo_mode": 0,
        "swizzle": "128B",
        "problems": [],
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"start_address": 0, "lbo": 16, "sbo": 1024, "swizzle": "128B", "base_offset": 0, "lbo_mode": 0},
        {"start_address": 0x400, "lbo": 256, "sbo": 128, "swizzle": "none", "base_offset": 0, "lbo_mode": 0},
        {
            "start_address": 262128,
            "lbo": 262128,
            "sbo": 16,
            "swizzle": "32B",
            "base_offset": 7,
            "lbo_mode": 1,
        },
        {
            "start_address": 48,
            "lbo": 4096,
            "sbo": 1024,
            "swizzle": "128B_base32B",
            "base_offset": 3,
            "lbo_mode": 0,
        },
        {"start_address": 0, "lbo": 512, "sbo": 1024, "swizzle": "64B", "base_offset": 0, "lbo_mode": 1},
    ],
)
def test_desc_encode_decode_round_trip(capsys: pytest.CaptureFixture[str], fields: dict[str, object]) -> None:
    args = ["desc", "-f", "json"]
    for key, value in fields.items():
        args += [f"--{key.replace('_', '-')}", str(value)]
    encoded = json.loads(ok(capsys, *args))
    assert {k: encoded[k] for k in fields} == fields and encoded["problems"] == []
    decoded = json.loads(ok(capsys, "desc", encoded["hex"], "-f", "json"))
    assert decoded == encoded


def test_desc_encode_defaults_and_spellings(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, "desc", "--sbo", "1024", "--swizzle", "SW128")
    assert "descriptor 0x4000404000010000" in out
    assert "note: LBO not given: encoded 1 (16 bytes)" in out
    record = json.loads(
        ok(
            capsys,
            "desc",
            "--sbo",
            "1024",
            "--swizzle",
            "swizzle_128b",
            "--lbo-mode",
            "absolute",
            "-f",
            "json",
        )
    )
    assert record["lbo_mode"] == 1 and record["hex"] == "0x4010404000010000"


def test_desc_reports_what_the_table_does_not_allow(capsys: pytest.CaptureFixture[str]) -> None:
    value = 0x4000404000010000 | 1 << 15 | 1 << 55
    code, out, err = run(capsys, "desc", hex(value), "-f", "json")
    assert code == 0
    record = json.loads(out)
    assert record["problems"] == [
        "bits 14-15 are 0b10, but must be 0",
        "bits 53-60 are 0b00000100, but must be 0",
    ]
    assert err.splitlines() == [f"tmemviz: warning: {p}" for p in record["problems"]]
    code, out, err = run(capsys, "desc", "0x7000000000000000")
    assert code == 0 and "3 = not defined" in out
    assert "tmemviz: warning: version (bits 46-48) is 0, but tcgen05 descriptors must have 1" in err
    assert "tmemviz: warning: swizzle code 3 (bits 61-63) is not defined" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("4000404000010000",),
            "could be hex or decimal; write 0x4000404000010000 if it is hex, or 0xe3658a360ef10",
        ),
        (("0xg",), "is not a hexadecimal number"),
        (("0x1" + "0" * 16,), "has more than 64 bits"),
        (("0x40", "--sbo", "16"), "give either a descriptor to decode or fields to encode, not both (--sbo)"),
        ((), "give a descriptor to decode"),
        (("--sbo", "1024"), "--sbo and --swizzle"),
        (("--sbo", "1024", "--swizzle", "16B"), "unknown swizzle '16B'"),
        (("--sbo", "1024", "--swizzle", "128B", "--lbo", "24"), "LBO 24 bytes is not allowed"),
        (("--sbo", "262144", "--swizzle", "128B"), "14-bit field"),
        (("--sbo", "1024", "--swizzle", "128B", "--start-address", "8"), "start address 8 is not allowed"),
        (("--sbo", "1024", "--swizzle", "128B", "--base-offset", "8"), "base offset 8 is not allowed"),
        (
            ("--sbo", "1024", "--swizzle", "128B", "--lbo-mode", "2"),
            "--lbo-mode must be relative (0) or absolute (1)",
        ),
    ],
)
def test_desc_bad_input(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str) -> None:
    assert message in bad(capsys, "desc", *args)


def test_smem_and_desc_never_import_matplotlib(tmp_path: Path) -> None:
    script = """
import contextlib, io, sys
import tmemviz.cli
runs = [
    ["smem", "--major", "K", "--swizzle", "128B", "--dtype", "bf16", "--rows", "128", "--cols", "64"],
    ["smem", "--major", "MN", "--swizzle", "32B", "--dtype", "bf16", "--m", "2", "--k", "2",
     "--lbo", "256", "--sbo", "512", "-f", "json"],
    ["smem", "--major", "K", "--swizzle", "none", "--dtype", "s8", "--rows", "8", "--cols", "16",
     "-f", "csv"],
    ["smem", "--major", "K", "--swizzle", "128B", "--dtype", "bf16", "--rows", "8", "--cols", "64",
     "--offset", "16"],
    ["desc", "0x4000404000010000"], ["desc", "--sbo", "1024", "--swizzle", "128B", "-f", "json"],
]
for argv in runs:
    with contextlib.redirect_stdout(io.StringIO()):
        code = tmemviz.cli.main(argv)
    assert code == 0, (argv, code)
    assert "matplotlib" not in sys.modules, ("matplotlib imported by", argv)
print("clean")
"""
    env = {k: v for k, v in os.environ.items() if k not in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = "200"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "clean"


@pytest.mark.usefixtures("plain_terminal")
def test_shapes_lists_the_swizzle_modes(capsys: pytest.CaptureFixture[str]) -> None:
    from tmemviz.families.smem.shapes import builtin_swizzles

    text = ok(capsys, "shapes")
    assert "shared-memory swizzle modes" in text
    for sw in builtin_swizzles():
        line = next(row for row in text.splitlines() if row.split()[:1] == [sw.name])
        assert sw.notation() in line and f"{sw.atom_bytes} B" in line and f" {sw.descriptor_code} " in line
