"""Load and validate the tcgen05.cp shape files of ``layouts/cp/`` into frozen dataclasses.

A cp shape file says, for each ``.multicast`` qualifier the shape takes, which
TMEM lanes every source row lands in. The rules of PTX 9.7.16.9.2 that do not
depend on the shape (what each multicast qualifier means, ``.cta_group::2``,
decompression) live in code and are checked against every file here, so a
file cannot declare a multicast that contradicts the PTX text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmemviz.catalog import ShapeKind, load_unique, shipped
from tmemviz.errors import TmemvizError
from tmemviz.files import check_fields, describe, read_yaml
from tmemviz.tmem import TMEM_COLUMNS, TMEM_LANES, WARP_LANES

MULTICASTS: dict[str, tuple[frozenset[int], ...]] = {
    # The warps (of the four 32-lane bands) one source row may land in, per qualifier
    # (PTX 9.7.16.9.2): no multicast = one warp; warp pairs {0,2},{1,3} or {0,1},{2,3};
    # .warpx4 = all four warps.
    "none": tuple(frozenset({w}) for w in range(4)),
    "warpx2::02_13": (frozenset({0, 2}), frozenset({1, 3})),
    "warpx2::01_23": (frozenset({0, 1}), frozenset({2, 3})),
    "warpx4": (frozenset({0, 1, 2, 3}),),
}
"""Every ``.multicast`` qualifier of tcgen05.cp (``none`` = the qualifier left out)."""

FIELDS = {
    "ptx_name": str,
    "aliases": list,
    "rows": int,
    "row_bits": int,
    "basis": str,
    "placements": list,
    "sass_decompress": dict,
}
REQUIRED = ("ptx_name", "rows", "row_bits", "placements")
PLACEMENT_FIELDS = {"multicast": str, "cutlass": str, "cute_dsl": str, "sass": str, "blocks": list}
BLOCK_FIELDS = {"rows": object, "lanes": list}
_NAME = re.compile(r"^\.?(\d+)x(\d+)b$", re.IGNORECASE)
_ALIAS = re.compile(r"^[0-9a-z_]+$", re.IGNORECASE)
_ROWS = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


@dataclass(frozen=True)
class Block:
    """Source rows ``first..last`` land in lanes ``start + (row - first)`` for each start."""

    first: int
    last: int
    starts: tuple[int, ...]

    def lanes_of(self, row: int) -> tuple[int, ...]:
        return tuple(s + row - self.first for s in self.starts)


@dataclass(frozen=True)
class Placement:
    """Where rows land under one ``.multicast`` qualifier (``None`` = no qualifier)."""

    multicast: str | None
    cutlass: str | None
    blocks: tuple[Block, ...]
    cute_dsl: str | None = None
    """The CuTe DSL op class (``cutlass.cute.nvgpu.tcgen05``), e.g. ``Cp2x64x128b0213Op``."""
    sass: str | None = None
    """How ptxas spells this copy in SASS, e.g. ``UTCCP.T.S.4x32dp128bit`` (.2CTA and decompression aside)."""

    @property
    def replicas(self) -> int:
        """TMEM lanes (of one CTA) each source row lands in."""
        return len(self.blocks[0].starts)

    def lane_runs(self) -> tuple[tuple[int, int], ...]:
        """Every replica of every block as an inclusive (first, last) lane run, relative to taddr."""
        return tuple((s, s + b.last - b.first) for b in self.blocks for s in b.starts)

    def lane_span(self) -> tuple[int, int]:
        """The lowest and highest lane written, relative to taddr."""
        runs = self.lane_runs()
        return min(lo for lo, _ in runs), max(hi for _, hi in runs)

    def block_of(self, row: int) -> int:
        return next(i for i, b in enumerate(self.blocks) if b.first <= row <= b.last)


@dataclass(frozen=True)
class CopyShape:
    """A validated tcgen05.cp data-movement shape."""

    name: str
    aliases: tuple[str, ...]
    rows: int
    row_bits: int
    basis: str | None
    """Where the lane placement rests on something other than the PTX text, one line saying so."""
    placements: tuple[Placement, ...]
    source: str
    sass_decompress: tuple[tuple[str, str], ...] = ()
    """(PTX .src_fmt, the SASS word ptxas appends), e.g. ("b4x16_p64", "U4x16P64")."""

    @property
    def ptx_name(self) -> str:
        return "." + self.name

    @property
    def words(self) -> int:
        """32-bit words per source row = TMEM columns per landed row."""
        return self.row_bits // 32

    @property
    def multicasts(self) -> tuple[str | None, ...]:
        return tuple(p.multicast for p in self.placements)

    def placement(self, multicast: str | None) -> Placement | None:
        return next((p for p in self.placements if p.multicast == multicast), None)


def load_copy_shapes(files: Sequence[Path]) -> tuple[CopyShape, ...]:
    """Read and validate every cp shape file; a name, alias or CUTLASS atom may be defined once."""
    copies = load_unique(
        files,
        load_copy_shape,
        lambda s: (s.name, *s.aliases, *(p.cutlass for p in s.placements if p.cutlass)),
        "'ptx_name'/'aliases'/'cutlass'",
    )
    # Largest copies first: the order of the tables and the gallery.
    copies.sort(key=lambda s: (-s.rows * s.row_bits, s.name))
    return tuple(copies)


KIND: ShapeKind[CopyShape] = ShapeKind(
    subdir="cp",
    title="tcgen05.cp",
    command="cp",
    unknown="unknown tcgen05.cp shape",
    known="known cp shapes",
    load=load_copy_shapes,
)
"""tcgen05.cp shape files: the ``cp/`` subdirectory of every layouts directory."""


def load_copy_shape(path: Path) -> CopyShape:
    """Read one cp shape file; any problem raises :class:`TmemvizError` naming file and field."""
    return parse_copy_shape(read_yaml(path), str(path))


def parse_copy_shape(doc: Any, source: str) -> CopyShape:
    """Validate a loaded YAML document into a :class:`CopyShape`."""
    check_fields(doc, source, FIELDS, REQUIRED, "fields at the top level")

    def fail(field: str, message: str) -> TmemvizError:
        return TmemvizError(f"{source}: field '{field}': {message}")

    m = _NAME.match(doc["ptx_name"])
    if not m:
        raise fail("ptx_name", "expected a tcgen05.cp shape name such as '.128x256b' (ROWSxBITSb)")
    rows, row_bits = doc["rows"], doc["row_bits"]
    if (int(m.group(1)), int(m.group(2))) != (rows, row_bits):
        raise fail("ptx_name", f"'{doc['ptx_name']}' disagrees with rows {rows} and row_bits {row_bits}")
    if not 1 <= rows <= TMEM_LANES:
        raise fail("rows", f"must be 1..{TMEM_LANES} (a row lands in a TMEM lane)")
    if row_bits % 32 or not 32 <= row_bits <= 32 * TMEM_COLUMNS:
        raise fail("row_bits", "must be a multiple of 32 (whole TMEM columns) within 512 columns")
    aliases = doc.get("aliases", [])
    for i, alias in enumerate(aliases):
        if not isinstance(alias, str) or not _ALIAS.match(alias):
            raise fail(f"aliases[{i}]", f"expected a name of letters, digits and _, got {describe(alias)}")
    placements = doc["placements"]
    if not placements:
        raise fail("placements", "expected at least one placement")
    parsed: list[Placement] = []
    for i, item in enumerate(placements):
        placement = _parse_placement(item, rows, f"placements[{i}]", source, fail)
        if any(p.multicast == placement.multicast for p in parsed):
            raise fail(f"placements[{i}].multicast", f"'{placement.multicast or 'none'}' is given twice")
        parsed.append(placement)
    basis = doc.get("basis")
    decompress = doc.get("sass_decompress", {})
    if decompress:
        from tmemviz.sass.names import words

        decompress = words(decompress, source, "sass_decompress", ("b4x16_p64", "b6x16_p32"))
    return CopyShape(
        name=m.group(0).lstrip(".").lower(),
        aliases=tuple(aliases),
        rows=rows,
        row_bits=row_bits,
        basis=" ".join(basis.split()) if basis else None,
        placements=tuple(parsed),
        source=source,
        sass_decompress=tuple(decompress.items()),
    )


def _parse_placement(item: Any, rows: int, field: str, source: str, fail: Any) -> Placement:
    check_fields(item, f"{source}: field '{field}'", PLACEMENT_FIELDS, ("multicast", "blocks"))
    multicast = item["multicast"].strip().lstrip(".").lower()
    if multicast not in MULTICASTS:
        allowed = ", ".join(MULTICASTS)
        raise fail(f"{field}.multicast", f"expected one of {allowed}, got {describe(multicast)}")
    cutlass = item.get("cutlass")
    if cutlass is not None and not _ALIAS.match(cutlass):
        raise fail(f"{field}.cutlass", f"expected a CUTLASS atom name, got {describe(cutlass)}")
    cute_dsl = item.get("cute_dsl")
    if cute_dsl is not None and not re.fullmatch(r"Cp\w+Op", cute_dsl):
        raise fail(
            f"{field}.cute_dsl",
            f"expected a CuTe DSL op class such as Cp128x256bOp, got {describe(cute_dsl)}",
        )
    blocks: list[Block] = []
    for b, entry in enumerate(item["blocks"]):
        bf = f"{field}.blocks[{b}]"
        check_fields(entry, f"{source}: field '{bf}'", BLOCK_FIELDS, ("rows", "lanes"))
        first, last = _row_range(entry["rows"], rows, f"{bf}.rows", fail)
        starts = entry["lanes"]
        if not starts or not all(isinstance(s, int) and not isinstance(s, bool) for s in starts):
            raise fail(f"{bf}.lanes", "expected a list of first lanes, one per replica, e.g. [0, 64]")
        for s in starts:
            if s < 0 or s + last - first >= TMEM_LANES:
                raise fail(
                    f"{bf}.lanes",
                    f"rows {first}-{last} starting at lane {s} would leave lanes 0..{TMEM_LANES - 1}",
                )
        blocks.append(Block(first, last, tuple(starts)))
    if not blocks:
        raise fail(f"{field}.blocks", "expected at least one block of rows")
    _check_cover(blocks, rows, f"{field}.blocks", fail)
    _check_multicast(blocks, multicast, f"{field}.blocks", fail)
    sass = item.get("sass")
    if sass is not None:
        from tmemviz.sass.names import spelling

        sass = spelling(sass, source, f"{field}.sass", "UTCCP")
    return Placement(None if multicast == "none" else multicast, cutlass, tuple(blocks), cute_dsl, sass)


def _row_range(value: Any, rows: int, field: str, fail: Any) -> tuple[int, int]:
    m = _ROWS.match(str(value)) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    if not m:
        raise fail(field, f"expected a row or a range such as 0-31, got {describe(value)}")
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) is not None else first
    if not first <= last < rows:
        raise fail(field, f"rows {first}-{last} are not a range within 0..{rows - 1}")
    return first, last


def _check_cover(blocks: list[Block], rows: int, field: str, fail: Any) -> None:
    """Every source row in exactly one block; no TMEM lane written twice."""
    seen = [False] * rows
    for b in blocks:
        for r in range(b.first, b.last + 1):
            if seen[r]:
                raise fail(field, f"row {r} is placed by two blocks")
            seen[r] = True
    if not all(seen):
        raise fail(field, f"row {seen.index(False)} is not placed by any block")
    counts = {len(b.starts) for b in blocks}
    if len(counts) != 1:
        raise fail(field, "every block must give the same number of replicas (lanes entries)")
    owner: dict[int, int] = {}
    for b in blocks:
        for r in range(b.first, b.last + 1):
            for lane in b.lanes_of(r):
                if lane in owner:
                    raise fail(field, f"lane {lane} would receive both row {owner[lane]} and row {r}")
                owner[lane] = r


def _check_multicast(blocks: list[Block], multicast: str, field: str, fail: Any) -> None:
    """Each row's replicas land in exactly the warps the qualifier names (PTX 9.7.16.9.2)."""
    allowed = MULTICASTS[multicast]
    for b in blocks:
        for r in range(b.first, b.last + 1):
            lanes = b.lanes_of(r)
            warps = frozenset(lane // WARP_LANES for lane in lanes)
            if len(warps) != len(lanes) or warps not in allowed:
                groups = " or ".join("{" + ",".join(map(str, sorted(g))) + "}" for g in allowed)
                what = "one warp" if multicast == "none" else f"the warps of {multicast}: {groups}"
                raise fail(
                    field,
                    f"row {r} lands in lanes {', '.join(map(str, lanes))} (warps "
                    f"{', '.join(str(lane // WARP_LANES) for lane in lanes)}), but with "
                    f"multicast {multicast} each row lands once in {what} (PTX 9.7.16.9.2)",
                )


def builtin(name: str) -> CopyShape:
    """A shipped cp shape by name (doctests and quick scripts).

    >>> builtin(".64X128B").rows
    64
    """
    return shipped(KIND, name)
