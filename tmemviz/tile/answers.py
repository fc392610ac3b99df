"""Tile answers in words and records: where D[m][n] is, how the tile is loaded, JSON and CSV.

Records are plain dicts and tuples; :mod:`tmemviz.draw.records` (or the CLI) writes them.
"""

from __future__ import annotations

from typing import Any

from tmemviz.tile.layout import Element, Issued, Tile
from tmemviz.tmem import span_text

HALF_BITS = {0: "bits 15:0", 1: "bits 31:16"}


def describe(tile: Tile) -> str:
    """``128 x 256 f32 tile (16x256b.x32, 4 warps)``."""
    storage = f" {tile.storage}" if tile.storage else ""
    return (
        f"{tile.m} x {tile.n} {tile.dtype}{storage} tile ({tile.shape.name}.x{tile.num}, {tile.warps} warps)"
    )


def taddr_operand(tile: Tile, issued: Issued) -> str:
    """``taddr+0x00100020``: the tile's taddr plus lane << 16 | column (PTX 9.7.16.2 address layout)."""
    offset = tile.offset(issued)
    return "taddr" if offset == 0 else f"taddr+0x{offset:08x}"


def statement(tile: Tile, issued: Issued) -> str:
    """The whole PTX statement (ptxas accepts ``[reg+imm]`` addresses), vector ``{r0, ...}``."""
    return issued.ins.statement(taddr_operand(tile, issued))


def layout_phrase(tile: Tile) -> str:
    """Where D sits in TMEM: the mapping the whole tile rests on."""
    text = f"cta_group::1, M={tile.m}: row m in TMEM lane {'m' if tile.base[0] == 0 else 'base + m'}, "
    start = "" if tile.base[1] == 0 else f"{tile.base[1]} + "
    if tile.storage == "packed":
        return text + f"element n in column {start}n/2 (bits 15:0 for even n, 31:16 for odd n)"
    if tile.storage == "unpacked":
        return text + f"element n in bits 15:0 of column {start}n"
    return text + f"column n in column {start}n"


def n_ranges(tile: Tile, issued: Issued) -> tuple[tuple[int, int], ...]:
    """The n (columns of D) one instruction loads, as inclusive ranges."""
    col0 = tile.base[1]
    if tile.storage == "packed":
        return tuple((2 * (a - col0), 2 * (b - col0) + 1) for a, b in issued.ins.column_ranges())
    return tuple((a - col0, b - col0) for a, b in issued.ins.column_ranges())


def ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in ranges)


def element_sentence(tile: Tile, e: Element) -> str:
    """E.g. ``D[37][5] of the 128 x 256 f32 tile (...) is held by warp 1, thread 22, instruction i0, ...``."""
    bits = f" {HALF_BITS[e.half]}" if e.half is not None else ""
    issued = tile.issued_by(e.warp)[e.instruction]
    return (
        f"D[{e.m}][{e.n}] of the {describe(tile)} is held by warp {e.warp}, thread {e.thread}, "
        f"instruction i{e.instruction}, register r{e.reg}{bits}; TMEM lane {e.lane}, column {e.col}; "
        f"i{e.instruction} = {short_statement(tile, issued)}"
    )


# Records: what --format json / csv print.


def header(tile: Tile) -> dict[str, Any]:
    """The JSON fields before the instructions and cells."""
    first, last = tile.column_of(0), tile.column_of(tile.n - 1)
    return {
        "m": tile.m,
        "n": tile.n,
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


CSV_HEADER = ("warp", "thread", "instruction", "reg", "half", "m", "n", "lane", "col")


def csv_rows(items: tuple[Element, ...]) -> list[tuple[Any, ...]]:
    """``half`` is empty for 32-bit elements."""
    return [
        (e.warp, e.thread, e.instruction, e.reg, "" if e.half is None else e.half, e.m, e.n, e.lane, e.col)
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


def plan_lines(tile: Tile, contiguous: int, by_shape: list[tuple[str, int | None]]) -> list[str]:
    """The summary in words: who loads what, registers per thread, contiguity, the split offset."""
    ins = tile.issued[0].ins
    per_warp = len(tile.issued_by(0))
    lanes = sorted({i.taddr[0] - 32 * (i.warp % 4) for i in tile.issued})
    groups = ", ".join(f"+{lane}" for lane in lanes)
    n_first = {i.warp: n_ranges(tile, i)[0][0] for i in tile.issued}
    lines = [
        f"D: {tile.m} x {tile.n} {tile.dtype}; {layout_phrase(tile)}; TMEM columns "
        f"{tile.column_of(0)}..{tile.column_of(tile.n - 1)}"
    ]
    if tile.warps == 4:
        lines.append(
            f"4 warps (one warpgroup): warp w loads lanes 32w..32w+31 over all of N with {per_warp} x "
            f"{tile.mnemonic}" + (f" (taddr lanes {groups} of its band)" if len(lanes) > 1 else "")
        )
    elif n_first[4] != n_first[0]:
        half = tile.n // 2
        lines.append(
            f"8 warps (two warpgroups, as Triton Gluon splits them): warps 0-3 load n 0..{half - 1}, "
            f"warps 4-7 n {half}..{tile.n - 1}, each warp {per_warp} x {tile.mnemonic} in its band"
        )
    else:
        lines.append(
            f"8 warps (two warpgroups, as Triton Gluon splits them): warps 0-3 load lanes +0..+15 of each "
            f"band, warps 4-7 lanes +16..+31, over all of N; each warp {per_warp} x {tile.mnemonic}"
        )
    expected = tile.m * tile.n * tile.bits // 32 // (32 * tile.warps)
    lines.append(
        f"registers per thread: {tile.registers_per_thread} = {per_warp} instructions x "
        f"{ins.registers_per_thread} (M*N*{tile.bits}/32 / (32*{tile.warps}) = {expected})"
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
