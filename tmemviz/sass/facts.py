"""What registers hold after a SASS instruction: the facts a forward data-flow carries
(:mod:`tmemviz.sass.flow`), changed by each :class:`~tmemviz.sass.writes.Write` (whose module says what
each instruction means). Facts map a register to a :data:`tmemviz.ptx.constants.Value`; ``R2@P0`` is what
R2 holds when P0 is true, ``R2@`` marks that R2 holds something under some predicate, ``*@P0`` that
``ELECT`` chose P0's thread, ``vote:ANY:P0:UP3`` that UP3 is ``VOTEU.ANY`` of P0 (so that UP0, voted the
same from the same P0 with nothing written between, is the same predicate: ptxas guards a descriptor's
move with one and the MMA with the other). Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

from tmemviz.ptx import constants as c
from tmemviz.sass.bits import MASK, add, funnel, lop3, multiply_add
from tmemviz.sass.writes import Write

Facts = dict[str, c.Value]
"""Register -> what it holds (``UR5@!UP0``: what it holds when ``!UP0`` is true; ``*@P0``: present while
``P0`` is ``ELECT``'s choice); a register left out holds something unknown."""

_UNIFORM_GUARD = re.compile(r"^!?UP\d+$")


def apply(write: Write, facts: Facts) -> None:
    """``facts`` after the instruction (changed in place).

    >>> from tmemviz.sass.writes import write_in
    >>> f = {}
    >>> apply(write_in("USEL UR4, URZ, 0x4000, !UP0"), f); apply(write_in("UMOV UR5, 0x8200010"), f)
    >>> apply(write_in("UIADD3 UR5, UPT, UPT, UR4, UR5, URZ"), f)
    >>> [hex(b.value) for b in f["UR5"]]
    ['0x8200010', '0x8204010']
    >>> apply(write_in("@!UP1 UMOV UR6, 0x1"), f); apply(write_in("@UP1 UMOV UR6, 0x2"), f)
    >>> [b.value for b in f["UR6"]], [b.value for b in f["UR6@UP1"]]
    ([1, 2], [2])
    """
    op = write.op
    if op == "all":
        facts.clear()
        return
    if op == "diverge":  # the active threads may change: an elected thread, a vote, are not the same
        for key in [k for k in facts if k[:2] == "*@" or k.startswith(VOTES)]:
            del facts[key]
        return
    if write.predicates:
        _forget_under(facts, write.predicates)
        if not write.registers and op is None:
            return
    if op == "VOTE":
        facts[f"{VOTES}{write.modifiers[0]}:{write.operands[0]}:{write.predicates[0]}"] = _MARK
        facts[VOTES] = _MARK
        return
    if op == "R*":  # every general register, and what any holds under a predicate
        for key in [k for k in facts if k[:1] == "R"]:
            del facts[key]
        return
    if op == "ELECT":
        for name in write.registers:
            facts.pop(name, None)
            _drop_conditions(facts, name, keep=None)
        if write.guard is None:
            for p in write.predicates:
                if p[0] == "P":
                    _set(facts, f"*@{p}", _MARK)
        return
    if op is None and write.guard is None:  # most writes: the registers become unknown
        for name in write.registers:
            facts.pop(name, None)
            _drop_conditions(facts, name, keep=None)
        return
    value = evaluate(write, facts) if op else None
    nothing = value is None or all(b.known == 0 for b in value)
    if op and nothing and any(facts.get(s[0]) is VARIES for s in write.sources if s):
        value = VARIES  # nothing known of a value built from one that changes around a loop: it varies
    guard = write.guard
    uniform = guard is not None and _UNIFORM_GUARD.match(guard) is not None
    if guard is not None and not uniform and write.registers[0][0] == "U" and f"*@{guard}" in facts:
        guard = None  # a uniform register written by the thread ELECT chose: written for certain
    for name in write.registers:
        new = value if name == write.registers[0] else None
        if guard is None:
            _drop_conditions(facts, name, keep=None)
            _set(facts, name, new)
            continue
        # Guarded: the old value stays where the guard is false. What the register holds under the
        # guard is kept where it is a uniform predicate, or a thread's for a general register.
        old = facts.get(name)
        conditional = uniform or name[0] == "R"
        opposite = guard[1:] if guard.startswith("!") else f"!{guard}"
        otherwise = facts.get(f"{name}@{opposite}", old) if conditional else old
        _drop_conditions(facts, name, keep=opposite if conditional else None)
        if conditional:
            _set(facts, f"{name}@{guard}", new)
        _set(facts, name, either(otherwise, new) if otherwise is not None and new is not None else None)


VARIES: c.Value = (c.Bits(0, 0, 32),)
"""What a register holds when it kept changing around a loop (widening found no fixed set of values):
nothing of it is known, and that is known. Told apart by identity (``is``); evaluated as unknown bits,
so that what an instruction makes of it keeps the bits it knows anyway (``VARIES & 3`` has 30 known
zero bits), and is itself VARIES when it knows none."""


def either(a: c.Value, b: c.Value) -> c.Value:
    """A register that holds ``a`` on one path and ``b`` on another: one of their values; :data:`VARIES`
    when either varies."""
    if a is VARIES or b is VARIES:
        return VARIES
    return a if a == b else c.choice(a, b)


CONDITIONS = "@"
"""A key present in facts that may hold what a register holds under a predicate (so that facts without
any are not searched for them)."""
_MARK: c.Value = (c.Bits(0, 1, 32),)
VOTES = "vote:"
"""The prefix of the facts that say which vote wrote a predicate (and, alone, that there are some)."""


def _set(facts: Facts, name: str, value: c.Value | None) -> None:
    if value is None or (value is not VARIES and all(b.known == 0 for b in value)):
        facts.pop(name, None)
    else:
        facts[name] = value
        at = name.find("@")
        if at >= 0:
            facts[CONDITIONS] = _MARK
            facts[name[: at + 1]] = _MARK  # ``R2@``: R2 may hold something under a predicate


def _drop_conditions(facts: Facts, name: str, keep: str | None) -> None:
    """Forget what ``name`` holds under any predicate but ``keep`` (only searched for where ``name@`` says
    it may hold something under one: most registers never do)."""
    prefix = f"{name}@"
    if prefix not in facts:
        return
    kept = f"{prefix}{keep}"
    for key in [k for k in facts if k.startswith(prefix) and k != kept and k != prefix]:
        del facts[key]


def _forget_under(facts: Facts, predicates: tuple[str, ...]) -> None:
    """Forget what any register holds under one of ``predicates`` (they may have been written), that
    ``ELECT`` set them, and the votes that wrote them or read them."""
    if VOTES in facts:
        for key in [k for k in facts if k.startswith(VOTES) and k != VOTES]:
            _, kind, voted, dest = key.split(":")
            if dest in predicates:
                del facts[key]
            elif voted.lstrip("!").rstrip("'") in predicates:
                # What was voted changes: the votes made of it still agree with each other, never with
                # one made of its new value (a prime sets them apart).
                del facts[key]
                facts[f"{VOTES}{kind}:{voted}':{dest}"] = _MARK
    if CONDITIONS not in facts:
        return
    gone = [k for k in facts if "@" in k[1:] and k.rsplit("@", 1)[1].lstrip("!") in predicates]
    for key in gone:
        del facts[key]


_UNKNOWN = c.unknown()


def _fact(facts: Facts, name: str, guard: str | None) -> c.Value | None:
    """What register ``name`` holds for an instruction under ``guard``."""
    return under(facts, name, guard) or facts.get(name)


def under(facts: Facts, name: str, guard: str | None) -> c.Value | None:
    """What register ``name`` holds where ``guard`` is true, when the facts say more there than
    everywhere: under the guard itself or under a predicate voted the same (:func:`same_as`).

    >>> from tmemviz.sass.writes import write_in
    >>> f = {}
    >>> for line in ("UMOV UR7, 0x40004040", "ELECT P0, URZ, PT", "VOTEU.ANY UP0, P0", "VOTEU.ANY UP3, P0",
    ...              "@UP3 UMOV UR7, 0x8a00000"):
    ...     apply(write_in(line), f)
    >>> [hex(b.value) for b in under(f, "UR7", "UP0")], len(f["UR7"])
    (['0x8a00000'], 2)
    >>> apply(write_in("ELECT P0, URZ, PT"), f); [hex(b.value) for b in under(f, "UR7", "UP0")]
    ['0x8a00000']
    >>> apply(write_in("VOTEU.ANY UP2, P0"), f); under(f, "UR7", "UP2") is None
    True
    """
    if guard is None or CONDITIONS not in facts:
        return None
    found = facts.get(f"{name}@{guard}")
    if found is not None or VOTES not in facts:
        return found
    negated = "!" if guard[:1] == "!" else ""
    for other in same_as(facts, guard.lstrip("!")):
        found = facts.get(f"{name}@{negated}{other}")
        if found is not None:
            return found
    return None


def same_as(facts: Facts, predicate: str) -> list[str]:
    """The predicates voted as ``predicate`` was (the same vote of the same value of one predicate, the
    warp not split between): they hold the same value (PTX's ``vote.any`` over the same threads and
    inputs), whatever is written to the voted predicate afterwards."""
    keys = [k for k in facts if k.startswith(VOTES) and k.endswith(f":{predicate}")]
    if len(keys) != 1:
        return []
    signature = keys[0][: -len(predicate)]
    return [k[len(signature) :] for k in facts if k.startswith(signature) and k != keys[0]]


def _operand(
    source: tuple[str | None, c.Value | None, bool, bool] | None, facts: Facts, guard: str | None
) -> c.Value | None:
    """What a source holds: a register's fact (its bits unknown when there is none), or the constant."""
    if source is None:
        return None
    name, value, negate, invert = source
    if name is not None:
        value = _fact(facts, name, guard) or _UNKNOWN
    if invert or negate:
        value = tuple(c.Bits(~b.value & b.known & MASK, b.known, 32) for b in value)  # type: ignore[union-attr]
    if negate:
        value = add(value, c.const(1))  # type: ignore[arg-type]
    return value


_WHOLE = frozenset(("UMOV", "UIADD3", "UIMAD", "UPRMT"))
"""Ops whose value is unknown when a register they read is (no bit of the result is known then)."""
_NO_PREDICATE = ((), ("!UPT",), ("!PT",))
"""A LOP3's predicate input that leaves its value alone."""
_PICKS = {"UPT": slice(0, 1), "PT": slice(0, 1), "!UPT": slice(1, 2), "!PT": slice(1, 2)}


def evaluate(write: Write, facts: Facts) -> c.Value | None:
    """What ``write``'s destination holds after it (None: nothing known)."""
    op, mods, sources, guard = write.op, write.modifiers, write.sources, write.guard

    def unknown(s: Any) -> bool:
        return s is None or (s[0] is not None and _fact(facts, s[0], guard) is None)

    if op in _WHOLE and any(s is not None and unknown(s) for s in sources):
        return None
    if op == "ULOP3":  # d, a, b, c, lut, and a predicate input (!PT: the value alone)
        if mods != ("LUT",) or len(write.operands) not in (4, 5) or write.operands[4:] not in _NO_PREDICATE:
            return None
        *values, lut = [_operand(o, facts, guard) for o in sources[:4]]
        if lut is None or len(lut) != 1 or not lut[0].exact or any(a is None for a in values):
            return None
        return lop3(*values, lut[0].value & 0xFF)  # type: ignore[arg-type]
    if op == "USEL" and len(sources) == 3:
        picks = sources[_PICKS.get(write.operands[2], slice(0, 2))]
        if any(unknown(s) for s in picks):
            return None  # a side nothing is known of
        return c.choice(*(_operand(s, facts, guard) for s in picks))  # type: ignore[arg-type]
    args = [_operand(o, facts, guard) for o in sources]
    if op == "UPRMT" and not mods and len(args) == 3:
        a, selector, b = args
        return None if a is None or b is None or selector is None else c.permute(a, b, selector)
    if any(a is None for a in args):
        return None
    if op == "UMOV" and not mods and len(args) == 1:
        return args[0]
    if op == "UIADD3" and not mods and len(args) == 3:
        return add(add(args[0], args[1]), args[2])  # type: ignore[arg-type]
    if op == "USHF" and len(args) == 3:
        return funnel(args[0], args[1], args[2], mods)  # type: ignore[arg-type]
    if op == "ULEA" and not mods and len(args) == 3:
        return add(c.shift(args[0], args[2], True, False), args[1])  # type: ignore[arg-type]
    if op == "UIMAD" and not mods and len(args) == 3:
        return multiply_add(args[0], args[1], args[2])  # type: ignore[arg-type]
    return None
