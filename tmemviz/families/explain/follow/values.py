"""What a register may hold, for the data-flow analysis of a kernel: the abstract values and their lattice.

* a number: a :data:`~tmemviz.ptx.constants.Value` (one or a few candidate values, or bits of which some
  are known; :mod:`tmemviz.ptx.constants`): a constant, a choice of constants (an accumulator stage in
  0..stages-1), a thread's position (``%tid.x`` in warp 2 is 64 plus five unknown bits);
* :class:`Sym`: a base that is not a number the PTX shows, plus a number: a variable's address
  (``("var", "smem")``), a value made by an instruction the analysis does not follow (``("def", k)``:
  copies and offsets of it are still recognised), or what a load read from a place (``("slot",
  place)``: an alloc's base address once the place is known to be its slot);
* :class:`Pred`: a predicate, true, false or unknown, with the comparison that set it (so a branch
  on it tells each side what the compared register holds there);
* ``None``: nothing known (the top of the lattice); a register absent from a state holds it.

Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Union

from tmemviz.ptx import constants as c

MAX_STAGES = 3
"""A number with at most this many unknown bits is kept as its candidate values (``and.b32 %r, %n, 1``
is 0 or 1: two accumulator stages, each judged on its own); more stay bits."""

MAX_COUNTED = 12
"""A loop-carried number is let grow one candidate per round up to this many before widening keeps only
its shared bits: pipelines have a few stages, and a stage counter wraps before that."""


class Sym(NamedTuple):
    """A base and an offset (a named tuple: compared and hashed in C, as states are joined often; a
    number is a plain tuple, told apart by its exact type)."""

    base: tuple[Any, ...]
    offset: c.Value


class Vec(NamedTuple):
    """One value per warp of a group of warps run together (the first warp's first), where they differ:
    what ``%tid.x`` and what is computed from it hold in each. Warps that branch alike are followed as
    one group; a branch that parts them splits it (:class:`~tmemviz.families.explain.follow.machine.
    Split`)."""

    items: tuple[Any, ...]


def vec(items: Any) -> Any:
    """The value of a group from its warps' values: one value where all agree."""
    items = tuple(items)
    first = items[0]
    for x in items:
        if x != first:
            return Vec(items)
    return first


def element(v: Any, i: int) -> Any:
    """Warp ``i``'s value (of its group)."""
    return v.items[i] if type(v) is Vec else v


class Pred(NamedTuple):
    truth: bool | None
    cond: tuple[Any, ...] | None = None
    """``(cmp, register, its value when compared, the other side's value, signed)`` or None."""


Abstract = Union[c.Value, Sym, Pred]
ZERO = c.const(0)
UNKNOWN_PRED = Pred(None)


def number(v: Any) -> c.Value | None:
    """``v`` when it is a number."""
    return v if type(v) is tuple else None


def stages(v: c.Value) -> c.Value:
    """Candidates for a value with few unknown bits (see :data:`MAX_STAGES`).

    >>> [b.value for b in stages((c.Bits(0, 0xFFFFFFFE),))]
    [0, 1]
    """
    if all(b.known == (1 << b.width) - 1 for b in v):  # every candidate exact (most): nothing to split
        return v
    out: list[c.Bits] = []
    for b in v:
        mask = ~b.known & ((1 << b.width) - 1)
        if b.exact or bin(mask).count("1") > MAX_STAGES:
            out.append(b)
            continue
        bits = [1 << i for i in range(b.width) if mask >> i & 1]
        full = (1 << b.width) - 1
        for k in range(1 << len(bits)):
            value = b.value
            for i, bit in enumerate(bits):
                if k >> i & 1:
                    value |= bit
            out.append(c.Bits(value, full, b.width))
    return c.choice(*((x,) for x in out)) if len(out) != len(v) else v


def join(a: Any, b: Any) -> Any:
    """What holds on either of two paths (None: nothing known)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    # Where ``b`` brings nothing ``a`` does not hold, ``a`` itself (what the join would rebuild): the
    # solve then finds the state the same at once.
    if type(a) is Vec or type(b) is Vec:
        n = len(a.items) if type(a) is Vec else len(b.items)
        xs = a.items if type(a) is Vec else (a,) * n
        ys = b.items if type(b) is Vec else (b,) * n
        items = [join(x, y) for x, y in zip(xs, ys, strict=True)]
        if type(a) is Vec and all(i is x for i, x in zip(items, xs, strict=True)):
            return a
        return vec(items)
    if type(a) is tuple and type(b) is tuple:
        return a if len(a) <= c.MAX_CANDIDATES and all(x in a for x in b) else c.choice(a, b)
    if isinstance(a, Sym) and isinstance(b, Sym) and a.base == b.base:
        if len(a.offset) <= c.MAX_CANDIDATES and all(x in a.offset for x in b.offset):
            return a
        return Sym(a.base, c.choice(a.offset, b.offset))
    if isinstance(a, Pred) and isinstance(b, Pred):
        return Pred(a.truth if a.truth == b.truth else None, joined_cond(a.cond, b.cond))
    return None


VARIES = ("varies",)
"""In a predicate's ``cond``: the compared register's value differs between the paths joined (the
comparison still says what that register holds wherever nothing wrote it since)."""


def joined_cond(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    """What two paths' comparisons behind one predicate share: the same ``setp`` of the same register
    with the same constants keeps its ``cond``, the compared value becoming :data:`VARIES` where the paths
    disagree on it (a loop counter compared each round); anything else: None."""
    if a == b:
        return a
    if a is None or b is None or len(a) < 7 or len(a) != len(b) or a[:2] != b[:2] or a[3:] != b[3:]:
        return None
    return (*a[:2], VARIES, *a[3:])


def widen(old: Any, new: Any, counted: bool = True) -> Any:
    """At a loop header, once the loop has gone round a few times: a value still changing keeps what its
    candidates agree on (a base, known bits), which can only shrink, so the loop's facts stop growing."""
    if old == new or old is None or new is None:
        return new
    if type(old) is Vec or type(new) is Vec:
        n = len(old.items) if type(old) is Vec else len(new.items)
        return vec(widen(element(old, i), element(new, i), counted) for i in range(n))
    if type(new) is tuple:
        return _counted(new, counted)
    if isinstance(new, Sym):
        return Sym(new.base, _counted(new.offset, counted))
    if isinstance(new, Pred):
        return Pred(new.truth, joined_cond(old.cond, new.cond) if isinstance(old, Pred) else None)
    return None


def _counted(v: c.Value, counted: bool) -> c.Value:
    if counted and len(v) <= MAX_COUNTED and all(b.exact for b in v):
        return v  # a pipeline stage or phase: it stops growing at its count (refined at a branch)
    return (c.merge(v),) if len(v) > 1 else v


def bounds(b: c.Bits, signed: bool = False) -> tuple[int, int]:
    """The least and greatest value ``b`` can hold.

    >>> bounds(c.Bits(64, ~31 & 0xFFFFFFFF)), bounds(c.Bits(0, 0x7FFFFFFF), True)
    ((64, 95), (-2147483648, 0))
    """
    full = (1 << b.width) - 1
    free = ~b.known & full
    if not signed:
        return b.value & b.known, (b.value & b.known) | free
    sign = 1 << (b.width - 1)
    low, high = b.value & b.known, (b.value & b.known) | free
    if free & sign:  # the sign varies: the lowest sets it, the highest clears it
        return (low | sign) - (1 << b.width), high & ~sign
    if low & sign:
        return low - (1 << b.width), high - (1 << b.width)
    return low, high


def exact(v: Any) -> int | None:
    """The one value a number holds, or None."""
    if type(v) is tuple and len(v) == 1 and v[0].exact:
        return v[0].value
    return None


def values(v: c.Value) -> list[int] | None:
    """Every value of a number whose candidates are all exact (None otherwise)."""
    if all(b.exact for b in v):
        return [b.value for b in v]
    return None
