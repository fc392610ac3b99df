"""While a tcgen05.ld is pending, runs of plain lines are passed at once too (gate.runs with
``pending``): their reads are found in the run's text (registers.run_reads) and applied where the
pending loads are looked at. The hazards, values and records are those of reading line by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ptx.test_blocks import KERNELS, Chunks, lines_of, seen
from tmemviz.ptx.gate import RUN_PENDING
from tmemviz.ptx.line import opcode_head_rest
from tmemviz.ptx.registers import read_by, registers, run_reads
from tmemviz.ptx.state import FunctionState
from tmemviz.ptx.stream import events

LD = "\ttcgen05.ld.sync.aligned.32x32b.x4.b32 {%r1, %r2, %r3, %r4}, [%r9];\n"
ST = "\ttcgen05.st.sync.aligned.32x32b.x1.b32 [%r9], {%r5};\n"


def line_reads(text: str) -> set[str]:
    """What the reader applies line by line (stream.watch and stream._other): each statement's reads."""
    out: set[str] = set()
    for raw in text.splitlines():
        code = raw.split("//", 1)[0].strip()
        if not code or code[0] == "." or not code.endswith(";"):
            continue
        code = code[:-1].rstrip()
        _, head, rest = opcode_head_rest(code)
        out.update(read_by(head, rest))
        if code[:1] == "@":
            out.update(registers(code.split(None, 1)[0]))
    return out


TAKEN = [
    "\tmov.b64 \t%rd1, {%r1, %r2};\n",
    "\tmov.b64 \t{%r1, %r2}, %rd1;\n",
    "\t@%p1 add.s32 %r1, %r2, 3;\n",
    "\t@!%p1 st.global.b32 [%rd1+4], %r5; // %r1\n",
    "\tmembar.gl;\n",
    "\tld.shared::cta.b32 %r1, [%r2];\n",
    "\tstmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {%r2, %r3, %r4, %r5};\n",
    "\tbrev.b32 %r1, %r2;\n",
    "\t// end inline asm\n\t.loc\t1 2 3 // k.py:2\n\n",
    "\tred.global.add.u32 [%rd1], %r1;\n",
    "\tcvt.rn.f16x2.f32 %r7, %r2, %r1;\n",
    "\t@!P1 add.s32 acc1, acc2, 0x10;\n",
    "\tst.shared.v2.b32 [tmem_slot+4], {acc0, %r3};\n",
]
STOPS = [
    "$L__BB0_1:\n",
    "loop: add.s32 %r1, %r1, 1;\n",
    "\tbar.sync 0;\n",
    "\tbarrier.cluster.arrive;\n",
    "\tmbarrier.arrive.shared.b64 %rd1, [%r1];\n",
    "\t@%p1 bra.uni $L1;\n",
    "\tret;\n",
    "\tcall.uni foo, (%r1);\n",
    "\tmov.b64{%r1,%r2},%rd3;\n",  # no space after the opcode: read one by one
    "\t.reg .b32 %r<3>;\n",
    "\t{\n",
    "\tmov.b32 %r1, 1; mov.b32 %r2, 2;\n",
    "\t@! %p1 add.s32 %r1, %r1, 1;\n",
]


@pytest.mark.parametrize("line", TAKEN)
def test_a_pending_run_takes_plain_statements_and_reads_them_as_lines_do(line: str) -> None:
    assert RUN_PENDING.match(line).end() == len(line)
    assert_reads(line)


def assert_reads(run: str) -> None:
    """The run's reads are its lines': every name with ``bare``, its ``%`` names without."""
    lines = line_reads(run)
    assert set(run_reads(run, bare=True)) == lines, run[:200]
    assert set(run_reads(run)) == {r for r in lines if r[:1] == "%"}, run[:200]


@pytest.mark.parametrize("line", STOPS)
def test_a_pending_run_stops_at_what_does_more_than_read(line: str) -> None:
    assert RUN_PENDING.match(line).end() == 0


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_pending_run_of_a_fixture_reads_what_its_lines_read(path: Path) -> None:
    """From every third line of every fixture, the run a pending window would pass: the same reads."""
    lines = lines_of(path)
    text = "".join(lines)
    at = 0
    tried = 0
    for number, line in enumerate(lines):
        end = RUN_PENDING.match(text, at).end() if number % 3 == 0 else at  # from every third line
        if end > at:
            tried += 1
            assert_reads(text[at:end])
        at += len(line)
    assert tried


def test_property_random_runs_read_what_their_lines_read() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    shapes = ["mov.b32 %r{a}, %r{b};", "add.s32 %r{a}, %r{b}, {k};", "mov.b64 %rd{a}, {{%r{b}, %r{c}}};",
              "mov.b64 {{%r{a}, %r{b}}}, %rd{c};", "st.shared.v2.b32 [%r{a}+{k}], {{%r{b}, %r{c}}};",
              "@%p{a} max.f32 %r{b}, %r{b}, %r{c};", "@!%p{a} red.add.u32 [%rd{b}], %r{c};",
              "setp.ne.s32 %p{a}, %r{b}, {k};", "ld.global.b32 %r{a}, [%rd{b}];", "fence.proxy.async;",
              "mov.b32 %r{a}{b}, %r{c}; // %r{b}", "// %r{a}", ".loc 1 {k} 2", "", "not.pred %p{a};",
              "prmt.b32 %r{a}, %r{b}, %r{c}, 0x5410;", "cvt.u32.u64 %r{a}, %rd{b}; // %rd{c}",
              "add.s32 acc{a}, acc{b}, 0x1{k};", "@!P{a} mov.b32 x{b}, acc{c};",
              "st.global.b32 [ptr], acc{a};", "mov.f32 f{a}, 0f3F800000;",
              "mov.b64 {{_, acc{a}}}, %rd{b};"]  # fmt: skip

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(shapes), *[st.integers(1, 12)] * 4), max_size=30))
    def check(body: list[tuple[str, int, int, int, int]]) -> None:
        text = "".join("\t" + s.format(a=a, b=b, c=c, k=k) + "\n" for s, a, b, c, k in body)
        assert RUN_PENDING.match(text).end() == len(text)
        assert_reads(text)

    check()


def hazards(lines: object) -> list[tuple[object, ...]]:
    out = []
    for e in events(lines):  # type: ignore[arg-type]
        if e.kind == "hazard":
            assert e.hazard is not None
            out.append((e.hazard.line, e.hazard.what, e.hazard.source, e.hazard.unread))
    return out


def window(reads: list[str], end: str) -> list[str]:
    """A function: a tcgen05.ld, lines that read some of its registers, then ``end``."""
    body = [f"\tmov.b64 \t%rd{i}, {{{r}, %r20}};\n" for i, r in enumerate(reads)]
    return [".visible .entry k()\n", "{\n", LD, *body, "\t// c\n", end, "\tret;\n", "}\n"]


@pytest.mark.parametrize("end", ["\tbar.sync 0;\n", ST, "\tmbarrier.arrive.shared.b64 %rd9, [%r8];\n"])
def test_a_hazard_after_a_pending_run_names_the_registers_its_lines_did_not_read(end: str) -> None:
    lines = window(["%r1", "%r3"] * 20, end)
    got = hazards(Chunks(lines, 1 << 10))
    assert got == hazards(lines)
    assert [h[3] for h in got] == [("%r2", "%r4")]
    assert not hazards(Chunks(window(["%r1", "%r2", "%r3", "%r4"] * 5, end), 1 << 10))


def test_reads_before_a_second_load_do_not_complete_it() -> None:
    """Runs passed while the first load is pending are applied before the second load is added."""
    second = LD.replace("%r1, %r2, %r3, %r4", "%r1, %r2, %r30, %r31")
    lines = window(["%r1", "%r2", "%r3", "%r4"], second)
    lines[-2:-2] = ["\tmov.b64 \t%rd5, {%r30, %r1};\n", "\tbar.sync 0;\n"]
    got = hazards(Chunks(lines, 1 << 10))
    assert got == hazards(lines)
    assert [h[3] for h in got] == [("%r2", "%r31")]


def test_a_long_pending_window_applies_its_reads_as_it_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory stays bounded: past MAX_PASSED_CHARS the runs' reads are applied and let go."""
    import tmemviz.ptx.state as state

    monkeypatch.setattr(state, "MAX_PASSED_CHARS", 10)
    held: list[int] = []
    settle = FunctionState.settle

    def watched(self: FunctionState) -> None:
        held.append(self.passed_chars)
        settle(self)

    monkeypatch.setattr(FunctionState, "settle", watched)
    lines = window(["%r1", "%r3"] * 50, "\tbar.sync 0;\n")
    assert hazards(Chunks(lines, 4)) == hazards(lines)  # a run ends with its block: many runs
    assert len([h for h in held if h]) > 10 and max(held) < 200


def test_every_fixture_reads_the_same_with_small_pending_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    import tmemviz.ptx.state as state

    monkeypatch.setattr(state, "MAX_PASSED_CHARS", 1)
    for path in KERNELS:
        lines = lines_of(path)
        assert seen(Chunks(lines, 64)) == seen(lines), path.name


def test_a_register_read_at_the_end_of_a_long_window_completes_its_load() -> None:
    """The passed runs are read piece by piece until no load is pending: a read far on still counts."""
    lines = window(["%r1", "%r3"] * 100 + ["%r2", "%r4"], "\tbar.sync 0;\n")
    assert hazards(Chunks(lines, 1 << 12)) == hazards(lines) == []
    lines = window(["%r1", "%r3"] * 100 + ["%r2"], "\tbar.sync 0;\n")
    assert [h[3] for h in hazards(Chunks(lines, 1 << 12))] == [("%r4",)]
