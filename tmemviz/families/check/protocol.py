"""Protocol rules on a kernel's paths: the ``.cta_group::2`` allocation handshake (``pair-sync``), Tensor
Memory used with no allocation (``no-alloc``) and an allocation that never relinquishes the permit
(``relinquish``).

``pair-sync``: with ``.cta_group::2`` the two CTAs of a pair allocate and free together. PTX ISA
(tcgen05.alloc/dealloc/relinquish_alloc_permit): "the issuing warp must make sure that peer CTA is
launched and its warps eventually participate in collective operations". One CTA's dealloc that runs
before the peer's alloc has completed fails the launch (NVIDIA/cutlass#3435: 96 of 96 runs on B300,
none with a ``barrier.cluster`` anywhere between the peer's alloc and the dealloc: before the alloc,
after it, or just before the dealloc); triton PR #9498 put one before the 2-CTA dealloc. So a 2-CTA
dealloc that some path reaches with no ``barrier.cluster.wait`` before it is a warning (a race: it fails
when the peer is late). A 2-CTA alloc with no cluster barrier before it is a note: the CTAs of a cluster
are launched together, but the alloc writes the address into shared memory the peer may still be
initialising (cutlass PR #3316, found by racecheck; triton PR #10735 and TLX PR #1444 add the barrier).

Which functions a kernel calls is known only at the module's end, so ``no-alloc`` and ``relinquish``
hand back what they found with the callees it depends on. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from tmemviz.families.check.findings import Finding
from tmemviz.families.explain.follow.follower import RUNTIME
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.families.explain.follow.machine import ACCESSES
from tmemviz.families.explain.follow.paths import START, cluster_wait, reaching
from tmemviz.ptx.body import Instruction

FIX = "add barrier.cluster.arrive; barrier.cluster.wait; (every thread of both CTAs) between the alloc and it"


def pair_findings(a: Analysed) -> Iterable[Finding]:
    """``pair-sync``: each 2-CTA dealloc (and alloc) some path of its warp reaches with no cluster wait."""
    pair = [i for i in a.plan.tcgen05 if "cta_group::2" in i.text and _op(i.opcode) in ("alloc", "dealloc")]
    if not pair or not a.body.entry:  # a function's callers may have waited: judged in kernels only
        return
    remote = next((i for i in a.body.instructions if _remote_arrive(i)), None)
    for t in a.traces:
        runs = [(ins, "dealloc") for ins, _, _, _ in t.deallocs if "cta_group::2" in ins.text]
        runs += [(ins, "alloc") for ins, _, _, _ in t.allocs if "cta_group::2" in ins.text]
        if not runs:
            continue
        waited, waits = reaching(a.plan, t.blocks, cluster_wait), None
        for ins, op in runs:
            before = waited(ins)
            if START not in before:
                continue
            who = a.who(t.warps, ins.index)
            path = "every" if before == {START} else "some"
            # Only where some path has the cluster wait: with none anywhere (NVIDIA/cutlass#3435's
            # kernels) the handshake alone is not taken for one.
            if path == "some" and remote is not None and waits is None:
                waits = reaching(a.plan, t.blocks, _waits)  # the trace's mbarrier waits, once
            handshake = path == "some" and remote is not None and START not in waits(ins)
            if op == "dealloc" and handshake:
                # CUTLASS's 2-CTA dealloc handshake: one CTA arrives on the peer's mbarrier (mapa +
                # mbarrier.arrive.shared::cluster), each waits on its own before freeing. Which mbarrier
                # the peer arrives on is not followed: a note, not a false warning.
                yield Finding(
                    ins.line, "note", "pair-sync",
                    f"tcgen05.dealloc.cta_group::2 with no barrier.cluster.wait before it on some path"
                    f"{who}, but after an mbarrier wait on every path, in a kernel that arrives on a peer "
                    f"CTA's mbarrier (line {remote.line}): if that handshake orders the peer's alloc before "
                    "this dealloc, it is safe; check does not follow which mbarrier the peer arrives on "
                    f"(NVIDIA/cutlass#3435); otherwise {FIX}",
                )  # fmt: skip
            elif op == "dealloc":
                yield Finding(
                    ins.line, a.severity("warning", t.warps, ins.index), "pair-sync",
                    f"tcgen05.dealloc.cta_group::2 with no barrier.cluster.wait before it on {path} path"
                    f"{who}: if the peer CTA's alloc has not completed, the dealloc fails the launch "
                    f"(NVIDIA/cutlass#3435); {FIX}",
                )  # fmt: skip
            else:
                yield Finding(
                    ins.line, "note", "pair-sync",
                    f"tcgen05.alloc.cta_group::2 with no barrier.cluster.wait before it on {path} path{who}: "
                    "the PTX ISA asks the issuing warp to make sure the peer CTA runs, and the alloc writes "
                    "into shared memory the peer may still be initialising (cutlass PR #3316); a "
                    "barrier.cluster.arrive/wait before the alloc makes both sure",
                )  # fmt: skip


def _remote_arrive(ins: Instruction) -> bool:
    """An arrive on an mbarrier named through the cluster's shared window (a peer CTA's, after mapa)."""
    return ins.opcode.startswith("mbarrier.arrive") and ".shared::cluster" in ins.opcode


def _waits(ins: Instruction) -> Hashable | None:
    """A cluster wait (:func:`cluster_wait`) or an mbarrier wait (``try_wait``/``test_wait``/``wait``)."""
    if ins.opcode.startswith(("mbarrier.try_wait", "mbarrier.test_wait", "mbarrier.wait")):
        return "mbarrier"
    return cluster_wait(ins)


def no_alloc_findings(a: Analysed) -> list[Finding]:
    """``no-alloc``: an entry that accesses Tensor Memory with no tcgen05.alloc of its own (judged at the
    module's end against its callees)."""
    if not a.body.entry or any(_op(i.opcode) == "alloc" for i in a.plan.tcgen05):
        return []
    uses = [i for i in a.plan.tcgen05 if _op(i.opcode) in ACCESSES]
    if not uses:
        return []
    first = uses[0]
    name = _short(a.body.name)
    return [
        Finding(
            first.line,
            "error",
            "no-alloc",
            f"tcgen05.{_op(first.opcode)} here, but {name} (and every function it calls) has no "
            "tcgen05.alloc: it touches columns this CTA was never given, which another CTA on the SM may "
            "hold (PTX 9.7.16.2; NVIDIA/cutlass#2230); allocate with tcgen05.alloc before the first use "
            "and free with tcgen05.dealloc after the last",
        )
    ]


def relinquish_findings(a: Analysed) -> list[Finding]:
    """``relinquish``: an entry that allocates and never runs tcgen05.relinquish_alloc_permit."""
    ops = [_op(i.opcode) for i in a.plan.tcgen05]
    if not a.body.entry or "alloc" not in ops or "relinquish_alloc_permit" in ops:
        return []
    first = next(i for i in a.plan.tcgen05 if _op(i.opcode) == "alloc")
    group = "2" if "cta_group::2" in first.text else "1"
    return [
        Finding(
            first.line,
            "note",
            "relinquish",
            f"{_short(a.body.name)} allocates Tensor Memory but never runs "
            f"tcgen05.relinquish_alloc_permit: until it exits, other CTAs on the SM may be kept from "
            f"allocating (nvFuser PR #3795: CTAs serialised); after the kernel's last alloc, add "
            f"tcgen05.relinquish_alloc_permit.cta_group::{group}.sync.aligned",
        )
    ]


def calls(callees: set[str]) -> bool:
    """Whether a function calls any function that is not the device runtime's."""
    return any(c not in RUNTIME and not c.startswith("__nv_") for c in callees)


def _op(opcode: str) -> str:
    parts = opcode.split(".")
    return parts[1].split("::")[0] if len(parts) > 1 else ""


def _short(name: str | None) -> str:
    text = name or "this function"
    return text if len(text) <= 40 else text[:37] + "..."
