"""The ``operand-range`` rule: operand values ptxas accepts but the hardware does not run.

ptxas checks no operand's value (shared/spec ordering-facts §3, observed with ptxas 13): two such values
became run-time faults in Triton.

* An MMA whose instruction descriptor (known from the kernel's constants, as ``explain`` decodes it)
  gives an M or N the PTX ISA's table has no data-path layout for (PTX 9.7.16.10.1 and 9.7.16.10.5; the
  table is the datapath family's, :func:`tmemviz.families.explain.answers.datapath`): triton PR #8910, an
  N past 256 was an illegal instruction at run time.
* A ``tcgen05.st.16x32bx2 ... .unpack::16b`` whose second-half offset (immHalfSplitoff) is odd: each
  register fills two columns, so one of the halves starts on an odd column and the store faults with a
  misaligned address (triton PR #10321: offset 1 faults, 2 runs; the PTX ISA states no alignment here).
  The packed load (``.pack::16b``) is the same shape read back; no report says it faults, so it is not
  judged.

Reads the explain records of the module's tcgen05 instructions. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import Finding
from tmemviz.ptx.line import parse_statement

TABLED = frozenset(("f16", "tf32", "f8f6f4"))
"""Kinds whose legal N per M the data-path table holds as the PTX ISA's (mma-facts, CUTLASS agrees); for
the others only N in 8..256 and an M with a layout are judged."""


def operand_findings(records: Iterable[dict[str, Any]]) -> Iterable[Finding]:
    for record in records:
        if record.get("op") == "mma":
            yield from _mma(record)
        elif record.get("op") == "st":
            yield from _split(record)


def _mma(record: dict[str, Any]) -> Iterable[Finding]:
    from tmemviz.families.explain.answers import datapath

    idesc = record.get("idesc") or {}
    m, n = idesc.get("m"), idesc.get("n")
    if "value" not in idesc or not isinstance(m, int) or not isinstance(n, int):
        return  # not one known constant: nothing is claimed
    cta_group = int(record.get("cta_group") or 1)
    layout, problem = datapath(m, n, cta_group, bool(record.get("sparse")), bool(record.get("ws")))
    if problem is None:
        return
    if layout is not None and record.get("kind") not in TABLED and 8 <= n <= 256:
        return  # the N steps of this kind are not in the table read: only the bounds are claimed
    yield Finding(
        record["line"], "error", "operand-range",
        f"idesc {record.get('idesc_operand')} = {idesc.get('hex')} gives M={m}, N={n}: {problem} (PTX "
        "9.7.16.10.1); ptxas accepts it, the MMA is an illegal instruction at run time (triton PR #8910); "
        "use a legal N, or several MMAs side by side",
    )  # fmt: skip


def _split(record: dict[str, Any]) -> Iterable[Finding]:
    text = str(record.get("ptx", ""))
    if ".16x32bx2" not in text or ".unpack::16b" not in text:
        return
    try:
        operands = parse_statement(text.rstrip(";")).operands
    except TmemvizError:
        return
    offset = operands[1].strip() if len(operands) > 2 else ""
    if not offset.isdigit() or int(offset) % 2 == 0:
        return
    yield Finding(
        record["line"], "error", "operand-range",
        f"tcgen05.st .16x32bx2 .unpack::16b with second-half offset {offset}: each register fills two "
        "columns, so a half starts on an odd column and the store faults with a misaligned address "
        f"(triton PR #10321: offset 1 faults, 2 runs); use an even offset ({int(offset) + 1}, with the "
        "columns allocated for it)",
    )  # fmt: skip
