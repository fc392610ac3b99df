"""One SASS instruction as NVIDIA's tools print it: address, guard, opcode with modifiers, operands.

Shared by every family that reads SASS. Pure: no I/O. Accepts the lines of

* ``nvdisasm -c`` / ``-g``: ``        /*0030*/                   LDTM.x8 R4, tmem[UR4+0x8] ;``
  (with ``-hex``, a trailing ``/* 0x... */`` encoding);
* ``cuobjdump -sass``: the same, then the encoding ``/* 0x... */`` on the line and the next;
* Nsight Compute's source view, copied: an address ``0x7f3c...`` or none, then the instruction,
  then tab-separated metric columns; or its CSV (``ncu --page source --csv``), quoted fields.

NVIDIA documents no SASS grammar; the shapes here are the ones the tools above print.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE = re.compile(
    r"^\s*(?:/\*([0-9a-fA-F]+)\*/|(0x[0-9a-fA-F]+)(?=\s))?\s*"
    r"(@!?U?P[T0-9]+\s+)?"
    r"([A-Z][A-Z0-9_]*(?:\.[\w]+)*)"
    r"((?:\s+[^;\t]*)?)\s*(?:;|\t|$)"
)
_REGISTER = re.compile(r"^R(\d+)$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
PREDICATE = re.compile(r"^!?U?P(?:T|\d+)$")
"""A predicate operand: ``P0``, ``!UP1``, ``PT``."""
_TMEM = re.compile(
    r"^tmem\[(?:(UR\d+|URZ)\s*(?:(\+\s*-?|-)\s*(0x[0-9a-fA-F]+|\d+))?|(-?)(0x[0-9a-fA-F]+|\d+))\]$"
)
_BRACKET = re.compile(r"^(\w+)?\[([^\]]*)\]$")


@dataclass(frozen=True)
class SassLine:
    """One instruction, split but not interpreted."""

    text: str
    """The instruction as printed, without address, encoding or ``;``."""
    address: int | None
    """The code offset ``/*0030*/`` (or an absolute address), when printed."""
    guard: str | None
    """The guard predicate, ``P0`` or ``!UP1``; None when unguarded."""
    opcode: str
    """``LDTM``: the name before the first dot."""
    modifiers: tuple[str, ...]
    """``("16dp32bit_t0_t15", "x2")``: the dot-separated words after the name, in order."""
    operands: tuple[str, ...]
    """``("R4", "tmem[UR4+0x40]")``."""

    def tmem(self, index: int = 0) -> tuple[str | None, int] | None:
        """The ``index``-th ``tmem[URn+imm]`` operand as (base, immediate); None if there is none."""
        found = [parse_tmem(o) for o in self.operands if o.startswith("tmem[")]
        return found[index] if index < len(found) else None


def parse_sass(text: str) -> SassLine | None:
    """The instruction on one listing line; None for a line that holds none (labels, directives).

    >>> s = parse_sass("        /*0030*/                   LDTM.16dp32bit_t0_t15.x2 R4, tmem[UR4+0x40] ;")
    >>> s.address, s.opcode, s.modifiers, s.operands
    (48, 'LDTM', ('16dp32bit_t0_t15', 'x2'), ('R4', 'tmem[UR4+0x40]'))
    >>> parse_sass("/*0100*/ @P1 UTCBAR [UR4], URZ ;  /* 0x000fe20008000000 */").guard
    'P1'
    >>> parse_sass("0x7f3c00001a30\\tSTTM.x8 tmem[UR4+0x60], R4\\t12\\t0").operands
    ('tmem[UR4+0x60]', 'R4')
    >>> parse_sass(".L_x_1:") is None, parse_sass("        /* 0x000fe20000000800 */") is None
    (True, True)
    """
    stripped = text.strip()
    if stripped.startswith('"'):
        return _from_csv(stripped)
    if not stripped or stripped.startswith(("/* 0x", "//", ".", "#")) or stripped.endswith(":"):
        return None
    m = _CODE.match(text)
    if not m:
        return None
    offset, absolute, guard, name, rest = m.groups()
    address = int(offset, 16) if offset else int(absolute, 16) if absolute else None
    rest = rest.split("/*")[0].strip().rstrip(";").strip()
    words = name.split(".")
    return SassLine(
        text=f"{name} {rest}".strip(),
        address=address,
        guard=guard.strip()[1:] if guard else None,
        opcode=words[0],
        modifiers=tuple(words[1:]),
        operands=split_operands(rest),
    )


def _from_csv(text: str) -> SassLine | None:
    """A quoted CSV row: the instruction is the first field that reads as one; an ``0x..`` field before it
    is its address.

    >>> s = _from_csv('"0x7f3c00000500","LDTM.x32 R4, tmem[UR4]","32","0"')
    >>> s.address, s.opcode, s.operands
    (139895674766592, 'LDTM', ('R4', 'tmem[UR4]'))
    """
    import csv

    fields = next(csv.reader([text]), [])
    address = None
    for field in fields:
        field = field.strip()
        if address is None and _HEX.match(field):
            address = int(field, 16)
            continue
        if not field or field[0] in '"#' or (not field[0].isalpha() and field[0] != "@"):
            continue
        found = parse_sass(field)
        if found is not None and found.operands:
            return SassLine(found.text, address, found.guard, found.opcode, found.modifiers, found.operands)
    return None


def split_operands(text: str) -> tuple[str, ...]:
    """Operands split at top-level commas (``desc[UR4][R2.64+0x4]`` stays one).

    >>> split_operands("gdesc[UR4], tmem[UR8 + 0x10], idesc[UR11], UP0")
    ('gdesc[UR4]', 'tmem[UR8+0x10]', 'idesc[UR11]', 'UP0')
    """
    out: list[str] = []
    depth = 0
    word = ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(word)
            word = ""
        else:
            word += ch
    if word.strip():
        out.append(word)
    return tuple("".join(o.split()) for o in out)


def parse_tmem(operand: str) -> tuple[str | None, int] | None:
    """``tmem[UR4+0x100000]`` -> ("UR4", 0x100000): base uniform register and the folded immediate; a
    negative one as nvdisasm prints it (``tmem[UR4+-0x80]``); no base for ``URZ`` or a constant address
    (``tmem[0x8]``: ptxas folded all of it).

    >>> parse_tmem("tmem[UR4+0x100000]"), parse_tmem("tmem[UR37]"), parse_tmem("R4")
    (('UR4', 1048576), ('UR37', 0), None)
    >>> parse_tmem("tmem[UR5+-0x80]"), parse_tmem("tmem[0x8]"), parse_tmem("tmem[URZ]")
    (('UR5', -128), (None, 8), (None, 0))
    """
    m = _TMEM.match(operand.replace(" ", ""))
    if not m:
        return None
    base, sign, digits, bare_sign, bare = m.groups()
    if bare is not None:
        sign, digits = bare_sign, bare
    if not digits:
        return (None if base in (None, "URZ") else base), 0
    value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits)
    return (None if base in (None, "URZ") else base), -value if sign and "-" in sign else value


def bracket(operand: str) -> tuple[str, str] | None:
    """``gdesc[UR4]`` -> ("gdesc", "UR4"); ``[UR4]`` -> ("", "UR4").

    >>> bracket("idesc[UR11]"), bracket("[UR4]"), bracket("UR5")
    (('idesc', 'UR11'), ('', 'UR4'), None)
    """
    m = _BRACKET.match(operand)
    return (m.group(1) or "", m.group(2)) if m else None


def register_number(operand: str) -> int | None:
    """``R12`` -> 12; anything else (``RZ``, ``UR4``) -> None.

    >>> register_number("R12"), register_number("RZ")
    (12, None)
    """
    m = _REGISTER.match(operand)
    return int(m.group(1)) if m else None
