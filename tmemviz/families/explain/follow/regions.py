"""Where the two ways of a conditional branch meet again, and whether the code between them does anything
the analysis follows: such a branch may be taken both ways without changing what is found where they
meet (its predicate need not be known; warps that part there may stay one group). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from tmemviz.flow.cfg import Graph
from tmemviz.ptx.body import Instruction

NOT_PLAIN = frozenset(("tcgen05", "bar", "barrier", "setmaxnreg", "ret", "exit", "trap", "brx"))
"""Heads of instructions whose effect the analysis follows whatever is evaluated (Tensor Memory, a CTA
barrier, a register-count change, an exit)."""

Region = tuple[int, list[Instruction]]
"""The block where both ways meet (the branch's immediate post-dominator), and the instructions on the
way that write registers."""


def region(
    graph: Graph,
    code: Sequence[Sequence[Instruction]],
    releases: Collection[int],
    writes: Callable[[Instruction], tuple[str, ...]],
    block: int,
) -> Region | None:
    """The region of ``block``'s closing branch when nothing in it does what the analysis follows
    whatever is evaluated: no loop back to the branch (the warps may count its rounds differently), no
    exit, no :data:`NOT_PLAIN` instruction, no release (``releases``: their indices), no mbarrier other
    than its init. None otherwise."""
    meet = graph.ipdom.get(block, -1)
    if meet < 0:
        return None
    blocks = graph.blocks
    seen: set[int] = set()
    out: list[Instruction] = []
    # From the branch to where both ways meet, walked until something on the way is not plain.
    stack = [x for x in blocks[block].succ if x != meet]
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        if b == block or blocks[b].exits:
            return None
        stack.extend(x for x in blocks[b].succ if x != meet and x not in seen)
        for ins in code[b]:
            if ins.head in NOT_PLAIN or ins.index in releases:
                return None
            if ins.head == "mbarrier" and not ins.opcode.startswith("mbarrier.init"):
                return None
            if writes(ins):
                out.append(ins)
    return meet, out


def plain(found: Region | None, evaluated: Collection[int], dead: Callable[[int, Instruction], bool]) -> bool:
    """Whether a region (:func:`region`) is plain for the ``evaluated`` instructions: none of them in it
    writes a register still live where its ways meet (``dead(meet, ins)``: it does not), so the state
    there is the same either way."""
    if found is None:
        return False
    meet = found[0]
    return all(ins.index not in evaluated or dead(meet, ins) for ins in found[1])
