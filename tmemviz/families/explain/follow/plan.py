"""What the analysis of one PTX function needs before it runs, shared by every thread position: the
control-flow graph, each block's instructions, the registers each instruction reads and writes, and the
slice of instructions whose values matter.

The slice: Tensor Memory is judged through a few registers (tcgen05 addresses, instruction descriptors,
column counts) and the predicates that steer control to it. Only the instructions that compute those
(and what those read, transitively) are evaluated; any other instruction writes registers no judgement
rests on. A branch whose two ways meet again over code that does nothing the analysis follows steers
nothing that matters: its predicate is not evaluated, and both ways are followed (:meth:`Plan._steering`).
Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from typing import Any

from tmemviz.families.explain.follow.blocks import Blocks
from tmemviz.families.explain.follow.counters import Counters
from tmemviz.families.explain.follow.evaluate import effect, independent
from tmemviz.families.explain.follow.liveness import Live, Registers, live_in
from tmemviz.families.explain.follow.operands import followed
from tmemviz.families.explain.follow.pending import RELEASES
from tmemviz.families.explain.follow.proofs import Proofs
from tmemviz.families.explain.follow.regions import Region, plain, region
from tmemviz.families.explain.follow.values import Vec, element, vec
from tmemviz.flow.cfg import Graph, build
from tmemviz.ptx.body import Body, Instruction, Label

MAX_REMEMBERED = 1 << 16
"""Evaluations kept per function (a bound on memory, whatever the function)."""
STEERS = ("bra", "brx", "ret", "exit", "trap")
"""The instructions whose guard steers control (the slices follow their predicates)."""


class Plan:
    def __init__(self, body: Body) -> None:
        self.body = body
        self.graph: Graph = build(body.steps())
        self.code: list[list[Instruction]] = [
            [c for c in body.code[b.start : b.end] if not isinstance(c, Label)]  # type: ignore[misc]
            for b in self.graph.blocks
        ]
        self._reads: dict[int, tuple[str, ...]] = {}
        self._effects: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.barriers: dict[tuple[Any, ...], Any] = {}  # Operands.barrier's, for every thread position
        self._touched: dict[int, frozenset[str]] = {}
        self._writes: dict[int, tuple[str, ...]] = {}
        self._passable: dict[int, bool] = {}
        self._fixed: dict[int, dict[str, Any]] = {}
        self._regions: dict[int, Region | None] = {}
        self._indexed: dict[int, list[int] | None] = {}
        self._block_registers: dict[int, tuple[frozenset[str], frozenset[str]]] = {}
        self._transparent: dict[int, bool] = {}
        self._kinds: dict[Any, list[list[tuple[Instruction, Any]]]] = {}
        self._registers = Registers()  # register names as bits, for the slices' liveness

    def effect(self, ins: Instruction, regs: dict[str, Any], thread: Any) -> dict[str, Any]:
        """:func:`~tmemviz.families.explain.follow.evaluate.effect`, remembered by what it depends on (the
        values it reads, and the warp where it reads the thread's position): warps and the rounds of a
        loop meet the same statement with the same values again and again."""
        index = ins.index
        if index in self.fixed:  # the same whatever it reads: worked out once
            found = self._fixed.get(index)
            if found is None:
                found = self._fixed[index] = effect(self.body, ins, lambda _: None, thread)
            return found
        reads = self._reads.get(index)
        if reads is None:
            reads = self.reads(ins)
        values = tuple(map(regs.get, reads))
        if thread.size > 1 and (index in self.positional or Vec in map(type, values)):
            # A group of warps that differ here: each warp's own, then one value where they agree;
            # remembered for the group too (one look-up, where the warps' would be one each).
            key = (index, thread.warps, *values)
            found = self._effects.get(key)
            if found is None:
                each = [
                    self._effect(ins, reads, tuple(element(v, i) for v in values), thread.single(i))
                    for i in range(thread.size)
                ]
                found = self._remember(key, {name: vec(e[name] for e in each) for name in each[0]})
            return found
        return self._effect(ins, reads, values, thread)

    def _effect(self, ins: Instruction, reads: tuple[str, ...], values: tuple[Any, ...], thread: Any) -> Any:
        key = (ins.index, thread.warp if ins.index in self.positional else None, *values)
        found = self._effects.get(key)
        if found is None:
            get = dict(zip(reads, values, strict=True)).get
            fresh = self.proofs.fresh(ins) if ins.head == "selp" else None
            found = self._remember(key, effect(self.body, ins, get, thread, self.writes(ins), fresh))
        return found

    def _remember(self, key: tuple[Any, ...], found: dict[str, Any]) -> dict[str, Any]:
        if len(self._effects) > MAX_REMEMBERED:
            self._effects.clear()
        self._effects[key] = found
        return found

    def passable(self, block: int) -> bool:
        """Whether warps that part ways at ``block``'s closing branch may still be followed as one group:
        both ways meet again at the branch's immediate post-dominator, and nothing on the way does what
        the analysis follows (no tcgen05, barrier, register-count change, release or exit; no evaluated
        register still live where they meet). The group then runs down both ways and the join is exact,
        where splitting it would follow each part through the rest of the kernel on its own (CUTLASS's
        epilogue warps part ways only to initialise one warp's mbarriers)."""
        found = self._passable.get(block)
        if found is None:
            found = self._passable[block] = self._region_is_plain(block, self.relevant, self.live)
        return found

    def _region_is_plain(self, block: int, relevant: frozenset[int] | set[int], live: Live) -> bool:
        """Whether ``block``'s closing branch meets its other way again over plain code
        (:mod:`~tmemviz.families.explain.follow.regions`) for the evaluated ``relevant``."""
        if block not in self._regions:
            self._regions[block] = region(self.graph, self.code, self.releases, self.writes, block)
        return plain(self._regions[block], relevant, live.dead)

    @cached_property
    def blocks(self) -> Blocks:
        """What each block writes (:mod:`~tmemviz.families.explain.follow.blocks`)."""
        return Blocks(self)

    @cached_property
    def counters(self) -> Counters:
        """Each loop's counters, run ahead of the loop (:mod:`~tmemviz.families.explain.follow.counters`)."""
        return Counters(self)

    @cached_property
    def proofs(self) -> Proofs:
        """What a branch proved about registers, and how long it holds (the path facts' questions)."""
        return Proofs(self)

    @cached_property
    def positional(self) -> frozenset[int]:
        """The instructions that read the thread's position (``%tid``, ``%laneid``, ``%warpid``)."""
        return frozenset(i.index for i in self.instructions if "%tid" in i.text or "%laneid" in i.text
                         or "%warpid" in i.text)  # fmt: skip

    @cached_property
    def plain(self) -> frozenset[int]:
        """Evaluated instructions with no guard that are neither tcgen05, mbarrier nor a release: all
        they do is give their registers values."""
        releases = self.releases
        return frozenset(
            i.index for i in self.instructions
            if i.index in self.relevant and i.guard is None and i.head not in ("tcgen05", "mbarrier")
            and i.index not in releases
        )  # fmt: skip

    @cached_property
    def releases(self) -> frozenset[int]:
        """The instructions that let other threads go on (:data:`~tmemviz.families.explain.follow.pending.
        RELEASES`)."""
        return frozenset(i.index for i in self.instructions if i.opcode.startswith(RELEASES))

    def touched(self, ins: Instruction) -> frozenset[str]:
        """The registers ``ins`` reads or writes."""
        found = self._touched.get(ins.index)
        if found is None:
            found = self._touched[ins.index] = frozenset(self.reads(ins)) | frozenset(self.writes(ins))
        return found

    def reads(self, ins: Instruction) -> tuple[str, ...]:
        found = self._reads.get(ins.index)
        if found is None:
            found = self._reads[ins.index] = tuple(self.body.reads(ins, self.writes(ins)))
        return found

    def writes(self, ins: Instruction) -> tuple[str, ...]:
        found = self._writes.get(ins.index)
        if found is None:
            found = self._writes[ins.index] = tuple(self.body.writes(ins))
        return found

    @cached_property
    def tcgen05(self) -> list[Instruction]:
        return [i for i in self.instructions if i.head == "tcgen05"]

    @cached_property
    def relevant(self) -> frozenset[int]:
        """Indices of the instructions the analysis evaluates (see the module's docstring). What an
        instruction whose values do not depend on its operands reads (:func:`~tmemviz.families.explain.
        follow.evaluate.independent`: the floating-point work of an attention kernel's softmax, whose
        comparisons steer its loops) is not followed; nor is the predicate of a branch around plain code
        (:meth:`_steering`)."""
        return self._steering[0]

    @cached_property
    def whole(self) -> frozenset[int]:
        """The instructions that compute what tcgen05 and mbarrier instructions read and every branch's
        predicate, with what every instruction reads followed, independent ones too: what the questions
        about the thread's position ask (does a branch depend on it, may it differ between lanes), which
        :attr:`relevant` need not answer. Grown from the evaluated slice (:meth:`_steering`) by the
        branches it leaves out and the operands it set aside."""
        chosen, seen, skipped, _ = self._steering
        rest = [
            i for i in self.instructions if i.head in STEERS and i.guard is not None and i.index not in chosen
        ]
        needed = [*skipped, *(r for i in rest for r in self.reads(i))]
        return self._close({*chosen, *(i.index for i in rest)}, set(seen), needed, False)[0]

    @cached_property
    def _steering(self) -> tuple[frozenset[int], frozenset[str], list[str], Live]:
        """The slice of what tcgen05 and mbarrier instructions read, grown by the predicates of the
        branches that matter: every guarded exit, and each branch whose two ways do not meet again over
        plain code (:meth:`_region_is_plain`, judged with the slice grown so far). A branch around plain
        code may be taken both ways without changing what the analysis finds where they meet, so its
        predicate need not be known: the bounds checks and tile arithmetic that steer such branches are
        most of a persistent kernel's evaluated code otherwise. A grown slice may make another region
        not plain (an evaluated register written there is now live where the ways meet), so the growth
        repeats until no branch is added (it only adds: it ends). As :attr:`_operands` gives it (the
        instructions, the registers whose definitions are in it, the operands set aside), and the
        registers live at each block's entry for it (:attr:`live`), worked out on the way."""
        first = self._operands
        chosen, seen, skipped = set(first[0]), set(first[1]), list(first[2])
        # Every guarded exit, and every brx.idx (its index picks the way: Machine._indexed).
        exits = [
            i for i in self.instructions
            if (i.head in STEERS and i.head != "bra" and i.guard) or i.head == "brx"
        ]  # fmt: skip
        branches = [i for i in self.instructions if i.head == "bra" and i.guard is not None]
        block_of = self.graph.block_of
        add = exits
        while True:
            chosen.update(ins.index for ins in add)
            # _close grows chosen and seen in place, and gives what it set aside
            skipped += self._close(chosen, seen, [r for ins in add for r in self.reads(ins)], True)[2]
            live = self._live(chosen)
            add = [
                i for i in branches
                if i.index not in chosen and not self._region_is_plain(block_of(i.index), chosen, live)
            ]  # fmt: skip
            if not add:
                return frozenset(chosen), frozenset(seen), skipped, live

    @cached_property
    def fixed(self) -> frozenset[int]:
        """The evaluated instructions whose values do not depend on what they read."""
        return frozenset(i.index for i in self.instructions if i.index in self.relevant and independent(i))

    @cached_property
    def counted(self) -> frozenset[str]:
        """The registers an address is built from (tcgen05 and mbarrier operands): a loop-carried one
        keeps its few values (a pipeline stage), where one that only steers branches (a tile counter) is
        widened at once, so that loops settle in a few rounds."""
        return self._operands[1]

    @cached_property
    def _operands(self) -> tuple[frozenset[int], frozenset[str], list[str]]:
        """The instructions that compute the registers tcgen05 and mbarrier instructions read, and those
        registers, not through the operands of an instruction whose values do not depend on them (only
        through its guard); and those operands. No branch's predicate (:meth:`_steering` adds them)."""
        needed: list[str] = []
        chosen: set[int] = set()
        for ins in self.instructions:
            if ins.head == "tcgen05":
                chosen.add(ins.index)
                needed.extend(followed(self.body, ins, self.reads(ins)))
            elif ins.head == "mbarrier":  # which mbarrier a release or a wait names
                chosen.add(ins.index)
                needed.extend(r for o in ins.rest.split(",") if "[" in o for r in self.body.registers(o))
        return self._close(chosen, set(), needed, True)

    @cached_property
    def instructions(self) -> list[Instruction]:
        return list(self.body.instructions)

    @cached_property
    def defs(self) -> dict[str, list[Instruction]]:
        """Register -> the instructions that write it."""
        defs: dict[str, list[Instruction]] = defaultdict(list)
        for ins in self.instructions:
            for r in self.writes(ins):
                defs[r].append(ins)
        return defs

    def _close(
        self, chosen: set[int], seen: set[str], needed: list[str], cut: bool
    ) -> tuple[frozenset[int], frozenset[str], list[str]]:
        """Every definition of each needed register chosen, and what it reads needed, to a fixed point
        (``seen``: the registers whose definitions are chosen already); with ``cut``, an independent
        instruction's operands are set aside (the third result) instead."""
        defs = self.defs
        skipped: list[str] = []
        while needed:
            r = needed.pop()
            if r in seen:
                continue
            seen.add(r)
            for ins in defs.get(r, ()):
                if ins.index not in chosen:
                    chosen.add(ins.index)
                    if cut and independent(ins):
                        needed.extend(self.body.registers(ins.guard) if ins.guard else ())
                        skipped.extend(self.reads(ins))
                    else:
                        needed.extend(self.reads(ins))
        return frozenset(chosen), frozenset(seen), skipped

    @cached_property
    def watched(self) -> list[list[int]]:
        """Per block, the places in its code of the evaluated instructions and of the releases (what a
        pending load whose registers were all used still has to meet)."""
        relevant = self.relevant
        return [
            [k for k, ins in enumerate(code) if ins.index in relevant or ins.opcode.startswith(RELEASES)]
            for code in self.code
        ]

    @cached_property
    def ends(self) -> list[tuple[Instruction | None, int | None, list[int]]]:
        """Per block: the instruction that closes it (None: a label does, or it holds none), the block
        control falls through to after a branch there (None: none), and the blocks it jumps to."""
        out: list[tuple[Instruction | None, int | None, list[int]]] = []
        for i, (b, code) in enumerate(zip(self.graph.blocks, self.code, strict=True)):
            last = code[-1] if code and code[-1].index == b.end - 1 else None
            if last is None:
                out.append((None, None, []))
                continue
            fall = i + 1 if i + 1 in b.succ and (last.head != "bra" or len(b.succ) > 1) else None
            jumps = [x for x in b.succ if x != fall] if last.head in ("bra", "brx") else []
            out.append((last, fall, jumps))
        return out

    def block_registers(self, block: int, pending: bool) -> tuple[frozenset[str], frozenset[str]]:
        """What a transfer of ``block`` may read of its entry state, and the registers it surely writes
        (whatever they held): the evaluated instructions', the releases' and the closing instruction's
        (a guarded write may keep the old value: read too); with loads ``pending`` (whose registers any
        instruction may read or copy), every register its code touches is read. Worked out when first
        asked (for the blocks a solve visits again)."""
        key = -1 - block if pending else block
        found = self._block_registers.get(key)
        if found is None:
            code, relevant, releases = self.code[block], self.relevant, self.releases
            if pending:
                found = (frozenset().union(*(self.touched(i) for i in code)), frozenset())
            else:
                looked = [i for i in code if i.index in relevant or i.index in releases]
                if code and code[-1] not in looked:
                    looked.append(code[-1])
                read: set[str] = set()
                written: set[str] = set()
                for i in looked:
                    read.update(self.reads(i))
                    (read if i.guard is not None or i.head == "tcgen05" else written).update(self.writes(i))
                found = (frozenset(read), frozenset(written - read))
            self._block_registers[key] = found
        return found

    def transparent(self, block: int) -> bool:
        """Whether ``block`` holds no tcgen05 instruction, no release and no exit: what the analysis
        knows of the allocations, of the loads waited for and of the pending loads' and stores' cells
        goes through it unchanged (:mod:`~tmemviz.families.explain.follow.reuse`)."""
        found = self._transparent.get(block)
        if found is None:
            releases = self.releases
            found = self._transparent[block] = not self.graph.blocks[block].exits and all(
                ins.head != "tcgen05" and ins.index not in releases for ins in self.code[block]
            )
        return found

    def of_kind(self, gen: Callable[[Instruction], Any]) -> list[list[tuple[Instruction, Any]]]:
        """Each block's instructions ``gen`` gives a value (not None), with it, once per ``gen`` (every
        group of warps asks: :func:`~tmemviz.families.explain.follow.paths.reaching`)."""
        found = self._kinds.get(gen)
        if found is None:
            found = self._kinds[gen] = [[(i, v) for i in c if (v := gen(i)) is not None] for c in self.code]
        return found

    def indexed(self, block: int) -> list[int] | None:
        """The blocks the ``brx.idx`` closing ``block`` picks from, in its list's order (None: not found);
        worked out once per block (the solve asks at every visit)."""
        if block not in self._indexed:
            last = self.ends[block][0]
            found = self.body.indexed(last) if last is not None and last.head == "brx" else None
            labels = self.graph.labels
            self._indexed[block] = None if found is None else [labels[str(k)] for k in found]
        return self._indexed[block]

    @cached_property
    def joins(self) -> frozenset[int]:
        """The blocks where paths join (more than one predecessor)."""
        return frozenset(i for i, b in enumerate(self.graph.blocks) if len(b.pred) > 1)

    @cached_property
    def live(self) -> Live:
        """Per block, the registers an evaluated instruction may read from its entry on before writing
        them (live at the entry): all a state needs to keep there (made a set on first look: the solve
        looks only where paths join)."""
        return self._steering[3]

    def _live(self, relevant: frozenset[int] | set[int]) -> Live:
        """:attr:`live` for the evaluated instructions ``relevant`` (:mod:`~tmemviz.families.explain.
        follow.liveness`)."""
        return live_in(self.graph, self.code, relevant, self._registers, self.reads, self.writes)
