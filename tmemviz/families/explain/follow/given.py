"""What a tcgen05.st's own path proved, carried with it while it waits for ``tcgen05.wait::st``.

The state where paths join keeps only what every path agrees on, so a store made only where a branch
went one way seems to reach code that this very branch steers it away from. CUTLASS's attention
kernels store the row statistics only on the last round of the softmax loop (``or.b32 %r, %count,
%tile; setp.ne.s32 %p, %r, 0; @%p bra`` around the ``tcgen05.st``); the loop's back edge and the tile's
next load are taken only when ``%count`` is not 0. Each pending store therefore keeps a few register
values its path proved (``given``: the registers a branch pinned to one constant on the way to the
store, and what is computed from them after it), and a branch edge that those values rule out does not
carry the store. A store reached along paths that proved different things is kept once per path;
at a loop's widening the values are dropped, so loops still settle. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tmemviz.families.explain.follow.pending import Stored
from tmemviz.families.explain.follow.values import Pred, Sym, number
from tmemviz.ptx import constants as c

MAX_GIVEN = 16
"""Values kept per store (the newest): the branches that matter come soon after the store."""

Given = tuple[tuple[str, Any], ...]


def known(value: Any) -> bool:
    """A value worth carrying: a number whose every candidate is exact, or a predicate's truth."""
    if isinstance(value, Pred):
        return value.truth is not None
    n = number(value)
    return n is not None and all(b.exact for b in n)


def pinned(
    facts: frozenset[tuple[str, Any]], regs: dict[str, Any], reg: str, ored: Callable[[], tuple[str, ...]]
) -> frozenset[tuple[str, Any]]:
    """The path's facts once a branch found ``reg`` (its value now in ``regs``) equal to one constant: it
    is pinned; found 0, what an ``or`` just before combined into it (``ored``) is pinned to 0 as well,
    and set so in ``regs`` (every bit of an OR is 0 only where every bit of each source is; PTX 9.7.8.2
    ``or``)."""
    value = regs[reg]
    out = {f for f in facts if f[0] != reg}
    if not (type(value) is tuple and len(value) == 1 and value[0].exact):
        return frozenset(out)
    out.add((reg, value))
    if value[0].value == 0:
        for part in ored():
            if not _may_be_zero(regs.get(part)):
                continue  # not a number, or one that cannot be 0: leave it
            regs[part] = c.const(0, value[0].width)
            out = {f for f in out if f[0] != part} | {(part, regs[part])}
    return frozenset(out)


def _may_be_zero(v: Any) -> bool:
    """Whether a register holding ``v`` (None: not known) may hold 0."""
    if v is None or isinstance(v, Sym):
        return True
    return type(v) is tuple and any(not b.value & b.known for b in v)


def capture(facts: frozenset[tuple[str, Any]], expression: Callable[[str], Any]) -> Given:
    """The values of the registers pinned on this path (``facts``), for a store made here; and, for each
    whose one definition another register may repeat (``expression``: see
    :meth:`~tmemviz.families.explain.follow.proofs.Proofs.expression`), that expression's value, keyed
    ``("=", registers it reads, opcode, *operands)``."""
    out: list[tuple[Any, Any]] = []
    for name, value in sorted(facts, key=lambda f: f[0]):
        out.append((name, value))
        found = expression(name)
        if found is not None:
            key, reads = found
            out.append((("=", reads, *key), value))
    return tuple(out)


def carried(
    stored: tuple[Stored, ...],
    reads: tuple[str, ...],
    writes: tuple[str, ...],
    regs: dict[str, Any],
    evaluate: Callable[[dict[str, Any]], dict[str, Any]],
    sure: bool,
    repeats: tuple[str, ...] | None = None,
) -> tuple[Stored, ...]:
    """The stores after an evaluated instruction (``regs``: before it). One reading a carried value is
    evaluated again with the store's values; its results are carried when known (``sure``: it ran, no
    guard left undecided). One repeating a carried expression (``repeats``: its opcode and operands)
    gives that expression's value. Any other write forgets what a store carried of that register, and
    the expressions that read it."""
    out = []
    for st in stored:
        if not st.given:
            out.append(st)
            continue
        env = dict(st.given)
        result = (
            evaluate({r: env[r] if r in env else regs.get(r) for r in reads})
            if sure and any(r in env for r in reads)
            else {}
        )
        same = next((v for k, v in env.items() if type(k) is tuple and k[2:] == repeats), None)
        for name in writes:
            env.pop(name, None)
            for k in [k for k in env if type(k) is tuple and name in k[1]]:
                del env[k]
            value = result.get(name, same if sure else None)
            if value is not None and known(value):
                env[name] = value
        given = tuple(env.items())[-MAX_GIVEN:]
        out.append(st if given == st.given else Stored(st.index, st.line, st.spots, given))
    return tuple(out)


def on_edge(stored: tuple[Stored, ...], guard: str, taken: bool) -> tuple[Stored, ...]:
    """The stores that may go down the side of a branch on ``guard`` that is ``taken`` or not: one whose
    own values decide the guard the other way stays behind."""
    name, negated = guard.lstrip("!"), guard.startswith("!")
    out = []
    for st in stored:
        value = dict(st.given).get(name) if st.given else None
        if isinstance(value, Pred) and value.truth is not None and (value.truth != negated) != taken:
            continue
        out.append(st)
    return tuple(out)


def joined(a: tuple[Stored, ...], b: tuple[Stored, ...]) -> tuple[Stored, ...]:
    """Stores pending on either path, each with what its own path proved (one store reached along paths
    that proved different things stays twice until a loop's widening forgets their values)."""
    return a if a == b else tuple(dict.fromkeys(a + b))


def forgotten(stored: tuple[Stored, ...]) -> tuple[Stored, ...]:
    """The stores without their values (at a loop's widening)."""
    if not any(st.given for st in stored):
        return stored
    return tuple(dict.fromkeys(Stored(st.index, st.line, st.spots) for st in stored))
