"""A file read a block at a time (runs of skipped lines found in the block's text: gate.runs) reads
exactly as it reads line by line: the same events, constant values, records and check findings."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tmemviz.ptx.gate import RUN, RUN_NO_LABELS, Gate
from tmemviz.ptx.registers import registers
from tmemviz.ptx.statements import statements
from tmemviz.ptx.stream import events

KERNELS = sorted((Path(__file__).parents[1] / "kernels").glob("*.ptx"))


class Chunks:
    """Lines given as text ``size`` lines at a time, as :class:`tmemviz.files.TextLines` gives a file."""

    def __init__(self, lines: list[str], size: int) -> None:
        self.lines, self.size = lines, size

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.lines)

    def blocks(self):  # type: ignore[no-untyped-def]
        for i in range(0, len(self.lines), self.size):
            yield "".join(self.lines[i : i + self.size])
            yield ""  # an empty block is no end


def seen(lines: object, every: bool = False) -> list[tuple[object, ...]]:
    """Every event (kind, statement, message, target) and, at each tcgen05 instruction, the value
    of each register it names."""
    out: list[tuple[object, ...]] = []
    for e in events(lines, every=every):  # type: ignore[arg-type]
        out.append((e.kind, e.statement, e.message, e.target))
        if e.kind == "tcgen05" and e.line is not None:
            for operand in e.line.operands:
                out.extend((name, e.fn.constants.get(name)) for name in registers(operand))
    return out


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_fixture_reads_the_same_in_blocks(path: Path) -> None:
    lines = lines_of(path)
    one_by_one = seen(lines)
    for size in (1, 7, 64, len(lines)):
        assert seen(Chunks(lines, size)) == one_by_one, size


def test_runs_are_taken_in_a_real_kernel() -> None:
    """The point of it: most lines of a kernel are passed over in runs, not one by one."""
    from tmemviz.ptx import gate

    lines = lines_of(Path(__file__).parents[1] / "kernels" / "cutlass_example72_nvfp4_gemm.ptx")
    taken: list[int] = []
    run = gate.Blocks._run

    def counted(self, pos, least, max_chars, labels):  # type: ignore[no-untyped-def]
        found = run(self, pos, least, max_chars, labels)
        taken.append(found[1])
        return found

    with pytest.MonkeyPatch.context() as m:
        m.setattr(gate.Blocks, "_run", counted)
        list(events(Chunks(lines, 1 << 20)))
    assert sum(taken) > len(lines) / 2


HOLD_NOTHING = [
    "\t// mov.b32 %r7, 512;\n",
    "$L__BB0_1:\n",
    "\t.loc\t1 2 3\n",
    "\n",
    "   \t\n",
    "\t// {\n",
    "\t.loc\t1 26 0                          // k.py:26:0 %r7;\n",
]
PLAIN = ["\tmov.b32 \t%r7, 256;\n", "\tmov.b64 \t{%r1, %r2}, %rd1;\n", "\tbar.sync 0;  \t\n",
         "$L1: add.s32 %r1, %r1, 1;\n", "\tld.shared::cta.b32 %r3, [%r4];\n",
         "\tmov.b32 %r1, 0; \n", "\tmov.b32 %r7, 32; // c\n",
         '\tmov.b32 %r1, 0;// {x} "s" /* %r7\n']  # fmt: skip
READ = ["{\n", "\t}\n", "{ mov.b32 %r7, 128; }\n", "{x};\n", "\tmov.b32 %r7, 64; mov.b32 %r8, 1;\n",
        "\tmov.b32 %r7,\n", '\tmov.b32 %r7, 32; "a" // c\n', '\t.pragma "nounroll";\n',
        "\tmov.b32 %r1, {%r2}};\n", "\x0c{ a };\n", "/* c */ mov.b32 %r1, 0;\n", "\t.loc 1 2 (3) // c\n",
        "\tmov.b32 %r1, 0;\x0c\n", "\tmov.b32 %r1, 0\n", ";\n", "\tmov.b32 %r1, 0;",
        "\tnot.b32 %r1, %r2; \u2192\n", "%r1:\n", "$L1 :\n", "\tmov.b32 %r1, {{%r2}};\n",
        "{ mov.b32 %r7, 128;\n", "\t} mov.b32 %r7, 1;\n"]  # fmt: skip
"""Lines a run stops at: a scope brace, a second statement, a string, a statement over lines, a
character past Latin-1, a label the gate does not take alone."""


@pytest.mark.parametrize("line", HOLD_NOTHING + PLAIN)
def test_a_run_takes_plain_lines_and_lines_that_hold_nothing(line: str) -> None:
    assert RUN.match(line).end() == len(line)


@pytest.mark.parametrize("line", READ)
def test_a_run_stops_at_any_other_line(line: str) -> None:
    assert RUN.match(line).end() == 0


SCOPE = "\t{\n\t.reg .b32 %rx;\n\telect.sync %rx|%px, %r80;\n@%px mov.s32 %r79, 1;\n\t}\n"


def test_a_run_takes_a_scope_of_such_lines_whole() -> None:
    assert RUN.match(SCOPE + "\tmov.b32 %r1, 0;\n").end() == len(SCOPE) + 17
    assert RUN.match("\t{\n\tmov.b32 %r1, 0;\n").end() == 0  # never opened without its close
    assert RUN.match(SCOPE.replace("elect", "{ elect")).end() == 0  # nested
    assert RUN_NO_LABELS.match(SCOPE).end() == 0  # check reads scopes again


def test_a_scope_with_a_tcgen05_or_an_overlong_line_is_not_passed_over() -> None:
    for inner in ("\ttcgen05.wait::ld.sync.aligned;\n", "\tmov.b32 %r2, " + "1" * 300 + ";\n"):
        lines = [".entry k()\n", "{\n", "\tmov.b32 %r1, 0;\n", "\t{\n", inner, "\t}\n", "}\n"]
        by_line = [(s.kind, s.first) for s in statements(lines, 100, _inside())]
        assert ("open", 4) in by_line and ("close", 6) in by_line
        assert [(s.kind, s.first) for s in statements(Chunks(lines, 100), 100, _inside())] == by_line


def test_where_labels_are_read_a_run_stops_at_them() -> None:
    assert RUN_NO_LABELS.match("$L__BB0_1:\n").end() == 0
    assert RUN_NO_LABELS.match("\tmov.b32 %r1, 0;\n// c\n").end() > 0


ALLOC = "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], %r7;\n"


@pytest.mark.parametrize("trap", HOLD_NOTHING + READ + PLAIN[-2:])
def test_what_a_run_keeps_never_answers_for_a_register(trap: str) -> None:
    """A comment, a label or a .loc kept as text in a run is no write of %r7: the alloc's size is what the
    statements say, in blocks as line by line (and as the eager reader has it)."""
    lines = [".visible .entry k()\n", "{\n", "\tmov.b32 \t%r7, 256;\n", "\tadd.s32 %r1, %r1, 1;\n", trap,
             "\tadd.s32 %r2, %r2, 1;\n", ";\n", ALLOC, "}\n"]  # fmt: skip
    by_line = seen(lines)
    assert values(by_line) == values(seen(lines, every=True))
    if trap in HOLD_NOTHING:
        assert values(by_line) == values(seen([line for line in lines if line != trap]))
    if not trap.endswith("\n"):
        return  # a file's lines all end with their newline but its last
    for size in (1, 2, 5, 100):
        assert seen(Chunks(lines, size)) == by_line


def test_an_overlong_line_in_a_run_is_still_cut() -> None:
    lines = [".entry k()\n", "{\n", "\tmov.b32 %r1, 0;\n", "\tmov.b32 %r2, " + "1" * 300 + ";\n",
             "\tmov.b32 %r3, 0;\n", "}\n"]  # fmt: skip
    by_line = [(s.kind, s.first) for s in statements(lines, 100, _inside())]
    assert ("overlong", 4) in by_line
    assert [(s.kind, s.first) for s in statements(Chunks(lines, 100), 100, _inside())] == by_line


def _inside() -> Gate:
    """A gate that skips from the start (as inside a function with nothing pending)."""
    gate = Gate()
    gate.keep, gate.skip = [], True
    return gate


TRICKS = ["\t// mov.b32 %r{a}, {k};", "\t.loc\t1 {k} 2", "", "   ", "$L{k}:", "\tmov.b32 %r{a}, {k};  ",
          "{{", "}}", "{{ mov.b32 %r{a}, {k}; }}", "\tmov.b32 %r{a}, {k}; // c", "\tmov.b32 %r{a},",
          "\t{k};", '\t.pragma "nounroll";', "\tmov.b32 %r{a}, {k}; mov.b32 %r{b}, 1;", "/* %r{a} */",
          "\tmov.b32 %r{a}, {k}; /*", "*/ mov.b32 %r{b}, {k};", "\tmov.b32 %r{a}, \u00e9{k};",
          "\tmov.b32 %r{a}, \u2192;", "\tcall foo, (%r{a});", "\ttcgen05.wait::st.sync.aligned;",
          "{{ mov.b32 %r{a}, {k};", "\t}} mov.b32 %r{a}, {k};"]  # fmt: skip


def test_property_random_functions_read_the_same_in_blocks() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tests.ptx.test_lazy import OPS

    op = st.tuples(st.sampled_from(OPS + TRICKS), st.integers(1, 6), st.integers(1, 6), st.integers(1, 6),
                   st.sampled_from([0, 1, 7, 128, 16384, 138420240]))  # fmt: skip

    @settings(max_examples=300, deadline=None)
    @given(st.lists(op, max_size=40), st.integers(1, 12), st.booleans())
    def check(body: list[tuple[str, int, int, int, int]], size: int, seal: bool) -> None:
        text = [o.format(a=a, b=b, c=c, k=k) for o, a, b, c, k in body]
        lines = [f"{line}\n" for line in [".entry k()", "{", *"\n".join(text).split("\n"), "}"]]
        with pytest.MonkeyPatch.context() as m:
            if seal:
                m.setattr(Gate, "SEAL", 1)
                m.setattr(Gate, "SEAL_CHARS", 1)
            by_block = seen(Chunks(lines, size))
            assert by_block == seen(lines)
            assert values(by_block) == values(seen(lines, every=True))

    check()


def values(seen: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """The (register, value) pairs of :func:`seen`."""
    return [x for x in seen if len(x) == 2]


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_fixture_explains_and_checks_the_same_from_its_file(path: Path) -> None:
    """End to end: the file (read in blocks) and its lines give the same records, warnings and findings."""
    from tmemviz.catalog import load_catalog
    from tmemviz.families.check.source import check_file
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.scan import Module, records
    from tmemviz.files import text_lines

    catalog = load_catalog()

    def explained(lines: object) -> str:
        module = Module(str(path))
        made = list(records(module, lines, Explainer(catalog), None))  # type: ignore[arg-type]
        return json.dumps([made, [w.record() for w in module.warnings]], default=repr)

    assert explained(text_lines(path)) == explained(lines_of(path))
    by_file = check_file(str(path), text_lines(path), catalog)
    by_line = check_file(str(path), lines_of(path), catalog)
    assert json.dumps(by_file.record(), default=repr) == json.dumps(by_line.record(), default=repr)
    assert repr(by_file.regions) == repr(by_line.regions)


def test_the_default_run_is_the_one_the_reader_uses() -> None:
    from tmemviz.ptx.gate import runs
    from tmemviz.ptx.statements import MAX_STATEMENT_CHARS

    assert RUN.pattern == runs(None, False).pattern  # what run_end matches where no line is too long
    assert RUN_NO_LABELS.pattern == runs(None, True).pattern
    assert runs(MAX_STATEMENT_CHARS, False).pattern != RUN.pattern  # the bounded one, for long runs


def _respaced(lines: list[str], rng: random.Random, names: list[str]) -> list[str]:
    """The lines with what compilers and hands add: a comment after a statement naming registers, a
    statement split after a comma, comment, ``.loc`` and blank lines between."""
    out = []
    for line in lines:
        text, stripped, r = line.rstrip("\n"), line.strip(), rng.random()
        plain = stripped.endswith(";") and '"' not in text and "//" not in text
        if plain and r < 0.15:
            text += " // " + " ".join(rng.sample(names, min(3, len(names)))) + ";"
        elif plain and "," in text and "tcgen05" not in text and r < 0.2:
            cut = text.index(",") + 1
            out.append(text[:cut] + "\n")
            text = "\t\t" + text[cut:].lstrip()
        elif r < 0.23:
            out.append(
                rng.choice(["\n", f"\t// {rng.choice(names)} = 1;\n", "\t.loc\t1 2 3 // k.py:2\n", "  \n"])
            )
        out.append(text + "\n")
    return out


@pytest.mark.parametrize("index", range(len(KERNELS)), ids=[p.name for p in KERNELS])
def test_every_fixture_respaced_reads_as_the_eager_tracker_reads_it(index: int) -> None:
    """Real kernels with comments after statements, statements over lines and lines between, read from
    blocks (runs) and eagerly line by line: the same value of every register asked (a sample, at every
    other tcgen05 instruction)."""
    rng = random.Random(index)
    base = lines_of(KERNELS[index])
    names = sorted(set(re.findall(r"%[A-Za-z_$][\w$]*", "".join(base))))

    def values(source: object, every: bool, asked: list[str]) -> list[tuple[object, ...]]:
        out: list[tuple[object, ...]] = []
        count = 0
        for e in events(source, every=every):  # type: ignore[arg-type]
            if e.kind == "tcgen05":
                count += 1
                if count % 2:
                    out.extend((e.statement.first, n, e.fn.constants.get(n)) for n in asked)
        return out

    for _ in range(3):
        lines = _respaced(base, rng, names)
        asked = rng.sample(names, min(200, len(names)))
        size = rng.choice([1, 7, 100, len(lines)])
        assert values(Chunks(lines, size), False, asked) == values(lines, True, asked)


@pytest.mark.parametrize("longest", [8, 33, 1 << 16])
def test_a_run_matched_without_its_bound_ends_where_the_bounded_one_ends(longest: int) -> None:
    """gate.run_end looks for an overlong line only in a long run: the same end as the bounded pattern,
    from every line of every fixture, in each kind of run."""
    from tmemviz.ptx.gate import run_end, runs

    for path in KERNELS:
        text = path.read_text()
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        for labels in (False, True):
            bounded = runs(longest, labels)
            for pos in starts[::5]:
                want = bounded.match(text, pos).end()
                assert run_end(text, pos, len(text), longest, labels) == want, (path.name, pos)


def test_a_run_can_be_taken_from_the_next_line_before_it_is_given() -> None:
    """Blocks.run_next: the lines after the one given last, up to the next tcgen05 line, never past the
    block's end; the line it stops at is given next."""
    from tmemviz.ptx.gate import Blocks

    text = "\tmov.b32 %r1, 1;\n\tadd.s32 %r1, %r1, 1;\n\t// c\n\ttcgen05.wait::st.sync.aligned;\n\tret;\n"
    source = Blocks([text, "\tmov.b32 %r2, 2;\n"])
    assert next(source) == "\tmov.b32 %r1, 1;\n"
    assert source.run_next(1 << 16, False) == ("\tadd.s32 %r1, %r1, 1;\n\t// c\n", 2)
    assert source.run_next(1 << 16, False) == ("", 0)  # a tcgen05 line is no run's
    assert next(source) == "\ttcgen05.wait::st.sync.aligned;\n"
    assert source.run_next(1 << 16, False) == ("\tret;\n", 1)
    assert source.run_next(1 << 16, False) == ("", 0)  # the block is done: the next one is given as lines
    assert list(source) == ["\tmov.b32 %r2, 2;\n"]
