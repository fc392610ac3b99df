"""A PTX module as a stream of events, with the per-function state every TMEM reader reads.

:func:`events` reads statements (:mod:`tmemviz.ptx.statements`) and keeps, per ``.entry``/``.func``,
a :class:`~tmemviz.ptx.state.FunctionState`: the constant values of registers
(:class:`~tmemviz.ptx.registers.Constants`), the alloc/dealloc instructions and the first
``.cta_group``. It yields an :class:`Event` per tcgen05 instruction (and per statement with
``every=True``), per function start, per statement it could not read. Consumers (``explain``,
``check``) read the same stream. The order between instructions (when a tcgen05.ld or st is complete)
is not judged here: ``check``'s analysis follows every path with the one rule of
:mod:`tmemviz.families.explain.follow.pending`.

With ``every=True`` every instruction is read and ``fn.constants`` (the eager
:class:`~tmemviz.ptx.registers.Constants`) is current at every event. With ``every=False`` the reader
skips the plain lines of a function (:class:`~tmemviz.ptx.statements.Gate`) and ``fn.constants`` is a
:class:`~tmemviz.ptx.lazy.Lazy`: at a tcgen05 event it answers what the eager tracker would hold
there, looking back only for the registers asked about.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from tmemviz.errors import TmemvizError
from tmemviz.ptx.deferred import calls, replayed
from tmemviz.ptx.lazy import Lazy
from tmemviz.ptx.line import PtxLine, opcode_head_rest, parse_statement
from tmemviz.ptx.registers import CONSTANT_OPS, Constants, destinations
from tmemviz.ptx.state import FunctionState
from tmemviz.ptx.statements import MAX_STATEMENT_CHARS, Gate, Statement, statements

_FUNCTION = re.compile(r"\.(entry|func)\b\s*(?:\([^)]*\)\s*)?([\w$.]+)?")
_TARGET = re.compile(r"^\.target\s+([\w,\s]+)")


@dataclass(slots=True)
class Event:
    """``kind``: target, function, tcgen05, instruction (``every=True``), label, problem.

    ``line`` is the parsed statement where one was parsed; ``message`` says what a problem is.
    """

    kind: str
    statement: Statement | None
    fn: FunctionState
    line: PtxLine | None = None
    message: str | None = None
    target: str | None = None


def events(
    lines: Iterable[str],
    *,
    every: bool = False,
    max_chars: int = MAX_STATEMENT_CHARS,
    defer: bool = False,
    paths: bool = False,
    instructions: Callable[[Statement], None] | None = None,
) -> Iterator[Event]:
    """The events of one module, in order (see the module's docstring).

    ``paths`` (with constants looked for when asked): an ``end`` event closes each function, its
    ``fn.constants`` then answering over every path of the function
    (:meth:`~tmemviz.ptx.lazy.Lazy.complete`) at the place it is pointed to (``fn.constants.point``, as
    it was at a tcgen05 event): a register that two paths set differently, or that a loop steps, is not
    taken for its last write in the text. A reader that wants such answers keeps the tcgen05 events of a
    function and answers them there.

    ``instructions`` (with ``every`` and ``paths``): called with each instruction statement but tcgen05,
    in order, in place of its ``instruction`` event (a reader that takes those statements alone, as
    check's collector does, without an event made and passed on for each: most of a module's
    statements).

    ``defer`` (with ``every``): a function is read as ``every=False`` reads it until its first tcgen05
    instruction, then its statements so far (but lines that hold no statement: ``.loc``, ``.pragma``)
    are read again eagerly (:mod:`tmemviz.ptx.deferred`); a function without one gives its ``call``
    instructions alone. ``fn.constants`` is then a :class:`~tmemviz.ptx.lazy.Lazy` that notes every
    statement read and looks values up when asked (an unreadable constant op is a problem only then).

    >>> text = [".target sm_100a", ".visible .entry k()", "{",
    ...         "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r9];", "st.global.b32 [%rd1], %r1;",
    ...         "bar.sync 0;", "}"]
    >>> [(e.kind, e.statement.first) for e in events(text)]
    [('target', 1), ('function', 2), ('tcgen05', 4)]
    """
    lazy = not every
    # Constants looked for when asked (every statement still read with defer, or with paths: each noted,
    # for its function's answers over paths at its end).
    asked = lazy or defer or paths
    # Where every statement makes an event and fn.constants is a Lazy (no problem to find first), an
    # instruction's event is the reader's own call instead.
    handed = instructions if every and asked else None
    fn = FunctionState(None, Lazy() if asked else Constants())
    header: Statement | None = None
    depth = 0
    gate = Gate()

    # A file's blocks are worth their runs only to a reader that skips lines; an eager one takes its lines.
    source = statements(lines if asked else iter(lines), max_chars, gate)
    deferring = False
    read: list[Statement] = []  # what a deferred function read one by one
    kept: Lazy | None = None  # its plain lines
    queue: list[Statement] = []  # statements to read again (last first) before the next one
    inner = 0  # inline-asm scopes open while deferring
    body = False  # a function's body is open (not a data section's scope)
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
                yield from _tcgen05(s, fn, asked)
            elif handed is not None:
                handed(s)
            else:
                found = _other(s, fn, every)
                if found is not None:
                    yield found
        elif kind == "label":
            if asked:
                fn.constants.label(s.first)
            if every:
                yield Event("label", s, fn)
        elif kind == "open":
            if depth == 0 and header is not None:
                m = _FUNCTION.search(header.text)
                fn = FunctionState(m.group(2) if m else None)
                body = True
                if asked:
                    gate.keep = []
                    kept = Lazy(gate.keep, s.first + 1)
                    gate.seal = kept.seal
                    if lazy:
                        fn.constants = kept
                    else:  # every statement read, and noted
                        fn.constants = Lazy()
                        # Read like explain until the first tcgen05 instruction, then all noted; a
                        # function the text read ahead shows one in is read at once (the same events,
                        # without its start read twice).
                        if defer and not (gate.ahead is not None and gate.ahead()):
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
                gate.keep = gate.seal = None
                gate.data = False
                if paths and body:
                    yield _ended(s, fn)
                body = False
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
        elif kind in ("overlong", "unterminated"):
            message = "the text ends inside a statement (no ';' after it)"
            if kind == "overlong":
                message = (
                    f"a statement longer than {max_chars:,} characters (lines {s.first}-{s.last}) has no "
                    "';'; it was cut there and reading went on with the next line"
                )
            yield Event("problem", s, fn, message=message)
        if lazy:
            gate.skip = depth > 0
    if paths and body:  # the text ends inside a function
        yield _ended(None, fn)


def _ended(s: Statement | None, fn: FunctionState) -> Event:
    """The end of a function's body: its constants answer over its paths from now on."""
    fn.constants.complete()
    return Event("end", s, fn)


def _other(s: Statement, fn: FunctionState, every: bool) -> Event | None:
    """Any instruction but tcgen05: constants (eager), the event it makes (one at most)."""
    if isinstance(fn.constants, Lazy):  # its registers are looked for when asked: nothing to follow now
        return Event("instruction", s, fn) if every else None
    text = s.text
    opcode, head, rest = opcode_head_rest(text)
    values = fn.constants.values
    if not values and head not in CONSTANT_OPS and not every:
        return None  # the common case: nothing this instruction can change
    try:  # eager: every register followed
        parsed: PtxLine | None = fn.constants.follow(text, opcode, head, rest)
    except TmemvizError as exc:
        return Event("problem", s, fn, message=f"not read as PTX: {exc}")
    return Event("instruction", s, fn, line=parsed) if every else None


def _tcgen05(s: Statement, fn: FunctionState, lazy: bool) -> Iterator[Event]:
    """A statement that mentions tcgen05 (an instruction, or a name that merely holds the word)."""
    try:
        line = parse_statement(s.text)
        line.vectors()  # a vector that is none ({%r1, %r2}.entry k()) is unreadable here, not later
    except TmemvizError as exc:
        yield Event("problem", s, fn, message=f"not read as PTX: {exc}")
        return
    tokens = line.qualifiers
    if len(tokens) < 2 or tokens[0] != "tcgen05":
        found = _other(s, fn, False)
        if found is not None:
            yield found
        return
    op = tokens[1]
    if not lazy:
        for name in destinations(line):
            fn.constants.values.pop(name, None)
    yield Event("tcgen05", s, fn, line=line)
    if op == "alloc":
        fn.allocs.append((s.first, line))
    elif op == "dealloc":
        fn.deallocs.append((s.first, line))
