"""A forward data-flow problem over a :class:`~tmemviz.flow.cfg.Graph`, solved with a worklist.

The analysis supplies what its facts are and how they change (a :class:`Problem`); :func:`solve`
finds, for every reachable block, the facts that hold on entry to it on every path (a fixed point).
Edges are transferred separately, so an analysis may say that a branch's edge cannot be taken (no
state for it) or refine what holds along it. At loop headers, after :attr:`Problem.widen_after`
visits, facts are widened (:meth:`Problem.widen`) so that loops terminate whatever the lattice's height;
before, the problem may widen the facts it does not need exact at once, or run them ahead to where the
loop takes them (:meth:`Problem.early`).

Pure: no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Generic, Protocol, TypeVar

from tmemviz.flow.cfg import Graph

S = TypeVar("S")


class Problem(Protocol, Generic[S]):
    widen_after: int

    def transfer(self, block: int, state: S) -> Mapping[int, S]:
        """The facts on each outgoing edge of ``block`` (successor -> state) given those on entry; an
        edge left out is not taken."""
        ...

    def join(self, a: S, b: S) -> S:
        """Facts that hold on either of two incoming paths."""
        ...

    def widen(self, old: S, new: S) -> S:
        """At a loop header: an upper bound of ``old`` and ``new`` that stops growing."""
        ...

    def early(self, header: int, old: S, new: S) -> S:
        """At loop header ``header`` before :attr:`widen_after` visits: ``new`` with the facts that are to
        stop growing at once widened, or taken ahead to the values the loop's rounds would bring them
        (``new`` itself when there are none): an upper bound of ``new`` below the fixed point."""
        ...

    def same(self, a: S, b: S) -> bool:
        """Whether two states hold the same facts (the fixed point is reached)."""
        ...


class Unconverged(Exception):
    """The worklist ran past its budget (a lattice without a finite widening): the facts are unknown."""


def solve(graph: Graph, entry: S, problem: Problem[S], budget: int = 200_000) -> dict[int, S]:
    """The entry state of every block reachable under ``problem`` (blocks no taken edge reaches are
    absent). ``budget`` bounds block visits (:class:`Unconverged` past it).

    >>> from tmemviz.flow.cfg import JUMP, LABEL, Step, build
    >>> g = build([Step(), Step(LABEL, "top"), Step(), Step(JUMP, targets=("top",), conditional=True),
    ...            Step()])
    >>> class Count:  # how many times the loop ran: 0, 1, then "many" (None)
    ...     widen_after = 2
    ...     def transfer(self, block, n):
    ...         if block == 1:
    ...             n = None if n is None else n + 1
    ...         return {s: n for s in g.blocks[block].succ}
    ...     def join(self, a, b):
    ...         return a if a == b else None
    ...     def widen(self, old, new):
    ...         return self.join(old, new)
    ...     def early(self, header, old, new):
    ...         return new
    ...     def same(self, a, b):
    ...         return a == b
    >>> solve(g, 0, Count())
    {0: 0, 1: None, 2: None}
    """
    rank = {b: i for i, b in enumerate(graph.rpo)}
    states: dict[int, S] = {}
    visits: dict[int, int] = {}
    if not graph.blocks:
        return states
    states[0] = entry
    work = [(0, 0)]
    queued = {0}
    headers = graph.headers
    transfer, join, same, widen_after = problem.transfer, problem.join, problem.same, problem.widen_after
    widen, early = problem.widen, problem.early
    pop, push = heapq.heappop, heapq.heappush
    spent = 0
    while work:
        _, block = pop(work)
        queued.discard(block)
        spent += 1
        if spent > budget:
            raise Unconverged(f"no fixed point within {budget} block visits")
        for succ, out in transfer(block, states[block]).items():
            if succ not in states:
                new = out
            else:
                old = states[succ]
                new = join(old, out)
                if succ in headers:
                    visits[succ] = visits.get(succ, 0) + 1
                    new = widen(old, new) if visits[succ] > widen_after else early(succ, old, new)
                if same(old, new):
                    continue
            states[succ] = new
            if succ not in queued:
                queued.add(succ)
                push(work, (rank.get(succ, len(rank)), succ))
    return states
