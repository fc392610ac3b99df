"""The tcgen05.mma instruction descriptor: facts from compilers and public encoders, round trips, errors."""

from __future__ import annotations

import itertools
import json
import random

import pytest

import tmemviz
from tests.cli_run import bad, ok
from tmemviz.errors import TmemvizError
from tmemviz.families.mma.idesc import DENSE_KINDS, KINDS, SCALED_KINDS, decode, encode, layout
from tmemviz.families.mma.spelling import parse_mma


def test_triton_f16_descriptor() -> None:
    # Triton 3.9 (Gluon, 128x128 f32 accumulator, f16 A/B from shared memory, K-major) printed
    # `mov.b32 %r6, 136314896;` before its tcgen05.mma.cta_group::1.kind::f16 (mma-facts.md section 5).
    found = decode(136314896, "f16")
    assert found.value == 0x08200010
    f = found.fields
    assert (f["d_type"], f["a_type"], f["b_type"], f["a_major"], f["b_major"]) == (
        "F32",
        "F16",
        "F16",
        "K",
        "K",
    )
    assert (found.m, found.n, found.problems) == (128, 128, ())


def test_triton_128x32_descriptor() -> None:
    # The same kernel with a 128x32 accumulator (tests/kernels/triton_mma_epilogue.ptx):
    # `mov.b32 %r6, 134742032;`.
    assert encode("f16", a_type="F16", b_type="F16", m=128, n=32) == 134742032


def _dense_by_hand(
    d: int, a: int, b: int, neg_a: int, neg_b: int, a_mn: int, b_mn: int, n: int, m: int
) -> int:
    """The dense layout as Triton's TCGen5InstructionDescriptor bit-field and CUTLASS's InstrDescriptor
    declare it (read, not copied): D at 4, A at 7, B at 10, negates 13/14, majors 15/16, N>>3 at 17,
    M>>4 at 24."""
    return (
        (d << 4) | (a << 7) | (b << 10) | (neg_a << 13) | (neg_b << 14) | (a_mn << 15) | (b_mn << 16)
        | ((n >> 3) << 17) | ((m >> 4) << 24)
    )  # fmt: skip


@pytest.mark.parametrize("n", range(8, 257, 8))
@pytest.mark.parametrize("m", [64, 128, 256])
def test_f16_every_n_and_m_against_the_bit_field(m: int, n: int) -> None:
    for (a, an), (b, bn), (d, dn), a_mn, b_mn in itertools.product(
        [(0, "F16"), (1, "BF16")], [(0, "F16"), (1, "BF16")], [(0, "F16"), (1, "F32")], [0, 1], [0, 1]
    ):
        major = {0: "K", 1: "MN"}
        if dn == "F16" and "BF16" in (an, bn):  # PTX 9.7.16.2.1: an f16 D takes f16 A and B only
            with pytest.raises(TmemvizError, match="BF16"):
                encode("f16", d_type=dn, a_type=an, b_type=bn, m=m, n=n)
            continue
        value = encode(
            "f16", d_type=dn, a_type=an, b_type=bn, a_major=major[a_mn], b_major=major[b_mn], m=m, n=n
        )
        assert value == _dense_by_hand(d, a, b, 0, 0, a_mn, b_mn, n, m)
        back = decode(value, "f16")
        assert (back.m, back.n, back.fields["a_type"], back.fields["b_major"]) == (m, n, an, major[b_mn])


def test_i8_and_f8f6f4_codes() -> None:
    # PTX instruction-descriptor table: i8 D is S32 = 2, A/B unsigned 0 / signed 1; f8f6f4 E4M3 0, E5M2 1,
    # E2M3 3, E3M2 4, E2M1 5 (CUTLASS's MXF8F6F4Format agrees).
    assert encode("i8", a_type="S8", b_type="U8", n=64) == _dense_by_hand(2, 1, 0, 0, 0, 0, 0, 64, 128)
    for code, name in [(0, "E4M3"), (1, "E5M2"), (3, "E2M3"), (4, "E3M2"), (5, "E2M1")]:
        assert encode("f8f6f4", a_type=name, b_type=name, n=8) == _dense_by_hand(
            1, code, code, 0, 0, 0, 0, 8, 128
        )


def test_nvfp4_descriptor_as_a_public_kernel_builds_it() -> None:
    # A public NVFP4 kernel builds its kind::mxf4nvf4 descriptor as
    # (1 << 7) | (1 << 10) | ((N >> 3) << 17) | ((M >> 7) << 27): E2M1 = 1, UE4M3 scales = 0,
    # M >> 7 at bit 27.
    for m, n in itertools.product([128, 256], range(8, 257, 8)):
        expected = (1 << 7) | (1 << 10) | ((n >> 3) << 17) | ((m >> 7) << 27)
        assert encode("mxf4nvf4", a_type="E2M1", b_type="E2M1", scale_type="UE4M3", m=m, n=n) == expected


def test_block_scaled_fields_as_triton_sets_them() -> None:
    # Triton's scaled descriptor: B scale ID at 4, scale type at 23 (UE8M0 = 1), M>>4 at 24 (= M>>7 at 27
    # for M 128/256), A scale ID at 29; mxf4 doubles the IDs (0 or 2).
    value = encode("mxf4", a_type="E2M1", b_type="E2M1", scale_type="UE8M0", sfa_id=2, sfb_id=2, m=128, n=128)
    assert value == (2 << 4) | (1 << 7) | (1 << 10) | (16 << 17) | (1 << 23) | (8 << 24) | (2 << 29)
    found = decode(value, "mxf4")
    assert (found.fields["sfa_id"], found.fields["sfb_id"], found.fields["scale_type"]) == (2, 2, "UE8M0")
    assert found.d_type == "F32"


def test_k96_bit() -> None:
    plain = encode("mxf4nvf4", a_type="E2M1", b_type="E2M1", scale_type="UE8M0", n=128)
    assert (
        encode("mxf4nvf4", a_type="E2M1", b_type="E2M1", scale_type="UE8M0", n=128, k=96) == plain | 1 << 31
    )
    assert decode(plain | 1 << 31, "mxf4nvf4").fields["k"] == 96


@pytest.mark.parametrize("kind", KINDS)
def test_decode_any_value_and_round_trip(kind: str) -> None:
    """Every 32-bit value decodes (problems listed, never raised); clean ones encode back exactly."""
    rng = random.Random(kind)
    named, reserved = layout(kind)
    covered = sum(((1 << f.width) - 1) << f.first for f in (*named, *reserved))
    assert covered == 0xFFFFFFFF, "every bit belongs to exactly one field"
    clean = 0
    for _ in range(4000):
        value = rng.getrandbits(32)
        found = decode(value, kind)
        if found.problems:
            continue
        clean += 1
        given = {n: v for n, v in found.fields.items()}
        for flag in ("sparse", "saturate", "negate_a", "negate_b"):
            if flag in given:
                given[flag] = int(given[flag])
        assert encode(kind, **given) == value
    for value in (0, 0xFFFFFFFF):
        decode(value, kind)


def test_reserved_bits_are_problems() -> None:
    base = encode("f16", n=128)
    for bit in (6, 23, 29):
        assert any(f"bits {bit} are reserved" in p for p in decode(base | 1 << bit, "f16").problems)
    scaled = encode("mxf8f6f4", scale_type="UE8M0", n=128)
    assert any(
        "24-26" in p for p in decode(scaled | 1 << 24, "mxf8f6f4").problems
    )  # M=64 in CUTLASS's reading
    assert any("31" in p for p in decode(scaled | 1 << 31, "mxf8f6f4").problems)


@pytest.mark.parametrize(
    ("kind", "fields", "words"),
    [
        ("tf32", {"a_type": "F16", "n": 64}, "TF32"),
        ("f16", {"n": 12}, "multiple of 8"),
        ("f16", {"n": 64, "m": 96}, "M must be"),
        ("mxf4", {"a_type": "E2M1", "b_type": "E2M1", "scale_type": "UE8M0", "n": 64, "sfa_id": 1}, "0 or 2"),
        ("mxf4", {"a_type": "E2M1", "b_type": "E2M1", "scale_type": "UE4M3", "n": 64}, "UE8M0"),
        ("i8", {"a_type": "S8", "b_type": "S8", "n": 64, "negate_a": 1}, "negate"),
        ("f16", {"n": 64, "saturate": 1}, "saturate"),
        ("f16", {"n": 64, "max_shift": 4}, "max shift"),
    ],
)
def test_encode_refuses(kind: str, fields: dict[str, object], words: str) -> None:
    with pytest.raises(TmemvizError, match=words):
        encode(kind, **fields)


def test_mma_lines() -> None:
    m = parse_mma("@%p7 tcgen05.mma.cta_group::1.kind::f16 [ %r149 + 0 ], %rd2, %rd3, %r6, %p6;")
    assert (m.kind, m.cta_group, m.idesc, m.a_in_tmem, m.guard) == ("f16", 1, "%r6", False, "%p7")
    ws = parse_mma("tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [%r5], %rd1, %rd2, %r6, p;")
    assert ws.ws and ws.collector == ("collector::b0::fill",)
    sp = parse_mma("tcgen05.mma.sp.cta_group::2.kind::f8f6f4 [%r1], [%r2], %rd3, [%r4], %r5, %p1;")
    assert sp.sparse and sp.a_in_tmem and sp.sp_meta is not None and sp.idesc == "%r5"
    bs = parse_mma(
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X "
        "[%r1], %rd2, %rd3, %r4, [%r5], [%r6], 1;"
    )
    assert bs.block_scale and bs.scale_vec == "scale_vec::1x" and bs.scale_a is not None and bs.idesc == "%r4"
    for wrong in (
        "tcgen05.mma.cta_group::1 [%r1], %rd2, %rd3, %r4, 1;",
        "tcgen05.mma.kind::f16 [%r1], %rd2, %rd3, %r4, 1;",
        "tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd2, %rd3, %r4, 1;",
        "tcgen05.mma.cta_group::1.kind::mxf4 [%r1], %rd2, %rd3, %r4, 1;",
    ):
        with pytest.raises(TmemvizError):
            parse_mma(wrong)


def test_cli_decode_and_encode(capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(ok(capsys, "idesc", "136314896", "--kind", "f16", "-f", "json"))
    assert (data["hex"], data["m"], data["n"], data["d_type"]) == ("0x08200010", 128, 128, "F32")
    out = ok(capsys, "idesc", "--kind", "kind::f16", "--n", "128", "--a-type", "f16", "--b-type", "f16")
    assert "0x08200010" in out and "136314896" in out
    assert "--kind" in bad(capsys, "idesc", "0x08200010")
    assert "not both" in bad(capsys, "idesc", "0x08200010", "--kind", "f16", "--n", "64")
    assert "32-bit" in bad(capsys, "idesc", "0x100000000", "--kind", "f16")


def test_api_and_doc_save(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = tmemviz.idesc(0x08200010, kind="f16")
    path = doc.save(tmp_path / "d.json")
    assert json.loads(path.read_text())["n"] == 128
    assert all(k in DENSE_KINDS + SCALED_KINDS for k in KINDS)


def test_triton_block_scaled_values() -> None:
    # Triton 3.9, Gluon tcgen05_mma_scaled e4m3 x e4m3 with UE8M0 scales, 128x32 per K=32 step, printed
    # these four descriptors (tests/kernels/triton_mma_scaled.ptx), scale IDs 0..3 in turn.
    for step, value in enumerate([143130624, 680001552, 1216872480, 1753743408]):
        fields = {
            "a_type": "E4M3",
            "b_type": "E4M3",
            "scale_type": "UE8M0",
            "n": 32,
            "sfa_id": step,
            "sfb_id": step,
        }
        assert encode("mxf8f6f4", **fields) == value
