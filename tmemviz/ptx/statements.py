"""PTX text as a stream of statements, whatever the spacing: the one reader of whole modules.

PTX is free-form (PTX ISA 4.1 "Source format"): whitespace, tabs and newlines separate tokens but
are otherwise insignificant, a statement ends at ``;``, comments are ``//`` to the end of the line
or ``/* ... */`` anywhere. Compilers print it in very different ways: nvcc puts inline asm on the
page as written (``tcgen05.ld.sync.aligned.32x32b.x16.b32{%r743, ...},[%r299];`` with no space,
a vector split over lines, a ``{ ... }`` scope around several statements), Triton and the CuTe DSL
one statement per line with tabs. This module turns any of them into :class:`Statement` records:

* ``instruction``: ``@%p1 tcgen05.mma...`` without its ``;`` (labels in front of it split off);
* ``directive``: ``.target sm_100a``, ``.reg .b32 %r<9>;``, a function header ``.visible .entry k(...)``;
  directives without a ``;`` (``.version``, ``.target``, ``.maxntid``...) end with their line;
* ``label``: ``$L__BB0_1`` (from ``$L__BB0_1:``);
* ``open``/``close``: a scope brace (a function body, an inline-asm block), told apart from a
  register vector's ``{`` by where it stands (PTX 4.4 "Statements": a vector is an operand);
* ``overlong``: a statement longer than :data:`MAX_STATEMENT_CHARS`, cut there (its start kept), so
  text that never reaches a ``;`` costs bounded memory; reading goes on with the next line;
* ``unterminated``: what is left at the end of the text without its ``;``.

Pure: no I/O; lines (or any pieces of text) in, statements out, one pass, memory bounded by the
longest statement. Lines that come with their blocks' text (``lines.blocks()``: a file read by
:class:`tmemviz.files.TextLines`) are passed over a run at a time where the gate lets them
(:class:`tmemviz.ptx.gate.Blocks`); the statements are the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import NamedTuple

from tmemviz.ptx.gate import LABEL as _LABEL
from tmemviz.ptx.gate import Blocks, Gate, label_alone, nothing, plain

MAX_STATEMENT_CHARS = 1 << 16
"""A statement longer than this (64 KiB) is cut: the longest real one, a 128-register tcgen05.ld
vector, is about 1.3 KB."""

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


def label_of(code: str) -> int | None:
    """Where the text after a leading ``label:`` starts, or None when ``code`` has none."""
    m = _LABEL.match(code)
    return m.end() if m else None


class Statement(NamedTuple):
    """One statement: what kind, its text (comments removed, no ``;``), its first and last line."""

    kind: str
    text: str
    first: int
    last: int


def statements(
    lines: Iterable[str],
    max_chars: int = MAX_STATEMENT_CHARS,
    gate: Gate | None = None,
) -> Iterator[Statement]:
    """Every statement of ``lines`` in order (but the plain lines ``gate`` lets it skip).

    >>> for s in statements(["tcgen05.ld.sync.aligned.32x32b.x2.b32{%r1,", " %r2},[%r9]; // c", "$L1:"]):
    ...     print(s.kind, repr(s.text), s.first, s.last)
    instruction 'tcgen05.ld.sync.aligned.32x32b.x2.b32{%r1,\\n %r2},[%r9]' 1 2
    label '$L1' 3 3
    >>> [s.kind for s in statements([".visible .entry k(", ".param .u64 p", ")", ".maxntid 128", "{",
    ...     "{ .reg .pred p; setp.ne.b32 p, %r1, 0; }", "}"])]
    ['directive', 'directive', 'open', 'open', 'directive', 'instruction', 'close', 'close']
    """
    reader = _Reader(max_chars)
    number = 0
    new = tuple.__new__  # a Statement without a Python-level constructor call: most lines are one
    idle = True  # no statement open across lines, no /* comment open
    if gate is None:
        gate = Gate()
    blocks = getattr(lines, "blocks", None)  # a file's blocks: runs of skipped lines found in its text
    source = Blocks(blocks()) if blocks is not None else None
    it = source if source is not None else iter(lines)
    ahead = False  # the lines after a statement were passed as a run before the next was given
    for raw in it:
        number += 1  # a piece without its newline is still one line to its reader
        keep = gate.keep
        if keep is not None:
            skip, watch = gate.skip, gate.watch
            if idle and (skip or watch is not None):
                # Lines the gate passes, one after another: nothing is yielded meanwhile, so the
                # state stays as the reader left it (but for what watch itself changes).
                append = keep.append
                number -= 1  # counted again below
                first = raw
                ran, ahead = ahead, False  # the line after a run is one it stopped at: not tried again
                for raw in chain((first,), it):
                    number += 1
                    if source is not None and not ran and (skip or gate.watch_run is not None):
                        run, count = source.run(max_chars, gate.labels, not skip)
                        if count:  # this line and those after it the gate passes, at once
                            if not skip:  # something is pending: the run's reads count
                                gate.watch_run(run)  # type: ignore[misc]
                                skip, watch = gate.skip, gate.watch
                            append(run)
                            number += count - 1
                            if (len(keep) > Gate.SEAL or len(run) > Gate.SEAL_CHARS) and gate.seal:
                                gate.seal()
                            ran = True
                            continue
                    ran = False
                    if "tcgen05" in raw:
                        break
                    if not number & 0xFFFF and gate.seal is not None:
                        gate.seal()  # a long run of kept lines: joined, let go
                    if (
                        raw.find(";") == (n := len(raw)) - 2
                        and raw[-1] == "\n"
                        and "/" not in raw
                        and '"' not in raw
                        and (
                            ("{" not in raw and "}" not in raw)
                            or (raw.count("{") == raw.count("}") and raw.lstrip()[0] not in "{}")
                        )
                        and n <= max_chars
                    ):
                        if not skip and not watch(raw):  # type: ignore[misc]
                            break
                        append(raw)  # the common case: one statement, ending the line
                    else:
                        code = raw.strip()
                        if nothing(code) or (skip and not gate.labels and label_alone(code)):
                            append("\n")  # nothing to search for in it
                        elif (
                            code[-1] == ";"
                            and raw[-1] == "\n"
                            and code.find(";") == len(code) - 1
                            and plain(code, max_chars)
                            and (skip or watch(raw))  # type: ignore[misc]
                        ):
                            append(raw)  # one statement, spaces after its ;
                        else:
                            break
                    if not skip:
                        skip, watch = gate.skip, gate.watch
                else:
                    break  # the lines are done
                if len(keep) > Gate.SEAL and gate.seal is not None:
                    gate.seal()  # many kept lines: joined, let go
            keep.append("\n")
        elif (
            gate.data
            and reader.directive
            and reader.parts
            and "tcgen05" not in raw
            and "/*" not in raw
            and ";" not in raw
            and "{" not in raw
            and "}" not in raw
            and '"' not in raw
            and reader.size + len(raw) <= MAX_DIRECTIVE_CHARS
        ):
            reader.size += len(raw)  # the line continues a data directive (.b8 1 // ...) no one reads
            continue
        code = raw.strip()
        # The common case, inline: one whole statement (a vector inside it at most) on the line.
        if (
            idle
            and code[-1:] == ";"
            and code[0] not in "{}"
            and "/" not in code
            and '"' not in code
            and ";" not in code[:-1]
            and (("{" not in code and "}" not in code) or code.count("{") == code.count("}"))
            and len(code) <= max_chars
        ):
            code = code[:-1].rstrip()
            if not code:
                continue  # an empty statement (nvcc ends a declaration with a lone `;`)
            colon = code.find(":")
            if colon > 0 and code.find(".", 0, colon) < 0:  # a label's name holds no dot (tcgen05.x::y)
                m = _LABEL.match(code)
                if m is not None:
                    yield new(Statement, ("label", m.group(1), number, number))
                    code = code[m.end() :].strip()
                    if not code:
                        continue
            yield new(Statement, ("directive" if code[0] == "." else "instruction", code, number, number))
            keep = gate.keep
            if source is not None and keep is not None and (gate.skip or gate.watch_run is not None):
                # The lines after it the gate passes, taken before the next is made a string.
                run, count = source.run_next(max_chars, gate.labels, not gate.skip)
                if count:
                    if not gate.skip:
                        gate.watch_run(run)  # type: ignore[misc]
                    keep.append(run)
                    number += count
                    ahead = True
                    if (len(keep) > Gate.SEAL or len(run) > Gate.SEAL_CHARS) and gate.seal:
                        gate.seal()
            continue
        if idle:  # other whole lines a reader between statements needs no state for
            if not code or code[:2] == "//":
                continue  # blank, or a comment to the end of the line
            if code == "{" or code == "}":
                yield new(Statement, ("open" if code == "{" else "close", code, number, number))
                continue
            if code[-1] == ":":
                m = _LABEL.match(code)
                if m is not None and m.end() == len(code):
                    yield new(Statement, ("label", m.group(1), number, number))
                    continue
        yield from reader.feed(raw.rstrip("\r\n"), number)
        idle = not reader.parts and not reader.in_comment
    yield from reader.finish(number)


class _Reader:
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


def collapse(text: str) -> str:
    """A statement's text with every run of whitespace one space.

    >>> collapse("tcgen05.st.sync.aligned.16x64b.x2.b32 [%r2],\\n\\t{%r3,  %r4}")
    'tcgen05.st.sync.aligned.16x64b.x2.b32 [%r2], {%r3, %r4}'
    """
    return " ".join(text.split())
