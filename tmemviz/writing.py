"""Writing what ``-o`` names: all or nothing, and never damaging what is already there.

The rules (and why) are in :func:`write_atomic`'s docstring; ``docs/output-files.md`` says
them for users.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tmemviz.errors import TmemvizError

Produce = Callable[[Callable[[bytes], Any]], Any]
"""Writes a file's bytes, piece by piece, through the ``write`` it is given (a streamed document)."""


def write_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path``: :func:`write_with` for bytes already made."""
    write_with(path, lambda write: write(data), durable=durable)


def write_with(path: str | os.PathLike[str], produce: Produce, *, durable: bool = True) -> None:
    """Write what ``produce`` makes to ``path`` as ``-o`` promises: all or nothing, never damaging anything.

    - A regular file is replaced atomically (a temp file in the same directory, then a
      rename), so readers never see a half-written file; on any failure the temp file is
      removed and the old file is left as it was. The old file's permission bits (and,
      where allowed, its owner) are kept; a new file gets ``0666 & ~umask`` as ``open``
      would give it.
    - A symbolic link is followed: its target is written (atomically, in the target's own
      directory) and the link stays a link.
    - A file with more than one hard link is written in place, keeping every link: a
      rename would split the links, leaving the other names pointing at the old data.
      Bytes made up front are one ``write`` call; a streamed document is written as it is
      made, so a reader of another link may see it grow.
    - A special file (a FIFO, a terminal, ``/dev/null``, anything under ``/dev`` or
      ``/proc``) is written in place: renaming over it would replace a device with a
      regular file. ``/dev/stdout`` and ``/dev/stderr`` are this process's own streams.
    - A path ending in ``/`` or naming a directory is refused with one sentence.

    ``durable`` also survives a power cut: the data reach the disk (fsync) before the
    rename, and the directory entry after it. Derived caches skip that cost.
    """
    name = os.fspath(path)
    stream = _STREAMS.get(name)
    if stream is not None:
        _write_stream(name, stream, produce)
        return
    if name.endswith(("/", os.sep)) or (os.altsep and name.endswith(os.altsep)):
        raise TmemvizError(f"cannot write {name}: a path ending in '/' names a directory; give a file name")
    try:
        info: os.stat_result | None = os.stat(name)  # follows symbolic links
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise TmemvizError(f"cannot write {name}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise TmemvizError(f"cannot write {name}: it is a directory; give a file name")
    if _in_place(name, info):
        _write_in_place(name, produce, durable=durable)
        return
    target = Path(os.path.realpath(name)) if os.path.islink(name) else Path(name)
    _replace(name, target, produce, info, durable=durable)


_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/1": 1, "/dev/fd/2": 2}
"""Names of this process's own output, written to the descriptor itself, as shells do: the file
system's ``/dev/stdout`` may be missing or, in some containers, an unrelated regular file."""


def _write_stream(name: str, fd: int, produce: Produce) -> None:
    target = sys.stdout if fd == 1 else sys.stderr
    try:
        target.flush()
        buffer = getattr(target, "buffer", None)
        if buffer is not None:
            produce(buffer.write)
            buffer.flush()
        else:
            produce(lambda data: target.write(data.decode("utf-8", errors="replace")))
            target.flush()
    except OSError as exc:
        raise TmemvizError(f"cannot write {name}: {exc.strerror or exc}") from None


def _in_place(name: str, info: os.stat_result | None) -> bool:
    """Special files, system paths and hard-linked files are written where they are (see write_atomic)."""
    if info is None:
        return False
    if not stat.S_ISREG(info.st_mode):
        return True
    system = os.path.abspath(name).startswith(("/dev/", "/proc/"))
    return system or info.st_nlink > 1


def _write_in_place(name: str, produce: Produce, *, durable: bool) -> None:
    try:
        with open(name, "wb") as handle:
            produce(handle.write)
            handle.flush()
            if durable and stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                os.fsync(handle.fileno())
    except OSError as exc:
        raise TmemvizError(f"cannot write {name}: {exc.strerror or exc}") from None


def _replace(
    name: str, target: Path, produce: Produce, info: os.stat_result | None, *, durable: bool
) -> None:
    """Write a temp file beside ``target`` and rename it over ``target``."""
    import tempfile

    directory = target.parent if str(target.parent) else Path(".")
    try:
        # A short temp name: the target's own name may already be at the 255-byte limit.
        fd, tmp = tempfile.mkstemp(prefix=".tmemviz-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise TmemvizError(f"cannot write {name}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            produce(handle.write)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if info is not None:
            _keep_owner(tmp, info)
            os.chmod(tmp, stat.S_IMODE(info.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException as exc:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise TmemvizError(f"cannot write {name}: {exc.strerror or exc}") from None
        raise
    if durable:
        _sync_directory(directory)


def _keep_owner(tmp: str, info: os.stat_result) -> None:
    """Give the new file the old one's owner and group where allowed (root, or one's own group)."""
    if not hasattr(os, "chown"):
        return
    import contextlib

    # Where not allowed, the file becomes the writer's, as any editor's save would make it.
    with contextlib.suppress(OSError):
        os.chown(tmp, info.st_uid, info.st_gid)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; where the OS cannot open a directory, there is nothing to do."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems (and Windows) refuse fsync on a directory
    finally:
        os.close(fd)
