"""The TMEM map's budget panel: a kernel's Tensor Memory against what an SM of its target has.

Columns across, from 0 to the target's capacity (:func:`tmemviz.ptx.targets.capacity`, PTX ISA 9.7.16.2),
framed; further only when the kernel holds more. On it, the allocations the kernel holds at once at its
peak (:mod:`tmemviz.families.explain.budget`), one after another, each with its nCols; under each, the MMA
accumulator stages its constants place in it (each MMA's D whose columns are exact); under those, the
columns past the capacity. Pure data; no drawing here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tmemviz.draw.spec import Box, Outline, Panel, Swatch
from tmemviz.families.explain.mapbands import KINDS

HELD, OVER, FRAME = "#bdbdbd", "#fb6a4a", "#08519c"
"""An allocation's columns, columns past the capacity, and the capacity's frame."""
ROW = 20
"""The allocations' row and the stages' row (only where there are stages), in hundredths of an inch (a
9 pt label fits)."""
OVER_H = 16


def stages(regions: Sequence[Any], alloc: int) -> list[tuple[int, int]]:
    """The column ranges MMAs write as D in allocation ``alloc`` where exact (each a stage)."""
    return sorted({r.cols for r in regions if (r.alloc, r.op, r.what, r.exact) == (alloc, "mma", "D", True)})


def budget_panel(
    kernel: Any,
    found: Any,
    regions: Sequence[Any],
    target: str | None,
    text_pt: float,
    width_in: float,
) -> tuple[Panel, set[str]]:
    """The budget of ``kernel`` (``found``: its :class:`~tmemviz.families.explain.budget.Budget`, or None
    when not known) against ``target``'s capacity; also the legend entries it needs (``held``, ``over``,
    ``stages``)."""
    from tmemviz.ptx.targets import capacity

    limit = capacity(target)
    peak = found.peak if found is not None else None
    total = peak.total if peak is not None else 0
    width = max(limit, -(-total // 32) * 32)
    char = 0.6 * text_pt / 72 * width / width_in
    """A label character's width in columns."""
    of = f".target {target}" if target else "no .target"
    boxes: list[Box] = []
    needs = {"held"}
    if peak is None:  # an nCols in a register, or that of an allocation held with it not known
        said = "not counted (an nCols is not known)" if found is not None else "no allocation followed"
    else:  # each allocation's line and nCols are its segment's label and tooltip
        said = f"{total} of {limit} columns held at once"
        said += f", {total - limit} over" if total > limit else ""
    x = 0
    by_line = {a.line: a for a in kernel.allocs}
    for line, columns in sorted(peak.parts) if peak is not None else ():
        alloc = by_line.get(line)
        label = f"L{line}: {columns}"
        tip = (f"allocation of line {line}: {columns} columns (columns {x}-{x + columns - 1} of the budget"
               + (f"; held at once at line {peak.line})" if peak is not None else ")"))  # fmt: skip
        label = label if (len(label) + 2) * char <= columns else ""
        data = (("line", str(line)), ("group", "line"))
        boxes.append(Box(x, 0, columns, ROW, HELD, label, tip, data=data))
        for i, (lo, hi) in enumerate(stages(regions, alloc.index) if alloc is not None else ()):
            if lo >= columns:
                continue
            hi = min(hi, columns - 1)
            text = f"stage {i}" if (len(f"stage {i}") + 2) * char <= hi - lo + 1 else ""
            tip = f"MMA accumulator stage {i}: columns {lo}-{hi} of the allocation of line {line}"
            boxes.append(Box(x + lo, ROW, hi - lo + 1, ROW, KINDS["D"][1], text, tip))
            needs.add("stages")
        x += columns
    height = (2 if "stages" in needs else 1) * ROW
    outlines = [Outline(0, 0, limit, height, 2.0, FRAME)]
    if total > limit:
        needs.add("over")
        label = f"{total - limit} over"
        label = label if len(label) * char <= total - limit else ""
        tip = f"columns {limit}-{total - 1}: past the {limit} an SM of {of} has"
        boxes.append(Box(limit, height, total - limit, OVER_H, OVER, label, tip))
        height += OVER_H
    ticks = {0, limit // 2, limit} | ({total} if total > limit else set())
    ticks = {c for c in ticks if c == limit or abs(c - limit) * width_in / width > 0.45}
    panel = Panel(
        # Bounded so that the title fits the panel's width at 9 pt whatever the kernel's name (the file is
        # named by the lifetime panel under it).
        title=f"{_short(kernel.name or '?', 32)}: Tensor Memory budget, {of}: {said}",
        width=width,
        height=height,
        cell_w_in=width_in / width,
        boxes=tuple(boxes),
        x_ticks=tuple((float(c), str(c)) for c in sorted(ticks)),
        outlines=tuple(outlines),
        cell_h_in=0.01,
        text_pt=text_pt,
    )
    return panel, needs


def legend(needs: set[str]) -> list[Swatch]:
    """The budget's legend entries (the accumulator's colour is the D band's, already listed)."""
    out = []
    if "held" in needs:
        out += [Swatch(HELD, "columns held at once (budget)")]
        out += [Swatch(FRAME, "the target's capacity", frame=True)]
    if "over" in needs:
        out.append(Swatch(OVER, "past the target's capacity"))
    return out


def _short(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 3] + "..."
