"""The ``warp-lanes`` rule: a tcgen05.ld or tcgen05.st touching lanes outside its warp's band.

PTX 9.7.16.8.1 (access restrictions): Tensor Memory's 128 lanes are four bands of 32, and warp ``w`` of a
warpgroup (its warp index in the CTA, modulo 4) may access lanes ``32w..32w+31`` only, every column of
them. Only what the analysis knows exactly is judged:

* each warp; without launch bounds, each group of 32 threads by ``%tid.x``, as for every rule (a finding
  in a group the CTA may not have is a note; in a CTA of more than one dimension such a group holds warps
  whose bands differ only where no address built from ``%tid.x`` alone is right for all of them);
* an address one exact offset for that warp (:class:`~tmemviz.families.explain.follow.operands.Spot`);
* in a block the group's warps surely reach where they run it: not past a ``brx.idx`` whose index the
  analysis did not know (it sends every warp to every label; Triton's warp-specialized kernels read each
  worker warp's task from shared memory).

The lanes of an ld or st are its shape's (32 from the address's lane for ``.32x32b``, 16 for the
``.16x*`` shapes); lanes past 127 are ``outside-allocation``'s finding, not this rule's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.families.check.findings import Finding, access_error
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.tmem import TMEM_LANES, warp_band, warp_of


def band_findings(a: Analysed) -> Iterable[Finding]:
    reported: set[int] = set()
    graph = a.plan.graph
    for t in a.traces:
        if not t.warps:
            continue
        # Past a dispatch whose index the group did not know, a warp may be where it never goes.
        unsure = graph.reaches(s for b in t.dispatched for s in graph.blocks[b].succ)
        for access in t.accesses:
            if access.op not in ("ld", "st") or access.ins.line in reported:
                continue
            if unsure and graph.block_of(access.ins.index) in unsure:
                continue
            found = _outside_band(access, t.warps)
            if found is not None:
                reported.add(access.ins.line)
                yield _finding(a, access, *found)


def _outside_band(access: Any, warps: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, int]] | None:
    """The warps of the group whose exact spot of ``access`` leaves their band, with the lanes touched."""
    for _, spots in access.spots:
        for spot in spots:
            lo, hi = spot.lanes
            if not spot.exact or hi >= TMEM_LANES:  # past lane 127: outside-allocation says it
                continue
            who = (spot.warp,) if spot.warp is not None else warps
            wrong = tuple(w for w in who if not warp_of(lo) == warp_of(hi) == w % 4)
            if wrong:
                return wrong, (lo, hi)
    return None


def _finding(a: Analysed, access: Any, warps: tuple[int, ...], lanes: tuple[int, int]) -> Finding:
    w = warps[0]
    first, last = warp_band(w)
    allowed = f"warp {w} is warp {w % 4} of its warpgroup and may access lanes {first}..{last} only"
    if len(warps) > 1:
        allowed = f"warp w may access lanes 32(w % 4)..32(w % 4)+31 only (warp {w}: {first}..{last})"
    where = f" touches lanes {lanes[0]}..{lanes[1]}"
    return access_error(
        a, access, warps, "warp-lanes", where, f", but {allowed} (PTX 9.7.16.8.1, access restrictions)"
    )
