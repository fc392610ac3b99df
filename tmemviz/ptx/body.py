"""A PTX function as a list of instructions and labels, with its scopes, declared names and launch bounds,
and as the steps of its control-flow graph (:mod:`tmemviz.flow.cfg`).

:class:`Collector` is fed the events of the shared reader (:func:`tmemviz.ptx.stream.events` with
``every=True``) and hands over each function once it is read (:attr:`Collector.done`), so memory holds
one function at a time. Labels are resolved per scope: an inline-asm block ``{ ... }`` has labels of its
own (``LAB_WAIT``, ``DONE`` in every CUTLASS wait loop; PTX ISA 4.4 "Statements"), and a branch goes to
the label of the innermost scope around it that defines the name.

Registers are identifiers (PTX ISA 4.4 "Identifiers"; 5.1.1 "Register state space"): besides ``%``
names, any name a ``.reg`` declaration of the function gives (``.reg .pred P1;``) is a register.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.flow.cfg import JUMP, LABEL, PLAIN_STEP, STOP, Step
from tmemviz.ptx.line import PtxLine, opcode_head_rest, parse_collapsed
from tmemviz.ptx.names import Declared
from tmemviz.ptx.registers import NO_DESTINATION
from tmemviz.ptx.statements import collapse

_NTID = re.compile(r"\.(reqntid|maxntid)\s+([\d\s,]+)")
_FUNCTION = re.compile(r"\.(entry|func)\b\s*(?:\([^)]*\)\s*)?([\w$.]+)?")
_TARGETS = re.compile(r"^([\w$.]+)\s*:\s*\.branchtargets\s+(.*)$")
_READ = (".reg", "ntid", ".entry", ".func", ".branchtargets")
"""A word in every directive :meth:`Collector._directive` reads (a header, launch bounds, a ``.reg``
declaration, a ``.branchtargets`` list): none of its patterns matches a text without one."""


@dataclass(eq=False, slots=True)
class Instruction:
    """One instruction statement of a function."""

    index: int
    """Its place in :attr:`Body.code`."""
    line: int
    text: str
    """Whitespace collapsed, no ``;``."""
    opcode: str
    head: str
    rest: str
    guard: str | None
    scope: int
    record: dict[str, Any] | None = None
    """The explain record of a tcgen05 instruction (what its family says it does)."""
    _parsed: PtxLine | None = None

    @property
    def parsed(self) -> PtxLine:
        """The statement split by the shared reader (raises :class:`~tmemviz.errors.TmemvizError`)."""
        if self._parsed is None:
            self._parsed = parse_collapsed(self.text)
        return self._parsed


@dataclass(frozen=True, slots=True)
class Label:
    index: int
    line: int
    name: str
    scope: int


@dataclass
class Body:
    """One ``.entry``/``.func``: its code in order and what the analyses need to know about it."""

    name: str | None
    entry: bool
    line: int
    ntid: tuple[int, int, int] | None = None
    """The threads of a CTA (``.reqntid``; ``.maxntid`` as an upper bound), when the header says."""
    code: list[Instruction | Label] = field(default_factory=list)
    parents: list[int] = field(default_factory=lambda: [-1])
    """Scope -> its enclosing scope (scope 0 is the function body)."""
    names: Declared = field(default_factory=Declared)
    """Registers declared without ``%`` (``acc2`` too, when ``acc<4>`` was declared)."""
    targets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """``.branchtargets`` lists by name (for ``brx.idx``)."""
    listed: list[Instruction] | None = field(default=None, repr=False)
    """The instructions, listed once the function is read (every rule walks them)."""

    @property
    def instructions(self) -> Iterable[Instruction]:
        if self.listed is not None:
            return self.listed
        return (c for c in self.code if isinstance(c, Instruction))

    @property
    def warps(self) -> int | None:
        """Warps per CTA when the header bounds the threads."""
        if self.ntid is None:
            return None
        x, y, z = self.ntid
        return max(1, -(-(x * y * z) // 32))

    def registers(self, text: str) -> list[str]:
        """Every register named in ``text`` (an operand, or several)."""
        return self.names.registers(text)

    def writes(self, ins: Instruction) -> list[str]:
        """The registers ``ins`` writes: its first operand's (every one of a vector, ``%p|%q`` both, a
        call's results), unless its opcode writes none (stores, branches, barriers; of tcgen05 only ld)."""
        head, rest = ins.head, ins.rest
        if head == "call":
            return self.names.registers(rest[: rest.find(")")]) if rest[:1] == "(" else []
        if head in NO_DESTINATION or rest[:1] in "[(" or not rest:
            return []
        if head == "tcgen05":
            if not ins.opcode.startswith("tcgen05.ld"):
                return []
            # Every vector before the address: the destinations, and ld.red's reduced value.
            return self.names.registers(rest[: rest.find("[")]) if rest[:1] == "{" else []
        if rest[:1] == "{":
            return self.names.registers(rest[: rest.find("}") + 1])
        return self.names.registers(rest.split(",", 1)[0])

    def reads(self, ins: Instruction, written: Sequence[str] | None = None) -> list[str]:
        """The registers ``ins`` reads: every one outside the operand it writes, and its guard's
        (``written``: what :meth:`writes` gives, where the caller has it)."""
        head, rest = ins.head, ins.rest
        out = self.names.registers(ins.guard) if ins.guard else []
        if head == "call":
            skip = rest.find(")") + 1 if rest[:1] == "(" else 0
            return out + self.names.registers(rest[skip:])
        if rest[:1] in "[(":
            written = []
        elif written is None:
            written = self.writes(ins)
        if not written:
            return out + self.names.registers(rest)
        if head == "tcgen05":  # an ld reads its address only
            return out + self.names.registers(rest[rest.find("[") :])
        cut = rest.find("}") + 1 if rest[:1] == "{" else rest.find(",") + 1
        return out + self.names.registers(rest[cut:]) if cut > 0 else out

    def label_of(self, name: str, scope: int) -> int | None:
        """The index in :attr:`code` of the label ``name`` as seen from ``scope``."""
        table = self._labels()
        while scope >= 0:
            found = table.get((scope, name))
            if found is not None:
                return found
            scope = self.parents[scope]
        return None

    def _labels(self) -> dict[tuple[int, str], int]:
        table = getattr(self, "_label_table", None)
        if table is None:
            table = {(c.scope, c.name): c.index for c in self.code if isinstance(c, Label)}
            self._label_table = table
        return table

    def steps(self) -> list[Step]:
        """The function's code as :class:`~tmemviz.flow.cfg.Step` items, one per code item, labels named
        by their index (unique whatever the scope)."""
        out: list[Step] = []
        for c in self.code:
            if isinstance(c, Label):
                out.append(Step(LABEL, str(c.index)))
                continue
            head = c.head
            conditional = c.guard is not None
            if head == "bra":
                target = self.label_of(c.rest.strip(), c.scope)
                out.append(
                    Step(JUMP, targets=(str(target),) if target is not None else (), conditional=conditional)
                )
            elif head == "brx":
                found = self.indexed(c)
                targets = tuple(str(t) for t in found) if found is not None else ()
                out.append(Step(JUMP, targets=targets, conditional=conditional))
            elif head in ("ret", "exit"):
                out.append(Step(STOP, conditional=conditional))
            elif head == "trap":
                out.append(Step(STOP, conditional=conditional, exits=False))
            else:
                out.append(PLAIN_STEP)
        return out

    def indexed(self, ins: Instruction) -> list[int] | None:
        """The code indices of the labels a ``brx.idx`` picks from, in its list's order (index 0 first:
        PTX ISA ``brx.idx``, the list a ``.branchtargets`` directive of the function names); None when
        the list or one of its labels is not found."""
        operands = [o.strip() for o in ins.rest.split(",")]
        names = self.targets.get(operands[-1]) if len(operands) >= 2 else None
        if not names:
            return None
        found = [self.label_of(n, ins.scope) for n in names]
        return None if None in found else found  # type: ignore[return-value]


class Collector:
    """Builds :class:`Body` objects from the reader's events (``observe``); each is appended to
    :attr:`done` when the next function starts or :meth:`finish` is called."""

    def __init__(self) -> None:
        self.done: list[Body] = []
        self.body: Body | None = None
        self._ntid: tuple[int, int, int] | None = None
        self._scope = 0
        self._header = False  # a function header seen whose body has not opened yet
        self._unexplained = 0

    def instruction(self, s: Any) -> None:
        """An instruction statement of the function being read (none outside one)."""
        body = self.body
        if body is None:
            return
        # Most of a module's statements: collapsed (statements.collapse) and split at once.
        words = s.text.split()
        text = " ".join(words)
        first = words[0] if words else ""
        opcode, head, rest = opcode_head_rest(text, first)
        # A guard's predicate: '@%p bra L' has one; '@ %p bra' (the '@' alone) is read as having none.
        guard = first[1:] if first[:1] == "@" and (first != "@" or " " not in text) else None
        code = body.code
        code.append(Instruction(len(code), s.first, text, opcode, head, rest, guard, self._scope))

    def observe(self, event: Any) -> None:
        kind = event.kind
        s = event.statement
        body = self.body
        if kind == "instruction" or kind == "tcgen05":
            if s is not None:
                self.instruction(s)
            return
        if kind == "function":
            self.finish()
            header = s.text if s is not None else ""
            m = _FUNCTION.search(header)
            ntid = _launch_bounds(header) or self._ntid
            self.body = Body(m.group(2) if m else None, ".entry" in header, s.first if s else 0, ntid)
            self._unexplained = 0  # the body's first code not yet given its record
            self._ntid, self._scope, self._header = None, 0, False
            return
        if kind == "directive" and s is not None:
            self._directive(s.text)
            return
        if body is None or s is None:
            return
        if kind == "label":
            body.code.append(Label(len(body.code), s.first, s.text.strip(), self._scope))
        elif kind == "open":
            body.parents.append(self._scope)
            self._scope = len(body.parents) - 1
        elif kind == "close":
            self._scope = max(body.parents[self._scope], 0)

    def _directive(self, text: str) -> None:
        if not any(word in text for word in _READ):
            return  # .param, .loc, .pragma...: none of those read below (each pattern needs its word)
        text = collapse(text)
        if _FUNCTION.search(text):  # a new header: bounds seen so far belonged to a prototype
            self._ntid, self._header = None, True
            return
        bounds = _launch_bounds(text)
        if bounds is not None:
            # Bounds follow their function's header (PTX 11.4), which the stream may announce only at
            # its "{": after a header they are the next function's, never the one before (whose
            # statements a deferred reading may not have handed over yet).
            if not self._header and self.body is not None and self.body.ntid is None and not self.body.code:
                self.body.ntid = bounds
            else:
                self._ntid = bounds  # before its function's body opens
            return
        body = self.body
        if body is None:
            return
        if body.names.declare(text):
            return
        m = _TARGETS.match(text)
        if m:
            body.targets[m.group(1)] = _names(m.group(2))
        elif text.startswith(".branchtargets") and body.code and isinstance(body.code[-1], Label):
            # "ts: .branchtargets L1, L2;" comes as the label, then the directive (the reader splits a
            # label off what follows it): the label names the list, it is no place in the code.
            name = body.code.pop().name
            body.targets[name] = _names(text[len(".branchtargets") :])

    def explained(self, event: Any) -> None:
        """The reader's call after a tcgen05 event was explained; the record comes with :meth:`attach`."""

    def attach(self, record: dict[str, Any]) -> None:
        """The explain record of a tcgen05 instruction of the function being read (made at its end, when
        its registers' values are known over every path): the first on the record's line without one."""
        if self.body is None:
            return
        line = record.get("line")
        pending = self._unexplained
        while pending < len(self.body.code):
            c = self.body.code[pending]
            pending += 1
            if isinstance(c, Instruction) and c.head == "tcgen05" and c.record is None and c.line == line:
                c.record = record  # those before it made no record
                self._unexplained = pending
                return

    def finish(self) -> None:
        if self.body is not None:
            self.body.listed = [c for c in self.body.code if isinstance(c, Instruction)]
            self.done.append(self.body)
            self.body = None


def _names(text: str) -> tuple[str, ...]:
    """The labels of a ``.branchtargets`` list (``L1, L2, L3``), in order."""
    return tuple(t.strip() for t in text.rstrip(";").split(",") if t.strip())


def _launch_bounds(text: str) -> tuple[int, int, int] | None:
    """``.reqntid 128, 1, 1`` / ``.maxntid 256`` -> (x, y, z) (PTX 11.4 "Performance-tuning
    directives"); the required count is exact, the maximum an upper bound: either bounds the warps.

    >>> _launch_bounds(".maxntid 256"), _launch_bounds(".reqntid 64, 2"), _launch_bounds(".entry k()")
    ((256, 1, 1), (64, 2, 1), None)
    """
    m = _NTID.search(text)
    if m is None:
        return None
    numbers = [int(n) for n in m.group(2).replace(",", " ").split()][:3]
    if not numbers:
        return None
    numbers += [1] * (3 - len(numbers))
    return numbers[0], numbers[1], numbers[2]
