"""The SASS reader: line formats, content sniffing, listing events, and bad lines never crashing."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

import tmemviz
from tmemviz.errors import TmemvizError
from tmemviz.sass.line import parse_sass
from tmemviz.sass.listing import events, sniff

KERNELS = Path(__file__).parents[1] / "kernels"
FORMATS = [
    "        /*04a0*/                   STTM.16dp32bit_t16_t31.x8 tmem[UR4+0x8], R28 ;",
    "        /*04a0*/   STTM.16dp32bit_t16_t31.x8 tmem[UR4+0x8], R28 ;   /* 0x0000081c000079ed */",
    "/*04a0*/ STTM.16dp32bit_t16_t31.x8 tmem[UR4 + 0x8], R28;",
    "0x7f3c000004a0\tSTTM.16dp32bit_t16_t31.x8 tmem[UR4+0x8], R28\t3\t0\t12",
    "STTM.16dp32bit_t16_t31.x8 tmem[UR4+0x8], R28",
]


@pytest.mark.parametrize("text", FORMATS)
def test_every_format_reads_the_same_instruction(text: str) -> None:
    s = parse_sass(text)
    assert s is not None
    assert (s.opcode, s.modifiers, s.operands) == (
        "STTM",
        ("16dp32bit_t16_t31", "x8"),
        ("tmem[UR4+0x8]", "R28"),
    )
    assert s.tmem() == ("UR4", 8)


def test_guards_and_non_instructions() -> None:
    assert parse_sass("  /*0100*/  @!UP1 UTCBAR.2CTA [UR4], URZ ;").guard == "!UP1"
    for text in (
        ".L_x_3:",
        "\t.section\t.text.k",
        '//## File "k.py", line 3',
        "",
        "   /* 0x000fe20000000800 */",
    ):
        assert parse_sass(text) is None


def test_sniff_tells_ptx_from_sass_and_loses_no_line() -> None:
    ptx = (KERNELS / "triton_st_16x64b.ptx").read_text().splitlines()
    kind, lines = sniff(ptx)
    assert kind == "ptx" and list(lines) == ptx
    for name in ("triton_split_16x32bx2.sass", "triton_mma_scaled.sass"):
        text = (KERNELS / name).read_text().splitlines()
        kind, lines = sniff(text)
        assert kind == "sass" and list(lines) == text
    nsight = ["# Address\tSource", "0x7f3c00000500\tLDTM.x32 R4, tmem[UR4]\t12"]
    assert sniff(nsight)[0] == "sass"


def test_cuobjdump_functions_and_target() -> None:
    text = (KERNELS / "triton_split_16x32bx2.sass").read_text().splitlines()
    found = [(e.kind, e.value) for e in events(text) if e.kind in ("target", "function")]
    assert found[0] == ("target", "sm_100a") and ("function", "roundtrip") in found


def test_nvdisasm_source_lines() -> None:
    f = tmemviz.explain([KERNELS / "cute_dsl_scaled_nvf4.sass"]).lists()[0][1][0]
    cps = [r for r in f["instructions"] if r["op"] == "cp"]
    assert len(cps) == 4 and all(r["source"]["file"] == "dsl_scaled.py" for r in cps)
    assert all(r["sass"].startswith("UTCCP.T.S.4x32dp128bit") for r in cps)


def test_unknown_modifiers_are_warnings_not_crashes() -> None:
    lines = [
        ".text.k:",
        "/*0000*/ LDTM.16dp999bit.x4 R4, tmem[UR4] ;",
        "/*0010*/ UTCCP.T.S.9x9dp tmem[UR4], gdesc[UR6] ;",
        "/*0020*/ UTCHMMA.ZZ gdesc[UR4] ;",
    ]
    text = "\n".join(lines)
    f = tmemviz.explain(text=text).lists()[0][1][0]
    assert [r["op"] for r in f["instructions"]] == ["ld", "UTCCP", "UTCHMMA"]
    assert all("error" in r for r in f["instructions"]) and len(f["warnings"]) == 3


def test_mangled_sass_lines_never_crash() -> None:
    """Random edits of real tcgen05 SASS lines: explained, warned about, or one TmemvizError."""
    lines = [
        line
        for p in sorted(KERNELS.glob("*.sass"))
        for line in p.read_text().splitlines()
        if any(
            word in line for word in ("TM", "UTC", "UMOV", "R2UR", "IMAD", "SEL", "HFMA2", "ELECT", "LOP3")
        )
    ]
    rng = random.Random(11)
    alphabet = "[],;+ .@!:0x1234URTZ_tdpbitmem/*\t"
    for _ in range(900):
        chars = list(rng.choice(lines))
        for _ in range(rng.randint(1, 5)):
            pos = rng.randrange(len(chars) + 1)
            if rng.random() < 0.5 and chars:
                del chars[min(pos, len(chars) - 1)]
            else:
                chars.insert(pos, rng.choice(alphabet))
        # An MMA after it asks the flow what the registers hold (general ones too: R2UR's sources).
        head = "\t.target\tsm_100a\n.text.k:\n/*0000*/ UMOV UR13, 0x8100490 ;\n"
        mma = "/*0ff0*/ UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR10], idesc[UR5], UPT ;\n"
        text = head + "".join(chars) + "\n" + mma
        with contextlib.suppress(TmemvizError):
            tmemviz.explain(text=text).lists()


MMA = "/*0100*/ UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR10], idesc[UR13], UP0 ;"
TF32, F16 = 0x08100910, 0x08100010


@pytest.mark.parametrize(
    ("between", "values"),
    [
        ([], [TF32]),
        (["/*0050*/ IADD3 R1, R2, R3, RZ ;"], [TF32]),
        ([".L_x_3:"], [TF32]),  # a label no branch reaches: the one path
        (["/*0050*/ UIADD3 UR13, UPT, UPT, UR11, 0x40, URZ ;"], None),
        (["/*0050*/ LDCU.64 UR12, c[0x0][0x358] ;"], None),
        (["/*0050*/ UIMAD.WIDE.U32 UR12, UR4, 0x10, URZ ;"], None),  # writes UR12 and UR13
        (["/*0050*/ @UP1 UMOV UR13, 0x8100010 ;"], [TF32, F16]),  # a guarded move: either value
        (["/*0050*/ UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR13, UR8 ;"], None),
        (["/*0050*/ @P0 BRA 0x100 ;"], [TF32]),  # cuobjdump: no labels; both paths move the same
        (["/*0050*/ @P0 BRA 0x100 ;", "/*0060*/ UMOV UR13, 0x8100010 ;"], [TF32, F16]),  # two paths
        (["/*0050*/ @P0 BRA `(.L_x_9) ;", "/*0060*/ UMOV UR13, 0x8100010 ;", ".L_x_9:"], [TF32, F16]),
        (["/*0050*/ BRX R2 -0x40 ;", ".L_x_9:"], None),  # an indirect jump: any label from anywhere
    ],
)
def test_idesc_constant_reaches_the_mma_on_every_path(between: list[str], values: list[int] | None) -> None:
    lines = [".text.k:", "/*0000*/ UMOV UR13, 0x8100910 ;", *between, MMA]
    f = tmemviz.explain(text="\n".join(lines)).lists()[0][1][0]
    mma = next(r for r in f["instructions"] if r["op"] == "mma")
    if values == [TF32]:  # 0x08100910: A and B TF32, so of UTCHMMA's kinds (f16, tf32) only tf32 fits
        assert mma["kind"] == "tf32" and mma["idesc"]["value"] == TF32 and mma["sparse"] is False
    elif values is None:
        assert mma["kind"] == "f16 or tf32" and mma["idesc"] is None and mma["sparse"] is None
    else:  # one of several: no kind fits every value, what they share is decoded, never one of them
        assert mma["kind"] == "f16 or tf32" and mma["idesc"]["value"] is None
        assert mma["idesc"]["candidates"] == [f"0x{v:08x}" for v in sorted(values)]
        assert mma["idesc"]["m"] == 128 and mma["idesc"]["n"] == 64 and mma["sparse"] is False


def test_nsight_compute_csv_reads_like_the_listing() -> None:
    """The same instructions as ``ncu --page source --csv`` would quote them (an address column, the
    instruction, metrics): the same tcgen05 records as the cuobjdump listing."""
    listing = (KERNELS / "triton_split_16x32bx2.sass").read_text().splitlines()
    rows = ['"# Address","Source","Live Registers","Warp Stall Sampling (All Samples)"']
    for text in listing:
        s = parse_sass(text)
        if s is not None:
            rows.append(f'"0x7f3c{s.address:08x}","{s.text.replace(chr(34), chr(34) * 2)}","12","0"')
    assert sniff(rows)[0] == "sass"
    csv_f = tmemviz.explain(text="\n".join(rows)).lists()[0][1][0]
    sass_f = tmemviz.explain([KERNELS / "triton_split_16x32bx2.sass"]).lists()[0][1][0]

    def same(r: dict) -> tuple:
        return (r["op"], r.get("shape"), r.get("num"), r.get("threads"), r.get("registers"), r.get("offset"))

    assert [same(r) for r in csv_f["instructions"]] == [same(r) for r in sass_f["instructions"]]
    assert all(r["address"].startswith("0x7f3c") for r in csv_f["instructions"])


@pytest.mark.parametrize("prefix", ["/*{:04x}*/ ", "0x7f3c{:08x}\t"])
def test_constants_in_both_listing_formats(prefix: str) -> None:
    """nvdisasm's /*offset*/ lines and Nsight Compute's rows keep idesc constants alike."""
    mma = MMA.split("*/ ")[1].rstrip(" ;")
    body = ["UMOV UR13, 0x8100910", mma, "UIADD3 UR13, UPT, UPT, UR11, 0x40, URZ", mma]
    end = " ;" if prefix.startswith("/*") else "\t3"
    lines = [".text.k:"] + [prefix.format(16 * i) + b + end for i, b in enumerate(body)]
    f = tmemviz.explain(text="\n".join(lines)).lists()[0][1][0]
    assert [r["kind"] for r in f["instructions"]] == ["tf32", "f16 or tf32"]


def test_a_half_alone_says_its_split_offset_is_unknown() -> None:
    lines = [".text.k:", "/*0000*/ LDTM.16dp32bit_t0_t15.x2 R4, tmem[UR4+0x10] ;", "/*0010*/ EXIT ;",
             ".L_x_1:", "/*0020*/ LDTM.16dp32bit_t16_t31.x2 R8, tmem[UR4+0x12] ;"]  # fmt: skip
    f = tmemviz.explain(text="\n".join(lines)).lists()[0][1][0]
    first, second = f["instructions"]
    assert (first["threads"], second["threads"]) == ([0, 15], [16, 31])
    assert first["split_offset"] is None and second["split_offset"] is None
    assert {c["col"] for c in first["cells"]} == {16, 17} and {c["col"] for c in second["cells"]} == {18, 19}
    assert "unknown" in first["summary"] and f["warnings"] == []
