"""Load and validate the tcgen05.shift shape files of ``layouts/shift/`` into frozen dataclasses.

tcgen05.shift has one shape, ``.31x256b``, which PTX never writes (the Data Movement
Shape table of PTX 9.7.16 marks it *implicit*). It still lives in a file, like every
other shape, so ``tmemviz shapes`` lists it and the numbers (rows, element size, lane
alignment) are data, checked here against each other.
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

FIELDS = {
    "ptx_name": str,
    "aliases": list,
    "rows": int,
    "row_bits": int,
    "lanes": int,
    "step": int,
    "lane_alignment": int,
    "sass": str,
}
REQUIRED = ("ptx_name", "rows", "row_bits", "lanes", "step", "lane_alignment")
_NAME = re.compile(r"^\.?(\d+)x(\d+)b$", re.IGNORECASE)
_ALIAS = re.compile(r"^[0-9a-z_]+$", re.IGNORECASE)


@dataclass(frozen=True)
class ShiftShape:
    """A validated tcgen05.shift data-movement shape: ``rows`` elements of ``row_bits`` move ``step`` down."""

    name: str
    aliases: tuple[str, ...]
    rows: int
    """Rows (lanes) whose element moves: all of the matrix but the last ``step``."""
    row_bits: int
    lanes: int
    """Lanes of the matrix, from taddr's lane."""
    step: int
    """Lanes each element moves down (to a higher lane)."""
    lane_alignment: int
    source: str
    sass: str | None = None
    """How ptxas spells the shift in SASS, e.g. ``UTCSHIFT.DOWN`` (.cta_group::2 adds .2CTA)."""

    @property
    def ptx_name(self) -> str:
        return "." + self.name

    @property
    def cols(self) -> int:
        """32-bit TMEM columns one element covers (256 bits: 8)."""
        return self.row_bits // 32


def load_shift_shapes(files: Sequence[Path]) -> tuple[ShiftShape, ...]:
    """Read and validate every shift shape file; a name or alias may be defined once."""
    return tuple(load_unique(files, load_shift_shape, lambda s: (s.name, *s.aliases), "'ptx_name'/'aliases'"))


KIND: ShapeKind[ShiftShape] = ShapeKind(
    subdir="shift",
    title="tcgen05.shift",
    command="shift",
    unknown="unknown tcgen05.shift shape",
    known="known shift shapes",
    load=load_shift_shapes,
)
"""tcgen05.shift shape files: the ``shift/`` subdirectory of every layouts directory."""


def load_shift_shape(path: Path) -> ShiftShape:
    """Read one shift shape file; any problem raises :class:`TmemvizError` naming file and field."""
    return parse_shift_shape(read_yaml(path), str(path))


def parse_shift_shape(doc: Any, source: str) -> ShiftShape:
    """Validate a loaded YAML document into a :class:`ShiftShape`.

    >>> doc = {"ptx_name": ".31x256b", "rows": 31, "row_bits": 256, "lanes": 32, "step": 1,
    ...        "lane_alignment": 32}
    >>> parse_shift_shape(doc, "f.yaml").cols
    8
    >>> parse_shift_shape({**doc, "step": 2}, "f.yaml")
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: f.yaml: field 'step': rows 31 + step 2 must be the 32 lanes of the matrix
    """
    check_fields(doc, source, FIELDS, REQUIRED, "fields at the top level")

    def fail(field: str, message: str) -> TmemvizError:
        return TmemvizError(f"{source}: field '{field}': {message}")

    m = _NAME.match(doc["ptx_name"])
    if not m:
        raise fail("ptx_name", "expected a tcgen05.shift shape name such as '.31x256b' (ROWSxBITSb)")
    rows, row_bits, lanes, step = doc["rows"], doc["row_bits"], doc["lanes"], doc["step"]
    if (int(m.group(1)), int(m.group(2))) != (rows, row_bits):
        raise fail("ptx_name", f"'{doc['ptx_name']}' disagrees with rows {rows} and row_bits {row_bits}")
    if row_bits % 32 or not 32 <= row_bits <= 32 * TMEM_COLUMNS:
        raise fail("row_bits", "must be a multiple of 32 (whole TMEM columns) within 512 columns")
    if not 1 <= lanes <= WARP_LANES:
        # A warp touches only its own 32-lane band (PTX 9.7.16.8.1).
        raise fail("lanes", f"must be 1..{WARP_LANES} (one warp's lanes), got {lanes}")
    if step < 1 or rows + step != lanes:
        raise fail("step", f"rows {rows} + step {step} must be the {lanes} lanes of the matrix")
    alignment = doc["lane_alignment"]
    if alignment < 1 or TMEM_LANES % alignment or alignment < lanes:
        raise fail(
            "lane_alignment",
            f"must divide {TMEM_LANES} and be at least the {lanes} lanes moved, got {alignment}",
        )
    aliases = doc.get("aliases", [])
    for i, alias in enumerate(aliases):
        if not isinstance(alias, str) or not _ALIAS.match(alias):
            raise fail(f"aliases[{i}]", f"expected a name of letters, digits and _, got {describe(alias)}")
    return ShiftShape(
        name=m.group(0).lstrip(".").lower(),
        aliases=tuple(aliases),
        rows=rows,
        row_bits=row_bits,
        lanes=lanes,
        step=step,
        lane_alignment=alignment,
        source=source,
        sass=_sass(doc.get("sass"), source),
    )


def _sass(value: Any, source: str) -> str | None:
    from tmemviz.sass.names import spelling

    return None if value is None else spelling(value, source, "sass", "UTCSHIFT")


def builtin(name: str = "31x256b") -> ShiftShape:
    """A shipped shift shape by name (doctests and quick scripts).

    >>> builtin().rows, builtin().cols
    (31, 8)
    """
    return shipped(KIND, name)
