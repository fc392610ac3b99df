"""What reaches a UTC*MMA's idesc register, by the forward data-flow over the function's graph.

On a real listing (tests/kernels/sass_idesc_flow: hand-written PTX, ptxas 13.5): a constant moved above
a loop's label, a choice made above a loop, two paths that move different constants, a descriptor
stepped in a loop, one chosen per thread in vector registers; and on small listings written here for
one behaviour each (a step the flow must see: exits, calls, indirect jumps, parts of a long function).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tmemviz

KERNELS = Path(__file__).parents[1] / "kernels"
FLOW = KERNELS / "sass_idesc_flow"
N128, N64 = 0x08200010, 0x08100010


def explain(*paths: Path) -> list[dict]:
    return tmemviz.explain(list(paths)).lists()[0][1]


def mmas(document: dict) -> dict[str, dict]:
    return {r["function"]: r for r in document["instructions"] if r["op"] == "mma"}


def kernel_lines(name: str) -> list[str]:
    """The listing lines of one function of sass_idesc_flow.sass."""
    text = (FLOW.with_suffix(".sass")).read_text()
    body = text.split(f".text.{name}:", 1)[1]
    return body.split("//----", 1)[0].splitlines()


def test_the_listing_is_what_the_test_needs() -> None:
    """The idesc moves sit above a label a later branch returns to (what a rule forgetting constants at
    every label got wrong), and the per-thread choice reaches the uniform register from a vector one."""
    for name, move in (("idesc_before_loop", "UMOV UR5, 0x8200010"),
                       ("idesc_chosen_before_loop", "USEL UR5, UR5, 0x8100010")):  # fmt: skip
        lines = kernel_lines(name)
        at = next(i for i, t in enumerate(lines) if move in t)
        mma = next(i for i, t in enumerate(lines) if "UTCHMMA" in t)
        labels = [t.strip()[:-1] for t in lines[at:mma] if re.match(r"^\.L_x_\d+:$", t.strip())]
        back = [t for t in lines[mma:] if any(f"`({label})" in t for label in labels)]
        assert labels and back, name
    lines = kernel_lines("idesc_per_thread")
    assert any(re.search(r"\bSEL R\d+", t) for t in lines) and any("R2UR.BROADCAST" in t for t in lines)


@pytest.fixture(scope="module")
def alone() -> dict[str, dict]:
    (document,) = explain(FLOW.with_suffix(".sass"))
    assert document["warnings"] == []
    return mmas(document)


def test_a_constant_above_a_loop_label_reaches_the_mma(alone: dict[str, dict]) -> None:
    r = alone["idesc_before_loop"]
    assert r["kind"] == "f16" and r["idesc"]["value"] == N128 and r["layout"] == "D" and r["sparse"] is False


@pytest.mark.parametrize("name", ["idesc_chosen_before_loop", "idesc_two_paths"])
def test_a_choice_is_one_of_its_values_never_one(alone: dict[str, dict], name: str) -> None:
    r = alone[name]
    assert r["idesc"]["value"] is None and r["idesc"]["candidates"] == [f"0x{N64:08x}", f"0x{N128:08x}"]
    assert r["idesc"]["m"] == 128 and r["idesc"]["n"] is None and r["idesc"]["varies"] == {"n": [64, 128]}
    assert r["kind"] == "f16"  # both values decode as kind::f16 (BF16/F16 A and B), neither as tf32


def test_a_descriptor_stepped_in_a_loop_has_no_value(alone: dict[str, dict]) -> None:
    r = alone["idesc_changes_in_loop"]
    assert r["idesc"] is None and r["idesc_varies"] is True and "changes around a loop" in r["summary"]
    assert r["kind"] == "f16 or tf32"


def test_run_time_scale_factor_ids_in_a_constant(alone: dict[str, dict]) -> None:
    """Bits 4-5 and 29-30 from the scale-factor addresses, built from the loop's counter (which changes
    every step): the rest of the descriptor is known, so M and N are."""
    r = alone["idesc_scale_factor_ids"]
    assert r["kind"] == "mxf8f6f4" and r["idesc"]["candidates"] == ["0x?8a000?0"]
    assert (r["idesc"]["m"], r["idesc"]["n"], r["idesc"]["scale_type"]) == (128, 128, "UE8M0")
    assert r["idesc"]["runtime"] == ["sfb_id", "sfa_id"] and r["layout"] == "D"


def test_an_add_keeps_the_bits_no_carry_reaches() -> None:
    """ptxas adds (UIADD3) what the PTX ORed when it knows the bits apart: a run-time scale-factor ID in
    bits 4-5 added to a constant with zeros there stays a run-time ID, the rest is the constant."""
    scaled = "UTCQMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR10], idesc[UR13], tmem[UR20], UP0"
    body = ["USHF.R.U32.HI UR12, URZ, 0x1a, UR15", "ULOP3.LUT UR12, UR12, 0x30, URZ, 0xc0, !UPT",
            "UMOV UR14, 0x8900490", "UIADD3 UR13, UPT, UPT, UR12, UR14, URZ"]  # fmt: skip
    r = listing_mma(body, mma=scaled)
    assert r["kind"] == "mxf8f6f4" and r["idesc"]["candidates"] == ["0x089004?0"]
    assert r["idesc"]["m"] == 128 and r["idesc"]["runtime"] == ["sfb_id"]


def test_a_choice_in_vector_registers_is_unknown(alone: dict[str, dict]) -> None:
    r = alone["idesc_per_thread"]
    assert r["idesc"] is None and "idesc_varies" not in r and r["kind"] == "f16 or tf32"


def test_the_ptx_lends_what_the_sass_does_not_know() -> None:
    ptx, sass = explain(FLOW.with_suffix(".ptx"), FLOW.with_suffix(".sass"))
    got = mmas(sass)
    lent = got["idesc_per_thread"]
    line = mmas(ptx)["idesc_per_thread"]["line"]
    assert lent["idesc_from"] == lent["kind_from"] == {"file": str(FLOW.with_suffix(".ptx")), "line": line}
    assert lent["kind"] == "f16" and lent["idesc"]["candidates"] == [f"0x{N64:08x}", f"0x{N128:08x}"]
    assert f"from PTX line {line}" in lent["summary"]
    # The kind only, where the SASS shows the descriptor changes; nothing where it knows more.
    stepped = got["idesc_changes_in_loop"]
    assert stepped["kind"] == "f16" and stepped["idesc"] is None and "idesc_from" not in stepped
    assert stepped["kind_from"]["line"] == mmas(ptx)["idesc_changes_in_loop"]["line"]
    for name in ("idesc_two_paths", "idesc_chosen_before_loop", "idesc_before_loop"):
        assert "idesc_from" not in got[name] and "kind_from" not in got[name], name
    assert got["idesc_two_paths"]["idesc"]["candidates"] == [f"0x{N64:08x}", f"0x{N128:08x}"]
    assert sass["warnings"] == []


def test_the_cubin_reads_as_its_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import pip_tool

    nvdisasm = pip_tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("nvdisasm is absent: pip install 'tmemviz[test]' brings nvidia-cuda-nvdisasm")
    monkeypatch.setenv("PATH", str(Path(nvdisasm).parent), prepend=":")
    (cubin,) = explain(FLOW.with_suffix(".cubin"))
    (listing,) = explain(FLOW.with_suffix(".sass"))
    assert [(r["function"], r["kind"], r["idesc"]) for r in cubin["instructions"] if r["op"] == "mma"] == [
        (r["function"], r["kind"], r["idesc"]) for r in listing["instructions"] if r["op"] == "mma"
    ]


MMA = "UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR10], idesc[UR13], UP0"


def listing_mma(body: list[str], mma: str = MMA) -> dict:
    """The MMA of a listing ``body`` (instructions and labels; offsets given in order)."""
    lines, at = [".text.k:"], 0
    for item in [*body, mma, "EXIT"]:
        if item.endswith(":"):
            lines.append(item)
        else:
            lines.append(f"        /*{at:04x}*/                   {item} ;")
            at += 16
    (document,) = tmemviz.explain(text="\n".join(lines)).lists()[0][1]
    return next(r for r in document["instructions"] if r["op"] == "mma")


TF32 = "UMOV UR13, 0x8100910"


@pytest.mark.parametrize(
    ("body", "value"),
    [
        # A value moved only on a path that exits never reaches the MMA.
        (["@P0 BRA `(.L_x_1)", TF32, "EXIT", ".L_x_1:"], None),
        ([TF32, "@P0 BRA `(.L_x_1)", "UMOV UR13, 0x0", "EXIT", ".L_x_1:"], 0x08100910),
        # A call may write any uniform register.
        ([TF32, "CALL.REL.NOINC `(.L_x_9)"], None),
        # An indirect jump whose targets nvdisasm names: the value reaches them all.
        ([TF32, 'BRX R2 -0x40 (*"BRANCH_TARGETS .L_x_1,.L_x_2"*)', ".L_x_1:", "NOP", ".L_x_2:"], 0x08100910),
        # A loop that steps another register keeps the descriptor.
        ([TF32, ".L_x_5:", "UIADD3 UR4, UPT, UPT, UR4, 0x1, URZ", "@P0 BRA `(.L_x_5)"], 0x08100910),
        # BRA.DIV jumps only when the warp has diverged: the MMA after it is reached.
        ([TF32, "BRA.DIV UR4, `(.L_x_9)"], 0x08100910),
        # A guarded write, then an MMA every path reaches: the old value (unknown) may stay.
        (["@UP2 UMOV UR13, 0x8100910", "@UP2 BRA `(.L_x_3)", ".L_x_3:"], None),
    ],
)  # fmt: skip
def test_what_reaches_the_mma(body: list[str], value: int | None) -> None:
    r = listing_mma(body)
    assert (r["idesc"] or {}).get("value") == value, r["summary"]


def test_an_mma_guarded_like_its_move_sees_the_move() -> None:
    """ptxas guards both with one predicate: ``@UP0 UMOV UR13, c; @UP0 UTCHMMA ... idesc[UR13]``; a
    predicate written between them breaks the link."""
    lines = [".text.k:", "/*0000*/ @UP0 UMOV UR13, 0x8100910 ;", f"/*0010*/ @UP0 {MMA} ;",
             "/*0020*/ @UP0 UMOV UR13, 0x8100910 ;", "/*0030*/ VOTEU.ANY UP0, PT ;",
             f"/*0040*/ @UP0 {MMA} ;"]  # fmt: skip
    (document,) = tmemviz.explain(text="\n".join(lines)).lists()[0][1]
    first, second = (r for r in document["instructions"] if r["op"] == "mma")
    assert first["idesc"]["value"] == 0x08100910 and first["kind"] == "tf32"
    assert second["idesc"] is None


@pytest.mark.parametrize(
    ("between", "after", "exact"),
    [
        ("", "", True),
        ("", "/*0065*/ ELECT P0, URZ, PT ;", True),  # P0 written after both votes: they still agree
        ("/*0025*/ ISETP.NE.AND P0, PT, R1, RZ, PT ;", "", False),  # P0 written between the two votes
        ("/*0025*/ @P1 EXIT ;", "", False),  # the warp may part: the votes may see other threads
    ],
)
def test_an_mma_guarded_by_the_same_vote_as_its_move_sees_the_move(
    between: str, after: str, exact: bool
) -> None:
    """ptxas votes one predicate twice (as in DeepGEMM's kernels of flashinfer-cubin 0.6.13):
    ``VOTEU.ANY UP0, P0; VOTEU.ANY UP3, P0; @UP3 UMOV UR7, idesc; @UP0 UTCQMMA ... idesc[UR7]``: UP0 and UP3
    are the same, so the MMA reads the move's descriptor, not a choice with what UR7 held before (even where
    P0 is elected again after the votes, as DeepGEMM's kernels do)."""
    lines = [".text.k:", "/*0000*/ UMOV UR7, 0x40004040 ;", "/*0010*/ ELECT P0, URZ, PT ;",
             "/*0020*/ VOTEU.ANY UP0, P0 ;", between, "/*0030*/ VOTEU.ANY UP3, P0 ;",
             "/*0060*/ @UP3 UMOV UR7, 0x8a00000 ;", after,
             "/*0070*/ @UP0 UTCQMMA gdesc[UR54], gdesc[UR56], tmem[UR13], tmem[UR6], idesc[UR7], tmem[UR10], "
             "!UPT ;", "/*0080*/ EXIT ;"]  # fmt: skip
    (document,) = tmemviz.explain(text="\n".join(x for x in lines if x)).lists()[0][1]
    (mma,) = (r for r in document["instructions"] if r["op"] == "mma")
    if exact:
        assert mma["idesc"]["value"] == 0x08A00000
        assert not document["warnings"]
    else:
        assert (mma["idesc"] or {}).get("value") != 0x08A00000


def test_a_long_function_is_solved_in_parts_and_never_guesses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the bound on kept steps a function is explained part by part, each assuming any of its
    labels may be reached from elsewhere: a loop's constant is then lost, never made up."""
    import tmemviz.families.explain.machine as machine

    body = [TF32, ".L_x_5:", *["NOP"] * 6, "UIADD3 UR4, UPT, UPT, UR4, 0x1, URZ", "@P0 BRA `(.L_x_5)"]
    assert listing_mma(body)["idesc"]["value"] == 0x08100910
    monkeypatch.setattr(machine, "MAX_STEPS", 3)
    kept: list[int] = []
    real = machine.facts_at

    def counted(body, *args, **kwargs):  # type: ignore[no-untyped-def]
        kept.append(len(body))
        return real(body, *args, **kwargs)

    monkeypatch.setattr(machine, "facts_at", counted)
    r = listing_mma(body)
    assert r["idesc"] is None and max(kept) <= 3 and len(kept) > 1
