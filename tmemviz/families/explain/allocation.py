"""Which Tensor Memory each function allocates, and which register holds which alloc's base address.

A kernel allocates with ``tcgen05.alloc [slot], nCols`` (the base address goes to shared memory at
``slot``), reads it back with ``ld.shared`` (often after a barrier, sometimes through another register
holding the same address, or a generic address after ``cvta``) and adds lane/column offsets. This
module follows those steps, one statement at a time, over the same lines the explain scanner reads
(:func:`tap`), and keeps per function: its allocs and deallocs, every tcgen05 statement with the values
of its address registers, and how often each register is defined (values resting on a register
defined twice are not trusted: :func:`tmemviz.families.explain.addresses.trusted`).

Only what is proved is kept; everything else is unknown and draws no conclusion.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.addresses import (
    Const,
    Ptr,
    Tmem,
    Value,
    add,
    constant,
    mask,
    shifted,
    with_deps,
)
from tmemviz.ptx.line import parse_immediate, split_operands, strip_comment

_HEADER = re.compile(r"^\s*(?:\.(?:visible|extern|weak)\s+)*\.(entry|func)\b\s*(?:\([^)]*\)\s*)?([\w$.]+)?")
_LABEL = re.compile(r"^([\w$.]+):(?!:)\s*")
_GUARD = re.compile(r"^@!?\s*%?[\w$.]+\s+")
_REGISTER = re.compile(r"%[\w$.]+")
_OPCODE = re.compile(r"^([A-Za-z_][\w.:]*)\s*(.*)$")
"""The opcode, then the operands, with or without a space between (inline asm writes ``b32{%r1, ...``)."""
_SYMBOL = re.compile(r"^[A-Za-z_$][\w$.]*$")
_ENDS_BLOCK = ("bra", "brx", "ret", "exit", "trap")
_READS_FIRST = ("tcgen05", "bar", "barrier", "nanosleep", "bra", "brx", "ret", "exit", "trap", "st", "red",
                "prefetch", "fence", "membar", "setmaxnreg")  # fmt: skip
"""Opcodes whose first operand, even a register, is read, not written."""


@dataclass
class Alloc:
    index: int
    line: int
    columns: int | None
    """nCols when a constant (an immediate or a register holding one), else None."""
    cta_group: int
    slot: Ptr | None
    guard: str | None = None


@dataclass
class Statement:
    """One tcgen05 statement: where it is, what its address registers held, and its straight-line block."""

    line: int
    order: int
    """Its rank among the tcgen05 statements starting on ``line`` (inline asm puts several on one)."""
    op: str
    text: str
    block: int
    registers: dict[str, Value] = field(default_factory=dict)
    """Each register the statement reads -> its value there (registers with no known value are absent)."""
    columns: int | None = None
    """nCols of an alloc/dealloc."""


@dataclass
class Kernel:
    """What one .entry/.func allocates and touches."""

    name: str | None
    entry: bool
    line: int
    allocs: list[Alloc] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    calls: bool = False
    """The function calls another: what that one allocates or frees is not seen here."""
    definitions: dict[str, int] = field(default_factory=dict)
    """Register -> how many statements write it."""


class Tracker:
    """Follows registers through one PTX module, line by line (see :func:`tap`)."""

    def __init__(self) -> None:
        self.kernels: list[Kernel] = []
        self._kernel: Kernel | None = None
        self._pending: tuple[str, str | None, int] | None = None
        self._depth = 0
        self._held: list[str] = []
        self._held_line = 0
        self._values: dict[str, Value] = {}
        self._block = 0
        self._fresh = itertools.count()
        self._per_line: dict[int, int] = {}

    def feed(self, number: int, raw: str) -> None:
        code = strip_comment(raw)[0]
        if self._held:
            self._held.append(code)
            if ";" not in code:
                return
            code, start = " ".join(self._held), self._held_line
            self._held = []
        else:
            start = number
            if self._depth == 0 and (".entry" in code or ".func" in code):
                m = _HEADER.match(code)
                if m:
                    self._pending = (m.group(1), m.group(2), number)
        pieces = code.split(";")
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            text = self._braces(piece.strip())
            if not text:
                continue
            m = _LABEL.match(text)
            while m:  # `$L__BB0_2:` (a block starts) and `waitLoop: mbarrier...` alike
                self._block += 1
                text = text[m.end() :]
                m = _LABEL.match(text)
            if not text or (not text[0].isalpha() and text[0] != "@"):
                if not last and self._depth == 0:
                    self._pending = None  # a prototype `.func f(...);` has no body
                continue
            if last:
                self._held, self._held_line = [text], start  # a statement continued on the next line
                continue
            if self._kernel is not None:
                self._statement(start, " ".join(text.split()))

    def _braces(self, text: str) -> str:
        """Open/close scopes written before (or as) a statement; a function ends at depth 0."""
        while text[:1] in ("{", "}"):
            if text[0] == "{":
                self._depth += 1
                if self._depth == 1 and self._pending is not None:
                    kind, name, line = self._pending
                    self._kernel = Kernel(name, kind == "entry", line)
                    self.kernels.append(self._kernel)
                    self._values, self._pending, self._per_line = {}, None, {}
            else:
                self._depth = max(0, self._depth - 1)
                if self._depth == 0:
                    self._kernel = None
            text = text[1:].lstrip()
        return text

    def _statement(self, line: int, text: str) -> None:
        kernel = self._kernel
        assert kernel is not None
        guard = None
        m = _GUARD.match(text)
        if m:
            guard, text = m.group(0).strip(), text[m.end() :]
        m = _OPCODE.match(text)
        if m is None:
            return
        opcode, rest = m.group(1), m.group(2)
        try:
            operands = split_operands(rest)
        except TmemvizError:  # a statement tmemviz cannot split: whatever it defines becomes unknown
            operands = tuple(_REGISTER.findall(rest)[:1])
        head = opcode.split(".")[0]
        if head == "tcgen05":
            self._tcgen05(line, opcode, operands, guard, text)
        elif head == "call":
            kernel.calls = True
        written = self._written(head, opcode, operands)
        for register in written:
            kernel.definitions[register] = kernel.definitions.get(register, 0) + 1
        if len(written) == 1 and head != "tcgen05":
            value = self._compute(opcode, operands, written[0])
            old = self._values.get(written[0])
            if guard is not None and value != old:
                value = None  # not executed when the guard is false: the old value may remain
            if value is None:
                value = self._opaque(written[0])
            self._values[written[0]] = value
        else:
            for register in written:
                self._values[register] = self._opaque(register)
        if head in _ENDS_BLOCK:
            self._block += 1

    def _written(self, head: str, opcode: str, operands: tuple[str, ...]) -> list[str]:
        if not operands:
            return []
        if opcode.startswith("tcgen05.ld"):
            return [r for o in operands if not o.startswith("[") for r in _REGISTER.findall(o)]
        if head == "call":
            return _REGISTER.findall(operands[0]) if operands[0].startswith("(") else []
        if head in _READS_FIRST:
            return []
        first = operands[0]
        return _REGISTER.findall(first) if first.startswith(("%", "{")) else []

    def _opaque(self, register: str) -> Ptr:
        """An unknown value, but one that copies of it can be recognised by (a slot held in a register)."""
        return Ptr(("opaque", next(self._fresh)), 0, "var", frozenset({register}))

    def _value(self, operand: str) -> Value | None:
        operand = operand.strip()
        if operand.startswith("%"):
            return self._values.get(operand)
        number = parse_immediate(operand)
        if number is not None:
            return Const(number)
        if _SYMBOL.match(operand):
            return Ptr(("var", operand), 0, "var")
        return None

    def _address(self, operand: str) -> Value | None:
        """The value of ``[reg + imm]`` / ``[symbol + imm]``."""
        inner = operand.strip()[1:-1]
        terms = [t.strip() for t in inner.split("+")]
        if not terms or not all(terms):
            return None
        total: Value | None = Const(0)
        for term in terms:
            value = self._value(term)
            if value is None or total is None:
                return None
            total = add(total, value, total.deps | value.deps)
        return total

    def _compute(self, opcode: str, operands: tuple[str, ...], dest: str) -> Value | None:
        parts = opcode.split(".")
        head = parts[0]
        bits = 64 if any(p.endswith("64") for p in parts[1:]) else 32
        sources = operands[1:]
        deps = frozenset({dest})
        if head in ("mov", "cvt", "cvta") and len(sources) == 1:
            value = self._value(sources[0])
            if value is None:
                return None
            value = with_deps(value, deps)
            if head == "cvta" and isinstance(value, Ptr):
                space = "var" if "to" in parts else "generic"
                return Ptr(value.root, value.offset, space, value.deps)
            if head == "cvt" and isinstance(value, Const):
                return Const(value.value & ((1 << bits) - 1), value.deps)
            return value
        if head == "ld" and len(sources) == 1 and sources[0].startswith("["):
            return self._load(parts, sources[0], deps)
        values = [self._value(s) for s in sources]
        joined = frozenset(deps.union(*(v.deps for v in values if v is not None)))
        if head == "add" and len(values) == 2 and None not in values:
            return add(values[0], values[1], joined)  # type: ignore[arg-type]
        if head == "and" and len(values) == 2:
            return mask(values[0], values[1], joined)
        if head == "shl" and len(values) == 2 and isinstance(values[1], Const) and values[0] is not None:
            return shifted(values[0], values[1].value, bits, joined)
        if head == "shl" and len(values) == 2 and isinstance(values[1], Const):
            return shifted(None, values[1].value, bits, joined)
        if head == "selp" and len(values) == 3 and values[0] == values[1] and values[0] is not None:
            return with_deps(values[0], joined)
        return constant(head, values, bits, joined)

    def _load(self, parts: list[str], operand: str, deps: frozenset[str]) -> Value | None:
        """``ld.shared [slot]`` of an alloc's slot: that alloc's base address (lane 0, column 0)."""
        if any(p in ("param", "global", "const", "local") for p in parts):
            return None
        where = self._address(operand)
        if not isinstance(where, Ptr):
            return None
        space = "var" if "shared" in parts else "generic"
        here = Ptr(where.root, where.offset, space, where.deps)
        assert self._kernel is not None
        for alloc in reversed(self._kernel.allocs):
            if alloc.slot is not None and here.same_place(alloc.slot):
                return Tmem(alloc.index, (0, 0), (0, 0), deps | where.deps | alloc.slot.deps)
        return None

    def _tcgen05(self, line: int, opcode: str, operands: tuple[str, ...], guard: str | None, text: str) -> None:
        kernel = self._kernel
        assert kernel is not None
        order = self._per_line.get(line, 0)
        self._per_line[line] = order + 1
        op = opcode.split(".")[1].split("::")[0] if "." in opcode else opcode
        statement = Statement(line, order, op, text, self._block)
        for register in _REGISTER.findall(" ".join(o for o in operands if not o.startswith("{"))):
            value = self._values.get(register)
            if value is None and op in ("alloc", "dealloc"):
                value = self._values[register] = self._opaque(register)
            if value is not None:
                statement.registers[register] = value
        if op in ("alloc", "dealloc") and operands:
            count = self._value(operands[-1])
            statement.columns = count.value if isinstance(count, Const) else None
        if op == "alloc" and operands and operands[0].startswith("["):
            slot = self._address(operands[0])
            space = "var" if "shared" in opcode else "generic"
            group = 2 if "cta_group::2" in opcode else 1
            at = Ptr(slot.root, slot.offset, space, slot.deps) if isinstance(slot, Ptr) else None
            kernel.allocs.append(Alloc(len(kernel.allocs), line, statement.columns, group, at, guard))
        kernel.statements.append(statement)


def tap(lines: Iterable[str], tracker: Tracker) -> Iterator[str]:
    """``lines`` unchanged, each also fed to ``tracker``: the file is read once, by whoever iterates."""
    for number, line in enumerate(lines, 1):
        tracker.feed(number, line)
        yield line
