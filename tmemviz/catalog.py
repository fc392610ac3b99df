"""Where shape files come from, and finding a shape by name, for every family alike.

A layouts directory holds one subdirectory per family (``ldst/``, ``cp/``, ...).
The shipped one ships inside the package; users add their own with
``--layouts DIR`` or ``$TMEMVIZ_LAYOUTS``. A family describes itself with a
:class:`ShapeKind` (its subdirectory, how to load its files, how to name it in a
message) and the catalog reads that family's files on first use, so a command
pays only for the files it needs. Nothing here knows any family.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from tmemviz.errors import TmemvizError
from tmemviz.files import builtin_dir, is_directory, yaml_files


class Named(Protocol):
    name: str
    aliases: tuple[str, ...]


S = TypeVar("S", bound=Named)


@dataclass(frozen=True)
class ShapeKind(Generic[S]):
    """One family's shape files: where they sit and how they are read and named."""

    subdir: str
    """The family's subdirectory of a layouts directory, e.g. ``cp``."""
    title: str
    """What a user calls the family, e.g. ``tcgen05.cp``."""
    command: str
    """The command that shows one of its shapes, e.g. ``cp``."""
    unknown: str
    """How an unknown name is introduced, e.g. ``unknown tcgen05.cp shape``."""
    known: str
    """How the list of known names is introduced, e.g. ``known cp shapes``."""
    load: Callable[[Sequence[Path]], tuple[S, ...]]
    """Read and validate every file (raising :class:`TmemvizError` naming file and field)."""
    top_level: bool = False
    """Whether files directly inside a user's layouts directory belong to this family."""


@dataclass
class Catalog:
    """The shipped layouts directory plus users' ones; each family's shapes read on first use.

    ``kinds`` are the families a name may belong to: an unknown name that one of
    the others knows gets a hint pointing at the right command.
    """

    dirs: tuple[tuple[Path, bool], ...]
    """Each layouts directory, and whether it is the shipped one."""
    kinds: tuple[ShapeKind[Any], ...] = ()
    _loaded: dict[str, tuple[Any, ...]] = field(default_factory=dict, repr=False)

    def files(self, kind: ShapeKind[Any]) -> tuple[Path, ...]:
        """The family's shape files, shipped ones first."""
        found: list[Path] = []
        for directory, builtin in self.dirs:
            if kind.top_level and not builtin:
                found += yaml_files(directory, builtin=False)
            if is_directory(directory / kind.subdir):
                found += yaml_files(directory / kind.subdir, builtin=builtin)
        return tuple(found)

    def shapes(self, kind: ShapeKind[S]) -> tuple[S, ...]:
        """Every shape of the family, validated (once per catalog; the shipped ones alone once per
        process, while their files keep their size and modification time)."""
        if kind.subdir not in self._loaded:
            files = self.files(kind)
            key = _shipped_key(kind, files) if all(builtin for _, builtin in self.dirs) else None
            if key is None or key not in _SHIPPED:
                loaded = kind.load(files)
                if key is not None:
                    _SHIPPED[key] = loaded
            self._loaded[kind.subdir] = _SHIPPED[key] if key is not None else loaded
        return self._loaded[kind.subdir]

    def names(self, kind: ShapeKind[Any]) -> list[str]:
        """The family's shape names, in its own order."""
        return [s.name for s in self.shapes(kind)]

    def find(self, kind: ShapeKind[S], name: str) -> S | None:
        """The shape whose name or alias is ``name`` (any case, dot optional), else None."""
        key = name.strip().lower().lstrip(".")
        for shape in self.shapes(kind):
            if key == shape.name.lower() or key in (a.lower() for a in shape.aliases):
                return shape
        return None

    def get(self, kind: ShapeKind[S], name: str) -> S:
        """The shape named ``name``; an unknown name lists the known ones (and the right family)."""
        shape = self.find(kind, name)
        if shape is not None:
            return shape
        known = ", ".join(s.name for s in self.shapes(kind))
        hint = ""
        for other in self.kinds:
            if other.subdir != kind.subdir and self.find(other, name) is not None:
                hint = f" ({name} is a {other.title} shape: use 'tmemviz {other.command} {name}')"
                break
        raise TmemvizError(f"{kind.unknown} '{name}'; {kind.known}: {known}{hint}")


_SHIPPED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
"""Validated shipped shapes by family and files (path, size, mtime): an API caller or a long session
builds many catalogs over the same files; a user's directory is always read afresh."""


def _shipped_key(kind: ShapeKind[Any], files: Sequence[Path]) -> tuple[Any, ...] | None:
    try:
        stats = [(str(path), path.stat()) for path in files]
    except OSError:
        return None  # read (and refused) as the files say
    return (kind, *((path, st.st_size, st.st_mtime_ns) for path, st in stats))


def load_catalog(
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    kinds: Sequence[ShapeKind[Any]] = (),
    *,
    lazy: bool = False,
) -> Catalog:
    """The shipped shapes plus those of ``extra_dirs``, for the families ``kinds``.

    Every directory must exist. With ``lazy`` each family's files are read when
    first needed (the CLI); otherwise every family of ``kinds`` is validated now.
    """
    dirs = [(builtin_dir(), True)] + [(Path(d), False) for d in extra_dirs]
    for directory, builtin in dirs:
        yaml_files(directory, builtin=builtin)  # a missing directory is an error at once
    catalog = Catalog(tuple(dirs), tuple(kinds))
    if not lazy:
        for kind in kinds:
            catalog.shapes(kind)
    return catalog


def load_unique(
    files: Sequence[Path], load_one: Callable[[Path], S], names: Callable[[S], Iterable[str]], fields: str
) -> list[S]:
    """Every file read by ``load_one``; each name a shape answers to may be defined by one file only."""
    shapes: list[S] = []
    seen: dict[str, str] = {}
    for path in files:
        shape = load_one(path)
        check_unique(path, names(shape), seen, fields)
        shapes.append(shape)
    return shapes


def shipped(kind: ShapeKind[S], name: str) -> S:
    """A shipped shape of ``kind`` by name (doctests and quick scripts)."""
    return load_catalog().get(kind, name)


def check_unique(path: Path, names: Iterable[str], seen: dict[str, str], fields: str) -> None:
    """Refuse a name (or alias) another file of the same family already defines."""
    for key in names:
        k = key.lower()
        if k in seen:
            raise TmemvizError(f"{path}: field {fields}: '{key}' is already defined by {seen[k]}")
        seen[k] = str(path)
