"""check follows a function's statements only once it has a tcgen05 instruction (tmemviz.ptx.deferred):
the findings and the map's regions are those of following every statement, on every kernel of the
corpus, on every seeded bug, and on functions that touch Tensor Memory only through what they call."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from check import checked
from check.checked import seen
from check.test_mutations import CLASSES

from tmemviz.catalog import Catalog
from tmemviz.files import text_lines
from tmemviz.ptx.gate import Blocks
from tmemviz.ptx.stream import events

KERNELS = sorted((Path(__file__).parents[1] / "kernels").glob("*.ptx"))


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_kernel_and_each_seeded_bug_checks_the_same_deferred(path: Path, catalog: Catalog) -> None:
    text = path.read_text()
    assert checked.deferred(text) == seen(text, catalog, False)
    # A quarter of the bug classes per kernel, a different quarter on the next: every class is still
    # seeded into a quarter of the kernels (test_mutations seeds each into all of them).
    rank = KERNELS.index(path)
    for k, (_, mutate) in enumerate(CLASSES[name] for name in sorted(CLASSES)):
        if k % 4 != rank % 4:
            continue
        mutated = mutate(path.name, text)
        if mutated is not None:
            assert checked.deferred(mutated) == seen(mutated, catalog, False)


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_a_file_read_in_blocks_checks_the_same(path: Path, catalog: Catalog) -> None:
    """Read from its file, as the command line reads it, a function whose tcgen05 the block already read
    shows is read at once instead of deferred (Blocks.tcgen05_ahead): the same findings and regions, and
    the same events but the directives a deferred reading passes over."""
    text = path.read_text()
    assert seen(text, catalog, True, text_lines(str(path))) == seen(text, catalog, False)

    def kinds(lines: Any) -> list[tuple[str, int, str]]:
        return [
            (e.kind, e.statement.first, e.statement.text)
            for e in events(lines, every=True, defer=True)
            if e.kind != "directive" and e.statement is not None
        ]

    assert kinds(text_lines(str(path))) == kinds(text.splitlines(keepends=True))


def test_reading_ahead_finds_the_tcgen05_of_the_function_being_read(tmp_path: Path) -> None:
    """The blocks' look ahead: this function's tcgen05 counts, the next function's does not."""
    path = tmp_path / "k.ptx"
    path.write_text(
        ".visible .entry a()\n{\nmov.b32 %r1, 1;\ntcgen05.fence::before_thread_sync;\n}\n"
        ".visible .entry b()\n{\nmov.b32 %r1, 1;\n}\n.visible .entry c()\n{\nret;\n}\n"
        ".visible .entry d()\n{\ntcgen05.fence::after_thread_sync;\n}\n"
    )
    blocks = Blocks(text_lines(str(path)).blocks())
    ahead = []
    for line in blocks:
        if line.strip() == "{":
            ahead.append(blocks.tcgen05_ahead())
    assert ahead == [True, False, False, True]


CALLER = """.version 8.6
.target sm_100a
.address_size 64
.func free_it(.param .b32 cols)
{{
\t.reg .b32 %r<3>;
\tld.param.b32 %r1, [cols];
\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 128;
\tret;
}}
.func helper()
{{
\t.reg .b32 %r<3>;
\tmov.b32 %r1, 1;
{call}
\tret;
}}
.visible .entry k()
{{
\t.reg .b32 %r<3>;
\t.shared .b32 slot;
\tmov.u32 %r1, slot;
\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 128;
\tcall.uni helper, ();
\tret;
}}
"""


@pytest.mark.parametrize(
    "call",
    [
        "\tcall.uni free_it, (%r1);",
        "\tcall.uni\n\tfree_it,\n\t(\n\t%r1\n\t);",
        "\t// none",
        "$L1: call.uni free_it, (%r1);",
    ],
    ids=["plain", "over-lines", "none", "labelled"],
)
def test_a_function_without_tcgen05_still_says_whom_it_calls(call: str, catalog: Catalog) -> None:
    """The kernel frees its columns through helper -> free_it; helper has no tcgen05 instruction."""
    text = CALLER.format(call=call)
    deferred = seen(text, catalog, True)
    assert deferred == seen(text, catalog, False)
    rules = [f["rule"] for f in deferred[0]]
    assert ("never-freed" in rules) == (call == "\t// none")


def test_a_deferred_function_is_read_again_from_its_start() -> None:
    """Every statement before the first tcgen05 instruction comes, in order, before it."""
    lines = [".entry k()", "{", "mov.b32 %r1, 5;", "$L1:", "add.s32 %r2, %r1,", " 3;", "mov.b32 %r3, 1;",
             "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], %r1;", "}"]  # fmt: skip
    eager = [(e.kind, e.statement.first, e.statement.text) for e in events(lines, every=True)]
    deferred = [(e.kind, e.statement.first, e.statement.text) for e in events(lines, every=True, defer=True)]
    assert deferred == eager
    assert [k for k, _, _ in eager] == [
        "directive",
        "function",
        *["instruction", "label"],
        *["instruction"] * 2,
        "tcgen05",
    ]


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_kernel_reads_the_same_events_deferred(path: Path) -> None:
    """Each function with a tcgen05 instruction: every instruction, label, hazard and function event of
    the eager reader, in order; each without: its calls alone."""
    lines = path.read_text().splitlines(keepends=True)

    def kinds(defer: bool) -> list[tuple[str, int, str]]:
        out = []
        for e in events(lines, every=True, defer=defer):
            if e.kind != "directive" and e.statement is not None:
                out.append((e.kind, e.statement.first, e.statement.text))
        return out

    eager, deferred = kinds(False), kinds(True)
    functions = [i for i, e in enumerate(eager) if e[0] == "function"] + [len(eager)]
    expected = []
    for start, end in itertools.pairwise(functions):
        body = eager[start:end]
        if any(kind == "tcgen05" for kind, _, _ in body):
            expected += body
        else:
            expected += [body[0]] + [
                e for e in body[1:] if e[0] == "instruction" and e[2].split()[0].startswith("call")
            ]
    assert deferred == eager[: functions[0]] + expected


def test_a_function_the_text_never_closes_still_gives_its_calls() -> None:
    """The text ends inside a function without tcgen05: its calls come all the same (and, with one, every
    statement before it), as they come when its brace closes it."""

    def kinds(lines: list[str], defer: bool) -> list[tuple[str, int]]:
        return [(e.kind, e.statement.first) for e in events(lines, every=True, defer=defer)
                if e.statement and e.kind != "directive"]  # fmt: skip

    calling = [".func f()\n", "{\n", "mov.b32 %r1, 5;\n", "call g;\n"]
    assert kinds(calling, True) == [("function", 1), ("instruction", 4)] == kinds([*calling, "}\n"], True)
    using = [*calling, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], %r1;\n"]
    assert kinds(using, True) == kinds(using, False)
