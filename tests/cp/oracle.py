"""An independent oracle for tcgen05.cp landings (shared memory -> Tensor Memory).

Written directly from the verified facts file (section "tcgen05.cp") and the PTX
text of tcgen05.cp (PTX 9.7.16.9.2). It uses nothing from tmemviz (no shape files,
no mapper), so tmemviz and this file can only agree if both follow the facts.

A landing is ``(row, word, cta, lane, col)``: 32-bit word ``word`` of source row
``row`` lands in TMEM lane ``lane``, column ``col`` of CTA ``cta`` (0 = the issuing
CTA, 1 = its peer under ``.cta_group::2``). Lanes and columns are relative to
taddr unless an origin is given.

>>> sorted(row_lanes("64x128b", "warpx2::01_23", 40))
[72, 104]
>>> sorted(row_lanes("32x128b", "warpx4", 5))
[5, 37, 69, 101]
"""

from __future__ import annotations

from typing import NamedTuple

Landing = tuple[int, int, int, int, int]
"""(row, word, cta, lane, col)."""

TMEM_LANES = 128
TMEM_COLUMNS = 512
"""Facts, "Tensor Memory": per CTA 128 lanes x 512 columns of 32 bits."""

WARP_LANES = 32
"""Facts, "Tensor Memory": warp w of a warpgroup owns lanes 32w .. 32w+31."""


class CpShape(NamedTuple):
    """Rows of the source matrix and 32-bit words per row (bits / 32)."""

    rows: int
    words: int


# Facts "tcgen05.cp": .128x256b, .128x128b, .64x128b, .32x128b, .4x256b (ROWSxBITSb).
SHAPES: dict[str, CpShape] = {
    "128x256b": CpShape(rows=128, words=8),
    "128x128b": CpShape(rows=128, words=4),
    "64x128b": CpShape(rows=64, words=4),
    "32x128b": CpShape(rows=32, words=4),
    "4x256b": CpShape(rows=4, words=8),
}

ALL_MULTICASTS: tuple[str, ...] = ("warpx2::02_13", "warpx2::01_23", "warpx4")
"""The .multicast qualifiers of the PTX syntax."""

# PTX 9.7.16.9.2: .64x128b requires .warpx2::02_13 or ::01_23; .32x128b requires .warpx4;
# the other shapes take no multicast (None = the qualifier left out).
MULTICASTS: dict[str, tuple[str | None, ...]] = {
    "128x256b": (None,),
    "128x128b": (None,),
    "64x128b": ("warpx2::02_13", "warpx2::01_23"),
    "32x128b": ("warpx4",),
    "4x256b": (None,),
}

FORMATS: tuple[str, ...] = ("b4x16_p64", "b6x16_p32")
""".src_fmt values; each comes with .dst_fmt .b8x16."""

DECOMPRESS: tuple[str | None, ...] = (None, *FORMATS)

CTA_GROUPS = (1, 2)

# CUTLASS SM100_UTCCP_* copy atoms (copy_sm100.hpp), each with _1cta and _2cta variants.
CUTLASS: dict[str, tuple[str, str | None]] = {
    "SM100_UTCCP_128dp256bit": ("128x256b", None),
    "SM100_UTCCP_128dp128bit": ("128x128b", None),
    "SM100_UTCCP_2x64dp128bitlw0213": ("64x128b", "warpx2::02_13"),
    "SM100_UTCCP_2x64dp128bitlw0123": ("64x128b", "warpx2::01_23"),
    "SM100_UTCCP_4x32dp128bit": ("32x128b", "warpx4"),
    "SM100_UTCCP_4dp256bit": ("4x256b", None),
}


def legal(shape: str, multicast: str | None) -> bool:
    """Whether PTX allows ``shape`` with ``multicast`` (None = no qualifier)."""
    return multicast in MULTICASTS[shape]


def placements() -> list[tuple[str, str | None]]:
    """Every legal (shape, multicast): 6 of them."""
    return [(s, m) for s, ms in MULTICASTS.items() for m in ms]


def combinations() -> list[tuple[str, str | None, int, str | None]]:
    """Every legal (shape, multicast, cta_group, decompress): 6 x 2 x 3 = 36."""
    return [(s, m, g, d) for s, m in placements() for g in CTA_GROUPS for d in DECOMPRESS]


def row_lanes(shape: str, multicast: str | None, row: int) -> tuple[int, ...]:
    """The taddr-relative lanes (of one CTA) source row ``row`` lands in; facts, "tcgen05.cp"."""
    rows = SHAPES[shape].rows
    if not 0 <= row < rows:
        raise ValueError(f"{shape} has rows 0..{rows - 1}")
    if not legal(shape, multicast):
        raise ValueError(f"{shape} does not take {multicast}")
    if shape in ("128x256b", "128x128b"):
        # row r -> lane r
        return (row,)
    if shape == "4x256b":
        # Open question; CUTLASS's model: row a -> lane 32a.
        return (32 * row,)
    if shape == "32x128b":
        # row r -> lanes r, r+32, r+64, r+96
        return (row, row + 32, row + 64, row + 96)
    if multicast == "warpx2::02_13":
        # row r -> lanes r and r+64
        return (row, row + 64)
    # warpx2::01_23: rows 0-31 -> lanes 0-31 and 32-63; rows 32-63 -> lanes 64-95 and 96-127.
    if row < 32:
        return (row, row + 32)
    return (64 + row - 32, 96 + row - 32)


def expected_warps(shape: str, multicast: str | None, row: int) -> frozenset[int]:
    """The warps (32-lane bands) a row lands in, from the PTX text's warp pairs."""
    if multicast == "warpx4":
        return frozenset({0, 1, 2, 3})
    if multicast == "warpx2::02_13":
        return frozenset({0, 2}) if row < 32 else frozenset({1, 3})
    if multicast == "warpx2::01_23":
        return frozenset({0, 1}) if row < 32 else frozenset({2, 3})
    if shape == "4x256b":
        return frozenset({row})
    return frozenset({row // WARP_LANES})


def replicas(multicast: str | None, cta_group: int) -> int:
    """Landings of each source word: 1 / 2 (warpx2) / 4 (warpx4), doubled by .cta_group::2."""
    per_cta = {None: 1, "warpx2::02_13": 2, "warpx2::01_23": 2, "warpx4": 4}[multicast]
    return per_cta * cta_group


def landings(
    shape: str, multicast: str | None, cta_group: int, origin: tuple[int, int] = (0, 0)
) -> set[Landing]:
    """Every (row, word, cta, lane, col); word w lands in column w; .cta_group::2 adds cta 1.

    Decompression does not change where words land (16-byte chunks stay 16 bytes).
    """
    lane0, col0 = origin
    fact = SHAPES[shape]
    return {
        (row, word, cta, lane0 + lane, col0 + word)
        for row in range(fact.rows)
        for lane in row_lanes(shape, multicast, row)
        for word in range(fact.words)
        for cta in range(cta_group)
    }


def cell_sources(shape: str, multicast: str | None, cta_group: int) -> dict[tuple[int, int, int], Landing]:
    """(cta, lane, col) -> the landing that writes it (taddr-relative)."""
    return {(x[2], x[3], x[4]): x for x in landings(shape, multicast, cta_group)}


def lane_extent(shape: str, multicast: str | None) -> tuple[int, int]:
    """The lowest and highest taddr-relative lane the copy writes."""
    lanes = [lane for r in range(SHAPES[shape].rows) for lane in row_lanes(shape, multicast, r)]
    return min(lanes), max(lanes)


def fits(shape: str, multicast: str | None, taddr: tuple[int, int]) -> bool:
    """Whether every landing of the copy at ``taddr`` lies inside one CTA's 128 x 512 TMEM."""
    lane0, col0 = taddr
    _, hi = lane_extent(shape, multicast)
    return (
        0 <= lane0 < TMEM_LANES
        and 0 <= col0 < TMEM_COLUMNS
        and lane0 + hi < TMEM_LANES
        and col0 + SHAPES[shape].words <= TMEM_COLUMNS
    )


def mnemonic(shape: str, multicast: str | None, cta_group: int, decompress: str | None) -> str:
    """PTX syntax: tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt}."""
    text = f"tcgen05.cp.cta_group::{cta_group}.{shape}"
    if multicast is not None:
        text += f".{multicast}"
    if decompress is not None:
        text += f".b8x16.{decompress}"
    return text
