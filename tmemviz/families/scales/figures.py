"""Figure specs of scale factors: TMEM columns by SF ID (after PTX figures 231-239) and one chunk's path.

Plain data built from :mod:`tmemviz.draw.spec`; no matplotlib here. Also the family's gallery entries.
"""

from __future__ import annotations

from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.palette import THREAD_COLORS, thread_color
from tmemviz.draw.spec import (
    CHAR_IN,
    Box,
    Field,
    FigureSpec,
    GalleryEntry,
    Outline,
    Panel,
    chunk_columns,
    detail_mode,
)
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.scales import layout
from tmemviz.families.scales.layout import Scales, make_scales
from tmemviz.families.scales.spelling import mma_statement, sf_id_field, sf_id_unit

PAD_FILL = "#f4f4f4"
COLUMN_LINE = 0.8
COPY_LINE = 2.0


def _data(s: Scales, row: int, kb: int, lane: int, col: int, byte: int) -> tuple[tuple[str, str], ...]:
    return (
        ("row", str(row)),
        ("kblock", str(kb)),
        ("smem", str(layout.smem_byte(s, row, kb))),
        ("lane", str(lane)),
        ("col", str(col)),
        ("byte", str(byte)),
        ("mma", str(kb // s.per_mma)),
        ("group", "row"),  # clicking a scale factor selects every scale factor of its row
    )


def tmem_panels(s: Scales, cta: int = 0, labelled: bool = True) -> tuple[Panel, ...]:
    """Lanes 0..31 down, (column, byte) across; each byte names its SF[row][kblock], colored by the MMA
    that reads it, so the SF IDs read as vertical stripes as in the PTX figures. Unlabelled (a schematic),
    each byte still carries its SF in its tooltip and data."""
    cell_w = max(0.42, 8.5 * CHAR_IN)
    slots = [(s.col0 + c, b) for c in range(s.columns) for b in range(layout.CHUNK_BLOCKS)]
    groups = chunk_columns(list(range(len(slots))), cell_w, layout.CHUNK_BLOCKS * layout.CHUNK_BLOCKS)
    trs = layout.transfers(s)
    panels = []
    for p, group in enumerate(groups, 1):
        lo = group[0]
        boxes = []
        for i in group:
            col, byte = slots[i]
            for lane in range(layout.SUBPARTITION):
                found = layout.source_of(s, lane, col, byte, cta)
                x = i - lo
                if found is None:
                    boxes.append(
                        Box(x, lane, 1, 1, PAD_FILL, "", f"lane {lane}, col {col}, byte {byte}: padding")
                    )
                    continue
                row, kb = found
                mma = kb // s.per_mma
                tip = (
                    f"SF{s.operand}[{row}][{kb}] -> lane {lane} (and +32, +64, +96), col {col}, byte {byte}; "
                    f"MMA {mma}, {sf_id_field(s)} {layout.reads(s)[mma].sf_id}"
                )
                boxes.append(
                    Box(
                        x,
                        lane,
                        1,
                        1,
                        thread_color(mma),
                        f"{row}:{kb}" if labelled else "",
                        tip,
                        data=_data(s, row, kb, lane, col, byte),
                    )
                )
        outlines = []
        for i in group:
            col, byte = slots[i]
            if byte:
                continue
            outlines.append(Outline(i - lo, 0, layout.CHUNK_BLOCKS, layout.SUBPARTITION, COLUMN_LINE))
            if (col - s.col0) % layout.CHUNK_BLOCKS == 0:
                span = layout.CHUNK_BLOCKS * layout.CHUNK_BLOCKS
                outlines.append(Outline(i - lo, 0, span, layout.SUBPARTITION, COPY_LINE))
        title = _tmem_title(s, cta, trs, slots[group[0]][0], slots[group[-1]][0], p, len(groups))
        panels.append(
            Panel(
                title=title,
                width=len(group),
                height=layout.SUBPARTITION,
                cell_w_in=cell_w,
                boxes=tuple(boxes),
                x_ticks=tuple((i - lo + 0.5, f"{slots[i][0]}.{slots[i][1]}") for i in group),
                y_ticks=tuple((lane + 0.5, str(lane)) for lane in range(layout.SUBPARTITION)),
                outlines=tuple(outlines),
                y_label="TMEM lane",
            )
        )
    return tuple(panels)


SCHEMATIC_WIDTH_IN = 16.0
"""Width of one schematic TMEM panel's grid: at most :data:`SCHEMATIC_SLOTS` bytes across."""
SCHEMATIC_SLOTS = 256
"""Bytes (64 columns, 16 copies) per schematic panel: a big map is a few panels of one image each."""
SCHEMATIC_CELL_H_IN = 0.08
FIELD_NAMES = ("row", "kblock", "smem", "lane", "col", "byte", "mma", "sfid")
PAD_COLOR = len(THREAD_COLORS)
"""Palette index of padding bytes (after the eight MMA colors)."""


def _tmem_title(s: Scales, cta: int, trs: tuple, first_col: int, last_col: int, p: int, n: int) -> str:  # type: ignore[type-arg]
    copies = sorted({tr.index for tr in trs if first_col <= tr.col <= last_col})
    return (
        f"TMEM{' of CTA ' + str(cta) if s.cta_group == 2 else ''} columns {first_col}..{last_col} "
        f"(copies {copies[0]}..{copies[-1]}), bytes 0..3 of each; lanes 32..127 hold the same"
        + (f" (panel {p} of {n})" if n > 1 else "")
    )


def tmem_fields(s: Scales, cta: int = 0) -> tuple[Panel, ...]:
    """The TMEM map as a schematic: each panel one image of up to :data:`SCHEMATIC_SLOTS` bytes x 32
    lanes, colored by MMA as the labelled map is, with the same frames per column and per copy; every
    byte still names its SF on hover (the interactive page) and is found by Find."""
    slots = [(s.col0 + c, b) for c in range(s.columns) for b in range(layout.CHUNK_BLOCKS)]
    groups = [
        list(range(i, min(i + SCHEMATIC_SLOTS, len(slots)))) for i in range(0, len(slots), SCHEMATIC_SLOTS)
    ]
    cell_w = min(max(0.42, 8.5 * CHAR_IN), SCHEMATIC_WIDTH_IN / len(groups[0]))
    trs = layout.transfers(s)
    sf_ids = [r.sf_id for r in layout.reads(s)]
    panels = []
    for p, group in enumerate(groups, 1):
        lo, width = group[0], len(group)
        columns: list[list[int]] = [[-1] * (width * layout.SUBPARTITION) for _ in FIELD_NAMES]
        colors = [PAD_COLOR] * (width * layout.SUBPARTITION)
        for x0 in range(0, width, layout.CHUNK_BLOCKS):
            col = slots[lo + x0][0]
            for lane in range(layout.SUBPARTITION):
                # One question per (lane, column): byte b of a column holds block 4 * kchunk + b.
                found = layout.source_of(s, lane, col, 0, cta)
                for byte in range(layout.CHUNK_BLOCKS):
                    i = lane * width + x0 + byte
                    values = [-1, -1, -1, lane, col, byte, -1, -1]
                    if found is not None:
                        row, kb = found[0], found[1] + byte
                        mma = kb // s.per_mma
                        values[:3] = [row, kb, layout.smem_byte(s, row, kb)]
                        values[6:] = [mma, sf_ids[mma]]
                        colors[i] = mma % len(THREAD_COLORS)
                    for k, v in enumerate(values):
                        columns[k][i] = v
        outlines = []
        for x in range(0, width, layout.CHUNK_BLOCKS):
            outlines.append(Outline(x, 0, layout.CHUNK_BLOCKS, layout.SUBPARTITION, COLUMN_LINE))
            if (slots[lo + x][0] - s.col0) % layout.CHUNK_BLOCKS == 0:
                span = layout.CHUNK_BLOCKS * layout.CHUNK_BLOCKS
                outlines.append(Outline(x, 0, span, layout.SUBPARTITION, COPY_LINE))
        field = Field(
            0,
            0,
            width,
            layout.SUBPARTITION,
            FIELD_NAMES,
            tuple(map(tuple, columns)),
            tuple(colors),
            (*THREAD_COLORS, PAD_FILL),
            f"SF{s.operand}[{{row}}][{{kblock}}] -> lane {{lane}} (and +32, +64, +96), col {{col}}, "
            f"byte {{byte}}; MMA {{mma}}, {sf_id_field(s)} {{sfid}}; smem byte {{smem}}",
            tips=((PAD_COLOR, "lane {lane}, col {col}, byte {byte}: padding"),),
            group=("row",),
        )
        span = layout.CHUNK_BLOCKS * layout.CHUNK_BLOCKS
        panels.append(
            Panel(
                title=_tmem_title(s, cta, trs, slots[group[0]][0], slots[group[-1]][0], p, len(groups)),
                width=width,
                height=layout.SUBPARTITION,
                cell_w_in=cell_w,
                boxes=(),
                fields=(field,),
                x_ticks=tuple(
                    (x + layout.CHUNK_BLOCKS / 2, str(slots[lo + x][0])) for x in range(0, width, span)
                ),
                y_ticks=tuple((lane + 0.5, str(lane)) for lane in (0, 8, 16, 24, 31)),
                outlines=tuple(outlines),
                cell_h_in=SCHEMATIC_CELL_H_IN,
                y_label="TMEM lane",
            )
        )
    return tuple(panels)


def chunk_panel(s: Scales, index: int = 0, cta: int = 0) -> Panel:
    """One copy's 512-byte source chunk: 32 rows of 16 bytes, word c of row r going to column col+c."""
    tr = layout.transfers(s)[index]
    cell_w = max(0.42, 8.5 * CHAR_IN)
    boxes = []
    for r in range(layout.SUBPARTITION):
        for x in range(layout.ROW_BYTES):
            word, byte = divmod(x, layout.CHUNK_BLOCKS)
            within = layout.CHUNK_ROWS * tr.tile + layout.SUBPARTITION * word + r
            row = within + (cta * s.rows if s.operand == "A" else 0)
            kb = layout.CHUNK_BLOCKS * tr.kchunk + byte
            smem = tr.smem + layout.ROW_BYTES * r + x
            col = tr.col + word
            if within >= s.rows:
                boxes.append(
                    Box(x, r, 1, 1, PAD_FILL, "", f"smem byte {smem}: padding -> lane {r}, col {col}")
                )
                continue
            lanes = f"{r}, {r + 32}, {r + 64}, {r + 96}"
            tip = f"smem byte {smem} = SF{s.operand}[{row}][{kb}] -> lanes {lanes}, col {col}"
            boxes.append(
                Box(x, r, 1, 1, thread_color(word), f"{row}:{kb}", tip, data=_data(s, row, kb, r, col, byte))
            )
    outlines = tuple(
        Outline(layout.CHUNK_BLOCKS * w, 0, layout.CHUNK_BLOCKS, layout.SUBPARTITION, COPY_LINE)
        for w in range(4)
    )
    where = f" in CTA {cta}" if s.cta_group == 2 else ""
    return Panel(
        title=(
            f"copy {tr.index}{where}: shared-memory bytes {tr.smem}..{tr.smem + layout.CHUNK_BYTES - 1} "
            f"as 32 source rows of 16 bytes; word w of row r -> lanes r, r+32, r+64, r+96, column {tr.col}+w"
        ),
        width=layout.ROW_BYTES,
        height=layout.SUBPARTITION,
        cell_w_in=cell_w,
        boxes=tuple(boxes),
        x_ticks=tuple((x + 0.5, f"w{x // 4}.{x % 4}") for x in range(layout.ROW_BYTES)),
        y_ticks=tuple((r + 0.5, str(r)) for r in range(layout.SUBPARTITION)),
        outlines=outlines,
        y_label="source row (lane)",
    )


def scales_spec(s: Scales, *, cta: int = 0, title: str | None = None, detail: str = "auto") -> FigureSpec:
    """The TMEM picture (every column, by SF ID) and the path of the first chunk; ``detail`` decides
    whether the TMEM bytes are labelled (``auto``: when there are at most LABEL_LIMIT labels)."""
    labels = layout.SUBPARTITION * layout.CHUNK_BLOCKS * s.columns + layout.SUBPARTITION * layout.ROW_BYTES
    labelled = detail_mode(detail, labels) == "all"
    caption = (
        f"Cells 'row:kblock' = SF{s.operand}[row][kblock]; TMEM colored by the MMA that reads it "
        f"({mma_statement(s)}: {sf_id_field(s)} picks a {sf_id_unit(s)} of each column); "
        f"thick frames = one tcgen05.cp.32x128b.warpx4 (4 columns). Chunk colored by source word "
        f"(= TMEM column). Shared memory: CUTLASS's 128-row x 4-block chunks of 512 bytes"
    )
    if not labelled:
        caption += (
            "; TMEM as a schematic (one image per 64 columns, x ticks at each copy's first column): "
            "hover or Find a byte on the -o FILE.html page for its SF, or label every byte with --detail all"
        )
    rows = f"M = {s.extent}" if s.operand == "A" else f"N = {s.extent}"
    name = title or (
        f"SF{s.operand} {rows}, K = {s.k}, block{s.sf_vec}: .kind::{s.kind} .scale_vec::{s.scale_vec}, "
        f".cta_group::{s.cta_group}"
    )
    tmem = tmem_panels(s, cta) if labelled else tmem_fields(s, cta)
    return FigureSpec(title=name, caption=caption, panels=(*tmem, chunk_panel(s, cta=cta)))


GALLERY = (
    ("A", "mxf8f6f4", 32, 128, 256, "MXFP8: 8 MMAs of K = 32, one byte each (.scale_vec::1X)"),
    ("A", "mxf4", 32, 128, 256, "MXFP4: 4 MMAs of K = 64, a half-word each (.scale_vec::2X)"),
    (
        "B",
        "mxf4nvf4",
        16,
        256,
        64,
        "NVFP4: one MMA of K = 64 reads a word (.scale_vec::4X, block16); N = 256 takes two chunks",
    ),
)


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """MXFP8 (1X), MXFP4 (2X) and NVFP4 (4X, block16)."""
    out = []
    for operand, kind, vec, extent, k, note in GALLERY:
        s = make_scales(operand, kind, vec, 1, extent, k, catalog.get(CP, layout.COPY_SHAPE))
        out.append(
            GalleryEntry(
                f"scales.{kind}.sf{operand.lower()}.block{vec}",
                f"`tcgen05.cp.cta_group::1.32x128b.warpx4` -> `{mma_statement(s).split(' ')[0]}`",
                "after Figures 231-239",
                note,
                partial(scales_spec, s),
            )
        )
    return out
