"""wait-ld where paths join: ptxas makes the load's scoreboard agree there, so a load consumed or waited
for on one incoming path is waited for on the others before the join; a load issued on one arm only is
not (observed with ptxas 13.5: benchmarks/waits_in_sass.py says "ordered" for each shape below that is a
note, "confirmed" for each that is a warning). The ISA's verdict stands: every one is still reported."""

from __future__ import annotations

import pytest

import tmemviz
from tests.check.test_rules import LD, USE, good

LATER = "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r30};\n"
"""A later write of the load's cells (after the release, by any warp): the release is a hazard."""
IF = "setp.eq.s32 %p1, %r5, 0;\n@%p1 bra $L_join;\n{arm}$L_join:\n"
WAIT = "tcgen05.wait::ld.sync.aligned;\n"
WAIT_ST = "tcgen05.wait::st.sync.aligned;\n"
CALL = "{\n.param .b64 param0;\nst.param.b64 [param0], %rd1;\ncall.uni __assertfail, (param0);\n}\n"


def wait_ld(body: str) -> list[str]:
    text = good(64, "mov.u32 %r5, %tid.x;\n" + body)
    (checked,) = tmemviz.check(text=text).subject
    return [f.severity for f in checked.findings if f.rule == "wait-ld"]


@pytest.mark.parametrize(
    ("body", "severity"),
    [
        # The load pending on every path, nothing consuming it: nothing orders the release.
        (LD.format(addr="%r2") + "mov.b32 %r31, %r10;\n" + IF.format(arm="st.global.b32 [%rd1], %r5;\n"),
         "warning"),
        # The wait on one arm only: ptxas waits for the load on the other arm too.
        (LD.format(addr="%r2") + IF.format(arm=WAIT), "note"),
        (LD.format(addr="%r2") + IF.format(arm="st.global.b32 [%rd1], %r5;\n" + WAIT), "note"),
        # A use on one arm only.
        (LD.format(addr="%r2") + IF.format(arm="add.s32 %r20, %r10, %r10;\n"), "note"),
        # The load on one arm only: nothing waits for it at the join (SASS: the BAR.SYNC after the join
        # waits on no scoreboard, the LDTM's is waited on only by the first use after it).
        (IF.format(arm=LD.format(addr="%r2")), "warning"),
        # A call on one arm (CUTLASS's assert): its CALL waits on every scoreboard; whether ptxas waits
        # at the branch already varies by build (it does in CUTLASS 77's MLA): the PTX cannot tell, the
        # ISA's warning stands, and check --sass settles it (tests/sass/test_check_sass.py).
        (LD.format(addr="%r2") + IF.format(arm=CALL), "warning"),
    ],
)  # fmt: skip
def test_a_release_after_a_join(body: str, severity: str) -> None:
    assert wait_ld(body + "bar.sync 0;\n" + USE + LATER) == [severity]


def test_a_copy_on_one_arm_orders_nothing() -> None:
    """A copy is no instruction in SASS: the join is between two paths where the load is pending."""
    body = LD.format(addr="%r2") + IF.format(arm="mov.b32 %r31, %r10;\n")
    assert wait_ld(body + "bar.sync 0;\n" + USE + LATER) == ["warning"]


def test_a_loop_reissuing_the_load_is_judged_each_round() -> None:
    """The loop's head joins the entry (no load) and the back edge: the load issued again in the body and
    released before any use is a warning on every round."""
    body = (
        "mov.b32 %r6, 0;\n$L_loop:\n" + LD.format(addr="%r2") + "mov.b32 %r31, %r10;\nbar.sync 0;\n" + USE
        + LATER + WAIT_ST + "add.s32 %r6, %r6, 1;\nsetp.lt.s32 %p2, %r6, 4;\n@%p2 bra $L_loop;\n"
    )  # fmt: skip
    assert wait_ld(body) == ["warning"]
