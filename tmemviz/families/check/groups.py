"""The ``cta-group-mixed`` rule over a whole kernel: its own tcgen05 instructions and those of every
function it calls, however deep.

PTX 9.7.16.9.3 (and the tcgen05 text since PTX ISA 9.0): all tcgen05 instructions of a kernel must
specify the same ``.cta_group``. ptxas 13 enforces it per kernel, callees included ("Function 'k' uses
single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that is not allowed"); two kernels
of one module may differ. Only instructions that carry the qualifier count (alloc, dealloc,
relinquish_alloc_permit, mma, cp, shift, commit: ptxas requires it on mma and commit); ld, st, wait and
fence take none and mix with either. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from tmemviz.families.check.findings import Finding
from tmemviz.values import plural


@dataclass
class Groups:
    """Each function's ``.cta_group`` uses (line, group) and the names it calls, as the module is read."""

    uses: dict[str | None, list[tuple[int, int]]] = field(default_factory=dict)
    calls: dict[str | None, set[str]] = field(default_factory=dict)
    entries: dict[str | None, bool] = field(default_factory=dict)

    def function(
        self, name: str | None, entry: bool, texts: Iterable[tuple[int, str]], callees: set[str]
    ) -> None:
        self.uses[name] = [(line, 2 if "cta_group::2" in t else 1) for line, t in texts if "cta_group::" in t]
        self.calls[name] = set(callees)
        self.entries[name] = entry

    def reach(self, name: str | None) -> list[str | None]:
        """``name`` and every function of the module it calls, directly or not."""
        seen: list[str | None] = [name]
        todo = list(self.calls.get(name, ()))
        while todo:
            callee = todo.pop()
            if callee in seen or callee not in self.calls:
                continue
            seen.append(callee)
            todo.extend(self.calls[callee])
        return seen

    def findings(self) -> Iterable[Finding]:
        called = {c for cs in self.calls.values() for c in cs}
        for name in self.uses:
            if not self.entries.get(name) and name in called:
                continue  # judged with each kernel that calls it
            reached = self.reach(name)
            used = [u for f in reached for u in self.uses.get(f, ())]
            yield from _mixed(name, used, len(reached) > 1)


def _mixed(name: str | None, used: list[tuple[int, int]], calls: bool) -> Iterable[Finding]:
    counts = Counter(g for _, g in used)
    if len(counts) < 2:
        return
    # The usual group: the more common one (the earlier on a tie); the others are reported.
    usual = max(counts, key=lambda g: (counts[g], -min(line for line, x in used if x == g)))
    first = min(line for line, g in used if g == usual)
    where = f"{_short(name)}{' and the functions it calls' if calls else ''}"
    for line, g in used:
        if g != usual:
            yield Finding(
                line, "error", "cta-group-mixed",
                f".cta_group::{g} here, but {plural(counts[usual], 'other tcgen05 instruction')} of {where} "
                f"use .cta_group::{usual} (first on line {first}): all of a kernel's must agree (PTX "
                f"9.7.16.9.3; ptxas refuses the kernel); write .cta_group::{usual} here, or move this "
                "instruction to a kernel of its own",
            )  # fmt: skip


def _short(name: str | None) -> str:
    text = name or "this function"
    return text if len(text) <= 40 else text[:37] + "..."
