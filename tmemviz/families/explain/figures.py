"""The TMEM map of a kernel: per allocation, when it lives and who uses which of its columns.

Two panels per alloc of each kernel (a ``.cta_group::2`` alloc is the same in each CTA of the pair).
The first is the allocation's lifetime over the kernel's PTX lines: its alloc, its deallocs, a tick at
every statement that touches it, and the findings ``check`` made (a red mark at their line, listed under
it). The second is its columns across, relative to its base, with one band per kind of user
(:mod:`tmemviz.families.explain.mapbands`): each band shows lanes 0-127 and the regions that user
touches, labelled with their PTX lines, so an MMA's accumulator never hides the loads that read it.
Regions outside the allocation, or where a copy's rows land in an MMA's D, are in the error colour; a
region at a finding's line is framed in red. Only regions whose address was proved are drawn
(:mod:`tmemviz.families.explain.regions`); the caption counts the rest. Text is 9 pt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.draw.spec import Box, FigureSpec, Note, Outline, Panel, Swatch
from tmemviz.families.explain.mapbands import (
    ALLOCATED,
    EDGE,
    FINDING,
    KINDS,
    LIVE,
    OUTSIDE,
    PAST,
    Band,
    bands,
    clashes,
    describe,
    kind_of,
    warps_text,
)
from tmemviz.tmem import TMEM_LANES

TEXT_PT = 9.0
WIDTH_IN = 10.0
UNIT_IN = 0.01
"""A panel's vertical unit (and the lifetime panel's horizontal one): hundredths of an inch."""
NAME = 26
"""The height of a band's name row, in units."""
STRIP = 72
"""A band's height: 128 lanes in 0.72 inch (32 lanes hold a 9 pt label)."""
GAP = 10
MIN_H = 6
"""The least height of a region, in units (a one-lane region would be a hairline)."""
MIN_W_IN = 0.05
CHAR_IN = 0.6 * TEXT_PT / 72
"""A label character's width: DejaVu Sans Mono advances 0.6 em."""
MAX_PANELS = 12
MAX_FINDINGS = 6
"""Findings listed under one lifetime (the rest are counted)."""
TIP_LINES = 6
"""Statements a tooltip names before ``+N more``."""
SHOWN = ("error", "warning")
"""Severities the map marks (notes, such as where a target runs, mark no place)."""


def gallery_entries(catalog: Catalog) -> list[object]:
    """No gallery entries: a map belongs to a kernel."""
    return []


def explain_map(modules: Sequence[Any], catalog: Catalog, detail: str = "auto") -> FigureSpec:
    """The map of explained modules (``tmemviz explain FILE -o map.png``), from the allocation tracker
    that followed the one read of each file (``module.tracker``); no file is read again, and the shapes
    are the run's own catalog (``--layouts`` included), as the explanation's were."""
    from tmemviz.errors import TmemvizError

    files = []
    budgets: dict[str, tuple[str | None, Mapping[str, Any]]] = {}
    for m in modules:
        tracker = getattr(m, "tracker", None)
        if tracker is None:
            if getattr(m, "language", "ptx") == "sass":
                raise TmemvizError(
                    f"{m.path} is SASS: the TMEM map is drawn from PTX (it follows each alloc's base through "
                    "its registers); give the PTX the cubin was assembled from"
                )
            raise TmemvizError(f"{m.path} was explained without following its registers; no TMEM map to draw")
        tracker.close()
        regions = {k.name or f"line {k.line}": r for k, r in tracker.maps}
        files.append((m.path, [k for k, _ in tracker.maps], regions))
        budgets[m.path] = (m.target, m.budgets)
    return map_spec(files, detail, budgets=budgets)


def map_spec(
    files: Sequence[tuple[str, Sequence[Any], dict[str, Sequence[Any]]]],
    detail: str = "auto",
    findings: Mapping[str, Sequence[Any]] | None = None,
    budgets: Mapping[str, tuple[str | None, Mapping[str, Any]]] | None = None,
) -> FigureSpec:
    """The map of every kernel of ``files`` (path, the tracker's kernels, placed regions by kernel name);
    ``findings`` by path (``check``'s: line, severity, rule, message) are marked where they are;
    ``budgets`` by path (the module's target, each kernel's budget by name) are drawn above each kernel.
    ``detail`` is accepted for every figure's sake: the map is always a schematic."""
    from tmemviz.families.explain.mapbudget import budget_panel

    panels: list[Panel] = []
    unplaced = left = skipped = 0
    kinds: set[str] = set()
    flags: set[str] = set()
    needs: set[str] = set()
    elsewhere: list[str] = []
    for path, kernels, regions in files:
        name = os.path.basename(path) or path
        found = [f for f in (findings or {}).get(path, ()) if f.severity in SHOWN]
        for kernel in kernels:
            placed = regions.get(kernel.name or f"line {kernel.line}", [])
            accesses = sum(1 for s in kernel.statements if s.op in ("ld", "st", "cp", "mma", "shift"))
            unplaced += max(0, accesses - len({r.line for r in placed}))
            mine = [f for f in found if kernel.line <= f.line <= kernel.end]
            found = [f for f in found if f not in mine]
            if not kernel.allocs:
                elsewhere += [_finding_text(f) for f in mine]
            elif len(panels) + 3 > MAX_PANELS:
                skipped += 1
            else:
                target, counted = (budgets or {}).get(path, (None, {}))
                key = kernel.name or f"line {kernel.line}"
                panel, need = budget_panel(kernel, counted.get(key), placed, target, TEXT_PT, WIDTH_IN)
                panels.append(panel)
                needs |= need
                kinds |= {"D"} if "stages" in need else set()
            for alloc in kernel.allocs:
                here = [r for r in placed if r.alloc == alloc.index]
                marks = _findings_of(alloc, kernel, here, mine)
                if len(panels) + 2 > MAX_PANELS:
                    left += 1
                    elsewhere += [_finding_text(f) for f in marks]
                    continue
                kinds |= {kind_of(r) for r in here}
                panels.append(lifetime_panel(name, kernel, alloc, here, marks))
                columns, shown = columns_panel(alloc, here, marks)
                panels.append(columns)
                flags |= shown
        elsewhere += [_finding_text(f) for f in found]
    caption = (
        "First, each kernel's Tensor Memory budget against its target's capacity. "
        "Above each allocation: its lifetime over the kernel's PTX lines in text order (alloc and dealloc in "
        "black, a tick at each statement that touches it; branches may run lines in another order). Below: "
        "its columns across, relative to its base (PTX 9.7.16.2), one band per kind of user, "
        "each band showing lanes 0-127 top to bottom; labels name the PTX lines."
    )
    if unplaced:
        caption += (
            f" {unplaced} tcgen05 access(es) not drawn: their address was not proved to be an alloc's base."
        )
    if left:
        caption += f" {left} more allocation(s) not drawn."
    if skipped:
        caption += f" The budget of {skipped} more kernel(s) not drawn."
    if elsewhere:
        caption += " Findings not on the map: " + "; ".join(elsewhere[:MAX_FINDINGS])
        caption += f"; +{len(elsewhere) - MAX_FINDINGS} more." if len(elsewhere) > MAX_FINDINGS else "."
    if not panels:
        panels.append(
            Panel(
                "no tcgen05.alloc found",
                8,
                1,
                0.5,
                (),
                notes=(Note(4, 0.5, "nothing allocated", 9.0),),
                text_pt=TEXT_PT,
            )
        )
    names = list(dict.fromkeys(os.path.basename(p) or p for p, _, _ in files))
    title = "TMEM map: " + ", ".join(names)
    title = title if len(title) < 90 else title[:87] + "..."
    return FigureSpec(title, caption, tuple(panels), legend(kinds, flags, needs), TEXT_PT)


def legend(kinds: set[str], flags: set[str], needs: set[str] | None = None) -> tuple[Swatch, ...]:
    """The colours the map uses, each with its meaning: the kinds of user drawn, then the background,
    then the budget's."""
    from tmemviz.families.explain.mapbudget import legend as budget_legend

    out = [Swatch(KINDS[k][1], KINDS[k][0]) for k in KINDS if k in kinds]
    out += [Swatch(ALLOCATED, "allocated"), Swatch(PAST, "past the allocation")]
    out += [Swatch(LIVE, "lines from alloc to dealloc"), Swatch(EDGE, "alloc, dealloc")]
    if "outside" in flags:
        out.append(Swatch(OUTSIDE, "outside the allocation, or a copy into an MMA's D"))
    if "finding" in flags:
        out.append(Swatch(FINDING, "a finding at this line", frame=True))
    return tuple(out + budget_legend(needs or set()))


def _findings_of(alloc: Any, kernel: Any, regions: Sequence[Any], findings: Sequence[Any]) -> list[Any]:
    """The findings one allocation's panels mark: at its statements, alloc or deallocs, or (the kernel's
    first allocation) anywhere else in the kernel."""
    lines = {r.line for r in regions} | set(alloc.lines) | set(alloc.frees)
    others = {line for a in kernel.allocs if a is not alloc for line in (*a.lines, *a.frees)}
    first = alloc is kernel.allocs[0]
    return [f for f in findings if f.line in lines or (first and f.line not in others)]


def _finding_text(f: Any) -> str:
    return f"line {f.line}: {f.severity} {f.rule}: {f.message}"


def _short(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 3] + "..."


def lifetime_panel(path: str, kernel: Any, alloc: Any, regions: Sequence[Any], marks: Sequence[Any]) -> Panel:
    """One allocation's life over the kernel's lines: the kernel, the live span, a tick per statement
    touching it, the alloc and deallocs, and the findings (marked, then listed)."""
    first, last = kernel.line, max(kernel.end, kernel.line + 1)
    width = WIDTH_IN / UNIT_IN

    def x(line: int) -> float:
        return (line - first) / (last - first) * width

    end = max(alloc.frees) if alloc.frees else last
    boxes = [
        Box(0, 34, width, 12, "#f4f4f4", "", f"kernel {kernel.name or '?'}: lines {first}-{last}"),
        Box(x(alloc.line), 30, max(2.0, x(end) - x(alloc.line)), 20, LIVE, "",
            f"allocated from line {alloc.line} to line {end}" if alloc.frees else "allocated, never freed"),
    ]  # fmt: skip
    ticks: dict[tuple[int, str], list[Any]] = {}
    for r in regions:
        ticks.setdefault((r.line, kind_of(r)), []).append(r)
    for (line, kind), rs in sorted(ticks.items()):
        boxes.append(Box(x(line) - 1, 30, 2, 20, KINDS[kind][1], "", describe(rs[0]), data=_data(line)))
    who = warps_text(alloc.by)
    made = f"line {alloc.line}: tcgen05.alloc" + (f" by {who}" if who else "")
    boxes.append(Box(x(alloc.line) - 1.5, 26, 3, 28, EDGE, "", made, data=_data(alloc.line)))
    for line in alloc.frees:
        boxes.append(
            Box(x(line) - 1.5, 26, 3, 28, EDGE, "", f"line {line}: tcgen05.dealloc", data=_data(line))
        )
    for f in marks:
        boxes.append(Box(x(f.line) - 2, 22, 4, 36, FINDING, "", _finding_text(f), data=_data(f.line)))
    size = f"{alloc.columns} columns" if alloc.columns else "nCols in a register"
    pair = ", in each CTA of the pair" if alloc.cta_group == 2 else ""
    freed = ("dealloc on line " + ", ".join(map(str, alloc.frees))) if alloc.frees else "never freed"
    notes = [Note(0, 12, f"alloc on line {alloc.line}" + (f" ({who})" if who else "") + f" -> {freed}",
                  TEXT_PT, "left")]  # fmt: skip
    y = 72
    for f in marks[:MAX_FINDINGS]:
        notes.append(Note(0, y, _short(_finding_text(f), 120), TEXT_PT, "left", FINDING))
        y += 20
    if len(marks) > MAX_FINDINGS:
        notes.append(Note(0, y, f"+{len(marks) - MAX_FINDINGS} more findings", TEXT_PT, "left", FINDING))
        y += 20
    name = _short(kernel.name or "?", 48)
    return Panel(
        title=f"{path}: {name}, {size}{pair}; lifetime over PTX lines {first}-{last}",
        width=width,
        height=y - 8 if marks else 56,
        cell_w_in=UNIT_IN,
        boxes=tuple(boxes),
        x_ticks=_line_ticks([alloc.line, *alloc.frees, first, last], x),
        notes=tuple(notes),
        cell_h_in=UNIT_IN,
        text_pt=TEXT_PT,
    )


def _line_ticks(lines: Sequence[int], x: Any) -> tuple[tuple[float, str], ...]:
    """Ticks at the lines that matter, most important first, none closer than its text to another."""
    placed: list[tuple[float, str]] = []
    for line in lines:
        at = x(line)
        half = (len(str(line)) * CHAR_IN / 2 + 0.1) / UNIT_IN
        if all(abs(at - p) > half + len(t) * CHAR_IN / 2 / UNIT_IN for p, t in placed):
            placed.append((at, str(line)))
    return tuple(sorted(placed))


def _data(line: int, lanes: tuple[int, int] | None = None, cols: tuple[int, int] | None = None) -> Any:
    """What the page finds a box by (``line 105``) and selects it with (the boxes of the same line)."""
    out = [("line", str(line))]
    if lanes is not None and cols is not None:
        out += [("lanes", f"{lanes[0]}-{lanes[1]}"), ("cols", f"{cols[0]}-{cols[1]}")]
    return (*out, ("group", "line"))


def columns_panel(alloc: Any, regions: Sequence[Any], marks: Sequence[Any]) -> tuple[Panel, set[str]]:
    """One allocation's columns (and as many past it as accesses reach), a band per kind of user; also
    which of the legend's flags (``outside``, ``finding``) it shows."""
    reach = max((min(r.cols[1], 511) + 1 for r in regions), default=0)
    width = max(alloc.columns or 0, reach, 32)
    width = min(512, -(-width // 32) * 32)
    found = bands(regions, width)
    d = [rect for b in found if b.kind == "D" for rect in b.rects]
    flagged = {f.line for f in marks}
    boxes: list[Box] = []
    outlines: list[Outline] = []
    notes: list[Note] = []
    y_ticks: list[tuple[float, str]] = []
    flags: set[str] = set()
    top = 0
    for band in found or [Band("ld", ())]:
        notes.append(
            Note(0, top + NAME / 2, band.name if found else "no access placed in it", TEXT_PT, "left")
        )
        strip = top + NAME
        allocated = min(alloc.columns or width, width)
        boxes.append(Box(0, strip, allocated, STRIP, ALLOCATED, "", f"allocated columns 0-{allocated - 1}"))
        if allocated < width:
            boxes.append(Box(allocated, strip, width - allocated, STRIP, PAST, "", "past the allocation"))
        y_ticks += [(strip + 6, "0"), (strip + STRIP - 6, "127")]
        stages = sorted({rect.cols for rect in band.rects})
        for rect in band.rects:
            y = strip + rect.lanes[0] * STRIP / TMEM_LANES
            h = (rect.lanes[1] - rect.lanes[0] + 1) * STRIP / TMEM_LANES
            w = rect.cols[1] - rect.cols[0] + 1
            # A region of a lane or a column (a scale factor's address) is drawn big enough to see.
            h, w = max(h, MIN_H), max(w, MIN_W_IN * width / WIDTH_IN)
            y, x = min(y, strip + STRIP - h), min(rect.cols[0], width - w)
            bad = rect.outside or clashes(rect, band, d)
            flags |= {"outside"} if bad else set()
            tips = [describe(r) for r in sorted(rect.regions, key=lambda r: r.line)]
            tip = "; ".join(tips[:TIP_LINES]) + (
                f"; +{len(tips) - TIP_LINES} more" if len(tips) > TIP_LINES else ""
            )
            tip += f" (lanes {rect.lanes[0]}-{rect.lanes[1]}, columns {rect.cols[0]}-{rect.cols[1]})"
            if clashes(rect, band, d):
                tip += "; shares cells with an MMA's D"
            lines = rect.lines
            text = f"L{lines[0]}" + (f"+{len(lines) - 1}" if len(lines) > 1 else "")
            if band.kind == "D" and len(stages) > 1:
                text = f"stage {stages.index(rect.cols)}: " + text
            fits = len(text) * CHAR_IN + 0.04 <= w * WIDTH_IN / width and h * UNIT_IN >= 1.2 * TEXT_PT / 72
            fill = OUTSIDE if bad else KINDS[band.kind][1]
            # Past the allocation's columns only: the part inside keeps its kind's colour.
            split = rect.outside and not clashes(rect, band, d) and rect.cols[0] < allocated <= rect.cols[1]
            if split:
                fill = KINDS[band.kind][1]
            for k, line in enumerate(lines):  # one box per line, so the page finds each
                label = text if fits and k == len(lines) - 1 else ""
                boxes.append(Box(x, y, w, h, fill, label, tip, not rect.exact and bool(label),
                                 _data(line, rect.lanes, rect.cols)))  # fmt: skip
            if split:
                boxes.append(Box(allocated, y, rect.cols[1] - allocated + 1, h, OUTSIDE, "", tip))
            if flagged & set(lines):
                flags.add("finding")
                outlines.append(Outline(x, y, w, h, 2.5, FINDING))
        top = strip + STRIP + GAP
    markers = (
        ((float(alloc.columns), "end of allocation"),) if alloc.columns and alloc.columns < width else ()
    )
    step = max(32, width // 8)
    panel = Panel(
        title=f"columns 0-{width - 1} from the allocation's base; each band: lanes 0-127",
        width=width,
        height=(top - GAP),
        cell_w_in=WIDTH_IN / width,
        boxes=tuple(boxes),
        x_ticks=tuple((float(c), str(c)) for c in range(0, width + 1, step)),
        y_ticks=tuple(y_ticks),
        markers=markers,
        outlines=tuple(outlines),
        notes=tuple(notes),
        cell_h_in=UNIT_IN,
        y_label="lane",
        text_pt=TEXT_PT,
    )
    return panel, flags
