"""Swizzle modes of the shared-memory canonical layouts, read from ``layouts/smem/*.yaml``.

The YAML files are the single source of truth for the swizzle modes (PTX ISA 9.7.16.3): each
names its ``Swizzle<B,M,S>``, the width of one atom row, the repeat of the XOR pattern, the
descriptor code (bits 61-63 of the shared-memory descriptor) and the majors it serves. The loader
checks every field, so a broken file is reported as ``"<file>: field '<name>': <what is wrong>"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

import tmemviz
from tmemviz.errors import TmemvizError

MAJORS: tuple[str, ...] = ("K", "MN")
"""K-major: K is the contiguous dimension; MN-major: M (or N) is (PTX 9.7.16.3)."""

_FIELDS: tuple[str, ...] = ("name", "swizzle", "atom_bytes", "repeat_bytes", "descriptor_code", "majors")
_SWIZZLE_FIELDS: tuple[str, ...] = ("bits", "base", "shift")


@dataclass(frozen=True)
class Swizzle:
    """One swizzle mode: ``Swizzle<bits,base,shift>`` on byte addresses and its atom.

    An atom is 8 rows of ``atom_bytes`` (PTX 9.7.16.3); the XOR pattern repeats every
    ``repeat_bytes`` = 8 atom rows.
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


def builtin_layouts_dir() -> Path:
    """The shipped ``layouts/``: inside the installed package, else at the top of a checkout."""
    here = Path(tmemviz.__file__).resolve().parent
    packaged = here / "layouts"
    return packaged if packaged.is_dir() else here.parent / "layouts"


def _fail(path: Path, name: str, what: str) -> TmemvizError:
    return TmemvizError(f"{path}: field '{name}': {what}")


def _int(path: Path, name: str, value: Any, low: int, high: int) -> int:
    # bool is an int in Python; `true` in a shape file is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(path, name, f"expected an integer, got {value!r}")
    if not low <= value <= high:
        raise _fail(path, name, f"{value} is out of range; allowed {low}..{high}")
    return value


def _parse(path: Path, data: Any) -> Swizzle:
    if not isinstance(data, dict):
        raise TmemvizError(f"{path}: expected a mapping of the fields {', '.join(_FIELDS)}")
    for key in data:
        if key not in _FIELDS:
            raise _fail(path, str(key), f"unknown field; allowed fields are {', '.join(_FIELDS)}")
    for key in _FIELDS:
        if key not in data:
            raise _fail(path, key, "missing")
    name = data["name"]
    if not isinstance(name, str) or name != path.stem:
        raise _fail(path, "name", f"{name!r} must be a string equal to the file name {path.stem!r}")
    sw = data["swizzle"]
    if not isinstance(sw, dict) or sorted(sw) != sorted(_SWIZZLE_FIELDS):
        raise _fail(path, "swizzle", f"expected a mapping with exactly {', '.join(_SWIZZLE_FIELDS)}")
    bits = _int(path, "swizzle.bits", sw["bits"], 0, 3)
    # tmemviz models Swizzle<B,4,3> only: 16-byte chunks are never split (smem-facts "Units and the
    # swizzle"). 128B_base32B (Swizzle<2,5,2>) is left out: its canonical layout is not sourced.
    base = _int(path, "swizzle.base", sw["base"], 4, 4)
    shift = _int(path, "swizzle.shift", sw["shift"], 3, 3)
    atom = _int(path, "atom_bytes", data["atom_bytes"], 16, 128)
    if atom != 16 << bits:
        raise _fail(path, "atom_bytes", f"{atom} does not match swizzle.bits {bits}; use {16 << bits}")
    repeat = _int(path, "repeat_bytes", data["repeat_bytes"], 128, 1024)
    expected = 1 << (base + shift + bits)
    if repeat != expected:
        raise _fail(
            path, "repeat_bytes", f"{repeat} does not match Swizzle<{bits},{base},{shift}>; use {expected}"
        )
    code = _int(path, "descriptor_code", data["descriptor_code"], 0, 7)
    majors = data["majors"]
    if (
        not isinstance(majors, list)
        or not majors
        or any(m not in MAJORS for m in majors)
        or len(set(majors)) != len(majors)
    ):
        raise _fail(path, "majors", f"{majors!r} must be a non-empty list of distinct values from K, MN")
    return Swizzle(name, bits, base, shift, atom, repeat, code, tuple(majors), str(path))


def load_swizzle_file(path: Path) -> Swizzle:
    """Read and check one swizzle file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise TmemvizError(f"{path}: cannot be read ({err.strerror or err})") from err
    except yaml.YAMLError as err:
        raise TmemvizError(f"{path}: is not valid YAML ({str(err).splitlines()[0]})") from err
    return _parse(path, data)


def load_swizzles(directory: Path) -> tuple[Swizzle, ...]:
    """Every ``*.yaml`` swizzle file in ``<directory>/smem/``, ordered by swizzle bits.

    >>> [s.name for s in load_swizzles(builtin_layouts_dir())]
    ['none', '32B', '64B', '128B']
    """
    folder = directory / "smem"
    files = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
    if not files:
        raise TmemvizError(f"{folder}: no swizzle files (*.yaml) found")
    found = [load_swizzle_file(path) for path in files]
    for attr, field in (("bits", "swizzle.bits"), ("descriptor_code", "descriptor_code")):
        seen: dict[int, Swizzle] = {}
        for sw in found:
            value = getattr(sw, attr)
            if value in seen:
                raise _fail(Path(sw.source), field, f"{value} is also used by {seen[value].source}")
            seen[value] = sw
    return tuple(sorted(found, key=lambda s: s.bits))


@cache
def builtin_swizzles() -> tuple[Swizzle, ...]:
    """The shipped swizzle modes (read once)."""
    return load_swizzles(builtin_layouts_dir())


def find_swizzle(name: str, swizzles: tuple[Swizzle, ...] | None = None) -> Swizzle:
    """The swizzle mode called ``name``.

    >>> find_swizzle("128B").notation()
    'Swizzle<3,4,3>'
    """
    known = builtin_swizzles() if swizzles is None else swizzles
    for sw in known:
        if sw.name == name:
            return sw
    raise TmemvizError(f"unknown swizzle {name!r}; known swizzles are {', '.join(s.name for s in known)}")
