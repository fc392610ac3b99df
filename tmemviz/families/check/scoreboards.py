"""``check FILE.ptx --sass FILE.cubin``: each ``wait-ld`` warning judged against the SASS ptxas made of
the module, which shows what the hardware will do where the PTX ISA leaves it open.

The ISA completes a ``tcgen05.ld`` only at ``tcgen05.wait::ld`` (9.7.16.8.5); in SASS the load is an
``LDTM`` whose write scoreboard holds back only the instructions that wait on it
(:mod:`tmemviz.sass.waits`). So a warning (nothing in the PTX orders the load before what overtakes
it) is

* **confirmed** when, in the SASS, some path from the load's ``LDTM`` reaches the instruction flagged
  with nothing waiting on that scoreboard: the warning stays, saying so;
* **ordered** when every such path waits first (ptxas happened to wait, e.g. where a call on one branch
  needs every register): a note, since the PTX does not ask for it and another build may not wait;
* left as it is, saying why, when the SASS does not show the instructions (ptxas duplicated, merged or
  dropped them, or no ``LDTM`` of the load sets a scoreboard).

A store read back before ``tcgen05.wait::st``: confirmed when a path from the ``STTM`` reaches the
flagged instruction without passing an unguarded ``FENCE.VIEW.ASYNC.T`` (what ``wait::st`` becomes).

Which SASS instruction is which PTX line: the tcgen05 ones through explain's pairing
(:mod:`tmemviz.families.explain.pairing`); a release that is no tcgen05 instruction by its SASS
opcode (:data:`RELEASES`): any of them the path reaches counts, so a warning is never downgraded
because the pairing picked the wrong barrier. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tmemviz.families.check.findings import Finding
from tmemviz.sass.control import NONE
from tmemviz.sass.waits import Code, Instruction

RELEASES: tuple[tuple[str, str], ...] = (
    ("barrier.cluster", "UCGABAR_ARV"),
    ("mbarrier", "SYNCS.ARRIVE"),
    ("barrier", "BAR."),
    ("bar", "BAR."),
)
"""A PTX release (its opcode's first words; the longest first) -> how the SASS opcode it becomes starts
(ptxas 13.5: ``bar.sync`` is ``BAR.SYNC.DEFER_BLOCKING``, ``bar.arrive`` ``BAR.ARV``,
``barrier.cluster.arrive`` ``UCGABAR_ARV``, ``mbarrier.arrive`` ``SYNCS.ARRIVE.TRANS64...``)."""
_FENCE = "FENCE.VIEW.ASYNC.T"


Places = dict[int, tuple[list[int], bool]]
"""PTX line -> the code addresses of the SASS instructions that may implement it, and whether that is
certain (:func:`tmemviz.families.explain.pairing.candidates`)."""


def judged(
    findings: Sequence[Finding], places: dict[str, Places], code: dict[str, Code], function_of: dict[int, str]
) -> list[Finding]:
    """``findings`` with each ``wait-ld`` warning judged: ``places`` per function, ``code`` the SASS
    functions, ``function_of`` a tcgen05 PTX line -> its function."""
    out = []
    for f in findings:
        if not _judged_here(f):
            out.append(f)
            continue
        h = f.hazard
        fn = function_of.get(h.source)
        found = code.get(fn) if fn is not None else None
        status, why = _verdict(h, found, places.get(fn, {}) if fn is not None else {})
        severity = "note" if status == "ordered" else f.severity
        out.append(Finding(f.line, severity, f.rule, f"{f.message}; {why}", h))
    return out


def _verdict(h: Any, code: Code | None, places: Places) -> tuple[str, str]:
    """(confirmed | ordered | unclear, what the SASS says). Where pairing is not certain, every
    instruction the line may be is asked: ordered only when each is, confirmed only when each is."""
    if code is None:
        return "unclear", "the SASS given has no function of this line, so it cannot say more"
    store = h.kind == "st"
    kind = "STTM" if store else "LDTM"
    found, exact = places.get(h.source, ([], False))
    found = [a for a in found if a in code.at and code.items[code.at[a]].opcode.startswith(kind)]
    # (address, scoreboard): a store's path ends at a fence, a load's at a wait on its scoreboard (the
    # first half of a split load sets none: ptxas puts it on the second).
    starts = [(a, NONE if store else code.items[code.at[a]].write) for a in found]
    starts = [(a, b) for a, b in starts if store or b != NONE]
    goal = _goal(h, places, code)
    if not starts or goal is None:
        why = (
            f"no {kind} of that line"
            if not found
            else f"no {kind} of that load sets a scoreboard"
            if not starts
            else f"no instruction of line {h.line}"
        )
        return "unclear", f"the SASS given cannot say more ({why})"
    hits = [(a, b, code.reached(a, goal, _fence if store else _waits_on(b))) for a, b in starts]
    many = (
        ""
        if len(starts) == 1
        else f" (each of the {len(starts)} {kind}s this line may be: ptxas moved blocks)"
    )
    a, b = starts[0]
    stop = f"passes a {_FENCE}" if store else f"waits on its scoreboard SB{b} first"
    if all(r is None for _, _, r in hits):
        return "ordered", (
            f"the SASS given orders it on this build (every path from the {kind} at /*{a:04x}*/{many} "
            f"{stop}), which the PTX does not ask for"
        )
    if exact or all(r is not None for _, _, r in hits):
        a, b, r = next(hit for hit in hits if hit[2] is not None)
        assert r is not None
        unordered = (
            f"no {_FENCE} (tcgen05.wait::st) between" if store else f"nothing waiting on its scoreboard SB{b}"
        )
        return "confirmed", (
            f"the SASS given confirms it: from the {kind} at /*{a:04x}*/{many} a path reaches the {r.opcode} "
            f"at /*{r.address:04x}*/ with {unordered}"
        )
    return "unclear", (
        f"the SASS given cannot say more (of the {len(starts)} {kind}s this line may be, ptxas having moved "
        "blocks, some are ordered before it and some not)"
    )


def _waits_on(board: int) -> Callable[[Instruction], bool]:
    return lambda it: bool(it.wait >> board & 1)


def _fence(it: Instruction) -> bool:
    return it.opcode.startswith(_FENCE) and not it.guarded


def _goal(h: Any, places: Places, code: Code) -> Callable[[Instruction], bool] | None:
    """What the flagged instruction is in the SASS: the instructions that may implement its line (a
    tcgen05 one), else any instruction of the opcodes its release becomes."""
    what = str(h.what)
    if what.startswith("tcgen05."):
        targets = {a for a in places.get(h.line, ([], False))[0] if a in code.at}
        return (lambda it: it.address in targets) if targets else None
    for ptx, sass in RELEASES:
        if what == ptx or what.startswith(ptx + "."):
            return lambda it: it.opcode.startswith(sass)
    return None


def places_of(ptx: Sequence[dict[str, Any]], sass: Sequence[dict[str, Any]]) -> dict[str, Places]:
    """Function -> its :data:`Places`, from the light records of both sides."""
    from tmemviz.families.explain.pairing import by_function, candidates

    by_fn, sass_fn = by_function(ptx), by_function(sass)
    out: dict[str, Places] = {}
    for fn, records in by_fn.items():
        found = candidates(records, sass_fn.get(fn, []))
        # A SASS record names its instruction by code address ("0x0f30"); one printed without (a
        # listing's line number) cannot be found in the code.
        out[fn] = {
            line: ([int(a["address"], 16) for a in got if str(a.get("address", "")).startswith("0x")], exact)
            for line, (got, exact) in found.items()
        }
    return out


def wanted(findings: Iterable[Finding], function_of: dict[int, str]) -> set[str]:
    """The functions whose SASS the judgment needs."""
    return {
        function_of[f.hazard.source] for f in findings if _judged_here(f) and f.hazard.source in function_of
    }


def _judged_here(f: Finding) -> bool:
    """A wait-ld warning with its hazard: what the SASS can confirm or order."""
    return f.rule == "wait-ld" and f.severity == "warning" and f.hazard is not None
