"""The rules of :mod:`tmemviz.families.check.rules` applied to one PTX module, a function at a time.

Input: each function as the shared reader gave it (:class:`~tmemviz.ptx.body.Body`, its tcgen05
instructions with their explain records). A function that uses Tensor Memory is run by the data-flow
analysis (:mod:`tmemviz.families.explain.follow.kernel`) and judged by each rule's module; what needs
the whole module (which function may allocate or free, for a kernel that calls others) is decided at its
end.
Every finding rests on what was proved; where the analysis cannot know it says nothing or a note.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.check.arrivals import arrive_findings
from tmemviz.families.check.bands import band_findings
from tmemviz.families.check.budget import Peak, peaks, register_findings
from tmemviz.families.check.findings import Finding, ordered
from tmemviz.families.check.groups import Groups
from tmemviz.families.check.hazards import hazard_findings
from tmemviz.families.check.legality import operand_findings
from tmemviz.families.check.lifetimes import lifetime_findings
from tmemviz.families.check.overlap import overlap_findings
from tmemviz.families.check.protocol import calls, no_alloc_findings, pair_findings, relinquish_findings
from tmemviz.families.check.reach import outside_findings
from tmemviz.families.explain.budget import Budget, budget
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.ptx.body import Body
from tmemviz.ptx.line import parse_statement
from tmemviz.ptx.targets import TCGEN05, capacity, devices, runs_tcgen05, unsupported
from tmemviz.tmem import TMEM_COLUMNS


@dataclass
class Checker:
    """Judges each function the follower hands over (:meth:`function`); :meth:`finish` gives the module's
    findings, ``never-freed`` ones kept until the module says whether a callee may free."""

    follower: Any = None
    findings: list[Finding] = field(default_factory=list)
    leaks: list[tuple[set[str], list[Finding]]] = field(default_factory=list)
    groups: Groups = field(default_factory=Groups)
    peaks: list[Peak] = field(default_factory=list)
    pending: list[tuple[set[str], str, list[Finding]]] = field(default_factory=list)
    """Findings that hold unless a callee may do it (``no-alloc``: allocate; ``relinquish``: anything)."""
    texts: dict[int, str] = field(default_factory=dict)
    """Line -> the statement a finding is reported on (what a baseline's fingerprint rests on)."""
    budgets: dict[str, Budget] = field(default_factory=dict)
    """Each kernel's Tensor Memory budget (by name, or ``line N``), what the TMEM map draws."""

    def function(self, body: Body, a: Analysed | None, callees: set[str]) -> None:
        """One function read (the follower's ``each``): its analysis, and the names it calls."""
        texts = [(i.line, i.text) for i in body.instructions if i.head == "tcgen05"]
        self.groups.function(body.name, body.entry, texts, callees)
        if a is None:
            return
        if a.unconverged:
            message = f"{_short(body.name)} is too large for the analysis: not judged"
            self.findings.append(Finding(body.line, "note", "alloc-columns", message))
            return
        held = budget(a)
        if held is not None:
            self.budgets[body.name or f"line {body.line}"] = held
        found = [
            *lifetime_findings(a, TMEM_COLUMNS), *outside_findings(a), *hazard_findings(a), *_budget(a, held),
            *pair_findings(a), *register_findings(a), *arrive_findings(a), *overlap_findings(a),
            *band_findings(a), *_lists_not_found(body),
        ]  # fmt: skip
        new = peaks(a)
        self.peaks += new
        later = [(callees, "alloc", no_alloc_findings(a)), (callees, "any", relinquish_findings(a))]
        self.pending += later
        leaks = []
        for f in strongest(found):
            (leaks if f.rule == "never-freed" else self.findings).append(f)
        if leaks:
            self.leaks.append((callees, leaks))
        lines = {f.line for f in found} | {p.line for p in new} | {f.line for _, _, fs in later for f in fs}
        for ins in body.instructions:
            if ins.line in lines:
                self.texts.setdefault(ins.line, ins.text)

    def finish(self, module: Any) -> list[Finding]:
        out = list(self.findings) + list(_target(module)) + list(self.groups.findings())
        out += operand_findings(module.instructions)
        limit = capacity(module.target)
        out += strongest(f for f in (p.finding(limit, module.target) for p in self.peaks) if f is not None)
        for callees, needs, found in self.pending:
            if found and not (self.follower.may(callees, "alloc") or (needs == "any" and calls(callees))):
                out += found
        for callees, leaks in self.leaks:
            if not self.follower.may(callees, "dealloc"):
                out += leaks
        return ordered(out)


def _lists_not_found(body: Body) -> Iterator[Finding]:
    """A ``brx.idx`` whose ``.branchtargets`` list (or one of its labels) is not in the function: the
    control-flow graph has no edge out of it, so what only it reaches is judged by no rule."""
    for ins in body.instructions:
        if ins.head == "brx" and body.indexed(ins) is None:
            yield Finding(
                ins.line, "note", "unreadable",
                f"the target list of {ins.text} is not found in the function (a .branchtargets list "
                "of its labels), so the code only this branch reaches is not checked",
            )  # fmt: skip


def strongest(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per line and rule, the most severe (the first of those): warps and stages that fail
    the same way say it once.

    >>> found = [Finding(3, "note", "wait-ld", "a"), Finding(3, "warning", "wait-ld", "b")]
    >>> [f.severity for f in strongest(found)]
    ['warning']
    """
    rank = {"error": 0, "warning": 1, "note": 2}
    best: dict[tuple[int, str], Finding] = {}
    for f in findings:
        key = (f.line, f.rule)
        if f.rule == "alloc-columns" and f.severity == "note":
            key = (f.line, f.rule + f.message[:12])  # the budget and a register's nCols: both kept
        if key not in best or rank[f.severity] < rank[best[key].severity]:
            best[key] = f
    return list(best.values())


def _short(name: str | None) -> str:
    text = name or "this function"
    return text if len(text) <= 40 else text[:37] + "..."


def _budget(a: Any, found: Budget | None) -> Iterable[Finding]:
    """The per-SM budget note: the most columns the kernel's allocations hold at once (at an alloc, its
    own columns and those of every allocation held there on every path: :mod:`tmemviz.families.explain.
    budget`, what the TMEM map draws)."""
    if found is None or found.peak is None or not found.peak.total:
        return
    peak = found.peak.total
    fit = TMEM_COLUMNS // peak if peak <= TMEM_COLUMNS else 0
    yield Finding(
        found.first, "note", "alloc-columns",
        f"{_short(a.body.name)} holds up to {peak} of the SM's {TMEM_COLUMNS} Tensor Memory columns per CTA: "
        f"{fit} such CTA{'s' if fit != 1 else ''} can hold Tensor Memory on one SM at once; more wait in "
        "tcgen05.alloc",
    )  # fmt: skip


def _target(module: Any) -> Iterable[Finding]:
    """The ``target`` rule: tcgen05 under a target without Tensor Memory, and each statement using a
    feature its target does not run (the one table of :mod:`tmemviz.ptx.targets`)."""
    records = module.instructions
    if not records:
        return
    target = module.target
    first = records[0]["line"]
    if not runs_tcgen05(target):
        yield Finding(
            first, "error", "target",
            f"tcgen05 in a module whose .target is {target or 'missing'}, which has no Tensor Memory: build "
            f"for {TCGEN05.targets()} (on sm_120/121 such kernels are compiled to nothing or rejected)",
        )  # fmt: skip
        return
    for record in records:
        try:
            line = parse_statement(str(record.get("ptx", "")).rstrip(";"))
        except TmemvizError:
            continue
        for feature in unsupported(target, line.opcode, line.operands):
            yield Finding(
                record["line"], "error", "target",
                f"{feature.name} does not run on .target {target}: it needs {feature.targets()} "
                f"({feature.source}); ptxas refuses it",
            )  # fmt: skip
    yield Finding(first, "note", "target", f".target {target}: the module runs on {devices(str(target))}")
