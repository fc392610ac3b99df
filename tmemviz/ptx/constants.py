"""What a register holds when the compiler built it from constants: one value, a choice of several,
or some bits known and others set at run time.

A tcgen05.mma's instruction descriptor is rarely one ``mov``: the CuTe DSL writes
``selp.b32 %r26, 138420240, 138412048, %p1; or.b32 %r27, %r26, %r25;`` (a choice of constants), a
block-scaled MMA ORs a run-time scale-factor ID into bits that are otherwise constant. This module
follows, inside one function and in program order, the integer instructions that build such values
(``mov``, ``selp``, ``or``, ``and``, ``xor``, ``shl``, ``shr``, ``add``, ``cvt`` between integer
types, ``prmt`` with a constant selector, ``mov.b32 {lo, hi}`` and ``mov.b64 %rd, {lo, hi}``), and
forgets a register whenever anything else writes it. A guarded write (``@%p mov``) makes a choice
between the old and the new value.

A value is a tuple of :class:`Bits` candidates (at most :data:`MAX_CANDIDATES`; more are merged
into the bits they share). Pure: no I/O.
"""

from __future__ import annotations

from typing import NamedTuple

MAX_CANDIDATES = 64


class Bits(NamedTuple):
    """A ``width``-bit value of which the bits set in ``known`` are ``value``'s; the others vary."""

    value: int
    known: int
    width: int = 32

    @property
    def exact(self) -> bool:
        return self.known == (1 << self.width) - 1


Value = tuple[Bits, ...]


def const(value: int, width: int = 32) -> Value:
    """One exactly known value (two's complement for negative numbers).

    >>> const(-1, 16)
    (Bits(value=65535, known=65535, width=16),)
    """
    mask = (1 << width) - 1
    return (Bits(value & mask, mask, width),)


def unknown(width: int = 32) -> Value:
    return (Bits(0, 0, width),)


def choice(*values: Value) -> Value:
    """Any one of ``values`` (duplicates dropped; too many merge into the bits all agree on).

    >>> choice(const(5), const(7), const(5))
    (Bits(value=5, known=4294967295, width=32), Bits(value=7, known=4294967295, width=32))
    """
    seen: dict[Bits, None] = {}
    for v in values:
        for b in v:
            seen[b] = None
    out = tuple(seen)
    if len(out) <= MAX_CANDIDATES:
        return out
    return (merge(out),)


def merge(candidates: Value) -> Bits:
    """The bits every candidate knows and agrees on.

    >>> merge(const(0b1100) + const(0b1000))
    Bits(value=8, known=4294967291, width=32)
    """
    width = max(b.width for b in candidates)
    known = (1 << width) - 1
    first = candidates[0]
    for b in candidates:
        known &= b.known & ~(b.value ^ first.value)
    return Bits(first.value & known, known, width)


def _mask(width: int) -> int:
    return (1 << width) - 1


def _pairwise(a: Value, b: Value, op) -> Value:  # type: ignore[no-untyped-def]
    return choice(*((op(x, y),) for x in a for y in b))


def bit_or(a: Value, b: Value, width: int = 32) -> Value:
    """``or``: a known 1 on either side is a known 1.

    >>> bit_or(const(0x08000000), (Bits(0, 0xFFFFFF0F),))  # bits 4..7 of the right side vary
    (Bits(value=134217728, known=4294967055, width=32),)
    """
    m = _mask(width)

    def op(x: Bits, y: Bits) -> Bits:
        known = ((x.known & y.known) | (x.known & x.value) | (y.known & y.value)) & m
        return Bits((x.value | y.value) & known, known, width)

    return _pairwise(a, b, op)


def bit_and(a: Value, b: Value, width: int = 32) -> Value:
    """``and``: a known 0 on either side is a known 0."""
    m = _mask(width)

    def op(x: Bits, y: Bits) -> Bits:
        known = ((x.known & y.known) | (x.known & ~x.value) | (y.known & ~y.value)) & m
        return Bits(x.value & y.value & known, known, width)

    return _pairwise(a, b, op)


def bit_xor(a: Value, b: Value, width: int = 32) -> Value:
    def op(x: Bits, y: Bits) -> Bits:
        known = x.known & y.known
        return Bits((x.value ^ y.value) & known, known, width)

    return _pairwise(a, b, op)


def shift(a: Value, amount: Value, left: bool, signed: bool, width: int = 32) -> Value:
    """``shl``/``shr`` by a known amount; shifted-in bits are known (zeros, or the sign when known).

    >>> shift(const(1), const(14), True, False)
    (Bits(value=16384, known=4294967295, width=32),)
    >>> shift(unknown(), const(28), False, False)[0].known == 0xFFFFFFF0
    True
    """
    m = _mask(width)
    out: list[Value] = []
    for s in amount:
        if not s.exact:
            return unknown(width)
        k = min(s.value, width)
        for x in a:
            if left:
                out.append((Bits((x.value << k) & m, ((x.known << k) | ((1 << k) - 1)) & m, width),))
                continue
            top = m & ~(m >> k)
            sign = 1 << (width - 1)
            value, known = x.value >> k, x.known >> k
            if not signed or (x.known & sign and not x.value & sign):
                known |= top
            elif x.known & sign:
                value, known = value | top, known | top
            out.append((Bits(value & known, known, width),))
    return choice(*out)


def add(a: Value, b: Value, width: int = 32) -> Value:
    """``add``: exact when both are; else the bits below the lowest varying bit of either.

    >>> add(const(3), const(-4))
    (Bits(value=4294967295, known=4294967295, width=32),)
    >>> add(const(16), (Bits(0, 0x000000FF),))  # bits 8.. of the right side vary
    (Bits(value=16, known=255, width=32),)
    """
    m = _mask(width)

    def op(x: Bits, y: Bits) -> Bits:
        varying = (~x.known | ~y.known) & m
        low = (varying & -varying) - 1 if varying else m
        return Bits((x.value + y.value) & low, low, width)

    return _pairwise(a, b, op)


def resize(a: Value, width: int, signed: bool = False) -> Value:
    """``cvt`` between integer types: truncate, or extend with zeros (or the sign when known)."""
    out = []
    for x in a:
        m = _mask(width)
        if width <= x.width:
            out.append(Bits(x.value & m, x.known & m, width))
            continue
        top = m & ~_mask(x.width)
        sign = 1 << (x.width - 1)
        if not signed or (x.known & sign and not x.value & sign):
            out.append(Bits(x.value, x.known | top, width))
        elif x.known & sign:
            out.append(Bits(x.value | top, x.known | top, width))
        else:
            out.append(Bits(x.value, x.known, width))
    return choice(*((b,) for b in out))


def join(parts: list[Value], part_width: int) -> Value:
    """``mov.b64 %rd, {lo, hi}`` (or ``.b32`` of two halves): the parts, lowest first.

    >>> join([const(1, 16), const(2, 16)], 16)
    (Bits(value=131073, known=4294967295, width=32),)
    """
    width = part_width * len(parts)
    acc: Value = (Bits(0, 0, width),)
    for i, part in enumerate(parts):
        shifted = tuple(Bits(p.value << (i * part_width), p.known << (i * part_width), width) for p in part)
        acc = choice(*((Bits(x.value | y.value, x.known | y.known, width),) for x in acc for y in shifted))
    return acc


def split(a: Value, count: int, part_width: int) -> list[Value]:
    """``mov.b64 {lo, hi}, %rd``: the parts, lowest first."""
    m = _mask(part_width)
    return [
        choice(*((Bits((x.value >> (i * part_width)) & m, (x.known >> (i * part_width)) & m, part_width),)
                 for x in a))
        for i in range(count)
    ]  # fmt: skip


def permute(a: Value, b: Value, selector: Value) -> Value:
    """``prmt.b32 d, a, b, c`` (default mode, PTX 9.7.9.7): each byte of d picks one of the 8 bytes
    of {b, a} by a selector nibble; bit 3 of the nibble replicates that byte's sign bit.

    >>> hex(permute(const(0x11223344), const(0x55667788), const(0x5410))[0].value)  # a is bytes 0..3
    '0x77883344'
    """
    out: list[Value] = []
    for s in selector:
        if s.known & 0xFFFF != 0xFFFF:
            return unknown()
        for x in a:
            for y in b:
                source_v = x.value | (y.value << 32)
                source_k = (x.known & 0xFFFFFFFF) | ((y.known & 0xFFFFFFFF) << 32)
                value = known = 0
                for i in range(4):
                    nibble = (s.value >> (4 * i)) & 0xF
                    byte = nibble & 7
                    bv, bk = (source_v >> (8 * byte)) & 0xFF, (source_k >> (8 * byte)) & 0xFF
                    if nibble & 8:
                        sign_known = bk & 0x80
                        bv, bk = (0xFF if bv & 0x80 else 0) if sign_known else 0, 0xFF if sign_known else 0
                    value |= bv << (8 * i)
                    known |= bk << (8 * i)
                out.append((Bits(value & known, known, 32),))
    return choice(*out)


def describe(v: Value) -> str:
    """``0x00000010``, ``one of 0x.., 0x..``, or ``0x08..??..`` style bits with the varying ones named.

    >>> describe(const(16)), describe(choice(const(1), const(2)))
    ('0x00000010', 'one of 0x00000001, 0x00000002')
    """
    texts = []
    for b in v:
        if b.exact:
            texts.append(f"0x{b.value:0{b.width // 4}x}")
        else:
            texts.append(f"0x{b.value:0{b.width // 4}x} (bits varying: mask 0x{~b.known & _mask(b.width):x})")
    return texts[0] if len(texts) == 1 else "one of " + ", ".join(texts)
