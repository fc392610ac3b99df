"""wait-ld for a tcgen05.st made on one side of a branch: the store carries what its own path proved, so
that branches those values decide do not carry it (docs/check.md, "A store's own path").

The shape is CUTLASS's attention softmax (77_blackwell_fmha, _fmha_gen, _mla_fwd from the pip package
nvidia-cutlass 4.2.0): the row statistics are stored only on the loop's last round (``or`` of the round
counter and a tile flag compared with 0, or the counter compared with 1), and the loop's back edge and the
next load of those cells are taken only when that round is not the last. Each kernel here is our own."""

from __future__ import annotations

import pytest

import tmemviz

HEAD = """.version 9.0
.target sm_100a
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u32 n, .param .u32 m, .param .u32 a, .param .u32 b)
{
.reg .b32 %r<64>;
.reg .pred %p<16>;
mov.b32 %r1, smem;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 64;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
bar.sync 0;
ld.shared.b32 %r2, [smem];
ld.param.u32 %r6, [n];
ld.param.u32 %r7, [m];
ld.param.u32 %r10, [a];
ld.param.u32 %r11, [b];
"""
TAIL = """tcgen05.wait::st.sync.aligned;
bar.sync 0;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;
ret;
}
"""
LOAD = (
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r31}, [%r2];\ntcgen05.wait::ld.sync.aligned;\n"
    "add.s32 %r32, %r31, 1;\n"
)
STORE = "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r32};\n"
WAIT_LOOP = """add.s32 %r20, %r1, 16;
{
.reg .pred P1;
LAB_WAIT:
mbarrier.try_wait.parity.shared::cta.b64 P1, [%r20], %r21, %r22;
@P1 bra DONE;
bra LAB_WAIT;
DONE:
}
"""


def warnings(body: str) -> list[tuple[int, str]]:
    (checked,) = tmemviz.check(text=HEAD + body + TAIL).subject
    return [(f.line, f.message) for f in checked.findings if f.rule == "wait-ld" and f.severity != "note"]


def ored(last_round: str = "or.b32 %r8, %r6, %r7;\nsetp.ne.s32 %p1, %r8, 0;\n", after: str = "") -> str:
    """The softmax loop: load, store on the last round only, count down; then the tile's next load."""
    return (
        "$L_loop:\n" + LOAD + last_round + "@%p1 bra $L_next;\n" + STORE + "$L_next:\n"
        + "add.s32 %r9, %r6, 1;\nsetp.gt.u32 %p2, %r9, 1;\nadd.s32 %r6, %r6, -1;\n@%p2 bra $L_loop;\n"
        + after
    )  # fmt: skip


AFTER = "setp.lt.s32 %p3, %r7, 1;\n@%p3 bra $L_done;\n" + LOAD + "$L_done:\n"


def test_a_store_on_the_last_round_only_reaches_no_load() -> None:
    """``%r6 | %r7 == 0`` pins both to 0: the back edge (``%r6 + 1 > 1``) and the load after the loop
    (``%r7 >= 1``) are then not taken."""
    assert warnings(ored(after=AFTER)) == []


def test_the_counter_compared_with_one_behind_a_wait_loop() -> None:
    """``min`` gives a value the analysis knows only by name; the comparison with 1 sits before an
    mbarrier wait loop (its own back edge) and the branch after it; the counter is rewritten between the
    back edge's comparison and its branch (CUTLASS 77_blackwell_mla_fwd)."""
    body = (
        "min.s32 %r6, %r10, %r11;\n$L_loop:\n" + LOAD + "setp.ne.s32 %p1, %r6, 1;\n" + WAIT_LOOP
        + "@%p1 bra $L_next;\n" + STORE + "$L_next:\n"
        + "add.s32 %r12, %r6, -1;\nsetp.gt.s32 %p2, %r6, 1;\nmov.u32 %r6, %r12;\n@%p2 bra $L_loop;\n"
    )  # fmt: skip
    assert warnings(body) == []


@pytest.mark.parametrize(
    "last_round",
    [
        # Stored every round: the next round's load reads it with no wait::st.
        "setp.ne.s32 %p1, %r6, %r6;\n",
        # Stored on a round that is not the last: the back edge is taken after it.
        "setp.ne.s32 %p1, %r6, 5;\n",
        # Only the tile flag is known 0: the counter may go on.
        "setp.ne.s32 %p1, %r7, 0;\n",
    ],
)
def test_a_store_the_next_round_may_read_is_reported(last_round: str) -> None:
    found = warnings(ored(last_round))
    assert found and all("tcgen05.wait::st" in message for _, message in found)


def test_a_comparison_of_a_register_written_since_proves_nothing() -> None:
    """``%r6`` is compared, then given another value before the branch: the side where the old value was
    0 says nothing of the new one, so the load that the new value steers to is still reported."""
    body = (
        "setp.eq.s32 %p1, %r6, 0;\nmov.u32 %r6, %r10;\n@%p1 bra $L_store;\nbra $L_done;\n$L_store:\n"
        + "add.s32 %r32, %r6, 1;\n" + STORE + "setp.ne.s32 %p2, %r6, 0;\n@%p2 bra $L_load;\nbra $L_done;\n"
        + "$L_load:\n" + LOAD + "$L_done:\n"
    )  # fmt: skip
    assert [message for _, message in warnings(body)] != []


def test_an_or_of_a_register_written_after_it_pins_nothing() -> None:
    """``or`` then a new value for one of its sources: only the compared register is pinned."""
    last_round = "or.b32 %r8, %r6, %r7;\nmov.u32 %r7, %r10;\nsetp.ne.s32 %p1, %r8, 0;\n"
    assert warnings(ored(last_round, AFTER)) != []


def twice(compute: str) -> str:
    """Stored where one register is 0, loaded where a second one, computed the same way, is not."""
    return (
        "mov.u32 %r32, 0;\n" + compute.format(d="%r40") + "setp.ne.s32 %p1, %r40, 0;\n@%p1 bra $L_skip;\n"
        + STORE + "$L_skip:\n" + compute.format(d="%r41") + "setp.eq.s32 %p2, %r41, 0;\n@%p2 bra $L_done;\n"
        + LOAD + "$L_done:\n"
    )  # fmt: skip


def test_a_second_register_computing_the_same_is_known() -> None:
    """CUTLASS tests ``and.b32 %r, %tile, 255`` twice, in two registers: the load is not on the store's
    path."""
    assert warnings(twice("and.b32 {d}, %r10, 255;\n")) == []


def test_two_reads_of_the_clock_are_not_the_same_value() -> None:
    """``%clock`` changes while the thread runs (PTX ISA "Special Registers"): the load may follow."""
    assert warnings(twice("mov.u32 {d}, %clock;\n")) != []
