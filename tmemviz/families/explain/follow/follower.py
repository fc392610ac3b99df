"""Follows a PTX module's registers through each function's control flow, as the shared reader goes:
what ``explain``'s TMEM map draws and what ``check``'s rules judge.

A :class:`Follower` is fed the reader's events by :func:`tmemviz.families.explain.scan.records` (one read
of the file): it collects each function (:class:`~tmemviz.ptx.body.Collector`) with the explain record of
each of its tcgen05 instructions, and once the function ends analyses it
(:func:`~tmemviz.families.explain.follow.kernel.analyse`) and hands the result on (``each``), keeping only
what the map draws: memory holds one function at a time. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tmemviz.families.explain.follow.kernel import Analysed, analyse
from tmemviz.families.explain.follow.maps import kernel_map
from tmemviz.ptx.body import Body, Collector

RUNTIME = frozenset(("vprintf", "__assertfail", "malloc", "free"))
"""Device-runtime functions a kernel may call that touch no Tensor Memory (libdevice's ``__nv_*`` too)."""


@dataclass
class Summary:
    """What is known of one function once read: whether it allocates or frees, whom it calls."""

    allocs: bool
    deallocs: bool
    callees: set[str]


@dataclass
class Follower:
    explainer: Any
    catalog: Any
    each: Callable[[Body, Analysed | None, set[str]], None] | None = None
    """Called with every function read, its analysis (None for one without tcgen05) and the names it
    calls (read once, here)."""
    maps: list[tuple[Any, list[Any]]] = field(default_factory=list)
    summaries: dict[str | None, Summary] = field(default_factory=dict)
    collector: Collector = field(default_factory=Collector)
    mapping: bool = True
    """Each analysed function's TMEM map is made (what explain's map and check's figures draw); a reader
    that draws none makes none."""

    def observe(self, event: Any) -> None:
        collector = self.collector
        collector.observe(event)
        if collector.done:  # a function was closed (most events close none)
            self._drain()

    @property
    def instruction(self) -> Callable[[Any], None]:
        """What takes each instruction statement but tcgen05 straight from the reader (no event made for
        it): the collector's :meth:`~tmemviz.ptx.body.Collector.instruction`."""
        return self.collector.instruction

    def explained(self, event: Any, record: Any) -> None:
        if record is not None:
            self.collector.attach(record)

    def close(self) -> None:
        """The module is read: its last function is analysed."""
        self.collector.finish()
        self._drain()

    def _drain(self) -> None:
        done = self.collector.done
        while done:
            self._function(done.pop(0))

    def _function(self, body: Body) -> None:
        callees = callees_of(body)
        ops = {
            i.opcode.split(".")[1].split("::")[0]
            for i in body.instructions
            if i.head == "tcgen05" and "." in i.opcode
        }
        self.summaries[body.name] = Summary("alloc" in ops, "dealloc" in ops, callees)
        analysed = None
        if any(i.head == "tcgen05" for i in body.instructions):
            alone = body.entry and not self.may(callees, "alloc")
            analysed = analyse(body, self.explainer, self.catalog, alone)
            if self.mapping and not analysed.unconverged:
                self.maps.append(kernel_map(analysed))
        if self.each is not None:
            self.each(body, analysed, callees)

    def may(self, callees: set[str], op: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a function called may ``op`` (alloc, dealloc) Tensor Memory: one of this module that
        does (or calls one that does), or one not read yet (defined later, or elsewhere) that is not a
        device-runtime function."""
        for name in callees:
            if name in RUNTIME or name.startswith("__nv_") or name in seen:
                continue
            callee = self.summaries.get(name)
            if callee is None:
                return True
            if (callee.allocs if op == "alloc" else callee.deallocs) or self.may(
                callee.callees, op, seen | {name}
            ):
                return True
        return False


def callees_of(body: Body) -> set[str]:
    """The names a function calls (``?`` for a call through a register)."""
    out = set()
    for ins in body.instructions:
        if ins.head == "call":
            parts = [p.strip() for p in ins.rest.split(",")]
            named = [p for p in parts if p and not p.startswith("(") and not p.endswith(")")]
            out.add(named[0] if named and (named[0][:1].isalpha() or named[0][:1] in "_$") else "?")
    return out
