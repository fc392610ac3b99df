"""The rules on an allocation's life, from each warp's trace: ``alloc-columns``, ``never-freed``,
``dealloc-mismatch``, ``dealloc-twice`` and ``use-after-dealloc``.

Each trace says, at every alloc, dealloc, access and exit of one warp, what every path to it says of
each allocation: not allocated by this warp, held, freed. "Every path" findings are errors (*must*),
"some path" findings warnings (*may*). Lifetimes belong to the CTA (PTX ISA, tcgen05.alloc: the
allocation is the CTA's, and any warp may free it): a leak is a path on which no warp frees, so when one
warp allocates and another frees, the allocating warp's own exits say nothing. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.families.check.findings import Finding
from tmemviz.families.explain.follow.kernel import Analysed, allocations
from tmemviz.families.explain.follow.state import FREED, HELD, NONE


def _name(a: Analysed) -> str:
    name = a.body.name or "this function"
    return name if len(name) <= 40 else name[:37] + "..."


def lifetime_findings(a: Analysed, capacity: int) -> Iterable[Finding]:
    """Every lifetime finding; ``never-freed`` ones still to be dropped where a callee may free. (Columns
    held at once past the capacity: :mod:`tmemviz.families.check.budget`.)"""
    known = allocations(a)
    yield from _columns(a, known, capacity)
    yield from _mismatch(a, known)
    yield from _twice(a, known)
    yield from _after(a, known)
    yield from _leaks(a, known)


def _columns(a: Analysed, known: dict[Any, dict[str, Any]], capacity: int) -> Iterable[Finding]:
    seen: set[int] = set()
    for t in a.traces:
        for ins, _, life, columns in t.allocs + [(i, k, None, n) for i, k, _, n in t.deallocs]:
            op = "alloc" if life is not None else "dealloc"
            if columns is None:
                if ins.line not in seen:
                    seen.add(ins.line)
                    yield Finding(ins.line, "note", "alloc-columns",
                                  f"tcgen05.{op} takes nCols from a register: not checked")  # fmt: skip
                continue
            if columns < 32 or columns > capacity or columns & (columns - 1):
                yield Finding(ins.line, "error", "alloc-columns",
                              f"tcgen05.{op} of {columns} columns: nCols must be a power of 2 from 32 to "
                              f"{capacity}")  # fmt: skip


def _mismatch(a: Analysed, known: dict[Any, dict[str, Any]]) -> Iterable[Finding]:
    counts = {n for k in known.values() for n in k["columns"]}
    for t in a.traces:
        for ins, key, _, columns in t.deallocs:
            if columns is None:
                continue
            if key is not None and key in known:
                allocated = known[key]["columns"]
                if len(allocated) == 1 and None not in allocated and columns not in allocated:
                    (n,) = allocated
                    which = f"the alloc on line {min(known[key]['lines'])}"
                    yield _mismatch_finding(ins.line, columns, n, which)
            elif key is None and a.places.alone and len(counts) == 1 and None not in counts:
                (n,) = counts
                if columns != n:
                    yield _mismatch_finding(ins.line, columns, n, "every alloc of this kernel")


def _mismatch_finding(line: int, columns: int, allocated: int, which: str) -> Finding:
    return Finding(
        line, "warning", "dealloc-mismatch",
        f"tcgen05.dealloc frees {columns} columns, but {which} allocated {allocated}",
    )  # fmt: skip


def _twice(a: Analysed, known: dict[Any, dict[str, Any]]) -> Iterable[Finding]:
    for t in a.traces:
        for ins, key, before, _ in t.deallocs:
            if key is None or FREED not in before:
                continue
            must = before == {FREED}
            others = sorted(line for line in known[key]["frees"] if line != ins.line) if key in known else []
            by = f"the tcgen05.dealloc on line {others[0]}" if others else "an earlier run of this dealloc"
            yield Finding(
                ins.line, a.severity("error" if must else "warning", t.warps, ins.index), "dealloc-twice",
                f"tcgen05.dealloc frees Tensor Memory that {by} already freed, on "
                f"{'every' if must else 'some'} path here{a.who(t.warps, ins.index)}: the columns may "
                "belong to another CTA by now",
            )  # fmt: skip


def _after(a: Analysed, known: dict[Any, dict[str, Any]]) -> Iterable[Finding]:
    for t in a.traces:
        for access in t.accesses:
            if FREED not in access.status:
                continue
            must = access.status == {FREED}
            frees = sorted(known[access.key]["frees"]) if access.key in known else []
            by = f"line {', '.join(map(str, frees))}" if frees else "an earlier line"
            yield Finding(
                access.ins.line,
                a.severity("error" if must else "warning", t.warps, access.ins.index),
                "use-after-dealloc",
                f"tcgen05.{access.op} uses Tensor Memory that tcgen05.dealloc freed on {by}, on "
                f"{'every' if must else 'some'} path here{a.who(t.warps, access.ins.index)}",
            )  # fmt: skip


def _leaks(a: Analysed, known: dict[Any, dict[str, Any]]) -> Iterable[Finding]:
    if not a.body.entry:
        return
    frees_somewhere = any(t.deallocs for t in a.traces)
    for key, info in known.items():
        if not info["lines"]:
            continue
        first = min(info["lines"])
        if not frees_somewhere:
            yield Finding(
                first, "warning", "never-freed",
                f"{_name(a)} allocates Tensor Memory here but has no tcgen05.dealloc before it returns: the "
                "columns stay taken after the CTA exits",
            )  # fmt: skip
            continue
        yield from _path_leaks(a, key, info)


def _path_leaks(a: Analysed, key: Any, info: dict[str, Any]) -> Iterable[Finding]:
    by, freed_by = info["by"], info["freed_by"]
    for t in a.traces:
        if t.warps not in by:
            continue
        if t.warps in freed_by or not freed_by:
            leaking = [line for line, life in t.exits if HELD in life.get(key, frozenset((NONE,)))]
            if leaking:
                yield _leak(a, info, min(leaking), t.warps)
            continue
        # Another warp frees: a leak only when this warp allocates on every path and that warp has a
        # path on which it frees nothing.
        if any(NONE in life.get(key, frozenset((NONE,))) for _, life in t.exits):
            continue
        for f in a.traces:
            if f.warps in freed_by:
                skipping = [line for line, life in f.exits if FREED not in life.get(key, frozenset((NONE,)))]
                if not skipping:
                    return
        skipping_lines = [
            line for f in a.traces if f.warps in freed_by for line, life in f.exits
            if FREED not in life.get(key, frozenset((NONE,)))
        ]  # fmt: skip
        if skipping_lines:
            yield _leak(a, info, min(skipping_lines), None)
        return


def _leak(a: Analysed, info: dict[str, Any], exit_line: int, warp: Any) -> Finding:
    at = min(info["at"])
    return Finding(
        min(info["lines"]), a.severity("warning", warp, at), "never-freed",
        f"on some path{a.who(warp, at)}, {_name(a)} reaches its exit on line {exit_line} still holding "
        f"the Tensor Memory allocated here, with no tcgen05.dealloc on the way: every later CTA on this SM "
        "waits for those columns in tcgen05.alloc",
    )  # fmt: skip
