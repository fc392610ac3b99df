"""Figure specs for tcgen05.cp and its decompression, as plain data (no matplotlib).

``copy_spec``: the source matrix on the left, row blocks colored; TMEM's 128
lanes on the right in four warp bands, with every replica of every block drawn
and an arrow from each block to each replica; the peer CTA's TMEM beside it for
``.cta_group::2``.

``decompress_spec``: in the spirit of PTX Figures 194-198: the 16-byte source
chunk with its elements and padding, the 16 containers they widen into, and
one container blown up to its 8 bits for each number type.
"""

from __future__ import annotations

from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.palette import thread_color
from tmemviz.draw.spec import Arrow, Box, FigureSpec, GalleryEntry, Note, Panel
from tmemviz.families.cp.decompress import CONTAINER_BASIS, ELEMENTS, FORMATS, TYPES, Format, NumberType
from tmemviz.families.cp.layout import Copy, make_copy, row_landings
from tmemviz.families.cp.shapes import KIND
from tmemviz.families.cp.views import block_color, copy_caption

SELECT_ROWS = ("group", "rows")
"""An interactive page selects a whole source row block (its words and every replica) on click."""


def span(first: int, last: int) -> str:
    """``32-63`` (inclusive), or ``5`` for one: how a range of rows or lanes is named in ``Box.data``."""
    return f"{first}-{last}" if last > first else str(first)


LANE_H_IN = 0.075
"""Height of one TMEM lane: 128 lanes make a 9.6-inch column."""
WORD_W_IN = 0.42
MIN_BLOCK_LANES = 5
"""A source block is drawn at least this many lanes tall so its label fits."""
BAND_FILL = "#f2f2f2"
HIGHLIGHT = "#d62728"
GAP_WORDS = 5.0
"""Room between the source matrix and TMEM for the arrows, in word widths."""


def copy_spec(cp: Copy, *, row: int | None = None, title: str | None = None) -> FigureSpec:
    """The whole copy; ``row`` additionally marks one source row and every lane it lands in."""
    words = cp.shape.words
    lanes = 128
    lane0, col0 = cp.origin
    tmem_x = [words + GAP_WORDS + c * (words + 2.5) for c in cp.ctas]
    boxes: list[Box] = []
    notes: list[Note] = []
    arrows: list[Arrow] = []
    # Source blocks stacked top to bottom, centered against the 128 lanes.
    heights = [max(b.last - b.first + 1, MIN_BLOCK_LANES) for b in cp.placement.blocks]
    spare = lanes - sum(heights)
    gap = max(0.0, min(4.0, spare / (len(heights) - 1))) if len(heights) > 1 else 0.0
    total = sum(heights) + gap * (len(heights) - 1)
    y = max(0.0, (lanes - total) / 2)
    src_y: list[tuple[float, float]] = []
    for b, (block, h) in enumerate(zip(cp.placement.blocks, heights, strict=True)):
        rows = f"rows {block.first}-{block.last}" if block.last > block.first else f"row {block.first}"
        for w in range(words):
            tip = f"source {rows}, word {w} -> column {col0 + w}"
            data = (("rows", span(block.first, block.last)), ("word", str(w)), SELECT_ROWS)
            boxes.append(Box(w, y, 1, h, block_color(b), "", tip, data=data))
        notes.append(Note(words / 2, y + h / 2, rows, 7.0))
        src_y.append((y, h))
        y += h + gap
    notes.append(Note(words / 2, src_y[0][0] - 3.6, "source matrix (shared memory)", 7.5))
    for cta, x0 in zip(cp.ctas, tmem_x, strict=True):
        who = "TMEM, this CTA (cta 0)" if cta == 0 else "TMEM, peer CTA (cta 1)"
        notes.append(Note(x0 + words / 2, -2.2, who, 7.5))
        for band in range(4):
            for w in range(words):
                tip = f"lanes {32 * band}..{32 * band + 31}, column {col0 + w}"
                boxes.append(Box(x0 + w, 32 * band, 1, 32, BAND_FILL, "", tip))
            notes.append(Note(x0 + words + 0.15, 32 * band + 16, f"warp {band}", 6.5, "left"))
        for b, block in enumerate(cp.placement.blocks):
            n = block.last - block.first + 1
            for start in block.starts:
                lane = lane0 + start
                for w in range(words):
                    tip = (
                        f"cta {cta}, lanes {lane}..{lane + n - 1}, column {col0 + w} <- "
                        f"rows {block.first}..{block.last}, word {w}"
                    )
                    data = (
                        ("lanes", span(lane, lane + n - 1)),
                        ("col", str(col0 + w)),
                        ("cta", str(cta)),
                        ("rows", span(block.first, block.last)),
                        ("word", str(w)),
                        SELECT_ROWS,
                    )
                    boxes.append(Box(x0 + w, lane, 1, n, block_color(b), "", tip, data=data))
                label = f"rows {block.first}-{block.last}" if n > 1 else f"row {block.first}"
                if n >= MIN_BLOCK_LANES:
                    notes.append(Note(x0 + words / 2, lane + n / 2, label, 6.5))
                else:
                    notes.append(
                        Note(x0 + words + 0.15, lane + n / 2, f"{label} -> lane {lane}", 6.0, "left")
                    )
                if cta == 0:
                    sy, sh = src_y[b]
                    arrows.append(Arrow(words + 0.1, sy + sh / 2, x0 - 0.1, lane + n / 2))
    for x0 in tmem_x:
        for band in range(4):
            notes.append(Note(x0 - 0.1, 32 * band + 1.2, str(32 * band), 5.5, "right"))
            notes.append(Note(x0 - 0.1, 32 * band + 31.0, str(32 * band + 31), 5.5, "right"))
    top = src_y[0][0]
    for w in range(words):
        notes.append(Note(w + 0.5, top - 1.3, f"w{w}", 6.0))
    if row is not None:
        _mark_row(cp, row, src_y, tmem_x, boxes, arrows, notes)
    ticks = [(x0 + w + 0.5, str(col0 + w)) for x0 in tmem_x for w in range(words)]
    width = tmem_x[-1] + words + 2.0
    panel = Panel(
        title="",
        width=width,
        height=lanes,
        cell_w_in=WORD_W_IN,
        boxes=tuple(boxes),
        x_ticks=tuple(ticks),
        arrows=tuple(arrows),
        notes=tuple(notes),
        cell_h_in=LANE_H_IN,
    )
    caption = copy_caption(cp)
    for note in cp.notes():
        caption += f". Note: {note}"
    return FigureSpec(title=title or cp.mnemonic, caption=caption, panels=(panel,))


def _mark_row(
    cp: Copy,
    row: int,
    src_y: list[tuple[float, float]],
    tmem_x: list[float],
    boxes: list[Box],
    arrows: list[Arrow],
    notes: list[Note],
) -> None:
    """A red outline on ``row`` in the source and on every lane it lands in, with red arrows."""
    hits = row_landings(cp, row)
    b = cp.placement.block_of(row)
    block = cp.placement.blocks[b]
    sy, sh = src_y[b]
    y = sy + (row - block.first) * sh / (block.last - block.first + 1)
    words = cp.shape.words
    notes.append(Note(-0.2, y + 0.5, f"row {row}", 6.5, "right", HIGHLIGHT))
    boxes.append(Box(0, y, words, max(1.0, sh / (block.last - block.first + 1)), HIGHLIGHT, "", f"row {row}"))
    lane0 = cp.origin[0]
    for lane in sorted({h.lane for h in hits}):
        for cta in cp.ctas:
            x0 = tmem_x[cta]
            boxes.append(Box(x0, lane - lane0 + lane0, words, 1, HIGHLIGHT, "", f"cta {cta}, lane {lane}"))
            notes.append(Note(x0 + words + 0.15, lane + 0.5, f"lane {lane}", 6.5, "left", HIGHLIGHT))
        arrows.append(Arrow(words + 0.1, y + 0.5, tmem_x[0] - 0.1, lane + 0.5, color=HIGHLIGHT))


SELECT_ELEMENT = ("group", "element")
"""Clicking an element or its container selects both."""
BIT_W_IN = 0.085
"""Width of one source bit: a byte is 0.68 inch."""
ROW_H_IN = 0.3


def decompress_spec(fmt: Format, kind: NumberType | None = None, *, title: str | None = None) -> FigureSpec:
    """Source chunk -> containers, then each type's container blown up bit by bit."""
    boxes: list[Box] = []
    notes: list[Note] = []
    arrows: list[Arrow] = []
    data_bits = 8 * fmt.data_bytes
    notes.append(
        Note(
            0, 0.5, "shared memory: one 16-byte chunk, bits from bit 0 of byte 0 (little-endian)", 7.5, "left"
        )
    )
    for byte in range(16):
        pad = byte >= fmt.data_bytes
        label = f"byte {byte}"
        tip = f"source byte {byte}" + (": padding, not copied" if pad else "")
        fill = "#e8e8e8" if pad else "#ffffff"
        boxes.append(Box(8 * byte, 1, 8, 1, fill, label, tip, data=(("byte", str(byte)),)))
    for i in range(ELEMENTS):
        hi, lo = fmt.source_bits(i)
        c_hi, c_lo = fmt.container_bits
        tip = f"element {i}: source bits {hi}:{lo} -> container {i} bits {c_hi}:{c_lo}"
        data = (("element", str(i)), ("bits", f"{hi}:{lo}"), SELECT_ELEMENT)
        boxes.append(Box(lo, 2, fmt.element_bits, 1, thread_color(i), f"e{i}", tip, data=data))
    notes.append(Note(data_bits + 4 * fmt.padding_bytes, 2.5, f"{fmt.padding_bytes} bytes padding", 7.0))
    notes.append(
        Note(
            0,
            6.7,
            "Tensor Memory (above): 16 8-bit containers, container i = byte i % 4 of column i // 4",
            7.5,
            "left",
        )
    )
    for i in range(ELEMENTS):
        hi, lo = fmt.source_bits(i)
        tip = f"container {i}: column {i // 4}, byte {i % 4}"
        data = (("element", str(i)), ("container", str(i)), ("col", str(i // 4)), SELECT_ELEMENT)
        boxes.append(Box(8 * i, 4.6, 8, 1, thread_color(i), f"e{i}", tip, data=data))
        arrows.append(Arrow(lo + fmt.element_bits / 2, 3.05, 8 * i + 4, 4.55, color="#888888"))
    for col in range(4):
        notes.append(Note(32 * col + 16, 6.05, f"column {col} (bytes 0..3 little-endian)", 6.5))
        boxes.append(Box(32 * col, 5.65, 32, 0.1, "#333333", "", f"TMEM column {col}"))
    kinds = [kind] if kind else [t for t in TYPES.values() if t.bits == fmt.element_bits]
    _blowups(fmt, kinds, boxes, notes, arrows)
    height = 12.6
    notes.append(Note(0, height - 0.3, f"Note: {CONTAINER_BASIS}.", 6.5, "left"))
    panel = Panel(
        title="",
        width=128,
        height=height,
        cell_w_in=BIT_W_IN,
        boxes=tuple(boxes),
        arrows=tuple(arrows),
        notes=tuple(notes),
        cell_h_in=ROW_H_IN,
    )
    figures = ", ".join(map(str, fmt.ptx_figures))
    caption = (
        f"tcgen05.cp{fmt.qualifiers}: {ELEMENTS} x {fmt.element_bits}-bit elements ({fmt.data_bytes} bytes) "
        f"followed by {fmt.padding_bytes} bytes of padding become {ELEMENTS} 8-bit containers "
        f"(after PTX ISA 9.7.16.9.1, Figures {figures})."
    )
    default = f"Decompression {fmt.qualifiers}: {fmt.element_bits}-bit -> 8-bit"
    if kind:
        default += f" ({kind.name.upper()})"
    return FigureSpec(title=title or default, caption=caption, panels=(panel,))


def _blowups(
    fmt: Format, kinds: list[NumberType], boxes: list[Box], notes: list[Note], arrows: list[Arrow]
) -> None:
    """For each type: element i's bits (named) -> the 8 bits of container i."""
    bit_w = 5.0  # one bit of the blow-up, in source-bit units
    hi_c, lo_c = fmt.container_bits
    for k, kind in enumerate(kinds):
        x0 = 22 + k * 64
        labels = kind.labels()
        title = f"{kind.name.upper()} (PTX Figure {kind.ptx_figure})"
        notes.append(Note(x0, 7.5, title, 7.5, "left"))
        notes.append(Note(x0 - 1, 8.5, f"element e_i, bits {kind.bits - 1}..0", 6.5, "right"))
        notes.append(Note(x0 - 1, 10.9, "container i, bits 7..0", 6.5, "right"))
        ex = x0 + (7 - hi_c) * bit_w
        for j, name in enumerate(labels):
            bit = kind.bits - 1 - j
            boxes.append(Box(ex + j * bit_w, 8, bit_w, 1, "#fdbf6f", name, f"element bit {bit} ({name})"))
        for j in range(8):
            bit = 7 - j
            inside = lo_c <= bit <= hi_c
            name = labels[hi_c - bit] if inside else "0"
            fill = "#fdbf6f" if inside else "#ffffff"
            boxes.append(Box(x0 + j * bit_w, 10.4, bit_w, 1, fill, name, f"container bit {bit}"))
            if inside:
                arrows.append(Arrow(x0 + j * bit_w + bit_w / 2, 9.05, x0 + j * bit_w + bit_w / 2, 10.35))


CP_FIGURE = "none: PTX 9.7.16.9.2 text"
"""The PTX ISA describes cp placements in words only; it has no figure to cite."""


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """Every cp shape under each multicast it takes, two worked copies, then decompression."""
    return _copy_entries(catalog) + _decompress_entries()


def _copy_entry(stem: str, cp: Copy, note: str, row: int | None = None) -> GalleryEntry:
    return GalleryEntry(stem, f"`{cp.mnemonic}`", CP_FIGURE, note, partial(copy_spec, cp, row=row))


def _copy_entries(catalog: Catalog) -> list[GalleryEntry]:
    """Every cp shape under each multicast it takes; one .cta_group::2 copy; row 40 of the PTX example."""
    out: list[GalleryEntry] = []
    for shape in catalog.shapes(KIND):
        for placement in shape.placements:
            cp = make_copy(shape, placement.multicast)
            stem = "cp." + cp.qualifiers.replace("::", "_")
            lanes = "1 lane" if placement.replicas == 1 else f"{placement.replicas} lanes"
            note = f"each row lands in {lanes}" + (f"; {shape.basis}" if shape.basis else "")
            out.append(_copy_entry(stem, cp, note))
    if catalog.find(KIND, "128x128b") is not None:
        cp = make_copy(catalog.get(KIND, "128x128b"), cta_group=2)
        out.append(_copy_entry("cp.128x128b.cta_group2", cp, "the peer CTA receives the same lanes"))
    if catalog.find(KIND, "64x128b") is not None:
        cp = make_copy(catalog.get(KIND, "64x128b"), "warpx2::01_23")
        out.append(_copy_entry("cp.64x128b.warpx2_01_23.row40", cp, "where source row 40 lands", row=40))
    return out


def _decompress_entries() -> list[GalleryEntry]:
    """4-bit (E2M1) and 6-bit (both types, then E3M2 and E2M3 alone): PTX Figures 194-198."""
    four, six = FORMATS["b4x16_p64"], FORMATS["b6x16_p32"]
    items = (
        ("decompress.b4x16_p64", four, "e2m1", "Figures 194, 195", "E2M1"),
        ("decompress.b6x16_p32", six, None, "Figure 196", "E3M2 and E2M3"),
        ("decompress.b6x16_p32.e3m2", six, "e3m2", "Figure 197", "E3M2"),
        ("decompress.b6x16_p32.e2m3", six, "e2m3", "Figure 198", "E2M3"),
    )
    return [
        GalleryEntry(
            stem,
            f"`tcgen05.cp.<cta_group>.<shape>{fmt.qualifiers}`",
            figure,
            note,
            partial(decompress_spec, fmt, TYPES[kind] if kind else None),
        )
        for stem, fmt, kind, figure, note in items
    ]
