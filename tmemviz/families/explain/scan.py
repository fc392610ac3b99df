"""Explain every tcgen05 instruction of a PTX module, as records made one at a time.

The module is read by :func:`tmemviz.ptx.stream.events` (statements whatever their spacing, constant
values of registers); this module turns its events into records and warnings:

* ``tcgen05.ld.red`` in a module whose ``.target`` cannot run it (PTX 9.7.16.8.3 Target ISA notes);
* ``.cta_group::1`` and ``::2`` mixed in one kernel (PTX 9.7.16.9.3: "All tcgen05 instructions within
  a kernel must specify the same value for the .cta_group qualifier");
* a statement the reader could not read, or one cut at the reader's bound;
* and what each instruction's own explanation finds (vector length, alloc size, overlapping halves).

When a tcgen05.ld or st is complete (``tcgen05.wait::ld``/``wait::st``) is ``check``'s ``wait-ld`` rule,
which follows every path (:mod:`tmemviz.families.explain.follow.pending` states it); a scan of one
instruction at a time cannot judge it, so explain does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tmemviz.ptx.line import PtxLine
from tmemviz.ptx.state import FunctionState
from tmemviz.ptx.statements import collapse
from tmemviz.ptx.stream import events


@dataclass
class Warning:
    line: int
    message: str

    def record(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}


Function = FunctionState
"""The per-function state of :mod:`tmemviz.ptx.stream` (constants, allocs)."""


@dataclass
class Module:
    """One scanned file: its target, the tcgen05 instructions found, and warnings, in line order.

    ``instructions`` is filled by :func:`scan`; :func:`records` yields them instead, for streaming.
    """

    path: str
    target: str | None = None
    instructions: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    count: int = 0
    tracker: Any = None
    """The allocation tracker fed by the same read (:func:`records` with a tracker), for the TMEM map."""
    budgets: dict[str, Any] = field(default_factory=dict)
    """Kernel name (or ``line N``) -> its Tensor Memory budget, gathered by the tracker, for the map."""


Explainer = Callable[[int, str, PtxLine, FunctionState, Module], "dict[str, Any] | None"]
"""Given (line number, statement text, parsed line, function state, module): the instruction's record
(and warnings on the module), or None for a statement that is no tcgen05 instruction."""


def scan(path: str, lines: Iterable[str], explain: Explainer) -> Module:
    """Find every tcgen05 statement of ``lines`` and explain it with ``explain``; all in memory.

    >>> def note(n, text, line, fn, mod): return {"line": n, "ptx": text}
    >>> m = scan("k.ptx", [".target sm_100a", ".entry k()", "{", "tcgen05.wait::ld.sync.aligned;", "}"], note)
    >>> m.target, m.instructions
    ('sm_100a', [{'line': 4, 'ptx': 'tcgen05.wait::ld.sync.aligned;'}])
    """
    module = Module(path)
    module.instructions = list(records(module, lines, explain))
    return module


def records(
    module: Module,
    lines: Iterable[str],
    explain: Explainer,
    tracker: Any = None,
    defer: bool = False,
) -> Iterator[dict[str, Any]]:
    """The records of ``module``'s tcgen05 instructions as they are made; its target and warnings are
    set on ``module`` as the scan goes (all of them once the iterator is exhausted).

    ``tracker`` (:class:`~tmemviz.families.explain.follow.follower.Follower`), when given, is fed every
    event of the same read and each tcgen05 record (what the TMEM map draws) and kept on ``module``: the
    file is read once. ``defer``: the
    tracker sees a function's statements only once it has a tcgen05 instruction (its calls otherwise),
    and statements nothing asks about are not looked for problems (:mod:`tmemviz.ptx.deferred`)."""
    module.tracker = tracker
    texts: dict[str, str] = {}  # a statement's text as the record says it (kernels repeat statements)
    held: list[tuple[Any, tuple[int, int]]] = []
    """A function's tcgen05 events and problems, each with its place: answered at the function's end,
    when its registers' values are known over every path (:meth:`~tmemviz.ptx.lazy.Lazy.complete`)."""
    taken = tracker.instruction if tracker is not None else None
    for e in events(lines, every=tracker is not None, defer=defer, paths=True, instructions=taken):
        kind = e.kind
        if kind == "function" and held:  # a function that ended without its body's end (none read)
            yield from _answered(held, module, explain, texts, tracker)
        if tracker is not None:
            tracker.observe(e)
        if kind in ("tcgen05", "problem"):
            held.append((e, e.fn.constants.point))  # a Lazy: the stream looks values up when asked
        elif kind == "end":
            yield from _answered(held, module, explain, texts, tracker)
        elif kind == "target" and module.target is None:
            module.target = e.target
    yield from _answered(held, module, explain, texts, tracker)  # a statement outside any function


def _answered(
    held: list[tuple[Any, tuple[int, int]]], module: Module, explain: Explainer, texts: dict[str, str],
    tracker: Any,
) -> Iterator[dict[str, Any]]:  # fmt: skip
    """The records of the events held, each answered at its own place."""
    for h, place in held:
        h.fn.constants.point = place
        record = _made(h, module, explain, texts, tracker)
        if record is not None:
            yield record
    held.clear()


def _made(
    e: Any, module: Module, explain: Explainer, texts: dict[str, str], tracker: Any
) -> dict[str, Any] | None:
    """The record of a tcgen05 event (None for none), or the warning of a problem."""
    s, line = e.statement, e.line
    assert s is not None
    if e.kind == "problem":
        module.warnings.append(Warning(s.first, str(e.message)))
        return None
    assert line is not None
    text = texts.get(s.text)
    if text is None:
        if len(texts) > 4096:
            texts.clear()
        text = texts[s.text] = collapse(s.text) + ";"
    record = explain(s.first, text, line, e.fn, module)
    asked = getattr(e.fn.constants, "problems", None)
    if asked:  # statements a value was looked for in (tmemviz.ptx.lazy) that could not be read
        module.warnings.extend(Warning(n, message) for n, message in asked)
        asked.clear()
    if tracker is not None:
        tracker.explained(e, record)
    if record is None:
        return None
    module.count += 1
    _cta_group(record, s.first, e.fn, module)
    return record


def _cta_group(record: dict[str, Any], line: int, fn: FunctionState, module: Module) -> None:
    group = record.get("cta_group")
    if not isinstance(group, int):
        return
    if fn.cta_group is None:
        fn.cta_group = (group, line)
    elif fn.cta_group[0] != group:
        module.warnings.append(
            Warning(
                line,
                f".cta_group::{group} here, but line {fn.cta_group[1]} uses .cta_group::{fn.cta_group[0]}: "
                "all tcgen05 instructions of a kernel must use the same .cta_group (PTX 9.7.16.9.3)",
            )
        )
