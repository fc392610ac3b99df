"""Files in and out: shape files read safely, result files written all-or-nothing.

Reading: size limit, ``yaml.safe_load``, one-line errors. Every family's shape
loader reports problems as ``FILE: field 'NAME': what is wrong`` through
:class:`TmemvizError`. PyYAML is imported on first read, not at start-up.

The shipped shape files are parsed at most once per installed version: their
documents are kept (as ``marshal`` data, which needs no import to read) in the
user's cache directory (``$TMEMVIZ_CACHE_DIR``, else ``$XDG_CACHE_HOME/tmemviz``
or ``~/.cache/tmemviz``), keyed by each file's
size and modification time, so a one-shot query need not import PyYAML. Users'
own files are always parsed afresh. A cache that cannot be read or written is
simply not used.

Writing (:func:`write_atomic`): a regular file is replaced through a temp file and a
rename, so readers never see a half-written file; special files are written in place,
symbolic links followed, hard links and permissions kept.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tmemviz.errors import TmemvizError

MAX_FILE_BYTES = 1 << 20


def builtin_dir() -> Path:
    """The shipped ``layouts/``: inside the installed package, else beside it in a checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "layouts"
    return packaged if packaged.is_dir() else here.parent / "layouts"


def read_yaml(path: Path) -> Any:
    """The YAML document of ``path``; unreadable, huge or malformed files raise one sentence."""
    try:
        stat = path.stat()
        if stat.st_size > MAX_FILE_BYTES:
            raise TmemvizError(f"{path}: {stat.st_size} bytes is too large for a shape file (limit 1 MiB)")
        key = _shipped_key(path, stat)
        if key is not None and key in _cache().entries:
            return _cache().entries[key]
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TmemvizError(f"{path}: cannot read the file ({exc})") from None
    doc = _parse(path, text)
    if key is not None:
        _cache().remember(key, doc)
    return doc


def _parse(path: Path, text: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except RecursionError:
        raise TmemvizError(f"{path}: the YAML is nested too deeply to be a shape file") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise TmemvizError(f"{path}: not valid YAML{at}: {problem}") from None


def cache_dir() -> Path:
    """Where derived files live: ``$TMEMVIZ_CACHE_DIR``, else ``$XDG_CACHE_HOME/tmemviz``, else
    ``~/.cache/tmemviz``.

    One file per installed version, so an upgrade never reads an older version's documents.
    """
    if os.environ.get("TMEMVIZ_CACHE_DIR"):
        return Path(os.environ["TMEMVIZ_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tmemviz"


def _shipped_key(path: Path, stat: os.stat_result) -> str | None:
    """``relative/path:size:mtime_ns`` for a shipped file; None for a user's file (never cached)."""
    root = builtin_dir()
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return f"{relative.as_posix()}:{stat.st_size}:{stat.st_mtime_ns}"


class _DocumentCache:
    """Parsed shipped documents by key, read from and written back to one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, Any] = {}
        try:
            loaded = marshal.loads(path.read_bytes())
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError, EOFError, TypeError):
            pass  # no cache yet, or a damaged one: it is rebuilt as files are read

    def remember(self, key: str, doc: Any) -> None:
        try:
            # Only what comes back unchanged (shape files hold strings, numbers, lists, mappings).
            if marshal.loads(marshal.dumps(doc)) != doc:
                return
            self.entries[key] = doc
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, marshal.dumps(self.entries), durable=False)
        except (OSError, TypeError, ValueError, TmemvizError, RecursionError):
            self.entries.pop(key, None)  # an unwritable cache directory only costs the next run time


_CACHES: dict[Path, _DocumentCache] = {}


def _cache() -> _DocumentCache:
    from tmemviz import __version__

    # marshal's format belongs to one Python version; the file name says which.
    python = f"py{sys.version_info.major}{sys.version_info.minor}"
    path = cache_dir() / f"documents-{__version__}-{python}.marshal"
    if path not in _CACHES:
        _CACHES[path] = _DocumentCache(path)
    return _CACHES[path]


def yaml_files(directory: Path, *, builtin: bool) -> list[Path]:
    """The ``*.yaml`` / ``*.yml`` files directly inside ``directory``, sorted by name."""
    what = "the shipped layouts directory" if builtin else "layouts directory"
    if not is_directory(directory):
        raise TmemvizError(f"{what} '{_short(directory)}' does not exist or is not a directory")
    try:
        return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    except OSError as exc:
        raise TmemvizError(f"cannot read the {what} '{_short(directory)}': {exc.strerror or exc}") from None


def is_directory(path: Path) -> bool:
    """Whether ``path`` is a directory; a name the OS refuses (too long, a loop) is not one."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _short(path: Path) -> str:
    """A path as an error names it: at most 100 characters, so a sentence stays one line."""
    text = str(path)
    return text if len(text) <= 100 else f"{text[:48]}...{text[-48:]}"


def check_fields(
    doc: Any, source: str, fields: dict[str, type], required: tuple[str, ...], what: str = "fields"
) -> None:
    """A mapping with only known ``fields``, all ``required`` ones, each of its declared type."""
    if not isinstance(doc, dict):
        raise TmemvizError(f"{source}: expected a mapping of {what}")
    for key in doc:
        if key not in fields:
            raise TmemvizError(f"{source}: unknown field '{key}'; allowed fields: {', '.join(fields)}")
    for key in required:
        if key not in doc:
            raise TmemvizError(f"{source}: field '{key}' is missing")
    for key, kind in fields.items():
        if key in doc and not is_kind(doc[key], kind):
            raise TmemvizError(f"{source}: field '{key}' must be {kind_name(kind)}, got {describe(doc[key])}")


def is_kind(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def kind_name(kind: type) -> str:
    return {
        int: "a whole number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
        bool: "true or false",
    }.get(kind, kind.__name__)


def describe(value: Any) -> str:
    """A short description; never ``repr`` a container, which an alias bomb would expand."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} fields"
    if isinstance(value, str):
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    return f"{type(value).__name__} {str(value)[:40]}"


def write_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` as ``-o`` promises: all or nothing, and never damaging the file system.

    - A regular file is replaced atomically (a temp file in the same directory, then a
      rename), so readers never see a half-written file; on any failure the temp file is
      removed and the old file is left as it was. The old file's permission bits (and,
      where allowed, its owner) are kept; a new file gets ``0666 & ~umask`` as ``open``
      would give it.
    - A symbolic link is followed: its target is written (atomically, in the target's own
      directory) and the link stays a link.
    - A file with more than one hard link is written in place, keeping every link: a
      rename would split the links, leaving the other names pointing at the old data.
      The bytes are all computed before the file is opened, so the window in which a
      reader may see a short file is one ``write`` call.
    - A special file (a FIFO, a terminal, ``/dev/null``, ``/dev/stdout``, anything under
      ``/dev`` or ``/proc``) is written in place: renaming over it would replace a device
      with a regular file.
    - A path ending in ``/`` or naming a directory is refused with one sentence.

    ``durable`` also survives a power cut: the data reach the disk (fsync) before the
    rename, and the directory entry after it. Derived caches skip that cost.
    """
    name = os.fspath(path)
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
        _write_in_place(name, data, durable=durable)
        return
    target = Path(os.path.realpath(name)) if os.path.islink(name) else Path(name)
    _replace(name, target, data, info, durable=durable)


def _in_place(name: str, info: os.stat_result | None) -> bool:
    """Special files, system paths and hard-linked files are written where they are (see write_atomic)."""
    if info is None:
        return False
    if not stat.S_ISREG(info.st_mode):
        return True
    system = os.path.abspath(name).startswith(("/dev/", "/proc/"))
    return system or info.st_nlink > 1


def _write_in_place(name: str, data: bytes, *, durable: bool) -> None:
    try:
        with open(name, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable and stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                os.fsync(handle.fileno())
    except OSError as exc:
        raise TmemvizError(f"cannot write {name}: {exc.strerror or exc}") from None


def _replace(name: str, target: Path, data: bytes, info: os.stat_result | None, *, durable: bool) -> None:
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
            handle.write(data)
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


MAX_LINE_BYTES = 1 << 22
"""The longest input line read (4 MiB): far above any compiler's PTX line (a large
``.global`` initializer is a few hundred KiB), and a bound on the memory an endless line
(``/dev/zero``, a binary without newlines) can take."""


def text_lines(
    path: str | os.PathLike[str], what: str = "PTX text", limit: int = MAX_LINE_BYTES
) -> Iterator[str]:
    """The lines of a text file (``-`` is stdin), streamed; binary, non-UTF-8 or endless input is one error.

    Files of any size are read line by line, never whole, and each line at most
    ``limit`` bytes at a time: a longer line is refused when the limit is reached, so
    memory stays flat whatever the input. Each line is decoded on its own, so an error
    names the line that holds the bad byte. ``\r\n`` endings read as ``\n``. Standard
    input is not closed, so reading ``-`` twice reads it once (the second time finds
    its end).
    """
    name = os.fspath(path)
    if name == "-":
        stream: Any = sys.stdin.buffer
        label = "standard input"
    else:
        try:
            stream = open(name, "rb")  # noqa: SIM115
        except OSError as exc:
            raise TmemvizError(f"cannot read {name}: {exc.strerror or exc}") from None
        label = name
    number = 0
    try:
        while True:
            raw = stream.readline(limit + 1)
            if not raw:
                return
            number += 1
            if b"\0" in raw:
                raise TmemvizError(f"{label} is not a text file (a NUL byte on line {number}); give {what}")
            if len(raw) > limit:
                raise TmemvizError(
                    f"{label}: line {number} is longer than {_size(limit)}B, the longest line read; "
                    f"give {what}"
                )
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise TmemvizError(f"{label} is not UTF-8 text (line {number}); give {what}") from None
            yield line[:-2] + "\n" if line.endswith("\r\n") else line
    except IsADirectoryError:
        raise TmemvizError(f"{label} is a directory; give a file of {what}") from None
    except OSError as exc:
        raise TmemvizError(f"cannot read {label}: {exc.strerror or exc}") from None
    finally:
        if name != "-":
            stream.close()


def _size(count: int) -> str:
    """``4194304`` -> ``'4 Mi'`` (to which a unit is added); other counts as digits."""
    for unit, shift in (("Mi", 20), ("Ki", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return str(count)
