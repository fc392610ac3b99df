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

from tmemviz.draw.spec import Box, Note, Outline, Panel, Swatch
from tmemviz.families.explain.mapbands import KINDS

HELD, OVER, FRAME = "#bdbdbd", "#fb6a4a", "#08519c"
"""An allocation's columns, columns past the capacity, and the capacity's frame."""
NAME = 26
ROW = 24
"""The allocations' row and the stages' row, in hundredths of an inch (a 9 pt label fits)."""
OVER_H = 16


def stages(regions: Sequence[Any], alloc: int) -> list[tuple[int, int]]:
    """The column ranges MMAs write as D in allocation ``alloc`` where exact (each a stage)."""
    return sorted({r.cols for r in regions if (r.alloc, r.op, r.what, r.exact) == (alloc, "mma", "D", True)})


def budget_panel(
    path: str,
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
    outlines = [Outline(0, NAME, limit, 2 * ROW, 2.0, FRAME)]
    needs = {"held"}
    if peak is None:
        said = (
            "not counted: an allocation's nCols is in a register, or one held with it is not known"
            if found is not None
            else "not counted: no allocation followed"
        )
    else:
        where = "+".join(str(n) for _, n in sorted(peak.parts))
        said = f"held at once: {total} columns at line {peak.line}"
        said += f" ({where})" if len(peak.parts) > 1 else ""
        free = f", {limit - total or 'none'} free"
        said += f", over the capacity by {total - limit}" if total > limit else free
    x = 0
    by_line = {a.line: a for a in kernel.allocs}
    for line, columns in sorted(peak.parts) if peak is not None else ():
        alloc = by_line.get(line)
        label = f"L{line}: {columns}"
        tip = f"allocation of line {line}: {columns} columns (columns {x}-{x + columns - 1} of the budget)"
        label = label if (len(label) + 2) * char <= columns else ""
        data = (("line", str(line)), ("group", "line"))
        boxes.append(Box(x, NAME, columns, ROW, HELD, label, tip, data=data))
        for i, (lo, hi) in enumerate(stages(regions, alloc.index) if alloc is not None else ()):
            if lo >= columns:
                continue
            hi = min(hi, columns - 1)
            text = f"stage {i}" if (len(f"stage {i}") + 2) * char <= hi - lo + 1 else ""
            tip = f"MMA accumulator stage {i}: columns {lo}-{hi} of the allocation of line {line}"
            boxes.append(Box(x + lo, NAME + ROW, hi - lo + 1, ROW, KINDS["D"][1], text, tip))
            needs.add("stages")
        x += columns
    height = NAME + 2 * ROW
    if total > limit:
        needs.add("over")
        label = f"{total - limit} over"
        label = label if len(label) * char <= total - limit else ""
        tip = f"columns {limit}-{total - 1}: past the {limit} an SM of {of} has"
        boxes.append(Box(limit, height, total - limit, OVER_H, OVER, label, tip))
        height += OVER_H
    step = max(32, width // 8 // 32 * 32)
    ticks = {c for c in range(0, width + 1, step)} | {limit}
    ticks = {c for c in ticks if c == limit or abs(c - limit) * width_in / width > 0.45}
    panel = Panel(
        # Bounded so that the title fits the panel's width at 9 pt whatever the file's and kernel's names.
        title=f"{_short(path, 28)}: {_short(kernel.name or '?', 36)}: Tensor Memory budget, "
        f"{limit} columns an SM ({of})",
        width=width,
        height=height,
        cell_w_in=width_in / width,
        boxes=tuple(boxes),
        x_ticks=tuple((float(c), str(c)) for c in sorted(ticks)),
        notes=(Note(0, NAME / 2, said, text_pt, "left"),),
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
