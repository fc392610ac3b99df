"""A tcgen05.mma instruction descriptor that is a choice of constants, or has bits set at run time.

The CuTe DSL picks its idesc among constants (``selp`` of two values, ORed with another ``selp``);
CUTLASS's block-scaled MMA ORs the scale-factor IDs (bits 4-5, 29-30) from a run-time TMEM address
into constant bits. :func:`decode_choices` decodes every candidate the register may hold
(:mod:`tmemviz.ptx.constants`) with the mma family's table (PTX 9.7.16.4.2) and keeps what they
share; the fields that differ are listed with their values, those with bits known only at run time
are named as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tmemviz.families.mma.idesc import Idesc, decode, layout
from tmemviz.ptx.constants import Bits


@dataclass(frozen=True)
class Choices:
    """What every candidate value of one descriptor says."""

    kind: str
    candidates: tuple[Bits, ...]
    fields: dict[str, Any]
    """Field -> meaning where every candidate agrees and knows it; None where they do not."""
    varies: dict[str, list[Any]]
    runtime: tuple[str, ...]
    problems: tuple[str, ...]
    exact: Idesc | None
    """The decoded descriptor when there is exactly one candidate and all of its bits are known."""

    @property
    def m(self) -> int | None:
        return self.fields.get("m")

    @property
    def n(self) -> int | None:
        return self.fields.get("n")


def pattern(b: Bits) -> str:
    """A candidate in hex, ``?`` for a digit with bits set at run time.

    >>> pattern(Bits(0x08200010, 0xFFFFFFCF))
    '0x082000?0'
    """
    out = []
    for shift in range(28, -4, -4):
        nibble_known = (b.known >> shift) & 0xF
        out.append(f"{(b.value >> shift) & 0xF:x}" if nibble_known == 0xF else "?")
    return "0x" + "".join(out)


def decode_choices(candidates: tuple[Bits, ...], kind: str) -> Choices:
    """Decode each candidate; keep the fields they share, list those that vary or are run-time bits.

    >>> c = decode_choices((Bits(0x08200010, 0xFFFFFFFF), Bits(0x08206010, 0xFFFFFFFF)), "f16")
    >>> c.m, c.n, c.varies
    (128, 128, {'negate_a': [False, True], 'negate_b': [False, True]})
    """
    named, reserved = layout(kind)
    decoded: list[tuple[Bits, Idesc]] = [(b, decode(b.value & 0xFFFFFFFF, kind)) for b in candidates]
    fields: dict[str, Any] = {}
    varies: dict[str, list[Any]] = {}
    runtime: list[str] = []
    for f in named:
        mask = ((1 << f.width) - 1) << f.first
        if any(b.known & mask != mask for b in candidates):
            runtime.append(f.name)
            fields[f.name] = None
            continue
        seen: list[Any] = []
        for _, d in decoded:
            if d.fields[f.name] not in seen:
                seen.append(d.fields[f.name])
        if len(seen) == 1:
            fields[f.name] = seen[0]
        else:
            fields[f.name] = None
            varies[f.name] = sorted(seen, key=lambda v: (str(type(v)), v))
    problems: list[str] = []
    for b, d in decoded:
        for p in d.problems:
            if _known_problem(p, b, named, reserved) and p not in problems:
                problems.append(p)
    exact = decoded[0][1] if len(decoded) == 1 and decoded[0][0].exact else None
    return Choices(kind, candidates, fields, varies, tuple(runtime), tuple(problems), exact)


def _known_problem(problem: str, b: Bits, named: Any, reserved: Any) -> bool:
    """A problem of the decoded candidate that rests on known bits only (``bits 29-31 ...``, a field)."""
    for f in (*named, *reserved):
        mask = ((1 << f.width) - 1) << f.first
        # M and N are named by their value, not their label ("M = 0 is not a tcgen05.mma M ...").
        named_by = (f"bits {f.bits} ", f.label or f"bits {f.bits} ", f"{f.name.upper()} = ")
        if b.known & mask != mask and (named_by[0] in problem or named_by[1] in problem
                                       or problem.startswith(named_by[2])):  # fmt: skip
            return False
    return True


def record(c: Choices) -> dict[str, Any]:
    """The JSON ``idesc`` object: as for one constant (value, hex, fields), plus ``candidates`` (hex) when
    there are several or bits vary, ``varies`` and ``runtime``."""
    if c.exact is not None:
        return {"value": c.exact.value, "hex": f"0x{c.exact.value:08x}", **c.exact.fields}
    out: dict[str, Any] = {"value": None, "hex": None, **c.fields}
    out["candidates"] = sorted(pattern(b) for b in c.candidates)
    if c.varies:
        out["varies"] = c.varies
    if c.runtime:
        out["runtime"] = list(c.runtime)
    return out


def summary(c: Choices) -> str:
    """``kind::f16 M=128 N=128: D F32, A F16 (K-major), B F16 (MN-major)``, the varying fields after it."""
    f = c.fields

    def say(name: str, value: Any) -> str:
        if value is None:
            return "run-time" if name in c.runtime else "/".join(str(v) for v in c.varies.get(name, ()))
        return str(value)

    parts = [f"D {say('d_type', f.get('d_type', 'F32'))}"]
    for op in ("a", "b"):
        neg = {True: "-", False: ""}.get(f.get(f"negate_{op}"), "±")  # type: ignore[call-overload]
        parts.append(f"{op.upper()} {neg}{say(f'{op}_type', f[f'{op}_type'])} "
                     f"({say(f'{op}_major', f[f'{op}_major'])}-major)")  # fmt: skip
    text = f"kind::{c.kind} M={say('m', c.m)} N={say('n', c.n)}: " + ", ".join(parts)
    if c.varies:
        text += "; varies: " + ", ".join(f"{k} ({', '.join(map(str, v))})" for k, v in c.varies.items())
    if c.runtime:
        text += "; set at run time: " + ", ".join(c.runtime)
    return text
