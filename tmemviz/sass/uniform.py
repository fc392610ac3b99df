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
:mod:`tmemviz.ptx.registers` does for PTX). Values are :data:`tmemviz.ptx.constants.Value`. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tmemviz.ptx import constants as c
from tmemviz.sass.line import SassLine, parse_sass

Facts = dict[str, c.Value]
"""Uniform register -> what it holds; a register left out holds something unknown."""

_HEAD = re.compile(
    r"^\s*(?:/\*[0-9a-fA-F]+\*/|0x[0-9a-fA-F]+)?\s*(?:@(!?U?P(?:T|\d+))\s+)?([A-Z][A-Z0-9_]*)((?:\.\w+)*)"
    r"\s+(?:!?U?P(?:T|\d+)\s*,\s*)?UR(\d+)\b"
)
_UR = re.compile(r"^UR(\d+)$")
_PREDICATE = re.compile(r"^!?U?P(?:T|\d+)$")
_IMMEDIATE = re.compile(r"^-?(?:0x[0-9a-fA-F]+|\d+)$")
EVALUATED = frozenset(("UMOV", "USEL", "ULOP3", "UIADD3", "USHF", "UPRMT", "ULEA", "UIMAD"))
MASK = 0xFFFFFFFF


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

    >>> write_in("  /*0090*/   UMOV UR10, 0x0 ;")
    Write(registers=('UR10',), op='UMOV', operands=('0x0',), modifiers=(), guard=None)
    >>> write_in("/*0040*/ LDCU.128 UR20, c[0x0][0x390] ;").registers
    ('UR20', 'UR21', 'UR22', 'UR23')
    >>> write_in("/*0050*/ UTCBAR [UR4], URZ ;") is None
    True
    """
    m = _HEAD.match(text)
    if m is None:
        return None
    guard, opcode, modifiers, first = m.groups()
    if opcode in EVALUATED:
        sass = parse_sass(text)
        return write_of(sass) if sass is not None else Write(_written(int(first), _count(modifiers)))
    if guard in ("!PT", "!UPT"):
        return None  # never executed
    return Write(_written(int(first), _count(modifiers)))


def write_of(sass: SassLine) -> Write | None:
    """:func:`write_in` for an instruction already parsed."""
    ops = sass.operands
    at = 1 if ops and _PREDICATE.match(ops[0]) and len(ops) > 1 else 0
    if not ops or not _UR.match(ops[at]):
        return None
    if sass.guard in ("!PT", "!UPT"):
        return None
    first = int(ops[at][2:])
    guard = None if sass.guard in (None, "PT", "UPT") else sass.guard
    count = _count(sass.modifiers)
    if sass.opcode not in EVALUATED or (count != 1 and sass.opcode != "USHF"):
        return Write(_written(first, count), guard=guard)
    rest = ops[at + 1 :]
    if sass.opcode == "UIADD3":
        while rest and _PREDICATE.match(rest[0]):
            rest = rest[1:]  # the carry-out predicates
    return Write((f"UR{first}",), sass.opcode, tuple(o.removesuffix(".reuse") for o in rest), sass.modifiers,
                 guard)  # fmt: skip


def apply(write: Write, facts: Facts) -> None:
    """``facts`` after the instruction (changed in place).

    >>> f = {}
    >>> apply(write_in("USEL UR4, URZ, 0x4000, !UP0"), f); apply(write_in("UMOV UR5, 0x8200010"), f)
    >>> apply(write_in("UIADD3 UR5, UPT, UPT, UR4, UR5, URZ"), f)
    >>> [hex(b.value) for b in f["UR5"]]
    ['0x8200010', '0x8204010']
    """
    if write.op == "all":
        facts.clear()
        return
    value = evaluate(write, facts) if write.op else None
    for name in write.registers:
        old = facts.get(name)
        new = value if name == write.registers[0] else None
        if new is not None and write.guard is not None:
            new = c.choice(old, new) if old is not None else None  # the old value stays when the guard fails
        if new is None or all(b.known == 0 for b in new):
            facts.pop(name, None)
        else:
            facts[name] = new


def _operand(text: str, facts: Facts) -> c.Value | None:
    """What a source operand holds: ``URZ`` 0, a register's fact (its bits unknown when there is none), an
    immediate; ``-x`` negated, ``~x`` inverted; None for anything else (an unreadable operand)."""
    negate, invert = text.startswith("-"), text.startswith("~")
    name = text.lstrip("-~")
    if name == "URZ":
        value = c.const(0)
    elif _UR.match(name):
        value = facts.get(name) or c.unknown()
    elif _IMMEDIATE.match(text):
        digits = text.lstrip("-")
        number = int(digits, 16) if digits.startswith("0x") else int(digits)
        return c.const(-number if negate else number)
    else:
        return None
    if invert or negate:
        value = tuple(c.Bits(~b.value & b.known & MASK, b.known, 32) for b in value)
    if negate:
        value = c.add(value, c.const(1))
    return value


def evaluate(write: Write, facts: Facts) -> c.Value | None:
    """What ``write``'s destination holds after it (None: nothing known)."""
    op, mods = write.op, write.modifiers
    if op == "ULOP3":  # d, a, b, c, lut, and a predicate input (!UPT: the value alone)
        if mods != ("LUT",) or len(write.operands) not in (4, 5) or write.operands[4:] not in ((), ("!UPT",)):
            return None
        *sources, lut = [_operand(o, facts) for o in write.operands[:4]]
        if lut is None or len(lut) != 1 or not lut[0].exact or any(a is None for a in sources):
            return None
        return lop3(*sources, lut[0].value & 0xFF)  # type: ignore[arg-type]
    args = [_operand(o, facts) for o in write.operands]
    if op == "USEL" and len(args) == 3:
        picks = {"UPT": args[:1], "!UPT": args[1:2]}.get(write.operands[2], args[:2])
        return None if any(a is None for a in picks) else c.choice(*picks)  # type: ignore[arg-type]
    if op == "UPRMT" and not mods and len(args) == 3:
        a, selector, b = args
        return None if a is None or b is None or selector is None else c.permute(a, b, selector)
    if any(a is None for a in args):
        return None
    if op == "UMOV" and not mods and len(args) == 1:
        return args[0]
    if op == "UIADD3" and not mods and len(args) == 3:
        return c.add(c.add(args[0], args[1]), args[2])  # type: ignore[arg-type]
    if op == "USHF" and len(args) == 3:
        return funnel(args[0], args[1], args[2], mods)  # type: ignore[arg-type]
    if op == "ULEA" and not mods and len(args) == 3:
        return c.add(c.shift(args[0], args[2], True, False), args[1])  # type: ignore[arg-type]
    if op == "UIMAD" and not mods and len(args) == 3:
        return multiply_add(args[0], args[1], args[2])  # type: ignore[arg-type]
    return None


def lop3(a: c.Value, b: c.Value, d: c.Value, lut: int) -> c.Value:
    """The three-input logic op with truth table ``lut``, bit by bit; a bit is known where every value
    the unknown inputs may take gives the same result.

    >>> [hex(x.value) for x in lop3(c.const(0x3fc8), c.const(0x10000), c.const(0), 0xfc)]  # a | b
    ['0x13fc8']
    >>> lop3(c.const(0xFF), c.unknown(), c.const(0), 0xc0)[0].known == 0xFFFFFF00  # a & b: 0 where a is
    True
    """

    def one(x: c.Bits, y: c.Bits, z: c.Bits) -> c.Bits:
        can = [((v.value | ~v.known) & MASK, (~v.value | ~v.known) & MASK) for v in (x, y, z)]
        ones = zeros = 0
        for i in range(8):
            reach = can[0][i >> 2 & 1 ^ 1] & can[1][i >> 1 & 1 ^ 1] & can[2][i & 1 ^ 1]
            if lut >> i & 1:
                ones |= reach
            else:
                zeros |= reach
        known = ~(ones & zeros) & MASK
        return c.Bits(ones & known, known, 32)

    return c.choice(*((one(x, y, z),) for x in a for y in b for z in d))


def funnel(lo: c.Value, amount: c.Value, hi: c.Value, modifiers: tuple[str, ...]) -> c.Value | None:
    """``USHF``: the 64-bit ``hi:lo`` shifted left (``L``) or right (``R``, arithmetic for ``S32``/``S64``)
    by ``amount``; the high 32 bits with ``HI``, else the low. None for a form not read (``.W``, an amount
    not known to be below 32).

    >>> funnel(c.const(0x1), c.const(0xb), c.const(0), ("L", "U32"))[0].value  # a << 11
    2048
    >>> funnel(c.const(0), c.const(4), c.const(0x1c080), ("R", "U32", "HI"))[0].value  # a >> 4
    7176
    """
    words = set(modifiers)
    direction = words & {"L", "R"}
    kind = words & {"U32", "S32", "U64", "S64"}
    if len(direction) != 1 or len(kind) != 1 or words - direction - kind - {"HI"}:
        return None
    if any(not s.exact or s.value >= 32 for s in amount):
        return None
    whole = c.join([c.resize(lo, 32), c.resize(hi, 32)], 32)
    moved = c.shift(whole, amount, "L" in direction, kind.pop().startswith("S"), 64)
    low, high = c.split(moved, 2, 32)
    return high if "HI" in words else low


def multiply_add(a: c.Value, b: c.Value, d: c.Value) -> c.Value | None:
    """``a * b + d`` when every candidate is exact (a product's low bits would need more care)."""
    if not all(x.exact for v in (a, b, d) for x in v):
        return None
    return c.choice(*(c.const(x.value * y.value + z.value) for x in a for y in b for z in d))
