"""What the analysis of one PTX function needs before it runs, shared by every thread position: the
control-flow graph, each block's instructions, the registers each instruction reads and writes, and the
slice of instructions whose values matter.

The slice: Tensor Memory is judged through a few registers (tcgen05 addresses, instruction descriptors,
column counts) and the predicates that steer control to it. Only the instructions that compute those
(and what those read, transitively) are evaluated; any other instruction writes registers no judgement
rests on. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.follow.evaluate import effect
from tmemviz.families.explain.follow.pending import RELEASES
from tmemviz.families.explain.follow.values import Vec, element, vec
from tmemviz.flow.cfg import Graph, build
from tmemviz.ptx.body import Body, Instruction, Label

PURE = frozenset(("and", "or", "xor", "not", "shl", "shr", "add", "sub", "mul", "min", "max", "cvt", "mov"))
"""Integer instructions whose result depends only on what they read: two with the same operands agree."""
MAX_REMEMBERED = 1 << 16
_NOT_PASSABLE = frozenset(("tcgen05", "bar", "barrier", "setmaxnreg", "ret", "exit", "trap", "brx"))
"""Evaluations kept per function (a bound on memory, whatever the function)."""
DATA_VECTORS = frozenset(("ld", "st"))
"""tcgen05 ops whose register vectors are data, not values to follow: ld's destinations (and ld.red's
reduced value), st's sources."""


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
        self._touched: dict[int, frozenset[str]] = {}
        self._writes: dict[int, tuple[str, ...]] = {}
        self._passable: dict[int, bool] = {}
        self._unwritten: dict[tuple[int, str, int], bool] = {}

    def effect(self, ins: Instruction, regs: dict[str, Any], thread: Any) -> dict[str, Any]:
        """:func:`~tmemviz.families.explain.follow.evaluate.effect`, remembered by what it depends on (the
        values it reads, and the warp where it reads the thread's position): warps and the rounds of a
        loop meet the same statement with the same values again and again."""
        reads = self.reads(ins)
        values = tuple(map(regs.get, reads))
        if thread.size > 1 and (ins.index in self.positional or any(type(v) is Vec for v in values)):
            # A group of warps that differ here: each warp's own, then one value where they agree.
            each = [
                self._effect(ins, reads, tuple(element(v, i) for v in values), thread.single(i))
                for i in range(thread.size)
            ]
            return {name: vec(e[name] for e in each) for name in each[0]}
        return self._effect(ins, reads, values, thread)

    def _effect(self, ins: Instruction, reads: tuple[str, ...], values: tuple[Any, ...], thread: Any) -> Any:
        key = (ins.index, thread.warp if ins.index in self.positional else None, *values)
        found = self._effects.get(key)
        if found is None:
            if len(self._effects) > MAX_REMEMBERED:
                self._effects.clear()
            get = dict(zip(reads, values, strict=True)).get
            found = self._effects[key] = effect(self.body, ins, get, thread)
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
            found = self._passable[block] = self._region_is_plain(block)
        return found

    def _region_is_plain(self, block: int) -> bool:
        graph = self.graph
        meet = graph.ipdom.get(block, -1)
        if meet < 0:
            return False
        region = graph.reaches(graph.blocks[block].succ, avoiding=frozenset((meet,)))
        if block in region:  # a loop whose rounds the warps may count differently
            return False
        live, releases, relevant = self.live[meet], self.releases, self.relevant
        for b in region:
            if graph.blocks[b].exits:
                return False
            for ins in self.code[b]:
                if ins.head in _NOT_PASSABLE or ins.index in releases:
                    return False
                if ins.head == "mbarrier" and not ins.opcode.startswith("mbarrier.init"):
                    return False
                if ins.index in relevant and not live.isdisjoint(self.writes(ins)):
                    return False
        return True

    def unwritten(self, at: int, reg: str, block: int) -> bool:
        """Whether no path from the instruction at index ``at`` (a ``setp``) to the end of ``block``
        writes ``reg`` without running that instruction again: what the comparison learnt of ``reg``
        still holds where ``block``'s branch reads the predicate."""
        key = (at, reg, block)
        found = self._unwritten.get(key)
        if found is None:
            found = self._unwritten[key] = self._unwritten_paths(at, reg, block)
        return found

    def _unwritten_paths(self, at: int, reg: str, block: int) -> bool:
        where = self._where.get(at)
        if where is None:
            return False
        home, k = where
        code = self.code

        def writes(ins: Instruction) -> bool:
            return reg in self.writes(ins)

        if home == block:
            return not any(writes(i) for i in code[block][k + 1 :])
        if any(writes(i) for i in code[home][k + 1 :]) or any(writes(i) for i in code[block]):
            return False
        graph, avoid = self.graph, frozenset((home,))
        forward = graph.reaches(graph.blocks[home].succ, avoiding=avoid)
        if block not in forward:
            return False
        backward: set[int] = set()
        stack = [p for p in graph.blocks[block].pred if p != home]
        while stack:
            b = stack.pop()
            if b in backward:
                continue
            backward.add(b)
            stack.extend(p for p in graph.blocks[b].pred if p != home and p not in backward)
        return not any(writes(i) for b in forward & backward for i in code[b])

    def expression(self, reg: str, block: int) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """``reg``'s value as an expression another register may repeat: ``((opcode, *operands),
        registers read)`` when one unguarded integer instruction writes it in the whole function
        (:data:`PURE`) and nothing writes what it reads on any path from it to the end of ``block``
        (CUTLASS tests ``and.b32 %r, %tile, 255`` twice, in two registers). None otherwise."""
        defs = self._defs.get(reg)
        if defs is None or len(defs) != 1:
            return None
        ins = defs[0]
        if ins.guard is not None or ins.opcode.split(".")[0] not in PURE:
            return None
        operands = tuple(o.strip() for o in ins.rest.split(",")[1:])
        reads = self.reads(ins)
        if not all(self.unwritten(ins.index, r, block) for r in reads):
            return None
        return (ins.opcode, *operands), reads

    def block_of(self, index: int) -> int:
        """The block holding the instruction at ``index``."""
        return self._where[index][0]

    @cached_property
    def _defs(self) -> dict[str, list[Instruction]]:
        out: dict[str, list[Instruction]] = defaultdict(list)
        for ins in self.body.instructions:
            for r in self.writes(ins):
                out[r].append(ins)
        return out

    @cached_property
    def _where(self) -> dict[int, tuple[int, int]]:
        """Each instruction's block and place in its code."""
        return {ins.index: (b, k) for b, code in enumerate(self.code) for k, ins in enumerate(code)}

    def ored(self, block: int, reg: str) -> tuple[str, ...]:
        """The registers an unguarded ``or`` in ``block`` combined into ``reg``, when that ``or`` is the
        block's last write of ``reg`` and none of them is written after it in the block (so they still
        hold what was ORed where the block ends); nested ``or``s are followed. () otherwise."""
        code = self.code[block]
        out: list[str] = []
        todo = [reg]
        while todo:
            r = todo.pop()
            for k in range(len(code) - 1, -1, -1):
                ins = code[k]
                if r not in self.writes(ins):
                    continue
                parts = self.reads(ins)
                if ins.guard is None and ins.opcode.split(".")[0] == "or" and ins.opcode != "or.pred":
                    after = {w for i in code[k + 1 :] for w in self.writes(i)}
                    if after.isdisjoint(parts):
                        out.extend(parts)
                        todo.extend(parts)
                break
        return tuple(dict.fromkeys(out))

    @cached_property
    def positional(self) -> frozenset[int]:
        """The instructions that read the thread's position (``%tid``, ``%laneid``, ``%warpid``)."""
        return frozenset(i.index for i in self.body.instructions if "%tid" in i.text or "%laneid" in i.text
                         or "%warpid" in i.text)  # fmt: skip

    @cached_property
    def plain(self) -> frozenset[int]:
        """Evaluated instructions with no guard that are neither tcgen05, mbarrier nor a release: all
        they do is give their registers values."""
        releases = self.releases
        return frozenset(
            i.index for i in self.body.instructions
            if i.index in self.relevant and i.guard is None and i.head not in ("tcgen05", "mbarrier")
            and i.index not in releases
        )  # fmt: skip

    @cached_property
    def releases(self) -> frozenset[int]:
        """The instructions that let other threads go on (:data:`~tmemviz.families.explain.follow.pending.
        RELEASES`)."""
        return frozenset(i.index for i in self.body.instructions if i.opcode.startswith(RELEASES))

    def touched(self, ins: Instruction) -> frozenset[str]:
        """The registers ``ins`` reads or writes."""
        found = self._touched.get(ins.index)
        if found is None:
            found = self._touched[ins.index] = frozenset(self.reads(ins)) | frozenset(self.writes(ins))
        return found

    def reads(self, ins: Instruction) -> tuple[str, ...]:
        found = self._reads.get(ins.index)
        if found is None:
            found = self._reads[ins.index] = tuple(self.body.reads(ins))
        return found

    def writes(self, ins: Instruction) -> tuple[str, ...]:
        found = self._writes.get(ins.index)
        if found is None:
            found = self._writes[ins.index] = tuple(self.body.writes(ins))
        return found

    @cached_property
    def tcgen05(self) -> list[Instruction]:
        return [i for i in self.body.instructions if i.head == "tcgen05"]

    @cached_property
    def relevant(self) -> frozenset[int]:
        """Indices of the instructions the analysis evaluates (see the module's docstring)."""
        return self._slice(branches=True)[0]

    @cached_property
    def counted(self) -> frozenset[str]:
        """The registers an address is built from (tcgen05 and mbarrier operands): a loop-carried one
        keeps its few values (a pipeline stage), where one that only steers branches (a tile counter) is
        widened at once, so that loops settle in a few rounds."""
        return self._slice(branches=False)[1]

    def _slice(self, branches: bool) -> tuple[frozenset[int], frozenset[str]]:
        """The instructions that compute the registers tcgen05 and mbarrier instructions read (and, with
        ``branches``, the predicates of branches), and those registers."""
        body = self.body
        defs: dict[str, list[Instruction]] = defaultdict(list)
        needed: list[str] = []
        chosen: set[int] = set()
        for ins in body.instructions:
            for r in self.writes(ins):
                defs[r].append(ins)
            if ins.head == "tcgen05":
                chosen.add(ins.index)
                needed.extend(self._followed(ins))
            elif ins.head == "mbarrier":  # which mbarrier a release or a wait names
                chosen.add(ins.index)
                needed.extend(r for o in ins.rest.split(",") if "[" in o for r in self.body.registers(o))
            elif branches and ins.head in ("bra", "brx", "ret", "exit", "trap") and ins.guard is not None:
                chosen.add(ins.index)
                needed.extend(self.reads(ins))
        seen: set[str] = set()
        while needed:
            r = needed.pop()
            if r in seen:
                continue
            seen.add(r)
            for ins in defs.get(r, ()):
                if ins.index not in chosen:
                    chosen.add(ins.index)
                    needed.extend(self.reads(ins))
        return frozenset(chosen), frozenset(seen)

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
    def live(self) -> list[frozenset[str]]:
        """Per block, the registers an evaluated instruction may read from its entry on before writing
        them (live at the entry): all a state needs to keep there. A backward data-flow to a fixed point."""
        relevant = self.relevant
        uses, defs = [], []
        for code in self.code:
            use: set[str] = set()
            kill: set[str] = set()
            for ins in code:
                if ins.index not in relevant:
                    continue
                use.update(r for r in self.reads(ins) if r not in kill)
                if ins.guard is None:  # a guarded write may leave the old value: not a kill
                    kill.update(self.writes(ins))
            uses.append(use)
            defs.append(kill)
        blocks = self.graph.blocks
        live: list[set[str]] = [set(u) for u in uses]
        changed = True
        while changed:
            changed = False
            for b in reversed(range(len(blocks))):
                out: set[str] = set()
                for succ in blocks[b].succ:
                    out |= live[succ]
                new = uses[b] | (out - defs[b])
                if len(new) != len(live[b]):
                    live[b] = new
                    changed = True
        return [frozenset(x) for x in live]

    def _followed(self, ins: Instruction) -> list[str]:
        """The registers of a tcgen05 instruction whose values matter (not ld/st data vectors)."""
        op = ins.opcode.split(".", 2)[1] if "." in ins.opcode else ""
        if op not in DATA_VECTORS:
            return list(self.reads(ins))
        try:
            operands = ins.parsed.operands
        except TmemvizError:  # an unreadable statement: nothing to follow
            return []
        out = self.body.registers(ins.guard) if ins.guard else []
        for k, o in enumerate(operands):
            if o.startswith("{") and (op == "ld" or k > 0):  # ld's vectors (ld.red's too), st's data
                continue
            out.extend(self.body.registers(o))
        return out
