"""The ``wait-ld`` findings, from what each warp's trace saw
(:mod:`tmemviz.families.explain.follow.pending` says when a hazard is one). A release is a warning only
where a Tensor Memory write the analysis can see, by any warp, may meet the load's cells; otherwise a
note. A store not waited for at an arrive on an mbarrier is a warning where a warp that waits on that
mbarrier touches its cells (a note where the analysis cannot tell; nothing otherwise). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.families.check.findings import Finding
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.families.explain.follow.pending import Hazard, relation

ISA = "PTX 9.7.16.6, 9.7.16.8.5"


def hazard_findings(a: Analysed) -> Iterable[Finding]:
    for t in a.traces:
        released = []
        for h in t.hazards:
            if h.kind == "st" and h.relation == "release":
                released.append(h)
                continue
            f = _finding(h, _writes(a, h.barrier))
            yield Finding(f.line, a.severity(f.severity, t.warps, h.index), f.rule, f.message, h)
        # A store not waited for, at each release it reaches that matters (one finding per line is kept:
        # the first, so a load's goes before, and the store nearest before the release names it).
        for h in sorted(released, key=lambda h: (h.line, h.source > h.line, -h.source)):
            if not h.barrier:  # only an arrive on an mbarrier whose waiters are known hands cells over
                continue
            f = _store_released(h, _touched(a, h.barrier, t))
            if f is not None:
                yield Finding(f.line, a.severity(f.severity, t.warps, h.index), f.rule, f.message, h)


def _writes(a: Analysed, barrier: frozenset[object] | None) -> tuple[object, ...]:
    """The cells Tensor Memory writers write, in the warps that wait on ``barrier`` before anything
    (every warp for a release on no mbarrier, or one whose place is not known): an arrive on an
    mbarrier no writer's warp waits on lets no writer go on."""
    return tuple(
        spot for t in a.traces if barrier is None or None in t.waits or barrier & t.waits
        for access in t.accesses for touch, spots in access.spots if touch.writes for spot in spots
    )  # fmt: skip


def _touched(a: Analysed, barrier: frozenset[object], besides: Any) -> tuple[Any, ...]:
    """The cells Tensor Memory accesses read or write in the other warps (traces but ``besides``, the
    storing one: its own reading back is a hazard of its own) that wait on the mbarrier ``barrier``
    names before anything (as :func:`_writes`)."""
    waiting = [t for t in a.traces if None in t.waits or barrier & t.waits]
    return tuple(
        spot for t in waiting if t is not besides
        for access in t.accesses for _, spots in access.spots for spot in spots
    )  # fmt: skip


def _store_released(h: Hazard, touched: tuple[Any, ...]) -> Finding | None:
    """A release while a tcgen05.st may still be writing: a warning where an access of a warp that goes
    on after it may meet the store's cells (it may read them old, or its write be overwritten by the
    store's), a note where the analysis cannot tell, nothing where none can."""
    r = relation(h.spots, touched) if touched else "disjoint"
    if r == "disjoint":
        return None
    fix = f"add tcgen05.wait::st before line {h.line}"
    if r == "unknown":
        return Finding(
            h.line, "note", "wait-ld",
            f"{h.what} while the tcgen05.st on line {h.source} may still be writing Tensor Memory (the "
            f"analysis cannot tell whether what other warps touch after it meets its cells); only "
            f"tcgen05.wait::st completes a store: {fix} ({ISA})",
        )  # fmt: skip
    return Finding(
        h.line, "warning", "wait-ld",
        f"{h.what} lets other threads go on while the tcgen05.st on line {h.source} may still be writing "
        f"Tensor Memory that a warp touches after it: it may read the old values (or its own write be "
        f"overwritten); no tcgen05.wait::st completes the store; {fix} ({ISA})",
    )  # fmt: skip


def _finding(h: Hazard, written: tuple[object, ...]) -> Finding:
    fix = f"add tcgen05.wait::{h.kind} before line {h.line}"
    if h.kind == "st":
        return Finding(
            h.line, "warning", "wait-ld",
            f"{h.what} reads Tensor Memory the tcgen05.st on line {h.source} writes, with no "
            f"tcgen05.wait::st between them: it may read the old values; {fix} ({ISA})",
        )  # fmt: skip
    r = h.relation
    if r == "release":
        r = relation(h.spots, written) if written else "disjoint"
    if r in ("unknown", "disjoint"):
        why = (
            "no Tensor Memory write the analysis can see may meet its cells"
            if r == "disjoint"
            else "the analysis cannot tell whether the cells meet"
        )
        return Finding(
            h.line, "note", "wait-ld",
            f"{h.what} while the tcgen05.ld on line {h.source} may still be reading Tensor Memory ({why}); "
            f"only tcgen05.wait::ld completes a load: {fix} ({ISA})",
        )  # fmt: skip
    if h.consumed:
        return Finding(
            h.line, "note", "wait-ld",
            f"{h.what} before tcgen05.wait::ld for the tcgen05.ld on line {h.source}: ordered on today's "
            "hardware by the load's scoreboard (a use of its registers, or ptxas waiting for it where a "
            f"path that used, waited for or never issued it joins), not by the PTX ISA; {fix} ({ISA})",
        )  # fmt: skip
    verb = {"frees": "frees it", "release": "lets other threads go on and write it"}.get(
        h.relation, "writes it"
    )
    return Finding(
        h.line, "warning", "wait-ld",
        f"{h.what} {verb} while the tcgen05.ld on line {h.source} may still be reading Tensor Memory: no "
        f"tcgen05.wait::ld and no instruction has used the loaded registers (a copy waits for nothing); "
        f"{fix} ({ISA})",
    )  # fmt: skip
