"""The tcgen05 statements answered in a sentence: alloc, dealloc, relinquish_alloc_permit, wait, shift,
commit, fence. Each takes (explainer, parsed line, lowercased qualifiers, the constant value of the one
register it reads, module, line number) and returns the op's fields; problems are warnings on the module.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.explain import answers
from tmemviz.families.explain.scan import Module, Warning
from tmemviz.ptx.line import PtxLine


def alloc(ex: Any, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
    op = tokens[1]
    out: dict[str, Any] = {"op": op}
    if op == "relinquish_alloc_permit":
        out["summary"] = "gives up this CTA's right to allocate Tensor Memory again (PTX ISA, tcgen05.alloc)"
        return out
    columns = None
    # nCols: an immediate, or a register the function set to one constant (``value``)
    if line.operands and value is not None and len(value) == 1 and value[0].exact:
        columns = value[0].value & 0xFFFFFFFF
    out["columns"] = columns
    if op == "alloc" and line.operands:
        out["destination"] = line.operands[0]
    elif line.operands:
        out["taddr"] = line.operands[0]
    if columns is not None and (columns < 32 or columns > 512 or columns & (columns - 1)):
        module.warnings.append(
            Warning(
                n,
                f"tcgen05.{op} of {columns} columns: nCols must be a power of 2 from 32 to 512 "
                "(PTX ISA, tcgen05.alloc)",
            )
        )
    out["summary"] = answers.alloc_summary(op, columns, out.get("destination") or out.get("taddr"))
    return out


def wait(ex: Any, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
    what = tokens[1]
    target = "tcgen05.ld" if what == "wait::ld" else "tcgen05.st"
    return {
        "op": what,
        "summary": f"waits until every prior {target} of this thread has completed (PTX 9.7.16.8.5)",
    }


def shift(ex: Any, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
    """tcgen05.shift, answered by the shift family (its notes say where the PTX text is silent)."""
    from tmemviz.families.shift.answers import summary
    from tmemviz.families.shift.spelling import resolve_shift

    shift = resolve_shift(ex.catalog, line.text)
    first, last = shift.lanes
    step = shift.shape.step
    address = line.address()
    lane = shift.address.offset[0]
    if lane % shift.shape.lane_alignment:
        module.warnings.append(
            Warning(
                n, f"tcgen05.shift's taddr lane must be aligned to {shift.shape.lane_alignment}, got +{lane}"
            )
        )
    return {
        "op": "shift",
        "base": address.base if address else None,
        "rows": {
            "from_lanes": [first, first + shift.shape.rows - 1],
            "to_lanes": [first + step, last],
            "cols": list(shift.columns),
        },
        "summary": summary(shift) + (f" relative to {address.base}" if address and address.base else ""),
    }


def commit(ex: Any, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
    address = line.address()
    multicast = any(t.startswith("multicast") for t in tokens)
    summary = (
        f"makes the mbarrier at [{address.base if address else '?'}] track completion of this thread's "
        "prior async tcgen05 operations (mma, cp, shift)" + (" in every CTA of the mask" if multicast else "")
    )
    return {"op": "commit", "mbarrier": line.operands[0] if line.operands else None, "multicast": multicast,
            "summary": summary + " (PTX ISA, tcgen05.commit)"}  # fmt: skip


def fence(ex: Any, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
    kind = tokens[1]
    order = "before" if "before" in kind else "after"
    return {
        "op": kind,
        "summary": f"orders prior tcgen05 operations {order} a thread synchronization (PTX, tcgen05.fence)",
    }
