"""Tile answers in words and records: where D[m][n] is, how the tile is loaded, JSON and CSV.

Records are plain dicts and tuples; :mod:`tmemviz.draw.records` (or the CLI) writes them.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.datapath.organization import unplace
from tmemviz.families.tile.layout import Element, Issued, Tile
from tmemviz.tmem import span_text
from tmemviz.values import plural

HALF_BITS = {0: "bits 15:0", 1: "bits 31:16"}


def describe(tile: Tile) -> str:
    """``128 x 256 f32 tile (layout D, 16x256b.x32, 4 warps)``; a CTA pair's says ``4 warps per CTA``."""
    storage = f" {tile.storage}" if tile.storage else ""
    per = " per CTA" if tile.cta_group == 2 else ""
    return (
        f"{tile.m} x {tile.n} {tile.dtype}{storage} tile (layout {tile.layout}, "
        f"{tile.shape.name}.x{tile.num}, {tile.warps} warps{per})"
    )


def mma_phrase(tile: Tile) -> str:
    """The MMA that wrote D: ``tcgen05.mma.cta_group::2, M=256 (data-path layout A, PTX 9.7.16.10.5)``."""
    ws = ".ws" if tile.ws else ""
    sp = ".sp" if tile.sparse else ""
    return (
        f"tcgen05.mma{sp}{ws}.cta_group::{tile.cta_group}, M={tile.m} (data-path layout {tile.layout}, "
        f"PTX 9.7.16.10.5)"
    )


def taddr_operand(tile: Tile, issued: Issued) -> str:
    """``taddr+0x00100020``: the tile's taddr plus lane << 16 | column (PTX 9.7.16.2 address layout)."""
    offset = tile.offset(issued)
    return "taddr" if offset == 0 else f"taddr+0x{offset:08x}"


def statement(tile: Tile, issued: Issued) -> str:
    """The whole PTX statement (ptxas accepts ``[reg+imm]`` addresses), vector ``{r0, ...}``."""
    return issued.ins.statement(taddr_operand(tile, issued))


def element_phrase(tile: Tile, e: str = "e") -> str:
    """Where element column ``e`` of a lane band sits: its TMEM column (and half)."""
    start = "" if tile.base[1] == 0 else f"{tile.base[1]} + "
    if tile.storage == "packed":
        return f"column {start}{e}/2 (bits 15:0 for even {e}, 31:16 for odd {e})"
    if tile.storage == "unpacked":
        return f"bits 15:0 of column {start}{e}"
    return f"column {start}{e}"


def layout_phrase(tile: Tile) -> str:
    """Where D sits in TMEM: the mapping the whole tile rests on (PTX 9.7.16.10.5)."""
    path = tile.path
    head = f"layout {path.name} ({path.organization}"
    head += ", half the data path)" if path.placement == "half" else ")"
    pair = ""
    if tile.cta_group == 2:
        pair = (
            f"CTA c of the pair holds rows {path.rows}c..{path.rows}c+{path.rows - 1}, r = m - {path.rows}c; "
        )
    r = "r" if tile.cta_group == 2 else "m"
    if path.placement == "full":
        return f"{head}: {pair}row {r} in TMEM lane {r}, element n in {element_phrase(tile, 'n')}"
    if path.placement == "half":
        off = f" + {tile.base[0]}" if tile.base[0] else ""
        return (
            f"{head}: {pair}row {r} in TMEM lane 32*({r}//16) + {r}%16{off} (16 lanes of each warp's band), "
            f"element n in {element_phrase(tile, 'n')}"
        )
    width = tile.n // path.parts
    which = "half" if path.parts == 2 else "quarter"
    return (
        f"{head}: {pair}{which} p = n//{width} of N in lanes {r} + {path.rows}p, element n in "
        f"{element_phrase(tile, f'(n-{width}p)')}"
    )


def _part_shift(tile: Tile, issued: Issued) -> int:
    """n of the first element of the instruction's lane band: a folded layout's part times N/parts."""
    if tile.path.placement != "folded":
        return 0
    return (issued.taddr[0] // tile.path.rows) * (tile.n // tile.path.parts)


def n_ranges(tile: Tile, issued: Issued) -> tuple[tuple[int, int], ...]:
    """The n (columns of D) one instruction loads, as inclusive ranges."""
    col0 = tile.base[1]
    shift = _part_shift(tile, issued)
    if tile.storage == "packed":
        return tuple(
            (shift + 2 * (a - col0), shift + 2 * (b - col0) + 1) for a, b in issued.ins.column_ranges()
        )
    return tuple((shift + a - col0, shift + b - col0) for a, b in issued.ins.column_ranges())


def m_range(tile: Tile, issued: Issued) -> tuple[int, int]:
    """The rows of D one instruction loads (its lanes hold consecutive rows in every layout)."""
    lo, hi = issued.ins.lane_range()
    first = unplace(tile.path, tile.n, issued.cta, lo, 0, tile.base[0])
    last = unplace(tile.path, tile.n, issued.cta, hi, 0, tile.base[0])
    assert first is not None and last is not None
    return first[0], last[0]


def ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in ranges)


def element_sentence(tile: Tile, e: Element) -> str:
    """E.g. ``D[37][5] of the 128 x 256 f32 tile (...) is held by warp 1, thread 22, instruction i0, ...``."""
    bits = f" {HALF_BITS[e.half]}" if e.half is not None else ""
    issued = tile.issued_by(e.warp, e.cta)[e.instruction]
    cta = f"CTA {e.cta}, " if tile.cta_group == 2 else ""
    return (
        f"D[{e.m}][{e.n}] of the {describe(tile)} is held by {cta}warp {e.warp}, thread {e.thread}, "
        f"instruction i{e.instruction}, register r{e.reg}{bits}; TMEM lane {e.lane}, column {e.col}; "
        f"i{e.instruction} = {short_statement(tile, issued)}"
    )


def notes(tile: Tile) -> tuple[str, ...]:
    """What the data-path layout's file says a user should know (sources that disagree included)."""
    path = tile.path
    # A layout file's note that starts "With .ws" is about weight-stationary MMAs, not this tile without.
    out = [note for note in path.notes if tile.ws or not note.startswith("With .ws")]
    if path.placement != "folded" and not tile.ws and tile.n not in path.legal_n():
        out.append(
            f"N={tile.n} is not one MMA's N for layout {path.name} ({path.describe_n()}): read as several "
            "MMAs side by side, which this layout places column by column the same way"
        )
    if path.n_source:
        out.append(f"legal N: {path.n_source}")
    return tuple(out)


# Records: what --format json / csv print.


def header(tile: Tile) -> dict[str, Any]:
    """The JSON fields before the instructions and cells."""
    first, last = tile.base[1], tile.base[1] + tile.columns - 1
    return {
        "m": tile.m,
        "n": tile.n,
        "layout": tile.layout,
        "cta_group": tile.cta_group,
        "ws": tile.ws,
        "sparse": tile.sparse,
        "lane_offset": tile.base[0],
        "shape": tile.shape.name,
        "num": tile.num,
        "warps": tile.warps,
        "dtype": tile.dtype,
        "storage": tile.storage,
        "instruction": tile.mnemonic,
        "split_offset": tile.split_offset,
        "instructions_per_warp": len(tile.issued_by(0)),
        "registers_per_thread": tile.registers_per_thread,
        "taddr": {"lane": tile.base[0], "col": tile.base[1]},
        "columns": [first, last],
    }


def instruction_records(tile: Tile) -> list[dict[str, Any]]:
    """One per (warp, instruction): its PTX, absolute taddr lane/column and register count."""
    return [
        {
            "cta": i.cta,
            "index": i.index,
            "warp": i.warp,
            "ptx": statement(tile, i),
            "lane": i.taddr[0],
            "col": i.taddr[1],
            "registers": i.ins.registers_per_thread,
        }
        for i in tile.issued
    ]


def cell_record(e: Element) -> dict[str, Any]:
    """One element; ``half`` is null for 32-bit elements."""
    return {
        "cta": e.cta,
        "warp": e.warp,
        "thread": e.thread,
        "instruction": e.instruction,
        "reg": e.reg,
        "half": e.half,
        "m": e.m,
        "n": e.n,
        "lane": e.lane,
        "col": e.col,
    }


CSV_HEADER = ("cta", "warp", "thread", "instruction", "reg", "half", "m", "n", "lane", "col")


def csv_rows(items: tuple[Element, ...]) -> list[tuple[Any, ...]]:
    """``half`` is empty for 32-bit elements."""
    return [
        (
            e.cta,
            e.warp,
            e.thread,
            e.instruction,
            e.reg,
            "" if e.half is None else e.half,
            e.m,
            e.n,
            e.lane,
            e.col,
        )
        for e in items
    ]


def span(values: list[int]) -> str:
    return span_text(sorted(set(values)))


def short_statement(tile: Tile, issued: Issued, operand: str | None = None) -> str:
    """The PTX statement with its vector abbreviated: ``{r0, ..., r127}``."""
    regs = issued.ins.registers_per_thread
    vector = "{r0}" if regs == 1 else ("{r0, r1}" if regs == 2 else f"{{r0, ..., r{regs - 1}}}")
    full = statement(tile, issued)
    head = full[: full.index("{")]
    tail = full[full.index("}") + 1 :]
    if operand is not None:
        tail = tail.replace(f"[{taddr_operand(tile, issued)}]", f"[{operand}]")
    return head + vector + tail


def band_text(tile: Tile, warp: int) -> str:
    """What warp ``warp``'s band holds: ``rows 32..63`` or ``rows 0..31, n 128..255``."""
    path = tile.path
    w = warp % 4
    if path.placement == "full":
        return f"rows {32 * w}..{32 * w + 31}"
    if path.placement == "half":
        return f"rows {16 * w}..{16 * w + 15}"
    part, r0 = divmod(32 * w, path.rows)
    width = tile.n // path.parts
    return f"rows {r0}..{r0 + 31}, n {part * width}..{part * width + width - 1}"


def band_lanes_text(tile: Tile) -> str:
    """The lanes of warp w's band that hold D: ``32w..32w+31`` or ``32w+16..32w+31``."""
    if tile.path.placement != "half":
        return "32w..32w+31"
    lo = tile.base[0]
    return f"32w{'+' + str(lo) if lo else ''}..32w+{lo + 15}"


def plan_lines(tile: Tile, contiguous: int, by_shape: list[tuple[str, int | None]]) -> list[str]:
    """The summary in words: who loads what, registers per thread, contiguity, the split offset."""
    ins = tile.issued[0].ins
    per_warp = len(tile.issued_by(0))
    lanes = sorted({i.taddr[0] - 32 * (i.warp % 4) for i in tile.issued})
    groups = ", ".join(f"+{lane}" for lane in lanes)
    n_first = {i.warp: n_ranges(tile, i)[0][0] for i in tile.issued}
    path = tile.path
    each = " in each CTA" if tile.cta_group == 2 else ""
    lines = [
        f"D: {tile.m} x {tile.n} {tile.dtype} written by {mma_phrase(tile)}; {layout_phrase(tile)}; "
        f"TMEM columns {tile.base[1]}..{tile.base[1] + tile.columns - 1}{each}"
    ]
    if tile.cta_group == 2:
        lines.append(
            f".cta_group::2: CTA c of the pair holds rows {path.rows}c..{path.rows}c+{path.rows - 1} of D "
            f"in its own Tensor Memory and its own {tile.warps} warps load them with the same instructions "
            "(the table lists CTA 0's; CTA 1's are the same; JSON has both)"
        )
    bands = "; ".join(f"warp {w}: {band_text(tile, w)}" for w in range(4))
    if path.placement != "full":
        lines.append(f"which warp reads which part of D{each}: {bands}")
    if path.placement == "half":
        lines.append(
            f"half the data path: each band holds D in 16 lanes (+{tile.base[0]}..+{tile.base[0] + 15}); a "
            ".32x32b load would read the other 16 lanes too (another accumulator or garbage), so 16-lane "
            "shapes load it (Triton Gluon, asked for 32x32b on M=64, uses .16x32bx2 split at N/2)"
        )
    if tile.warps == 4:
        lines.append(
            f"4 warps (one warpgroup): warp w loads lanes {band_lanes_text(tile)} over all of D's columns "
            f"with "
            f"{per_warp} x {tile.mnemonic}"
            + (f" (taddr lanes {groups} of its band)" if len(lanes) > 1 else "")
        )
    elif n_first[4] != n_first[0]:
        half = tile.per_band // 2
        split = (
            f"n 0..{half - 1}, warps 4-7 n {half}..{tile.n - 1}"
            if path.placement != "folded"
            else "the left half of D's columns in their band, warps 4-7 the right half"
        )
        lines.append(
            f"8 warps (two warpgroups, as Triton Gluon splits them): warps 0-3 load {split}, "
            f"each warp {per_warp} x {tile.mnemonic} in its band"
        )
    else:
        lines.append(
            f"8 warps (two warpgroups, as Triton Gluon splits them): warps 0-3 load lanes +0..+15 of each "
            f"band, warps 4-7 lanes +16..+31, over all of N; each warp {per_warp} x {tile.mnemonic}"
        )
    expected = path.rows * tile.n * tile.bits // 32 // (32 * tile.warps)
    lines.append(
        f"registers per thread: {tile.registers_per_thread} = {plural(per_warp, 'instruction')} x "
        f"{ins.registers_per_thread} ({path.rows}*N*{tile.bits}/32 / (32*{tile.warps}) = {expected})"
        + ("; more than the 255 a thread can hold, so a kernel loads N in slices" if expected > 255 else "")
    )
    size = contiguous * tile.bits // 8
    lines.append(f"contiguous: each thread holds runs of {contiguous} consecutive n in a row ({size} bytes)")
    if by_shape:
        others = ", ".join(f"{name} {'-' if run is None else run}" for name, run in by_shape)
        lines.append(
            f"contiguous n per thread and row by shape (same tile, default .num; - = cannot tile N): {others}"
        )
    if tile.split_offset is not None:
        lines.append(
            f"immHalfSplitoff {tile.split_offset}: threads 0-15 load the left half of N, threads 16-31 the "
            "right half (tmemviz's choice: Gluon only infers .16x32bx2, with lane bit 4 at column N/2)"
        )
    if tile.storage == "packed":
        lines.append(
            "packed 16-bit: a plain .b32 load, each register = the two elements of one column "
            "(.pack::16b would read bits 15:0 of two columns and skip odd n)"
        )
    elif tile.storage == "unpacked":
        lines.append(
            ".pack::16b packs the elements of columns 2c, 2c+1 into bits 15:0, 31:16 of one register"
        )
    return lines
