"""What a register may hold, as far as Tensor Memory addresses go: a constant, a pointer, or an alloc's base.

Pure values and the arithmetic compilers apply to them (``mov``/``add``/``and``/``cvt``/``cvta``).
Only what can be proved is kept:

* :class:`Const`: an integer (``mov.b32 %r6, 134742032``);
* :class:`Ptr`: a memory address = a root (a variable such as ``global_smem``, or an unknown value
  named by where it was made) + a byte offset, in the variable's own window (``var``) or the generic
  one after ``cvta`` (PTX 6.4.1): how an alloc's shared-memory slot is recognised when it is read back;
* :class:`Tmem`: the Tensor Memory address an alloc returned, plus lane and column offsets each known
  to lie in an interval (PTX 9.7.16.2: lane in bits 31:16, column in bits 15:0);
* :class:`Span`: a bounded offset with no base (``and.b32 %r50, %r49, 6291456`` is some lane 0..96,
  column 0), which added to a :class:`Tmem` keeps it a :class:`Tmem`.

Every value carries ``deps``, the registers it was computed from. A register defined more than once
in a function (a loop-carried value, a reused scratch register) may hold something else where it is
used, so a conclusion resting on one is dropped (see :func:`trusted`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

MASK32 = 0xFFFFFFFF
COLUMN_BITS = 0xFFFF

Interval = tuple[int, int]


@dataclass(frozen=True)
class Const:
    value: int
    deps: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Ptr:
    root: tuple[str, object]
    """``("var", "global_smem")`` for a variable; ``("opaque", n)`` for an unknown value made at one place."""
    offset: int
    space: str
    """``var`` (the variable's own window, what ``mov``/``ld.shared`` use) or ``generic`` (after cvta)."""
    deps: frozenset[str] = frozenset()

    def same_place(self, other: object) -> bool:
        """One memory location: a variable's, whichever window reached it; an unknown value's, in a space."""
        if not isinstance(other, Ptr) or (self.root, self.offset) != (other.root, other.offset):
            return False
        return self.root[0] == "var" or self.space == other.space


@dataclass(frozen=True)
class Tmem:
    alloc: int
    """Index of the function's alloc whose base this is."""
    lanes: Interval
    cols: Interval
    deps: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Span:
    lanes: Interval
    cols: Interval
    deps: frozenset[str] = frozenset()


Value = Union[Const, Ptr, Tmem, Span]


def signed32(value: int) -> int:
    """A 32-bit pattern as a signed offset.

    >>> signed32(0xFFFFFFFC), signed32(1048576)
    (-4, 1048576)
    """
    value &= MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def split(value: int) -> tuple[int, int]:
    """A (signed) address offset as (lanes, columns): ``-4`` is lane -1, column 65532 (a borrow).

    >>> split(1048576 + 128), split(-4)
    ((16, 128), (-1, 65532))
    """
    return value >> 16, value & COLUMN_BITS


def add(a: Value, b: Value, deps: frozenset[str]) -> Value | None:
    """``a + b`` where it can be known; None otherwise."""
    if isinstance(b, (Tmem, Ptr)) and not isinstance(a, (Tmem, Ptr)):
        a, b = b, a
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value + b.value, deps)
    if isinstance(a, Ptr) and isinstance(b, Const):
        return Ptr(a.root, a.offset + b.value, a.space, deps)
    if isinstance(a, (Tmem, Span)) and isinstance(b, (Const, Span)):
        if isinstance(b, Const):
            lane, col = split(signed32(b.value))
            lanes, cols = (lane, lane), (col, col)
        else:
            lanes, cols = b.lanes, b.cols
        new_lanes = (a.lanes[0] + lanes[0], a.lanes[1] + lanes[1])
        new_cols = (a.cols[0] + cols[0], a.cols[1] + cols[1])
        if new_cols[1] > COLUMN_BITS:
            return None  # a carry from the column field into the lanes: not followed
        if isinstance(a, Tmem):
            return Tmem(a.alloc, new_lanes, new_cols, deps)
        return Span(new_lanes, new_cols, deps)
    if isinstance(a, Span) and isinstance(b, Const):
        return add(b, a, deps)
    return None


def mask(a: Value | None, m: Value | None, deps: frozenset[str]) -> Value | None:
    """``a & m``: exact for constants; any value masked by a constant lies in the mask's lanes and columns.

    >>> mask(None, Const(6291456), frozenset())
    Span(lanes=(0, 96), cols=(0, 0), deps=frozenset())
    """
    if isinstance(a, Const) and isinstance(m, Const):
        return Const(a.value & m.value, deps)
    if isinstance(a, Const) and not isinstance(m, Const):
        a, m = m, a
    if isinstance(m, Const) and 0 <= m.value <= MASK32:
        return Span((0, m.value >> 16), (0, m.value & COLUMN_BITS), deps)
    return None


def shifted(a: Value | None, count: int, bits: int, deps: frozenset[str]) -> Value | None:
    """``a << count``: exact for a constant; any 32-bit value shifted by 16 or more is some lane, column 0.

    >>> shifted(None, 21, 32, frozenset())
    Span(lanes=(0, 65504), cols=(0, 0), deps=frozenset())
    """
    if isinstance(a, Const):
        return Const((a.value << count) & ((1 << bits) - 1), deps)
    if bits == 32 and 16 <= count < 32:
        return Span((0, (0xFFFF << (count - 16)) & 0xFFFF), (0, 0), deps)
    return None


def constant(op: str, values: list[Value | None], bits: int, deps: frozenset[str]) -> Const | None:
    """Shift, or, xor, mul, sub of constants, kept to the instruction's width."""
    if not all(isinstance(v, Const) for v in values) or not values:
        return None
    xs = [v.value for v in values if isinstance(v, Const)]
    wrap = (1 << bits) - 1
    try:
        result = {
            "shl": lambda: xs[0] << xs[1],
            "shr": lambda: (xs[0] & wrap) >> xs[1],
            "or": lambda: xs[0] | xs[1],
            "xor": lambda: xs[0] ^ xs[1],
            "mul": lambda: xs[0] * xs[1],
            "sub": lambda: xs[0] - xs[1],
        }[op]()
    except (KeyError, IndexError, ValueError):
        return None
    return Const(result & wrap, deps)


def with_deps(value: Value, deps: frozenset[str]) -> Value:
    """The same value, now also resting on ``deps`` (a copy into another register)."""
    if isinstance(value, Const):
        return Const(value.value, value.deps | deps)
    if isinstance(value, Ptr):
        return Ptr(value.root, value.offset, value.space, value.deps | deps)
    if isinstance(value, Tmem):
        return Tmem(value.alloc, value.lanes, value.cols, value.deps | deps)
    return Span(value.lanes, value.cols, value.deps | deps)


def trusted(deps: frozenset[str], definitions: Mapping[str, int]) -> bool:
    """Whether every register a value rests on is defined exactly once in its function (SSA-like), so
    the value computed where it was defined is the value wherever it is used.

    >>> trusted(frozenset({"%r1"}), {"%r1": 1}), trusted(frozenset({"%r1"}), {"%r1": 2})
    (True, False)
    """
    return all(definitions.get(r, 0) == 1 for r in deps)
