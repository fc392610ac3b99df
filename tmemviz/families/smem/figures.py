"""Figure specs of shared-memory canonical layouts, in the style of PTX ISA figures 188-192.

Plain data built from :mod:`tmemviz.draw.spec`; no matplotlib here. One box per element (rows M/N
top to bottom, cols K left to right) labelled with its byte offset, filled by its 16-byte chunk's
place in a 128-byte line, so a swizzle shows as colors permuted from row to row (PTX 9.7.16.3: the
swizzle XORs the chunk bits with the row bits). Thin frames outline each 16-byte chunk, thick ones
each swizzle atom (8 rows of the swizzle width). Also the family's gallery entries.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.palette import THREAD_COLORS
from tmemviz.draw.spec import (
    CHAR_IN,
    PANEL_WIDTH_IN,
    Box,
    FigureSpec,
    GalleryEntry,
    Note,
    Outline,
    Panel,
    chunk_columns,
    detail_mode,
    field_of,
)
from tmemviz.families.smem.answers import BASE_NOTE, offset_text
from tmemviz.families.smem.answers import title as layout_title
from tmemviz.families.smem.descriptor import UNUSED_LBO, encode_layout
from tmemviz.families.smem.examples import PTX_FIGURES, figure_189_corrected, ptx_figure
from tmemviz.families.smem.layout import CHUNK_BYTES, SmemLayout, atom_extent, dense_tile, elements_per_chunk
from tmemviz.families.smem.shapes import KIND
from tmemviz.families.smem.views import LINE_CHUNKS, cell_label, chunk_color

CHUNK_LINE_PT = 1.5
ATOM_LINE_PT = 3.0


def tooltip(row: int, col: int, byte: int) -> str:
    """``row 3, col 8 -> byte 432``: what hovering over an element says."""
    return f"row {row}, col {col} -> byte {byte}"


def _frames(
    cells: list[tuple[int, int, int]], slot: dict[int, int], unit: int, width: float
) -> list[Outline]:
    """One frame per group of ``unit`` bytes (a chunk or an atom) whose elements fill a rectangle of
    this panel; a group that is not a rectangle here (cut by the panel, or sparse) gets none."""
    groups: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for r, c, b in cells:
        if c in slot:
            groups[b // unit].append((r, slot[c]))
    frames = []
    for members in groups.values():
        rows = [r for r, _ in members]
        xs = [x for _, x in members]
        h, w = max(rows) - min(rows) + 1, max(xs) - min(xs) + 1
        if h * w == len(members):
            frames.append(Outline(min(xs), min(rows), w, h, width))
    return frames


def caption(layout: SmemLayout) -> str:
    """The CuTe expression, LBO/SBO and the descriptor."""
    return (
        f"{layout.notation()}; {offset_text('LBO', layout.lbo, unused=UNUSED_LBO)}, "
        f"{offset_text('SBO', layout.sbo)}; descriptor 0x{encode_layout(layout):016x} at address 0"
    )


LEGEND = (
    f"Each cell: the element's byte offset ({BASE_NOTE}); color: its 16-byte chunk's place in a "
    "128-byte line, so the swizzle shows as permuted colors; thin frames: 16-byte chunks; thick frames: "
    "swizzle atoms (8 rows of the swizzle width)."
)


def _text_notes(
    texts: list[str], top: float, width_in: float, cell_w: float, spacing: float = 0.8
) -> list[Note]:
    """``texts`` wrapped to the grid's width, one :class:`Note` per line from row ``top`` down,
    ``spacing`` rows apart."""
    per_line = max(40, int(width_in / CHAR_IN))
    lines = [line for text in texts for line in textwrap.wrap(text, per_line)]
    return [Note(0, top + spacing * i, line, 6.5, "left") for i, line in enumerate(lines)]


def layout_spec(
    layout: SmemLayout,
    *,
    label: str = "byte",
    title: str | None = None,
    note: str = "",
    detail: str = "auto",
) -> FigureSpec:
    """Every element as one box; columns split into panels of whole chunks (K-major) or K groups.

    ``detail`` (``auto``/``all``/``schematic``): beyond :data:`~tmemviz.draw.spec.LABEL_LIMIT` elements
    ``auto`` draws :func:`schematic_spec`.
    """
    cells = list(layout.cells())
    if detail_mode(detail, len(cells)) == "schematic":
        return schematic_spec(layout, label=label, title=title, note=note)
    texts = [LEGEND, f"Note: {note}"] if note else [LEGEND]
    panels = _grid_panels(layout, cells, label, layout.rows, layout.cols, texts)
    return FigureSpec(title=title or layout_title(layout), caption=caption(layout), panels=tuple(panels))


def _grid_panels(
    layout: SmemLayout,
    cells: list[tuple[int, int, int]],
    label: str,
    rows: int,
    columns: int,
    texts: list[str],
) -> list[Panel]:
    """Boxes for ``cells`` (rows ``0..rows-1``, cols ``0..columns-1``), ``texts`` under the last panel."""
    chars = max(len(cell_label(b, label)) for _, _, b in cells)
    cell_w = max(0.42, (chars + 1.5) * CHAR_IN)
    # Keep whole swizzle atoms in a panel when one fits (K-major atoms are W bytes of K wide), else
    # whole 16-byte chunks; MN-major atoms are 8 K columns wide.
    atom_cols = atom_extent(layout.major, layout.swizzle, layout.dtype)[1]
    group = atom_cols if atom_cols * cell_w <= PANEL_WIDTH_IN else elements_per_chunk(layout.dtype)
    panels = []
    chunks = chunk_columns(list(range(columns)), cell_w, group)
    for n, cols in enumerate(chunks, 1):
        slot = {c: i for i, c in enumerate(cols)}
        boxes = tuple(
            Box(
                slot[c],
                r,
                1,
                1,
                chunk_color(b),
                cell_label(b, label),
                tooltip(r, c, b),
                data=(
                    ("row", str(r)),
                    ("col", str(c)),
                    ("byte", str(b)),
                    ("chunk", str(b // CHUNK_BYTES)),
                    ("group", "chunk"),  # clicking an element selects its 16-byte chunk
                ),
            )
            for r, c, b in cells
            if c in slot
        )
        outlines = _frames(cells, slot, CHUNK_BYTES, CHUNK_LINE_PT)
        outlines += _frames(cells, slot, layout.swizzle.repeat_bytes, ATOM_LINE_PT)
        panel_title = f"cols (K) {cols[0]}..{cols[-1]}"
        if len(chunks) > 1:
            panel_title += f" (panel {n} of {len(chunks)})"
        notes: list[Note] = []
        if n == len(chunks) and texts:
            notes = _text_notes(texts, rows + 0.9, len(cols) * cell_w, cell_w)
        panels.append(
            Panel(
                title=panel_title,
                width=len(cols),
                height=rows + (0.8 * len(notes) + 0.5 if notes else 0),
                cell_w_in=cell_w,
                boxes=boxes,
                x_ticks=tuple((i + 0.5, str(c)) for i, c in enumerate(cols)),
                y_ticks=tuple((r + 0.5, str(r)) for r in range(rows)),
                notes=tuple(notes),
                outlines=tuple(outlines),
                y_label="row (M/N)",
            )
        )
    return panels


SCHEMATIC_CELL_IN = 0.16
SCHEMATIC_LEGEND = (
    "Schematic: the top panel writes out every element of the first swizzle atom; below, every element "
    "as one colored cell (its 16-byte chunk's place in a 128-byte line, as above), thick frames: swizzle "
    "atoms, each labelled with its first byte offset. Hover or search the -o FILE.html page for any "
    "element's byte offset, or draw every label with --detail all."
)


def schematic_spec(
    layout: SmemLayout, *, label: str = "byte", title: str | None = None, note: str = ""
) -> FigureSpec:
    """A tile too big to label: its first swizzle atom in full, then every element as one colored map
    with atom frames, row/col ranges, each atom's first byte, and a legend."""
    cells = list(layout.cells())
    atom_rows, atom_cols = atom_extent(layout.major, layout.swizzle, layout.dtype)
    rows, cols = min(atom_rows, layout.rows), min(atom_cols, layout.cols)
    key = [(r, c, b) for r, c, b in cells if r < rows and c < cols]
    key_panels = [
        Panel(**{**p.__dict__, "title": f"first swizzle atom in full: rows 0..{rows - 1}, {p.title}"})
        for p in _grid_panels(layout, key, label, rows, cols, [])
    ]
    texts = [SCHEMATIC_LEGEND, f"Note: {note}"] if note else [SCHEMATIC_LEGEND]
    return FigureSpec(
        title=title or layout_title(layout),
        caption=caption(layout),
        panels=(*key_panels, _map_panel(layout, cells, (atom_rows, atom_cols), texts)),
    )


def _map_panel(
    layout: SmemLayout, cells: list[tuple[int, int, int]], atom: tuple[int, int], texts: list[str]
) -> Panel:
    """Every element as one cell of a :class:`Field` (row-major, as ``layout.cells()`` yields them)."""
    cell_w = min(SCHEMATIC_CELL_IN, PANEL_WIDTH_IN / layout.cols)
    field = field_of(
        ({"row": r, "col": c, "byte": b, "chunk": b // CHUNK_BYTES} for r, c, b in cells),
        ("row", "col", "byte", "chunk"),
        row="row",
        col="col",
        color=lambda e: e["chunk"] % LINE_CHUNKS,
        palette=THREAD_COLORS,  # chunk_color's palette, indexed by the chunk's place in its line
        tooltip="row {row}, col {col} -> byte {byte}",
        group=("chunk",),  # clicking an element selects its 16-byte chunk, as in the full grid
    )
    slot = {c: c for c in range(layout.cols)}
    outlines = _frames(cells, slot, layout.swizzle.repeat_bytes, ATOM_LINE_PT)
    byte_at = {(r, c): b for r, c, b in cells}
    # Each atom's first byte in its top-left corner, where there is room for the number.
    firsts = [
        Note(o.x + 0.3, o.y + 0.2 / cell_w, str(byte_at[(int(o.y), int(o.x))]), 6.0, "left")
        for o in outlines
        if o.w * cell_w >= 0.45 and o.h * cell_w >= 0.4
    ]
    lines = _text_notes(texts, layout.rows + 1.2 / cell_w * 0.5, max(layout.cols * cell_w, 6.0), cell_w)
    lines = [
        Note(n.x, layout.rows + (0.25 + 0.13 * i) / cell_w, n.text, n.size, n.ha) for i, n in enumerate(lines)
    ]
    step_r = max(1, atom[0] if atom[0] < layout.rows else layout.rows // 8)
    step_c = max(1, atom[1] if atom[1] < layout.cols else layout.cols // 8)
    return Panel(
        title=f"every element: rows 0..{layout.rows - 1}, cols (K) 0..{layout.cols - 1}",
        width=layout.cols,
        height=layout.rows + (0.25 + 0.13 * len(lines)) / cell_w,
        cell_w_in=cell_w,
        boxes=(),
        x_ticks=tuple((c + 0.5, str(c)) for c in range(0, layout.cols, step_c)),
        y_ticks=tuple((r + 0.5, str(r)) for r in range(0, layout.rows, step_r)),
        notes=(*firsts, *lines),
        outlines=tuple(outlines),
        y_label="row (M/N)",
        cell_h_in=cell_w,  # square cells: the map keeps the tile's proportions
        fields=(field,),
    )


FIG_189_NOTE = (
    "as printed, figure 189's K mode (4,4):(1,4) puts four 16-byte chunks in a 32-byte row, so its "
    "256 elements land on only 136 byte offsets; drawn here with K chunks (4,2,2):(1,4,128), the "
    "CUTLASS dense tile of the same size and SBO"
)
"""Why the gallery shows figure 189 corrected (see :func:`.examples.figure_189_corrected`)."""

TILES: tuple[tuple[str, str, str, int, int], ...] = (
    ("K", "128B", "bf16", 128, 64),
    ("MN", "128B", "bf16", 128, 32),
)
"""Dense 128B-swizzle tiles of the gallery: the common CUTLASS SM100 bf16 operand tiles."""


def _entry(stem: str, layout: SmemLayout, figure: str, title: str, note: str = "") -> GalleryEntry:
    description = f"{layout_title(layout)}: `{layout.notation()}`" + (f"; {note}" if note else "")
    instruction = f"`tcgen05.mma` shared-memory operand, descriptor `0x{encode_layout(layout):016x}`"
    return GalleryEntry(
        stem, instruction, figure, description, partial(layout_spec, layout, title=title, note=note)
    )


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """PTX figures 188, 190-192 as printed, 189 corrected, the dense 128B bf16 tiles and the K-major one's
    descriptor."""
    known = {s.name for s in catalog.shapes(KIND)}
    out: list[GalleryEntry] = []
    for number, (major, sw, dtype, *_rest) in PTX_FIGURES.items():
        if sw not in known:
            continue
        stem = f"smem.{major}.{sw}.{dtype}.fig{number}"
        if number == 189:
            layout = figure_189_corrected()
            title = f"PTX Figure 189, corrected: {layout_title(layout)}"
            out.append(_entry(stem + "-corrected", layout, "Figure 189 (corrected)", title, FIG_189_NOTE))
            continue
        layout = ptx_figure(number)
        out.append(_entry(stem, layout, f"Figure {number}", f"PTX Figure {number}: {layout_title(layout)}"))
    for major, sw, dtype, rows, cols in TILES:
        if sw in known:
            layout = dense_tile(major, sw, dtype, rows, cols)
            stem = f"smem.{major}.{sw}.{dtype}.{rows}x{cols}"
            out.append(_entry(stem, layout, "none: CUTLASS SM100 dense tile", layout_title(layout)))
    if "128B" in known:  # the descriptor of the dense K-major 128B tile above, as its bit fields
        from tmemviz.families.smem.bitfields import descriptor_spec
        from tmemviz.families.smem.descriptor import decode

        value = encode_layout(dense_tile("K", "128B", "bf16", 128, 64))
        out.append(
            GalleryEntry(
                f"desc.0x{value:016x}",
                f"`tcgen05.mma` shared-memory descriptor `0x{value:016x}`",
                "after the shared-memory descriptor table (9.7.16.3)",
                "the descriptor of smem.K.128B.bf16.128x64 at address 0: SBO 1024, LBO unused (16), 128B",
                partial(descriptor_spec, decode(value)),
            )
        )
    return out
