"""A control-flow graph of one function, whatever language its instructions are in.

A reader (PTX statements, SASS lines) turns a function into a sequence of :class:`Step`: a label, a
jump (to one or several labels, conditional or not), a stop (``ret``/``exit``: the function ends;
``trap``: the thread dies) or anything else. :func:`build` cuts it into basic blocks; the analyses
(dominators, post-dominators, back edges, natural loops) are computed on first use and kept.

Labels must be unique in what is given: a reader resolves scoped labels (PTX inline-asm blocks have
their own, PTX ISA 4.4 "Statements") to unique names first. A jump to a label that is not there goes
nowhere known: its block gets the :data:`UNKNOWN` successor flag instead (``unresolved``), so no
analysis draws a conclusion past it.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

PLAIN, LABEL, JUMP, STOP = "plain", "label", "jump", "stop"


@dataclass(frozen=True)
class Step:
    """One item of a function in program order, as the control flow sees it.

    ``kind``: :data:`LABEL` (``name`` the label), :data:`JUMP` (``targets``; ``conditional``: control may
    also go on to the next step), :data:`STOP` (``exits``: the function returns, else the thread dies:
    ``trap``; ``conditional`` as for jumps), :data:`PLAIN` (anything else).
    """

    kind: str = PLAIN
    name: str | None = None
    targets: tuple[str, ...] = ()
    conditional: bool = False
    exits: bool = True


PLAIN_STEP = Step()
"""The step of every instruction that is no jump or stop (steps are frozen: one serves them all)."""


@dataclass(slots=True)
class Block:
    """Steps ``start`` to ``end - 1``; ``succ``/``pred`` are block indices."""

    index: int
    start: int
    end: int
    succ: list[int] = field(default_factory=list)
    pred: list[int] = field(default_factory=list)
    exits: bool = False
    """Control leaves the function at the end of this block (a ``ret``/``exit``, or the last step)."""
    dies: bool = False
    """The thread dies at the end of this block on some path (``trap``)."""
    unresolved: bool = False
    """A jump to a label that is not in the function (or an indirect one without targets)."""


class Graph:
    """Basic blocks of one function; block 0 is the entry.

    >>> g = build([Step(), Step(JUMP, targets=("L",), conditional=True), Step(), Step(LABEL, "L"),
    ...            Step(STOP)])
    >>> [(b.start, b.end, b.succ) for b in g.blocks]
    [(0, 2, [1, 2]), (2, 3, [2]), (3, 5, [])]
    >>> g.idom, g.exits
    ({0: 0, 1: 0, 2: 0}, [2])
    """

    def __init__(self, blocks: list[Block], labels: dict[str, int]) -> None:
        self.blocks = blocks
        self.labels = labels
        """Label -> the block it starts."""

    @property
    def exits(self) -> list[int]:
        return [b.index for b in self.blocks if b.exits]

    def block_of(self, step: int) -> int:
        """The block holding step index ``step``."""
        lo, hi = 0, len(self.blocks) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.blocks[mid].start <= step:
                lo = mid
            else:
                hi = mid - 1
        return lo

    @cached_property
    def rpo(self) -> list[int]:
        """Blocks reachable from the entry in reverse post-order (every block before its successors,
        but along back edges)."""
        seen: set[int] = set()
        order: list[int] = []
        if not self.blocks:
            return order
        stack: list[tuple[int, int]] = [(0, 0)]
        seen.add(0)
        while stack:
            node, i = stack.pop()
            succ = self.blocks[node].succ
            if i < len(succ):
                stack.append((node, i + 1))
                nxt = succ[i]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, 0))
            else:
                order.append(node)
        order.reverse()
        return order

    @cached_property
    def idom(self) -> dict[int, int]:
        """Immediate dominator of each reachable block (the entry's is itself): Cooper, Harvey and
        Kennedy's iterative algorithm ("A Simple, Fast Dominance Algorithm", 2001)."""
        return _dominators(self.rpo, lambda b: self.blocks[b].pred)

    @cached_property
    def ipdom(self) -> dict[int, int]:
        """Immediate post-dominator of each block that reaches an exit; -1 stands for the one virtual
        exit every exiting block flows into."""
        succ = {b.index: list(b.succ) + ([-1] if b.exits else []) for b in self.blocks}
        pred: dict[int, list[int]] = {-1: []}
        for b, targets in succ.items():
            pred.setdefault(b, [])
            for t in targets:
                pred.setdefault(t, []).append(b)
        # Reverse post-order of the reversed graph, from the virtual exit.
        seen, order, stack = {-1}, [], [(-1, 0)]
        while stack:
            node, i = stack.pop()
            ps = pred[node]
            if i < len(ps):
                stack.append((node, i + 1))
                if ps[i] not in seen:
                    seen.add(ps[i])
                    stack.append((ps[i], 0))
            else:
                order.append(node)
        order.reverse()
        return _dominators(order, lambda b: succ.get(b, []))

    def dominates(self, a: int, b: int) -> bool:
        """Whether every path from the entry to ``b`` passes through ``a``: ``b`` lies in ``a``'s subtree
        of the dominator tree (its interval of a walk of the tree).

        >>> g = build([Step(), Step(JUMP, targets=("L",), conditional=True), Step(), Step(LABEL, "L")])
        >>> g.dominates(0, 2), g.dominates(1, 2), g.dominates(2, 2), g.dominates(2, 1)
        (True, False, True, False)
        """
        intervals = self._dominator_intervals
        if a not in intervals or b not in intervals:
            return False
        (a_in, a_out), (b_in, b_out) = intervals[a], intervals[b]
        return a_in <= b_in and b_out <= a_out

    @cached_property
    def _dominator_intervals(self) -> dict[int, tuple[int, int]]:
        """Each reachable block's entry and exit times in a depth-first walk of the dominator tree."""
        children: dict[int, list[int]] = {}
        for b, parent in self.idom.items():
            if parent != b:
                children.setdefault(parent, []).append(b)
        out: dict[int, tuple[int, int]] = {}
        if not self.idom:
            return out
        clock, entered = 0, {}
        stack: list[tuple[int, bool]] = [(0, False)]
        while stack:
            node, done = stack.pop()
            if done:
                out[node] = (entered[node], clock)
                clock += 1
                continue
            entered[node] = clock
            clock += 1
            stack.append((node, True))
            stack.extend((c, False) for c in children.get(node, ()))
        return out

    @cached_property
    def back_edges(self) -> list[tuple[int, int]]:
        """Edges (tail, head) whose head dominates their tail: each closes a natural loop. Only an edge
        that goes back in reverse post-order is asked (a block's dominators all come before it)."""
        rank = {b: i for i, b in enumerate(self.rpo)}
        return [
            (b, s) for b in self.rpo for s in self.blocks[b].succ
            if rank.get(s, -1) <= rank[b] and self.dominates(s, b)
        ]  # fmt: skip

    @cached_property
    def loops(self) -> dict[int, frozenset[int]]:
        """Each loop header -> the blocks of its natural loop (all back edges to it together)."""
        bodies: dict[int, set[int]] = {}
        for tail, head in self.back_edges:
            body = bodies.setdefault(head, {head})
            stack = [tail]
            while stack:
                node = stack.pop()
                if node not in body:
                    body.add(node)
                    # Reachable predecessors only: an unreachable block jumping in is no part of the loop.
                    stack.extend(p for p in self.blocks[node].pred if p in self.idom)
        return {h: frozenset(b) for h, b in bodies.items()}

    @cached_property
    def headers(self) -> frozenset[int]:
        return frozenset(self.loops)

    def reaches(
        self, starts: Iterable[int], avoiding: frozenset[int] = frozenset(), backward: bool = False
    ) -> set[int]:
        """Blocks reachable from ``starts`` (themselves included) without entering ``avoiding``; with
        ``backward``, the blocks from which ``starts`` are reachable so."""
        seen: set[int] = set()
        stack, blocks = list(starts), self.blocks
        while stack:  # a block is pushed once per edge into it, and followed once
            node = stack.pop()
            if node in seen or node in avoiding:
                continue
            seen.add(node)
            stack.extend(blocks[node].pred if backward else blocks[node].succ)
        return seen


def _dominators(order: Sequence[int], preds) -> dict[int, int]:  # type: ignore[no-untyped-def]
    if not order:
        return {}
    rank = {b: i for i, b in enumerate(order)}
    start = order[0]
    idom = {start: start}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            done = [p for p in preds(b) if p in idom]
            if not done:
                continue
            new = done[0]
            for p in done[1:]:
                a, c = p, new
                while a != c:
                    while rank[a] > rank[c]:
                        a = idom[a]
                    while rank[c] > rank[a]:
                        c = idom[c]
                new = a
            if idom.get(b) != new:
                idom[b] = new
                changed = True
    return idom


def build(steps: Sequence[Step]) -> Graph:
    """The basic blocks of ``steps`` (see the module's docstring).

    A block starts at the first step, at a label, and after a jump or stop; it flows into the next
    block unless it ends with an unconditional jump or stop.

    >>> g = build([Step(LABEL, "top"), Step(), Step(JUMP, targets=("top",), conditional=True),
    ...            Step(STOP, exits=False)])
    >>> [b.succ for b in g.blocks], g.back_edges, g.loops, [b.dies for b in g.blocks]
    ([[1, 0], []], [(0, 0)], {0: frozenset({0})}, [False, True])
    """
    leaders = {0} if steps else set()
    for i, s in enumerate(steps):
        if s.kind == LABEL:
            leaders.add(i)
        elif s.kind in (JUMP, STOP) and i + 1 < len(steps):
            leaders.add(i + 1)
    starts = sorted(leaders)
    blocks = [
        Block(k, start, starts[k + 1] if k + 1 < len(starts) else len(steps))
        for k, start in enumerate(starts)
    ]
    labels: dict[str, int] = {}
    for b in blocks:
        for i in range(b.start, b.end):
            if steps[i].kind == LABEL and steps[i].name is not None:
                labels[steps[i].name] = b.index  # type: ignore[index]
            else:
                break
    for b in blocks:
        last = steps[b.end - 1]
        falls = last.kind not in (JUMP, STOP) or last.conditional
        if falls:  # the next block first: reverse post-order then follows the text
            if b.index + 1 < len(blocks):
                _edge(blocks, b.index, b.index + 1)
            else:
                b.exits = True  # the function's text ends: control returns
        if last.kind == JUMP:
            for t in last.targets:
                if t in labels:
                    _edge(blocks, b.index, labels[t])
                else:
                    b.unresolved = True
            if not last.targets:
                b.unresolved = True
        elif last.kind == STOP:
            if last.exits:
                b.exits = True
            else:
                b.dies = True
    return Graph(blocks, labels)


def _edge(blocks: list[Block], a: int, b: int) -> None:
    if b not in blocks[a].succ:
        blocks[a].succ.append(b)
        blocks[b].pred.append(a)
