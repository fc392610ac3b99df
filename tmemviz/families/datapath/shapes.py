"""Load and validate the data-path layout files of ``layouts/datapath/`` (one per PTX table row).

Each file is one row of the PTX ISA 9.7.16.10.5 table plus how D is placed
(see ``layouts/datapath/A.yaml`` for every field). The rules that do not depend
on the row (what ``full``/``half``/``folded`` mean, that rows fill whole lanes)
live in :mod:`tmemviz.families.datapath.organization` and are checked here against
every file, so a file cannot describe a layout that does not fit Tensor Memory.
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
from tmemviz.tmem import TMEM_LANES

PLACEMENTS = ("full", "half", "folded")
SPARSITIES = ("dense", "sparse", "either")
WS = ("yes", "no", "either")
HALF_LANES = 16
"""Rows of a half-data-path layout in each 32-lane band (PTX 9.7.16.10.5, layouts C and F)."""


@dataclass(frozen=True)
class DataPath:
    """One row of the PTX table, with how D is placed (validated from its shape file)."""

    name: str
    """The letter, ``A`` .. ``G``."""
    aliases: tuple[str, ...]
    m: int
    cta_group: int
    sparsity: str
    ws: str
    organization: str
    """As the PTX table prints it (E: "2x3", see its notes)."""
    placement: str
    parts: int
    lane_offsets: tuple[int, ...]
    n_values: tuple[int, ...]
    """Every legal N (dense and sparse kind::f16/tf32)."""
    n_text: str
    """The legal N in words, e.g. ``a multiple of 16 in 16..256``."""
    n_ws: tuple[int, ...]
    """The legal N with ``.ws``, where the layout takes both (D)."""
    n_source: str
    figures: tuple[int, ...]
    cutlass: str | None
    notes: tuple[str, ...]
    source: str

    @property
    def rows(self) -> int:
        """Rows of D each CTA holds."""
        return self.m // self.cta_group

    @property
    def lanes_used(self) -> int:
        """TMEM lanes D occupies in each CTA."""
        return 64 if self.placement == "half" else self.rows * self.parts

    def takes(self, sparse: bool, ws: bool) -> bool:
        """Whether this row of the table is the one for that sparsity and ``.ws``."""
        want_sparsity = "sparse" if sparse else "dense"
        return self.sparsity in ("either", want_sparsity) and self.ws in ("either", "yes" if ws else "no")

    def legal_n(self, ws: bool = False) -> tuple[int, ...]:
        """Every N this layout takes (with ``.ws`` the weight-stationary list where one is given)."""
        return self.n_ws if ws and self.n_ws else self.n_values

    def describe_n(self, ws: bool = False) -> str:
        """The legal N in words."""
        return ", ".join(map(str, self.n_ws)) if ws and self.n_ws else self.n_text


FIELDS = {
    "layout": str,
    "aliases": list,
    "m": int,
    "cta_group": int,
    "sparsity": str,
    "ws": str,
    "organization": str,
    "placement": str,
    "parts": int,
    "lane_offsets": list,
    "n": object,
    "n_source": str,
    "n_ws": list,
    "figures": list,
    "cutlass": str,
    "notes": list,
}
REQUIRED = ("layout", "m", "cta_group", "sparsity", "ws", "organization", "placement", "parts", "n")
_LETTER = re.compile(r"^[A-Z]$")
_ORG = re.compile(r"^\d+x\d+$")


def load_paths(files: Sequence[Path]) -> tuple[DataPath, ...]:
    """Read and validate every layout file, in letter order; a letter may be defined once."""
    paths = load_unique(files, load_path, lambda p: (p.name, *p.aliases), "'layout'/'aliases'")
    paths.sort(key=lambda p: p.name)
    return tuple(paths)


KIND: ShapeKind[DataPath] = ShapeKind(
    subdir="datapath",
    title="tcgen05.mma data-path",
    command="datapath",
    unknown="unknown data-path layout",
    known="known layouts",
    load=load_paths,
)
"""Data-path layout files: the ``datapath/`` subdirectory of every layouts directory."""


def shipped_paths() -> tuple[DataPath, ...]:
    """The shipped table (A-G), read once per run (``explain`` asks once per tcgen05.mma)."""
    global _SHIPPED
    if _SHIPPED is None:
        from tmemviz.catalog import load_catalog

        _SHIPPED = load_catalog().shapes(KIND)
    return _SHIPPED


_SHIPPED: tuple[DataPath, ...] | None = None


def shipped_path(name: str) -> DataPath:
    """A shipped layout by letter (doctests and quick scripts)."""
    return shipped(KIND, name)


def load_path(path: Path) -> DataPath:
    """Read one layout file; any problem raises :class:`TmemvizError` naming file and field."""
    return parse_path(read_yaml(path), str(path))


def _choice(doc: dict[str, Any], field: str, allowed: Sequence[str], fail: Any) -> str:
    value = doc[field]
    if value not in allowed:
        raise fail(field, f"expected one of {', '.join(allowed)}, got {describe(value)}")
    return str(value)


def _ints(doc: dict[str, Any], field: str, fail: Any) -> tuple[int, ...]:
    values = doc.get(field, [])
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise fail(field, "expected a list of whole numbers")
    return tuple(values)


def _n_rule(value: Any, fail: Any) -> tuple[tuple[int, ...], str]:
    """``{min, max, step}`` or a list of N, as every legal N and the rule in words."""
    if isinstance(value, dict):
        check_fields(value, "field 'n'", {"min": int, "max": int, "step": int}, ("min", "max", "step"))
        lo, hi, step = value["min"], value["max"], value["step"]
        if not (step > 0 and 0 < lo <= hi <= 256 and lo % step == 0 and hi % step == 0):
            raise fail("n", "expected 0 < min <= max <= 256, both multiples of step")
        return tuple(range(lo, hi + 1, step)), f"a multiple of {step} in {lo}..{hi}"
    if isinstance(value, list) and value and all(isinstance(v, int) and 0 < v <= 256 for v in value):
        return tuple(value), ", ".join(map(str, value))
    raise fail("n", "expected {min, max, step} or a list of N in 1..256")


def parse_path(doc: Any, source: str) -> DataPath:
    """Validate a loaded YAML document into a :class:`DataPath`."""
    check_fields(doc, source, FIELDS, REQUIRED, "fields at the top level")

    def fail(field: str, message: str) -> TmemvizError:
        return TmemvizError(f"{source}: field '{field}': {message}")

    name = doc["layout"]
    if not _LETTER.match(name):
        raise fail("layout", f"expected one capital letter such as 'D', got {describe(name)}")
    m, cta_group, parts = doc["m"], doc["cta_group"], doc["parts"]
    if cta_group not in (1, 2):
        raise fail("cta_group", f"expected 1 or 2, got {describe(cta_group)}")
    if m not in (32, 64, 128, 256) or m % cta_group:
        raise fail("m", f"expected 32, 64, 128 or 256 (a multiple of cta_group), got {describe(m)}")
    placement = _choice(doc, "placement", PLACEMENTS, fail)
    rows = m // cta_group
    if placement == "full" and (rows != TMEM_LANES or parts != 1):
        raise fail("placement", f"'full' needs 128 rows per CTA and parts 1, not {rows} rows, {parts} parts")
    if placement == "half" and (rows != 64 or parts != 1):
        raise fail("placement", f"'half' needs 64 rows per CTA and parts 1, not {rows} rows, {parts} parts")
    if placement == "folded" and (parts not in (2, 4) or rows * parts != TMEM_LANES):
        raise fail("parts", f"a folded layout's rows x parts must be 128 lanes, not {rows} x {parts}")
    offsets = _ints(doc, "lane_offsets", fail) or (0,)
    if not set(offsets) <= ({0, 16} if placement == "half" else {0}):
        raise fail("lane_offsets", "only a half-data-path layout may take lane offset 16; others take 0")
    n_values, n_text = _n_rule(doc["n"], fail)
    if placement == "folded" and any(n % parts for n in n_values):
        raise fail("n", f"a layout folded in {parts} parts needs N divisible by {parts}")
    if not _ORG.match(doc["organization"]):
        got = describe(doc["organization"])
        raise fail("organization", f"expected ROWSxCOLUMNS such as '4x1', got {got}")
    aliases = doc.get("aliases", [])
    if not all(isinstance(a, str) for a in aliases):
        raise fail("aliases", "expected a list of names")
    notes = doc.get("notes", [])
    if not all(isinstance(n, str) for n in notes):
        raise fail("notes", "expected a list of sentences")
    return DataPath(
        name=name,
        aliases=tuple(aliases),
        m=m,
        cta_group=cta_group,
        sparsity=_choice(doc, "sparsity", SPARSITIES, fail),
        ws=_choice(doc, "ws", WS, fail),
        organization=doc["organization"],
        placement=placement,
        parts=parts,
        lane_offsets=offsets,
        n_values=n_values,
        n_text=n_text,
        n_ws=_ints(doc, "n_ws", fail),
        n_source=" ".join(doc.get("n_source", "").split()),
        figures=_ints(doc, "figures", fail),
        cutlass=doc.get("cutlass"),
        notes=tuple(" ".join(n.split()) for n in notes),
        source=source,
    )
