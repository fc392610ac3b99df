"""What a PTX statement does to the registers it writes, as the eager tracker
(:class:`~tmemviz.ptx.registers.Constants`) reads it, for a reader that looks back for a register's
writes when asked (:mod:`tmemviz.ptx.lazy`): a constant op (evaluated) or anything else (forgets), and
the statement of a plain line the reader kept as text. Pure: no I/O.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.ptx.constants import Value, const
from tmemviz.ptx.gate import LABEL
from tmemviz.ptx.line import opcode_head_rest, parse_immediate, parse_statement
from tmemviz.ptx.names import is_name
from tmemviz.ptx.registers import CONSTANT_OPS, NO_DESTINATION, Constants, destinations, written_names

Position = tuple[int, int]
"""(line, order): a statement read one by one has its reading order (from 1); a plain line 0."""


class Effect(NamedTuple):
    """What an instruction may do to registers: ``kind`` "constant" (a constant op: evaluated, or
    forgotten when not worth it) or "forget" (anything else that writes them)."""

    kind: str
    names: tuple[str, ...]
    head: str
    opcode: str
    rest: str


@functools.lru_cache(maxsize=4096)
def effect(text: str) -> Effect | None:
    """What the instruction ``text`` (no ``;``) does to the registers it writes, as the eager tracker
    reads it; None when it writes none (or is a tcgen05 instruction that cannot be read). Remembered
    for the last few thousand texts: a search meets the same statements in function after function.

    >>> effect("@%p1 mov.b32 %r6, 5").kind, effect("ld.global.b32 %r6, [%rd1]").names
    ('constant', ('%r6',))
    >>> effect("st.global.b32 [%rd1], %r6") is None
    True
    """
    if "tcgen05" in text:
        try:
            line = parse_statement(text)
        except TmemvizError:
            return None  # not read: the tracker keeps every register as it was
        tokens = line.qualifiers
        if len(tokens) >= 2 and tokens[0] == "tcgen05":
            names = tuple(destinations(line))
            return Effect("forget", names, "tcgen05", line.opcode, "") if names else None
    opcode, head, rest = opcode_head_rest(text)
    names = tuple(written_names(rest))
    if head in CONSTANT_OPS:
        return Effect("constant", names, head, opcode, rest)
    if head not in NO_DESTINATION and rest[:1] not in "[(" and names:
        return Effect("forget", names, head, opcode, rest)
    return None


def plain_statement(line: str) -> str | None:
    """The instruction of a plain line (one statement, as the reader skipped it), without its label,
    ``;`` and a ``//`` comment after it; None for a directive or a line the reader skipped that holds
    no statement."""
    code = line.strip()
    cut = code.find("//")
    if cut == 0:
        return None  # a comment (kept as it was in a run: gate.runs)
    if cut > 0:  # a statement with a comment after it, kept in a run (which holds no string before it)
        code = code[:cut].rstrip()
    if code[-1:] != ";":
        return None  # a label alone, a .loc, a blank line (kept as they were: gate.runs)
    code = code[:-1].rstrip()
    if ":" in code:
        m = LABEL.match(code)
        if m is not None:
            code = code[m.end() :].strip()
    if not code or code[0] == ".":
        return None
    return code


class Sources:
    """The values registers hold just before ``where``, each looked for once: a constant op asks its
    sources whether they are known (:func:`worth_evaluating`), then for their values (``evaluated``).

    ``name in sources``: whether ``name`` holds known bits there."""

    def __init__(self, lazy: Any, where: Position) -> None:
        self.lazy, self.where = lazy, where
        self.seen: dict[str, Value | None] = {}

    def value(self, name: str) -> Value | None:
        if name not in self.seen:
            self.seen[name] = self.lazy.value(name, self.where)
        return self.seen[name]

    def __contains__(self, name: object) -> bool:
        name = str(name)  # the memo inline, not through value(): a chain of writes recurses through here
        if name not in self.seen:
            self.seen[name] = self.lazy.value(name, self.where)
        return self.seen[name] is not None

    def operand(self, operand: str) -> Value | None:
        """A register's value, or an immediate's."""
        value = self.value(operand) if is_name(operand) else None
        if value is not None:
            return value
        number = parse_immediate(operand)
        return const(number, 64) if number is not None else None


def replay(lazy: Any, name: str, where: Position) -> Value | None:
    """What the eager tracker holds for ``name`` at ``where`` of ``lazy``'s function (a
    :class:`~tmemviz.ptx.lazy.Lazy`): every statement before it, in order (a chain of writes too long to
    follow back)."""
    tracker = Constants()
    plain: list[tuple[Position, str]] = []
    for number, line in lazy.plain_lines():
        code = plain_statement(line)
        if code is not None:
            plain.append(((number, 0), code))
    slow = list(zip(lazy._positions, lazy._texts, strict=True))
    for at, text in sorted(plain + slow):
        if at >= where:
            break
        if "tcgen05" in text:  # a tcgen05 instruction forgets what it loads (or is not read)
            e = effect(text)
            if e is None or e.head == "tcgen05":
                for n in e.names if e else ():
                    tracker.values.pop(n, None)
                continue
        try:
            tracker.follow(text, *opcode_head_rest(text))
        except TmemvizError as exc:
            if at not in lazy._reported:
                lazy._reported.add(at)
                lazy.problems.append((at[0], f"not read as PTX: {exc}"))
    return tracker.values.get(name)
