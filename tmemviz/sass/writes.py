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

import math
import re
import struct
from typing import Any, NamedTuple

from tmemviz.ptx import constants as c
from tmemviz.sass.line import PREDICATE, SassLine
from tmemviz.sass.operands import REGISTER, source

_LINE = re.compile(
    r"^\s*(?:/\*[0-9a-fA-F]+\*/|0x[0-9a-fA-F]+)?\s*(?:@(!?U?P(?:T|\d+))\s+)?([A-Z][A-Z0-9_]*)((?:\.\w+)*)\s+([^;]*)"
)
_NAMED_PREDICATE = re.compile(r"(?<![@!\w])!?(U?P\d+)\b|(?<=[^@]!)(U?P\d+)\b")
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
    thread), ``"VOTE"`` (an unguarded ``VOTEU.ANY``/``.ALL`` of the predicate in ``operands``: two of the
    same predicate with nothing written between are the same), ``"diverge"`` (:data:`DIVERGE`); or None
    (the registers are forgotten)."""
    operands: tuple[str, ...] = ()
    """The source operands, after the destination (and the carry-out predicates of ``UIADD3``)."""
    modifiers: tuple[str, ...] = ()
    guard: str | None = None
    sources: tuple[Any, ...] = ()
    """``operands`` read once (:func:`~tmemviz.sass.operands.source`): what evaluating them asks of
    the facts."""
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
    rest = rest.split("/*", 1)[0]
    return _write(guard, opcode, tuple(modifiers[1:].split(".")) if modifiers else (), rest.split(","), rest)


def write_of(sass: SassLine) -> Write | None:
    """:func:`write_in` for an instruction already parsed."""
    return _write(sass.guard, sass.opcode, sass.modifiers, list(sass.operands), ",".join(sass.operands))


def _write(guard: str | None, opcode: str, mods: tuple[str, ...], ops: list[str], rest: str) -> Write | None:
    """The write of an instruction (``ops``: its operands; ``rest``: them as written, joined by commas)."""
    if guard in ("!PT", "!UPT") or not ops:
        return None  # never executed, or writes nothing
    guard = _guard(guard)
    predicates = _predicates_named(opcode, ops) if "P" in rest else ()
    first = ops[0].strip()
    at = 1 if len(ops) > 1 and PREDICATE.match(first) else 0
    found = REGISTER.match(ops[at].strip()) if at or first else None
    if opcode == "ELECT":
        registers = (f"UR{found.group(2)}",) if found and found.group(1) == "UR" else ()
        return Write(registers, "ELECT", guard=guard, predicates=predicates)
    if opcode == "VOTEU" and mods[:1] in (("ANY",), ("ALL",)) and guard is None and len(ops) == 2:
        voted = ops[1].strip()
        if PREDICATE.match(first) and PREDICATE.match(voted):
            return Write((), "VOTE", (voted,), mods[:1], predicates=predicates)
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
        while rest and PREDICATE.match(rest[0]):
            rest = rest[1:]  # the carry-out predicates
    operands = tuple(o.removesuffix(".reuse") for o in rest)
    sources = tuple(map(source, operands))
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
