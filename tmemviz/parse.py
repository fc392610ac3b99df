"""Turn what users type (shape names, CUTLASS atoms, PTX lines, option values) into values.

Accepted SHAPE spellings, all case-insensitive:

* a PTX shape, with or without the dot and further qualifiers: ``16x256b``,
  ``.16x256b``, ``16x256b.x4.pack::16b``;
* a CUTLASS alias, alone or as an atom name that implies ``.num`` and packing:
  ``16dp256b``, ``16dp256b4x``, ``16dp256b4x_16b``, ``SM100_TMEM_LOAD_16dp256b4x``;
* a whole PTX instruction, operands optional:
  ``tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b.b32 ..., 16``.

tcgen05.cp SHAPE arguments work the same way: ``64x128b.warpx2::01_23``, a whole
``tcgen05.cp...`` line, or a CUTLASS ``SM100_UTCCP_*`` atom name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.mapper import Instruction, make_instruction

if TYPE_CHECKING:
    from tmemviz.mapper_cp import Copy

_CUTLASS = re.compile(r"^(?:sm100_tmem_(load|store)_)?(\d+dp\d+b)(\d+)x(_16b)?$", re.IGNORECASE)
_NUM = re.compile(r"^\.?x?(\d+)$", re.IGNORECASE)
# Qualifiers that do not change the register layout (PTX 9.7.16.8.3 syntax).
T = TypeVar("T")
_NEUTRAL = {"sync", "aligned", "b32"}
_RED_ONLY = {"min", "max", "abs", "nan", "f32", "u32", "s32"}


@dataclass(frozen=True)
class Spelling:
    """What a SHAPE argument says; ``None`` where it says nothing."""

    shape: str
    num: int | None = None
    pack: bool | None = None
    op: str | None = None
    split_offset: int | None = None
    vector_size: int | None = None
    red: bool = False


def parse_spelling(text: str) -> Spelling:
    """Split a SHAPE argument into its parts; the shape name itself is checked later.

    >>> parse_spelling("16dp256b4x_16b")
    Spelling(shape='16dp256b', num=4, pack=True, op=None, split_offset=None, vector_size=None, red=False)
    >>> parse_spelling("tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32 [t], 4, {r0, r1};")
    Spelling(shape='16x32bx2', num=2, pack=True, op='st', split_offset=4, vector_size=2, red=False)
    """
    text = text.strip()
    if not text:
        raise TmemvizError("the shape is empty; give a name such as 16x256b")
    m = _CUTLASS.match(text)
    if m:
        op = {"load": "ld", "store": "st"}.get((m.group(1) or "").lower())
        return Spelling(m.group(2), int(m.group(3)), bool(m.group(4)) or None, op)
    opcode, _, operands = text.partition(" ")
    tokens = [t for t in opcode.split(".") if t]
    if not tokens:
        raise TmemvizError(f"'{text}' names no shape; give one such as 16x256b")
    op = None
    if tokens[0].lower() == "tcgen05":
        if len(tokens) < 2 or tokens[1].lower() not in ("ld", "st"):
            what = tokens[1] if len(tokens) > 1 else "nothing"
            hint = "; use 'tmemviz cp' for tcgen05.cp" if what.lower() == "cp" else ""
            raise TmemvizError(f"tcgen05.{what} is not a tcgen05.ld or tcgen05.st instruction{hint}")
        op = tokens[1].lower()
        tokens = tokens[2:]
    shape, num, pack, red = None, None, None, False
    for token in tokens:
        low = token.lower()
        if low in _NEUTRAL:
            continue
        if low == "red" and op == "ld":
            red = True
        elif low in _RED_ONLY and red:
            continue
        elif low in ("pack::16b", "unpack::16b"):
            wanted = "ld" if low == "pack::16b" else "st"
            if op is not None and op != wanted:
                raise TmemvizError(f".{low} belongs to tcgen05.{wanted}, not tcgen05.{op} (PTX 9.7.16.8)")
            op = op or wanted
            if pack:
                raise TmemvizError(f"'{text}' repeats the pack qualifier")
            pack = True
        elif re.fullmatch(r"x\d+", low):
            if num is not None:
                raise TmemvizError(f"'{text}' has two .num qualifiers (.x{num} and .{token}); give one")
            num = int(low[1:])
        elif shape is None:
            shape = token
        else:
            raise TmemvizError(f"'.{token}' is not a qualifier of tcgen05.ld/st")
    if shape is None:
        raise TmemvizError(f"'{text}' names no shape; give one such as 16x256b")
    offset, vector = _operands(operands)
    return Spelling(shape, num, pack, op, offset, vector, red)


def _operands(text: str) -> tuple[int | None, int | None]:
    """The immediate split offset and the register-vector size, where written."""
    vector = None
    braces = re.search(r"\{([^}]*)\}", text)
    if braces:
        items = [x.strip() for x in braces.group(1).split(",") if x.strip()]
        if all(x not in ("...", "…") for x in items):
            vector = len(items)
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", text).replace(";", "")
    numbers = [t.strip() for t in bare.split(",") if re.fullmatch(r"\s*(0x[0-9a-f]+|\d+)\s*", t, re.I)]
    offset = parse_int(numbers[-1], "immHalfSplitoff") if numbers else None
    return offset, vector


def parse_int(text: str | int, what: str) -> int:
    """A whole number written in decimal or 0x hex.

    >>> parse_int("0x10", "--lane")
    16
    """
    if isinstance(text, int):
        return text
    t = text.strip()
    try:
        return int(t, 16) if t.lower().startswith("0x") else int(t, 10)
    except ValueError:
        raise TmemvizError(f"{what} must be a whole number, got '{text}'") from None


def parse_num(text: str) -> int:
    """``x4``, ``.x4`` or ``4``.

    >>> parse_num(".x16")
    16
    """
    m = _NUM.match(text.strip())
    if not m:
        raise TmemvizError(f"--num must look like x4 or 4 (one of x1, x2, x4, ..., x128), got '{text}'")
    return int(m.group(1))


def parse_taddr(text: str) -> tuple[int, int]:
    """``LANE,COL`` or a 32-bit TMEM address (lane in bits 31:16, column in 15:0).

    >>> parse_taddr("0x00200010"), parse_taddr("16, 8")
    ((32, 16), (16, 8))
    """
    if "," in text:
        lane, _, col = text.partition(",")
        return parse_int(lane, "the taddr lane"), parse_int(col, "the taddr column")
    value = parse_int(text, "--taddr (LANE,COL or a 0x address)")
    if not 0 <= value < 1 << 32:
        raise TmemvizError(f"--taddr must be a 32-bit address, got {text}")
    return value >> 16, value & 0xFFFF


def parse_threads(text: str) -> frozenset[int]:
    """``0,17`` or ``0-3,17``: thread ids (lane ids in the warp, 0..31).

    >>> sorted(parse_threads("0-2,17"))
    [0, 1, 2, 17]
    """
    threads: set[int] = set()
    for part in text.split(","):
        lo, dash, hi = part.strip().partition("-")
        first = parse_int(lo, "--highlight")
        last = parse_int(hi, "--highlight") if dash else first
        if not 0 <= first <= last < 32:
            raise TmemvizError(f"--highlight takes threads 0..31 such as 0,17 or 0-3, got '{part.strip()}'")
        threads.update(range(first, last + 1))
    return frozenset(threads)


def parse_half(text: str) -> int:
    """``lo`` (bits 15:0) or ``hi`` (bits 31:16); 0 and 1 also work."""
    halves = {"lo": 0, "0": 0, "low": 0, "hi": 1, "1": 1, "high": 1}
    key = text.strip().lower()
    if key not in halves:
        raise TmemvizError(f"--half must be lo (bits 15:0) or hi (bits 31:16), got '{text}'")
    return halves[key]


def resolve(
    catalog: Catalog,
    shape_text: str,
    *,
    num: str | None = None,
    pack: bool = False,
    op: str | None = None,
    split_offset: str | None = None,
    taddr: str | None = None,
    warp: str | None = None,
) -> Instruction:
    """Combine a SHAPE spelling with the command-line options into one instruction.

    Options may repeat what the spelling says; contradicting it is an error.
    """
    spelled = parse_spelling(shape_text)
    shape = catalog.get(spelled.shape)
    n = _agree("--num", spelled.num, parse_num(num) if num is not None else None, 1, "x")
    if op is not None and op.lower() not in ("ld", "st"):
        raise TmemvizError(f"--op must be ld or st, got '{op}'")
    operation = _agree("--op", spelled.op, op.lower() if op else None, "ld")
    packed = bool(spelled.pack) or pack
    offset = _agree(
        "--split-offset",
        spelled.split_offset,
        parse_int(split_offset, "--split-offset") if split_offset is not None else None,
        None,
    )
    if spelled.red and shape.name not in ("32x32b", "16x32bx2"):
        raise TmemvizError(f"tcgen05.ld.red takes .32x32b or .16x32bx2, not {shape.name} (PTX 9.7.16.8.3)")
    if spelled.red and n < 2:
        raise TmemvizError("tcgen05.ld.red needs .num of at least .x2 (PTX 9.7.16.8.3)")
    ins = make_instruction(
        shape,
        n,
        pack=packed,
        op=operation,
        split_offset=offset,
        taddr=parse_taddr(taddr) if taddr is not None else None,
        warp=parse_int(warp, "--warp") if warp is not None else None,
    )
    if spelled.vector_size is not None and spelled.vector_size != ins.registers_per_thread:
        raise TmemvizError(
            f"the register vector has {spelled.vector_size} registers, but {ins.qualifiers} needs "
            f"{ins.registers_per_thread} (PTX Table {49 if operation == 'ld' else 50})"
        )
    return ins


def _agree(option: str, spelled: T | None, given: T | None, default: T, prefix: str = "") -> T:
    if spelled is not None and given is not None and spelled != given:
        raise TmemvizError(f"the shape says {prefix}{spelled} but {option} says {prefix}{given}")
    if given is not None:
        return given
    return spelled if spelled is not None else default


# --- tcgen05.cp ---------------------------------------------------------------

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


def parse_cp_spelling(catalog: Catalog, text: str) -> CopySpelling:
    """Split a cp SHAPE argument: ``64x128b.warpx2::01_23``, a PTX line or a CUTLASS atom.

    >>> from tmemviz.catalog import load_catalog
    >>> parse_cp_spelling(load_catalog(), "SM100_UTCCP_2x64dp128bitlw0123_2cta")
    CopySpelling(shape='64x128b', multicast='warpx2::01_23', cta_group=2, decompress=None)
    >>> parse_cp_spelling(load_catalog(), "tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 [t], d;")
    CopySpelling(shape='128x128b', multicast=None, cta_group=1, decompress='b6x16_p32')
    """
    text = text.strip()
    if not text:
        raise TmemvizError("the shape is empty; give a tcgen05.cp shape such as 128x256b")
    m = _UTCCP.match(text)
    if m and "." not in text:
        found = catalog.find_cutlass_copy(m.group(1))
        if found is not None:
            shape, placement = found
            return CopySpelling(shape.name, placement.multicast, int(m.group(2)) if m.group(2) else None)
    opcode = text.split()[0]
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
    return CopySpelling(found[1], found.get(2), cta_group, found.get(4))


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
    from tmemviz.mapper_cp import make_copy

    spelled = parse_cp_spelling(catalog, shape_text)
    shape = catalog.get_copy(spelled.shape)
    given_multicast = multicast.strip().lower().lstrip(".") if multicast is not None else None
    fmt = decompress.strip().lower().lstrip(".").removeprefix("b8x16.") if decompress is not None else None
    return make_copy(
        shape,
        _agree("--multicast", spelled.multicast, given_multicast, None),
        _agree(
            "--cta-group", spelled.cta_group, parse_cta_group(cta_group) if cta_group is not None else None, 1
        ),
        _agree("--decompress", spelled.decompress, fmt, None),
        parse_taddr(taddr) if taddr is not None else None,
    )
