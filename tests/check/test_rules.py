"""Each rule of tmemviz check on small hand-written kernels: where it must fire, and where the analysis
cannot know and must stay silent (a register defined twice, a base it did not see, a call)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tmemviz
from tmemviz.families.check.rules import BY_ID, RULES, SEVERITIES

HEAD = """.version 9.0
.target {target}
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 out)
{{
.reg .b32 %r<40>;
.reg .pred %p<4>;
"""


def kernel(body: str, target: str = "sm_100a") -> str:
    return HEAD.format(target=target) + body + "\nret;\n}\n"


ALLOC = """mov.b32 %r1, smem;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], {cols};
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
bar.sync 0;
ld.shared.b32 %r2, [smem];
"""
FREE = "bar.sync 0;\ntcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, {cols};\n"
LD = "tcgen05.ld.sync.aligned.32x32b.x8.b32 {{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}}, [{addr}];\n"
USE = (
    "add.s32 %r20, %r10, %r17;\nadd.s32 %r21, %r11, %r12;\n"
    "add.s32 %r22, %r13, %r14;\nadd.s32 %r23, %r15, %r16;\n"
)


def line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth]


def findings(text: str) -> list[tuple[int, str, str]]:
    (checked,) = tmemviz.check(text=text).subject
    return [(f.line, f.severity, f.rule) for f in checked.findings if f.severity != "note"]


def good(cols: int = 64, extra: str = "") -> str:
    return kernel(ALLOC.format(cols=cols) + extra + FREE.format(cols=cols))


def test_rules_have_stable_unique_ids() -> None:
    assert [r.id for r in RULES] == [
        "alloc-columns", "outside-allocation", "warp-lanes", "never-freed", "dealloc-mismatch",
        "use-after-dealloc", "dealloc-twice", "cta-group-mixed", "pair-sync", "no-alloc", "capacity",
        "ld-registers", "arrive-count", "operand-range", "alloc-overlap", "relinquish", "target", "wait-ld",
        "unreadable",
    ]  # fmt: skip
    assert len(BY_ID) == len(RULES) and SEVERITIES == ("error", "warning", "note")


def test_a_correct_kernel_has_only_notes() -> None:
    text = good(64, "add.s32 %r3, %r2, 32;\n" + LD.format(addr="%r3") + USE)
    assert findings(text) == []
    (checked,) = tmemviz.check(text=text).subject
    notes = {f.rule: f.message for f in checked.findings}
    assert "holds up to 64 of the SM's 512" in notes["alloc-columns"]
    assert "per CTA: 8 such CTAs can hold Tensor Memory on one SM at once" in notes["alloc-columns"]
    assert "compute capability 10.0 only" in notes["target"]


def test_two_allocs_holding_more_than_the_sm_has() -> None:
    second = "mov.b32 %r6, smem;\nadd.s32 %r7, %r6, 8;\n"
    second += "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r7], {cols};\n"
    free_second = (
        "\nld.shared.b32 %r8, [%r7];\ntcgen05.dealloc.cta_group::1.sync.aligned.b32 %r8, {cols};\nret;"
    )
    text = good(256, second.format(cols=512)).replace("\nret;", free_second.format(cols=512))
    found = [(line, r) for line, _, r in findings(text)]
    assert found == [(line_of(text, "[%r7], 512"), "capacity")]  # columns held at once: capacity's
    fits = good(256, second.format(cols=256)).replace("\nret;", free_second.format(cols=256))
    assert findings(fits) == []
    (checked,) = tmemviz.check(text=fits).subject
    assert "holds up to 512 of the SM's 512" in " ".join(f.message for f in checked.findings)


@pytest.mark.parametrize(("cols", "bad"), [(16, True), (48, True), (1024, True), (32, False), (512, False)])
def test_alloc_columns(cols: int, bad: bool) -> None:
    found = findings(good(cols))
    assert ("alloc-columns" in {r for _, _, r in found}) is bad


@pytest.mark.parametrize(
    ("offset", "fires"),
    [(0, False), (56, False), (57, True), (64, True), (0x200000, False), (0x600000, False), (0x610000, True)],
)
def test_outside_allocation_at_base_plus_constant(offset: int, fires: bool) -> None:
    """A 32x32b.x8 reads 8 columns of 32 lanes: inside a 64-column alloc up to column 56, lanes up to 96."""
    text = good(64, f"add.s32 %r3, %r2, {offset};\n" + LD.format(addr="%r3") + USE)
    assert ("outside-allocation" in {r for _, _, r in findings(text)}) is fires


def test_outside_allocation_through_a_generic_address_and_a_copied_register() -> None:
    body = (
        """cvta.shared.u64 %rd1, smem;
mov.b32 %r1, smem;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
bar.sync 0;
ld.u32 %r2, [%rd1];
mov.b32 %r4, %r2;
add.s32 %r3, %r4, 32;
"""
        + LD.format(addr="%r3")
        + USE
        + FREE.format(cols=32)
    )
    text = kernel(".reg .b64 %rd<4>;\n" + body)
    assert findings(text) == [(line_of(text, "tcgen05.ld"), "error", "outside-allocation")]


def test_an_interval_of_lanes_still_proves_columns() -> None:
    """Triton's lane offset: (warp << 21) & 0x600000 is some lane 0..96 and column 0 exactly."""
    body = "mov.u32 %r5, %tid.x;\nshl.b32 %r6, %r5, 16;\nand.b32 %r7, %r6, 6291456;\nadd.s32 %r3, %r7, %r2;\n"
    assert findings(good(32, body + LD.format(addr="[%r3 + 24]".strip("[]")) + USE)) == []
    found = findings(good(32, body + LD.format(addr="%r3 + 32") + USE))
    assert [r for _, _, r in found] == ["outside-allocation"]


def test_a_loop_carried_offset_is_judged_per_stage() -> None:
    """A loop over four 64-column stages: each stage's offset (0, 64, 128, 192) is judged on its own."""
    body = "mov.b32 %r5, 0;\n$L1:\nadd.s32 %r3, %r2, %r5;\n" + LD.format(addr="%r3") + USE
    body += "add.s32 %r5, %r5, 64;\nsetp.lt.u32 %p1, %r5, 256;\n@%p1 bra $L1;\n"
    text = good(64, body)
    found = findings(text)
    assert found == [(line_of(text, "tcgen05.ld"), "error", "outside-allocation")]
    (checked,) = tmemviz.check(text=text).subject
    assert "columns 64..71" in next(f.message for f in checked.findings if f.rule == "outside-allocation")
    assert findings(good(256, body)) == []
    unbounded = body.replace("setp.lt.u32 %p1, %r5, 256", "setp.lt.u32 %p1, %r5, %r9")
    assert findings(good(256, "ld.param.u32 %r9, [out];\n" + unbounded)) == [], "no stage is outside for sure"


def test_no_conclusion_from_an_unknown_base_or_a_register_column_count() -> None:
    body = "ld.param.u32 %r9, [out];\nadd.s32 %r3, %r9, 4096;\n" + LD.format(addr="%r3") + USE
    assert findings(good(32, body)) == []
    text = kernel(ALLOC.format(cols="%r9").replace("mov.b32 %r1", "ld.param.u32 %r9, [out];\nmov.b32 %r1"))
    text = text.replace("\nret;", "\ntcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, %r9;\nret;")
    (checked,) = tmemviz.check(text=text).subject
    assert [(f.severity, f.rule) for f in checked.findings if f.rule == "alloc-columns"] == [
        ("note", "alloc-columns"),
        ("note", "alloc-columns"),
    ]
    assert findings(text) == []


def test_never_freed_and_its_limits() -> None:
    text = kernel(ALLOC.format(cols=64))
    assert findings(text) == [(line_of(text, "tcgen05.alloc"), "warning", "never-freed")]
    called = kernel(ALLOC.format(cols=64) + "call.uni release;\n")
    assert findings(called) == [], "a called function may free it"
    printing = kernel(ALLOC.format(cols=64) + "call.uni (retval0), vprintf, (param0, param1);\n")
    assert [r for _, _, r in findings(printing)] == ["never-freed"], "vprintf frees no Tensor Memory"


def test_dealloc_mismatch() -> None:
    text = kernel(ALLOC.format(cols=64) + FREE.format(cols=32))
    assert findings(text) == [(line_of(text, "tcgen05.dealloc"), "warning", "dealloc-mismatch")]


def test_use_after_dealloc_on_every_path_or_some() -> None:
    after = kernel(ALLOC.format(cols=64) + FREE.format(cols=64) + "$L9:\n" + LD.format(addr="%r2") + USE)
    assert [(s, r) for _, s, r in findings(after)] == [("error", "use-after-dealloc")], "a label is no path"
    guard = "ld.param.u32 %r9, [out];\nsetp.eq.u32 %p1, %r9, 0;\n@%p1 bra $L9;\n"
    some = kernel(
        ALLOC.format(cols=64) + guard + FREE.format(cols=64) + "$L9:\n" + LD.format(addr="%r2") + USE
    )
    assert ("warning", "use-after-dealloc") in [(s, r) for _, s, r in findings(some)]
    before = kernel(ALLOC.format(cols=64) + LD.format(addr="%r2") + USE + FREE.format(cols=64))
    assert findings(before) == []


@pytest.mark.parametrize(("cols", "judged"), [(512, True), (256, False)])
def test_a_number_address_is_in_an_allocation_of_every_column(cols: int, judged: bool) -> None:
    """CUTLASS's kernels that take all 512 columns address lane 0, column 0 as a number: the sole
    allocation holds it. Of 256 columns, where the allocation lies is not known: no lifetime is judged."""
    absolute = "mov.b32 %r5, 0;\n" + LD.format(addr="%r5") + USE
    text = kernel(ALLOC.format(cols=cols) + FREE.format(cols=cols) + absolute)
    assert [(s, r) for _, s, r in findings(text)] == ([("error", "use-after-dealloc")] if judged else [])
    assert findings(kernel(ALLOC.format(cols=cols) + absolute + FREE.format(cols=cols))) == []


def test_dealloc_twice() -> None:
    twice = kernel(ALLOC.format(cols=64) + FREE.format(cols=64) + FREE.format(cols=64))
    assert findings(twice) == [(line_of(twice, "tcgen05.dealloc", 1), "error", "dealloc-twice")]


def test_cta_group_mixed_names_the_odd_one() -> None:
    text = good(64, "tcgen05.commit.cta_group::2.mbarrier::arrive::one.b64 [%rd9];\n")
    assert findings(text) == [(line_of(text, "cta_group::2"), "error", "cta-group-mixed")]


@pytest.mark.parametrize("target", ["sm_120a", "sm_121a", "sm_90a", "sm_100"])
def test_target_without_tensor_memory(target: str) -> None:
    assert [r for _, _, r in findings(kernel(ALLOC.format(cols=32) + FREE.format(cols=32), target))] == [
        "target"
    ]


def test_ld_red_outside_its_targets() -> None:
    red = "tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%r10, %r11}, %r12, [%r2];\n"
    red += "add.s32 %r20, %r10, %r11;\n"
    assert [r for _, _, r in findings(good(32, red))] == ["target"]
    assert findings(kernel(ALLOC.format(cols=32) + red + FREE.format(cols=32), "sm_103a")) == []


ST = "tcgen05.st.sync.aligned.32x32b.x1.b32 [{addr}], {{%r30}};\n"


def wait_ld(text: str) -> list[str]:
    (checked,) = tmemviz.check(text=text).subject
    return [f.severity for f in checked.findings if f.rule == "wait-ld"]


def test_wait_ld_a_release_before_a_later_write_meets_the_load() -> None:
    """ISA: only wait::ld completes a load; a release is a warning where some later write meets its cells."""
    later = ST.format(addr="%r2")
    early = good(64, LD.format(addr="%r2") + "bar.sync 0;\n" + USE + later)
    assert wait_ld(early) == ["warning"]
    read_first = good(64, LD.format(addr="%r2") + USE + "bar.sync 0;\n" + later)
    assert wait_ld(read_first) == ["note"], "ordered by the scoreboard on today's hardware only"
    copied = good(64, LD.format(addr="%r2") + "mov.b32 %r31, %r10;\nbar.sync 0;\n" + USE + later)
    assert wait_ld(copied) == ["warning"], "a copy waits for nothing"
    nothing_later = good(64, LD.format(addr="%r2") + "bar.sync 0;\n" + USE)
    assert wait_ld(nothing_later) == ["note"]
    waited = good(64, LD.format(addr="%r2") + "tcgen05.wait::ld.sync.aligned;\nbar.sync 0;\n" + USE + later)
    assert wait_ld(waited) == []


def test_wait_ld_a_store_only_where_its_cells_meet_the_load() -> None:
    meets = good(64, "add.s32 %r3, %r2, 4;\n" + LD.format(addr="%r2") + ST.format(addr="%r3") + USE)
    assert wait_ld(meets) == ["warning"]
    apart = good(64, "add.s32 %r3, %r2, 8;\n" + LD.format(addr="%r2") + ST.format(addr="%r3") + USE)
    assert "warning" not in wait_ld(apart), "columns 8.. do not meet the load's 0..7"
    own = good(
        64, "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r30}, [%r2];\n" + ST.format(addr="%r2") + "bar.sync 0;\n"
    )
    assert wait_ld(own) == ["warning"], "the store's own read of the loaded register comes after the check"


def test_wait_st_before_a_load_of_the_same_cells() -> None:
    text = good(64, ST.format(addr="%r2") + LD.format(addr="%r2") + USE)
    assert wait_ld(text).count("warning") == 1
    waited = good(
        64, ST.format(addr="%r2") + "tcgen05.wait::st.sync.aligned;\n" + LD.format(addr="%r2") + USE
    )
    assert "warning" not in wait_ld(waited)


def test_a_slot_read_before_the_alloc_in_the_text() -> None:
    """Warp-specialized kernels: the consumer warps' code (reading the slot) comes before the
    allocating warp's in the text; the one alloc writing that place is the one read."""
    body = (
        """mov.u32 %r5, %tid.x;
setp.lt.u32 %p1, %r5, 32;
@%p1 bra $ALLOC;
bar.sync 0;
ld.shared.b32 %r2, [smem];
add.s32 %r3, %r2, 64;
shr.u32 %r6, %r5, 5;
and.b32 %r6, %r6, 3;
shl.b32 %r6, %r6, 21;
add.s32 %r3, %r3, %r6;
"""  # each warp its own band of lanes (PTX 9.7.16.8.1), column 64
        + LD.format(addr="%r3")
        + USE
        + """bra.uni $DONE;
$ALLOC:
mov.b32 %r1, smem;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 64;
bar.sync 0;
$DONE:
"""
    )
    text = kernel(body + FREE.format(cols=64).replace("%r2", "%r9").replace("bar.sync 0;\n", ""))
    assert [r for _, _, r in findings(text)] == ["outside-allocation"]
    clobbered = text.replace("bra.uni $DONE;", "st.shared.u32 [smem], %r5;\nbra.uni $DONE;")
    assert findings(clobbered) == [], "a slot another store writes may not hold the base when read"


SHAPES = {"32x32b": (32, 1, 1), "16x64b": (16, 2, 1), "16x128b": (16, 4, 2), "16x256b": (16, 8, 4)}
"""Shape -> (lanes, columns per repetition, registers per thread per repetition): the facts table."""


@settings(max_examples=60, deadline=None)
@given(
    cols=st.sampled_from([32, 64, 128, 256, 512]),
    shape=st.sampled_from(sorted(SHAPES)),
    num=st.sampled_from([1, 2, 4, 8]),
    lane=st.sampled_from([0, 16, 32, 96, 112, 128]),
    col=st.integers(0, 600),
)
def test_outside_allocation_is_exactly_the_arithmetic(
    cols: int, shape: str, num: int, lane: int, col: int
) -> None:
    """An ld at base + (lane << 16 | col): outside iff its last lane passes 127 or its last column the
    allocation, by the facts table's arithmetic (not tmemviz's layouts)."""
    lanes, width, regs = SHAPES[shape]
    names = ", ".join(f"%r{10 + i}" for i in range(regs * num))
    use = "".join(f"add.s32 %r{40 + i}, %r{10 + i}, 1;\n" for i in range(regs * num))
    body = f"add.s32 %r3, %r2, {lane << 16 | col};\n"
    body += f"tcgen05.ld.sync.aligned.{shape}.x{num}.b32 {{{names}}}, [%r3];\n" + use
    text = kernel(ALLOC.format(cols=cols) + body + FREE.format(cols=cols)).replace("%r<40>", "%r<80>")
    outside = lane + lanes > 128 or col + width * num > cols
    assert ("outside-allocation" in {r for _, _, r in findings(text)}) is outside


def test_a_branch_is_followed_by_its_predicate_where_it_sets_an_address() -> None:
    """A branch around code with no tcgen05 in it still steers where a later ld lands when that code
    writes a register the address is built from: its predicate is evaluated, so only the way the kernel
    takes counts (the offset stays 0: in bounds), not both (4096 columns: outside a 64-column
    allocation). Around code that writes nothing followed (a bounds check before a global store) both
    ways are taken without a finding either way."""
    steer = (
        "mov.u32 %r4, 0;\nmov.u32 %r5, 1;\nsetp.eq.u32 %p1, %r5, 1;\n@%p1 bra $L1;\n"
        "mov.u32 %r4, 4096;\n$L1:\nadd.s32 %r3, %r2, %r4;\n"
    )
    text = good(64, steer + LD.format(addr="%r3") + USE)
    assert findings(text) == []
    shifted = text.replace("setp.eq.u32 %p1, %r5, 1", "setp.eq.u32 %p1, %r5, 0")
    assert findings(shifted) == [(line_of(shifted, "tcgen05.ld"), "error", "outside-allocation")]
    store = (
        "ld.param.u64 %rd1, [out];\nld.param.u32 %r9, [out];\nsetp.ge.u32 %p2, %r9, 7;\n@%p2 bra $L2;\n"
        "st.global.u32 [%rd1], %r20;\n$L2:\n"
    )
    text = good(64, "add.s32 %r3, %r2, 32;\n" + LD.format(addr="%r3") + USE + store)
    assert findings(text.replace(".reg .pred %p<4>;", ".reg .pred %p<4>;\n.reg .b64 %rd<4>;")) == []
