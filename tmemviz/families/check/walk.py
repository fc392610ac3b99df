"""What ``tmemviz check`` reads from its arguments: files as named, directories walked for PTX files.

A walk is sorted (the same files in the same order on every machine and file system), skips hidden
directories (``.git``, ``.venv``) and what ``exclude`` matches, and takes ``*.ptx`` files: what check
reads is PTX, and a PTX module is a ``.ptx`` file as nvcc, Triton and the CuTe DSL write it. Content
then decides (:mod:`tmemviz.families.check.source`): a walked file that holds no PTX is passed over,
one named on the command line is refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from tmemviz.errors import TmemvizError

SUFFIX = ".ptx"
"""The files a directory walk takes (any case: ``K.PTX`` too)."""


@dataclass(frozen=True)
class Exclude:
    """Glob patterns (``*`` matches across ``/``) and the directory they are relative to: a path is
    excluded when a pattern matches its path from there, or its name alone."""

    patterns: tuple[str, ...]
    base: str

    def __call__(self, path: str) -> bool:
        """Whether ``path`` is left out.

        >>> skip = Exclude(("build", "old/*.ptx", "*_draft.ptx"), "/repo")
        >>> skip("/repo/build"), skip("/repo/old/a.ptx"), skip("/repo/k/a_draft.ptx"), skip("/repo/k/a.ptx")
        (True, True, True, False)
        """
        if not self.patterns:
            return False
        name = os.path.basename(path)
        relative = os.path.relpath(os.path.abspath(path), self.base).replace(os.sep, "/")
        return any(fnmatchcase(name, p) or fnmatchcase(relative, p.rstrip("/")) for p in self.patterns)


def inputs(names: Sequence[str], exclude: Exclude | None = None) -> list[tuple[str, bool]]:
    """Each file to read, and whether it was named (a walked one was found in a directory); ``-`` is
    standard input. A missing path, a device or a second ``-`` is refused before anything is read."""
    if names.count("-") > 1:
        raise TmemvizError("standard input (-) can be read only once; give - at most once")
    out: list[tuple[str, bool]] = []
    for name in names:
        if name == "-":
            out.append((name, True))
            continue
        try:
            mode = os.stat(name).st_mode
        except OSError as exc:
            raise TmemvizError(f"cannot read {name}: {exc.strerror or exc}") from None
        if stat.S_ISDIR(mode):
            out.extend((path, False) for path in walk(name, exclude))
        elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise TmemvizError(f"{name} is not a regular file or a pipe; give a PTX file or a directory")
        else:
            out.append((name, True))
    return out


def walk(top: str, exclude: Exclude | None = None) -> list[str]:
    """The ``*.ptx`` files under ``top``, sorted by their path's parts; hidden directories and what
    ``exclude`` matches are skipped, and so are symbolic links to directories (no cycles)."""

    def refuse(exc: OSError) -> None:
        raise TmemvizError(f"cannot read {exc.filename}: {exc.strerror or exc}")

    found: list[tuple[str, ...]] = []
    for root, dirs, files in os.walk(top, onerror=refuse):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not (exclude and exclude(os.path.join(root, d)))
        )
        relative = os.path.relpath(root, top)
        parts = () if relative == os.curdir else tuple(relative.split(os.sep))
        for name in files:
            path = os.path.join(root, name)
            if not name.lower().endswith(SUFFIX) or (exclude and exclude(path)):
                continue
            if os.path.isfile(path):  # a dangling link or a socket is no file to read
                found.append((*parts, name))
    # "kernels/a.ptx" as the user spelled the directory; under ".", plainly "a.ptx".
    return [
        os.path.join(*parts) if top == os.curdir else os.path.join(top, *parts) for parts in sorted(found)
    ]
