"""Instruction-descriptor answers as records (JSON, CSV) and one line of words."""

from __future__ import annotations

from typing import Any

from tmemviz.families.mma.idesc import Idesc, layout

CSV_HEADER = ("bits", "field", "code", "meaning")


def idesc_record(found: Idesc) -> dict[str, Any]:
    """The JSON answer: value, kind, every named field's meaning, and the problems.

    >>> from tmemviz.families.mma.idesc import decode
    >>> r = idesc_record(decode(0x08200010, "f16")); r["hex"], r["m"], r["n"], r["d_type"]
    ('0x08200010', 128, 128, 'F32')
    """
    return {"value": found.value, "hex": f"0x{found.value:08x}", "kind": found.kind, **found.fields,
            "problems": list(found.problems)}  # fmt: skip


def field_records(found: Idesc) -> list[dict[str, Any]]:
    """One record per named field, in bit order: bits, field, code, meaning."""
    named, _ = layout(found.kind)
    return [
        {"bits": f.bits, "field": f.name, "code": found.codes[f.name], "meaning": found.fields[f.name]}
        for f in named
    ]


def word(meaning: object) -> str:
    """A field's meaning as the table and CSV print it: yes/no for flags, else as is."""
    if isinstance(meaning, bool):
        return "yes" if meaning else "no"
    return str(meaning)


def csv_rows(found: Idesc) -> list[tuple[object, ...]]:
    return [(r["bits"], r["field"], r["code"], word(r["meaning"])) for r in field_records(found)]


def summary(found: Idesc) -> str:
    """One line: ``kind::f16 M=128 N=128, D F32, A F16 (K-major), B F16 (K-major)``.

    >>> from tmemviz.families.mma.idesc import decode
    >>> summary(decode(0x08200010, "f16"))
    'kind::f16 M=128 N=128: D F32, A F16 (K-major), B F16 (K-major)'
    """
    f = found.fields
    parts = [f"D {found.d_type}"]
    for op in ("a", "b"):
        neg = "-" if f.get(f"negate_{op}") else ""
        parts.append(f"{op.upper()} {neg}{f[f'{op}_type']} ({f[f'{op}_major']}-major)")
    if found.sparse:
        parts.append("sparse" + (f" (selector {f['sparse_id']})" if "sparse_id" in f else ""))
    if f.get("saturate"):
        parts.append("saturate")
    if f.get("max_shift"):
        parts.append(f".ws max shift {f['max_shift']}")
    if "scale_type" in f:
        parts.append(f"scales {f['scale_type']} (A ID {f['sfa_id']}, B ID {f['sfb_id']})")
    if "k" in f and f["k"] == 96:
        parts.append("K=96")
    return f"kind::{found.kind} M={found.m} N={found.n}: " + ", ".join(parts)
