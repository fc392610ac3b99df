"""What the reader of statements may pass over unread (``explain``'s fast path), and how it knows.

``explain`` needs only a function's tcgen05 instructions, what is pending around them, and the values
of a few registers (:mod:`tmemviz.ptx.lazy` finds those later in the kept text). So while nothing is
pending, :func:`tmemviz.ptx.statements.statements` keeps a *plain* line (one statement ending the line
with its ``;``: PTX 4.4 "Statements") as text instead of making a statement of it, and passes over
lines that hold nothing (blank, comments, ``.loc``, a label alone). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable

LABEL = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*:(?!:)")
"""A label in front of a statement (PTX 4.4): a name and one colon (``::`` is part of an opcode)."""


class Gate:
    """What the reader of statements tells :func:`statements` as it goes (``explain``'s fast path).

    While ``keep`` is a list (inside a function) every line is appended to it; while ``skip`` is also
    true (nothing pending that a plain line could change), a *plain* line (one instruction or
    directive ending the line with its ``;``, no ``tcgen05``, comment, string or scope brace) is kept
    as its text and not read; any other line is read and kept as ``"\\n"``. The function's plain
    lines can then be searched later, when a value is asked for (:mod:`tmemviz.ptx.lazy`).
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
