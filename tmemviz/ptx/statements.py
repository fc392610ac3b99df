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

from collections.abc import Iterable, Iterator
from itertools import chain

from tmemviz.ptx.gate import LABEL as _LABEL
from tmemviz.ptx.gate import Blocks, Gate, label_alone, nothing, plain
from tmemviz.ptx.reader import MAX_DIRECTIVE_CHARS, Reader, Statement

MAX_STATEMENT_CHARS = 1 << 16
"""A statement longer than this (64 KiB) is cut: the longest real one, a 128-register tcgen05.ld
vector, is about 1.3 KB."""


def label_of(code: str) -> int | None:
    """Where the text after a leading ``label:`` starts, or None when ``code`` has none."""
    m = _LABEL.match(code)
    return m.end() if m else None


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
    reader = Reader(max_chars)
    number = 0
    new = tuple.__new__  # a Statement without a Python-level constructor call: most lines are one
    idle = True  # no statement open across lines, no /* comment open
    if gate is None:
        gate = Gate()
    blocks = getattr(lines, "blocks", None)  # a file's blocks: runs of skipped lines found in its text
    source = Blocks(blocks()) if blocks is not None else None
    gate.ahead = source.tcgen05_ahead if source is not None else None
    it = source if source is not None else iter(lines)
    ahead = False  # the lines after a statement were passed as a run before the next was given
    for raw in it:
        number += 1  # a piece without its newline is still one line to its reader
        keep = gate.keep
        if keep is not None:
            if idle and gate.skip:
                # Lines the gate passes, one after another: nothing is yielded meanwhile, so the
                # state stays as the reader left it.
                append = keep.append
                number -= 1  # counted again below
                first = raw
                ran, ahead = ahead, False  # the line after a run is one it stopped at: not tried again
                for raw in chain((first,), it):
                    number += 1
                    if source is not None and not ran:
                        run, count = source.run(max_chars, gate.labels)
                        if count:  # this line and those after it the gate passes, at once
                            _take(run, keep, gate)
                            number += count - 1
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
                        append(raw)  # the common case: one statement, ending the line
                    else:
                        code = raw.strip()
                        if nothing(code):
                            append("\n")  # nothing to search for in it
                        elif not gate.labels and label_alone(code):
                            # Where a branch may enter (tmemviz.ptx.lazy: over paths); one line of the text.
                            append(raw if raw[-1:] == "\n" else f"{raw}\n")
                        elif (
                            code[-1] == ";"
                            and raw[-1] == "\n"
                            and code.find(";") == len(code) - 1
                            and plain(code, max_chars)
                        ):
                            append(raw)  # one statement, spaces after its ;
                        else:
                            break
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
            if source is not None and keep is not None and gate.skip:
                # The lines after it the gate passes, taken before the next is made a string.
                run, count = source.run_next(max_chars, gate.labels)
                if count:
                    _take(run, keep, gate)
                    number += count
                    ahead = True
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


def _take(run: str, keep: list[str], gate: Gate) -> None:
    """A run the gate passes: its text kept (the kept lines joined and let go once many)."""
    keep.append(run)
    if (len(keep) > Gate.SEAL or len(run) > Gate.SEAL_CHARS) and gate.seal:
        gate.seal()


def collapse(text: str) -> str:
    """A statement's text with every run of whitespace one space.

    >>> collapse("tcgen05.st.sync.aligned.16x64b.x2.b32 [%r2],\\n\\t{%r3,  %r4}")
    'tcgen05.st.sync.aligned.16x64b.x2.b32 [%r2], {%r3, %r4}'
    """
    return " ".join(text.split())
