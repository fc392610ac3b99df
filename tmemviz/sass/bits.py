"""Integer operations on values of which some bits are known (:data:`tmemviz.ptx.constants.Value`), as
the uniform-register instructions of :mod:`tmemviz.sass.writes` compute them: each result allows every
value the operation can give for the values its operands allow (tests/sass/test_writes.py checks them
against brute force). Pure: no I/O.
"""

from __future__ import annotations

from tmemviz.ptx import constants as c

MASK = 0xFFFFFFFF


def add(a: c.Value, b: c.Value) -> c.Value:
    """``a + b`` (32 bits) with the bits it can know: where the unknown bits of both sides and the carries
    they may cause cannot reach, the sum is known (an unknown bit over a known 0 with no carry arriving
    stays where it is: ptxas adds what the PTX ORed when the bits cannot overlap, as CuTe DSL's ``or`` of
    an idesc and run-time scale-factor IDs). The tristate-number addition of Vishwanathan et al., "Sound,
    Precise, and Fast Abstract Interpretation with Tristate Numbers" (CGO 2022), shown there sound and
    optimal; tests/sass/test_writes.py checks it against every concrete sum.

    >>> [(hex(x.value), hex(x.known)) for x in add((c.Bits(0, 0x9FFFFFCF),), c.const(0x08c02000))]
    [('0x8c02000', '0x9fffffcf')]
    >>> add(c.const(3), c.const(-4))[0].value == 0xFFFFFFFF
    True
    """

    def one(x: c.Bits, y: c.Bits) -> c.Bits:
        xm, ym = ~x.known & MASK, ~y.known & MASK
        if not xm and not ym:
            return c.Bits((x.value + y.value) & MASK, MASK, 32)
        total = (x.value & x.known) + (y.value & y.known)
        carried = (total + xm + ym) ^ total  # bits the unknown ones and their carries can change
        unknown = (carried | xm | ym) & MASK
        return c.Bits(total & ~unknown & MASK, ~unknown & MASK, 32)

    return c.choice(*((one(x, y),) for x in a for y in b))


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
    """``a * b + d`` when every candidate of ``a`` and ``b`` is exact (a product's low bits would need more
    care); ``d`` may be partly known (``IMAD.U32 R4, RZ, RZ, UR9`` copies UR9's known bits).

    >>> multiply_add(c.const(0), c.const(0), (c.Bits(0x10c0, 0xffff9fff, 32),))
    (Bits(value=4288, known=4294942719, width=32),)
    """
    if not all(x.exact for v in (a, b) for x in v):
        return None
    return add(c.choice(*(c.const(x.value * y.value) for x in a for y in b)), d)
