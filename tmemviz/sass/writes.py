"""What a SASS instruction does to the registers an MMA's instruction descriptor passes through: which
it writes, and what it writes when ptxas builds a constant with it.

ptxas builds a tcgen05.mma instruction descriptor in a uniform register and hands it to ``UTC*MMA`` as
``idesc[URn]``: a ``UMOV URn, imm`` hoisted before the loop, or a few integer instructions when the PTX
chose among constants (CuTe DSL: ``selp`` ORed with ``selp`` becomes ``USEL``, ``USEL``, ``UIADD3``). Where
the descriptor was built per thread it comes through a general register: ``IMAD.U32 R18, RZ, RZ, UR13``
before the loop and ``R2UR UR9, R18`` in it (CUTLASS's block-scaled GEMMs), or ``@P0 IMAD.MOV.U32 R2, RZ,
RZ, imm; @P0 SEL R2, R2, imm, !P2; @P0 R2UR UR5, R2`` in the thread ``ELECT P0`` chose. This module reads
those instructions and, for anything else, which registers it writes, so that what a register holds is
forgotten whenever anything else may change it.

Registers written: the first operand when it is a register, or the second when the first is a predicate
(``ELECT P1, UR4, PT``; ``LOP3.LUT P0, R2, ...``); two registers for a ``.64``, ``.WIDE`` or double
instruction, four for ``.128`` (``LDCU.128 UR20, c[0x0][0x390]``); every general register for one that
writes an unstated number of them (``HMMA``, ``LDSM``, ``LDTM``, ``.256``). A register pair is counted even
where only one is written (``USHF.L.U64.HI``): forgetting too much loses a value, never invents one.
Predicates written: any predicate the line names other than as its guard (a read counted as a write only
forgets), but for ``VOTE``/``VOTEU``, which write their first operand only, and ``SEL``, which reads its.

Values followed (NVIDIA documents no SASS; these are the instructions' usual meanings, and
tests/sass/test_kernels.py checks on real kernels that they give the values the PTX reader finds), each
in its uniform (``U``) and general form:

* ``MOV d, x`` (``.SPILL`` too), ``R2UR d, x`` (``.FILL`` too); ``SEL d, a, b, p`` (``p ? a : b``;
  either when ``p`` is not ``PT``/``!PT``);
* ``LOP3.LUT d, a, b, c, lut, !PT``: bit i of d is bit ``4a+2b+c`` of ``lut`` (a = 0xF0, b = 0xCC,
  c = 0xAA);
* ``IADD3 d, [carry-out predicates,] a, b, c``: ``a + b + c`` (``-x`` negated; not ``.X``, which adds a
  carry in);
* ``SHF.L|R.U32|S32|U64|S64[.HI] d, lo, s, hi``: the 64-bit ``hi:lo`` shifted by ``s`` (< 32), its high
  (``.HI``) or low 32 bits;
* ``PRMT d, a, sel, b``: bytes of ``{b, a}`` picked as PTX ``prmt.b32 d, a, b, sel`` does;
* ``LEA d, a, b, s``: ``(a << s) + b``; ``IMAD d, a, b, c``: ``a * b + c`` (``IMAD.MOV.U32``,
  ``IMAD.U32``, ``IMAD.SHL.U32``, ``IMAD.IADD`` alike: their low 32 bits).

A guarded write (``@UP0 UMOV``) leaves a choice between the old value and the new (as
:mod:`tmemviz.ptx.registers` does for PTX); it is also kept as what the register holds when that predicate
is true (``UR5@UP0``, ``R2@P0``), until the register or the predicate is written, and an instruction under
the same guard reads it: ptxas selects a descriptor with ``@!UP0 UMOV UR5, a; @UP0 UMOV UR5, b`` (then UR5
is one of a, b) and guards an MMA with the predicate of its descriptor's move (``@UP0 UMOV UR15, c; @UP0
UTCHMMA ... idesc[UR15]``). A uniform register is written when any thread runs the instruction, so a
write under a predicate that ``ELECT`` set (true in exactly one thread of the warp, as long as no
branch since may have split the warp: :data:`DIVERGE`) happens for certain, reading what the elected
thread holds. Values are :data:`tmemviz.ptx.constants.Value`. Pure: no I/O.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from typing import Any, NamedTuple

from tmemviz.ptx import constants as c
from tmemviz.sass.bits import MASK, add, funnel, lop3, multiply_add
from tmemviz.sass.line import SassLine

Facts = dict[str, c.Value]
"""Register -> what it holds (``UR5@!UP0``: what it holds when ``!UP0`` is true; ``*@P0``: present while
``P0`` is ``ELECT``'s choice); a register left out holds something unknown."""

_LINE = re.compile(
    r"^\s*(?:/\*[0-9a-fA-F]+\*/|0x[0-9a-fA-F]+)?\s*(?:@(!?U?P(?:T|\d+))\s+)?([A-Z][A-Z0-9_]*)((?:\.\w+)*)\s+([^;]*)"
)
_UR = re.compile(r"^UR(\d+)$")
_REGISTER = re.compile(r"^(U?R)(\d+)$")
_NAMED_PREDICATE = re.compile(r"(?<![@!\w])!?(U?P\d+)\b|(?<=[^@]!)(U?P\d+)\b")
_UNIFORM_GUARD = re.compile(r"^!?UP\d+$")
_PREDICATE = re.compile(r"^!?U?P(?:T|\d+)$")
_IMMEDIATE = re.compile(r"^-?(?:0x[0-9a-fA-F]+|\d+)$")
EVALUATED = frozenset(("UMOV", "USEL", "ULOP3", "UIADD3", "USHF", "UPRMT", "ULEA", "UIMAD"))
"""The uniform opcodes whose value is worked out; a general one is read as its uniform twin."""
_TWIN = {"MOV": "UMOV", "SEL": "USEL", "LOP3": "ULOP3", "IADD3": "UIADD3", "SHF": "USHF", "PRMT": "UPRMT",
         "LEA": "ULEA", "IMAD": "UIMAD", "R2UR": "UMOV"}  # fmt: skip
_PLAIN_MODIFIERS = {"MOV": {("SPILL",)}, "R2UR": {("FILL",)}, "UMOV": set(),
                    "IMAD": {("MOV", "U32"), ("U32",), ("SHL", "U32"), ("IADD",), ("MOV",)}}  # fmt: skip
"""Modifiers that leave an instruction's value as its plain form's (a spill, an IMAD's low word)."""
_MANY = frozenset(("HMMA", "IMMA", "DMMA", "BMMA", "QMMA", "OMMA", "LDSM", "LDTM", "TEX", "TLD", "TLD4",
                   "TMML", "TXD", "TXQ", "SULD", "SUATOM"))  # fmt: skip
"""General-register writers of a number of registers their modifiers do not state: every one forgotten."""
_READS_PREDICATES = frozenset(("SEL", "FSEL", "USEL", "VOTE", "VOTEU"))
"""Opcodes whose predicate operands (all, or all but the first for a vote) are read, not written."""


class Write(NamedTuple):
    """The registers one instruction writes, and how to work out what they then hold."""

    registers: tuple[str, ...]
    op: str | None = None
    """An opcode of :data:`EVALUATED` whose value is worked out; ``"all"`` (every register forgotten: a
    call), ``"R*"`` (every general register forgotten), ``"ELECT"`` (its predicate marks the elected
    thread), ``"diverge"`` (:data:`DIVERGE`); or None (the registers are forgotten)."""
    operands: tuple[str, ...] = ()
    """The source operands, after the destination (and the carry-out predicates of ``UIADD3``)."""
    modifiers: tuple[str, ...] = ()
    guard: str | None = None
    sources: tuple[Any, ...] = ()
    """``operands`` read once (:func:`_source`): what evaluating them asks of the facts."""
    predicates: tuple[str, ...] = ()
    """The predicates the instruction names other than as its guard (``UP0``, ``P1``): written, maybe."""


FORGET_ALL = Write((), "all")
"""A call: the callee may write any register."""
DIVERGE = Write((), "diverge")
"""A branch or exit under a thread predicate: the warp may be split after it, so a thread ``ELECT``
chose before may not be among those running (no write under its predicate is then certain)."""


def _count(modifiers: str | tuple[str, ...]) -> int:
    text = modifiers if isinstance(modifiers, str) else ".".join(modifiers)
    return 4 if "128" in text else 2 if ("64" in text or "WIDE" in text) else 1


def _general_count(opcode: str, modifiers: tuple[str, ...]) -> int | None:
    """General registers an instruction writes (None: a number it does not state)."""
    text = ".".join(modifiers)
    if opcode in _MANY or "256" in text:
        return None
    if "128" in text:
        return 4
    if "64" in text or "WIDE" in text or (opcode[0] == "D" and opcode != "DEPBAR"):
        return 2  # a pair, a wide product, a double
    return 2 if opcode == "CS2R" and "32" not in text else 1


def _written(prefix: str, first: int, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{first + k}" for k in range(count))


def write_in(text: str) -> Write | None:
    """The registers and predicates the listing line ``text`` writes (None: none), and how its value is
    worked out where it is followed.

    >>> write_in("  /*0090*/   UMOV UR10, 0x0 ;")[:3]
    (('UR10',), 'UMOV', ('0x0',))
    >>> write_in("/*0040*/ LDCU.128 UR20, c[0x0][0x390] ;").registers
    ('UR20', 'UR21', 'UR22', 'UR23')
    >>> write_in("/*0750*/ @P0 SEL R2, R2, 0x8210010, !P2 ;")[:3]
    (('R2',), 'USEL', ('R2', '0x8210010', '!P2'))
    >>> write_in("/*0050*/ UTCBAR [UR4], URZ ;") is None
    True
    """
    m = _LINE.match(text)
    if m is None:
        return None
    guard, opcode, modifiers, rest = m.groups()
    return _write(guard, opcode, tuple(modifiers[1:].split(".")) if modifiers else (),
                  rest.split("/*", 1)[0].split(","))  # fmt: skip


def write_of(sass: SassLine) -> Write | None:
    """:func:`write_in` for an instruction already parsed."""
    return _write(sass.guard, sass.opcode, sass.modifiers, list(sass.operands))


def _write(guard: str | None, opcode: str, mods: tuple[str, ...], ops: list[str]) -> Write | None:
    if guard in ("!PT", "!UPT") or not ops:
        return None  # never executed, or writes nothing
    guard = _guard(guard)
    rest = ",".join(ops)
    predicates = _predicates_named(opcode, ops) if "P" in rest else ()
    first = ops[0].strip()
    at = 1 if len(ops) > 1 and _PREDICATE.match(first) else 0
    found = _REGISTER.match(ops[at].strip()) if at or first else None
    if opcode == "ELECT":
        registers = (f"UR{found.group(2)}",) if found and found.group(1) == "UR" else ()
        return Write(registers, "ELECT", guard=guard, predicates=predicates)
    if found is None:
        return Write((), guard=guard, predicates=predicates) if predicates else None
    kind, number = found.group(1), int(found.group(2))
    if opcode == "HFMA2" and kind == "R":
        value = _halves(ops[at + 1 :])
        if value is not None:
            return Write((f"R{number}",), "UMOV", (hex(value),), (), guard, ((None, c.const(value), False,
                         False),), predicates)  # fmt: skip
    twin = opcode if kind == "UR" and opcode in EVALUATED else _TWIN.get(opcode)
    if twin is not None and (kind == "UR") == (opcode[0] == "U" or opcode == "R2UR"):
        plain = mods in _PLAIN_MODIFIERS.get(opcode, ())
        return _evaluated(twin, () if plain else mods, f"{kind}{number}",
                          tuple(o.strip() for o in ops[at + 1 :]), guard, predicates)  # fmt: skip
    if kind == "UR":
        return Write(_written("UR", number, _count(mods)), guard=guard, predicates=predicates)
    count = _general_count(opcode, mods)
    if count is None:
        return Write((), "R*", guard=guard, predicates=predicates)
    return Write(_written("R", number, count), guard=guard, predicates=predicates)


def _halves(operands: list[str]) -> int | None:
    """The word ptxas builds with ``HFMA2 d, -RZ, RZ, hi, lo``: a zero product plus two half-precision
    immediates, its high and low 16 bits (None for any other form, or a half that is no number)."""
    if (
        len(operands) != 4
        or operands[0].strip().lstrip("-") != "RZ"
        or operands[1].strip().lstrip("-") != "RZ"
    ):
        return None
    try:
        hi, lo = (struct.unpack("<H", struct.pack("<e", float(o)))[0] for o in operands[2:])
    except (ValueError, OverflowError):
        return None
    if math.isnan(float(operands[2])) or math.isnan(float(operands[3])):
        return None
    return hi << 16 | lo


def _evaluated(
    opcode: str, mods: tuple[str, ...], register: str, rest: tuple[str, ...], guard: str | None,
    predicates: tuple[str, ...],
) -> Write:  # fmt: skip
    """The write of an instruction of :data:`EVALUATED` to ``register`` (``rest``: its operands after the
    destination)."""
    count = _count(mods)
    if count != 1 and opcode != "USHF":
        prefix = register.rstrip("0123456789")
        return Write(
            _written(prefix, int(register[len(prefix) :]), count), guard=guard, predicates=predicates
        )
    if opcode == "UIADD3":
        while rest and _PREDICATE.match(rest[0]):
            rest = rest[1:]  # the carry-out predicates
    operands = tuple(o.removesuffix(".reuse") for o in rest)
    sources = tuple(map(_source, operands))
    return Write((register,), opcode, operands, mods, guard, sources, predicates)


def _predicates_named(opcode: str, ops: list[str]) -> tuple[str, ...]:
    """The predicates an instruction may write: those it names (not as its guard) but where it reads them."""
    if opcode in _READS_PREDICATES:
        ops = ops[:1] if opcode.startswith("VOTE") else []
    if any(o.strip() in ("PR", "UPR") for o in ops):  # R2P: the predicates from a register's bits
        return tuple(f"{u}P{i}" for u in ("", "U") for i in range(7))
    return named_predicates(",".join(ops)) if ops else ()


def named_predicates(text: str) -> tuple[str, ...]:
    """The predicates a listing line names other than as its guard.

    >>> named_predicates("/*0030*/ @!UP1 UIADD3 UR12, UP2, UPT, UR4, 0xc0, URZ ;")
    ('UP2',)
    >>> named_predicates("@UP0 UMOV UR5, 0x1"), named_predicates("PLOP3.LUT P1, PT, PT, PT, !UP0, 0x80, 0x8")
    ((), ('P1', 'UP0'))
    """
    return tuple(sorted({a or b for a, b in _NAMED_PREDICATE.findall(text)}))


def _guard(guard: str | None) -> str | None:
    return None if guard in (None, "PT", "UPT") else guard


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
    op = write.op
    if op == "all":
        facts.clear()
        return
    if op == "diverge":
        for key in [k for k in facts if k[:2] == "*@"]:
            del facts[key]
        return
    if write.predicates:
        _forget_under(facts, write.predicates)
        if not write.registers and op is None:
            return
    if op == "R*":  # every general register, and what any holds under a predicate
        for key in [k for k in facts if k[:1] == "R"]:
            del facts[key]
        return
    if op == "ELECT":
        for name in write.registers:
            facts.pop(name, None)
            _drop_conditions(facts, name, keep=None)
        if write.guard is None:
            for p in write.predicates:
                if p[0] == "P":
                    _set(facts, f"*@{p}", _MARK)
        return
    if op is None and write.guard is None:  # most writes: the registers become unknown
        for name in write.registers:
            facts.pop(name, None)
            _drop_conditions(facts, name, keep=None)
        return
    value = evaluate(write, facts) if op else None
    nothing = value is None or all(b.known == 0 for b in value)
    if op and nothing and any(facts.get(s[0]) is VARIES for s in write.sources if s):
        value = VARIES  # nothing known of a value built from one that changes around a loop: it varies
    guard = write.guard
    uniform = guard is not None and _UNIFORM_GUARD.match(guard) is not None
    if guard is not None and not uniform and write.registers[0][0] == "U" and f"*@{guard}" in facts:
        guard = None  # a uniform register written by the thread ELECT chose: written for certain
    for name in write.registers:
        new = value if name == write.registers[0] else None
        if guard is None:
            _drop_conditions(facts, name, keep=None)
            _set(facts, name, new)
            continue
        # Guarded: the old value stays where the guard is false. What the register holds under the
        # guard is kept where it is a uniform predicate, or a thread's for a general register.
        old = facts.get(name)
        conditional = uniform or name[0] == "R"
        opposite = guard[1:] if guard.startswith("!") else f"!{guard}"
        otherwise = facts.get(f"{name}@{opposite}", old) if conditional else old
        _drop_conditions(facts, name, keep=opposite if conditional else None)
        if conditional:
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
        at = name.find("@")
        if at >= 0:
            facts[CONDITIONS] = _MARK
            facts[name[: at + 1]] = _MARK  # ``R2@``: R2 may hold something under a predicate


def _drop_conditions(facts: Facts, name: str, keep: str | None) -> None:
    """Forget what ``name`` holds under any predicate but ``keep`` (only searched for where ``name@`` says
    it may hold something under one: most registers never do)."""
    prefix = f"{name}@"
    if prefix not in facts:
        return
    kept = f"{prefix}{keep}"
    for key in [k for k in facts if k.startswith(prefix) and k != kept and k != prefix]:
        del facts[key]


def _forget_under(facts: Facts, predicates: tuple[str, ...]) -> None:
    """Forget what any register holds under one of ``predicates`` (they may have been written), and
    that ``ELECT`` set them."""
    if CONDITIONS not in facts:
        return
    gone = [k for k in facts if "@" in k[1:] and k.rsplit("@", 1)[1].lstrip("!") in predicates]
    for key in gone:
        del facts[key]


_UNKNOWN = c.unknown()


@functools.lru_cache(maxsize=8192)
def _source(text: str) -> tuple[str | None, c.Value | None, bool, bool] | None:
    """A source operand read once: (register, or None; its value when it is a constant; negated;
    inverted). ``URZ``/``RZ`` is 0; ``-x`` negated, ``~x`` inverted; None for an operand not read (a
    predicate, a constant bank)."""
    negate, invert = text.startswith("-"), text.startswith("~")
    name = text.lstrip("-~")
    if name in ("URZ", "RZ"):
        return None, c.const(0), negate, invert
    if _REGISTER.match(name):
        return name, None, negate, invert
    if _IMMEDIATE.match(text):
        digits = text.lstrip("-")
        number = int(digits, 16) if digits.startswith("0x") else int(digits)
        return None, c.const(-number if negate else number), False, False
    return None


def _fact(facts: Facts, name: str, guard: str | None) -> c.Value | None:
    """What register ``name`` holds for an instruction under ``guard``."""
    if guard is not None and CONDITIONS in facts:
        found = facts.get(f"{name}@{guard}")
        if found is not None:
            return found
    return facts.get(name)


def _operand(
    source: tuple[str | None, c.Value | None, bool, bool] | None, facts: Facts, guard: str | None
) -> c.Value | None:
    """What a source holds: a register's fact (its bits unknown when there is none), or the constant."""
    if source is None:
        return None
    name, value, negate, invert = source
    if name is not None:
        value = _fact(facts, name, guard) or _UNKNOWN
    if invert or negate:
        value = tuple(c.Bits(~b.value & b.known & MASK, b.known, 32) for b in value)  # type: ignore[union-attr]
    if negate:
        value = add(value, c.const(1))  # type: ignore[arg-type]
    return value


_WHOLE = frozenset(("UMOV", "UIADD3", "UIMAD", "UPRMT"))
"""Ops whose value is unknown when a register they read is (no bit of the result is known then)."""
_NO_PREDICATE = ((), ("!UPT",), ("!PT",))
"""A LOP3's predicate input that leaves its value alone."""
_PICKS = {"UPT": slice(0, 1), "PT": slice(0, 1), "!UPT": slice(1, 2), "!PT": slice(1, 2)}


def evaluate(write: Write, facts: Facts) -> c.Value | None:
    """What ``write``'s destination holds after it (None: nothing known)."""
    op, mods, sources, guard = write.op, write.modifiers, write.sources, write.guard

    def unknown(s: Any) -> bool:
        return s is None or (s[0] is not None and _fact(facts, s[0], guard) is None)

    if op in _WHOLE and any(s is not None and unknown(s) for s in sources):
        return None
    if op == "ULOP3":  # d, a, b, c, lut, and a predicate input (!PT: the value alone)
        if mods != ("LUT",) or len(write.operands) not in (4, 5) or write.operands[4:] not in _NO_PREDICATE:
            return None
        *values, lut = [_operand(o, facts, guard) for o in sources[:4]]
        if lut is None or len(lut) != 1 or not lut[0].exact or any(a is None for a in values):
            return None
        return lop3(*values, lut[0].value & 0xFF)  # type: ignore[arg-type]
    if op == "USEL" and len(sources) == 3:
        picks = sources[_PICKS.get(write.operands[2], slice(0, 2))]
        if any(unknown(s) for s in picks):
            return None  # a side nothing is known of
        return c.choice(*(_operand(s, facts, guard) for s in picks))  # type: ignore[arg-type]
    args = [_operand(o, facts, guard) for o in sources]
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
