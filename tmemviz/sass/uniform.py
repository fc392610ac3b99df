"""What a SASS instruction does to the uniform registers (``UR<n>``): which it writes, and what it writes
when ptxas builds a constant with it.

ptxas builds a tcgen05.mma instruction descriptor in a uniform register and hands it to ``UTC*MMA`` as
``idesc[URn]``: a ``UMOV URn, imm`` hoisted before the loop, or a few integer instructions when the PTX
chose among constants (CuTe DSL: ``selp`` ORed with ``selp`` becomes ``USEL``, ``USEL``, ``UIADD3``).
This module reads those instructions and, for anything else, which registers it writes, so that what a
register holds is forgotten whenever anything else may change it.

Registers written: the first operand when it is a uniform register, or the second when the first is a
predicate (``ELECT P1, UR4, PT``; ``UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR4, UR8``); two registers for a
``.64`` or ``.WIDE`` instruction, four for ``.128`` (``LDCU.128 UR20, c[0x0][0x390]``). A register pair is
counted even where only one is written (``USHF.L.U64.HI``): forgetting too much loses a value, never
invents one.

Values followed (NVIDIA documents no SASS; these are the instructions' usual meanings, and
tests/sass/test_uniform.py checks on real kernels that they give the values the PTX reader finds):

* ``UMOV d, x``; ``USEL d, a, b, p`` (``p ? a : b``; either when ``p`` is not ``UPT``/``!UPT``);
* ``ULOP3.LUT d, a, b, c, lut, !UPT``: bit i of d is bit ``4a+2b+c`` of ``lut`` (a = 0xF0, b = 0xCC,
  c = 0xAA);
* ``UIADD3 d, [carry-out predicates,] a, b, c``: ``a + b + c`` (``-x`` negated; not ``.X``, which adds a
  carry in);
* ``USHF.L|R.U32|S32|U64|S64[.HI] d, lo, s, hi``: the 64-bit ``hi:lo`` shifted by ``s`` (< 32), its high
  (``.HI``) or low 32 bits;
* ``UPRMT d, a, sel, b``: bytes of ``{b, a}`` picked as PTX ``prmt.b32 d, a, b, sel`` does;
* ``ULEA d, a, b, s``: ``(a << s) + b``; ``UIMAD d, a, b, c``: ``a * b + c``.

A guarded write (``@UP0 UMOV``) leaves a choice between the old value and the new (as
:mod:`tmemviz.ptx.registers` does for PTX); under a uniform predicate it is also kept as what the register
holds when that predicate is true (``UR5@UP0``), until the register or the predicate is written: ptxas
selects a descriptor with ``@!UP0 UMOV UR5, a; @UP0 UMOV UR5, b`` (then UR5 is one of a, b) and guards an
MMA with the predicate of its descriptor's move (``@UP0 UMOV UR15, c; @UP0 UTCHMMA ... idesc[UR15]``). Any
instruction naming a uniform predicate other than as its guard counts as writing it. Values are
:data:`tmemviz.ptx.constants.Value`. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from tmemviz.ptx import constants as c
from tmemviz.sass.bits import MASK, add, funnel, lop3, multiply_add
from tmemviz.sass.line import SassLine

Facts = dict[str, c.Value]
"""Uniform register -> what it holds (``UR5@!UP0``: what it holds when ``!UP0`` is true); a register left
out holds something unknown."""

_HEAD = re.compile(
    r"^\s*(?:/\*[0-9a-fA-F]+\*/|0x[0-9a-fA-F]+)?\s*(?:@(!?U?P(?:T|\d+))\s+)?([A-Z][A-Z0-9_]*)((?:\.\w+)*)"
    r"\s+(?:!?U?P(?:T|\d+)\s*,\s*)?UR(\d+)\b"
)
_UR = re.compile(r"^UR(\d+)$")
_NAMED_PREDICATE = re.compile(r"(?<![@!\w])!?UP(\d+)\b|(?<=[^@]!)UP(\d+)\b")
_UNIFORM_GUARD = re.compile(r"^!?UP\d+$")
_PREDICATE = re.compile(r"^!?U?P(?:T|\d+)$")
_IMMEDIATE = re.compile(r"^-?(?:0x[0-9a-fA-F]+|\d+)$")
EVALUATED = frozenset(("UMOV", "USEL", "ULOP3", "UIADD3", "USHF", "UPRMT", "ULEA", "UIMAD"))


class Write(NamedTuple):
    """The uniform registers one instruction writes, and how to work out what they then hold."""

    registers: tuple[str, ...]
    op: str | None = None
    """An opcode of :data:`EVALUATED` whose value is worked out, ``"all"`` (every register forgotten: a
    call), or None (the registers are forgotten)."""
    operands: tuple[str, ...] = ()
    """The source operands, after the destination (and the carry-out predicates of ``UIADD3``)."""
    modifiers: tuple[str, ...] = ()
    guard: str | None = None
    sources: tuple[Any, ...] = ()
    """``operands`` read once (:func:`_source`): what evaluating them asks of the facts."""
    predicates: tuple[str, ...] = ()
    """The uniform predicates the instruction names other than as its guard (``UP0``): written, maybe."""


FORGET_ALL = Write((), "all")
"""A call: the callee may write any uniform register."""


def _count(modifiers: str | tuple[str, ...]) -> int:
    text = modifiers if isinstance(modifiers, str) else ".".join(modifiers)
    return 4 if "128" in text else 2 if ("64" in text or "WIDE" in text) else 1


def _written(first: int, count: int) -> tuple[str, ...]:
    return tuple(f"UR{first + k}" for k in range(count))


def write_in(text: str) -> Write | None:
    """The uniform registers the listing line ``text`` writes (None: none), from its first words alone
    unless it is an instruction whose value is followed.

    >>> write_in("  /*0090*/   UMOV UR10, 0x0 ;")[:3]
    (('UR10',), 'UMOV', ('0x0',))
    >>> write_in("/*0040*/ LDCU.128 UR20, c[0x0][0x390] ;").registers
    ('UR20', 'UR21', 'UR22', 'UR23')
    >>> write_in("/*0050*/ UTCBAR [UR4], URZ ;") is None
    True
    """
    predicates = named_predicates(text) if "UP" in text else ()
    m = _HEAD.match(text)
    if m is None:
        return Write((), predicates=predicates) if predicates else None
    guard, opcode, modifiers, first = m.groups()
    if guard in ("!PT", "!UPT"):
        return None  # never executed
    mods = tuple(modifiers[1:].split(".")) if modifiers else ()
    if opcode in EVALUATED:  # no bracket in their operands: split at commas, up to ';' or a comment
        rest = text[m.end() :].split(";", 1)[0].split("/*", 1)[0]
        operands = tuple(o.strip() for o in rest.split(",")[1:])
        return _evaluated(opcode, mods, int(first), operands, _guard(guard), predicates)
    return Write(_written(int(first), _count(modifiers)), guard=_guard(guard), predicates=predicates)


def _evaluated(
    opcode: str, mods: tuple[str, ...], first: int, rest: tuple[str, ...], guard: str | None,
    predicates: tuple[str, ...],
) -> Write:  # fmt: skip
    """The write of an instruction of :data:`EVALUATED` (``rest``: its operands after the destination)."""
    count = _count(mods)
    if count != 1 and opcode != "USHF":
        return Write(_written(first, count), guard=guard, predicates=predicates)
    if opcode == "UIADD3":
        while rest and _PREDICATE.match(rest[0]):
            rest = rest[1:]  # the carry-out predicates
    operands = tuple(o.removesuffix(".reuse") for o in rest)
    sources = tuple(map(_source, operands))
    return Write((f"UR{first}",), opcode, operands, mods, guard, sources, predicates)


def named_predicates(text: str) -> tuple[str, ...]:
    """The uniform predicates a listing line names other than as its guard.

    >>> named_predicates("/*0030*/ @!UP1 UIADD3 UR12, UP2, UPT, UR4, 0xc0, URZ ;")
    ('UP2',)
    >>> named_predicates("@UP0 UMOV UR5, 0x1"), named_predicates("PLOP3.LUT P1, PT, PT, PT, !UP0, 0x80, 0x8")
    ((), ('UP0',))
    """
    return tuple(sorted({f"UP{a or b}" for a, b in _NAMED_PREDICATE.findall(text)}))


def _guard(guard: str | None) -> str | None:
    return None if guard in (None, "PT", "UPT") else guard


def write_of(sass: SassLine) -> Write | None:
    """:func:`write_in` for an instruction already parsed."""
    if sass.guard in ("!PT", "!UPT"):
        return None
    ops = sass.operands
    predicates = tuple(sorted({o.lstrip("!") for o in ops if o.lstrip("!")[:2] == "UP" and o[-1] != "T"}))
    at = 1 if ops and _PREDICATE.match(ops[0]) and len(ops) > 1 else 0
    if not ops or not _UR.match(ops[at]):
        return Write((), predicates=predicates) if predicates else None
    first = int(ops[at][2:])
    guard = _guard(sass.guard)
    if sass.opcode not in EVALUATED:
        return Write(_written(first, _count(sass.modifiers)), guard=guard, predicates=predicates)
    return _evaluated(sass.opcode, sass.modifiers, first, ops[at + 1 :], guard, predicates)


def apply(write: Write, facts: Facts) -> None:
    """``facts`` after the instruction (changed in place).

    >>> f = {}
    >>> apply(write_in("USEL UR4, URZ, 0x4000, !UP0"), f); apply(write_in("UMOV UR5, 0x8200010"), f)
    >>> apply(write_in("UIADD3 UR5, UPT, UPT, UR4, UR5, URZ"), f)
    >>> [hex(b.value) for b in f["UR5"]]
    ['0x8200010', '0x8204010']
    >>> apply(write_in("@!UP1 UMOV UR6, 0x1"), f); apply(write_in("@UP1 UMOV UR6, 0x2"), f)
    >>> [b.value for b in f["UR6"]], [b.value for b in f["UR6@UP1"]]
    ([1, 2], [2])
    """
    if write.op == "all":
        facts.clear()
        return
    if write.predicates:
        _forget_under(facts, write.predicates)
    if write.op is None and write.guard is None:  # most writes: the registers become unknown
        for name in write.registers:
            facts.pop(name, None)
            _drop_conditions(facts, name, keep=None)
        return
    value = evaluate(write, facts) if write.op else None
    nothing = value is None or all(b.known == 0 for b in value)
    if write.op and nothing and any(facts.get(s[0]) is VARIES for s in write.sources if s):
        value = VARIES  # nothing known of a value built from one that changes around a loop: it varies
    guard = write.guard
    for name in write.registers:
        new = value if name == write.registers[0] else None
        if guard is None:
            _drop_conditions(facts, name, keep=None)
            _set(facts, name, new)
            continue
        # Guarded: the old value stays where the guard is false.
        old = facts.get(name)
        uniform = _UNIFORM_GUARD.match(guard) is not None
        opposite = guard[1:] if guard.startswith("!") else f"!{guard}"
        otherwise = facts.get(f"{name}@{opposite}", old) if uniform else old
        _drop_conditions(facts, name, keep=opposite if uniform else None)
        if uniform:
            _set(facts, f"{name}@{guard}", new)
        _set(facts, name, either(otherwise, new) if otherwise is not None and new is not None else None)


VARIES: c.Value = (c.Bits(0, 0, 32),)
"""What a register holds when it kept changing around a loop (widening found no fixed set of values):
nothing of it is known, and that is known. Told apart by identity (``is``); evaluated as unknown bits,
so that what an instruction makes of it keeps the bits it knows anyway (``VARIES & 3`` has 30 known
zero bits), and is itself VARIES when it knows none."""


def either(a: c.Value, b: c.Value) -> c.Value:
    """A register that holds ``a`` on one path and ``b`` on another: one of their values; :data:`VARIES`
    when either varies."""
    if a is VARIES or b is VARIES:
        return VARIES
    return a if a == b else c.choice(a, b)


CONDITIONS = "@"
"""A key present in facts that may hold what a register holds under a predicate (so that facts without
any are not searched for them)."""
_MARK: c.Value = (c.Bits(0, 1, 32),)


def _set(facts: Facts, name: str, value: c.Value | None) -> None:
    if value is None or (value is not VARIES and all(b.known == 0 for b in value)):
        facts.pop(name, None)
    else:
        facts[name] = value
        if "@" in name:
            facts[CONDITIONS] = _MARK


def _drop_conditions(facts: Facts, name: str, keep: str | None) -> None:
    """Forget what ``name`` holds under any predicate but ``keep``."""
    if CONDITIONS not in facts:
        return
    prefix = f"{name}@"
    for key in [k for k in facts if k.startswith(prefix) and k != f"{prefix}{keep}"]:
        del facts[key]


def _forget_under(facts: Facts, predicates: tuple[str, ...]) -> None:
    """Forget what any register holds under one of ``predicates`` (they may have been written)."""
    if CONDITIONS not in facts:
        return
    gone = [k for k in facts if "@" in k[1:] and k.rsplit("@", 1)[1].lstrip("!") in predicates]
    for key in gone:
        del facts[key]


_UNKNOWN = c.unknown()


def _source(text: str) -> tuple[str | None, c.Value | None, bool, bool] | None:
    """A source operand read once: (register, or None; its value when it is a constant; negated;
    inverted). ``URZ`` is 0; ``-x`` negated, ``~x`` inverted; None for an operand not read (a predicate,
    a constant bank)."""
    negate, invert = text.startswith("-"), text.startswith("~")
    name = text.lstrip("-~")
    if name == "URZ":
        return None, c.const(0), negate, invert
    if _UR.match(name):
        return name, None, negate, invert
    if _IMMEDIATE.match(text):
        digits = text.lstrip("-")
        number = int(digits, 16) if digits.startswith("0x") else int(digits)
        return None, c.const(-number if negate else number), False, False
    return None


def _operand(source: tuple[str | None, c.Value | None, bool, bool] | None, facts: Facts) -> c.Value | None:
    """What a source holds: a register's fact (its bits unknown when there is none), or the constant."""
    if source is None:
        return None
    name, value, negate, invert = source
    if name is not None:
        value = facts.get(name, _UNKNOWN)
    if invert or negate:
        value = tuple(c.Bits(~b.value & b.known & MASK, b.known, 32) for b in value)  # type: ignore[union-attr]
    if negate:
        value = add(value, c.const(1))  # type: ignore[arg-type]
    return value


_WHOLE = frozenset(("UMOV", "UIADD3", "UIMAD", "UPRMT"))
"""Ops whose value is unknown when a register they read is (no bit of the result is known then)."""


def evaluate(write: Write, facts: Facts) -> c.Value | None:
    """What ``write``'s destination holds after it (None: nothing known)."""
    op, mods, sources = write.op, write.modifiers, write.sources
    if op in _WHOLE and any(s is not None and s[0] is not None and s[0] not in facts for s in sources):
        return None
    if op == "ULOP3":  # d, a, b, c, lut, and a predicate input (!UPT: the value alone)
        if mods != ("LUT",) or len(write.operands) not in (4, 5) or write.operands[4:] not in ((), ("!UPT",)):
            return None
        *values, lut = [_operand(o, facts) for o in sources[:4]]
        if lut is None or len(lut) != 1 or not lut[0].exact or any(a is None for a in values):
            return None
        return lop3(*values, lut[0].value & 0xFF)  # type: ignore[arg-type]
    if op == "USEL" and len(sources) == 3:
        picks = {"UPT": sources[:1], "!UPT": sources[1:2]}.get(write.operands[2], sources[:2])
        if any(s is None or (s[0] is not None and s[0] not in facts) for s in picks):
            return None  # a side nothing is known of
        return c.choice(*(_operand(s, facts) for s in picks))  # type: ignore[arg-type]
    args = [_operand(o, facts) for o in sources]
    if op == "UPRMT" and not mods and len(args) == 3:
        a, selector, b = args
        return None if a is None or b is None or selector is None else c.permute(a, b, selector)
    if any(a is None for a in args):
        return None
    if op == "UMOV" and not mods and len(args) == 1:
        return args[0]
    if op == "UIADD3" and not mods and len(args) == 3:
        return add(add(args[0], args[1]), args[2])  # type: ignore[arg-type]
    if op == "USHF" and len(args) == 3:
        return funnel(args[0], args[1], args[2], mods)  # type: ignore[arg-type]
    if op == "ULEA" and not mods and len(args) == 3:
        return add(c.shift(args[0], args[2], True, False), args[1])  # type: ignore[arg-type]
    if op == "UIMAD" and not mods and len(args) == 3:
        return multiply_add(args[0], args[1], args[2])  # type: ignore[arg-type]
    return None
