"""The ``alloc-overlap`` rule: the shared-memory word ``tcgen05.alloc`` writes its address to lies inside
a TMA load's destination.

``tcgen05.alloc`` writes the allocation's address to ``[dst]`` in shared memory (PTX ISA,
tcgen05.alloc); a ``cp.async.bulk.tensor`` load writes its box to ``[dstMem]``. Where the two overlap,
whichever lands second destroys the other: the address every warp reads back, or four bytes of an
operand tile (TLX PR #1449: the alloc's word at ``global_smem + 0``, where TMA tiles also went, gave
wrong MMA results). A TMA box is at least 16 bytes wide (its inner dimension in bytes must be a multiple
of 16: CUDA driver API, ``cuTensorMapEncodeTiled``), so a word from the destination's first byte to its
sixteenth is written by it whatever the box. Places are those the kernel's registers written once give
(:meth:`~tmemviz.families.explain.follow.places.Places.slot`): a destination that moves with the
pipeline stage is not judged. A warning: which write lands last depends on the schedule. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from tmemviz.families.check.findings import Finding
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.ptx.body import Instruction

LEAST_BOX = 16
"""Bytes every TMA box's first row holds at least."""


def overlap_findings(a: Analysed) -> Iterable[Finding]:
    words = [(ins, a.places.static.get(ins.index)) for ins in a.places.allocs]
    words = [(ins, w) for ins, w in words if w is not None]
    if not words:
        return
    for tma in a.body.instructions:
        if not _tma_load(tma.opcode):
            continue
        dst = a.places.slot(tma)
        if dst is None:
            continue
        base, start = dst
        for alloc, (word_base, at) in words:
            if word_base != base or not start <= at < start + LEAST_BOX:
                continue
            if _read_before(a, (word_base, at), tma):
                continue
            yield Finding(
                alloc.line, "warning", "alloc-overlap",
                f"tcgen05.alloc writes its address to the shared-memory word at byte {at}, which the TMA "
                f"load on line {tma.line} also writes (its destination starts at byte {start}): whichever "
                "lands second destroys the address or the tile (TLX PR #1449: wrong MMA results); give "
                "the alloc's word a place of its own, outside every TMA destination",
            )  # fmt: skip


_BARRIERS = ("bar.sync", "barrier.sync", "bar.red", "barrier.red", "barrier.cta.sync", "bar.cta.sync")


def _read_before(a: Analysed, word: tuple[object, int], tma: Instruction) -> bool:
    """Whether the kernel is done with the address word before the TMA can write there: it reads the word
    (``ld.shared``), then a CTA barrier that every path to the TMA passes, and it never reads the word
    again after the TMA (Triton's kernels read the word once, after ``bar.sync``, then reuse the shared
    memory for their tiles: nothing is lost)."""
    graph, body = a.plan.graph, a.body
    reads = [i for i in body.instructions if i.opcode.startswith("ld.shared") and a.places.slot(i) == word]
    if not reads:
        return False

    def before(x: Instruction, y: Instruction) -> bool:  # x runs before y on every path to y
        bx, by = graph.block_of(x.index), graph.block_of(y.index)
        return x.index < y.index if bx == by else graph.dominates(bx, by)

    barrier = any(
        i.opcode.startswith(_BARRIERS) and before(i, tma) and all(before(r, i) for r in reads)
        for i in body.instructions
    )  # fmt: skip
    if not barrier:
        return False
    tma_block = graph.block_of(tma.index)
    after = graph.reaches(graph.blocks[tma_block].succ)
    return not any(
        graph.block_of(r.index) in after or (graph.block_of(r.index) == tma_block and r.index > tma.index)
        for r in reads
    )  # fmt: skip


def _tma_load(opcode: str) -> bool:
    """A bulk tensor copy into shared memory (``.shared::cta.global`` / ``.shared::cluster.global``)."""
    return opcode.startswith("cp.async.bulk.tensor") and (
        ".shared::cta.global" in opcode or ".shared::cluster.global" in opcode
    )
