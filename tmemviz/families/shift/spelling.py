"""tcgen05.shift names in: a PTX line as people write it and as compilers print it.

Both qualifier orders are read, the PTX syntax line's ``tcgen05.shift.cta_group::1.down``
and the PTX example's ``tcgen05.shift.down.cta_group::1`` (ptxas accepts both and refuses a
missing or repeated qualifier). A line may carry a guard predicate (``@%p1``), an operand
with an immediate (``[%r2]``, ``[%r2+16]``, ``[ %r2 + 0x100000 ]``, ``[%r2+-4]``, ``[64]``),
a ``;`` and a ``// comment``; :mod:`tmemviz.ptx.line` splits the line, this module reads what
tcgen05.shift means by it. Qualifiers are case-insensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.shift.layout import Address, Shift, make_shift
from tmemviz.families.shift.shapes import KIND
from tmemviz.ptx.line import is_instruction, parse_address, parse_line
from tmemviz.tmem import parse_taddr

IMPLICIT = "31x256b"
"""The one shape of tcgen05.shift, never written in PTX (Data Movement Shape table: implicit)."""
EXAMPLE = "tcgen05.shift.cta_group::1.down [taddr];"
_OTHER_COMMANDS = {"cp": "cp", "ld": "layout", "st": "layout"}
"""Other tcgen05 instructions tmemviz shows, and the command that shows each."""


@dataclass(frozen=True)
class ShiftSpelling:
    """What a tcgen05.shift line says."""

    cta_group: int
    address: Address
    guard: str | None = None


def parse_shift_line(text: str) -> ShiftSpelling:
    """Read one tcgen05.shift line in either qualifier order (:mod:`tmemviz.ptx.line` splits it).

    >>> parse_shift_line("tcgen05.shift.down.cta_group::2 [taddr0];")
    ShiftSpelling(cta_group=2, address=Address(register='taddr0', immediate=0), guard=None)
    >>> parse_shift_line("@%p1 tcgen05.shift.cta_group::1.down [ %r2 + 0x100000 ]; // next row")
    ShiftSpelling(cta_group=1, address=Address(register='%r2', immediate=1048576), guard='@%p1')
    """
    line = parse_line(text)
    tokens = line.opcode.split(".")
    _check_opcode(tokens, line.text)
    found: dict[str, str] = {}
    for token in tokens[2:]:
        low = token.lower()
        slot = _slot(low)
        if slot in found:
            raise TmemvizError(
                f"'{line.text}' has two {slot} qualifiers (.{found[slot]} and .{token}); "
                "tcgen05.shift takes each once (ptxas refuses a repeated one)"
            )
        found[slot] = low
    if ".down" not in found:
        raise TmemvizError(
            f"'{line.text}' lacks .down, the direction tcgen05.shift requires: write "
            "tcgen05.shift.cta_group::1.down or .cta_group::2.down (PTX 9.7.16.9.3)"
        )
    if ".cta_group" not in found:
        raise TmemvizError(
            f"'{line.text}' lacks .cta_group::1 or .cta_group::2, which tcgen05.shift requires "
            "(PTX 9.7.16.9.3)"
        )
    guard = f"@{line.guard}" if line.guard else None
    return ShiftSpelling(parse_cta_group(found[".cta_group"]), _address(line.operands), guard)


def _check_opcode(tokens: list[str], text: str) -> None:
    """The line must be a tcgen05.shift; another tcgen05 instruction is pointed to its command."""
    head = [t.lower() for t in tokens[:2]]
    if head[:1] != ["tcgen05"] or len(head) < 2:
        raise TmemvizError(
            f"'{text.strip()}' is not a tcgen05.shift instruction; give one such as '{EXAMPLE}'"
        )
    if head[1] != "shift":
        command = _OTHER_COMMANDS.get(head[1])
        hint = f"; use 'tmemviz {command}'" if command else ""
        raise TmemvizError(f"tcgen05.{tokens[1]} is not tcgen05.shift{hint}")


def _slot(token: str) -> str:
    """Which qualifier of tcgen05.shift a lower-cased token is; anything else is an error."""
    if token.startswith("cta_group"):
        parse_cta_group(token)  # a wrong value is the clearer message
        return ".cta_group"
    if token == "down":
        return ".down"
    if re.fullmatch(r"\d+x\d+b", token):
        raise TmemvizError(
            f"tcgen05.shift writes no shape: its .31x256b is implicit (PTX 9.7.16.9.3) and ptxas refuses "
            f"'.{token}'"
        )
    raise TmemvizError(
        f"'.{token}' is not a qualifier of tcgen05.shift, which takes .cta_group::1 or .cta_group::2 "
        "and .down (PTX 9.7.16.9.3)"
    )


def names_shift(text: str) -> bool:
    """Whether ``text`` is a tcgen05.shift line (after any guard), for commands that take any instruction.

    >>> names_shift("@%p1 tcgen05.shift.down.cta_group::1 [%r2];"), names_shift("16x256b")
    (True, False)
    """
    return is_instruction(text, "tcgen05.shift")


def parse_cta_group(text: str | int) -> int:
    """``1``, ``2`` or ``cta_group::2``.

    >>> parse_cta_group("cta_group::2"), parse_cta_group(1)
    (2, 1)
    """
    key = str(text).strip().lower().lstrip(".").removeprefix("cta_group::")
    if key not in ("1", "2"):
        raise TmemvizError(f"the CTA group must be 1 or 2 (.cta_group::1 / .cta_group::2), got '{text}'")
    return int(key)


def _address(operands: tuple[str, ...]) -> Address:
    """``[reg]``, ``[reg+imm]`` or ``[imm]`` (any PTX integer); no operand at all means ``[taddr]``."""
    if not operands:
        return Address()
    if len(operands) > 1 or not operands[0].startswith("["):
        raise TmemvizError(
            f"tcgen05.shift takes one operand, [taddr] or [taddr+imm], got '{', '.join(operands)}'"
        )
    found = parse_address(operands[0])
    if not -(1 << 31) <= found.offset < 1 << 32:
        raise TmemvizError(f"the address immediate {found.offset} does not fit a 32-bit TMEM address")
    return Address(found.base, found.offset)


def resolve_shift(catalog: Catalog, text: str, *, taddr: str | None = None) -> Shift:
    """A tcgen05.shift line plus ``--taddr`` (the register's LANE,COL or 0x address) as one shift."""
    spelled = parse_shift_line(text)
    shape = catalog.get(KIND, IMPLICIT)
    base = parse_taddr(taddr) if taddr is not None else None
    return make_shift(shape, spelled.cta_group, spelled.address, base)
