"""What the reader of statements may pass over unread (``explain``'s fast path), and how it knows.

``explain`` needs only a function's tcgen05 instructions and the values of a few registers
(:mod:`tmemviz.ptx.lazy` finds those later in the kept text). So
:func:`tmemviz.ptx.statements.statements` keeps a *plain* line (one statement ending the line
with its ``;``: PTX 4.4 "Statements") as text instead of making a statement of it, and passes over
lines that hold nothing (blank, comments, ``.loc``, a label alone). Given a file's blocks
(:class:`Blocks`), it passes over a whole run of such lines at once, found by one regular expression
(:func:`runs`) in the block's text rather than line by line in Python. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

LABEL = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*:(?!:)")
"""A label in front of a statement (PTX 4.4): a name and one colon (``::`` is part of an opcode)."""


class Gate:
    """What the reader of statements tells :func:`statements` as it goes (``explain``'s fast path).

    While ``keep`` is a list (inside a function) every line is appended to it; while ``skip`` is also
    true, a *plain* line (one instruction or
    directive ending the line with its ``;``, no ``tcgen05``, comment, string or scope brace) is kept
    as its text and not read; a line that holds nothing is kept as ``"\\n"`` (or as its text, in a
    run: :func:`runs`); any other line is read and kept as ``"\\n"``. The function's plain lines can
    then be searched later, when a value is asked for (:mod:`tmemviz.ptx.lazy`).
    """

    SEAL = 1 << 16
    """Kept lines past which the reader is asked to take them (``seal``)."""
    SEAL_CHARS = 1 << 16
    """A run longer than this (characters) is taken at once: its text goes into one joined segment, not
    held twice when joined later."""

    __slots__ = ("ahead", "data", "keep", "labels", "seal", "skip")

    def __init__(self) -> None:
        self.keep: list[str] | None = None
        self.skip = False
        self.seal: Callable[[], None] | None = None
        """Called when ``keep`` has grown long: its reader takes the lines and empties it."""
        self.labels = False
        """Labels alone are read even while skipping (a deferred function's blocks: ptx/deferred.py)."""
        self.ahead: Callable[[], bool] | None = None
        """Set by :func:`statements` when its lines come in blocks: whether the text already read ahead
        shows a ``tcgen05`` in the function whose body just opened (:meth:`Blocks.tcgen05_ahead`)."""
        self.data = False
        """Inside a scope that is no function (``.section .debug_info { .b8 1 ... }``): a line with
        no ``;``, brace, string or block comment that continues a directive is not read (no reader
        needs a data directive's text there)."""


def plain(code: str, max_chars: int) -> bool:
    """One statement the gate may skip, given it has one ``;`` at its end: no comment, no string, no
    scope brace, not too long."""
    return (
        "/" not in code
        and '"' not in code
        and (("{" not in code and "}" not in code) or _one_statement(code))
        and len(code) <= max_chars
    )


def label_alone(code: str) -> bool:
    """A line that is one label."""
    if code[-1:] != ":":
        return False
    m = LABEL.match(code)
    return m is not None and m.end() == len(code)


def nothing(code: str) -> bool:
    """A whole line that holds no instruction and no label: blank, a ``//`` comment, a ``.loc`` (it
    ends with its line, PTX 11.2), a ``.pragma "..."``."""
    if not code or code[:2] == "//":
        return True
    if code[:9] == '.pragma "':  # .pragma "nounroll"; (a string, no comment, nothing to read)
        return code.find('"', 9) == len(code) - 2 and code[-1] == ";" and "/" not in code
    if code[:5] not in (".loc\t", ".loc "):
        return False
    head = code.split("//", 1)[0]  # what comes before a comment: a plain .loc has no (, string, brace
    return not any(c in head for c in '(/"{};')


def _one_statement(code: str) -> bool:
    """A line with braces that is still one statement: vectors only (no scope brace at its start)."""
    return code.lstrip()[:1] not in "{}" and code.count("{") == code.count("}")


_LINE = "[" + re.escape("".join(chr(c) for c in range(256) if chr(c) not in '\n;/"{}')) + "]*+"
"""Characters inside a plain line: named one by one (Latin-1 but ``\n ; / " { }``), which ``re`` tests as
one bitmap, about a sixth faster than the negated class; any other character ends the run (read then)."""
_STATEMENT = rf"[^\s{{}}/\";]{_LINE}(?:\{{{_LINE}\}}{_LINE})*+;[ \t]*+(?://[^\n]*+)?"
"""One statement ending its line, a comment after it at most (vectors at most: no scope brace, nested
vector, string, block comment)."""
_NOTHING = r"//[^\n]*+|\.loc[ \t][^\n/\";{}(]*+(?://[^\n]*+)?"
"""A comment; a ``.loc`` (a comment after it at most: Triton writes the source line there)."""
_LABEL_ALONE = r"[A-Za-z_$][\w$]*+:[ \t]*+"


def _lines(longest: int | None, *kinds: str) -> str:
    """Any number of whole lines, each one of ``kinds`` or blank, none longer than ``longest`` with its
    newline (a longer one is read, and cut, one by one); ``None``: any length."""
    bound = "" if longest is None else rf"(?=[^\n]{{0,{longest - 1}}}\n)"
    return rf"(?:{bound}[ \t]*+(?:{'|'.join(kinds)})?\n)*+"


@functools.lru_cache(maxsize=16)
def runs(longest: int | None = 1 << 16, labels: bool = False) -> re.Pattern[str]:
    """Whole lines the gate skips without reading them, as a run: each one
    statement ending the line with its ``;`` (a ``//`` comment after it at most; no string, scope brace,
    nested vector: the reader reads such a line as the same one statement), a comment,
    a ``.loc``, a label alone, or blank, none longer than ``longest``; and a scope of such lines (an
    inline-asm ``{ ... }`` on lines of their own, which changes nothing a reader follows: not the
    function's depth once closed). A subset of what :func:`plain`, :func:`nothing` and
    :func:`label_alone` pass, matched by ``re`` over a block's text instead of a line at a time.
    ``labels``: where labels are read (``Gate.labels``), and scopes, which ``check`` reads again.
    ``longest=None``: lines of any length (:func:`run_end` looks for a longer one only in a run longer
    than that: the bound costs a second pass over every character)."""
    if labels:
        return re.compile(_lines(longest, _STATEMENT, _NOTHING))
    line = _lines(longest, _STATEMENT, _NOTHING, _LABEL_ALONE)
    return re.compile(rf"(?:{line[:-2]}|[ \t]*+\{{[ \t]*+\n{line}[ \t]*+\}}[ \t]*+\n)*+")


RUN = runs(None)
""":func:`runs` as the reader matches it where no line can be too long (:func:`run_end`): the one
compiled here is the one used."""
RUN_NO_LABELS = runs(None, labels=True)


def run_end(text: str, pos: int, end: int, longest: int, labels: bool = False) -> int:
    """Where the run of :func:`runs` (``longest``, ``labels``) from ``pos`` ends in
    ``text[:end]``: matched without the bound on each line where the text to match is shorter than it
    (no line there can be longer).

    >>> run_end("\\tmov.b32 %r1, 0;\\n\\tadd.s32 %r1, %r1, 123456;\\n", 0, 44, 20)
    17
    """
    return runs(None if end - pos <= longest else longest, labels).match(text, pos, end).end()


class Blocks:
    """The lines of text blocks (whole lines each, the last at most without its newline: a file read by
    :class:`tmemviz.files.TextLines`), given one at a time (an iterator), and :meth:`run`: from the line
    given last, the lines the gate may skip, found in the block's text at C speed (:func:`runs`) and
    passed over without being made one by one."""

    __slots__ = ("_blocks", "_next", "_pos", "_start", "_text")

    def __init__(self, blocks: Iterable[str]) -> None:
        self._blocks = iter(blocks)
        self._text = ""
        self._start = 0  # where the line given last starts in the text
        self._pos = 0  # where the next line starts
        self._next = -1  # where the next "tcgen05" is in the text (-1: none)

    def __iter__(self) -> Blocks:
        return self

    def __next__(self) -> str:
        text, start = self._text, self._pos
        if start >= len(text):
            while True:  # the next block that holds anything
                more = next(self._blocks, None)
                if more is None:
                    raise StopIteration
                if more:
                    break
            self._text, text, start, self._next = more, more, 0, more.find("tcgen05")
        end = text.find("\n", start) + 1 or len(text)
        self._start, self._pos = start, end
        return text[start:end]

    def tcgen05_ahead(self) -> bool:
        """Whether the block's text after the line given last holds ``tcgen05`` before any function
        header (``.entry``/``.func``) does: the function being read then has it (or a comment or name
        does). False when the block ends first (not known)."""
        text, pos = self._text, self._pos
        found = self._next
        if 0 <= found < pos:
            found = self._next = text.find("tcgen05", pos)
        return found >= 0 and text.find(".entry", pos, found) < 0 and text.find(".func", pos, found) < 0

    def run(self, max_chars: int, labels: bool) -> tuple[str, int]:
        """From the line given last: the text of the lines :func:`runs` matches (it the first), up to the
        line of the next ``tcgen05`` and the end of the block, none longer than ``max_chars``, and how
        many lines they are; the next line given is the one after them. ``("", 0)`` when it is no such
        line."""
        return self._run(self._start, self._pos, max_chars, labels)

    def run_next(self, max_chars: int, labels: bool) -> tuple[str, int]:
        """:meth:`run` from the line after the one given last, before it is given (not made a string only
        to be passed over); ``("", 0)`` when it starts no run or the block ends before it."""
        return self._run(self._pos, self._pos + 1, max_chars, labels)

    def _run(self, pos: int, least: int, max_chars: int, labels: bool) -> tuple[str, int]:
        """The run from ``pos`` if it reaches ``least`` at least."""
        text = self._text
        found = self._next
        if 0 <= found < pos:
            found = self._next = text.find("tcgen05", pos)
        end = len(text) if found < 0 else text.rfind("\n", 0, found) + 1
        if end < least:
            return "", 0
        end = run_end(text, pos, end, max_chars, labels)
        if end < least:
            return "", 0
        self._pos = end
        return text[pos:end], text.count("\n", pos, end)
