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
from dataclasses import dataclass, field
from typing import Any

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
    trusted,
    with_deps,
)
from tmemviz.ptx.line import PtxLine, opcode_of, parse_immediate, parse_statement
from tmemviz.ptx.registers import NO_DESTINATION
from tmemviz.ptx.state import Hazard
from tmemviz.ptx.statements import collapse
from tmemviz.ptx.stream import BRANCHES, Event

_REGISTER = re.compile(r"%[\w$.]+")
_MODELLED = frozenset(
    ("mov", "cvt", "cvta", "ld", "add", "and", "selp", "shl", "shr", "or", "xor", "mul", "sub", "call")
)
"""Opcodes whose result (or effect) the tracker follows; any other only defines its destinations."""
_INTEGERS = frozenset(("u32", "s32", "b32", "u64", "s64", "b64"))
_STORES = frozenset(("st", "atom", "red", "cp", "mbarrier", "stmatrix"))
"""Opcodes that write memory at their first operand (a shared-memory slot among them is noted)."""
_SYMBOL = re.compile(r"^[A-Za-z_$][\w$.]*$")
_WIDE = re.compile(r"64(?:\.|$)")


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
    operands: tuple[str, ...] = ()
    extent: tuple[tuple[int, int], tuple[int, int]] | None = None
    """An ld/st's first and last lane and column relative to its base register (its layout's cells)."""


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
    callees: set[str] = field(default_factory=set)
    """The names it calls (a call through a register adds ``?``)."""
    definitions: dict[str, int] = field(default_factory=dict)
    """Register -> how many statements write it."""
    slots_read: list[Ptr] = field(default_factory=list)
    """Shared-memory places read before any alloc wrote them (a warp-specialized kernel's consumer
    warps come first in the text); ``Tmem.alloc`` ``-1 - k`` stands for the base read from the k-th."""

    stored: list[Ptr] = field(default_factory=list)
    """Shared-memory places an ordinary store writes: a slot among them may hold something else later."""

    def resolve(self, index: int) -> Alloc | None:
        """The alloc a base value stands for: its index, or the only alloc (with a trusted slot) whose
        slot is the place read (``-1 - k``); None when there is no such alloc, or several.

        Reading the slot before the alloc writes it would be a bug of its own (the kernel then reads
        no address at all), so the alloc that writes that place is the one whose base is read."""
        if index >= 0:
            alloc = self.allocs[index]
        else:
            place = self.slots_read[-1 - index]
            found = [a for a in self.allocs if a.slot is not None and place.same_place(a.slot)]
            if len(found) != 1 or not trusted(found[0].slot.deps, self.definitions):  # type: ignore[union-attr]
                return None
            alloc = found[0]
        if any(alloc.slot is not None and alloc.slot.same_place(p) for p in self.stored):
            return None  # the slot is also written by a store: what is read there may not be the base
        return alloc


class Tracker:
    """Follows registers through one PTX module, fed every event of the shared reader
    (:func:`tmemviz.ptx.stream.events` with ``every=True``): statements, labels, function starts."""

    def __init__(self, footprint: Any = None) -> None:
        self.footprint = footprint  # the explainer's: each explained ld/st's extent from its layout
        self._extents: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
        self.kernels: list[Kernel] = []
        self.hazards: list[Hazard] = []
        """The reader's hazards (its pending tcgen05.ld/st rule), in order."""
        self._kernel: Kernel | None = None
        self._values: dict[str, Value | int] = {}
        """Register -> its value; an int is an unknown value not looked at yet (:meth:`_get` makes it one)."""
        self._block = 0
        self._fresh = itertools.count()
        self._per_line: dict[int, int] = {}

    def observe(self, event: Event) -> None:
        kind = event.kind
        if kind == "function":
            header = event.statement.text if event.statement is not None else ""
            line = event.statement.first if event.statement is not None else 0
            self._kernel = Kernel(event.fn.name, ".entry" in header, line)
            self.kernels.append(self._kernel)
            self._values, self._per_line = {}, {}
        elif kind == "label":
            self._block += 1
        elif kind == "hazard" and event.hazard is not None:
            self.hazards.append(event.hazard)
        elif kind in ("instruction", "tcgen05") and self._kernel is not None and event.statement is not None:
            self._statement(event.statement.first, collapse(event.statement.text), event.line)

    def explained(self, event: Event) -> None:
        """After a tcgen05 event was explained (its layout known): the ld/st's extent from its footprint."""
        s, line, mine = event.statement, event.line, self.kernels[-1].statements[-1:] if self.kernels else []
        if self.footprint is not None and s and line is not None and mine and mine[0].line == s.first:
            _extent(mine[0], self.footprint, line, self._extents)

    def _statement(self, line: int, text: str, parsed: PtxLine | None) -> None:
        kernel = self._kernel
        assert kernel is not None
        if parsed is not None:
            opcode, operands, guard = parsed.opcode, parsed.operands, parsed.guard
        else:
            opcode, rest = opcode_of(text)
            head = opcode.split(".", 1)[0]
            store = head in _STORES and ".global" not in opcode and ".param" not in opcode
            if head not in _MODELLED and not store:  # only which registers it writes matters: not parsed
                first = rest[: rest.find("}") + 1] if rest[:1] == "{" else rest.split(",", 1)[0]
                written = [] if head in NO_DESTINATION or first[:1] in "[(" else _REGISTER.findall(first)
                self._define(written)
                if head in BRANCHES:
                    self._block += 1
                return
            if text[:1] != "@" and "{" not in rest and "[" not in rest and "(" not in rest:
                operands, guard = tuple(o.strip() for o in rest.split(",")) if rest else (), None
            else:
                try:
                    found = parse_statement(text)  # remembered: kernels repeat their statements
                except TmemvizError:  # a statement the reader cannot split: what it writes becomes unknown
                    self._define(_REGISTER.findall(rest.split(",", 1)[0]))
                    return
                opcode, operands, guard = found.opcode, found.operands, found.guard
        head = opcode.split(".", 1)[0]
        if head == "tcgen05":
            self._tcgen05(line, opcode, operands, guard, text)
        elif head == "call":
            kernel.calls = True
            named = [o for o in operands if not o.startswith("(")]
            kernel.callees.add(named[0] if named and _SYMBOL.match(named[0]) else "?")
        elif head in _STORES and operands and operands[0].startswith("["):
            where = _located(self._address(operands[0]), "var" if ".shared" in opcode else "generic")
            if where is not None:
                kernel.stored.append(where)
        written = _written(opcode, operands, head)
        if len(written) == 1 and head != "tcgen05":
            kernel.definitions[written[0]] = kernel.definitions.get(written[0], 0) + 1
            value = self._compute(opcode, operands, written[0])
            old = self._get(written[0])
            if guard is not None and value != old:
                value = None  # not executed when the guard is false: the old value may remain
            self._values[written[0]] = value if value is not None else next(self._fresh)
        else:
            self._define(written)
        if head in BRANCHES:
            self._block += 1

    def _define(self, registers: list[str]) -> None:
        """Registers written with values the tracker does not follow."""
        assert self._kernel is not None
        definitions = self._kernel.definitions
        for register in registers:
            definitions[register] = definitions.get(register, 0) + 1
            self._values[register] = next(self._fresh)  # an unknown value, made when looked at

    def _get(self, register: str) -> Value | None:
        """What ``register`` holds: an unknown value written as its number is made a :class:`Ptr` the
        first time it is looked at (most never are)."""
        value = self._values.get(register)
        if type(value) is int:
            value = self._values[register] = self._opaque(register, value)
        return value  # type: ignore[return-value]

    def _opaque(self, register: str, number: int | None = None) -> Ptr:
        """An unknown value, but one that copies of it can be recognised by (a slot held in a register):
        the ``number``-th made (a new one when not given)."""
        return Ptr(
            ("opaque", next(self._fresh) if number is None else number), 0, "var", frozenset({register})
        )

    def _value(self, operand: str) -> Value | None:
        operand = operand.strip()
        if operand.startswith("%"):
            return self._get(operand)
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
        bits = 64 if _WIDE.search(opcode, len(head)) else 32  # a qualifier ending in 64 (.u64, .b64)
        sources = operands[1:]
        deps = frozenset({dest})
        if head in ("mov", "cvt", "cvta") and len(sources) == 1:
            if head == "cvt" and not all(p in _INTEGERS for p in parts[1:]):
                return None  # a rounding, a float or a narrower type: not an address any more
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
        if any(p in ("param", "global", "const", "local") for p in parts) or not {"b32", "u32", "s32"} & set(
            parts
        ):
            return None  # the slot holds one 32-bit address
        where = self._address(operand)
        if not isinstance(where, Ptr):
            return None
        here = _located(where, "var" if "shared" in parts else "generic")
        assert self._kernel is not None
        if here is None:
            return None
        for alloc in reversed(self._kernel.allocs):
            if alloc.slot is not None and here.same_place(alloc.slot):
                return Tmem(alloc.index, (0, 0), (0, 0), deps | where.deps | alloc.slot.deps)
        if "shared" in parts or here.root[0] == "var":
            self._kernel.slots_read.append(here)  # resolved once the function's allocs are known
            return Tmem(-len(self._kernel.slots_read), (0, 0), (0, 0), deps | where.deps)
        return None

    def _tcgen05(
        self, line: int, opcode: str, operands: tuple[str, ...], guard: str | None, text: str
    ) -> None:
        kernel = self._kernel
        assert kernel is not None
        order = self._per_line.get(line, 0)
        self._per_line[line] = order + 1
        op = opcode.split(".")[1].split("::")[0] if "." in opcode else opcode
        statement = Statement(line, order, op, text, self._block, operands=operands)
        for register in _REGISTER.findall(" ".join(o for o in operands if not o.startswith("{"))):
            value = self._get(register)
            if value is None and op in ("alloc", "dealloc"):
                value = self._values[register] = self._opaque(register)
            if value is not None:
                statement.registers[register] = value
        if op in ("alloc", "dealloc") and operands:
            count = self._value(operands[-1])
            statement.columns = count.value if isinstance(count, Const) else None
        if op == "alloc" and operands and operands[0].startswith("["):
            slot = self._address(operands[0])
            group = 2 if "cta_group::2" in opcode else 1
            at = _located(slot, "var" if "shared" in opcode else "generic")
            kernel.allocs.append(Alloc(len(kernel.allocs), line, statement.columns, group, at, guard))
        kernel.statements.append(statement)


def _written(opcode: str, operands: tuple[str, ...], head: str) -> list[str]:
    """The registers an instruction writes: its first operand's (the reader's rule, as
    :func:`tmemviz.ptx.registers.destinations`), and, erring towards "written", a call's results and
    every register operand of a tcgen05.ld (its vector and ld.red's redval).

    >>> _written("add.s32", ("%r3", "%r2", "64"), "add"), _written("st.shared.b32", ("[%r1]", "%r2"), "st")
    (['%r3'], [])
    """
    if not operands:
        return []
    if opcode.startswith("tcgen05.ld"):
        return [r for o in operands if not o.startswith("[") for r in _REGISTER.findall(o)]
    if head == "call":
        return _REGISTER.findall(operands[0]) if operands[0].startswith("(") else []
    if head in NO_DESTINATION or head == "tcgen05" or operands[0].startswith(("[", "(")):
        return []
    return _REGISTER.findall(operands[0])


def _extent(statement: Statement, footprint: Any, line: PtxLine, known: dict[int, Any]) -> None:
    """An ld/st's lanes and columns from its layout's cells (the explainer's, one set per layout)."""
    if statement.op not in ("ld", "st"):
        return
    try:
        found = footprint(line)
    except TmemvizError:
        return
    if not found or not found[1]:
        return
    cells = found[1]
    extent = known.get(id(cells))
    if extent is None:
        lanes = [lane for lane, _ in cells]
        cols = [col for _, col in cells]
        extent = known[id(cells)] = ((min(lanes), max(lanes)), (min(cols), max(cols)))
    statement.extent = extent


def _located(where: Value | None, space: str) -> Ptr | None:
    """The place an instruction of state space ``space`` (``var``: .shared; ``generic``) reaches at
    ``where``: a variable's address must be in that window (``mov`` gives its own, ``cvta`` the generic
    one, PTX 6.4.1); an unknown value is its own place, in the instruction's space."""
    if not isinstance(where, Ptr):
        return None
    if where.root[0] == "opaque":
        return Ptr(where.root, where.offset, space, where.deps)
    return where if where.space == space else None
