"""What tcgen05.cp answers look like: row blocks, the four-warp-band lane grid, decompression.

Plain data (:mod:`tmemviz.draw.table` views); nothing here owns a console.
Sentences and records live in :mod:`tmemviz.families.cp.answers`.
"""

from __future__ import annotations

from tmemviz.draw.palette import thread_color
from tmemviz.draw.table import BOLD, DIM, ITALIC, WARN, Cell, Column, Styled, Table, View, on
from tmemviz.families.cp.decompress import ELEMENTS, Format, NumberType, tmem_position, unpack, widen
from tmemviz.families.cp.layout import Copy, Landing, row_block, source_bits
from tmemviz.families.cp.shapes import CopyShape
from tmemviz.tmem import warp_of

BANDS = 4
BAND_LANES = 32


def block_color(block: int) -> str:
    """Row blocks share the thread palette: block ``b`` is drawn like thread ``b``."""
    return thread_color(block)


def copy_caption(cp: Copy) -> str:
    """The PTX instruction, how columns relate to words, and how to read the coordinates."""
    words = cp.shape.words
    col0 = cp.origin[1]
    column = f"{col0}+w" if col0 else "w"
    text = f"{cp.mnemonic}: word w (32 bits) of a source row lands in column {column}, w = 0..{words - 1}"
    if cp.decompress is not None:
        fmt = cp.decompress
        text += (
            f"; decompressed, each 16-byte source chunk ({ELEMENTS} x {fmt.element_bits}-bit elements + "
            f"{fmt.padding_bytes} bytes padding) fills 4 columns with 16 8-bit containers"
        )
    if cp.taddr is None:
        text += "; lanes and columns relative to taddr"
    else:
        text += f"; absolute lanes and columns, taddr = lane {cp.taddr[0]}, column {cp.taddr[1]}"
    if cp.cta_group == 2:
        text += "; .cta_group::2: the peer CTA (cta 1) receives the same lanes and columns"
    return text


def blocks_view(cp: Copy) -> Table:
    """One line per row block: which lanes (and warps) its rows land in."""
    lane0 = cp.origin[0]
    rows: list[tuple[Cell, ...]] = []
    for b, block in enumerate(cp.placement.blocks):
        first_last = f"{block.first}-{block.last}" if block.last > block.first else str(block.first)
        spans = [(lane0 + s, lane0 + s + block.last - block.first) for s in block.starts]
        lanes = ", ".join(f"{a}-{z}" if z > a else str(a) for a, z in spans)
        warps = ", ".join(
            str(w) for w in sorted({w for a, z in spans for w in range(warp_of(a), warp_of(z) + 1)})
        )
        rows.append((Styled(first_last, on(block_color(b))), lanes, warps))
    columns = (
        Column("source rows", no_wrap=True),
        Column("lanes", no_wrap=True),
        Column("warps", no_wrap=True),
    )
    return Table(
        columns, tuple(rows), title="source rows -> TMEM lanes", title_justify="left", show_edge=False
    )


def band_grid(cp: Copy, landings: tuple[Landing, ...]) -> Table:
    """Lanes as 32 rows x 4 warp bands; each cell names the source row that lands there."""
    row_at = {x.lane: x.row for x in landings if x.cta == 0 and x.word == 0}
    title = "source row in each TMEM lane, by warp band" + (
        " (the peer CTA: the same)" if cp.cta_group == 2 else ""
    )
    columns = [Column("i", justify="right", style=BOLD)]
    columns += [
        Column(f"warp {w}\nlane {w * BAND_LANES}+i", justify="center", no_wrap=True) for w in range(BANDS)
    ]
    rows: list[tuple[Cell, ...]] = []
    for i in range(BAND_LANES):
        lanes = [w * BAND_LANES + i for w in range(BANDS)]
        if not any(lane in row_at for lane in lanes):
            continue
        cells: list[Cell] = [str(i)]
        for lane in lanes:
            if lane in row_at:
                row = row_at[lane]
                cells.append(Styled(f"row {row}", on(block_color(row_block(cp, row)))))
            else:
                cells.append(Styled("·", DIM))
        rows.append(tuple(cells))
    return Table(tuple(columns), tuple(rows), title=title, title_justify="left", show_edge=False)


def copy_view(cp: Copy, landings: tuple[Landing, ...]) -> View:
    """The block summary, the band grid and the caption (the CLI prints :meth:`Copy.notes` after it)."""
    parts: list[Table | Styled] = [blocks_view(cp), band_grid(cp, landings)]
    if cp.decompress is not None:
        parts.append(decompressed_words_view(cp))
    parts.append(Styled(copy_caption(cp), ITALIC))
    return tuple(parts)


def decompressed_words_view(cp: Copy) -> Table:
    """For each widened word of a row: its containers' elements and the source bits they come from."""
    columns = (
        Column("column", justify="right"),
        Column("elements (chunk)", no_wrap=True),
        Column("source row bits", justify="right", no_wrap=True),
    )
    rows = []
    for word in range(cp.shape.words):
        hi, lo = source_bits(cp, word)
        first = 4 * (word % 4)
        rows.append((f"{cp.origin[1] + word}", f"{first}..{first + 3} ({word // 4})", f"{hi}:{lo}"))
    return Table(columns, tuple(rows), title="each row, decompressed", title_justify="left", show_edge=False)


def copy_shapes_view(copies: tuple[CopyShape, ...]) -> View:
    """Every cp shape with its multicast options, replicas and CUTLASS atom names."""
    names = ("shape", "multicast", "rows", "bits", "replicas", "CUTLASS SM100_UTCCP_*")
    columns = tuple(
        Column(n, no_wrap=True, justify="right" if n in ("rows", "bits", "replicas") else "left")
        for n in names
    )
    rows = []
    for s in copies:
        for p in s.placements:
            rows.append(
                (
                    s.ptx_name + ("*" if s.basis else ""),
                    f".{p.multicast}" if p.multicast else "-",
                    str(s.rows),
                    str(s.row_bits),
                    str(p.replicas),
                    (p.cutlass or "-").removeprefix("SM100_UTCCP_"),
                )
            )
    table = Table(
        columns,
        tuple(rows),
        title="tcgen05.cp shapes",
        caption=(
            "rows x bits of the source matrix; replicas = lanes of one CTA each row lands in "
            "(.cta_group::2 doubles them into the peer CTA). Every shape also takes "
            ".b8x16.b4x16_p64 / .b8x16.b6x16_p32 decompression."
        ),
        caption_justify="left",
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    notes = [Styled(f"* {s.ptx_name}: {s.basis}", WARN) for s in copies if s.basis]
    return (table, *notes)


def _bits(value: int, width: int) -> str:
    return format(value, f"0{width}b")


def container_pattern(fmt: Format, kind: NumberType | None) -> str:
    """``0 0 s e1 e0 m0 0 0``: the 8 container bits from bit 7 down, with the element's bit names."""
    labels = kind.labels() if kind else tuple(f"b{i}" for i in reversed(range(fmt.element_bits)))
    hi, lo = fmt.container_bits
    return " ".join("0" if not lo <= bit <= hi else labels[hi - bit] for bit in reversed(range(8)))


def decompress_view(fmt: Format, kind: NumberType | None, chunk: bytes | None) -> View:
    """Element by element: source bits, TMEM column and byte, container bits (and values, if given).

    The CLI prints :data:`CONTAINER_BASIS` after it, as one unwrapped line.
    """
    title = (
        f".b8x16.{fmt.name}: {ELEMENTS} x {fmt.element_bits}-bit elements ({fmt.data_bytes} bytes) + "
        f"{fmt.padding_bytes} bytes padding -> {ELEMENTS} x 8-bit containers "
        f"(PTX Figures {', '.join(map(str, fmt.ptx_figures))})"
    )
    columns = [
        Column("elem", justify="right"),
        Column("source bits", justify="right", no_wrap=True),
        Column("byte[bits]", no_wrap=True),
        Column("TMEM col.byte", justify="right", no_wrap=True),
    ]
    codes = unpack(fmt, chunk) if chunk is not None else None
    out = widen(fmt, chunk) if chunk is not None else None
    if codes is not None:
        columns += [Column("code", no_wrap=True), Column("container", no_wrap=True)]
        if kind is not None:
            columns.append(Column(kind.name.upper(), justify="right"))
    rows = []
    for i in range(ELEMENTS):
        hi, lo = fmt.source_bits(i)
        col, byte = tmem_position(i)
        cells: list[Cell] = [
            Styled(f"e{i}", on(thread_color(i))),
            f"{hi}:{lo}",
            _byte_span(hi, lo),
            f"{col}.{byte}",
        ]
        if codes is not None and out is not None:
            cells += [_bits(codes[i], fmt.element_bits), f"{_bits(out[i], 8)} {out[i]:02x}"]
            if kind is not None:
                cells.append(f"{kind.value(codes[i]):g}")
        rows.append(tuple(cells))
    hi, lo = fmt.container_bits
    parts: list[Table | Styled] = [
        Styled(title, BOLD),
        Table(tuple(columns), tuple(rows), show_edge=False),
        Styled(
            f"every container, bits 7..0: {container_pattern(fmt, kind)} (the element at bits {hi}:{lo})",
            BOLD,
        ),
        Styled(
            f"source bits count from bit 0 of byte 0 (the chunk read as one little-endian number); "
            f"bytes {fmt.data_bytes}..15 are padding and are not copied; container i is byte i % 4 "
            "of column i // 4 (little-endian)",
            ITALIC,
        ),
    ]
    if chunk is not None and out is not None:
        parts.append(Styled(f"input  (16-byte chunk, byte 0 first): {chunk.hex(' ')}"))
        parts.append(Styled(f"output (16 containers, byte 0 first): {out.hex(' ')}", BOLD))
    if kind is None and fmt.element_bits == 6:
        parts.append(Styled("give --type e3m2 or --type e2m3 to name the bits and show values", DIM))
    return tuple(parts)


def _byte_span(hi: int, lo: int) -> str:
    """``1[7:4]`` or ``0[7:6]+1[3:0]``: where an element's bits sit in the source bytes."""
    parts = []
    for byte in range(lo // 8, hi // 8 + 1):
        a, z = max(lo, 8 * byte) - 8 * byte, min(hi, 8 * byte + 7) - 8 * byte
        parts.append(f"{byte}[{z}:{a}]")
    return "+".join(parts)
