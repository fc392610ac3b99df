"""tcgen05.cp names in: ``64x128b.warpx2::01_23``, a whole PTX line, a CUTLASS ``SM100_UTCCP_*`` atom.

All spellings are case-insensitive; options may repeat what the spelling says,
but contradicting it is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.cp.layout import Copy, make_copy
from tmemviz.families.cp.shapes import KIND, CopyShape, Placement
from tmemviz.ptx.line import Address, is_instruction, parse_line
from tmemviz.tmem import parse_taddr
from tmemviz.values import agree

_UTCCP = re.compile(r"^(?:sm100_utccp_)?([0-9a-z]+?)(?:_([12])cta)?$", re.IGNORECASE)
_CP_MULTICASTS = {"warpx2::02_13", "warpx2::01_23", "warpx4"}
_CP_FORMATS = {"b4x16_p64", "b6x16_p32"}


@dataclass(frozen=True)
class CopySpelling:
    """What a tcgen05.cp SHAPE argument says; ``None`` where it says nothing."""

    shape: str
    multicast: str | None = None
    cta_group: int | None = None
    decompress: str | None = None
    address: Address | None = None
    """The ``[base + immediate]`` operand of a PTX line, where written."""
    guard: str | None = None
    """The guard predicate of a PTX line (``%p2``, ``!%p2``); it does not change the copy."""


def find_cutlass_copy(catalog: Catalog, name: str) -> tuple[CopyShape, Placement] | None:
    """The cp shape and multicast of a CUTLASS ``SM100_UTCCP_*`` atom name (without _1cta/_2cta)."""

    def bare(text: str) -> str:
        return text.strip().lower().removeprefix("sm100_utccp_")

    for shape in catalog.shapes(KIND):
        for placement in shape.placements:
            if placement.cutlass and bare(placement.cutlass) == bare(name):
                return shape, placement
    return None


def parse_cp_spelling(catalog: Catalog, text: str) -> CopySpelling:
    """Split a cp SHAPE argument: ``64x128b.warpx2::01_23``, a PTX line or a CUTLASS atom.

    >>> from tmemviz.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> s = parse_cp_spelling(catalog, "SM100_UTCCP_2x64dp128bitlw0123_2cta")
    >>> s.shape, s.multicast, s.cta_group, s.decompress
    ('64x128b', 'warpx2::01_23', 2, None)
    >>> s = parse_cp_spelling(catalog, "@%p1 tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 [%r1+32], d;")
    >>> s.shape, s.cta_group, s.decompress, s.address, s.guard
    ('128x128b', 1, 'b6x16_p32', Address(base='%r1', offset=32), '%p1')
    """
    text = text.strip()
    if not text:
        raise TmemvizError("the shape is empty; give a tcgen05.cp shape such as 128x256b")
    m = _UTCCP.match(text)
    if m and "." not in text:
        found = find_cutlass_copy(catalog, m.group(1))
        if found is not None:
            shape, placement = found
            return CopySpelling(shape.name, placement.multicast, int(m.group(2)) if m.group(2) else None)
    line = parse_line(text) if is_instruction(text) else None
    opcode = line.opcode if line is not None else text.split()[0]
    tokens = [t for t in opcode.split(".") if t]
    whole_line = len(tokens) >= 2 and tokens[0].lower() == "tcgen05"
    if whole_line:
        if tokens[1].lower() != "cp":
            raise TmemvizError(
                f"tcgen05.{tokens[1]} is not a tcgen05.cp instruction; use 'tmemviz layout' for ld/st"
            )
        tokens = tokens[2:]
    found: dict[int, str] = {}
    for token in tokens:
        low = token.lower()
        slot = _cp_slot(low, shape_seen=1 in found)
        if slot == 0:
            parse_cta_group(low)  # a wrong value is the clearer message, wherever it stands
        if slot in found:
            raise TmemvizError(f"'{text}' has two {_CP_SLOTS[slot]} qualifiers (.{found[slot]} and .{token})")
        if found and slot < max(found):
            raise TmemvizError(
                f"'.{token}' is out of place in '{text}': tcgen05.cp qualifiers go in the order "
                ".cta_group.shape.multicast.b8x16.src_fmt (PTX 9.7.16.9.2)"
            )
        found[slot] = low if slot != 1 else token
    if 1 not in found:
        raise TmemvizError(f"'{text}' names no tcgen05.cp shape; give one such as 128x256b")
    if (3 in found) != (4 in found):
        raise TmemvizError(
            ".dst_fmt and .src_fmt come as a pair: write .b8x16.b4x16_p64 or .b8x16.b6x16_p32 "
            "(PTX 9.7.16.9.2)"
        )
    if whole_line and 0 not in found:
        raise TmemvizError("a tcgen05.cp instruction needs .cta_group::1 or .cta_group::2 (PTX 9.7.16.9.2)")
    cta_group = parse_cta_group(found[0]) if 0 in found else None
    address = line.address() if line is not None else None
    guard = line.guard if line is not None else None
    return CopySpelling(found[1], found.get(2), cta_group, found.get(4), address, guard)


_CP_SLOTS = (".cta_group", "shape", ".multicast", ".dst_fmt (.b8x16)", ".src_fmt")
"""The qualifier slots of tcgen05.cp, in the order the PTX syntax writes them."""


def _cp_slot(token: str, *, shape_seen: bool) -> int:
    """Which slot of :data:`_CP_SLOTS` a lower-cased qualifier fills."""
    if token.startswith("cta_group::"):
        return 0
    if token in _CP_MULTICASTS:
        return 2
    if token == "b8x16":
        return 3
    if token in _CP_FORMATS:
        return 4
    if shape_seen:
        raise TmemvizError(f"'.{token}' is not a qualifier of tcgen05.cp (PTX 9.7.16.9.2)")
    return 1


def parse_cta_group(text: str | int) -> int:
    """``1``, ``2`` or ``cta_group::2``."""
    key = str(text).strip().lower().lstrip(".").removeprefix("cta_group::")
    if key not in ("1", "2"):
        raise TmemvizError(f"the CTA group must be 1 or 2 (.cta_group::1 / .cta_group::2), got '{text}'")
    return int(key)


def resolve_copy(
    catalog: Catalog,
    shape_text: str,
    *,
    multicast: str | None = None,
    cta_group: str | None = None,
    decompress: str | None = None,
    taddr: str | None = None,
) -> Copy:
    """Combine a cp SHAPE spelling with the command-line options into one copy."""
    spelled = parse_cp_spelling(catalog, shape_text)
    shape = catalog.get(KIND, spelled.shape)
    given_multicast = multicast.strip().lower().lstrip(".") if multicast is not None else None
    fmt = decompress.strip().lower().lstrip(".").removeprefix("b8x16.") if decompress is not None else None
    where = parse_taddr(taddr) if taddr is not None else None
    return make_copy(
        shape,
        agree("--multicast", spelled.multicast, given_multicast, None),
        agree(
            "--cta-group", spelled.cta_group, parse_cta_group(cta_group) if cta_group is not None else None, 1
        ),
        agree("--decompress", spelled.decompress, fmt, None),
        where,
        spelled.address.lane_col_at(where) if spelled.address is not None else (0, 0),
        spelled.address.base if spelled.address is not None else None,
    )
