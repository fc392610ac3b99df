"""Where a ``brx.idx`` sends a group of warps: the labels of its ``.branchtargets`` list its index may pick
(PTX ISA ``brx.idx``: zero-based; an index past the list is undefined behaviour). Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.explain.follow.trace import Split
from tmemviz.families.explain.follow.values import Vec, values


def picked(index: Any, order: list[int], warps: tuple[int, ...] | None) -> frozenset[int]:
    """The blocks of ``order`` (the list's labels, in its order) the group may go to, given the index's
    value; raises :class:`Split` where the group's warps hold different indices (a warp-specialized
    kernel's dispatch to its partitions).

    >>> from tmemviz.ptx.constants import const
    >>> sorted(picked(const(1), [7, 8, 9], (0,))), sorted(picked(None, [7, 8, 9], (0,)))
    ([8], [7, 8, 9])
    >>> picked(Vec((const(0), const(1), const(1))), [7, 8], (4, 5, 6))
    Traceback (most recent call last):
    ...
    tmemviz.families.explain.follow.trace.Split: the group's warps part ways
    """
    if type(index) is Vec:
        each = [chosen(v, order) for v in index.items]
        if any(e != each[0] for e in each):
            parts: dict[frozenset[int], list[int]] = {}
            for w, e in zip(warps or (), each, strict=True):
                parts.setdefault(e, []).append(w)
            raise Split([tuple(p) for p in parts.values()])
        return each[0]
    return chosen(index, order)


def chosen(index: Any, order: list[int]) -> frozenset[int]:
    """The labels one value of the index may pick: each of a few numbers it may be, every label where it
    is not known or may lie past the list (undefined: no label is ruled out)."""
    found = values(index) if type(index) is tuple else None
    if not found or any(not 0 <= k < len(order) for k in found):
        return frozenset(order)
    return frozenset(order[k] for k in found)
