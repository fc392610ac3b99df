"""The TMEM map of a kernel: per allocation, 128 lanes x its columns, and what each statement touches.

One panel per alloc of each kernel (a ``.cta_group::2`` alloc is the same in each CTA of the pair):
the allocated columns, the region each MMA writes (its idesc M/N and data-path layout), what each
ld/st/cp/shift reads or writes, labelled with the PTX line; cells outside the allocation and cells two
kinds of operand share (an MMA's D and a copy's rows, say) in the error colour. Only regions whose
address was proved are drawn (:mod:`tmemviz.families.explain.regions`); a caption counts the rest.
The cells are one :class:`~tmemviz.draw.spec.Field` per panel, drawn as one image (PNG/SVG) or
computed by the page (HTML): hovering names every statement touching a cell, and ``line`` finds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.draw.spec import CHAR_IN, Field, FigureSpec, Note, Outline, Panel
from tmemviz.tmem import TMEM_COLUMNS, TMEM_LANES

PALETTE = ("#ffffff", "#eeeeee", "#9ecae1", "#fdbf6f", "#b2df8a", "#e31a1c")
"""Past the allocation, allocated, written by an MMA (D), written by st/cp/shift, read, error."""
PAST, FREE, MMA_D, WRITTEN, READ, ERROR = range(6)
RANK = {ERROR: 0, MMA_D: 1, WRITTEN: 2, READ: 3, FREE: 4, PAST: 5}
LABEL_STEP = 8
"""Lanes between label rows (a 6.5 pt line is about 3 lanes tall)."""
LABEL_MIN_IN = 0.45
LABEL_MIN_LANES = 8
"""Regions smaller than this are named in their tooltips only (labels would cover each other)."""
WIDTH_IN = 10.0
CELL_H_IN = 0.035
MAX_PANELS = 12
MAX_LABELS = 24
LABEL_LINES = 3
"""Lines named in one label before ``+N``."""


def gallery_entries(catalog: Catalog) -> list[object]:
    """No gallery entries: a map belongs to a kernel."""
    return []


def explain_map(modules: Sequence[Any], catalog: Catalog, detail: str = "auto") -> FigureSpec:
    """The map of explained modules (``tmemviz explain FILE -o map.png``), from the allocation tracker
    that followed the one read of each file (``module.tracker``); no file is read again, and the shapes
    are the run's own catalog (``--layouts`` included), as the explanation's were."""
    from tmemviz.errors import TmemvizError

    files = []
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
    return map_spec(files, detail)


def map_spec(
    files: Sequence[tuple[str, Sequence[Any], dict[str, Sequence[Any]]]], detail: str = "auto"
) -> FigureSpec:
    """The map of every kernel of ``files`` (path, the tracker's kernels, placed regions by kernel name)."""
    panels: list[Panel] = []
    unplaced = 0
    left = 0
    for path, kernels, regions in files:
        for kernel in kernels:
            placed = regions.get(kernel.name or f"line {kernel.line}", [])
            accesses = sum(1 for s in kernel.statements if s.op in ("ld", "st", "cp", "mma", "shift"))
            unplaced += max(0, accesses - len({r.line for r in placed}))
            for alloc in kernel.allocs:
                if len(panels) == MAX_PANELS:
                    left += 1
                    continue
                mine = [r for r in placed if r.alloc == alloc.index]
                panels.append(alloc_panel(path, kernel, alloc, mine))
    caption = (
        "Columns of each allocation, relative to its base (PTX 9.7.16.2); blue: an MMA's D, orange: written "
        "by st/cp/shift, green: read, red: outside the allocation or shared by two kinds of operand."
    )
    if unplaced:
        caption += (
            f" {unplaced} tcgen05 access(es) not drawn: their address was not proved to be an alloc's base."
        )
    if left:
        caption += f" {left} more allocation(s) not drawn."
    if not panels:
        panels.append(
            Panel("no tcgen05.alloc found", 8, 1, 0.5, (), notes=(Note(4, 0.5, "nothing allocated"),))
        )
    title = "TMEM map: " + ", ".join(p for p, _, _ in files)
    return FigureSpec(title if len(title) < 90 else title[:87] + "...", caption, tuple(panels))


def alloc_panel(path: str, kernel: Any, alloc: Any, regions: Sequence[Any]) -> Panel:
    """One allocation: its columns (and as many past it as accesses reach), 128 lanes."""
    reach = max((min(r.cols[1], TMEM_COLUMNS - 1) + 1 for r in regions), default=0)
    width = max(alloc.columns or 0, reach, 32)
    width = min(TMEM_COLUMNS, -(-width // 32) * 32)
    cells = paint(width, alloc.columns, regions)
    colors, lines, kinds, texts = cells
    cell_w = WIDTH_IN / width
    cells_n = width * TMEM_LANES
    coordinates = (tuple(i // width for i in range(cells_n)), tuple(i % width for i in range(cells_n)))
    field = Field(
        0, 0, width, TMEM_LANES, ("lane", "col", "line", "touch"), (*coordinates, lines, kinds),
        colors, PALETTE, "lane {lane}, column {col}: {touch}", texts=(("touch", texts),), group=("line",),
    )  # fmt: skip
    outlines = [Outline(0, 0, alloc.columns, TMEM_LANES, 1.6)] if alloc.columns else []
    notes = list(labels(regions, width))
    for r in regions:
        if r.exact:
            a, b = max(0, r.cols[0]), min(width - 1, r.cols[1])
            lo, hi = max(0, r.lanes[0]), min(TMEM_LANES - 1, r.lanes[1])
            if a <= b and lo <= hi:
                outlines.append(Outline(a, lo, b - a + 1, hi - lo + 1, 0.6, "#333333"))
    name = kernel.name or "?"
    short = name if len(name) <= 40 else name[:37] + "..."
    size = f"{alloc.columns} columns" if alloc.columns else "nCols in a register"
    pair = ", each CTA of the pair" if alloc.cta_group == 2 else ""
    markers = (
        ((float(alloc.columns), "end of allocation"),) if alloc.columns and alloc.columns < width else ()
    )
    return Panel(
        title=f"{path}: {short}, alloc on line {alloc.line} ({size}{pair})",
        width=width,
        height=TMEM_LANES,
        cell_w_in=cell_w,
        boxes=(),
        fields=(field,),
        x_ticks=tuple((c + 0.5, str(c)) for c in range(0, width, max(32, width // 8))),
        y_ticks=tuple((lane + 0.5, str(lane)) for lane in range(0, TMEM_LANES, 32)),
        markers=markers,
        outlines=tuple(outlines),
        notes=tuple(notes),
        cell_h_in=CELL_H_IN,
        y_label="lane",
    )


def paint(width: int, columns: int | None, regions: Sequence[Any]) -> tuple[Any, ...]:
    """Per cell: its colour, the line of the last statement touching it (-1: none), and which set of
    statements touch it (an index into the texts, for the tooltip).

    >>> from types import SimpleNamespace as R
    >>> d = R(line=9, op="mma", what="D", lanes=(0, 127), cols=(0, 31), writes=True, outside=False)
    >>> colors, lines, kinds, texts = paint(32, 32, [d])
    >>> colors[0], lines[5], dict(texts)[kinds[0]]
    (2, 9, 'line 9: tcgen05.mma writes D')
    """
    n = width * TMEM_LANES
    colors = [FREE if columns is None else PAST] * n
    if columns:
        for lane in range(TMEM_LANES):
            colors[lane * width : lane * width + min(columns, width)] = [FREE] * min(columns, width)
    touched: list[tuple[int, ...]] = [()] * n
    operand: list[str | None] = [None] * n
    for k, r in enumerate(regions):
        kind = "D" if r.what == "D" else ("cells" if r.what == "cells" else "other")
        for lane in range(max(0, r.lanes[0]), min(TMEM_LANES - 1, r.lanes[1]) + 1):
            for col in range(max(0, r.cols[0]), min(width - 1, r.cols[1]) + 1):
                i = lane * width + col
                touched[i] = (*touched[i], k)
                # Past the allocation; or the whole region when what takes it outside is not drawn (lanes).
                past = (columns is not None and col >= columns) or (
                    r.outside and (columns is None or r.cols[1] < columns)
                )
                clash = operand[i] is not None and {operand[i], kind} == {"D", "other"}
                if past or clash:
                    colors[i] = ERROR
                else:  # what a cell shows, most telling first: error, an MMA's D, written, read
                    mine = MMA_D if r.op == "mma" and r.what == "D" else WRITTEN if r.writes else READ
                    if colors[i] in (PAST, FREE) or RANK[mine] < RANK[colors[i]]:
                        colors[i] = mine
                    if operand[i] != "D" or kind == "other":
                        operand[i] = kind
    index: dict[tuple[int, ...], int] = {(): 0}
    texts = [(0, "not touched")]
    kinds = []
    for t in touched:
        if t not in index:
            index[t] = len(index)
            texts.append((index[t], "; ".join(describe(regions[k]) for k in t[:LABEL_LINES])
                          + (f"; +{len(t) - LABEL_LINES} more" if len(t) > LABEL_LINES else "")))  # fmt: skip
        kinds.append(index[t])
    lines = tuple(regions[t[-1]].line if t else -1 for t in touched)
    return tuple(colors), lines, tuple(kinds), tuple(texts)


def describe(region: Any) -> str:
    verb = "writes" if region.writes else "reads"
    what = "" if region.what == "cells" else f" {region.what}"
    return f"line {region.line}: tcgen05.{region.op} {verb}{what}" + (" (outside)" if region.outside else "")


def labels(regions: Iterable[Any], width: int) -> Iterable[Note]:
    """One label per distinct rectangle, naming the lines (and ops) touching it (``L69 mma D, L105 ld``),
    each on the first row of its rectangle where it covers no label already placed.

    >>> from types import SimpleNamespace as R
    >>> rs = [R(line=n, op="ld", what="cells", lanes=(0, 127), cols=(0, 63)) for n in (5, 6)]
    >>> [(n.x, n.y, n.text) for n in labels(rs, 64)]
    [(32.0, 8.0, 'L5 ld, L6 ld')]
    """
    groups: dict[tuple[int, int, int, int], list[Any]] = {}
    for r in regions:
        a, b = max(0, r.cols[0]), min(width - 1, r.cols[1])
        lo, hi = max(0, r.lanes[0]), min(TMEM_LANES - 1, r.lanes[1])
        wide = (b - a + 1) * WIDTH_IN / width >= LABEL_MIN_IN
        if a <= b and lo <= hi and wide and hi - lo + 1 >= LABEL_MIN_LANES:
            groups.setdefault((a, b, lo, hi), []).append(r)
    placed: list[tuple[float, float, float]] = []
    per_col = width / WIDTH_IN  # columns per inch
    for count, ((a, b, lo, hi), members) in enumerate(
        sorted(groups.items(), key=lambda g: (g[0][0], -g[0][1]))
    ):
        if count == MAX_LABELS:
            return
        names = [
            f"L{r.line} {r.op}" + (f" {r.what}" if r.what not in ("cells", "rows") else "") for r in members
        ]
        text = ", ".join(names[:LABEL_LINES]) + (
            f" +{len(names) - LABEL_LINES}" if len(names) > LABEL_LINES else ""
        )
        x = (a + b + 1) / 2
        half = len(text) * CHAR_IN * per_col / 2
        for y in range(lo + LABEL_STEP, hi + 1, LABEL_STEP):
            if all(abs(y - py) >= LABEL_STEP or x + half < px0 or x - half > px1 for py, px0, px1 in placed):
                placed.append((y, x - half, x + half))
                yield Note(x, float(y), text, 6.5)
                break
