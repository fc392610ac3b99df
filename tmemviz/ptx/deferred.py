"""A function read lazily until its first tcgen05 instruction, then replayed: ``check``'s fast path.

``check`` follows every statement of a function that uses Tensor Memory (register values, definitions,
stores, blocks: :mod:`tmemviz.families.explain.follow`), which costs most of its time on a module
whose functions mostly do not. With ``defer`` (:func:`tmemviz.ptx.stream.events`), the reader passes a
function's plain lines over as ``explain`` does (:class:`~tmemviz.ptx.gate.Gate`, kept as text by a
:class:`~tmemviz.ptx.lazy.Lazy`) and keeps the statements it read one by one; at the function's first
tcgen05 instruction, :func:`replayed` gives every statement so far, in order, as the eager reader read
them, and reading goes on eagerly. A function that ends without any tcgen05 instruction touches Tensor
Memory only through the functions it calls: :func:`calls` gives its ``call`` statements alone.

Pure: no I/O.
"""

from __future__ import annotations

from tmemviz.ptx.lazy import Lazy
from tmemviz.ptx.line import opcode_head_rest
from tmemviz.ptx.statements import Statement, statements


def replayed(read: list[Statement], kept: Lazy) -> list[Statement]:
    """Every statement of the function so far, in reading order: those ``read`` one by one and those of
    the plain lines ``kept`` (each one statement, a label in front of it at most, on its own line)."""
    return _merged(read, _plain(kept, None))


def calls(read: list[Statement], kept: Lazy) -> list[Statement]:
    """The ``call`` statements of a function that ended with no tcgen05 instruction, in order."""
    return [s for s in _merged(read, _plain(kept, "call")) if s.kind == "instruction" and _is_call(s.text)]


def _merged(read: list[Statement], plain: list[Statement]) -> list[Statement]:
    # A plain line is never inside a statement read one by one (the gate passes only whole lines while
    # no statement is open): ordering by first line, stably, is reading order.
    return sorted(read + plain, key=lambda s: s.first)


def _plain(kept: Lazy, word: str | None) -> list[Statement]:
    """The statements of the kept plain lines (those holding ``word``, when given), numbered as read."""
    out: list[Statement] = []
    for number, line in kept.plain_lines(word):
        out.extend(Statement(s.kind, s.text, number, number) for s in statements([line]))
    return out


def _is_call(text: str) -> bool:
    return opcode_head_rest(text)[1] == "call"
