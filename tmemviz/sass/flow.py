"""One function of a SASS listing as a control-flow graph, and what its registers hold at each
instruction that asks: a forward data-flow over :mod:`tmemviz.flow`.

The listing is read once; a function's steps are kept (:class:`Body`) until it ends, then solved and
given back in order with the facts that hold at each kept instruction. Only what the flow needs is kept:
labels, branches, exits, calls, the writes of registers (a run of writes whose values are not followed
as one step) and the instructions a caller asks about (tcgen05 work), not the rest of the text; past
:data:`MAX_STEPS` a body is solved as it stands and the rest of the function read the same way, each
part assuming that any label may be reached from anywhere (what a part cannot see), so memory stays
bounded whatever the function's length.

Control flow (nvdisasm, cuobjdump -sass): a label ``.L_x_12:`` (cuobjdump prints none: a branch
target's address starts a block), ``BRA `(.L_x_12)``/``BRA 0x1e0``, conditional when guarded (``@P0``,
``@!UP1``), given a predicate (``BRA.U !UP0, ...``) or ``.DIV`` (taken when the warp has diverged);
a branch or exit under a thread predicate may split the warp (:data:`~tmemviz.sass.writes.DIVERGE`);
``JMP`` likewise; ``BRX``/``JMX`` jump where a
register says (``BRANCH_TARGETS`` when nvdisasm names them, else anywhere: every label then starts with
nothing known); ``EXIT``/``RET`` end the function, ``BPT.TRAP``/``KILL`` the thread; a ``CALL`` returns
to the next instruction, the callee having perhaps written any register.

Facts: register -> :data:`tmemviz.ptx.constants.Value` (one constant, one of a few, or known bits);
where paths join, a register keeps the values either path gives (one of them), and is unknown where
either knows nothing; at a loop header where it keeps changing after a few passes it becomes
:data:`~tmemviz.sass.facts.VARIES` (widening: the loop steps it, no fixed set of values reaches).
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tmemviz.flow.cfg import JUMP, LABEL, PLAIN_STEP, STOP, Graph, Step, build
from tmemviz.flow.dataflow import Unconverged, solve
from tmemviz.sass.facts import VARIES, Facts, apply, either
from tmemviz.sass.line import PREDICATE, SassLine
from tmemviz.sass.writes import DIVERGE, FORGET_ALL, Write

MAX_STEPS = 1 << 17
"""Steps kept per function before it is solved in parts (each a few hundred bytes)."""
_TARGETS = re.compile(r"BRANCH_TARGETS\s+([^\"*]*)")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]+$")
CONTROL = frozenset(("BRA", "JMP", "BRX", "JMX", "EXIT", "RET", "CALL", "BPT", "KILL"))


class Body:
    """The steps of one function (or one part of a long one), in listing order."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.items: list[Any] = []
        """Per step: None, a :class:`Write`, or ``(payload, Write | None)`` for an instruction asked about."""
        self.addresses: list[int | None] = []
        self.address_targets: set[int] = set()
        """Branch targets given as code addresses (cuobjdump): a block starts at each."""
        self.forgotten: set[str] = set()
        self.unsure: set[str] = set()
        """Registers and predicates written since the last step kept, by instructions whose value is not
        followed: kept as one step (most of a listing's lines)."""
        self.reads: set[str] = set()
        """The registers (and uniform predicates) the instructions asked about read: only the writes that
        can reach them are followed (:func:`_relevant`)."""

    def __len__(self) -> int:
        return len(self.steps)

    def _add(self, step: Step, item: Any, address: int | None) -> None:
        if self.forgotten or self.unsure:
            self.flush()
        self.steps.append(step)
        self.items.append(item)
        self.addresses.append(address)

    def label(self, name: str) -> None:
        self._add(Step(LABEL, name), None, None)

    def write(self, write: Write, address: int | None = None) -> None:
        if write.op is None and (write.guard is None or all(r[0] == "R" for r in write.registers)):
            self.forgotten.update(write.registers)  # forgetting commutes: one step for a run of them
            self.unsure.update(write.predicates)
            return
        self._add(PLAIN_STEP, write, address)

    def flush(self) -> None:
        """Keep the registers and predicates forgotten since the last step as one step."""
        write = Write(tuple(sorted(self.forgotten)), predicates=tuple(sorted(self.unsure)))
        self.forgotten, self.unsure = set(), set()
        self._add(PLAIN_STEP, write, None)

    def ask(
        self,
        payload: Any,
        write: Write | None = None,
        address: int | None = None,
        reads: tuple[str, ...] = (),
    ) -> None:
        """An instruction whose facts the caller wants (those of the registers and predicates ``reads``),
        with the registers it writes (after reading)."""
        self._add(PLAIN_STEP, (payload, write), address)
        self.reads.update(reads)

    def control(self, sass: SassLine, text: str) -> bool:
        """Add ``sass`` when it is a branch, exit or call (:data:`CONTROL`); whether it was one."""
        op = sass.opcode
        if op not in CONTROL:
            return False
        guarded = sass.guard is not None and sass.guard not in ("PT", "UPT")
        if sass.guard in ("!PT", "!UPT"):
            return True  # never executed
        address = sass.address
        if guarded and sass.guard.lstrip("!")[0] == "P" and op != "CALL":
            self._add(PLAIN_STEP, DIVERGE, address)  # the threads may part here
        if op == "CALL":
            self._add(PLAIN_STEP, FORGET_ALL, address)
        elif op in ("EXIT", "RET"):
            self._add(Step(STOP, conditional=guarded), None, address)
        elif op in ("BPT", "KILL"):
            if op == "KILL" or "TRAP" in sass.modifiers:
                self._add(Step(STOP, conditional=guarded, exits=False), None, address)
        elif op in ("BRX", "JMX"):
            found = _TARGETS.search(text)
            names = tuple(t.strip() for t in found.group(1).split(",") if t.strip()) if found else ()
            self._add(Step(JUMP, targets=names, conditional=guarded), None, address)
        else:
            target = sass.operands[-1].strip("`()") if sass.operands else ""
            # BRA.DIV URn jumps when the warp has diverged: conditional, whatever its operands.
            predicate = "DIV" in sass.modifiers or any(
                PREDICATE.match(o) and o not in ("PT", "UPT") for o in sass.operands[:-1]
            )
            if _ADDRESS.match(target):
                self.address_targets.add(int(target, 16))
                target = f"0x{int(target, 16):x}"
            self._add(Step(JUMP, targets=(target,) if target else (), conditional=guarded or predicate),
                      None, address)  # fmt: skip
        return True


def facts_at(body: Body, entry: Facts | None = None, closed: bool = True) -> Iterator[tuple[Any, Facts]]:
    """Each payload of ``body`` in order, with the facts that hold when its instruction runs (the dict
    is the flow's own: read it before asking for the next).

    ``closed``: ``body`` is a whole function (no branch from outside it reaches its labels); a part of
    a longer one is not, and then nothing is known at any of its labels.
    """
    if not body.reads:  # nothing asked needs a fact: no graph, no solving
        for item in body.items:
            if type(item) is tuple:
                yield item[0], {}
        return
    graph, items = graph_of(body)
    items = _relevant(items, body.reads)
    problem = _Constants(graph, items, closed)
    try:
        states = solve(graph, dict(entry or {}), problem)
    except Unconverged:  # cannot happen with widening; never a guess if it does
        states = {}
    for block in graph.blocks:
        if not any(type(items[i]) is tuple for i in range(block.start, block.end)):
            continue  # no instruction asked about here
        facts = dict(states.get(block.index, {}))
        for i in range(block.start, block.end):
            item = items[i]
            if type(item) is tuple:
                payload, write = item
                yield payload, facts
                if write is not None:
                    apply(write, facts)
            elif item is not None:
                apply(item, facts)


def graph_of(body: Body) -> tuple[Graph, list[Any]]:
    """The control-flow graph of ``body``'s steps, and its items with ``None`` at each label added
    where a branch names a code address (a graph's steps and items stay index for index)."""
    if body.forgotten or body.unsure:
        body.flush()
    steps, items = _with_address_labels(body)
    return build(steps), items


def _relevant(items: list[Any], reads: set[str]) -> list[Any]:
    """``items`` with the writes that cannot reach what is read left out: a register is followed when an
    asked instruction reads it or a followed write reads it (or is guarded by it), whatever the path (so
    nothing followed depends on a write left out). Facts stay small: the MMA descriptors' registers,
    not every address a kernel computes."""
    writes = [w for w in (i[1] if type(i) is tuple else i for i in items) if w is not None]
    wanted = set(reads)
    size = -1
    while size != len(wanted):
        size = len(wanted)
        for w in writes:
            if w.op and w.registers and w.registers[0] in wanted:
                wanted.update(src[0] for src in w.sources if src is not None and src[0] is not None)
                if w.guard:
                    wanted.add(w.guard.lstrip("!"))
                if w.op == "USEL" and w.operands[2:]:
                    wanted.add(w.operands[2].lstrip("!"))
            elif w.op == "VOTE" and w.predicates[0] in wanted:  # its alias lasts while what it voted does
                wanted.add(w.operands[0].lstrip("!"))

    def kept(w: Write | None) -> Write | None:
        if w is None or w.op in ("all", "diverge", "R*"):
            return w
        registers = wanted.intersection(w.registers)
        predicates = wanted.intersection(w.predicates)
        if not registers and not predicates:
            return None
        if w.op is None and (len(registers) < len(w.registers) or len(predicates) < len(w.predicates)):
            # A forgetting write: only what is followed (no fact is kept of anything else).
            return w._replace(registers=tuple(sorted(registers)), predicates=tuple(sorted(predicates)))
        return w

    return [(i[0], kept(i[1])) if type(i) is tuple else kept(i) for i in items]


def _with_address_labels(body: Body) -> tuple[list[Step], list[Any]]:
    """The steps with a label before the first step at or after each branch target address."""
    if not body.address_targets:
        return body.steps, body.items
    targets = sorted(body.address_targets)
    steps: list[Step] = []
    items: list[Any] = []
    k = 0
    for step, item, address in zip(body.steps, body.items, body.addresses, strict=True):
        while k < len(targets) and address is not None and address >= targets[k]:
            steps.append(Step(LABEL, f"0x{targets[k]:x}"))
            items.append(None)
            k += 1
        steps.append(step)
        items.append(item)
    for target in targets[k:]:
        steps.append(Step(LABEL, f"0x{target:x}"))
        items.append(None)
    return steps, items


class _Constants:
    """The data-flow problem: facts on entry to each block (see the module's docstring)."""

    widen_after = 3

    def __init__(self, graph: Any, items: list[Any], closed: bool) -> None:
        self.graph = graph
        self.items = items
        self.writes: dict[int, list[Write]] = {}
        """Per block, its writes (found on its first visit)."""
        self.labelled = frozenset(graph.labels.values())
        self.open = not closed or any(b.unresolved for b in graph.blocks)
        """Whether a label may be reached from where the graph does not show (an indirect jump, or code
        outside a part): then nothing is known on entry to a block a label starts."""

    def transfer(self, block: int, state: Facts) -> dict[int, Facts]:
        b = self.graph.blocks[block]
        writes = self.writes.get(block)
        if writes is None:
            found = (self.items[i] for i in range(b.start, b.end))
            writes = self.writes[block] = [w for w in (i[1] if type(i) is tuple else i for i in found) if w]
        facts = dict(state) if writes else state
        for write in writes:
            apply(write, facts)
        if self.open:
            return {s: {} if s in self.labelled else facts for s in b.succ}
        return {s: facts for s in b.succ}

    def join(self, a: Facts, b: Facts) -> Facts:
        if a is b:
            return a
        out: Facts = {}
        for name, value in a.items():
            other = b.get(name)
            if other is None:
                continue
            out[name] = either(value, other)
        return out

    def widen(self, old: Facts, new: Facts) -> Facts:
        """What still changes at a loop header after a few passes: :data:`VARIES` (the loop steps it)."""
        return {name: value if old.get(name) == value else VARIES for name, value in new.items()}

    def early(self, header: int, old: Facts, new: Facts) -> Facts:
        """Nothing is widened before the passes above: a constant stays one until it changes."""
        return new

    def same(self, a: Facts, b: Facts) -> bool:
        return a == b
