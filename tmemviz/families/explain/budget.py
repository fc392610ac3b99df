"""A kernel's Tensor Memory budget: the columns its allocations hold at once, stated once for ``check``'s
``capacity`` rule and budget note and for the TMEM map.

At each alloc run of each group of warps, the allocation's nCols plus those of every allocation held
there on every path (:data:`~tmemviz.families.explain.follow.machine.HELD`): what the SM must have free
for that alloc to return. An SM has the capacity of :func:`tmemviz.ptx.targets.capacity` (PTX ISA
9.7.16.2). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tmemviz.families.explain.follow.kernel import Analysed, allocations
from tmemviz.families.explain.follow.machine import HELD


@dataclass(frozen=True)
class Held:
    """The allocations held at once at one ``tcgen05.alloc``: (its first alloc line, nCols) each, the
    allocating one first."""

    line: int
    parts: tuple[tuple[int, int], ...]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.parts)


@dataclass(frozen=True)
class Budget:
    """A kernel's budget: where it first allocates, and the most columns it holds at once (None where an
    alloc's nCols, or that of an allocation held with it, is not known: nothing is counted then)."""

    first: int
    peak: Held | None


def held(a: Analysed) -> Iterator[tuple[Any, Any, Any, int, list[Any]]]:
    """Each alloc run whose nCols and those of every allocation held there are known: (its trace, the
    alloc instruction, its allocation's key, its nCols, the keys of the allocations held with it)."""
    known = allocations(a)
    for t in a.traces:
        for ins, key, life, columns in t.allocs:
            others = [k for k, status in life.items() if status == {HELD} and k != key and k in known]
            sizes = [known[k]["columns"] for k in others]
            if columns is None or any(len(c) != 1 or None in c for c in sizes):
                continue
            yield t, ins, key, columns, others


def budget(a: Analysed) -> Budget | None:
    """The kernel's budget; None when it allocates nothing."""
    known = allocations(a)
    runs = [(ins, columns) for t in a.traces for ins, _, _, columns in t.allocs]
    if not runs:
        return None
    first = min(ins.line for ins, _ in runs)
    counted = list(held(a))
    if len(counted) != len(runs):
        return Budget(first, None)
    best: Held | None = None
    for _, ins, key, columns, others in counted:
        own = (min(known[key]["lines"]) if known[key]["lines"] else ins.line, columns)
        parts = (own, *((min(known[k]["lines"]), next(iter(known[k]["columns"]))) for k in others))
        found = Held(ins.line, parts)
        if best is None or (found.total, -found.line) > (best.total, -best.line):
            best = found
    return Budget(first, best)


def gather(into: dict[str, Budget]) -> Callable[[Any, Analysed | None, set[str]], None]:
    """What the follower calls with each function read: its budget kept in ``into`` by kernel name (or
    ``line N``), as ``check`` keeps it, for the map."""

    def each(body: Any, a: Analysed | None, callees: set[str]) -> None:
        if a is not None and not a.unconverged:
            found = budget(a)
            if found is not None:
                into[body.name or f"line {body.line}"] = found

    return each
