"""Swizzle modes of the shared-memory canonical layouts, read from ``layouts/smem/*.yaml``.

The YAML files are the single source of truth for the swizzle modes (PTX ISA 9.7.16.3): each
names its ``Swizzle<B,M,S>``, the width of one atom row, the repeat of the XOR pattern, the
descriptor code (bits 61-63 of the shared-memory descriptor) and the majors it serves. They are
found like every family's shape files (:data:`KIND`: ``smem/`` of the shipped layouts directory and
of each ``--layouts DIR``) and checked field by field, so a broken file is reported as
``"<file>: field '<name>': <what is wrong>"``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tmemviz.catalog import ShapeKind, check_unique, load_catalog
from tmemviz.errors import TmemvizError
from tmemviz.files import check_fields, describe, read_yaml, yaml_files

MAJORS: tuple[str, ...] = ("K", "MN")
"""K-major: K is the contiguous dimension; MN-major: M (or N) is (PTX 9.7.16.3)."""

FIELDS: dict[str, type] = {
    "name": str,
    "aliases": list,
    "swizzle": dict,
    "atom_bytes": int,
    "repeat_bytes": int,
    "descriptor_code": int,
    "majors": list,
}
REQUIRED: tuple[str, ...] = ("name", "swizzle", "atom_bytes", "repeat_bytes", "descriptor_code", "majors")
_SWIZZLE_FIELDS: tuple[str, ...] = ("bits", "base", "shift")
_ALIAS = re.compile(r"^[0-9a-z_]+$", re.IGNORECASE)


@dataclass(frozen=True)
class Swizzle:
    """One swizzle mode: ``Swizzle<bits,base,shift>`` on byte addresses and its atom.

    An atom is 8 rows of ``atom_bytes`` (PTX 9.7.16.3); the XOR pattern repeats every
    ``repeat_bytes`` = 8 atom rows. ``aliases`` are other names of the mode (CUTLASS's).
    """

    name: str
    bits: int
    base: int
    shift: int
    atom_bytes: int
    repeat_bytes: int
    descriptor_code: int
    majors: tuple[str, ...]
    source: str = ""
    aliases: tuple[str, ...] = ()

    def notation(self) -> str:
        """CuTe's spelling, as in the PTX figures.

        >>> Swizzle("32B", 1, 4, 3, 32, 256, 6, ("K", "MN")).notation()
        'Swizzle<1,4,3>'
        """
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"

    @property
    def chunks_per_row(self) -> int:
        """16-byte chunks in one atom row (1, 2, 4 or 8)."""
        return self.atom_bytes // 16


def _fail(path: str, name: str, what: str) -> TmemvizError:
    return TmemvizError(f"{path}: field '{name}': {what}")


def _int(path: str, name: str, value: Any, low: int, high: int) -> int:
    # bool is an int in Python; `true` in a swizzle file is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(path, name, f"expected an integer, got {describe(value)}")
    if not low <= value <= high:
        raise _fail(path, name, f"{value} is out of range; allowed {low}..{high}")
    return value


def parse_swizzle(data: Any, source: str) -> Swizzle:
    """Validate one loaded YAML document (from the file ``source``) into a :class:`Swizzle`."""
    check_fields(data, source, FIELDS, REQUIRED)
    stem = Path(source).stem
    name = data["name"]
    if name != stem:
        raise _fail(source, "name", f"{name!r} must be equal to the file name {stem!r}")
    aliases = data.get("aliases", [])
    for i, alias in enumerate(aliases):
        if not isinstance(alias, str) or not _ALIAS.match(alias):
            raise _fail(source, f"aliases[{i}]", f"expected letters, digits and _, got {describe(alias)}")
    sw = data["swizzle"]
    if sorted(map(str, sw)) != sorted(_SWIZZLE_FIELDS):
        raise _fail(source, "swizzle", f"expected a mapping with exactly {', '.join(_SWIZZLE_FIELDS)}")
    bits = _int(source, "swizzle.bits", sw["bits"], 0, 3)
    # tmemviz models Swizzle<B,4,3> only: 16-byte chunks are never split (PTX 9.7.16.3).
    # 128B_base32B (Swizzle<2,5,2>) is left out: its canonical layout is not stated exactly.
    base = _int(source, "swizzle.base", sw["base"], 4, 4)
    shift = _int(source, "swizzle.shift", sw["shift"], 3, 3)
    atom = _int(source, "atom_bytes", data["atom_bytes"], 16, 128)
    if atom != 16 << bits:
        raise _fail(source, "atom_bytes", f"{atom} does not match swizzle.bits {bits}; use {16 << bits}")
    repeat = _int(source, "repeat_bytes", data["repeat_bytes"], 128, 1024)
    expected = 1 << (base + shift + bits)
    if repeat != expected:
        raise _fail(
            source, "repeat_bytes", f"{repeat} does not match Swizzle<{bits},{base},{shift}>; use {expected}"
        )
    code = _int(source, "descriptor_code", data["descriptor_code"], 0, 7)
    majors = data["majors"]
    if not majors or any(m not in MAJORS for m in majors) or len(set(majors)) != len(majors):
        raise _fail(
            source, "majors", f"{describe(majors)} must be a non-empty list of distinct values from K, MN"
        )
    return Swizzle(name, bits, base, shift, atom, repeat, code, tuple(majors), source, tuple(aliases))


def load_swizzle_file(path: Path) -> Swizzle:
    """Read and check one swizzle file."""
    return parse_swizzle(read_yaml(path), str(path))


def load_swizzle_files(files: Sequence[Path]) -> tuple[Swizzle, ...]:
    """Every swizzle file, ordered by swizzle bits. Names, aliases, swizzle bits and descriptor codes
    are each defined once: a descriptor code naming two modes could not be decoded."""
    if not files:
        raise TmemvizError("no swizzle files (smem/*.yaml) found")
    found = [load_swizzle_file(path) for path in files]
    names: dict[str, str] = {}
    for sw in found:
        check_unique(Path(sw.source), [sw.name, *sw.aliases], names, "'name'/'aliases'")
    for attr, field in (("bits", "swizzle.bits"), ("descriptor_code", "descriptor_code")):
        seen: dict[int, Swizzle] = {}
        for sw in found:
            value = getattr(sw, attr)
            if value in seen:
                raise _fail(sw.source, field, f"{value} is also used by {seen[value].source}")
            seen[value] = sw
    return tuple(sorted(found, key=lambda s: s.bits))


def load_swizzles(directory: Path) -> tuple[Swizzle, ...]:
    """Every swizzle file in ``<directory>/smem/`` alone (without the shipped ones).

    >>> from tmemviz.catalog import builtin_dir
    >>> [s.name for s in load_swizzles(builtin_dir())]
    ['none', '32B', '64B', '128B']
    """
    folder = directory / "smem"
    return load_swizzle_files(yaml_files(folder, builtin=False) if folder.is_dir() else [])


KIND: ShapeKind[Swizzle] = ShapeKind(
    subdir="smem",
    title="shared-memory swizzle",
    command="smem",
    unknown="unknown swizzle",
    known="known swizzles",
    load=load_swizzle_files,
)
"""Swizzle files: the ``smem/`` subdirectory of every layouts directory."""


@cache
def builtin_swizzles() -> tuple[Swizzle, ...]:
    """The shipped swizzle modes (read once)."""
    return load_catalog().shapes(KIND)


def find_swizzle(name: str, swizzles: tuple[Swizzle, ...] | None = None) -> Swizzle:
    """The swizzle mode called ``name`` (its name or an alias, any case); the shipped ones by default.

    >>> find_swizzle("128B").notation(), find_swizzle("swizzle_none").name
    ('Swizzle<3,4,3>', 'none')
    """
    known = builtin_swizzles() if swizzles is None else swizzles
    key = name.strip().lower()
    for sw in known:
        if key == sw.name.lower() or key in (a.lower() for a in sw.aliases):
            return sw
    raise TmemvizError(f"unknown swizzle {name!r}; known swizzles are {', '.join(s.name for s in known)}")
