"""What a SASS listing's scoreboards order: whether some path from one instruction reaches another with
nothing waiting on the first one's scoreboard in between.

A ``tcgen05.ld`` becomes one ``LDTM`` that sets a write scoreboard; the hardware holds back only the
instructions that wait on it (their wait mask, :mod:`tmemviz.sass.control`, or a ``DEPBAR.LE SBn, 0x0``).
A release or a Tensor Memory write reached on a path where nothing waited still runs while the load may
be reading (shared/spec ordering-facts §1). A ``tcgen05.wait::st`` becomes ``FENCE.VIEW.ASYNC.T``.

:class:`Collector` is fed the listing's events (:func:`tmemviz.sass.listing.events`, with ``encoding``
events: ``nvdisasm -hex`` or ``cuobjdump -sass``) and keeps, for the functions asked for only, their
control flow (:class:`tmemviz.sass.flow.Body`, the one reading of branches, exits and calls) and each
instruction's address, opcode, guard and control bits. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tmemviz.flow.cfg import Graph
from tmemviz.sass.control import NONE, control, drained
from tmemviz.sass.flow import Body, graph_of
from tmemviz.sass.line import SassLine, parse_sass


class Instruction(NamedTuple):
    address: int
    opcode: str
    """The whole opcode with its modifiers: ``BAR.SYNC.DEFER_BLOCKING``."""
    guarded: bool
    """Under a predicate other than ``PT``: it may not run."""
    write: int
    """The scoreboard it sets (:data:`~tmemviz.sass.control.NONE`: none)."""
    wait: int
    """The scoreboards it waits on before it issues (a bit each), a ``DEPBAR``'s included."""


@dataclass
class Code:
    """One function: its flow graph and, step by step, its instructions (None: a label, a branch's own
    step, a fact the register flow keeps)."""

    graph: Graph
    items: list[Any]
    at: dict[int, int] = field(default_factory=dict)
    """Code address -> the step of its instruction."""

    def __post_init__(self) -> None:
        # The body's items: (instruction, None) where one was asked about, a register fact otherwise.
        self.items = [it[0] if type(it) is tuple else None for it in self.items]
        self.at = {it.address: k for k, it in enumerate(self.items) if it is not None}

    def reached(
        self, start: int, goal: Callable[[Instruction], bool], stop: Callable[[Instruction], bool]
    ) -> Instruction | None:
        """An instruction ``goal`` accepts that some path from after the one at address ``start``
        reaches without passing one ``stop`` accepts (an instruction ``stop`` accepts is not reached:
        its wait comes before it issues); None when every path stops first or ends."""
        items, blocks = self.items, self.graph.blocks
        k = self.at[start]
        first = self.graph.block_of(k)
        todo: list[tuple[int, int]] = [(first, k + 1)]
        seen: set[int] = set()
        while todo:
            b, i = todo.pop()
            block = blocks[b]
            stopped = False
            for j in range(i, block.end):
                it = items[j]
                if it is None:
                    continue
                if stop(it):
                    stopped = True
                    break
                if goal(it):
                    return it
            if stopped:
                continue
            for s in block.succ:
                if s not in seen:
                    seen.add(s)
                    todo.append((s, blocks[s].start))
        return None


class Collector:
    """Fed a listing's events one at a time; keeps the functions named in ``wanted``."""

    def __init__(self, wanted: Container[str]) -> None:
        self.wanted = wanted
        self.functions: dict[str, Code] = {}
        self.encoded = False
        """An instruction's encoding was seen (without them no scoreboard can be read)."""
        self._name: str | None = None
        self._body: Body | None = None
        self._held: tuple[str, SassLine] | None = None

    def __call__(self, event: Any) -> None:
        kind = event.kind
        if kind == "encoding":
            self.encoded = True
            if self._held is not None:
                self._keep(int(event.value, 16))
            return
        if self._held is not None:
            self._keep(None)
        if kind == "function":
            self._end()
            self._name = event.value
            self._body = Body() if event.value in self.wanted else None
        elif self._body is None:
            return
        elif kind == "code":
            sass = parse_sass(event.value)
            if sass is not None and sass.address is not None:
                self._held = (event.value, sass)
        elif kind == "label":
            self._body.label(event.value)

    def close(self) -> None:
        if self._held is not None:
            self._keep(None)
        self._end()

    def _end(self) -> None:
        if self._body is not None and self._name is not None:
            graph, items = graph_of(self._body)
            self.functions[self._name] = Code(graph, items)
        self._body = None

    def _keep(self, high: int | None) -> None:
        """The held instruction, now that its encoding (or none) is known."""
        assert self._held is not None and self._body is not None
        text, sass = self._held
        self._held = None
        c = control(high) if high is not None else None
        board = drained(sass)
        wait = (c.wait if c else 0) | (1 << board if board is not None else 0)
        guarded = sass.guard is not None and sass.guard not in ("PT", "UPT")
        opcode = ".".join((sass.opcode, *sass.modifiers))
        it = Instruction(sass.address, opcode, guarded, c.write if c else NONE, wait)  # type: ignore[arg-type]
        self._body.ask(it, address=sass.address)
        self._body.control(sass, text)  # a branch, exit or call: the control flow (nothing otherwise)
