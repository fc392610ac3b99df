"""Which registers a PTX instruction writes and reads, and the constant values registers hold.

:class:`Constants` is the per-function tracker: feed it every instruction of a function in order
(:meth:`Constants.update`), ask it what a register holds (:meth:`Constants.get`). It understands the
integer instructions of :mod:`tmemviz.ptx.constants` and forgets a register anything else writes.
Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from tmemviz.ptx import constants as c
from tmemviz.ptx.line import PtxLine, parse_immediate, parse_line
from tmemviz.ptx.names import is_name, names

_TYPE = re.compile(r"^[bsu](8|16|32|64)$")
NO_DESTINATION = frozenset(("st", "red", "bar", "barrier", "bra", "brx", "call", "ret", "exit", "trap",
                            "nanosleep", "membar", "fence", "prefetch", "prefetchu", "setmaxnreg",
                            "pmevent", "griddepcontrol", "cp", "stmatrix", "multimem", "applypriority",
                            "discard", "createpolicy_none"))  # fmt: skip
"""Opcodes whose first operand is not a register they write (PTX 9.7: stores, branches, barriers...)."""


CONSTANT_OPS = frozenset(("mov", "selp", "or", "and", "xor", "shl", "shr", "add", "cvt", "prmt"))
"""The integer instructions whose results :class:`Constants` follows (see :mod:`tmemviz.ptx.constants`)."""


def written_names(rest: str) -> list[str]:
    """The registers in an instruction's first operand (``rest``: its operands' text), which it writes
    unless its opcode writes none (:data:`NO_DESTINATION`)."""
    return registers(rest[: rest.find("}")] if rest[:1] == "{" else rest.split(",", 1)[0])


@functools.lru_cache(maxsize=4096)
def parse_constant_op(text: str, opcode: str, rest: str) -> PtxLine:
    """A constant op's :class:`PtxLine`: ``op.type %d, a, b`` split where its commas are (what
    :func:`parse_line` gives, faster), anything else parsed."""
    if text[:1] != "@" and not any(c in rest for c in "{[(/") and "," in rest:
        return PtxLine(" ".join(text.split()), None, opcode, tuple(x.strip() for x in rest.split(",")))
    return parse_line(text)


def registers(text: str) -> list[str]:
    """Every register name in an operand (``%tid.x``'s ``%tid`` too), with or without ``%``
    (:mod:`tmemviz.ptx.names`: an identifier that is a variable or a label is never written, so it
    changes nothing a reader follows).

    >>> registers("[%r2 + 16]"), registers("{%r1, %r2}"), registers("[tmem_acc]")
    (['%r2'], ['%r1', '%r2'], ['tmem_acc'])
    """
    return names(text)


def destinations(line: PtxLine) -> list[str]:
    """The registers ``line`` writes: its first operand's (a vector's each, ``%p|%q`` both), unless its
    opcode writes none (stores, branches, barriers; of tcgen05 only ld writes registers).

    >>> from tmemviz.ptx.line import parse_line
    >>> destinations(parse_line("mov.b64 {%r1, %r2}, %rd3;"))
    ['%r1', '%r2']
    >>> destinations(parse_line("st.global.b32 [%rd1], %r5;")), destinations(parse_line("mov.b32 idesc, 5;"))
    ([], ['idesc'])
    """
    if not line.operands:
        return []
    head = line.opcode.split(".", 1)[0]
    if head in NO_DESTINATION or (head == "tcgen05" and not line.opcode.startswith("tcgen05.ld")):
        return []
    first = line.operands[0]
    if first.startswith(("[", "(")):
        return []
    return names(first)


def sources(line: PtxLine) -> list[str]:
    """The registers ``line`` reads: every register outside its destination operand, and its guard.

    >>> from tmemviz.ptx.line import parse_line
    >>> sources(parse_line("@%p1 st.global.b32 [%rd1+4], %r5;"))
    ['%p1', '%rd1', '%r5']
    >>> sources(parse_line("add.s32 %r1, %r1, %r2;"))
    ['%r1', '%r2']
    """
    out = [line.guard.lstrip("!")] if line.guard else []
    skip = 1 if destinations(line) else 0
    for operand in line.operands[skip:]:
        out.extend(names(operand))
    return out


def _width(token: str, default: int = 32) -> tuple[int, bool]:
    m = _TYPE.match(token)
    return (int(m.group(1)), token[0] == "s") if m else (default, False)


class Constants:
    """Register -> :data:`~tmemviz.ptx.constants.Value` for one function, in program order.

    >>> from tmemviz.ptx.line import parse_line
    >>> k = Constants()
    >>> for s in ("selp.b32 %r25, 16384, 0, %p3;", "selp.b32 %r26, 138420240, 138412048, %p1;",
    ...           "or.b32 %r27, %r26, %r25;"):
    ...     k.update(parse_line(s))
    >>> sorted(b.value for b in k.get("%r27"))
    [138412048, 138420240, 138428432, 138436624]
    """

    def __init__(self) -> None:
        self.values: dict[str, c.Value] = {}

    def get(self, operand: str) -> c.Value | None:
        """What ``operand`` (a register or an immediate) holds, or None when nothing is known."""
        value = self.values.get(operand)
        if value is not None:
            return value
        number = parse_immediate(operand)
        return c.const(number, 64) if number is not None else None

    def follow(self, text: str, opcode: str, head: str, rest: str) -> PtxLine | None:
        """Apply one instruction given as text (split by :func:`~tmemviz.ptx.line.opcode_head_rest`):
        a constant op is evaluated when it can give known bits (:func:`worth_evaluating`), anything
        else that writes a register forgets it. Returns the parsed constant op, if one was; raises
        :class:`~tmemviz.errors.TmemvizError` for a constant op that cannot be read (then nothing changes)."""
        values = self.values
        if head in CONSTANT_OPS:
            if opcode.endswith(".pred") or not worth_evaluating(head, rest, values):
                for name in written_names(rest) if values else ():  # built from run-time values only
                    values.pop(name, None)
                return None
            line = parse_constant_op(text, opcode, rest)
            self.update(line)
            return line
        if values and head not in NO_DESTINATION and rest[:1] not in "[(":  # any other write forgets
            for name in written_names(rest):
                values.pop(name, None)
        return None

    def update(self, line: PtxLine) -> None:
        """Apply one instruction (of the function, in order)."""
        written = destinations(line)
        if not written:
            return
        new = evaluated(line, written, self.get)
        for name in written:
            value = applied(line, name, new, self.values.get(name))
            if value is None:
                self.values.pop(name, None)
            else:
                self.values[name] = value


def applied(line: PtxLine, name: str, new: dict[str, c.Value], old: c.Value | None) -> c.Value | None:
    """What ``name`` holds after ``line`` wrote it (``new``: :func:`evaluate`'s result; ``old``: what it
    held before): None when nothing is known of it."""
    value = new.get(name)
    if value is None:
        return None
    if line.guard:  # @%p: the old value stays when %p is false (PTX 9.3)
        value = c.choice(old, value) if old is not None else c.unknown(value[0].width)
    return None if all(b.known == 0 for b in value) else value


def evaluate(line: PtxLine, written: list[str], get: Callable[[str], c.Value | None]) -> dict[str, c.Value]:
    """The values ``line`` gives the registers it writes (those it gives none are left out); ``get`` says
    what an operand (register or immediate) holds before it."""
    parts = line.opcode.split(".")
    head = parts[0]
    ops = line.operands
    types = [t for t in parts[1:] if _TYPE.match(t)]
    width, signed = _width(types[-1]) if types else (32, False)
    if any(p[:1] == "f" or p.startswith("bf") for p in parts[1:]):
        return {}  # floating point: not a constant tmemviz follows
    used = ops[1:3] if head == "selp" else ops[1:]  # selp's predicate only picks: its value is not asked
    args = [get(o) for o in used]
    if head != "mov":  # a register nothing is known of still lets known bits through (or, and, shl)
        args = [c.unknown(width) if a is None and is_name(o) else a for a, o in zip(args, used, strict=True)]
    if head == "mov" and len(ops) == 2:
        if ops[0].startswith("{"):  # mov.b64 {lo, hi}, %rd: split
            source = args[0]
            if source is None:
                return {}
            items = [x.strip() for x in ops[0][1:-1].split(",")]  # the sink _ holds its piece too
            pieces = c.split(source, len(items), width // len(items))
            return {n: v for n, v in zip(items, pieces, strict=True) if n in written}
        if ops[1].startswith("{"):  # mov.b64 %rd, {lo, hi}: join
            parts = registers(ops[1])
            values = [get(n) for n in parts]
            if any(v is None for v in values) or not parts:
                return {}
            return {written[0]: c.join(values, width // len(parts))}  # type: ignore[arg-type]
        return {written[0]: _fit(args[0], width)} if args[0] is not None else {}
    if len(written) != 1 or any(a is None for a in args[: _ARITY.get(head, 0)]):
        return {}
    d = written[0]
    if head == "selp" and len(ops) == 4:
        return {d: c.choice(_fit(args[0], width), _fit(args[1], width))}  # type: ignore[arg-type]
    if head in ("or", "and", "xor") and len(args) == 2:
        f = {"or": c.bit_or, "and": c.bit_and, "xor": c.bit_xor}[head]
        return {d: f(_fit(args[0], width), _fit(args[1], width), width)}  # type: ignore[arg-type]
    if head in ("shl", "shr") and len(args) == 2:
        return {d: c.shift(_fit(args[0], width), args[1], head == "shl", signed, width)}  # type: ignore[arg-type]
    if head == "add" and len(args) == 2 and len(parts) <= 3:
        return {d: c.add(_fit(args[0], width), _fit(args[1], width), width)}  # type: ignore[arg-type]
    if head == "cvt" and len(types) == 2 and len(args) == 1 and not any(p.startswith("r") for p in parts):
        (dw, _), (sw, ss) = _width(types[0]), _width(types[1])
        return {d: c.resize(c.resize(args[0], sw, ss), dw, ss)}  # type: ignore[arg-type]
    if head == "prmt" and parts[1:] == ["b32"] and len(args) == 3:
        return {d: c.permute(args[0], args[1], args[2])}  # type: ignore[arg-type]
    return {}


_EVALUATED: dict[PtxLine, tuple[tuple[str, ...], dict[tuple[Any, ...], dict[str, c.Value]]]] = {}
"""Per statement, the operands :func:`evaluate` asks for and what it gave for each of their values."""


def evaluated(line: PtxLine, written: list[str], get: Callable[[str], c.Value | None]) -> dict[str, c.Value]:
    """:func:`evaluate`, remembered: what it asks of ``get`` depends on the statement alone, and what it
    gives on the statement and those values; a module repeats its statements (inlined helpers, unrolled
    loops, kernel after kernel) with the same values. The last few thousand statements are kept, and
    for each the last few dozen values.

    >>> line = parse_constant_op("or.b32 %r3, %r1, 16", "or.b32", "%r3, %r1, 16")
    >>> evaluated(line, ["%r3"], {"%r1": c.const(1)}.get) == evaluate(line, ["%r3"], {"%r1": c.const(1)}.get)
    True
    """
    seen = _EVALUATED.get(line)
    if seen is not None:
        operands, results = seen
        values = tuple(get(o) for o in operands)
        new = results.get(values)
        if new is None:
            if len(results) >= 64:  # one statement met with ever new values (a counter): not kept
                results.clear()
            new = results[values] = evaluate(line, written, get)
        return new
    asked: list[tuple[str, c.Value | None]] = []

    def recorded(operand: str) -> c.Value | None:
        value = get(operand)
        asked.append((operand, value))
        return value

    new = evaluate(line, written, recorded)
    if len(_EVALUATED) >= 4096:
        _EVALUATED.clear()
    _EVALUATED[line] = (tuple(o for o, _ in asked), {tuple(v for _, v in asked): new})
    return new


_ARITY = {"selp": 2, "or": 2, "and": 2, "xor": 2, "shl": 2, "shr": 2, "add": 2, "cvt": 1, "prmt": 3}
"""Operands (after the destination) that must be known for the result to be."""


def _fit(value: c.Value, width: int) -> c.Value:
    """An immediate or a register of another width, read at ``width`` bits."""
    if all(b.width == width for b in value):
        return value
    return c.resize(value, width)


_IMMEDIATE = re.compile(r"(?:^|[\s,{])[-+]?\d")
_PARTIAL = frozenset(("and", "or", "shl", "shr"))
"""Ops whose result has known bits even when a register operand holds run-time bits only."""


def worth_evaluating(head: str, rest: str, values: dict[str, Any]) -> bool:
    """Whether the result can hold known bits: every source known (immediate or tracked), or an op of
    :data:`_PARTIAL` with at least one known source."""
    end = rest.find("}") if rest[:1] == "{" else rest.find(",")
    if end < 0:
        return False
    sources = rest[end + 1 :]
    if head == "selp":  # the predicate picks; the two values are what counts
        sources = sources.rsplit(",", 1)[0]
    found = names(sources)
    known = 0
    for r in found:
        if r in values:
            known += 1
    if known < len(found) and head not in _PARTIAL:
        return False  # the common case: a run-time source (the immediate need not be looked for)
    return known > 0 or _IMMEDIATE.search(sources) is not None
