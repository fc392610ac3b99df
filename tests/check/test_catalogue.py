"""The catalogue rules of tmemviz check (cta-group-mixed across calls, pair-sync, no-alloc, capacity,
ld-registers, relinquish) on minimal kernels written here: each fires where the bug is, names the fix,
and stays silent on the corrected kernel. Where ptxas is on PATH, each kernel is assembled: the ones
ptxas refuses (a mixed .cta_group, a load past the register budget) are refused, the rest accepted
(their bugs are run-time bugs ptxas cannot see)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import tmemviz
from tmemviz.families.check.rules import BY_ID
from tmemviz.ptx.targets import CAPACITIES, capacity

HEAD = """.version 8.8
.target sm_100a
.address_size 64
"""
PAIR = (
    HEAD
    + """.visible .entry pair(.param .u64 out) .reqntid 128
{{
.reg .b32 %r<40>;
.reg .pred %p<4>;
.shared .align 4 .b32 slot;
mov.u32 %r1, %tid.x;
shr.u32 %r3, %r1, 5;
setp.ne.u32 %p1, %r3, 0;
mov.u32 %r4, slot;
{before}@%p1 bra SKIP;
tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r4], 64;
tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
SKIP:
bar.sync 0;
ld.shared.b32 %r2, [%r4];
shl.b32 %r5, %r3, 21; // lane 32w: each warp its own band (PTX 9.7.16.8.1)
add.s32 %r6, %r2, %r5;
tcgen05.ld.sync.aligned.32x32b.x2.b32 {{%r10, %r11}}, [%r6];
tcgen05.wait::ld.sync.aligned;
add.s32 %r12, %r10, %r11;
bar.sync 0;
{between}@%p1 bra DONE;
tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r2, 64;
DONE:
ret;
}}
"""
)
SYNC = "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;\n"
CALLS = (
    HEAD
    + """.func free_pair(.param .b32 a)
{
.reg .b32 %r<4>;
ld.param.b32 %r1, [a];
tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r1, 32;
ret;
}
.visible .entry k()
{
.reg .b32 %r<4>;
.shared .align 4 .b32 slot;
mov.u32 %r1, slot;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
ld.shared.b32 %r2, [%r1];
{ .param .b32 p; st.param.b32 [p], %r2; call.uni free_pair, (p); }
ret;
}
"""
)
NO_ALLOC = (
    HEAD
    + """{callee}.visible .entry k(.param .u64 out) .reqntid 128
{{
.reg .b32 %r<20>;
.reg .b64 %rd<4>;
.shared .align 4 .b32 slot;
mov.u32 %r4, slot;
{call}ld.param.u64 %rd1, [out];
ld.shared.b32 %r1, [%r4];
tcgen05.ld.sync.aligned.32x32b.x2.b32 {{%r2, %r3}}, [%r1];
tcgen05.wait::ld.sync.aligned;
add.u32 %r5, %r2, %r3;
st.global.u32 [%rd1], %r5;
ret;
}}
"""
)
ALLOCATOR = """.func take(.param .b32 a)
{
.reg .b32 %r<4>;
ld.param.b32 %r1, [a];
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
ret;
}
"""
CAPACITY = (
    HEAD
    + """.visible .entry cap(.param .u64 out, .param .u64 desc) .reqntid 128
{{
.reg .b32 %r<40>;
.reg .b64 %rd<4>;
.reg .pred %p<4>;
.shared .align 4 .b32 slot[2];
mov.u32 %r4, slot;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
bar.sync 0;
ld.shared.b32 %r2, [%r4];
ld.param.u64 %rd1, [desc];
mov.b32 %r5, 138412048;
setp.ne.u32 %p1, %r5, 0;
tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r5, %p1;
add.s32 %r6, %r2, 256;
tcgen05.mma.cta_group::1.kind::f16 [%r6], %rd1, %rd1, %r5, %p1;
{free}tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4+4], 64;
bar.sync 0;
ld.shared.b32 %r7, [%r4+4];
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, 64;
{later}ret;
}}
"""
)
FREE_FIRST = "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 512;\n"
REGS = (
    HEAD
    + """.visible .entry regs(.param .u64 out) .reqntid 128 .maxnreg 168
{{
.reg .b32 %r<200>;
.shared .align 4 .b32 slot;
mov.u32 %r4, slot;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 64;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
bar.sync 0;
ld.shared.b32 %r2, [%r4];
setmaxnreg.dec.sync.aligned.u32 {count};
tcgen05.ld.sync.aligned.32x32b.x64.b32 {{{regs}}}, [%r2];
tcgen05.wait::ld.sync.aligned;
mov.u32 %r5, 0;
{adds}
st.shared.u32 [%r4], %r5;
bar.sync 0;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;
ret;
}}
"""
)


def regs(count: int) -> str:
    names = [f"%r{i}" for i in range(100, 164)]
    adds = "\n".join(f"add.s32 %r5, %r5, {n};" for n in names)
    return REGS.format(count=count, regs=", ".join(names), adds=adds)


def found(text: str, notes: bool = False) -> list[tuple[int, str, str, str]]:
    (checked,) = tmemviz.check(text=text).subject
    shown = [f for f in checked.findings if notes or f.severity != "note"]
    return [(f.line, f.severity, f.rule, f.message) for f in shown]


def rules(text: str, notes: bool = False) -> list[tuple[int, str, str]]:
    return [(line, severity, rule) for line, severity, rule, _ in found(text, notes)]


def line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth]


def assemble(ptxas: str, tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "k.ptx"
    source.write_text(text)
    return subprocess.run(
        [ptxas, "-arch=sm_100a", str(source), "-o", str(tmp_path / "k.cubin")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


# -- cta-group-mixed, over the kernel and what it calls -----------------------------------------------


def test_a_callee_with_the_other_cta_group_is_mixed() -> None:
    text = CALLS
    assert rules(text) == [(line_of(text, "tcgen05.dealloc"), "error", "cta-group-mixed")]
    (message,) = [m for _, _, r, m in found(text) if r == "cta-group-mixed"]
    assert "k and the functions it calls" in message and "write .cta_group::" in message


def test_two_kernels_may_differ() -> None:
    one = PAIR.format(before="", between=SYNC)
    other = CALLS.split(".func")[0] + ".visible .entry two()" + CALLS.split(".visible .entry k()")[1]
    assert [r for r in rules(one + other.replace(HEAD, ""), notes=False) if r[2] == "cta-group-mixed"] == []


def test_ptxas_refuses_a_kernel_mixed_through_a_call(ptxas: str, tmp_path: Path) -> None:
    result = assemble(ptxas, tmp_path, CALLS)
    assert result.returncode != 0 and "cta_group::2" in result.stderr + result.stdout


# -- pair-sync ---------------------------------------------------------------------------------------


def test_a_pair_dealloc_with_no_cluster_barrier_is_a_warning() -> None:
    text = PAIR.format(before="", between="")
    dealloc = line_of(text, "tcgen05.dealloc")
    assert (dealloc, "warning", "pair-sync") in rules(text)
    (message,) = [m for line, s, r, m in found(text) if r == "pair-sync" and s == "warning"]
    assert "cutlass#3435" in message and "barrier.cluster.arrive; barrier.cluster.wait" in message
    assert (line_of(text, "tcgen05.alloc"), "note", "pair-sync") in rules(text, notes=True)


@pytest.mark.parametrize("where", ["before", "between"])
def test_a_cluster_barrier_before_the_alloc_or_the_dealloc_is_enough(where: str) -> None:
    """NVIDIA/cutlass#3435: a barrier.cluster anywhere between the peer's alloc and the dealloc."""
    text = PAIR.format(**{"before": "", "between": "", where: SYNC})
    assert [r for r in rules(text) if r[2] == "pair-sync"] == []
    notes = [r for r in rules(text, notes=True) if r[2] == "pair-sync"]
    assert notes == ([] if where == "before" else [(line_of(text, "tcgen05.alloc"), "note", "pair-sync")])


def test_a_barrier_on_one_path_only_leaves_the_other() -> None:
    guarded = "@%p2 bra NOSYNC;\n" + SYNC + "NOSYNC:\n"
    text = PAIR.format(before="", between=guarded)
    text = text.replace("add.s32 %r12", "setp.eq.u32 %p2, %r10, 0;\nadd.s32 %r12")
    (message,) = [m for _, s, r, m in found(text) if r == "pair-sync" and s == "warning"]
    assert "on some path" in message


HANDSHAKE = """.shared .align 8 .b64 freed;
mov.u32 %r20, freed;
mapa.shared::cluster.u32 %r21, %r20, 1;
mbarrier.arrive.shared::cluster.b64 _, [%r21];
WAITING:
mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r20], 0;
@!%p3 bra WAITING;
"""


@pytest.mark.parametrize(
    ("remote", "somewhere", "severity"),
    [(True, True, "note"), (False, True, "warning"), (True, False, "warning")],
)
def test_a_dealloc_after_an_mbarrier_the_peer_arrives_on_is_a_note(
    remote: bool, somewhere: bool, severity: str
) -> None:
    """CUTLASS's stream-K GEMM frees its 2-CTA allocation after waiting on an mbarrier the peer CTA arrives
    on (mapa + mbarrier.arrive.shared::cluster), its cluster barrier on one path only: which mbarrier is
    not followed, so a note; with no cluster barrier on any path (NVIDIA/cutlass#3435), still a warning."""
    local = HANDSHAKE.replace(".shared::cluster.b64 _, [%r21]", ".shared::cta.b64 _, [%r20]")
    guarded = "@%p2 bra NOSYNC;\n" + SYNC + "NOSYNC:\n"
    between = (guarded if somewhere else "") + (HANDSHAKE if remote else local)
    text = PAIR.format(before="", between=between)
    text = text.replace("add.s32 %r12", "setp.eq.u32 %p2, %r10, 0;\nadd.s32 %r12")
    dealloc = line_of(text, "tcgen05.dealloc")
    assert [r for r in rules(text, notes=True) if r[0] == dealloc and r[2] == "pair-sync"] == [
        (dealloc, severity, "pair-sync")
    ]


def test_ptxas_accepts_the_pair_kernels(ptxas: str, tmp_path: Path) -> None:
    """The race is a run-time bug: ptxas sees nothing wrong."""
    assert assemble(ptxas, tmp_path, PAIR.format(before="", between="")).returncode == 0
    assert assemble(ptxas, tmp_path, PAIR.format(before="", between=SYNC)).returncode == 0


# -- no-alloc ----------------------------------------------------------------------------------------


def test_tensor_memory_used_with_no_alloc_is_an_error() -> None:
    text = NO_ALLOC.format(callee="", call="")
    assert rules(text) == [(line_of(text, "tcgen05.ld"), "error", "no-alloc")]
    (message,) = [m for _, _, r, m in found(text) if r == "no-alloc"]
    assert "cutlass#2230" in message and "allocate with tcgen05.alloc" in message


def test_an_alloc_in_a_callee_counts() -> None:
    call = "{ .param .b32 p; st.param.b32 [p], %r4; call.uni take, (p); }\n"
    text = NO_ALLOC.format(callee=ALLOCATOR, call=call)
    assert [r for r in rules(text) if r[2] == "no-alloc"] == []


def test_ptxas_accepts_a_kernel_with_no_alloc(ptxas: str, tmp_path: Path) -> None:
    assert assemble(ptxas, tmp_path, NO_ALLOC.format(callee="", call="")).returncode == 0


# -- capacity ----------------------------------------------------------------------------------------


def test_columns_held_at_once_past_the_capacity_are_an_error_with_the_stages() -> None:
    text = CAPACITY.format(free="", later=FREE_FIRST)
    second = line_of(text, "tcgen05.alloc", 1)
    assert rules(text) == [(second, "error", "capacity")]
    (message,) = [m for _, _, r, m in found(text) if r == "capacity"]
    assert "576 columns" in message and "512 an SM of .target sm_100a" in message
    first = line_of(text, "tcgen05.alloc")
    assert f"line {first}: 512 (MMA accumulators at columns 0..255, 256..511)" in message
    assert "use fewer stages" in message


def test_freeing_first_fits() -> None:
    text = CAPACITY.format(free=FREE_FIRST, later="")
    assert rules(text) == []


def test_the_capacity_table_has_every_tcgen05_target() -> None:
    assert set(CAPACITIES) == {100, 101, 103, 107, 110}
    assert all(source.startswith("PTX ISA") for _, source in CAPACITIES.values())
    assert capacity("sm_103f") == 512 and capacity("sm_90a") == 512


def test_ptxas_accepts_the_capacity_kernel(ptxas: str, tmp_path: Path) -> None:
    assert assemble(ptxas, tmp_path, CAPACITY.format(free="", later=FREE_FIRST)).returncode == 0


# -- ld-registers ------------------------------------------------------------------------------------


def test_a_load_past_the_setmaxnreg_budget_is_an_error() -> None:
    text = regs(40)
    assert rules(text) == [(line_of(text, "tcgen05.ld"), "error", "ld-registers")]
    (message,) = [m for _, _, r, m in found(text) if r == "ld-registers"]
    assert f"setmaxnreg on line {line_of(text, 'setmaxnreg')} leaves this warp 40" in message
    assert "writes 64 registers" in message and "raise that setmaxnreg above 64" in message


def test_a_budget_that_holds_the_load_is_silent() -> None:
    assert rules(regs(120)) == []


def test_ptxas_refuses_the_load_past_the_budget(ptxas: str, tmp_path: Path) -> None:
    bad = assemble(ptxas, tmp_path, regs(40))
    assert bad.returncode != 0 and "Register allocation failed" in bad.stdout + bad.stderr
    assert assemble(ptxas, tmp_path, regs(120)).returncode == 0


# -- relinquish --------------------------------------------------------------------------------------


def test_no_relinquish_is_a_note() -> None:
    text = regs(120).replace("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n", "")
    notes = [(line, s, m) for line, s, r, m in found(text, notes=True) if r == "relinquish"]
    assert [(line, s) for line, s, _ in notes] == [(line_of(text, "tcgen05.alloc"), "note")]
    assert "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned" in notes[0][2]
    assert [r for r in rules(regs(120), notes=True) if r[2] == "relinquish"] == []


def test_every_catalogue_rule_is_registered_with_its_severity() -> None:
    names = ("pair-sync", "no-alloc", "capacity", "ld-registers", "arrive-count", "operand-range",
             "alloc-overlap", "relinquish")  # fmt: skip
    levels = {r: BY_ID[r].level for r in names}
    assert levels == {
        "pair-sync": "warning", "no-alloc": "error", "capacity": "error", "ld-registers": "error",
        "arrive-count": "warning", "operand-range": "error", "alloc-overlap": "warning", "relinquish": "note",
    }  # fmt: skip


# -- operand-range -----------------------------------------------------------------------------------

SPLIT = (
    HEAD
    + """.visible .entry split(.param .u64 out) .reqntid 128
{{
.reg .b32 %r<20>;
.shared .align 4 .b32 slot;
mov.u32 %r4, slot;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
bar.sync 0;
ld.shared.b32 %r2, [%r4];
mov.u32 %r5, 7;
tcgen05.st.sync.aligned.16x32bx2.x1.unpack::16b.b32 [%r2], {offset}, {{%r5}};
tcgen05.wait::st.sync.aligned;
bar.sync 0;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
ret;
}}
"""
)


def test_an_odd_unpacked_split_offset_is_an_error() -> None:
    text = SPLIT.format(offset=1)
    assert rules(text) == [(line_of(text, "tcgen05.st"), "error", "operand-range")]
    (message,) = [m for _, _, r, m in found(text) if r == "operand-range"]
    assert "triton PR #10321" in message and "use an even offset (2" in message
    assert rules(SPLIT.format(offset=2)) == []


@pytest.mark.parametrize(("n", "bad"), [(256, False), (384, True), (136, False), (264, True), (144, False)])
def test_an_idesc_n_outside_the_table_is_an_error(n: int, bad: bool) -> None:
    """kind::f16, M=128, .cta_group::1: N a multiple of 8 in 8..256 (PTX 9.7.16.10.1, as NVIDIA's CuTe
    DSL checks it: docs/facts.md)."""
    idesc = 0x10 | (n >> 3) << 17 | (128 >> 4) << 24
    text = CAPACITY.format(free=FREE_FIRST, later="").replace("138412048", str(idesc))
    text = text.replace("add.s32 %r6, %r2, 256;", "add.s32 %r6, %r2, 0;")
    lines = [line for line, _, rule in rules(text) if rule == "operand-range"]
    assert lines == ([line_of(text, "tcgen05.mma"), line_of(text, "tcgen05.mma", 1)] if bad else [])


def test_ptxas_accepts_what_operand_range_reports(ptxas: str, tmp_path: Path) -> None:
    """ptxas checks no operand's value: both faults are the hardware's."""
    assert assemble(ptxas, tmp_path, SPLIT.format(offset=1)).returncode == 0
    bad = CAPACITY.format(free=FREE_FIRST, later="").replace("138412048", str(0x10 | 48 << 17 | 8 << 24))
    assert assemble(ptxas, tmp_path, bad).returncode == 0


# -- arrive-count ------------------------------------------------------------------------------------

ARRIVE = (
    HEAD
    + """.visible .entry arrive(.param .u64 out) .reqntid 64
{{
.reg .b32 %r<20>;
.reg .b64 %rd<4>;
.reg .pred %p<4>;
.shared .align 8 .b64 bar;
.shared .align 4 .b32 slot;
mov.u32 %r1, %tid.x;
shr.u32 %r3, %r1, 5;
setp.ne.u32 %p1, %r3, 0;
mov.u32 %r4, slot;
mov.u32 %r6, bar;
@%p1 bra WAIT;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
mbarrier.init.shared::cta.b64 [%r6], {count};
WAIT:
bar.sync 0;
ld.shared.b32 %r2, [%r4];
@%p1 bra DONE;
tcgen05.ld.sync.aligned.32x32b.x2.b32 {{%r10, %r11}}, [%r2];
tcgen05.wait::ld.sync.aligned;
add.s32 %r12, %r10, %r11;
{elect}{guard}mbarrier.arrive.shared::cta.b64 %rd1, [%r6];
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
DONE:
ret;
}}
"""
)
ELECT = "elect.sync %r13|%p2, -1;\n"


def test_a_whole_warp_arriving_on_a_count_one_barrier_is_a_warning() -> None:
    text = ARRIVE.format(count=1, elect="", guard="")
    assert rules(text) == [(line_of(text, "mbarrier.arrive"), "warning", "arrive-count")]
    (message,) = [m for _, _, r, m in found(text) if r == "arrive-count"]
    assert f"count 1 on line {line_of(text, 'mbarrier.init')}" in message and "in warp 0" in message
    assert "triton PR #9498" in message and "arrive from one lane" in message


@pytest.mark.parametrize(
    ("count", "elect", "guard"),
    [(32, "", ""), (1, ELECT, "@%p2 "), (1, "setp.eq.u32 %p2, %r1, 0;\n", "@%p2 ")],
)
def test_one_lane_or_a_count_of_32_is_silent(count: int, elect: str, guard: str) -> None:
    assert rules(ARRIVE.format(count=count, elect=elect, guard=guard)) == []


def test_an_elected_branch_around_the_arrive_is_one_lane() -> None:
    around = ELECT + "@!%p2 bra SKIP;\n"
    text = ARRIVE.format(count=1, elect=around, guard="").replace("tcgen05.dealloc", "SKIP:\ntcgen05.dealloc")
    assert rules(text) == []


def test_ptxas_accepts_the_arrive_kernels(ptxas: str, tmp_path: Path) -> None:
    assert assemble(ptxas, tmp_path, ARRIVE.format(count=1, elect="", guard="")).returncode == 0
    assert assemble(ptxas, tmp_path, ARRIVE.format(count=1, elect=ELECT, guard="@%p2 ")).returncode == 0


# -- SARIF -------------------------------------------------------------------------------------------


def test_sarif_carries_the_catalogue_rules_with_their_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from cli_run import run

    from tmemviz.families.check.rules import RULES

    path = tmp_path / "pair.ptx"
    path.write_text(PAIR.format(before="", between=""))
    code, out, err = run(capsys, "check", str(path), "--format", "sarif")
    assert (code, err) == (1, "")
    (sarif_run,) = json.loads(out)["runs"]
    rules_ = {r["id"]: r for r in sarif_run["tool"]["driver"]["rules"]}
    index = {r.id: i for i, r in enumerate(RULES)}
    for rule in ("pair-sync", "no-alloc", "capacity", "ld-registers", "arrive-count", "operand-range"):
        descriptor = rules_[rule]
        assert descriptor["helpUri"].endswith(f"docs/check.md#{rule}")
        assert BY_ID[rule].why in descriptor["help"]["text"]
    (result,) = sarif_run["results"]
    assert result["ruleId"] == "pair-sync" and result["level"] == "warning"
    assert result["ruleIndex"] == index["pair-sync"] and "cutlass#3435" in result["message"]["text"]


def test_lanes_that_returned_do_not_arrive() -> None:
    """After `@%p ret` on a lane test, only the lanes left arrive: not counted 32 times."""
    early = "setp.ne.u32 %p3, %r1, 0;\n@%p3 ret;\n"
    text = ARRIVE.format(count=1, elect=early, guard="")
    assert [r for r in rules(text) if r[2] == "arrive-count"] == []


def test_a_call_may_hold_the_cluster_barrier() -> None:
    """The analysis does not look inside a called function: a call before the dealloc may wait."""
    helper = ".func sync_cluster()\n{\n" + SYNC + "ret;\n}\n"
    text = PAIR.format(before="", between="call.uni sync_cluster;\n").replace(
        ".visible .entry pair", helper + ".visible .entry pair"
    )
    assert [r for r in rules(text) if r[2] == "pair-sync"] == []
    without = text.replace("call.uni sync_cluster;\n", "")
    assert (line_of(without, "tcgen05.dealloc"), "warning", "pair-sync") in rules(without)


# -- alloc-overlap -----------------------------------------------------------------------------------

TMA = (
    HEAD
    + """.extern .shared .align 1024 .b8 smem[];
.visible .entry tma(.param .u64 tmap) .reqntid 128
{{
.reg .b32 %r<20>;
.reg .b64 %rd<4>;
.reg .pred %p<4>;
.shared .align 8 .b64 bar;
mov.u32 %r1, %tid.x;
setp.ne.u32 %p1, %r1, 0;
mov.u32 %r4, smem;
add.s32 %r5, %r4, {word};
mov.u32 %r6, bar;
ld.param.u64 %rd1, [tmap];
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r5], 32;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
@%p1 bra WAIT;
mbarrier.init.shared::cta.b64 [%r6], 1;
mov.u32 %r7, 0;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r6], 8192;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r4], [%rd1, {{%r7, %r7}}],
  [%r6];
WAIT:
bar.sync 0;
ld.shared.b32 %r2, [%r5];
bar.sync 0;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
ret;
}}
"""
)


@pytest.mark.parametrize(("word", "overlaps"), [(0, True), (12, True), (16, False), (8192, False)])
def test_an_alloc_word_inside_a_tma_destination_is_a_warning(word: int, overlaps: bool) -> None:
    """Within the box's first 16 bytes: written whatever the box; past them: not claimed."""
    text = TMA.format(word=word)
    found_ = [r for r in rules(text) if r[2] == "alloc-overlap"]
    assert found_ == ([(line_of(text, "tcgen05.alloc"), "warning", "alloc-overlap")] if overlaps else [])
    if overlaps:
        (message,) = [m for _, _, r, m in found(text) if r == "alloc-overlap"]
        assert f"TMA load on line {line_of(text, 'cp.async.bulk.tensor')}" in message
        assert "TLX PR #1449" in message and "a place of its own" in message


REUSED = (
    HEAD
    + """.extern .shared .align 1024 .b8 smem[];
.visible .entry reused(.param .u64 tmap) .reqntid 128
{{
.reg .b32 %r<20>;
.reg .b64 %rd<4>;
.reg .pred %p<4>;
.shared .align 8 .b64 bar;
mov.u32 %r1, %tid.x;
setp.ne.u32 %p1, %r1, 0;
mov.u32 %r4, smem;
mov.u32 %r6, bar;
ld.param.u64 %rd1, [tmap];
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
bar.sync 0;
ld.shared.b32 %r2, [smem];
bar.sync 0;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
@%p1 bra WAIT;
mbarrier.init.shared::cta.b64 [%r6], 1;
mov.u32 %r7, 0;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r6], 8192;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r4], [%rd1, {{%r7, %r7}}],
  [%r6];
WAIT:
bar.sync 0;
{again}
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
ret;
}}
"""
)


@pytest.mark.parametrize(("again", "overlaps"), [("", False), ("ld.shared.b32 %r2, [%r4];", True)])
def test_a_word_read_then_a_barrier_before_the_tma_is_done_with(again: str, overlaps: bool) -> None:
    """Triton's kernels read the alloc's word once, after bar.sync, then reuse the shared memory for their
    TMA tiles: nothing is lost; reading the word again after the TMA would read the tile."""
    text = REUSED.format(again=again)
    found_ = [r for r in rules(text) if r[2] == "alloc-overlap"]
    assert found_ == ([(line_of(text, "tcgen05.alloc"), "warning", "alloc-overlap")] if overlaps else [])


def test_ptxas_accepts_the_overlapping_kernel(ptxas: str, tmp_path: Path) -> None:
    assert assemble(ptxas, tmp_path, TMA.format(word=0)).returncode == 0
