"""Every API function and every which()/where(), called with a matrix of bad values: a TmemvizError with
the CLI's sentence, or an answer; never an AttributeError, a TypeError or a silent wrong answer."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

import tmemviz
from tmemviz import api
from tmemviz.draw.document import Document, Record
from tmemviz.errors import TmemvizError

SHIFT = "tcgen05.shift.cta_group::1.down [%r1];"
CALLS: dict[str, dict[str, Any]] = {
    "layout": {"shape": "16x256b"},
    "pack": {"op": "ld"},
    "cp": {"shape": "128x256b"},
    "decompress": {"fmt": "b6x16_p32"},
    "smem": {"major": "K", "swizzle": "128B", "dtype": "f16", "rows": 8, "cols": 64},
    "desc": {"value": "0x4000404000010000"},
    "shift": {"instruction": SHIFT},
    "tile": {"n": 32, "shape": "32x32b"},
    "idesc": {"value": "0x08200010", "kind": "f16"},
    "explain": {"text": "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2];"},
    "check": {"text": "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2];"},
    "datapath": {"letter": "D"},
    "scales": {"k": 128, "m": 128},
    "emit": {"shape": "16x256b"},
}
"""A call that succeeds, for each function; the matrix changes one argument at a time."""

BAD: list[Any] = [
    None,
    True,
    False,
    1.5,
    math.nan,
    "abc",
    "",
    -1,
    2**70,
    "9" * 5000,
    [],
    [1, "x"],
    (1, 2, 3),
    b"x",
    object(),
]


def test_the_matrix_covers_every_api_function() -> None:
    assert set(CALLS) == set(tmemviz.API)


def parameters(name: str) -> list[str]:
    func = getattr(api, name).__wrapped__
    return list(func.__code__.co_varnames[: func.__code__.co_argcount])


CASES = [(name, param) for name in CALLS for param in parameters(name)]


@pytest.mark.parametrize(("name", "param"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_bad_values_raise_tmemviz_error_or_answer(name: str, param: str) -> None:
    for value in BAD:
        try:
            result = getattr(tmemviz, name)(**{**CALLS[name], param: value})
        except TmemvizError as exc:
            message = str(exc)
            assert message and "\n" not in message and len(message) < 400, message
            assert "Traceback" not in message
            continue
        assert isinstance(result, Document), (name, param, value)
        # A float, bytes or an object is never a value any argument takes: answering would be a guess.
        assert not isinstance(value, (float, bytes)) and type(value) is not object, (name, param, value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: tmemviz.layout(None), "SHAPE must be text, got None"),
        (
            lambda: tmemviz.layout("16x256b", pack="false"),
            "--pack must be True or False, got the str 'false'",
        ),
        (lambda: tmemviz.tile(n="abc", shape="32x32b"), "--n must be a whole number, got 'abc'"),
        (lambda: tmemviz.smem(major=3), "--major must be text or None, got the int 3"),
        (
            lambda: tmemviz.layout("16x256b", split_offset=1.5),
            "--split-offset must be a whole number or None",
        ),
        (lambda: tmemviz.layout("16x256b", warp=True), "--warp must be a whole number or None, got the bool"),
        (lambda: tmemviz.layout("16x256b", nmu=4), "layout() has no argument 'nmu'"),
        (lambda: tmemviz.cp("128x256b", row=1.5), "--row must be a whole number or None"),
        (lambda: tmemviz.desc(-1), "descriptor"),
    ],
)
def test_the_sentences_are_the_clis(call: Any, message: str) -> None:
    with pytest.raises(TmemvizError, match="^" + re.escape(message)):
        call()


def test_cli_spelled_numbers_are_read_as_the_cli_reads_them() -> None:
    assert tmemviz.tile(n="0x20", shape="32x32b").subject.n == 32
    assert tmemviz.layout("16x256b", num="x4").subject.num == 4


def test_desc_takes_a_python_int() -> None:
    assert tmemviz.desc(0x4000404000010000).header["sbo"] == 1024
    assert tmemviz.desc(0x4000404000010000).header == tmemviz.desc("0x4000404000010000").header


QUESTIONS: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    ("layout", {"shape": "16x256b"}, "which", {"lane": 1, "col": 2}),
    ("layout", {"shape": "16x256b"}, "where", {"thread": 1, "reg": 0}),
    ("cp", {"shape": "128x256b"}, "which", {"lane": 1, "col": 0}),
    ("cp", {"shape": "128x256b"}, "where", {"row": 1}),
    ("decompress", {"fmt": "b6x16_p32"}, "which", {"index": 1}),
    ("smem", CALLS["smem"], "which", {"byte": 16}),
    ("smem", CALLS["smem"], "where", {"row": 1, "col": 2}),
    ("shift", {"instruction": SHIFT}, "which", {"lane": 1}),
    ("tile", CALLS["tile"], "which", {"m": 1, "n": 2}),
    ("datapath", {"letter": "D"}, "where", {"m": 1, "n": 2}),
    ("scales", CALLS["scales"], "which", {"lane": 0, "col": 0}),
    ("scales", CALLS["scales"], "where", {"row": 0, "kblock": 0}),
]


@pytest.mark.parametrize(
    ("name", "kw", "method", "asked"), QUESTIONS, ids=[f"{q[0]}-{q[2]}" for q in QUESTIONS]
)
def test_questions_refuse_bad_coordinates(
    name: str, kw: dict[str, Any], method: str, asked: dict[str, Any]
) -> None:
    doc = getattr(tmemviz, name)(**kw)
    assert isinstance(getattr(doc, method)(**asked), Record)
    for key in asked:
        for value in BAD:
            try:
                getattr(doc, method)(**{**asked, key: value})
            except TmemvizError as exc:
                assert "\n" not in str(exc) and len(str(exc)) < 400
                continue
            raise AssertionError(f"{name}().{method}({key}={value!r}) answered")
    with pytest.raises(TmemvizError, match="is not one of them"):
        getattr(doc, method)(**asked, bogus=1)
    with pytest.raises(TmemvizError, match="needs"):
        getattr(doc, method)()


def test_datapath_where_refuses_a_row_outside_d() -> None:
    doc = tmemviz.datapath("D")
    with pytest.raises(TmemvizError, match=r"m must be 0\.\.127"):
        doc.where(m=-1, n=0)
    with pytest.raises(TmemvizError, match=r"n must be 0\.\.255"):
        doc.where(m=0, n=256)
