"""Conditions: ``setp`` comparisons of abstract numbers, the predicate logic, and what a branch on a
comparison tells each of its sides about the compared register (PTX 9.7.3 "Comparison and selection").

Pure: no I/O.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from tmemviz.families.explain.follow.values import Pred, Sym, bounds, join, number
from tmemviz.ptx import constants as c
from tmemviz.ptx.names import is_name

_UNSIGNED = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_NEGATE = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}


def signed_value(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


def compare(a: c.Value, b: c.Value, cmp: str, signed: bool) -> bool | None:
    """Whether ``a cmp b`` holds for every pair of their values (True), for none (False), or it depends.

    >>> one_or_two = c.choice(c.const(1), c.const(2))
    >>> compare(c.const(2), c.const(2), "eq", False), compare(one_or_two, c.const(2), "eq", False)
    (True, None)
    """
    seen: set[bool] = set()
    for x in a:
        for y in b:
            (xl, xh), (yl, yh) = bounds(x, signed), bounds(y, signed)
            if cmp == "eq":
                r = (
                    True
                    if xl == xh == yl == yh
                    else (False if xh < yl or yh < xl or _bits_differ(x, y) else None)
                )
            elif cmp == "ne":
                r = (
                    False
                    if xl == xh == yl == yh
                    else (True if xh < yl or yh < xl or _bits_differ(x, y) else None)
                )
            elif cmp == "lt":
                r = True if xh < yl else (False if xl >= yh else None)
            elif cmp == "le":
                r = True if xh <= yl else (False if xl > yh else None)
            elif cmp == "gt":
                r = True if xl > yh else (False if xh <= yl else None)
            elif cmp == "ge":
                r = True if xl >= yh else (False if xh < yl else None)
            else:
                return None
            if r is None:
                return None
            seen.add(r)
    return seen.pop() if len(seen) == 1 else None


def _bits_differ(x: c.Bits, y: c.Bits) -> bool:
    both = x.known & y.known
    return bool((x.value ^ y.value) & both)


_HOLDS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
          "ge": operator.ge}  # fmt: skip


NEVER = Pred(False, ("never",))
"""What :func:`refine` says of a side of a branch that is never taken."""


def refine(cond: tuple[Any, ...], truth: bool, current: Any, fresh: bool = False) -> Any:
    """What the compared register holds where ``cond`` came out ``truth``: its candidates that agree
    (``current`` must still be the value compared); :data:`NEVER` when none does (that side is never
    taken).
    With ``fresh`` (the register is known not to have been written since the comparison), where it
    equals one constant, that constant, whatever was known of it before (a loop counter the loop forgot
    is 0 on the side of ``setp.ne %p, %r, 0`` that is false).

    >>> cond = ("ne", "%r1", None, (0,), False, 32)
    >>> refine(cond, False, None, fresh=True), refine(cond, True, None, fresh=True)
    ((Bits(value=0, known=4294967295, width=32),), None)
    >>> refine(cond, False, None) is None  # maybe written again since: nothing learnt
    True
    >>> refine(("eq", "%r1", c.const(3), (4,), False), True, c.const(3)) is NEVER
    True
    """
    cmp, _, was, other, signed = cond[:5]
    width = cond[5] if len(cond) > 5 else 32
    if not fresh and current != was:
        return current
    if not truth:
        cmp = _NEGATE[cmp]
    loose = type(current) is tuple and not all(b.exact for b in current)
    if current is None or isinstance(current, Sym) or loose:
        if not fresh or cmp != "eq" or len(other) != 1:
            return current
        (wanted,) = c.const(other[0], width)
        if type(current) is tuple and not any(not (b.value ^ wanted.value) & b.known for b in current):
            return NEVER  # no candidate can be that constant: this side is never taken
        return (wanted,)
    if type(current) is not tuple:
        return current
    test = _HOLDS[cmp]
    kept = [
        (b,)
        for b in current
        if any(test(signed_value(b.value, b.width) if signed else b.value, o) for o in other)
    ]
    return c.choice(*kept) if kept else NEVER


Fresh = Callable[[int, str], bool]
"""Whether no path from the ``setp`` at an index to the instruction evaluated writes a register since."""


def selp(ops: Sequence[str], val: Any, get: Any, fit: Callable[[Any], Any], fresh: Fresh | None) -> Any:
    """What ``selp d, a, b, p`` writes: ``a`` where ``p`` holds, ``b`` where not; a side that is the
    register ``p`` compared holds only its values that agree with the comparison. ``fit``: to the
    destination's width; ``fresh``: where the caller knows the paths, whether the register is unwritten
    since the comparison."""
    p = val(3)
    if isinstance(p, Pred) and p.truth is not None:
        return fit(val(1 if p.truth else 2))
    if isinstance(p, Pred) and p.cond is not None:
        name = p.cond[1]
        # Where paths that compared different values of the register meet, each path's predicate still
        # says what that path's value was compared to, if nothing wrote the register since (a pipeline
        # stage wrapped by ``setp.eq %p, %r, STAGES; selp %r, 0, %r, %p`` across a wait loop).
        unwritten = fresh is not None and len(p.cond) > 6 and name in ops[1:3] and fresh(p.cond[6], name)
        sides = []
        for i, truth in ((1, True), (2, False)):
            refined = refine(p.cond, truth, get(name), unwritten)
            if refined is NEVER:
                continue  # the predicate is never that way
            sides.append(fit(refined if ops[i] == name else val(i)))
        if not sides:
            return None
        return sides[0] if len(sides) == 1 else join(sides[0], sides[1])
    return join(fit(val(1)), fit(val(2)))


def setp(
    parts: Sequence[str],
    ops: tuple[str, ...],
    written: list[str],
    val: Any,
    text_value: Any,
    signed: bool,
    at: int = -1,
) -> dict[str, Any]:
    """The predicates a ``setp`` writes; one comparing a register with constants keeps what it compared
    (``cond``: comparison, the register, its value then, the other side's values, signedness, width,
    ``at`` the setp's index) so that a branch or ``selp`` on it can tell each side what that register
    holds."""
    cmp = next((p for p in parts[1:] if p in _FLIP or p in _UNSIGNED), None)
    boolop = next((p for p in parts[1:] if p in ("and", "or", "xor")), None)
    if cmp is None or any(p[:1] == "f" and p[1:].isdigit() for p in parts[1:]):
        return {w: Pred(None) for w in written}
    if cmp in _UNSIGNED:
        cmp, signed = _UNSIGNED[cmp], False
    a, b = number(val(1)), number(val(2))
    truth = compare(a, b, cmp, signed) if a is not None and b is not None else None
    cond = None
    # Kept even where this comparison is decided: where paths join, a side on which it is decided meets
    # one on which it is not, and the predicate still says what it compared (values.joined_cond).
    if boolop is None:
        width = next((int(p[1:]) for p in parts[1:] if p[:1] in "bsu" and p[1:].isdigit()), 32)
        for i, j, op in ((1, 2, cmp), (2, 1, _FLIP[cmp])):
            mine, other = val(i), number(val(j))
            o = [x.value if not signed else signed_value(x.value, x.width) for x in other] if other else None
            number_like = mine is None or type(mine) is tuple or isinstance(mine, Sym)
            if is_name(ops[i]) and number_like and other and all(x.exact for x in other):
                cond = (op, ops[i], mine, tuple(o or ()), signed, width, at)
                break
    if boolop is not None and len(ops) >= 4:
        p3 = text_value(ops[3].lstrip("!"))
        t3 = p3.truth if isinstance(p3, Pred) else None
        if t3 is not None and ops[3].startswith("!"):
            t3 = not t3
        truth = _bool(boolop, truth, t3)
    out = {written[0]: Pred(truth, cond)}
    if len(written) > 1:
        out[written[1]] = Pred(None if truth is None else not truth)
    return out


def _bool(op: str, a: bool | None, b: bool | None) -> bool | None:
    if op == "and":
        return False if a is False or b is False else (True if a and b else None)
    if op == "or":
        return True if a is True or b is True else (False if a is False and b is False else None)
    return None if a is None or b is None else a != b


def predicate(v: Any) -> bool | None:
    """A predicate's truth: a :class:`Pred`'s, or an immediate's (``mov.pred %p, -1``: true; 0: false)."""
    if isinstance(v, Pred):
        return v.truth
    n = number(v)
    if n is not None and len(n) == 1 and n[0].exact:
        return n[0].value != 0
    return None


def logic(head: str, ops: tuple[str, ...], written: list[str], text_value: Any) -> dict[str, Any]:
    def truth(i: int) -> bool | None:
        text = ops[i]
        v = text_value(text.lstrip("!"))
        t = predicate(v)
        return None if t is None else (not t if text.startswith("!") else t)

    if head == "mov" and len(ops) == 2:
        v = text_value(ops[1])
        return {written[0]: v if isinstance(v, Pred) else Pred(predicate(v))}
    if head == "not" and len(ops) == 2:
        t = truth(1)
        return {written[0]: Pred(None if t is None else not t)}
    if head in ("and", "or", "xor") and len(ops) == 3:
        return {written[0]: Pred(_bool(head, truth(1), truth(2)))}
    return {w: Pred(None) for w in written}
