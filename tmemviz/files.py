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

Writing what ``-o`` names is :mod:`tmemviz.writing`.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable, Iterator
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
            # Another version of the same file (changed, or checked out again: a new mtime) is gone
            # for good; kept, every one-shot command would load it again with the whole cache.
            path = key.rsplit(":", 2)[0] + ":"
            for old in [k for k in self.entries if k.startswith(path)]:
                del self.entries[old]
            self.entries[key] = doc
            self.path.parent.mkdir(parents=True, exist_ok=True)
            from tmemviz.writing import write_atomic

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
        raise TmemvizError(f"{what} '{directory}' does not exist or is not a directory")
    try:
        return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    except OSError as exc:
        raise TmemvizError(f"cannot read the {what} '{directory}': {exc.strerror or exc}") from None


def is_directory(path: Path) -> bool:
    """Whether ``path`` is a directory; a name the OS refuses (too long, a loop) is not one."""
    try:
        return path.is_dir()
    except OSError:
        return False


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


MAX_LINE_BYTES = 1 << 22
"""The longest input line read (4 MiB): far above any compiler's PTX line (a large
``.global`` initializer is a few hundred KiB), and a bound on the memory an endless line
(``/dev/zero``, a binary without newlines) can take."""


def text_lines(
    path: str | os.PathLike[str], what: str = "PTX text", limit: int = MAX_LINE_BYTES
) -> TextLines:
    """The lines of a text file (``-`` is stdin), streamed; binary, non-UTF-8 or endless input is one error.

    Files of any size are read a block at a time (at most ``limit`` bytes, 1 MiB), never whole, and
    split at ``\n``: a line longer than ``limit`` bytes is refused once the limit is reached, so
    memory stays flat whatever the input. An error names the line that holds the bad byte, after the
    lines before it were given. ``\r\n`` endings read as ``\n``. Standard input is not closed, so
    reading ``-`` twice reads it once (the second time finds its end), and a block of it is what has
    arrived (a pipe's lines are given as they come).
    """
    return TextLines(os.fspath(path), what, limit)


class _Blocked:
    """Text given as :meth:`blocks` of whole lines; iterated, its lines."""

    __slots__ = ()
    blocks: Callable[[], Iterator[str]]  # each subclass's own

    def __iter__(self) -> Iterator[str]:
        for text in self.blocks():
            yield from lines_of(text)


class TextLines(_Blocked):
    """:func:`text_lines`: iterated, the lines; :meth:`blocks`, the same text a block of whole lines at a
    time (what a reader that passes over many lines at once searches:
    :func:`tmemviz.ptx.statements.statements`)."""

    __slots__ = ("limit", "name", "what")

    def __init__(self, name: str, what: str, limit: int) -> None:
        self.name, self.what, self.limit = name, what, limit

    def blocks(self) -> Iterator[str]:
        """The text a block at a time: whole lines (``\\r\\n`` read as ``\\n``), the file's last at most
        without its newline; never empty."""
        name, what, limit = self.name, self.what, self.limit
        if name == "-":
            stream: Any = getattr(sys.stdin, "buffer", None) or _Encoded(sys.stdin)
            label = "standard input"
        else:
            try:
                stream = open(name, "rb")  # noqa: SIM115
            except OSError as exc:
                raise TmemvizError(f"cannot read {name}: {exc.strerror or exc}") from None
            label = name
        read = getattr(stream, "read1", stream.read)
        size = min(_BLOCK_BYTES, limit)
        number = 0  # lines given so far
        carry = b""
        try:
            while True:
                chunk = read(size)
                if not chunk:
                    if carry:  # the last line, without its newline
                        text, error = _checked(carry, number, label, what, limit)
                        if text:
                            yield text
                        if error:
                            raise error
                    return
                block = carry + chunk if carry else chunk
                cut = block.rfind(b"\n") + 1
                if not cut:
                    if len(block) > limit:
                        raise _checked(block, number, label, what, limit)[1] or AssertionError
                    carry = block
                    continue
                carry = block[cut:]
                block = block[:cut]
                text, error = _checked(block, number, label, what, limit)
                if text:
                    yield text
                if error:
                    raise error
                number += text.count("\n")
        except IsADirectoryError:
            raise TmemvizError(f"{label} is a directory; give a file of {what}") from None
        except OSError as exc:
            raise TmemvizError(f"cannot read {label}: {exc.strerror or exc}") from None
        finally:
            if name != "-":
                stream.close()


class Replayed(_Blocked):
    """Blocks already read (to look at a file's first lines), then the rest: :class:`TextLines` again."""

    __slots__ = ("read", "rest")

    def __init__(self, read: list[str], rest: Iterator[str]) -> None:
        self.read, self.rest = read, rest

    def blocks(self) -> Iterator[str]:
        read, self.read = self.read, []
        yield from read
        yield from self.rest


_BLOCK_BYTES = 1 << 20
_ASCII_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"
"""Characters other than ``\n`` that ``str.splitlines`` splits at, of ASCII (and U+0085, U+2028/9)."""


def _plain_breaks(text: str) -> bool:
    """Whether ``\n`` is the only line break ``str.splitlines`` would find in ``text``."""
    if any(c in text for c in _ASCII_BREAKS):
        return False
    return text.isascii() or not any(c in text for c in "\x85\u2028\u2029")


def _checked(block: bytes, number: int, label: str, what: str, limit: int) -> tuple[str, TmemvizError | None]:
    """The text of ``block`` (whole lines, or the file's last piece; ``\\r\\n`` read as ``\\n``),
    ``number`` lines having come before, up to the first line with a NUL byte, more than ``limit`` bytes
    or bad UTF-8, and the error that refuses that line (given after the lines before it, as a
    line-by-line reader would)."""
    bad = len(block)  # where the first bad line starts
    why = ""
    first = block.find(b"\n") + 1 or len(block)
    if first > limit:  # only the first line can be too long: the others lie within one read
        bad, why = 0, "long"
    nul = block.find(b"\0", 0, bad + limit + 1 if why else bad)
    if nul >= 0:
        bad, why = block.rfind(b"\n", 0, nul) + 1, "nul"
    try:
        text = block[:bad].decode("utf-8")
    except UnicodeDecodeError as exc:
        bad, why = block.rfind(b"\n", 0, exc.start) + 1, "utf-8"
        text = block[:bad].decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if not why:
        return text, None
    line = number + block.count(b"\n", 0, bad) + 1
    if why == "nul":
        return text, TmemvizError(f"{label} is not a text file (a NUL byte on line {line}); give {what}")
    if why == "long":
        return text, TmemvizError(
            f"{label}: line {line} is longer than {_size(limit)}B, the longest line read; give {what}"
        )
    return text, TmemvizError(f"{label} is not UTF-8 text (line {line}); give {what}")


def lines_of(text: str, most: int = -1) -> list[str]:
    """The lines of ``text`` (the first ``most`` of them, when given), split at ``\\n`` only (as a file's
    lines are), each with its newline but the last at most.

    >>> lines_of("a\\nb\\x0cc\\n\\nd"), lines_of("a\\nb\\nc", 2), lines_of("a\\nb", 5)
    (['a\\n', 'b\\x0cc\\n', '\\n', 'd'], ['a\\n', 'b\\n'], ['a\\n', 'b'])
    """
    if most < 0 and _plain_breaks(text):
        return text.splitlines(keepends=True)
    pieces = text.split("\n", most)
    tail = pieces.pop()
    lines = [piece + "\n" for piece in pieces]
    if tail and (most < 0 or len(lines) < most):
        lines.append(tail)
    return lines


class _Encoded:
    """A text stream (``sys.stdin`` replaced by a ``StringIO``) read as UTF-8 bytes, a block at a time."""

    def __init__(self, text: Any) -> None:
        self.text = text

    def read(self, size: int) -> bytes:
        return str(self.text.read(size)).encode("utf-8", errors="surrogateescape")


def _size(count: int) -> str:
    """``4194304`` -> ``'4 Mi'`` (to which a unit is added); other counts as digits."""
    for unit, shift in (("Mi", 20), ("Ki", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return str(count)
