"""What shared-memory answers look like in a terminal: the element grid and the descriptor's fields.

Plain data (:mod:`tmemviz.draw.table` views); nothing here owns a console. Sentences and records
live in :mod:`tmemviz.families.smem.answers`.
"""

from __future__ import annotations

from tmemviz.draw.palette import thread_color
from tmemviz.draw.table import BOLD, DIM, ITALIC, Column, Styled, Table, View, on
from tmemviz.families.smem.answers import summary_lines
from tmemviz.families.smem.descriptor import Descriptor
from tmemviz.families.smem.layout import CHUNK_BYTES, SmemLayout, elements_per_chunk
from tmemviz.families.smem.shapes import Swizzle, find_swizzle

LABELS = ("byte", "chunk")
"""What each grid cell shows: the element's byte offset, or its 16-byte chunk number."""

LINE_CHUNKS = 8
"""Chunks of one 128-byte line: the widest swizzle permutes chunks within it (PTX 9.7.16.3)."""


def chunk_color(byte: int) -> str:
    """The fill of an element: its chunk's place in a 128-byte line, so a swizzle permutes colors.

    >>> chunk_color(0) == chunk_color(128), chunk_color(0) == chunk_color(16)
    (True, False)
    """
    return thread_color(byte // CHUNK_BYTES % LINE_CHUNKS)


def cell_label(byte: int, label: str) -> str:
    """``1040`` (byte) or ``65`` (chunk)."""
    return str(byte) if label == "byte" else str(byte // CHUNK_BYTES)


def grid_caption(label: str) -> str:
    what = (
        "byte offset of the element's first byte"
        if label == "byte"
        else "the element's 16-byte chunk (byte // 16)"
    )
    return (
        f"each cell: {what}; color: the chunk's place in its 128-byte line (chunk % 8), so a swizzle "
        "shows as permuted colors"
    )


def layout_view(layout: SmemLayout, width: int, label: str = "byte") -> View:
    """The summary lines, then rows (M/N) x cols (K), split into column blocks that fit ``width``.

    A block holds whole 16-byte chunks when they lie along K (K-major), so no chunk is cut.
    """
    bytes_at = {(r, c): b for r, c, b in layout.cells()}
    cell_w = max(len(str(layout.cols - 1)), *(len(cell_label(b, label)) for b in bytes_at.values()))
    row_w = max(3, len(str(layout.rows - 1)))
    per_block = max(1, (width - row_w - 3) // (cell_w + 3))
    group = elements_per_chunk(layout.dtype) if layout.major == "K" else 1
    if per_block > group:
        per_block -= per_block % group
    starts = list(range(0, layout.cols, per_block))
    parts: list[Table | Styled] = [
        Styled(line, BOLD if i == 0 else "") for i, line in enumerate(summary_lines(layout))
    ]
    for n, first in enumerate(starts, 1):
        cols = range(first, min(first + per_block, layout.cols))
        title = f"cols (K) {cols[0]}..{cols[-1]}" + (
            f" (block {n} of {len(starts)})" if len(starts) > 1 else ""
        )
        columns = [Column("row", justify="right", style=BOLD, width=row_w)]
        columns += [Column(str(c), justify="right", no_wrap=True, width=cell_w) for c in cols]
        rows = []
        for r in range(layout.rows):
            cells = [
                Styled(cell_label(bytes_at[(r, c)], label), on(chunk_color(bytes_at[(r, c)]))) for c in cols
            ]
            rows.append((str(r), *cells))
        parts.append(Table(tuple(columns), tuple(rows), title=title, show_edge=False))
    parts.append(Styled(grid_caption(label), ITALIC))
    return tuple(parts)


_LBO_MODES = {0: "relative byte offset", 1: "absolute address"}


def descriptor_view(desc: Descriptor) -> View:
    """One row per field of the descriptor table (PTX 9.7.16.3), raw and in bytes; problems are the
    caller's to print (the CLI writes them as warnings)."""

    def enc(value: int) -> str:
        return f"{value} bytes (encoded {value >> 4})"

    swizzle = "not defined" if desc.swizzle is None else desc.swizzle
    if desc.swizzle is not None and desc.swizzle != "128B_base32B":
        swizzle += f" ({find_swizzle(desc.swizzle).notation()})"
    elif desc.swizzle == "128B_base32B":
        swizzle += " (Swizzle<2,5,2>, MN-major only)"
    rows = [
        ("0-13", "start address", enc(desc.start_address)),
        ("16-29", "LBO", enc(desc.lbo)),
        ("32-45", "SBO", enc(desc.sbo)),
        ("46-48", "version", str(desc.version)),
        ("49-51", "base offset", str(desc.base_offset)),
        ("52", "LBO mode", f"{desc.lbo_mode} ({_LBO_MODES[desc.lbo_mode]})"),
        ("61-63", "swizzle", f"{desc.swizzle_code} = {swizzle}"),
    ]
    columns = (Column("bits", justify="right", style=DIM), Column("field", style=BOLD), Column("value"))
    return (Table(columns, tuple(rows), title=f"descriptor 0x{desc.value:016x}", title_justify="left"),)


def swizzles_view(swizzles: tuple[Swizzle, ...]) -> View:
    """Every swizzle mode: its CuTe swizzle, atom, repeat, descriptor code and the majors it serves."""
    columns = (
        Column("swizzle", no_wrap=True),
        Column("CuTe", no_wrap=True),
        Column("atom row", justify="right", no_wrap=True),
        Column("repeat", justify="right", no_wrap=True),
        Column("desc", justify="right", no_wrap=True),
        Column("majors", no_wrap=True),
    )
    rows = tuple(
        (
            s.name,
            s.notation(),
            f"{s.atom_bytes} B",
            f"{s.repeat_bytes} B",
            str(s.descriptor_code),
            ", ".join(s.majors),
        )
        for s in swizzles
    )
    table = Table(
        columns,
        rows,
        title="shared-memory swizzle modes (tmemviz smem)",
        caption=(
            "an atom is 8 rows of 'atom row' bytes; the XOR pattern repeats every 'repeat' bytes; desc = the "
            "shared-memory descriptor's bits 61-63 (PTX 9.7.16.3)."
        ),
        caption_justify="left",
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    return (table,)
