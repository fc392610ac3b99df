"""What a block-scaled MMA's scale-factor addresses and a dense MMA's scale-input-d say.

Scale-factor Tensor Memory addresses (``[scale-A-tmem]``, ``[scale-B-tmem]`` of ``.kind::mxf8f6f4``,
``mxf4``, ``mxf4nvf4`` with ``.block_scale``): bits 31:30 hold the scale factor's byte in the 32-bit
TMEM word (its SF ID, 0..3), bits 29:16 the lane, bits 15:0 the column. The PTX ISA's TMEM address has
the lane in bits 31:16 (9.7.16.2); CUTLASS and the CuTe DSL write the byte above the lane and copy it
into the instruction descriptor's SF ID fields (CUTLASS ``cute/arch/mma_sm100_desc.hpp``,
``make_runtime_instr_desc_block_scaled``: ``(tmem_sf_addr & 0xC0000000) >> 30``; docs/facts.md).

scale-input-d (PTX ISA 9.7.16.10.9 tcgen05.mma, optional immediate after enable-input-d): D = A x B +
D x 2^-scale-input-d, for ``.kind::f16`` and ``.kind::tf32`` (the ISA's forms with scale-input-d; CCCL's
``cuda::ptx::tcgen05_mma`` lists the same two kinds), 0..15 (ptxas: "expected to be in range [0..15]").

Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

SF_BYTE_SHIFT = 30
"""The scale factor's byte (SF ID) is bits 31:30 of a scale-factor address."""
SF_LANE_MASK = 0x3FFF
"""The lane of a scale-factor address is bits 29:16: 14 bits of the 16 the PTX ISA gives the lane."""
SCALE_INPUT_D_KINDS = ("f16", "tf32")
SCALE_INPUT_D_RANGE = range(16)


def split(address: int) -> tuple[int, int, int]:
    """(byte, lane, column) of a scale-factor address (a 32-bit value: an immediate or a register's).

    >>> split(1073742288)  # CUTLASS's base + 0x40000000 + 464
    (1, 0, 464)
    >>> split(0xC0100020)
    (3, 16, 32)
    """
    address &= 0xFFFFFFFF
    return address >> SF_BYTE_SHIFT, (address >> 16) & SF_LANE_MASK, address & 0xFFFF


def lane(lane_field: int) -> int:
    """The lane of bits 31:16 of a scale-factor address (read as the ISA's lane field), without the byte.

    >>> lane(16384 + 3)
    3
    """
    return lane_field & SF_LANE_MASK


def byte_of(value: Any, offset: int) -> int | None:
    """The byte (bits 31:30) of ``register + offset`` (one 32-bit add, as ptxas folds it) when the
    register's value (a :data:`tmemviz.ptx.constants.Value`; None when nothing is known of it, ``()`` for
    an address with no register) makes it one number: its bits from the highest unknown one up are
    known, and every carry the unknown bits may make gives the same byte.

    >>> from tmemviz.ptx.constants import Bits, const
    >>> byte_of((), 0x80000000), byte_of(const(0x40000000), 16), byte_of(None, 0x40000000)
    (2, 1, None)
    >>> byte_of((Bits(0, 0xFFFF0000),), 0x40000010)  # a column set at run time: no carry reaches bit 30
    1
    >>> byte_of((Bits(0, 0x0000FFFF),), 0x40000010) is None  # a lane set at run time: bit 30 unknown
    True
    """
    if value == ():
        return (offset & 0xFFFFFFFF) >> SF_BYTE_SHIFT
    if value is None:
        return None
    offset &= 0xFFFFFFFF
    found = set()
    for b in value:
        v, k = b.value & 0xFFFFFFFF, b.known & 0xFFFFFFFF
        unknown = ~k & 0xFFFFFFFF
        top = unknown.bit_length()  # bits from `top` up are known
        if top > SF_BYTE_SHIFT:
            return None
        low = (1 << top) - 1
        least = (v & low & k) + (offset & low)
        most = ((v & low) | unknown) + (offset & low)
        for carry in range(least >> top, (most >> top) + 1):  # each carry out of the unknown bits
            total = ((v >> top) + (offset >> top) + carry) << top
            found.add((total & 0xFFFFFFFF) >> SF_BYTE_SHIFT)
    return found.pop() if len(found) == 1 else None


def formula(enable: str | None, scale: int | None, enabled: bool | None) -> str:
    """What the MMA computes into D, given enable-input-d (its operand and, when known, its value) and
    scale-input-d.

    >>> formula("%p1", None, None)
    'D = A x B + D where %p1 is true, D = A x B where it is false'
    >>> formula("1", 8, True), formula("0", 8, False)
    ('D = A x B + D x 2^-8', 'D = A x B')
    """
    accumulate = "D = A x B + D" + (f" x 2^-{scale}" if scale else "")
    if enabled is True:
        return accumulate
    if enabled is False:
        return "D = A x B"
    return f"{accumulate} where {enable} is true, D = A x B where it is false"


def scale_input_d_problems(kind: str, scale: int) -> list[str]:
    """Why a scale-input-d value is not one the ISA allows for ``kind`` (none when it is).

    >>> scale_input_d_problems("f16", 16), scale_input_d_problems("f16", 15)
    (['scale-input-d 16 is out of range: D x 2^-scale-input-d takes 0..15 (PTX ISA tcgen05.mma; ptxas \
refuses it)'], [])
    """
    out = []
    if scale not in SCALE_INPUT_D_RANGE:
        out.append(
            f"scale-input-d {scale} is out of range: D x 2^-scale-input-d takes 0..15 (PTX ISA tcgen05.mma; "
            "ptxas refuses it)"
        )
    if kind not in SCALE_INPUT_D_KINDS:
        out.append(
            f"scale-input-d is defined for .kind::f16 and .kind::tf32 only, not .kind::{kind} (PTX ISA "
            "tcgen05.mma)" + ("; ptxas 13.0 and 13.5 accept it for .kind::i8" if kind == "i8" else "")
        )
    return out
