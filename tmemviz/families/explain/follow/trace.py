"""What a group of warps saw, run over a function's control-flow graph (:mod:`~tmemviz.families.explain.
follow.machine`): each instruction the rules judge, as a :class:`Trace`; and :class:`Split`, raised where
the group's warps part ways. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tmemviz.families.explain.follow.operands import Spot
from tmemviz.families.explain.follow.pending import Hazard
from tmemviz.ptx.body import Instruction


class Split(Exception):
    """A group's warps part ways here (a branch or a guard that is true in some, false in others): they
    are run again in the groups ``parts``."""

    def __init__(self, parts: list[tuple[int, ...]]) -> None:
        super().__init__("the group's warps part ways")
        self.parts = parts


@dataclass(slots=True)
class Access:
    ins: Instruction
    op: str
    key: Any
    """The allocation its address is in (None: not known)."""
    spots: list[tuple[Any, list[Spot]]]
    """(touch, its spots) per operand."""
    status: frozenset[str]


@dataclass(slots=True)
class Trace:
    """What one group of warps (or any thread) saw at each instruction the rules judge."""

    warps: tuple[int, ...] | None
    blocks: set[int] = field(default_factory=set)
    accesses: list[Access] = field(default_factory=list)
    allocs: list[tuple[Instruction, Any, dict[Any, frozenset[str]], int | None]] = field(default_factory=list)
    """Each alloc run: its key, what every allocation's status was before it, its nCols."""
    deallocs: list[tuple[Instruction, Any, frozenset[str], int | None]] = field(default_factory=list)
    exits: list[tuple[int, dict[Any, frozenset[str]]]] = field(default_factory=list)
    hazards: list[Hazard] = field(default_factory=list)
    barriers: list[tuple[Instruction, frozenset[Any] | None]] = field(default_factory=list)
    """Each mbarrier instruction run and the places its address may name (None: not known)."""
    waits: set[Any] = field(default_factory=set)
    """The mbarriers this warp waits on (``mbarrier.try_wait``/``test_wait``), by place; None: one whose
    place is not known."""
    marks: list[tuple[Instruction, dict[str, Any]]] = field(default_factory=list)
    """Of one block's record made while solving: its mbarrier instructions with the values of the
    registers their address reads, whose places are found only if it is the block's last record."""
    dispatched: set[int] = field(default_factory=set)
    """The blocks closed by a ``brx.idx`` whose index this group did not know: it went to every label of
    the list, so which of its warps run what follows is not known (what a warp's own lanes allow is not
    judged there: :mod:`tmemviz.families.check.bands`)."""
    split: list[tuple[int, ...]] | None = None
    """Of one block's record made while solving: the warps part ways at its exit, in these groups (a
    :class:`Split` raised if it is the block's last record)."""

    def extend(self, other: Trace) -> None:
        self.accesses += other.accesses
        self.allocs += other.allocs
        self.deallocs += other.deallocs
        self.exits += other.exits
        self.hazards += other.hazards
        self.barriers += other.barriers
        self.waits |= other.waits
        self.dispatched |= other.dispatched

    @property
    def warp(self) -> int | None:
        """The group's first warp (None: any thread)."""
        return self.warps[0] if self.warps else None
