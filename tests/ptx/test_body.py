"""A function's body as check's analysis reads it: launch bounds belong to the function they follow, and
every branch's targets are found."""

from __future__ import annotations

from pathlib import Path

import pytest

import tmemviz
from tmemviz.errors import TmemvizError
from tmemviz.families.explain.follow import follower
from tmemviz.flow.cfg import build
from tmemviz.ptx.body import Collector
from tmemviz.ptx.line import parse_collapsed, parse_line
from tmemviz.ptx.stream import events

PLAIN = """
.visible .entry plain(
\t.param .u64 p
)
{
\t.reg .b32 %r<4>;
\tmov.u32 %r1, %tid.x;
\tret;
}
"""

BOUNDED = """
.entry bounded(
\t.param .u64 p
)
.maxntid 512
.minnctapersm 1
{
\t.reg .b32 %r<4>;
\t.shared .align 8 .b8 slot[16];
\tmov.u32 %r1, slot;
\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
\tld.shared.b32 %r2, [%r1];
\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
\tret;
}
"""

HEAD = ".version 8.7\n.target sm_100a\n.address_size 64\n"


def bounds_seen(text: str, monkeypatch) -> dict[str, tuple[int, int, int] | None]:  # type: ignore[no-untyped-def]
    seen: dict[str, tuple[int, int, int] | None] = {}
    analyse = follower.analyse

    def spy(body, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen[body.name] = body.ntid
        return analyse(body, *args, **kwargs)

    monkeypatch.setattr(follower, "analyse", spy)
    tmemviz.check(text=text)
    return seen


def test_bounds_after_a_function_without_tcgen05_are_the_next_ones(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """CUTLASS's FMHA module: reference kernels (no tcgen05, no bounds) before each `.maxntid 512` kernel;
    the bounds once went to the function before, and the kernel was analysed for 32 warps."""
    assert bounds_seen(HEAD + PLAIN + BOUNDED, monkeypatch)["bounded"] == (512, 1, 1)
    assert bounds_seen(HEAD + BOUNDED, monkeypatch)["bounded"] == (512, 1, 1)
    assert bounds_seen(HEAD + BOUNDED + PLAIN, monkeypatch).get("plain") is None


KERNELS = Path(__file__).parents[1] / "kernels"


@pytest.mark.parametrize("path", sorted(KERNELS.glob("**/*.ptx")), ids=lambda p: str(p.relative_to(KERNELS)))
def test_every_tcgen05_instruction_of_every_fixture_is_reached_from_the_entry(path: Path) -> None:
    """A branch whose targets the graph misses (a ``brx.idx`` list, a label in a scope) hides the code
    behind it from every rule: in every kernel here, each tcgen05 instruction lies in a block the
    function's entry reaches."""
    collector = Collector()
    with path.open() as f:
        for event in events(f, every=True):
            collector.observe(event)
    collector.finish()
    for body in collector.done:
        graph = build(body.steps())
        reached = set(graph.rpo)
        missed = [
            i.line
            for i in body.instructions
            if i.head == "tcgen05" and graph.block_of(i.index) not in reached
        ]
        assert not missed, f"{body.name}: lines {missed[:5]} are in no block the entry reaches"


def _line_of(parse, text: str):  # type: ignore[no-untyped-def]
    try:
        return parse(text)
    except TmemvizError as exc:
        return str(exc)


@pytest.mark.parametrize("path", sorted(KERNELS.glob("**/*.ptx")), ids=lambda p: str(p.relative_to(KERNELS)))
def test_every_instruction_parses_as_the_general_parser_parses_it(path: Path) -> None:
    """An instruction's text is collapsed when it is collected, so its line is split without looking for
    comments and spacing again (parse_collapsed): the same line, or the same error, as parse_line's."""
    collector = Collector()
    with path.open() as f:
        for event in events(f, every=True):
            collector.observe(event)
    collector.finish()
    texts = [i.text for body in collector.done for i in body.instructions]
    assert texts
    for text in texts:
        assert _line_of(parse_collapsed, text) == _line_of(parse_line, text), text
    for text in ("@%p1", "mov.b32 %r1, 1; mov.b32 %r2, 2", "@!%p bra L", "{%r1} x", "a /* b */ c"):
        assert _line_of(parse_collapsed, text) == _line_of(parse_line, text), text


def _collected(path: Path, handed: bool) -> list[list[tuple[object, ...]]]:
    """Every function's code as check collects it, its instruction statements handed straight to the
    collector (``events(instructions=...)``) or as events."""
    collector = Collector()
    sink = collector.instruction if handed else None
    kinds = set()
    with path.open() as f:
        for event in events(f, every=True, defer=True, paths=True, instructions=sink):
            kinds.add(event.kind)
            collector.observe(event)
    collector.finish()
    assert ("instruction" in kinds) != handed  # handed over, no event is made for them
    return [
        [(c.index, c.line, getattr(c, "text", getattr(c, "name", None)), getattr(c, "opcode", None),
          getattr(c, "guard", None), c.scope) for c in body.code]
        for body in collector.done
    ]  # fmt: skip


@pytest.mark.parametrize("path", sorted(KERNELS.glob("**/*.ptx")), ids=lambda p: str(p.relative_to(KERNELS)))
def test_instructions_handed_to_the_collector_are_the_events_ones(path: Path) -> None:
    """The reader hands each instruction statement but tcgen05 straight to the collector (no event made
    for it): every function's code is the same, in the same order, as from the events."""
    assert _collected(path, True) == _collected(path, False)
