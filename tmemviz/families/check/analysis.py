"""The rules of :mod:`tmemviz.families.check.rules` applied to one scanned module.

Input: the explain scanner's module (its target, instruction records and warnings) and the
allocation tracker's kernels, from one read of the file. Every finding rests on what was proved; where
the analysis cannot know (a register column count, a base it cannot follow, a called function that
may free), it says nothing or a note, never a guess.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tmemviz.families.check.findings import Finding, ordered
from tmemviz.families.explain.addresses import Tmem, trusted
from tmemviz.families.explain.allocation import Kernel, Statement
from tmemviz.families.explain.regions import Region, place
from tmemviz.families.explain.scan import hazard_message
from tmemviz.ptx.targets import devices, runs_ld_red, runs_tcgen05
from tmemviz.tmem import TMEM_COLUMNS
from tmemviz.values import plural

ACCESSES = ("ld", "st", "cp", "mma", "shift")


def check_module(
    module: Any, kernels: Sequence[Kernel], hazards: Sequence[Any] = (), catalog: Any = None
) -> tuple[list[Finding], dict[str, list[Region]]]:
    """Every finding of one module, in line order, and each kernel's placed regions (for the map).

    ``hazards`` are the shared reader's (:class:`tmemviz.ptx.stream.Hazard`): its rule, as ``wait-ld``.
    """
    findings = list(_target(module))
    findings += [Finding(h.line, "warning", "wait-ld", hazard_message(h)) for h in hazards]
    by_function: dict[Any, list[Mapping[str, Any]]] = defaultdict(list)
    for record in module.instructions:
        by_function[record.get("function")].append(record)
    regions: dict[str, list[Region]] = {}
    by_name = {k.name: k for k in kernels}
    for kernel in kernels:
        placed = place(kernel, by_function.get(kernel.name, []), catalog)
        regions[kernel.name or f"line {kernel.line}"] = placed
        findings += _columns(kernel)
        findings += _outside(kernel, placed)
        findings += _lifetime(kernel, by_name)
        findings += _cta_group(kernel)
    return ordered(findings), regions


def _target(module: Any) -> Iterable[Finding]:
    records = module.instructions
    if not records:
        return
    target = module.target
    first = records[0]["line"]
    if not runs_tcgen05(target):
        yield Finding(
            first, "error", "target",
            f"tcgen05 in a module whose .target is {target or 'missing'}, which has no Tensor Memory: build "
            "for sm_100a/sm_100f, sm_103a/sm_103f or sm_110a/sm_110f (on sm_120/121 such kernels are "
            "compiled to nothing or rejected)",
        )  # fmt: skip
        return
    for record in records:
        if record.get("op") == "ld.red" and not runs_ld_red(target):
            yield Finding(
                record["line"], "error", "target",
                "tcgen05.ld.red needs .target sm_103a/sm_110a or the sm_103f/sm_110f families, but this "
                f"module targets {target} (PTX 9.7.16.8.3)",
            )  # fmt: skip
    yield Finding(first, "note", "target", f".target {target}: the module runs on {devices(str(target))}")


def _columns(kernel: Kernel) -> Iterable[Finding]:
    held: list[Statement] = []
    """Allocs of the current straight-line block not yet followed by a dealloc."""
    peak = total = 0
    counted = True
    for statement in kernel.statements:
        if statement.op not in ("alloc", "dealloc"):
            continue
        count = statement.columns
        if count is None:
            counted = False
            yield Finding(statement.line, "note", "alloc-columns",
                          f"tcgen05.{statement.op} takes nCols from a register: not checked")  # fmt: skip
            continue
        if count < 32 or count > TMEM_COLUMNS or count & (count - 1):
            counted = False
            yield Finding(
                statement.line, "error", "alloc-columns",
                f"tcgen05.{statement.op} of {count} columns: nCols must be a power of 2 from 32 to 512",
            )  # fmt: skip
            continue
        if statement.op == "dealloc":
            held, total = [], max(0, total - count)
            continue
        held = [s for s in held if s.block == statement.block]
        if held and sum(s.columns or 0 for s in held) + count > TMEM_COLUMNS:
            yield Finding(
                statement.line, "error", "alloc-columns",
                f"tcgen05.alloc of {count} columns while the allocs on line(s) "
                f"{', '.join(str(s.line) for s in held)} still hold {sum(s.columns or 0 for s in held)}: "
                f"more than the SM's {TMEM_COLUMNS}, so this alloc waits forever for its own CTA",
            )  # fmt: skip
        held.append(statement)
        total += count
        peak = max(peak, total)
    allocs = [s for s in kernel.statements if s.op == "alloc"]
    if allocs and counted and peak:
        fit = TMEM_COLUMNS // peak if peak <= TMEM_COLUMNS else 0
        yield Finding(
            allocs[0].line, "note", "alloc-columns",
            f"{short(kernel.name)} holds up to {peak} of the SM's {TMEM_COLUMNS} Tensor Memory columns "
            f"per CTA: {fit} such CTA{'s' if fit != 1 else ''} can hold Tensor Memory on one SM at once; "
            "more wait in tcgen05.alloc",
        )  # fmt: skip


def _outside(kernel: Kernel, regions: Sequence[Region]) -> Iterable[Finding]:
    for r in regions:
        if not r.outside:
            continue
        alloc = kernel.allocs[r.alloc]
        has = f"{alloc.columns} columns" if alloc.columns is not None else "its columns"
        what = f" ({r.what})" if r.what not in ("cells", "rows") else ""
        if r.exact:
            where = f"touches lanes {r.lanes[0]}..{r.lanes[1]}, columns {r.cols[0]}..{r.cols[1]}"
        else:
            where = f"reaches lane {r.reach[0]}, column {r.reach[1]} at least, whatever its offset,"
        yield Finding(
            r.line, "error", "outside-allocation",
            f"tcgen05.{r.op}{what} {where} from the base allocated on line {alloc.line}, which has 128 "
            f"lanes and {has}",
        )  # fmt: skip


def _tmem(statement: Statement, kernel: Kernel, register: str | None = None) -> Tmem | None:
    """The alloc base (+ offsets) a statement addresses, when proved, with ``alloc`` its alloc's index;
    the first such register by default."""
    for name, value in statement.registers.items():
        if register is not None and name != register:
            continue
        if isinstance(value, Tmem) and trusted(value.deps, kernel.definitions):
            alloc = kernel.resolve(value.alloc)
            if alloc is not None:
                return Tmem(alloc.index, value.lanes, value.cols, value.deps)
    return None


RUNTIME = frozenset(("vprintf", "__assertfail", "malloc", "free"))
"""Device-runtime functions a kernel may call that touch no Tensor Memory (libdevice's ``__nv_*`` too)."""


def may_do(
    kernel: Kernel, kernels: Mapping[str | None, Kernel], op: str, seen: frozenset[str] = frozenset()
) -> bool:
    """Whether a function this kernel calls may ``op`` (alloc, dealloc) Tensor Memory: one of this
    module that does (or calls one that does), or one defined elsewhere that is not a device-runtime
    function."""
    for name in kernel.callees:
        if name in RUNTIME or name.startswith("__nv_") or name in seen:
            continue
        callee = kernels.get(name)
        if callee is None:
            return True
        if any(s.op == op for s in callee.statements) or may_do(callee, kernels, op, seen | {name}):
            return True
    return False


def _lifetime(kernel: Kernel, kernels: Mapping[str | None, Kernel]) -> Iterable[Finding]:
    deallocs = [s for s in kernel.statements if s.op == "dealloc"]
    if kernel.entry and kernel.allocs and not deallocs and not may_do(kernel, kernels, "dealloc"):
        first = kernel.allocs[0]
        yield Finding(
            first.line, "warning", "never-freed",
            f"{short(kernel.name)} allocates Tensor Memory here but has no tcgen05.dealloc before it "
            "returns: the columns stay taken after the CTA exits",
        )  # fmt: skip
    counts = {a.columns for a in kernel.allocs}
    freed: dict[int, Statement] = {}
    alone = kernel.entry and not may_do(kernel, kernels, "alloc")
    """Every allocation the CTA can hold is one of this kernel's own allocs."""
    sole = alone and len(kernel.allocs) == 1
    last: Statement | None = None
    for s in kernel.statements:
        if s.op == "alloc":
            last = None
        if s.op == "dealloc":
            last = s
            value = _tmem(s, kernel, s.operands[0]) if s.operands else None
            if value is not None:
                alloc = kernel.allocs[value.alloc]
                if alloc.columns is not None and s.columns is not None and s.columns != alloc.columns:
                    yield _mismatch(s, alloc.columns, f"the alloc on line {alloc.line}")
                freed[value.alloc] = s
            elif (alone and s.columns is not None and len(counts) == 1
                  and None not in counts and s.columns not in counts):  # fmt: skip
                (only,) = counts
                yield _mismatch(s, only, "every alloc of this kernel")
            continue
        if s.op not in ACCESSES:
            continue
        value = _tmem(s, kernel)
        if value is not None and value.alloc in freed:
            gone: Statement | None = freed[value.alloc]
        else:
            # The kernel's only allocation (all it can own: an entry that calls nothing) is freed: any
            # access after it on the same path uses Tensor Memory the CTA no longer holds.
            gone = last if sole and last is not None and value is None else None
        if gone is not None and gone.block == s.block:
            yield Finding(
                s.line, "error", "use-after-dealloc",
                f"tcgen05.{s.op} uses the Tensor Memory freed on line {gone.line} by tcgen05.dealloc, on the "
                "same straight-line path",
            )  # fmt: skip


def short(name: str | None) -> str:
    """A kernel's name as a message quotes it: CuTe DSL names run to hundreds of characters.

    >>> short("k"), len(short("x" * 300))
    ('k', 40)
    """
    text = name or "this function"
    return text if len(text) <= 40 else text[:37] + "..."


def _mismatch(s: Statement, allocated: int, which: str) -> Finding:
    return Finding(
        s.line, "warning", "dealloc-mismatch",
        f"tcgen05.dealloc frees {s.columns} columns, but {which} allocated {allocated}",
    )  # fmt: skip


def _cta_group(kernel: Kernel) -> Iterable[Finding]:
    groups = [(s, 2 if "cta_group::2" in s.text else 1) for s in kernel.statements if "cta_group::" in s.text]
    counts = Counter(g for _, g in groups)
    if len(counts) < 2:
        return
    usual = max(counts, key=lambda g: (counts[g], -min(s.line for s, x in groups if x == g)))
    first = next(s for s, g in groups if g == usual)
    for s, g in groups:
        if g != usual:
            yield Finding(
                s.line, "error", "cta-group-mixed",
                f".cta_group::{g} here, but {plural(counts[usual], 'other tcgen05 instruction')} of "
                f"{short(kernel.name)} use .cta_group::{usual} (first on line {first.line}): all of a "
                "kernel's must agree (PTX 9.7.16.9.3)",
            )  # fmt: skip
