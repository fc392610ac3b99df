"""A PTX module as a stream of events, with the per-function state every TMEM check reads.

:func:`events` reads statements (:mod:`tmemviz.ptx.statements`) and keeps, per ``.entry``/``.func``,
a :class:`~tmemviz.ptx.state.FunctionState`: the constant values of registers
(:class:`~tmemviz.ptx.registers.Constants`), the tcgen05.ld whose destination registers have not all
been read yet, the tcgen05.st not yet waited for, the alloc/dealloc instructions and the first
``.cta_group``. It yields an :class:`Event` per
tcgen05 instruction (and per statement with ``every=True``), per function start, per hazard found,
per statement it could not read. Consumers (``explain``, ``check``) read the same stream.

Hazards (PTX 9.7.16.6 "Memory consistency model for tcgen05"; 9.7.16.8.5 tcgen05.wait):

* a tcgen05.ld is complete once every destination register has been read by a later instruction
  (a register dependency orders the reader after the load) or after ``tcgen05.wait::ld``. The PTX ISA
  names only the wait (9.7.16.8.5); that a read of every register orders as much is tmemviz's reading,
  on the evidence that ptxas emits no SASS instruction for tcgen05.wait::ld (the registers' scoreboard
  is the wait) and that CuTe DSL kernels rely on it. While one is pending, an instruction that writes or frees
  Tensor Memory (tcgen05.st/mma/cp/shift/dealloc) or lets other threads go on (bar/barrier
  sync/arrive/red, mbarrier.arrive) is a hazard, reported with the registers still unread;
* a tcgen05.st is complete after ``tcgen05.wait::st``; a later tcgen05.ld that reads cells it wrote
  (same base register, overlapping lanes and columns, as the ``footprint`` callback says) is a hazard;
* a label or a branch ends the straight-line block: what is pending is dropped, not followed (no
  warning on paths the scan cannot see).

With ``every=True`` every instruction is read and ``fn.constants`` (the eager
:class:`~tmemviz.ptx.registers.Constants`) is current at every event. With ``every=False`` the reader
skips the plain lines of a function while nothing is pending (:class:`~tmemviz.ptx.statements.Gate`)
and ``fn.constants`` is a :class:`~tmemviz.ptx.lazy.Lazy`: at a tcgen05 event it answers what the
eager tracker would hold there, looking back only for the registers asked about. While a load is
pending, runs of the plainest statements are passed too; their reads are found in the runs' text
(:func:`~tmemviz.ptx.registers.run_reads`) and applied where the pending loads are looked at
(:meth:`~tmemviz.ptx.state.FunctionState.settle`): the same hazards as reading line by line.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.ptx.deferred import calls, replayed
from tmemviz.ptx.lazy import Lazy
from tmemviz.ptx.line import PtxLine, opcode_head_rest, parse_statement
from tmemviz.ptx.registers import CONSTANT_OPS, Constants, destinations, read_by, registers
from tmemviz.ptx.state import FunctionState, Hazard, PendingLd, PendingSt
from tmemviz.ptx.statements import MAX_STATEMENT_CHARS, Gate, Statement, label_of, statements

TMEM_WRITERS = ("st", "mma", "cp", "shift", "dealloc")
"""tcgen05 instructions that write or free Tensor Memory; none is ordered after a tcgen05.ld of the same
thread (PTX 9.7.16.6.2 lists the pipelined pairs; ld is in none)."""
RELEASES = ("bar.sync", "bar.arrive", "bar.red", "barrier.sync", "barrier.arrive", "barrier.red",
            "barrier.cta", "barrier.cluster.arrive", "mbarrier.arrive")  # fmt: skip
"""Instructions that let other threads go on (which may then write or free Tensor Memory)."""
BRANCHES = frozenset(("bra", "brx", "ret", "exit", "trap", "call"))
_FUNCTION = re.compile(r"\.(entry|func)\b\s*(?:\([^)]*\)\s*)?([\w$.]+)?")
_TARGET = re.compile(r"^\.target\s+([\w,\s]+)")

Footprint = Callable[[PtxLine], "tuple[str | None, frozenset[tuple[int, int]]] | None"]
"""(base register, cells (lane, column) relative to it) a tcgen05.ld/st touches, or None if unknown."""


@dataclass
class Event:
    """``kind``: target, function, tcgen05, instruction (``every=True``), label, hazard, problem.

    ``line`` is the parsed statement where one was parsed; ``message`` says what a problem is.
    """

    kind: str
    statement: Statement | None
    fn: FunctionState
    line: PtxLine | None = None
    hazard: Hazard | None = None
    message: str | None = None
    target: str | None = None


def events(
    lines: Iterable[str],
    footprint: Footprint | None = None,
    *,
    every: bool = False,
    max_chars: int = MAX_STATEMENT_CHARS,
    defer: bool = False,
) -> Iterator[Event]:
    """The events of one module, in order (see the module's docstring).

    ``defer`` (with ``every``): a function is read as ``every=False`` reads it until its first tcgen05
    instruction, then its statements so far (but lines that hold no statement: ``.loc``, ``.pragma``)
    are read again eagerly (:mod:`tmemviz.ptx.deferred`); a function without one gives its ``call``
    instructions alone. ``fn.constants`` is then a :class:`~tmemviz.ptx.lazy.Lazy` that notes every
    statement read and looks values up when asked (an unreadable constant op is a problem only then).

    >>> text = [".target sm_100a", ".visible .entry k()", "{",
    ...         "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r9];", "st.global.b32 [%rd1], %r1;",
    ...         "bar.sync 0;", "}"]
    >>> [(e.kind, e.statement.first, e.hazard and e.hazard.unread) for e in events(text)]
    [('target', 1, None), ('function', 2, None), ('tcgen05', 4, None), ('hazard', 6, ('%r2',))]
    """
    lazy = not every
    asked = lazy or defer  # constants looked for when asked (every statement still read with defer)
    fn = FunctionState(None, Lazy() if asked else Constants())
    header: Statement | None = None
    depth = 0
    gate = Gate()

    def watch(raw: str) -> bool:
        # A plain line while something is pending, as _other reads it: its reads complete lds;
        # a branch, a release or a label is left to the statement path (False, nothing done).
        code = raw.strip()[:-1].rstrip()
        if ":" in code and label_of(code) is not None:
            return False
        if code[:1] != "." and code:
            opcode, head, rest = opcode_head_rest(code)
            if head in BRANCHES or opcode.startswith(RELEASES):
                return False
            if fn.pending_ld:
                fn.read(read_by(head, rest) + _guard(code))
        unwatched()
        return True

    def watch_run(text: str) -> None:
        # A run of plain lines while something is pending (gate.runs): its reads kept for later.
        if fn.pending_ld:
            fn.passed_run(text)
        unwatched()

    def unwatched() -> None:
        # Nothing pending any more: plain lines go by unread again.
        if not fn.pending_ld and not fn.pending_st:
            gate.skip, gate.watch, gate.watch_run = True, None, None

    # A file's blocks are worth their runs only to a reader that skips lines; an eager one takes its lines.
    source = statements(lines if asked else iter(lines), max_chars, gate)
    deferring = False
    read: list[Statement] = []  # what a deferred function read one by one
    kept: Lazy | None = None  # its plain lines
    queue: list[Statement] = []  # statements to read again (last first) before the next one
    inner = 0  # inline-asm scopes open while deferring
    while True:
        s = queue.pop() if queue else next(source, None)  # type: ignore[arg-type]
        if deferring:
            # Its first tcgen05 instruction: every statement so far, then it. Its end (or the text's):
            # its calls, then what ended it.
            first = s is not None and s.kind == "instruction" and "tcgen05" in s.text
            if first or s is None or (s.kind == "close" and depth == 1 and not inner):
                deferring = gate.skip = gate.labels = False
                gate.keep = gate.seal = None
                assert kept is not None
                done = replayed(read, kept) if first else calls(read, kept)
                queue = ([] if s is None else [s]) + done[::-1]
                read, kept = [], None
                continue
            if s.kind in ("instruction", "label", "directive"):
                read.append(s)
                continue
            if s.kind == "open" or (s.kind == "close" and inner):  # an inline-asm scope: in order too
                inner += 1 if s.kind == "open" else -1
                read.append(s)
                continue
        if s is None:
            break
        kind = s.kind
        if kind == "instruction":
            text = s.text
            if asked:
                fn.constants.note(s.first, text)
            if "tcgen05" in text:
                yield from _tcgen05(s, fn, footprint, asked)
            else:
                found = _other(s, fn, every)
                if found:
                    yield from found
        elif kind == "label":
            fn.drop_pending()
            if every:
                yield Event("label", s, fn)
        elif kind == "open":
            if depth == 0 and header is not None:
                m = _FUNCTION.search(header.text)
                fn = FunctionState(m.group(2) if m else None)
                if asked:
                    gate.keep = []
                    kept = Lazy(gate.keep, s.first + 1)
                    gate.seal = kept.seal
                    if lazy:
                        fn.constants = kept
                    else:  # read like explain until the first tcgen05 instruction, then all noted
                        fn.constants = Lazy()
                        deferring, gate.skip, gate.labels, read, inner = True, True, True, [], 0
                yield Event("function", header, fn)
            elif depth == 0 and lazy:
                gate.data = True  # a data section's scope (.section .debug_info)
            elif depth > 0 and every:
                yield Event("open", s, fn)  # an inline-asm scope: its labels are its own (PTX 4.4)
            header = None
            depth += 1
        elif kind == "close":
            depth = max(depth - 1, 0)
            if depth > 0 and every:
                yield Event("close", s, fn)
            if depth == 0:
                fn.drop_pending()
                gate.keep = gate.seal = None
                gate.data = False
        elif kind == "directive":
            if depth == 0:
                text = s.text
                if _FUNCTION.search(text):
                    header = s
                elif text.startswith(".target"):
                    m = _TARGET.match(text)
                    if m:
                        yield Event("target", s, fn, target=m.group(1).split(",")[0].strip())
            if every:
                yield Event("directive", s, fn)
        elif kind == "overlong":
            fn.drop_pending()
            yield Event("problem", s, fn, message=(
                f"a statement longer than {max_chars:,} characters (lines {s.first}-{s.last}) has no ';'; "
                "it was cut there and reading went on with the next line"))  # fmt: skip
        elif kind == "unterminated":
            yield Event("problem", s, fn, message="the text ends inside a statement (no ';' after it)")
        if lazy:
            gate.skip = depth > 0 and not fn.pending_ld and not fn.pending_st
            gate.watch = watch if depth > 0 and not gate.skip else None
            gate.watch_run = watch_run if gate.watch is not None else None


def _other(s: Statement, fn: FunctionState, every: bool) -> list[Event] | None:
    """Any instruction but tcgen05: reads, constants (eager), barriers, branches (the events it makes)."""
    text = s.text
    opcode, head, rest = opcode_head_rest(text)
    pending = fn.pending_ld
    values = None if isinstance(fn.constants, Lazy) else fn.constants.values
    if not pending and not values and head not in CONSTANT_OPS and head not in BRANCHES and not every:
        return None  # the common case: nothing this instruction can change
    out: list[Event] = []
    parsed: PtxLine | None = None
    if pending:
        fn.read(read_by(head, rest) + _guard(text))
    if values is not None:  # eager: follow every register (lazy ones are looked for when asked)
        try:
            parsed = fn.constants.follow(text, opcode, head, rest)
        except TmemvizError as exc:
            return [Event("problem", s, fn, message=f"not read as PTX: {exc}")]
    if head in BRANCHES:
        fn.drop_pending()
    elif fn.pending_ld and opcode.startswith(RELEASES):
        out.extend(_hazards(s, fn, next(r for r in RELEASES if opcode.startswith(r))))
    if every:
        out.append(Event("instruction", s, fn, line=parsed))
    return out


def _guard(text: str) -> list[str]:
    """The register a guard (``@%p1``, ``@!%p1``) reads, which the instruction's operands do not hold."""
    return registers(text.split(None, 1)[0]) if text[:1] == "@" else []


def _hazards(s: Statement, fn: FunctionState, what: str) -> list[Event]:
    fn.settle()
    out = []
    for p in fn.pending_ld:
        unread = tuple(r for r in p.registers if r in p.unread)
        out.append(Event("hazard", s, fn, hazard=Hazard(s.first, what, "ld", p.line, unread)))
    fn.pending_ld.clear()
    return out


def _tcgen05(s: Statement, fn: FunctionState, footprint: Footprint | None, lazy: bool) -> Iterator[Event]:
    """A statement that mentions tcgen05 (an instruction, or a name that merely holds the word)."""
    try:
        line = parse_statement(s.text)
        line.vectors()  # a vector that is none ({%r1, %r2}.entry k()) is unreadable here, not later
    except TmemvizError as exc:
        yield Event("problem", s, fn, message=f"not read as PTX: {exc}")
        return
    tokens = line.qualifiers
    if len(tokens) < 2 or tokens[0] != "tcgen05":
        yield from _other(s, fn, False) or ()
        return
    op = tokens[1]
    waits_ld = op.startswith("wait::ld")
    if fn.passed and not waits_ld:
        fn.settle()  # before its own reads, hazards, a new pending load
    if fn.pending_ld:  # its reads (its operands but an ld's first, its guard) complete loads
        reads = [r for o in line.operands[1 if op == "ld" else 0 :] for r in registers(o)]
        fn.read([*reads, line.guard.lstrip("!")] if line.guard else reads)
    if waits_ld:
        fn.loads_waited()
    elif op.startswith("wait::st"):
        fn.pending_st.clear()
    if fn.pending_ld and op.split("::")[0] in TMEM_WRITERS:
        yield from _hazards(s, fn, f"tcgen05.{op.split('::')[0]}")
    if not lazy:
        for name in destinations(line):
            fn.constants.values.pop(name, None)
    yield Event("tcgen05", s, fn, line=line)
    if op == "ld":
        where = _footprint(footprint, line)
        if where is not None and fn.pending_st:
            base, cells = where
            for p in fn.pending_st:
                if p.base == base and p.cells & cells:
                    yield Event("hazard", s, fn, hazard=Hazard(s.first, "tcgen05.ld", "st", p.line))
                    fn.pending_st.remove(p)
                    break
        dests = line.vectors()[0] if line.operands and line.operands[0].startswith("{") else ()
        if dests:
            fn.pending_ld.append(PendingLd(s.first, tuple(dests), set(dests), where[0] if where else None))
    elif op == "st":
        where = _footprint(footprint, line)
        if where is not None:
            fn.pending_st.append(PendingSt(s.first, where[0], where[1]))
    elif op == "alloc":
        fn.allocs.append((s.first, line))
    elif op == "dealloc":
        fn.deallocs.append((s.first, line))


def _footprint(footprint: Footprint | None, line: PtxLine) -> Any:
    if footprint is None:
        return None
    try:
        return footprint(line)
    except TmemvizError:
        return None
