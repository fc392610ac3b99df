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

RELEASES: dict[str, tuple[str, ...]] = {
    "bar": ("BAR.",),
    "barrier.cluster": ("UCGABAR_ARV",),
    "barrier": ("BAR.",),
    "mbarrier": ("SYNCS.ARRIVE",),
}
"""A PTX release (its opcode's first words) -> the SASS opcodes it becomes (ptxas 13.5: ``bar.sync`` is
``BAR.SYNC.DEFER_BLOCKING``, ``bar.arrive`` ``BAR.ARV``, ``barrier.cluster.arrive`` ``UCGABAR_ARV``,
``mbarrier.arrive`` ``SYNCS.ARRIVE.TRANS64...``)."""
_FENCE = "FENCE.VIEW.ASYNC.T"


def judged(
    findings: Sequence[Finding], pairs: dict[str, dict[int, list[int]]], code: dict[str, Code],
    function_of: dict[int, str],
) -> list[Finding]:  # fmt: skip
    """``findings`` with each ``wait-ld`` warning judged: ``pairs`` is function -> PTX line -> the code
    addresses of its SASS instructions, ``code`` the SASS functions, ``function_of`` a tcgen05 PTX line ->
    its function."""
    out = []
    for f in findings:
        h = f.hazard
        if f.rule != "wait-ld" or f.severity != "warning" or h is None:
            out.append(f)
            continue
        fn = function_of.get(h.source)
        found = code.get(fn) if fn is not None else None
        lines = pairs.get(fn, {}) if fn is not None else {}
        status, why = _verdict(h, found, lines)
        severity = "note" if status == "ordered" else f.severity
        out.append(Finding(f.line, severity, f.rule, f"{f.message}; {why}", h))
    return out


def _verdict(h: Any, code: Code | None, lines: dict[int, list[int]]) -> tuple[str, str]:
    if code is None:
        return "unclear", "the SASS given has no function of this line, so it cannot say more"
    starts = [a for a in lines.get(h.source, ()) if a in code.at]
    if h.kind == "st":
        return _store(h, code, starts, lines)
    loads = [a for a in starts if code.items[code.at[a]].opcode.startswith("LDTM")]
    boards = [(a, code.items[code.at[a]].write) for a in loads]
    boards = [(a, b) for a, b in boards if b != NONE]
    if not boards:
        why = "no LDTM of that load" if not loads else "no LDTM of that load sets a scoreboard"
        return "unclear", f"the SASS given cannot say more ({why})"
    goal = _goal(h, lines, code)
    if goal is None:
        return "unclear", f"the SASS given cannot say more (no instruction of line {h.line} in it)"
    for a, board in boards:
        reached = code.reached(a, goal, lambda it, b=board: bool(it.wait >> b & 1))
        if reached is not None:
            return "confirmed", (
                f"the SASS given confirms it: from the LDTM at /*{a:04x}*/ a path reaches the "
                f"{reached.opcode} at /*{reached.address:04x}*/ with nothing waiting on its scoreboard "
                f"SB{board}"
            )
    a, board = boards[0]
    return "ordered", (
        f"the SASS given orders it on this build (every path from the LDTM at /*{a:04x}*/ waits on its "
        f"scoreboard SB{board} first), which the PTX does not ask for"
    )


def _store(h: Any, code: Code, starts: list[int], lines: dict[int, list[int]]) -> tuple[str, str]:
    stores = [a for a in starts if code.items[code.at[a]].opcode.startswith("STTM")]
    targets = set(lines.get(h.line, ()))
    if not stores or not targets:
        return (
            "unclear",
            "the SASS given cannot say more (no STTM of that store, or no instruction of this line)",
        )

    def fence(it: Instruction) -> bool:
        return it.opcode.startswith(_FENCE) and not it.guarded

    for a in stores:
        reached = code.reached(a, lambda it: it.address in targets, fence)
        if reached is not None:
            return "confirmed", (
                f"the SASS given confirms it: from the STTM at /*{a:04x}*/ a path reaches the "
                f"{reached.opcode} at /*{reached.address:04x}*/ with no {_FENCE} (tcgen05.wait::st) between"
            )
    return "ordered", (
        f"the SASS given orders it on this build (every path from the STTM at /*{stores[0]:04x}*/ passes a "
        f"{_FENCE}), which the PTX does not ask for"
    )


def _goal(h: Any, lines: dict[int, list[int]], code: Code) -> Callable[[Instruction], bool] | None:
    """What the flagged instruction is in the SASS: its paired instructions (a tcgen05 one), else any
    instruction of the opcodes its release becomes."""
    what = str(h.what)
    if what.startswith("tcgen05."):
        targets = {a for a in lines.get(h.line, ()) if a in code.at}
        return (lambda it: it.address in targets) if targets else None
    for ptx, sass in sorted(RELEASES.items(), key=lambda kv: -len(kv[0])):
        if what == ptx or what.startswith(ptx + "."):
            return lambda it, s=sass: it.opcode.startswith(s)
    return None


def paired_lines(pairing: dict[str, Any]) -> dict[str, dict[int, list[int]]]:
    """Function -> PTX line -> the code addresses of the SASS instructions paired with it."""
    out: dict[str, dict[int, list[int]]] = {}
    for p in pairing["pairs"]:
        # A SASS record names its instruction by code address ("0x0f30"); one printed without (a
        # listing's line number) cannot be found in the code.
        addresses = [int(a, 16) for a in p["sass"] if isinstance(a, str) and a.startswith("0x")]
        out.setdefault(p["function"], {}).setdefault(p["ptx_line"], []).extend(addresses)
    return out


def wanted(findings: Iterable[Finding], function_of: dict[int, str]) -> set[str]:
    """The functions whose SASS the judgment needs."""
    return {
        function_of[f.hazard.source]
        for f in findings
        if f.rule == "wait-ld" and f.severity == "warning" and f.hazard is not None
        and f.hazard.source in function_of
    }  # fmt: skip
