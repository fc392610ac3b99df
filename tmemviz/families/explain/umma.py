"""UTCHMMA / UTCQMMA / UTCIMMA / UTCOMMA as the tcgen05.mma they implement, and explain's own table.

Operand order (layouts/mma/sass.yaml): A (gdesc or tmem), B gdesc, D tmem, sparsity metadata tmem,
idesc, [block scaling: one tmem naming the scale-A, scale-B register pair], [one uniform register: the
disable-output-lane vector, or with .ws the zero-column mask], enable-input-d, [scale-input-d]. The
.kind is the opcode's when it implements one; otherwise what the idesc register holds there (the flow of
uniform-register constants, :mod:`tmemviz.sass.flow`) decides among the opcode's kinds, or the PTX the
SASS was made from does (:func:`mma`'s ``given``); where nothing decides the record says so.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.scan import Module
from tmemviz.sass.facts import VARIES, under
from tmemviz.sass.line import PREDICATE, SassLine, bracket, parse_tmem

_UR = re.compile(r"^UR(\d+)$")
_IMMEDIATE = re.compile(r"^(?:0x[0-9a-fA-F]+|\d+)$")
EXPLAIN_OPS = ("alloc", "dealloc", "commit", "relinquish_alloc_permit", "wait::ld", "wait::st",
               "fence::before_thread_sync", "fence::after_thread_sync")  # fmt: skip


def mma(
    ops: Any, line: int, sass: SassLine, state: Any, module: Module, given: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The record of one UTC*MMA. ``given``: what the paired PTX line says (``kind``, ``sparse``, the idesc
    ``value`` and ``origin`` {file, line}), used where the SASS alone does not decide."""
    from tmemviz.families.mma.shapes import mma_sass

    table = mma_sass()
    meant = [table.qualifier(m) for m in sass.modifiers]
    unknown_mods = [m for m, q in zip(sass.modifiers, meant, strict=True) if q is None]
    if unknown_mods:
        raise TmemvizError(f"modifier(s) {', '.join(unknown_mods)} are not in layouts/mma/sass.yaml")
    group = 2 if ".cta_group::2" in meant else 1
    ws, block16, ashift = ".ws" in meant, ".block16" in meant, ".ashift" in meant
    operands = list(sass.operands)
    idesc_at = next((i for i, o in enumerate(operands) if o.startswith("idesc[")), None)
    if idesc_at is None or idesc_at < 4:
        raise TmemvizError("expected A, B, D, metadata and idesc[..] operands")
    (a, a_words), (b, b_words) = _words(operands[0]), _words(operands[1])
    d, meta = operands[2:4]
    collector = [c for c in (table.collector_of("A", a_words), table.collector_of("B", b_words)) if c]
    scale, vector, enable, scale_d = _after(operands[idesc_at + 1 :])
    kinds = table.kinds(sass.opcode, scale is not None)
    if block16:
        kinds = tuple(k for k in kinds if k == "mxf4nvf4")
    if not kinds:
        raise TmemvizError(f"{sass.opcode} {'with' if scale else 'without'} a scale operand is no known form")
    idesc = bracket(operands[idesc_at])
    register = idesc[1] if idesc else operands[idesc_at]
    facts = state.fn.constants.values
    # What the flow says the register holds here; under the MMA's own guard, if it says more there.
    value = under(facts, register, sass.guard)
    value = value or state.fn.constants.get(register)
    varies = value is VARIES
    if value is not None and all(b.known == 0 for b in value):
        value = None
    if given is not None:  # the PTX line this implements says the kind (and the idesc, when lent)
        value = given["value"] or value
        chosen, sparse = (given["kind"],), given["sparse"]
    else:
        chosen = (tuple(k for k in kinds if _fits(tuple(value), k)) or kinds) if value else kinds
        sparse = _sparse(value)
    if value is not None and facts.get(register) is not value:
        state.fn.constants.values = {**facts, register: value}  # what the explainer reads
    kind = chosen[0]
    q = "tcgen05.mma" + (".ws" if ws else "") + (".sp" if sparse else "")
    q += f".cta_group::{group}.kind::{kind}" + (".ashift" if ashift else "")
    if scale is not None:
        q += ".block_scale" + (".block16" if block16 else "")
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
    if vector is not None and not ws:
        first_lane = int(vector[2:])
        args.append("{" + ", ".join(f"UR{first_lane + k}" for k in range(4 * group)) + "}")
    if enable:
        args.append(enable)
    if vector is not None and ws:
        args.append(vector)  # the zero-column mask: a 64-bit descriptor, after enable-input-d in PTX
    if scale_d:
        args.append(str(scale_d))
    try:
        record = ops.as_ptx(line, f"{q} {', '.join(args)};", state, module)
    finally:
        state.fn.constants.values = facts
    if "error" in record or "summary" not in record:
        return record  # the explainer warned, as for PTX
    if len(chosen) > 1:
        record["kind"] = " or ".join(chosen)
        why = "is not known here (no constant reaches it on every path)" if value is None else "fits each"
        record["summary"] = (
            f"{sass.opcode} implements kind::{' or kind::'.join(chosen)}; the idesc ({register}) {why}, so "
            f"shown as kind::{kind}: " + record["summary"]
        )
    if varies:
        record["idesc_varies"] = True
        record["summary"] += f"; {register} changes around a loop: no fixed set of values reaches this MMA"
    if sparse is None:
        record["sparse"] = None
        record["summary"] += "; dense or .sp is not in the SASS instruction (idesc bit 2 decides)"
    if given is not None:
        origin = given["origin"]
        record["kind_from"] = origin
        what = "kind"
        if given["value"] is not None:
            record["idesc_from"] = origin
            what = "kind and idesc"
        record["summary"] += f"; {what} from PTX line {origin['line']} of {origin['file']} (not in the SASS)"
    return record


def _after(operands: list[str]) -> tuple[str | None, str | None, str | None, int | None]:
    """The operands after idesc[..]: (scale tmem[..], the uniform register of a lane vector or zero-column
    mask, the enable-input-d predicate, scale-input-d); an operand none of these is refused."""
    scale = vector = enable = None
    scale_d: int | None = None
    for o in operands:
        if o.startswith("tmem[") and scale is None and vector is None and enable is None:
            scale = o
        elif _UR.match(o) and vector is None and enable is None:
            vector = o
        elif PREDICATE.match(o) and enable is None:
            enable = o
        elif _IMMEDIATE.match(o) and enable is not None and scale_d is None:
            scale_d = int(o, 16) if o.startswith("0x") else int(o)
        else:
            raise TmemvizError(f"operand {o} after idesc[..] is in no UTC*MMA form of layouts/mma/sass.yaml")
    return scale, vector, enable, scale_d


@lru_cache(maxsize=1024)
def _fits(value: tuple[Any, ...], kind: str) -> bool:
    """Whether every value the idesc may hold decodes for ``kind`` without a problem in its known bits."""
    from tmemviz.families.explain.choices import decode_choices

    return not decode_choices(value, kind).problems


def _sparse(value: Any) -> bool | None:
    """idesc bit 2 (sparsity, PTX 9.7.16.4.2 instruction descriptor) when every value agrees on it."""
    if not value or not all(b.known >> 2 & 1 for b in value):
        return None
    bits = {b.value >> 2 & 1 for b in value}
    return bool(bits.pop()) if len(bits) == 1 else None


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
    if imm < 0:
        raise TmemvizError(f"{operand}: ptxas writes no immediate in a UTC*MMA's tmem[..] operands")
    if base is None:
        return f"[{imm}]"
    return f"[{base}{f' + {imm}' if imm else ''}]"


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
