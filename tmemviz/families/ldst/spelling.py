"""tcgen05.ld/st names in: shape names, CUTLASS atoms, PTX lines and option values.

Accepted SHAPE spellings, all case-insensitive:

* a PTX shape, with or without the dot and further qualifiers: ``16x256b``,
  ``.16x256b``, ``16x256b.x4.pack::16b``;
* a CUTLASS alias, alone or as an atom name that implies ``.num`` and packing:
  ``16dp256b``, ``16dp256b4x``, ``16dp256b4x_16b``, ``SM100_TMEM_LOAD_16dp256b4x``;
* a whole PTX instruction, operands optional:
  ``tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b.b32 ..., 16``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import Instruction, Written, make_instruction
from tmemviz.families.ldst.reduction import RED_OPS, RED_TYPES, Reduction
from tmemviz.families.ldst.shapes import KIND
from tmemviz.ptx.text import is_instruction
from tmemviz.tmem import parse_taddr
from tmemviz.values import MAX_DIGITS, agree, digits, parse_int, too_long

if TYPE_CHECKING:
    from tmemviz.ptx.line import Address, PtxLine

_CUTLASS = re.compile(r"^(?:sm100_tmem_(load|store)_)?(\d+dp\d+b)(\d+)x(_16b)?$", re.IGNORECASE)
_NUM = re.compile(r"^\.?x?(\d+)$", re.IGNORECASE)
# Qualifiers that do not change the register layout (PTX 9.7.16.8.3 syntax).
_NEUTRAL = {"sync", "aligned", "b32"}
_RED_ONLY = {"min", "max", "abs", "nan", "f32", "u32", "s32"}
"""The qualifiers of tcgen05.ld.red's reduction (PTX 9.7.16.8.3); ptxas takes them in any order."""


@dataclass(frozen=True)
class Spelling:
    """What a SHAPE argument says; ``None`` where it says nothing."""

    shape: str
    num: int | None = None
    pack: bool | None = None
    op: str | None = None
    split_offset: int | None = None
    vector_size: int | None = None
    red: tuple[str, ...] | None = None
    """For tcgen05.ld.red, its reduction qualifiers as written (lower case), e.g. ('max', 'f32')."""
    guard: str | None = None
    """The guard predicate of a PTX line (``%p2``, ``!%p2``); it does not change the layout."""
    address: Address | None = None
    """The ``[base + immediate]`` operand of a PTX line, where written."""
    registers: tuple[str, ...] | None = None
    """The register names of the vector in order, when the line writes them all (no ``...``)."""
    redval: str | None = None
    """The redval register of a tcgen05.ld.red line (braces, which compilers may write, removed)."""


def parse_spelling(text: str) -> Spelling:
    """Split a SHAPE argument into its parts; the shape name itself is checked later.

    >>> s = parse_spelling("16dp256b4x_16b")
    >>> s.shape, s.num, s.pack, s.op, s.split_offset, s.vector_size
    ('16dp256b', 4, True, None, None, None)
    >>> s = parse_spelling("tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32 [t], 4, {r0, r1};")
    >>> s.shape, s.num, s.pack, s.op, s.split_offset, s.vector_size
    ('16x32bx2', 2, True, 'st', 4, 2)
    >>> parse_spelling("tcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.f32 {a, b}, m, [t];").red
    ('max', 'abs', 'f32')
    """
    text = text.strip()
    if not text:
        raise TmemvizError("the shape is empty; give a name such as 16x256b")
    m = _CUTLASS.match(text)
    if m:
        op = {"load": "ld", "store": "st"}.get((m.group(1) or "").lower())
        return Spelling(m.group(2), digits(m.group(3), ".num"), bool(m.group(4)) or None, op)
    line = None
    if is_instruction(text):  # a PTX statement (its parser loads only then: a name is the common case)
        from tmemviz.ptx.line import parse_line

        line = parse_line(text)
    opcode, _, operands = (line.opcode, "", "") if line else text.partition(" ")
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
    shape, num, pack = None, None, None
    red: list[str] | None = None
    for token in tokens:
        low = token.lower()
        if low == "b32" and red is not None:
            raise TmemvizError(
                "tcgen05.ld.red names its .type (.u32, .s32 or .f32), not .b32 (PTX 9.7.16.8.3)"
            )
        if low in _NEUTRAL:
            continue
        if low == "red" and op == "ld" and red is None:
            red = []
        elif low in _RED_ONLY and red is not None:
            if low in red:
                raise TmemvizError(f"'{text}' repeats .{token}")
            red.append(low)
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
            num = digits(low[1:], ".num")
        elif shape is None:
            shape = token
        else:
            raise TmemvizError(f"'.{token}' is not a qualifier of tcgen05.ld/st")
    if shape is None:
        raise TmemvizError(f"'{text}' names no shape; give one such as 16x256b")
    reds = tuple(red) if red is not None else None
    if line is not None:
        return _line_spelling(line, Spelling(shape, num, pack, op, red=reds))
    offset, vector = _operands(operands)
    return Spelling(shape, num, pack, op, offset, vector, reds)


def _line_spelling(line: PtxLine, spelled: Spelling) -> Spelling:
    """Add a PTX line's operands: guard, address, split offset, register names.

    Operand order (PTX 9.7.16.8.3/4): ld ``{v}, [taddr][, imm]``; ld.red ``{v}, redval, [taddr][, imm]``
    (compilers may write redval as a one-register vector); st ``[taddr][, imm], {v}``.

    >>> s = parse_spelling("@%p2 tcgen05.st.sync.aligned.16x64b.x1.b32 [%r2 + 1048576], {%r3};")
    >>> s.guard, s.address, s.registers, s.vector_size
    ('%p2', Address(base='%r2', offset=1048576), ('%r3',), 1)
    """
    after = [
        o
        for o in line.operands[_address_index(line.operands) + 1 :]
        if not o.startswith("{") and o not in ("...", "…")
    ]
    if len(after) > 1:
        raise TmemvizError(f"'{', '.join(after)}' after the address: only one split offset may follow it")
    offset = _split_offset(after[0]) if after else None
    vectors = line.vectors()
    vector = (vectors[-1] if spelled.op == "st" else vectors[0]) if vectors else None
    names = vector if vector is not None and all(x not in ("...", "…") for x in vector) else None
    return replace(
        spelled,
        split_offset=offset,
        vector_size=len(names) if names is not None else None,
        guard=line.guard,
        address=line.address(),
        registers=names,
        redval=_redval(line.operands) if spelled.red is not None else None,
    )


def _redval(operands: list[str] | tuple[str, ...]) -> str | None:
    """ld.red's ``redval``: the operand between the vector and ``[taddr]`` (PTX 9.7.16.8.3)."""
    before = operands[1 : max(_address_index(operands), 0)]
    return before[0].strip("{} ") if len(before) == 1 else None


def _address_index(operands: list[str] | tuple[str, ...]) -> int:
    """Where ``[taddr]`` is among the operands (-1 when it is not written, e.g. a bare shape)."""
    return next((i for i, o in enumerate(operands) if o.startswith("[")), -1)


def _split_offset(text: str) -> int:
    """The operand after ``[taddr]``: immHalfSplitoff, which PTX 9.7.16.8.3 makes an immediate.

    A register or a typo is refused, never read as "no offset" (which would draw the default).

    >>> _split_offset("0x10"), _split_offset("8U")
    (16, 8)
    """
    word = text.strip()
    if len(word) > MAX_DIGITS + 3:
        raise TmemvizError(too_long("the split offset (immHalfSplitoff)", word))
    from tmemviz.ptx.line import parse_immediate

    value = parse_immediate(word)
    if value is None:
        raise TmemvizError(
            f"the split offset (immHalfSplitoff) after the address must be an immediate number, got "
            f"'{word}' (PTX 9.7.16.8.3)"
        )
    return value


def _operands(text: str) -> tuple[int | None, int | None]:
    """The immediate split offset and the register-vector size, where written (``[t], 4``)."""
    vector = None
    braces = re.search(r"\{([^}]*)\}", text)
    if braces:
        items = [x.strip() for x in braces.group(1).split(",") if x.strip()]
        if all(x not in ("...", "…") for x in items):
            vector = len(items)
    operands = [
        t.strip() for t in re.split(r"(\{[^}]*\}|\[[^\]]*\])|,", text.replace(";", "")) if t and t.strip()
    ]
    after = [
        o for o in operands[_address_index(operands) + 1 :] if not o.startswith("{") and o not in ("...", "…")
    ]
    if len(after) > 1:
        raise TmemvizError(f"'{', '.join(after)}' after the address: only one split offset may follow it")
    return (_split_offset(after[0]) if after else None), vector


def parse_num(text: str) -> int:
    """``x4``, ``.x4`` or ``4``.

    >>> parse_num(".x16")
    16
    """
    m = _NUM.match(text.strip())
    if not m:
        raise TmemvizError(f"--num must look like x4 or 4 (one of x1, x2, x4, ..., x128), got '{text}'")
    return digits(m.group(1), "--num")


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
    red: str | None = None,
    red_type: str | None = None,
    red_abs: bool = False,
    red_nan: bool = False,
) -> Instruction:
    """Combine a SHAPE spelling with the command-line options into one instruction.

    Options may repeat what the spelling says; contradicting it is an error.
    ``red``/``red_type``/``red_abs``/``red_nan`` make it a tcgen05.ld.red.
    """
    spelled = parse_spelling(shape_text)
    shape = catalog.get(KIND, spelled.shape)
    n = agree("--num", spelled.num, parse_num(num) if num is not None else None, 1, "x")
    if op is not None and op.lower() not in ("ld", "st"):
        raise TmemvizError(f"--op must be ld or st, got '{op}'")
    operation = agree("--op", spelled.op, op.lower() if op else None, "ld")
    packed = bool(spelled.pack) or pack
    offset = agree(
        "--split-offset",
        spelled.split_offset,
        parse_int(split_offset, "--split-offset") if split_offset is not None else None,
        None,
    )
    reduction = _reduction(spelled.red, red, red_type, red_abs, red_nan)
    where = parse_taddr(taddr) if taddr is not None else None
    ins = make_instruction(
        shape,
        n,
        pack=packed,
        op=operation,
        split_offset=offset,
        taddr=where,
        warp=parse_int(warp, "--warp") if warp is not None else None,
        red=reduction,
        offset=spelled.address.lane_col_at(where) if spelled.address is not None else (0, 0),
        base=spelled.address.base if spelled.address is not None else None,
    )
    if spelled.guard is not None or spelled.registers is not None:
        ins = replace(ins, written=Written(spelled.guard, spelled.registers, spelled.redval))
    if spelled.vector_size is not None and spelled.vector_size != ins.registers_per_thread:
        raise TmemvizError(
            f"the register vector has {spelled.vector_size} registers, but {ins.qualifiers} needs "
            f"{ins.registers_per_thread} (PTX Table {49 if operation == 'ld' else 50})"
        )
    return ins


def _reduction(
    spelled: tuple[str, ...] | None, op: str | None, kind: str | None, abs_: bool, nan: bool
) -> Reduction | None:
    """The tcgen05.ld.red reduction the spelling and the options describe, or None for a plain ld/st."""
    if spelled is None and op is None:
        given = [name for name, value in (("--type", kind), ("--abs", abs_), ("--nan", nan)) if value]
        if given:
            raise TmemvizError(
                f"{given[0]} describes a tcgen05.ld.red reduction; give --red min or --red max too"
            )
        return None
    words = spelled or ()
    ops = [w for w in words if w in RED_OPS]
    types = [w for w in words if w in RED_TYPES]
    if len(ops) > 1 or len(types) > 1:
        raise TmemvizError("tcgen05.ld.red takes one .redOp (.min or .max) and one .type (PTX 9.7.16.8.3)")
    if op is not None and op.strip().lower() not in RED_OPS:
        raise TmemvizError(f"--red must be min or max, got '{op}'")
    if kind is not None and kind.strip().lower().lstrip(".") not in RED_TYPES:
        raise TmemvizError(f"--type must be u32, s32 or f32 (the tcgen05.ld.red .type), got '{kind}'")
    red_op = agree("--red", ops[0] if ops else None, op.strip().lower() if op else None, None)
    red_type = agree(
        "--type", types[0] if types else None, kind.strip().lower().lstrip(".") if kind else None, None
    )
    if red_op is None:
        raise TmemvizError("tcgen05.ld.red needs .min or .max (PTX 9.7.16.8.3)")
    if red_type is None:
        raise TmemvizError("tcgen05.ld.red needs --type u32, s32 or f32 (PTX 9.7.16.8.3)")
    return Reduction(red_op, red_type, abs_ or "abs" in words, nan or "nan" in words)
