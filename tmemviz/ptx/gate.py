"""What the reader of statements may pass over unread (``explain``'s fast path), and how it knows.

``explain`` needs only a function's tcgen05 instructions, what is pending around them, and the values
of a few registers (:mod:`tmemviz.ptx.lazy` finds those later in the kept text). So while nothing is
pending, :func:`tmemviz.ptx.statements.statements` keeps a *plain* line (one statement ending the line
with its ``;``: PTX 4.4 "Statements") as text instead of making a statement of it, and passes over
lines that hold nothing (blank, comments, ``.loc``, a label alone). Given a file's blocks
(:class:`Blocks`), it passes over a whole run of such lines at once, found by one regular expression
(:data:`RUN`) in the block's text rather than line by line in Python. Pure: no I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, chain

LABEL = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*:(?!:)")
"""A label in front of a statement (PTX 4.4): a name and one colon (``::`` is part of an opcode)."""


class Gate:
    """What the reader of statements tells :func:`statements` as it goes (``explain``'s fast path).

    While ``keep`` is a list (inside a function) every line is appended to it; while ``skip`` is also
    true (nothing pending that a plain line could change), a *plain* line (one instruction or
    directive ending the line with its ``;``, no ``tcgen05``, comment, string or scope brace) is kept
    as its text and not read; a line that holds nothing is kept as ``"\\n"`` (or as its text, in a
    run: :data:`RUN`); any other line is read and kept as ``"\\n"``. The function's plain lines can
    then be searched later, when a value is asked for (:mod:`tmemviz.ptx.lazy`).
    """

    SEAL = 1 << 16
    """Kept lines past which the reader is asked to take them (``seal``)."""

    __slots__ = ("data", "keep", "labels", "seal", "skip", "watch")

    def __init__(self) -> None:
        self.keep: list[str] | None = None
        self.skip = False
        self.seal: Callable[[], None] | None = None
        """Called when ``keep`` has grown long: its reader takes the lines and empties it."""
        self.watch: Callable[[str], bool] | None = None
        """While something is pending: given a plain line, applies what it does (its reads) and says
        True, or says False (a branch, a release, a label: the line is read as a statement)."""
        self.labels = False
        """Labels alone are read even while skipping (a deferred function's blocks: ptx/deferred.py)."""
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
    """A line that is one label (it matters only while something is pending)."""
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
_STATEMENT = rf"[^\s{{}}/\";]{_LINE}(?:\{{{_LINE}\}}{_LINE})*+;[ \t]*+"
"""One statement ending its line (vectors at most: no scope brace, nested vector, comment, string)."""
_NOTHING = r"//[^\n]*+|\.loc[ \t][^\n/\";{}(]*+"
"""A comment; a ``.loc`` with nothing after it."""
_LABEL_ALONE = r"[A-Za-z_$][\w$]*+:[ \t]*+"


def _lines(*kinds: str) -> str:
    """Any number of whole lines, each one of ``kinds`` or blank."""
    return rf"(?:[ \t]*+(?:{'|'.join(kinds)})?\n)*+"


RUN = re.compile(
    rf"(?:{_lines(_STATEMENT, _NOTHING, _LABEL_ALONE)[:-2]}"
    rf"|[ \t]*+\{{[ \t]*+\n{_lines(_STATEMENT, _NOTHING, _LABEL_ALONE)}[ \t]*+\}}[ \t]*+\n)*+"
)
"""Whole lines the gate skips without reading them (while nothing is pending), as a run: each one
statement ending the line with its ``;`` (no comment, string, scope brace, nested vector), a comment,
a ``.loc``, a label alone, or blank; and a scope of such lines (an inline-asm ``{ ... }`` on lines of
their own, which changes nothing a reader follows: not the function's depth once closed). A subset of
what :func:`plain`, :func:`nothing` and :func:`label_alone` pass, matched by ``re`` over a block's text
instead of a line at a time."""
RUN_NO_LABELS = re.compile(_lines(_STATEMENT, _NOTHING))
""":data:`RUN` where labels are read (``Gate.labels``): and scopes, which ``check`` reads again."""


class Blocks:
    """The lines of text blocks (``(text, lines)``, ``"".join(lines) == text``: a file read by
    :class:`tmemviz.files.TextLines`), given one at a time by :meth:`lines`, and :meth:`run`: the lines
    after a given one that the gate may skip, found in the block's text at C speed (:data:`RUN`)."""

    __slots__ = ("_block", "_first", "_next", "_offsets", "_source", "_text")

    def __init__(self, blocks: Iterable[tuple[str, list[str]]]) -> None:
        self._source = blocks
        self._text = ""
        self._block: list[str] = []
        self._offsets: list[int] = [0]  # where each line of the block starts in its text, and its end
        self._first = 0  # lines before the block
        self._next = -1  # where the next "tcgen05" is in the text (-1: none)

    def lines(self) -> Iterator[str]:
        return chain.from_iterable(self._blocks())

    def _blocks(self) -> Iterator[list[str]]:
        first = 0
        for text, block in self._source:  # taken when the lines before are all given
            self._text, self._block, self._first = text, block, first
            self._offsets = list(accumulate(map(len, block), initial=0))
            self._next = text.find("tcgen05")
            first += len(block)
            yield block

    def run(self, number: int, max_chars: int, labels: bool) -> list[str]:
        """The lines after line ``number`` (1-based) that :data:`RUN` matches, up to the line of the next
        ``tcgen05`` and the end of the block that holds the line given last; none longer than
        ``max_chars``."""
        index = number - self._first
        offsets = self._offsets
        if index >= len(offsets) - 1:
            return []
        pos = offsets[index]
        text = self._text
        found = self._next
        if 0 <= found < pos:
            found = self._next = text.find("tcgen05", pos)
        end = len(text) if found < 0 else text.rfind("\n", 0, found) + 1
        if end <= pos:
            return []
        pattern = RUN_NO_LABELS if labels else RUN
        end = pattern.match(text, pos, end).end()
        if end == pos:
            return []
        stop = bisect_left(offsets, end, index)
        run = self._block[index:stop]
        if end - pos > max_chars and max(map(len, run)) > max_chars:
            # up to the first line too long (read, and cut, one by one), never into a scope
            long = index + next(i for i, line in enumerate(run) if len(line) > max_chars)
            end = pattern.match(text, pos, offsets[long]).end()
            run = self._block[index : bisect_left(offsets, end, index)]
        return run
