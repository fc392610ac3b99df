"""Budgets a kernel can overrun: Tensor Memory columns held at once against the target's capacity
(``capacity``), and the registers a ``tcgen05.ld`` writes against the warp's ``setmaxnreg`` count
(``ld-registers``).

``capacity``: at each alloc of each warp, the columns of the allocations held there on every path plus
its own; past the SM's capacity (:func:`tmemviz.ptx.targets.capacity`) the alloc waits for columns its
own CTA holds, which never come back (openxla/xla#40118; FlashAttention#1959: head dimension 256 wanted
more than 512 columns and was fixed by fewer stages). The finding lists each allocation and, where the
kernel's constants place its MMA accumulators, the stages inside it, so that it says what to shrink.
The target is known only once the module is read: :class:`Peak` is judged then.

``ld-registers``: a ``tcgen05.ld ... .xN`` writes N (or more) 32-bit registers per thread at once; a warp
whose ``setmaxnreg`` (on every path to the load) leaves fewer cannot hold them: ptxas 13 refuses the
kernel ("Register allocation failed") when it knows the count at entry, ignores the ``setmaxnreg``
otherwise (C7508), and crashed with no diagnostic in NVIDIA/cutlass#3420. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tmemviz.families.check.findings import Finding
from tmemviz.families.explain.budget import held
from tmemviz.families.explain.follow.kernel import Analysed, allocations
from tmemviz.families.explain.follow.paths import START, reaching, register_count


@dataclass(frozen=True)
class Peak:
    """The most columns one alloc makes held at once, and what they are."""

    line: int
    severity: str
    who: str
    total: int
    parts: tuple[tuple[int, int, str], ...]
    """(alloc line, columns, its stages in words) per allocation held there, this one first."""
    name: str

    def finding(self, capacity: int, target: str | None) -> Finding | None:
        if self.total <= capacity or len(self.parts) < 2:
            return None  # one alloc past the capacity is an illegal nCols (alloc-columns)
        listed = "; ".join(f"line {line}: {n}{stages}" for line, n, stages in self.parts)
        of = f" of .target {target}" if target else ""
        return Finding(
            self.line, self.severity, "capacity",
            f"this tcgen05.alloc brings the Tensor Memory {self.name} holds at once to {self.total} "
            f"columns{self.who}, more than the {capacity} an SM{of} has ({listed}): it waits forever for "
            "columns its own CTA holds; shrink a buffer, use fewer stages, or free one allocation first",
        )  # fmt: skip


def peaks(a: Analysed) -> list[Peak]:
    """Per alloc run, the columns held with it, where every allocation's nCols is known
    (:func:`tmemviz.families.explain.budget.held`, what the TMEM map's budget draws too)."""
    known = allocations(a)
    out = []
    for t, ins, key, columns, others in held(a):
        if not others:
            continue
        parts = [(ins.line, columns, _stages(a, key))]
        parts += [(min(known[k]["lines"]), next(iter(known[k]["columns"])), _stages(a, k)) for k in others]
        total = sum(n for _, n, _ in parts)
        severity = a.severity("error", t.warps, ins.index)
        name = a.body.name or "this function"
        name = name if len(name) <= 40 else name[:37] + "..."
        out.append(Peak(ins.line, severity, a.who(t.warps, ins.index), total, tuple(parts), name))
    return out


def _stages(a: Analysed, key: Any) -> str:
    """The column ranges MMAs write as D in allocation ``key``, where exact: `` (MMA accumulators at
    columns 0..127, 128..255)``."""
    ranges = sorted({
        spot.cols for t in a.traces for access in t.accesses if access.op == "mma"
        for touch, spots in access.spots if touch.what == "D" and touch.exact
        for spot in spots if spot.key == key and spot.exact
    })  # fmt: skip
    if not ranges:
        return ""
    shown = ", ".join(f"{lo}..{hi}" for lo, hi in ranges[:6]) + (", ..." if len(ranges) > 6 else "")
    return f" (MMA accumulator{'s' if len(ranges) > 1 else ''} at columns {shown})"


def register_findings(a: Analysed) -> Iterable[Finding]:
    """``ld-registers``: each load whose warp's ``setmaxnreg`` leaves fewer registers than it writes."""
    if not any(i.opcode.startswith("setmaxnreg") for i in a.body.instructions):
        return
    for t in a.traces:
        loads = [x for x in t.accesses if x.op == "ld"]
        if not loads:
            continue
        counts = reaching(a.plan, t.blocks, register_count)
        for access in loads:
            written = _written(access.ins)
            values = counts(access.ins)
            if not written or not values or START in values:
                continue
            fewer = [(n, line) for n, line in values if isinstance(n, int) and n < written]
            if not fewer:
                continue
            must = len(fewer) == len(values)
            n, line = min(fewer)
            who = a.who(t.warps, access.ins.index)
            yield Finding(
                access.ins.line, a.severity("error" if must else "warning", t.warps, access.ins.index),
                "ld-registers",
                f"this tcgen05.ld writes {written} registers per thread, but the setmaxnreg on line {line} "
                f"leaves {'this warp' if must else 'this warp, on some path,'} {n}{who}: "
                f"ptxas cannot allocate them (NVIDIA/cutlass#3420); raise that setmaxnreg above {written} "
                "plus what else the warp keeps live, or load in smaller .num pieces",
            )  # fmt: skip


def _written(ins: Any) -> int:
    """How many registers a tcgen05.ld writes: its first operand's vector."""
    text = ins.rest
    start, end = text.find("{"), text.find("}")
    if start < 0 or end < start:
        return 0
    return len([r for r in text[start + 1 : end].split(",") if r.strip()])
