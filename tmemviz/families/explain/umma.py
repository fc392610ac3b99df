"""UTCHMMA / UTCQMMA / UTCIMMA / UTCOMMA as the tcgen05.mma they implement, and explain's own table.

Operand order (layouts/mma/sass.yaml): A (gdesc or tmem), B gdesc, D tmem, sparsity metadata tmem,
idesc, [block scaling: one tmem naming the scale-A, scale-B register pair], enable-input-d. The .kind
is the opcode's when it implements one; otherwise the idesc constant (a UMOV into its register earlier
in the function) decides among the opcode's kinds, and where nothing decides the record says so.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.sass_fields import CTA_PAIR
from tmemviz.families.explain.scan import Module
from tmemviz.sass.line import SassLine, bracket, parse_tmem

_UR = re.compile(r"^UR(\d+)$")
_PREDICATE = re.compile(r"^!?U?P(?:T|\d+)$")
EXPLAIN_OPS = ("alloc", "dealloc", "commit", "relinquish_alloc_permit", "wait::ld", "wait::st",
               "fence::before_thread_sync", "fence::after_thread_sync")  # fmt: skip


def mma(ops: Any, line: int, sass: SassLine, state: Any, module: Module) -> dict[str, Any]:
    from tmemviz.families.mma.idesc import decode
    from tmemviz.families.mma.shapes import mma_sass

    table = mma_sass()
    mods = list(sass.modifiers)
    group = 2 if CTA_PAIR in mods else 1
    ws = "WS" in mods
    four = "4X" in mods
    unknown_mods = [m for m in mods if m not in (CTA_PAIR, "WS", "4X")]
    if unknown_mods:
        raise TmemvizError(f"modifier(s) {', '.join(unknown_mods)} are not in layouts/mma/sass.yaml")
    operands = list(sass.operands)
    idesc_at = next((i for i, o in enumerate(operands) if o.startswith("idesc[")), None)
    if idesc_at is None or idesc_at < 4:
        raise TmemvizError("expected A, B, D, metadata and idesc[..] operands")
    (a, a_words), (b, b_words) = _words(operands[0]), _words(operands[1])
    d, meta = operands[2:4]
    collector = [c for c in (table.collector_of("A", a_words), table.collector_of("B", b_words)) if c]
    after = operands[idesc_at + 1 :]
    scale = next((o for o in after if o.startswith("tmem[")), None)
    enable = after[-1] if after and _PREDICATE.match(after[-1]) else None
    # The disable-output-lane vector: the first uniform register of its 4 (cta_group::1) or 8 (::2).
    lanes = next((o for o in after if _UR.match(o)), None)
    kinds = table.kinds(sass.opcode, scale is not None)
    if four:
        kinds = tuple(k for k in kinds if k == "mxf4nvf4")
    if not kinds:
        raise TmemvizError(f"{sass.opcode} {'with' if scale else 'without'} a scale operand is no known form")
    idesc = bracket(operands[idesc_at])
    register = idesc[1] if idesc else operands[idesc_at]
    known = state.fn.constants.get(register)  # a UMOV constant (machine.py), one exact value
    value = known[0].value & 0xFFFFFFFF if known and len(known) == 1 and known[0].exact else None
    sparse: bool | None = None
    chosen = kinds
    if value is not None:
        sparse = bool(value >> 2 & 1)  # idesc bit 2: sparsity (PTX 9.7.16.10.2 instruction descriptor)
        fitting = tuple(k for k in kinds if not decode(value, k).problems)
        chosen = fitting or kinds
    kind = chosen[0]
    q = "tcgen05.mma" + (".ws" if ws else "") + (".sp" if sparse else "")
    q += f".cta_group::{group}.kind::{kind}"
    if scale is not None:
        q += ".block_scale" + (".block16" if four else "")
    q += "".join(f".{c}" for c in collector)
    args = [_tmem(d), _tmem(a) if a.startswith("tmem[") else _plain(a), _plain(b)]
    if sparse:
        args.append(_tmem(meta))
    args.append(register)
    if scale is not None:
        first = parse_tmem(scale)
        m = _UR.match(first[0] or "") if first else None
        if not m:
            raise TmemvizError(f"expected the scale operand tmem[UR<n>], got {scale}")
        args += [f"[UR{m.group(1)}]", f"[UR{int(m.group(1)) + 1}]"]
    if lanes is not None:
        first_lane = int(lanes[2:])
        args.append("{" + ", ".join(f"UR{first_lane + k}" for k in range(4 * group)) + "}")
    if enable:
        args.append(enable)
    record = ops.as_ptx(line, f"{q} {', '.join(args)};", state, module)
    if "error" in record or "summary" not in record:
        return record  # the explainer warned, as for PTX
    if len(chosen) > 1:
        record["kind"] = " or ".join(chosen)
        record["summary"] = (
            f"{sass.opcode} implements kind::{' or kind::'.join(chosen)}; the idesc "
            f"({register}) {'is not a constant moved in this function' if value is None else 'fits each'}, "
            f"so shown as kind::{kind}: " + record["summary"]
        )
    if sparse is None:
        record["sparse"] = None
        record["summary"] += "; dense or .sp is not in the SASS instruction (idesc bit 2 decides)"
    return record


def _words(operand: str) -> tuple[str, tuple[str, ...]]:
    """``gdesc[UR6].B_REUSE.BUFFER1`` -> ("gdesc[UR6]", ("B_REUSE", "BUFFER1")): collector words apart.

    >>> _words("tmem[UR6].A_KEEP"), _words("gdesc[UR4]")
    (('tmem[UR6]', ('A_KEEP',)), ('gdesc[UR4]', ()))
    """
    head, _, tail = operand.partition("]")
    return head + "]", tuple(w for w in tail.split(".") if w)


def _tmem(operand: str) -> str:
    found = parse_tmem(operand)
    if found is None:
        raise TmemvizError(f"expected tmem[..], got {operand}")
    base, imm = found
    return f"[{base or 0}{f' + {imm}' if imm and base else ''}]"


def _plain(operand: str) -> str:
    found = bracket(operand)
    return found[1] if found else operand


@lru_cache(maxsize=1)
def explain_table() -> dict[str, dict[str, Any]]:
    """layouts/explain/sass.yaml, validated: op -> {sass, cta_group_2, multicast} or {none}."""
    from tmemviz.files import builtin_dir, check_fields, read_yaml
    from tmemviz.sass.names import spelling, word

    path = builtin_dir() / "explain" / "sass.yaml"
    source = str(path)
    doc = read_yaml(path)
    check_fields(doc, source, {"tools": dict, "ops": dict}, ("ops",), "fields at the top level")
    out: dict[str, dict[str, Any]] = {}
    for op, entry in doc["ops"].items():
        where = f"{source}: field 'ops.{op}'"
        if op not in EXPLAIN_OPS:
            raise TmemvizError(f"{where}: not one of {', '.join(EXPLAIN_OPS)}")
        check_fields(entry, where, {"sass": str, "cta_group_2": object, "multicast": str, "none": str}, ())
        if ("sass" in entry) == ("none" in entry):
            raise TmemvizError(f"{where}: give either sass (its spelling) or none (why there is none)")
        if "sass" in entry:
            entry = {**entry, "sass": spelling(entry["sass"], source, f"ops.{op}.sass")}
            if entry.get("cta_group_2") is not None:
                word(entry["cta_group_2"], source, f"ops.{op}.cta_group_2")
        out[op] = entry
    missing = [op for op in ("alloc", "dealloc", "commit") if op not in out]
    if missing:
        raise TmemvizError(f"{source}: field 'ops': {', '.join(missing)} missing")
    return out
