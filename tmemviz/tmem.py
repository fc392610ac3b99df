"""Tensor Memory geometry shared by every family: lanes, columns, warp bands, taddr.

Per CTA, Tensor Memory is 128 lanes x 512 columns of 32-bit cells, addressed by
a 32-bit taddr with the lane in bits 31:16 and the column in bits 15:0
(PTX 9.7.16.2). Warp ``w % 4`` of a warpgroup may touch only lanes
``32*(w % 4) .. 32*(w % 4) + 31`` (PTX 9.7.16.8.1).
"""

from __future__ import annotations

from collections.abc import Iterable

from tmemviz.errors import TmemvizError
from tmemviz.values import parse_int

THREADS = 32
"""Threads of a warp; each tcgen05.ld/st is a warp-collective (PTX 9.7.16.8.3)."""

WARP_LANES = 32
"""TMEM lanes one warp may touch (PTX 9.7.16.8.1, access restrictions)."""

TMEM_LANES = 128
TMEM_COLUMNS = 512
"""Per-CTA Tensor Memory: 128 lanes x 512 columns of 32 bits (PTX 9.7.16.2)."""


def warp_band(warp: int) -> tuple[int, int]:
    """The lanes warp ``warp`` of the CTA may touch: its band in its warpgroup (PTX 9.7.16.8.1).

    >>> warp_band(0), warp_band(5), warp_band(11)
    ((0, 31), (32, 63), (96, 127))
    """
    first = WARP_LANES * (warp % (TMEM_LANES // WARP_LANES))
    return first, first + WARP_LANES - 1


def warp_of(lane: int) -> int:
    """The warp (of a warpgroup) whose 32-lane band holds ``lane`` (PTX 9.7.16.8.1).

    >>> warp_of(72)
    2
    """
    return lane // WARP_LANES


def spans(unit: str, ranges: Iterable[tuple[int, int]]) -> str:
    """Inclusive ranges in words, a one-element range as its number: ``columns 0..7 and 16..23``.

    >>> spans("column", [(0, 0)]), spans("column", [(0, 7), (9, 9)])
    ('column 0', 'columns 0..7 and 9')
    """
    items = [f"{a}..{b}" if a != b else f"{a}" for a, b in ranges]
    return f"{unit}{'' if items == [items[0].split('..')[0]] else 's'} {' and '.join(items)}"


def lane_hint(lane: int, first: int, lanes: int, taddr: tuple[int, int] | None, offset_lane: int = 0) -> str:
    """What would answer a question about ``lane`` that an access of ``lanes`` lanes does not cover:
    the taddr whose access holds it, and the warp (band) that may issue it (PTX 9.7.16.8.1).

    Without a taddr, lanes are relative to it, so the hint is to give one. Empty when the access
    (``lanes`` from ``first``) holds ``lane``, when ``lane`` is outside Tensor Memory, or when no
    taddr in its band would reach it.

    >>> lane_hint(40, 0, 16, None)
    '; lanes are relative to taddr: for lane 40, give --taddr 32,0 (warp 1, or any warp w with w % 4 == 1)'
    >>> lane_hint(70, 0, 32, (0, 8))
    '; lane 70 is read with --taddr 64,8 by warp 2 (or any warp w with w % 4 == 2)'
    """
    if first <= lane < first + lanes or not 0 <= lane < TMEM_LANES or lanes <= 0:
        return ""
    start = lane - lane % lanes - offset_lane
    if not 0 <= start < TMEM_LANES or warp_of(start + offset_lane) != warp_of(lane):
        return ""
    band = warp_of(lane)
    column = taddr[1] if taddr is not None else 0
    warps = f"warp {band}, or any warp w with w % 4 == {band}"
    if taddr is None:
        return f"; lanes are relative to taddr: for lane {lane}, give --taddr {start},{column} ({warps})"
    return f"; lane {lane} is read with --taddr {start},{column} by {warps.replace(', or', ' (or', 1)})"


def band_hint(first: int, last: int) -> str:
    """Which warps may issue an access of lanes ``first..last`` (PTX 9.7.16.8.1): those of its band,
    or none when it crosses a band boundary, with the nearest taddr lanes that would not.

    >>> band_hint(0, 15)
    '; warp 0 (or any warp w with w % 4 == 0) may issue it'
    >>> band_hint(24, 39)
    '; no warp may: it crosses lane 32; start it at lane 16 or 32'
    """
    band = warp_of(first)
    if warp_of(last) == band:
        return f"; warp {band} (or any warp w with w % 4 == {band}) may issue it"
    size, boundary = last - first + 1, WARP_LANES * warp_of(last)
    starts = [s for s in (boundary - size, boundary) if s >= 0 and s + size <= TMEM_LANES]
    crosses = f"crosses lane {boundary}" if boundary < TMEM_LANES else f"runs past lane {TMEM_LANES - 1}"
    return f"; no warp may: it {crosses}; start it at lane {' or '.join(map(str, starts))}"


def check_inside(lane: int, col: int) -> None:
    """Refuse a taddr outside Tensor Memory, naming its extent."""
    if not 0 <= lane < TMEM_LANES or not 0 <= col < TMEM_COLUMNS:
        raise TmemvizError(
            f"taddr lane {lane}, column {col} is outside Tensor Memory "
            f"(lanes 0..{TMEM_LANES - 1}, columns 0..{TMEM_COLUMNS - 1})"
        )


LANE_SHIFT = 16
"""A TMEM address holds the lane in bits 31:16 and the column in bits 15:0 (PTX 9.7.16.2)."""


def address(lane: int, col: int) -> int:
    """The 32-bit TMEM address of (``lane``, ``col``), or of that many lanes and columns as an offset.

    >>> hex(address(16, 8))
    '0x100008'
    """
    return (lane << LANE_SHIFT) | col


def lane_col(value: int) -> tuple[int, int]:
    """(lane, column) of a TMEM address, read as 32 bits (a negative immediate wraps as ptxas adds it).

    >>> lane_col(0x00200010), lane_col(1048576), lane_col(-4)
    ((32, 16), (16, 0), (65535, 65532))
    """
    value &= 0xFFFFFFFF
    return value >> LANE_SHIFT, value & 0xFFFF


def parse_taddr(text: str) -> tuple[int, int]:
    """``LANE,COL`` or a 32-bit TMEM address (lane in bits 31:16, column in 15:0).

    >>> parse_taddr("0x00200010"), parse_taddr("16, 8")
    ((32, 16), (16, 8))
    """
    if "," in text:
        lane, _, col = text.partition(",")
        return parse_int(lane, "the taddr lane"), parse_int(col, "the taddr column")
    value = parse_int(text, "--taddr (LANE,COL or a 0x address)")
    if not 0 <= value < 1 << 32:
        raise TmemvizError(f"--taddr must be a 32-bit address, got {text}")
    return lane_col(value)


def merge_ranges(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sort inclusive ``(lo, hi)`` ranges and merge those that overlap or touch.

    >>> merge_ranges([(64, 95), (0, 31), (32, 40), (96, 127)])
    ((0, 40), (64, 127))
    """
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return tuple(merged)


def runs(values: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted values as inclusive runs: ``[0, 1, 16]`` -> ``[(0, 1), (16, 16)]``.

    >>> runs([0, 1, 16])
    [(0, 1), (16, 16)]
    """
    out: list[tuple[int, int]] = []
    for v in values:
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


def span_text(values: Iterable[int]) -> str:
    """``0..7, 16`` for the runs of ``values`` (titles of tables and figure panels).

    >>> span_text([0, 1, 2, 16])
    '0..2, 16'
    """
    return ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in runs(values))
