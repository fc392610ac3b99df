"""The reader of one statement across lines: an open ``/* */`` comment, a statement not yet ended by its
``;`` (nvcc prints a vector over lines), a directive that ends with its line (PTX 11 "Directives"), a
statement cut at its bound. :func:`tmemviz.ptx.statements.statements` gives it the lines its own fast
paths do not take.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from tmemviz.ptx.gate import LABEL as _LABEL

MAX_DIRECTIVE_CHARS = 1 << 26
"""A directive may be long: nvcc writes a data initializer on one line (curand's 102,400-byte tables are
460 KB of text). Up to this length (64 MiB) it is read without a warning, its text kept only up to
:data:`KEEP_DIRECTIVE_CHARS` (no check reads a data initializer)."""
KEEP_DIRECTIVE_CHARS = 4096
_SPLIT = re.compile(r"([;{}])")
_COMMENT = re.compile(r'//|/\*|"')
_OPEN_ENDED = (".version", ".target", ".address_size", ".file", ".loc", ".section", ".maxntid",
               ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank",
               ".reqnctapercluster", ".explicitcluster", ".noreturn", ".abi_preserve",
               ".abi_preserve_control", ".blocksareclusters")  # fmt: skip
"""Directives that take no ``;``: they end with their line (PTX 11 "Directives")."""
_HEADERS = re.compile(r"(?:^|\s)\.(?:entry|func)\b")


class Statement(NamedTuple):
    """One statement: what kind, its text (comments removed, no ``;``), its first and last line."""

    kind: str
    text: str
    first: int
    last: int


class Reader:
    """The state between lines: an open block comment, the statement being read, vector depth."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.in_comment = False
        self.parts: list[str] = []
        self.size = 0
        self.first = 0
        self.depth = 0
        self.cut = False
        """The statement was cut: the rest of its line is dropped."""
        self.directive = False
        self.parens = 0
        """``(`` less ``)`` in the parts kept (a directive ends with its line only once they match)."""

    def feed(self, line: str, number: int) -> Iterator[Statement]:
        if self.in_comment or _COMMENT.search(line):
            line = self._uncomment(line)
        code = line.strip()
        if not code:
            return
        if (
            not self.parts
            and code[-1] == ";"
            and code.count(";") == 1
            and "{" not in code
            and "}" not in code
        ):  # the common case: one whole statement on the line
            code = code[:-1].strip()
            if not code:
                return
            m = _LABEL.match(code) if ":" in code else None
            if m is not None:
                yield Statement("label", m.group(1), number, number)
                code = code[m.end() :].strip()
                if not code:
                    return
            kind = "directive" if code[0] == "." else "instruction"
            if len(code) > self.max_chars:
                yield Statement("overlong", code[:200], number, number)
                return
            yield Statement(kind, code.rstrip(), number, number)
            return
        for piece in _SPLIT.split(line):
            if not piece:
                continue
            if self.cut:
                if piece == ";":
                    self.cut = False
                continue
            if piece == ";":
                yield from self._end(number, "instruction")
            elif piece == "{":
                if self._scope_brace():
                    if self.parts:
                        yield from self._end(number, "directive")
                    yield Statement("open", "{", number, number)
                else:
                    self.depth += 1
                    self._add("{", number)
            elif piece == "}":
                if self.depth:
                    self.depth -= 1
                    self._add("}", number)
                else:
                    if self.parts:
                        yield from self._end(number, "unterminated")
                    yield Statement("close", "}", number, number)
            else:
                if not self.parts:
                    while True:
                        m = _LABEL.match(piece) if ":" in piece else None
                        if m is None:
                            break
                        yield Statement("label", m.group(1), number, number)
                        piece = piece[m.end() :]
                    if not piece.strip():
                        continue
                    piece = piece.lstrip()
                self._add(piece, number)
            if self.size > (MAX_DIRECTIVE_CHARS if self.directive else self.max_chars):
                text = "".join(self.parts)[:200]
                yield Statement("overlong", text, self.first, number)
                self._reset()
                self.cut = True
        self.cut = False
        if self.parts:
            if self._ends_with_line():
                yield from self._end(number, "directive")
            else:
                self._add("\n", number)

    def finish(self, number: int) -> Iterator[Statement]:
        if self.parts and "".join(self.parts).strip():
            yield Statement("unterminated", "".join(self.parts).strip(), self.first, number)
        self._reset()

    def _add(self, piece: str, number: int) -> None:
        if not self.parts:
            self.first = number
            self.directive = piece[:1] == "."  # its data is counted, not kept, past a few KB
        self.size += len(piece)
        if self.directive and self.size > KEEP_DIRECTIVE_CHARS:
            return
        self.parts.append(piece)
        if "(" in piece or ")" in piece:
            self.parens += piece.count("(") - piece.count(")")

    def _end(self, number: int, default: str) -> Iterator[Statement]:
        text = "".join(self.parts).strip()
        self._reset()
        if text:
            kind = "directive" if text[0] == "." else default
            yield Statement(kind, text, self.first, number)

    def _reset(self) -> None:
        self.directive = False
        self.parts = []
        self.size = 0
        self.depth = 0
        self.parens = 0

    def _scope_brace(self) -> bool:
        """A ``{`` opens a scope at the start of a statement or after a function header."""
        if not self.parts:
            return True
        head = self.parts[0]
        return head[:1] == "." and _HEADERS.search("".join(self.parts)) is not None

    def _ends_with_line(self) -> bool:
        """A directive without ``;`` ends with its line once its parentheses are closed; a function
        header once it has its parameter list (nvcc writes ``.extern .func __assertfail`` and the
        ``(...)`` on the lines after it, then ``;``)."""
        head = self.parts[0]
        if head[:1] != "." or self.parens or self.depth:
            return False  # (the parentheses counted as parts are kept: a header's lines are not joined)
        text = "".join(self.parts)
        return text.startswith(_OPEN_ENDED) or (_HEADERS.search(text) is not None and "(" in text)

    def _uncomment(self, line: str) -> str:
        """The line without its comments (``"`` strings kept whole), tracking an open ``/*``."""
        out: list[str] = []
        i = 0
        n = len(line)
        while i < n:
            if self.in_comment:
                end = line.find("*/", i)
                if end < 0:
                    return "".join(out)
                self.in_comment = False
                out.append(" ")
                i = end + 2
                continue
            m = _COMMENT.search(line, i)
            if m is None:
                out.append(line[i:])
                break
            out.append(line[i : m.start()])
            token = m.group(0)
            if token == "//":
                break
            if token == "/*":
                self.in_comment = True
                i = m.end()
                continue
            close = line.find('"', m.end())
            close = n - 1 if close < 0 else close
            out.append(line[m.start() : close + 1])
            i = close + 1
        return "".join(out)
