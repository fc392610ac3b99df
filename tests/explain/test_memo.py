"""The explainer answers each distinct statement once per run (explain/memo.py): what it hands out, the
first time and every repeat after, must be what a fresh explainer makes of the same statement."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tmemviz.api import catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.explain import memo
from tmemviz.families.explain.answers import cell_records, cells_template
from tmemviz.families.explain.document import NOTES
from tmemviz.families.explain.ops import Explainer
from tmemviz.families.explain.scan import Module, records
from tmemviz.families.explain.source import scanned
from tmemviz.families.explain.stream import write_json
from tmemviz.families.ldst.layout import Cell, cells, make_instruction
from tmemviz.families.ldst.shapes import builtin
from tmemviz.ptx.constants import Bits, const
from tmemviz.ptx.line import parse_line
from tmemviz.ptx.state import FunctionState
from tmemviz.ptx.stream import events

FIXTURES = Path(__file__).parents[1] / "kernels"
PTX = sorted(FIXTURES.glob("*.ptx"))
SASS = sorted(FIXTURES.glob("*.sass"))


class Fresh:
    """Every statement explained by a new :class:`Explainer` (nothing remembered, cells as dicts); the
    footprints come from one explainer that also sees every statement, as the real one does."""

    def __init__(self) -> None:
        self.catalog = catalog()
        self.lazy_cells = False
        self.seen = Explainer(self.catalog)

    def __call__(self, line: int, statement: str, parsed: Any, fn: Any, module: Module) -> Any:
        self.seen(line, statement, parsed, fn, Module(module.path, module.target))
        return Explainer(self.catalog)(line, statement, parsed, fn, module)

    def footprint(self, line: Any) -> Any:
        self.seen.memo.footprints.clear()  # worked out afresh
        return self.seen.footprint(line)

    def text_of(self, record: dict[str, Any]) -> None:
        return None  # every record written by json.dumps


def stream(paths: list[Path], explainer: Any) -> str:
    out = io.BytesIO()
    write_json(scanned(paths, None, explainer), explainer, out.write, NOTES)
    return out.getvalue().decode()


def made(path: Path, explainer: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    module = Module(str(path))
    with path.open() as f:
        found = list(records(module, f, explainer))
    return found, [w.record() for w in module.warnings]


def test_fixture_json_is_a_fresh_explainers_every_time() -> None:
    """Every fixture's streamed JSON in one run (targets differ from file to file): a fresh explainer per
    statement, one explainer's first pass, and its second pass (every statement a repeat) are the same
    bytes."""
    everything = stream(PTX + SASS, Fresh())
    explainer = Explainer(catalog())
    assert stream(PTX + SASS, explainer) == everything
    assert explainer.memo.by_key  # something was remembered
    assert stream(PTX + SASS, explainer) == everything


@pytest.mark.parametrize("lazy", [False, True])
def test_records_and_warnings_are_a_fresh_explainers(lazy: bool) -> None:
    """The records (the API's: cells as dicts; and lazy ones), their field order and the warnings, on a
    first and a second pass; changing the first pass's records changes nothing after."""
    for path in PTX:
        fresh = Fresh()
        fresh.lazy_cells = lazy
        expected, warnings = made(path, _Lazy(fresh) if lazy else fresh)
        explainer = Explainer(catalog())
        explainer.lazy_cells = lazy
        for _ in range(2):
            found, said = made(path, explainer)
            assert found == expected and said == warnings, path
            assert [list(r) for r in found] == [list(r) for r in expected], path
            for record in found:
                _scribble(record)


class _Lazy:
    """A fresh explainer whose ld/st cells are lazy (as the streamed JSON's), compared by what they are."""

    def __init__(self, fresh: Fresh) -> None:
        self.fresh = fresh
        self.footprint = fresh.footprint

    def __call__(self, line: int, statement: str, parsed: Any, fn: Any, module: Module) -> Any:
        self.fresh.seen(line, statement, parsed, fn, Module(module.path, module.target))
        one = Explainer(self.fresh.catalog)
        one.lazy_cells = True
        return one(line, statement, parsed, fn, module)


def _scribble(value: Any) -> None:
    """Change every dict and list inside ``value`` in place."""
    if isinstance(value, dict):
        for v in value.values():
            _scribble(v)
        value["scribbled"] = True
    elif isinstance(value, list):
        for v in value:
            _scribble(v)
        value.append("scribbled")


def test_a_changed_record_is_written_as_it_now_is() -> None:
    """The remembered JSON text is used only for a record as made; a record changed before it is written
    (a field set, added, or a nested value changed) is written by json.dumps."""
    explainer = Explainer(catalog())
    explainer.lazy_cells = True
    fn = FunctionState("k")
    text = "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1;"
    parsed = parse_line(text)
    changes = {
        "none": lambda r: None,
        "line": lambda r: r.update(line=7),  # the head is written from the record as it is
        "kind": lambda r: r.update(kind="tf32"),
        "added": lambda r: r.update(extra=1),
        "nested": lambda r: r["d"].update(lane=16),
        "list": lambda r: r["collector"].append("x"),
        "moved": lambda r: r.update(kind=r.pop("kind")),
    }
    for name, change in changes.items():
        record = explainer(3, text, parsed, fn, Module("k.ptx"))
        change(record)
        pieces = explainer.text_of(record)
        if name in ("none", "line"):
            assert pieces is not None and b"".join(pieces) == json.dumps(record).encode(), name
        else:
            assert pieces is None, name
    other = explainer(3, text, parsed, fn, Module("k.ptx"))
    explainer(4, text, parsed, fn, Module("k.ptx"))
    assert explainer.text_of(other) is None  # not the record just made


def test_memory_bound_forgets_and_answers_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no room to remember, every statement is answered afresh: the same bytes."""
    paths = [FIXTURES / "cute_dsl_gemm.ptx", FIXTURES / "triton_mma_epilogue.ptx"]
    expected = stream(paths, Fresh())
    monkeypatch.setattr(memo, "CACHED_CHARS", 0)
    explainer = Explainer(catalog())
    assert stream(paths, explainer) == expected
    assert len(explainer.memo.by_key) <= 1 and len(explainer.memo.lines) <= 1


class _Constants:
    """What the explainer may ask of a function's constants (``get``), counting what it asks."""

    def __init__(self, values: dict[str, Any], asked: list[str]) -> None:
        self.values, self.asked = values, asked

    def get(self, operand: str) -> Any:
        self.asked.append(operand)
        return self.values.get(operand)


def test_the_register_constant_is_part_of_the_key() -> None:
    """The same mma statement under two idesc values (one a choice), and an alloc under two column counts:
    each answered for its own value, and the constant asked for once per statement."""
    explainer = Explainer(catalog())
    mma = "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1;"
    alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r6], %r7;"
    choice = (Bits(0x08200010, 0xFFFFFFFF), Bits(0x08400010, 0xFFFFFFFF))
    values = (const(0x08200010), const(0x08400010), choice, const(0x08200010), None, const(48), choice)
    asked: list[str] = []
    for value in values:
        fn = SimpleNamespace(name="k", constants=_Constants({"%r3": value, "%r7": value}, asked))
        for text in (mma, alloc):
            module, fresh_module = Module("k.ptx"), Module("k.ptx")
            got = explainer(5, text, parse_line(text), fn, module)  # type: ignore[arg-type]
            fresh = Explainer(catalog())(5, text, parse_line(text), fn, fresh_module)  # type: ignore[arg-type]
            assert got == fresh and list(got) == list(fresh)
            assert [w.record() for w in module.warnings] == [w.record() for w in fresh_module.warnings]
    assert asked.count("%r3") == asked.count("%r7") == 2 * len(values)  # ours and the fresh explainer's
    assert len(explainer.memo.by_key) == 2


def test_repeated_warnings_are_given_at_each_line(tmp_path: Path) -> None:
    """Statements that warn (ld.red on a target that cannot run it, an unknown op, a statement in error,
    an alloc of 48 columns), each repeated: every occurrence warns at its own line, as afresh."""
    body = [
        "mov.b32 %r7, 48;",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%f1, %f2}, %f3, [%r2];",
        "tcgen05.frobnicate.sync.aligned;",
        "tcgen05.ld.sync.aligned.32x32b.x3.b32 {%r1, %r2, %r3}, [%r2];",
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r6], %r7;",
    ]
    path = tmp_path / "warned.ptx"
    path.write_text(".version 9.0\n.target sm_100a\n.entry k()\n{\n" + "\n".join(body * 3) + "\n}\n")
    expected = stream([path], Fresh())
    assert [w["line"] for w in json.loads(expected)["files"][0]["warnings"]] == [
        first + 5 * k for k in range(3) for first in (6, 7, 8, 9)
    ]
    explainer = Explainer(catalog())
    assert stream([path], explainer) == expected
    assert stream([path], explainer) == expected


def _json_template(cells: Any, count: int, pack: bool) -> str:
    """The cells template the slow way: json.dumps of the records with marks, marks made fields."""
    marks = [f"\x01{i}\x02" for i in range(count)]
    text = json.dumps(cell_records(cells, marks, pack)).replace("{", "{{").replace("}", "}}")
    return text.replace('"\\u0001', "{").replace('\\u0002"', "}")


def test_cells_template_is_json_dumps_for_every_shape() -> None:
    """Every ld/st shape, .num and packing: the template filled with names is json.dumps of the cells."""
    checked = 0
    for name in ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"):
        shape = builtin(name)
        for num in (1, 2, 4, 8, 16, 32, 64, 128):
            for pack in (False, True):
                try:
                    ins = make_instruction(shape, num, pack=pack, split_offset=2 if shape.split else None)
                except TmemvizError:
                    continue  # not a valid .num for this shape
                found = cells(ins)
                count = ins.registers_per_thread
                template = cells_template(found, count, ins.pack)
                assert template == _json_template(found, count, ins.pack)
                names = [f"%r{i}" for i in range(count - 1)]  # one short: its cells say null
                filled = template.format(*map(json.dumps, names), "null")
                assert filled == json.dumps(cell_records(found, names, ins.pack))
                checked += 1
    assert checked > 60


@given(
    st.lists(st.tuples(st.integers(-3, 300), st.integers(-2, 9), st.sampled_from([0, 1, None]),
                       st.integers(0, 127), st.integers(0, 600)), max_size=12),
    st.integers(0, 8),
    st.booleans(),
)  # fmt: skip
@example([(0, 0, None, 1, 2), (0, 1, 1, 1, 3)], 2, True)  # a packed cell without its half
@example([(True, 0, None, 1, 2)], 1, False)  # a bool where ints go (json says true)
@example([(0, 2, None, 1, 2)], 2, False)  # a reg past the names
def test_cells_template_on_any_cells(rows: list[tuple[Any, ...]], count: int, pack: bool) -> None:
    """Odd cells too (a reg past the names or negative, a missing half): the same text as json.dumps."""
    found = [Cell(*row) for row in rows]

    def outcome(make: Any) -> Any:
        try:
            return make(found, count, pack)
        except IndexError:  # a negative reg past the names, as cell_records says it
            return IndexError

    assert outcome(cells_template) == outcome(_json_template)


def test_empty_texts_are_written_as_json() -> None:
    """A record whose statement or function is the empty string is still written as json.dumps writes
    it (the remembered JSON strings start empty)."""
    explainer = Explainer(catalog())
    explainer.lazy_cells = True
    text = "tcgen05.wait::ld.sync.aligned;"
    for function, statement in (("", text), ("k", ""), ("", "")):
        fn = SimpleNamespace(name=function, constants=_Constants({}, []))
        record = explainer(1, statement, parse_line(text), fn, Module("k.ptx"))  # type: ignore[arg-type]
        pieces = explainer.text_of(record)
        assert pieces is not None and b"".join(pieces) == json.dumps(record).encode()


def test_footprints_are_worked_out_afresh_the_same() -> None:
    """Every ld/st of every fixture: its footprint, remembered by its parsed line, is the one worked out
    again from the explained layouts."""
    explainer = Explainer(catalog())
    lines: list[Any] = []

    def footprint(line: Any) -> Any:
        lines.append(line)
        return explainer.footprint(line)

    for path in PTX:
        module = Module(str(path))
        with path.open() as f:
            for e in events(f):
                if e.kind == "tcgen05" and e.line is not None and e.line.qualifiers[1] in ("ld", "st"):
                    explainer(e.statement.first, e.statement.text + ";", e.line, e.fn, module)
                    footprint(e.line)
    assert len(lines) > 50
    found = [explainer.footprint(line) for line in lines]
    assert explainer.memo.footprints
    explainer.memo.footprints.clear()
    assert [explainer.footprint(line) for line in lines] == found
    assert sum(f is not None for f in found) > 50


def test_a_constant_that_cannot_be_a_key_is_answered_afresh() -> None:
    """A constant given as a list (not the tuple a Value is) is answered each time, as a fresh
    explainer answers it, and nothing is remembered for it."""
    explainer = Explainer(catalog())
    text = "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1;"
    for _ in range(2):
        fn = SimpleNamespace(name="k", constants=_Constants({"%r3": list(const(0x08200010))}, []))
        got = explainer(5, text, parse_line(text), fn, Module("k.ptx"))  # type: ignore[arg-type]
        fresh = Explainer(catalog())(5, text, parse_line(text), fn, Module("k.ptx"))  # type: ignore[arg-type]
        assert got == fresh and got["idesc"]["hex"] == "0x08200010"
    assert not any(known.made for known in explainer.memo.by_key.values())


def test_loads_that_differ_in_their_base_register_share_cells_and_template() -> None:
    """explain/ops.py: the cells depend on shape, .num, packing, origin and accesses, not on the base
    register's name; an address immediate or another .num gives other cells. Each record is still the
    one a fresh explainer makes of its statement."""
    texts = ["tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r9];",
             "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r10];",
             "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r5, %r6}, [%r11+16];",
             "tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r1, %r2, %r3, %r4}, [%r12];"]  # fmt: skip
    lines = [".target sm_100a", ".visible .entry k()", "{", *texts, "}"]
    explainer = Explainer(catalog())
    explainer.lazy_cells = True
    made = list(records(Module("k.ptx"), lines, explainer))
    found = [explainer.layouts[r["cells"].key][1].cells for r in made]
    assert found[0] is found[1] and found[2] is not found[0] and found[3] is not found[0]
    assert len(explainer.cell_sets) == 3
    for record, text in zip(made, texts, strict=True):
        fresh = list(
            records(Module("k.ptx"), [".target sm_100a", ".entry k()", "{", text, "}"], Explainer(catalog()))
        )
        assert json.loads(explainer.cells_json(record["cells"])) == fresh[0]["cells"]
        assert record["base"] == fresh[0]["base"] and record["offset"] == fresh[0]["offset"]
