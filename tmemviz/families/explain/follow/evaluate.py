"""What one PTX instruction writes into its registers, in the abstract values of
:mod:`tmemviz.families.explain.follow.values`, for one thread position.

The integer instructions compilers build addresses, descriptors, stage indices and conditions with are
followed (``mov``, ``cvt``, ``cvta``, ``add``, ``sub``, ``mul``, ``mad``, ``shl``, ``shr``, ``and``,
``or``, ``xor``, ``not``, ``neg``, ``min``, ``max``, ``rem``, ``div``, ``selp``, ``prmt``, ``setp`` and
the predicate logic, ``shfl.sync``, loads); anything else makes an opaque value named by the instruction
(its copies and offsets are still known to be the same place). A thread position (:class:`Thread`)
gives ``%tid``, ``%laneid`` and ``%warpid`` their values in one warp of the CTA.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.follow.conditions import Fresh, logic, selp, setp, signed_value
from tmemviz.families.explain.follow.values import ZERO, Sym, element, exact, number, stages, vec
from tmemviz.ptx import constants as c
from tmemviz.ptx.body import Body, Instruction
from tmemviz.ptx.line import opcode_types, parse_immediate
from tmemviz.ptx.registers import NO_DESTINATION

Get = Callable[[str], Any]


class Thread:
    """A position in the CTA: the warps ``warps`` (None: any) of a CTA of ``ntid`` threads (None: unknown).
    A group of several warps gives each its own values (:class:`~tmemviz.families.explain.follow.values.
    Vec`); :meth:`single` is one of them alone."""

    def __init__(self, warps: tuple[int, ...] | int | None, ntid: tuple[int, int, int] | None) -> None:
        if isinstance(warps, int):
            warps = (warps,)
        self.warps, self.ntid = warps, ntid
        self.warp = warps[0] if warps else None
        """The (first) warp; None for any thread."""
        self.size = len(warps) if warps else 1
        self._special: dict[str, Any] = {}
        self._single: dict[int, Thread] = {}

    def single(self, i: int) -> Thread:
        """The ``i``-th warp of the group, alone."""
        found = self._single.get(i)
        if found is None:
            assert self.warps is not None
            found = self._single[i] = Thread(self.warps[i], self.ntid)
        return found

    def special(self, name: str) -> Any:
        """``%tid.x``, ``%laneid``, ``%warpid`` ... in this warp; None for what differs between CTAs.

        >>> t = Thread(2, (128, 1, 1))
        >>> t.special("%tid.x")[0].value, hex(t.special("%tid.x")[0].known), t.special("%tid.y")
        (64, '0xffffffe0', (Bits(value=0, known=4294967295, width=32),))
        """
        if name not in self._special:
            if self.size > 1:
                self._special[name] = vec(self.single(i).special(name) for i in range(self.size))
            else:
                self._special[name] = self._compute(name)
        return self._special[name]

    def _compute(self, name: str) -> c.Value | None:
        if name == "%laneid":
            return (c.Bits(0, 0xFFFFFFE0),)
        if self.warp is None:
            return None
        if self.ntid is None:
            # No launch bounds: the threads whose %tid.x lies in 32w..32w+31 (warp w when the CTA is
            # one-dimensional); nothing is assumed of %tid.y, %tid.z or the hardware's %warpid.
            return (c.Bits(32 * self.warp, 0xFFFFFFE0),) if name == "%tid.x" else None
        if name == "%warpid":
            return c.const(self.warp)
        axis = {"%tid.x": 0, "%tid.y": 1, "%tid.z": 2}.get(name)
        if axis is None:
            return None
        x, y, _ = self.ntid
        seen = set()
        for t in range(32 * self.warp, 32 * self.warp + 32):
            seen.add((t % x, (t // x) % y, t // (x * y))[axis])
        # The lanes of a warp are no choice of stages: their values merge into the bits they share.
        return (c.merge(tuple(c.const(v)[0] for v in sorted(seen))),)


def operand(text: str, get: Get, thread: Thread, body: Body) -> Any:
    """The value of one operand: a register, an immediate, a special register, or a variable's address."""
    if text[:1] == "%":
        if "." in text:
            return thread.special(text)
        found = thread.special(text) if text in ("%laneid", "%warpid") else None
        return found if found is not None else get(text)
    if (number := _immediate(text)) is not None:
        return number
    if text in body.names:
        return get(text)
    if text[:1].isalpha() or text[:1] in "_$":
        return Sym(("var", text), ZERO)
    return None


@lru_cache(maxsize=4096)
def _immediate(text: str) -> c.Value | None:
    """An integer constant operand's value (64 bits wide), remembered: kernels repeat a few constants."""
    number = parse_immediate(text)
    return c.const(number, 64) if number is not None else None


def address(text: str, get: Get, thread: Thread, body: Body) -> Any:
    """The value of ``[a + b + ...]``."""
    total: Any = ZERO
    for term in text.strip()[1:-1].split("+"):
        term = term.strip()
        if not term:
            return None
        total = _add(total, operand(term, get, thread, body), 64)
        if total is None:
            return None
    return total


def columns(ins: Instruction, get: Get, thread: Thread, body: Body) -> int | None:
    """An alloc's or dealloc's nCols (its last operand) where it is one number (None otherwise)."""
    try:
        last = ins.parsed.operands[-1].strip()
    except (TmemvizError, IndexError):
        return None
    return exact(operand(last, get, thread, body))


def addresses(text: str, get: Get, thread: Thread, body: Body) -> list[Any]:
    """``[...]``'s value in each warp of the thread's group (one value for a single warp)."""
    if thread.size == 1:
        return [address(text, get, thread, body)]
    return [
        address(text, lambda r, i=i: element(get(r), i), thread.single(i), body) for i in range(thread.size)
    ]


def effect(
    body: Body,
    ins: Instruction,
    get: Get,
    thread: Thread,
    written: list[str] | tuple[str, ...] | None = None,
    fresh: Fresh | None = None,
) -> dict[str, Any]:
    """Each register ``ins`` writes (``written``: them, where the caller knows) -> its value after it
    (None: unknown); a guarded write is the caller's to join with the old value. ``fresh``: where the
    caller knows the paths to ``ins``, whether a comparison still holds there (a ``selp`` then picks
    each side's values of the compared register)."""
    if written is None:
        written = body.writes(ins)
    if not written:
        return {}
    try:
        out = _evaluate(body, ins, written, get, thread, fresh)
    except TmemvizError:
        out = {}
    if len(written) > 1:
        return {w: out.get(w) for w in written}
    w = written[0]  # most instructions: one register, made opaque where nothing was worked out for it
    return {w: out[w] if w in out else None if ins.head in _PREDICATE else Sym(("def", ins.index), ZERO)}


_PREDICATE = frozenset(("setp", "elect", "vote", "mbarrier", "testp"))
_EVALUATED = frozenset(("mov", "cvt", "cvta", "shfl", "ld", "selp", "add", "sub", "or", "and", "xor", "shl",
                        "shr", "not", "neg", "mul", "mad", "min", "max", "rem", "div", "prmt"))  # fmt: skip
"""The heads :func:`_evaluate` computes a value for (besides ``setp`` and the predicate logic)."""
PURE = _EVALUATED - {"shfl", "ld"}
"""Of those, the heads whose result is a function of the operands alone: two unguarded instructions with
the same opcode and operands give the same value (a shuffle reads another lane, a load memory)."""
_MEMORY = ("param", "const", "global", "local")
"""State spaces a load reads no followed value from (only shared memory holds an alloc's address)."""


def independent(ins: Instruction) -> bool:
    """Whether :func:`effect` gives ``ins``'s registers the same values whatever its operands hold: a
    floating-point operation or comparison (no address, descriptor or stage is computed in floating
    point), a load from memory other than shared, a rounding ``cvt``, an opcode not followed. What such
    an instruction reads need not be followed at all.

    >>> from tmemviz.ptx.body import Instruction
    >>> def ins(text):
    ...     opcode, _, rest = text.partition(" ")
    ...     return Instruction(0, 1, text, opcode, opcode.split(".")[0], rest, None, 0)
    >>> [independent(ins(t)) for t in ("setp.gt.f32 %p1, %f1, %f2", "setp.lt.s32 %p1, %r1, 4",
    ...  "fma.rn.f32 %f3, %f1, %f2, %f3", "ld.global.u32 %r1, [%rd1]", "ld.shared.u32 %r1, [%r2]",
    ...  "popc.b32 %r1, %r2", "and.pred %p3, %p1, %p2", "add.s32 %r1, %r2, 1")]
    [True, False, True, True, False, True, False, False]
    """
    head = ins.head
    if head in NO_DESTINATION:
        return True
    parts, _, _, floating = opcode_types(ins.opcode)
    if head == "setp":
        return floating  # conditions.setp: a floating-point comparison is not known
    if "pred" in parts:
        return False
    if floating:
        return True
    if head == "ld":
        return any(p in _MEMORY for p in parts)
    if head == "cvt" and "rn" in parts:
        return True
    return head not in _EVALUATED


def _evaluate(
    body: Body, ins: Instruction, written: Any, get: Get, thread: Thread, fresh: Fresh | None = None
) -> dict[str, Any]:
    head = ins.head
    if head in NO_DESTINATION:
        return {}
    line = ins.parsed
    ops = line.operands
    parts, width, signed, floating = opcode_types(ins.opcode)
    if head != "setp" and floating:
        return {}  # floating point: no address, descriptor or condition is built with it

    def val(i: int) -> Any:
        return operand(ops[i], get, thread, body)

    if head == "setp":
        text_value = lambda text: operand(text, get, thread, body)  # noqa: E731
        return setp(parts, ops, written, val, text_value, signed, ins.index)
    if "pred" in parts:
        return logic(head, ops, written, lambda text: operand(text, get, thread, body))
    if head == "mov" and len(ops) == 2:
        if ops[0].startswith("{") or ops[1].startswith("{"):
            return _vector_move(ops, written, width, get)
        return {written[0]: _fit(val(1), width)}
    if head in ("cvt", "cvta"):
        return {written[0]: _fit(val(1), width)} if len(ops) == 2 and "rn" not in parts else {}
    if head == "shfl":  # every lane gets some lane's value of the same register: within what it holds
        return {written[0]: val(1)}
    if head == "ld":
        if any(p in _MEMORY for p in parts):
            return {}
        place = address(ops[1], get, thread, body) if len(ops) == 2 and ops[1].startswith("[") else None
        key = _place(place)
        return {written[0]: Sym(("slot", key), ZERO)} if key is not None else {}
    if head == "selp" and len(ops) == 4:
        return {written[0]: selp(ops, val, get, lambda v: _fit(v, width), fresh)}
    return _arith(head, parts, ops, written, val, width, signed)


def _place(value: Any) -> tuple[Any, ...] | None:
    """A memory place as a key: a base and one byte offset."""
    if isinstance(value, Sym):
        at = exact(value.offset)
        return (value.base, at) if at is not None else None
    at = exact(value)
    return (("abs",), at) if at is not None else None


def _fit(value: Any, width: int) -> Any:
    n = number(value)
    if n is None:
        return value
    for b in n:  # most are of the width already: no generator for them
        if b.width != width:
            return _resized(n, width) if len(n) == 1 else c.resize(n, width)
    return n


@lru_cache(maxsize=4096)
def _resized(n: c.Value, width: int) -> c.Value:
    """One number at another width, remembered: an immediate (read 64 bits wide) in 32-bit code."""
    return c.resize(n, width)


def _vector_move(ops: tuple[str, ...], written: list[str], width: int, get: Get) -> dict[str, Any]:
    if ops[0].startswith("{"):  # mov.b64 {lo, hi}, %rd: split
        source = number(get(ops[1]))
        if source is None:
            return {}
        return dict(zip(written, c.split(source, len(written), width // len(written)), strict=True))
    names = [x.strip() for x in ops[1][1:-1].split(",")]
    parts = [number(get(n)) for n in names]
    if any(p is None for p in parts) or not names:
        return {}
    return {written[0]: c.join(parts, width // len(names))}  # type: ignore[arg-type]


def _add(a: Any, b: Any, width: int) -> Any:
    if a is None or b is None:
        return None
    na, nb = number(a), number(b)
    if na is not None and nb is not None:
        return loose(c.add(_fit(na, width), _fit(nb, width), width), na, nb)
    if isinstance(a, Sym) and nb is not None:
        return Sym(a.base, loose(c.add(_fit(a.offset, width), _fit(nb, width), width), a.offset, nb))
    if isinstance(b, Sym) and na is not None:
        return Sym(b.base, loose(c.add(_fit(b.offset, width), _fit(na, width), width), b.offset, na))
    return None


def loose(result: c.Value, *operands: c.Value) -> c.Value:
    """``result`` of an operation on ``operands``: where two of them are each a choice, every pair was
    combined, but the values may be tied (a counter and its remainder come from one register), so
    pairs no path makes are among them; the result then keeps only the bits all agree on, no choice of
    stages (each judged on its own) that may never happen."""
    if sum(1 for o in operands if len(o) > 1) < 2 or len(result) < 2:
        return result
    return (c.merge(result),)


def _neg(a: c.Value, width: int) -> c.Value:
    return c.add(c.bit_xor(a, c.const(-1, width), width), c.const(1, width), width)


def _arith(
    head: str,
    parts: tuple[str, ...],
    ops: tuple[str, ...],
    written: list[str],
    val: Any,
    width: int,
    signed: bool,
) -> dict[str, Any]:
    if len(written) != 1:
        return {}
    d = written[0]
    args = [val(i) for i in range(1, len(ops))]
    if head == "add" and len(args) == 2:
        return {d: _add(args[0], args[1], width)}
    if head == "sub" and len(args) == 2:
        nb = number(args[1])
        if isinstance(args[0], Sym) and isinstance(args[1], Sym) and args[0].base == args[1].base:
            return {d: c.add(_fit(args[0].offset, width), _neg(_fit(args[1].offset, width), width), width)}
        return {d: _add(args[0], _neg(_fit(nb, width), width) if nb is not None else None, width)}
    if head == "or" and len(args) == 2 and (isinstance(args[0], Sym) or isinstance(args[1], Sym)):
        # A base ORed with an offset: Tensor Memory addresses are built this way with the offset's
        # bits clear in the base (lane 0, an allocation column aligned to the offset's size).
        return {d: _add(args[0], args[1], width)}
    numbers = [number(a) for a in args]
    if any(n is None for n in numbers):
        if head in ("and", "or", "shl", "shr") and len(numbers) == 2:
            numbers = [n if n is not None else c.unknown(width) for n in numbers]
        else:
            return {}
    ns = [_fit(n, width) for n in numbers]  # type: ignore[arg-type]
    result: c.Value | None = None
    if head in ("and", "or", "xor") and len(ns) == 2:
        result = {"and": c.bit_and, "or": c.bit_or, "xor": c.bit_xor}[head](ns[0], ns[1], width)
    elif head in ("shl", "shr") and len(ns) == 2:
        result = c.shift(ns[0], numbers[1], head == "shl", signed, width)  # type: ignore[arg-type]
    elif head == "not" and len(ns) == 1:
        result = c.bit_xor(ns[0], c.const(-1, width), width)
    elif head == "neg" and len(ns) == 1:
        result = _neg(ns[0], width)
    elif head in ("mul", "mad") and len(ns) >= 2:
        wide = "wide" in parts
        result = _pairs(ns[0], ns[1], lambda x, y: x * y, 2 * width if wide else width, signed)
        if result is not None and head == "mad" and len(ns) == 3:
            result = c.add(result, _fit(ns[2], 2 * width if wide else width), 2 * width if wide else width)
    elif head in ("min", "max", "rem", "div") and len(ns) == 2:
        result = _pairs(ns[0], ns[1], _FUNCTIONS[head], width, signed)
    elif head == "prmt" and len(ns) == 3 and parts[1:] == ("b32",):
        result = c.permute(ns[0], ns[1], ns[2])
    if result is None:
        return {}
    tied = loose(result, *ns)
    return {d: stages(result) if tied is result else tied}


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


_FUNCTIONS = {
    "min": min,
    "max": max,
    "rem": lambda x, y: x - _trunc_div(x, y) * y,
    "div": _trunc_div,
}


def _pairs(a: c.Value, b: c.Value, f: Any, width: int, signed: bool) -> c.Value | None:
    """``f`` of every pair of exact candidates; None when some candidate is not exact (or ``f`` fails)."""
    if not all(x.exact for x in a + b) or len(a) * len(b) > 64:
        return None
    out = []
    for x in a:
        for y in b:
            xv, yv = (
                signed_value(x.value, x.width) if signed else x.value,
                signed_value(y.value, y.width) if signed else y.value,
            )
            try:
                out.append(c.const(f(xv, yv), width))
            except ZeroDivisionError:
                return None
    return c.choice(*out)
