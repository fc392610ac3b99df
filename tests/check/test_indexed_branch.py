"""``brx.idx``: the control-flow graph takes its ``.branchtargets`` list however the compiler prints it, the
analysis sends each warp where its index points, and the ``warp-lanes`` rule (PTX 9.7.16.8.1, access
restrictions) judges what a warp reaches there (docs/check.md, "Indexed branches", ``warp-lanes``).

The kernel is our own: warp 0 allocates, then every warp dispatches on its warp index (or on a number
read from shared memory, which the analysis does not know, as Triton's warp-specialized kernels read
each worker's task) to one of three roles; role 1 loads from Tensor Memory."""

from __future__ import annotations

import pytest

import tmemviz
from tmemviz.ptx.body import Collector
from tmemviz.ptx.stream import events

BAND_1 = 32 << 16  # lane 32: warp 1's band
INLINE = "ts: .branchtargets ROLE0, ROLE1, ROLE2, ROLE2;"
SPLIT = "ts:\n.branchtargets\n\tROLE0,\n\tROLE1,\n\tROLE2,\n\tROLE2;"  # as Triton (LLVM) prints it


def kernel(offset: int = BAND_1, table: str = INLINE, index: str = "%r3", shape: str = "32x32b") -> str:
    return f""".version 9.0
.target sm_100a
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k()
.reqntid 128
{{
.reg .b32 %r<40>;
.reg .pred %p<8>;
mov.u32 %r1, %tid.x;
shr.u32 %r3, %r1, 5;
mov.b32 %r4, smem;
setp.eq.s32 %p1, %r3, 0;
@!%p1 bra ALLOCATED;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
ALLOCATED:
bar.sync 0;
ld.shared.b32 %r2, [smem];
ld.shared.b32 %r9, [smem+64];
{table}
brx.idx {index}, ts;
ROLE0:
bra.uni JOIN;
ROLE1:
add.s32 %r6, %r2, {offset};
tcgen05.ld.sync.aligned.{shape}.x1.b32 {{%r7}}, [%r6];
tcgen05.wait::ld.sync.aligned;
bra.uni JOIN;
ROLE2:
JOIN:
bar.sync 0;
@!%p1 bra DONE;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
DONE:
ret;
}}
"""


def findings(text: str) -> list[tuple[str, str, str]]:
    (checked,) = tmemviz.check(text=text).subject
    return [
        (f.severity, f.rule, f.message) for f in checked.findings if f.rule not in ("target", "alloc-columns")
    ]


def test_the_list_is_read_whether_its_label_shares_its_line_or_not() -> None:
    for table in (INLINE, SPLIT):
        collector = Collector()
        for event in events(kernel(table=table).splitlines(keepends=True), every=True):
            collector.observe(event)
        collector.finish()
        (body,) = collector.done
        (brx,) = [i for i in body.instructions if i.head == "brx"]
        labels = {c.index: c.name for c in body.code if not hasattr(c, "opcode")}
        assert [labels[k] for k in body.indexed(brx)] == ["ROLE0", "ROLE1", "ROLE2", "ROLE2"]
        assert "ts" not in labels.values()  # the list's name is no place in the code


def test_each_warp_goes_where_its_index_points() -> None:
    # Column 32 of a 32-column allocation, in role 1: only warp 1 goes there.
    for table in (INLINE, SPLIT):
        (found,) = findings(kernel(offset=BAND_1 + 32, table=table))
        assert found[:2] == ("error", "outside-allocation")
        assert "in warp 1 " in found[2]
    assert findings(kernel()) == []


def test_an_index_not_known_sends_every_warp_everywhere() -> None:
    (found,) = findings(kernel(offset=BAND_1 + 32, index="%r9"))
    assert found[:2] == ("error", "outside-allocation")
    # Which warp runs role 1 is not known: the lanes only warp 1 may touch are no finding for the others.
    assert findings(kernel(index="%r9")) == []


def test_a_list_not_found_is_said() -> None:
    found = findings(kernel(table=""))
    assert ("note", "unreadable") in [f[:2] for f in found]
    (note,) = [f for f in found if f[1] == "unreadable"]
    assert "brx.idx %r3, ts" in note[2] and "not checked" in note[2]


@pytest.mark.parametrize(
    ("offset", "shape", "bad"),
    [
        (BAND_1, "32x32b", False),
        (0, "32x32b", True),  # warp 1 at lanes 0..31
        (64 << 16, "32x32b", True),  # lanes 64..95
        (16 << 16, "32x32b", True),  # lanes 16..47: across two bands
        (48 << 16, "16x64b", False),  # the upper 16 of its band
        (BAND_1, "16x256b", False),
        (80 << 16, "16x64b", True),
    ],
)
def test_a_warp_touches_only_its_band_of_lanes(offset: int, shape: str, bad: bool) -> None:
    found = [f for f in findings(kernel(offset=offset, shape=shape)) if f[1] == "warp-lanes"]
    assert bool(found) == bad
    if bad:
        ((severity, _, message),) = found
        assert severity == "error"
        assert "in warp 1" in message and "may access lanes 32..63 only" in message


def test_a_guarded_dispatch_falls_through_where_its_guard_is_false() -> None:
    guarded = "setp.lt.u32 %p2, %r3, 2;\n@%p2 brx.idx %r3, ts;\nbra.uni JOIN;"
    (found,) = findings(kernel(offset=BAND_1 + 32).replace("brx.idx %r3, ts;", guarded))
    assert found[:2] == ("error", "outside-allocation") and "in warp 1 " in found[2]
    # A guard never true: no warp reaches role 1.
    never = guarded.replace("%r3, 2;", "%r3, 0;")
    assert findings(kernel(offset=BAND_1 + 32).replace("brx.idx %r3, ts;", never)) == []
