"""The ``sass`` fields of the shape files and the SASS tables: loaded, and refused with precise errors."""

from __future__ import annotations

import copy

import pytest
import yaml

from tmemviz.errors import TmemvizError
from tmemviz.families.cp.shapes import parse_copy_shape
from tmemviz.families.ldst.shapes import parse_shape
from tmemviz.families.mma.shapes import mma_sass, parse_mma_sass
from tmemviz.families.shift.shapes import parse_shift_shape
from tmemviz.files import builtin_dir


def shipped(path: str) -> dict:
    return yaml.safe_load((builtin_dir() / path).read_text())


def test_every_shipped_shape_has_its_sass_names() -> None:
    for name, words in (("32x32b", ["LDTM"]), ("16x64b", ["LDTM.16dp64bit"]),
                        ("16x32bx2", ["LDTM.16dp32bit_t0_t15", "LDTM.16dp32bit_t16_t31"])):  # fmt: skip
        shape = parse_shape(shipped(f"ldst/{name}.yaml"), name)
        assert list(shape.sass.ld) == words
        assert shape.sass.pack == {"ld": "PACK16BIT", "st": "EXPAND16BIT"}
    assert parse_shape(shipped("ldst/16x64b.yaml"), "x").sass.red is None
    cp = parse_copy_shape(shipped("cp/64x128b.yaml"), "x")
    assert [p.sass for p in cp.placements] == [
        "UTCCP.T.S.2x64dp128bit_lw02_lw13",
        "UTCCP.T.S.2x64dp128bit_lw01_lw23",
    ]
    assert dict(cp.sass_decompress) == {"b4x16_p64": "U4x16P64", "b6x16_p32": "U6x16P32"}
    assert parse_shift_shape(shipped("shift/31x256b.yaml"), "x").sass == "UTCSHIFT.DOWN"
    assert mma_sass().kinds("UTCQMMA", True) == ("mxf8f6f4",) and mma_sass().opcode("i8") == "UTCIMMA"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["sass"].update(ld=["LDTM.16dp32bit_t0_t15"]),
         r"field 'sass.ld': expected one spelling per access \(2\), got 1"),
        (lambda d: d["sass"].update(st=["STTM.a", "LDTM.b"]),
         r"field 'sass.st\[1\]': expected a spelling that starts with STTM"),
        (lambda d: d["sass"].update(ld=["LDTM.x y", "LDTM"]),
         r"field 'sass.ld\[0\]': expected a SASS opcode"),
        (lambda d: d["sass"].update(pack={"ld": "PACK16BIT"}),
         r"field 'sass.pack': expected a mapping with exactly"),
        (lambda d: d["sass"]["red"].pop("NaN"), r"field 'sass.red': expected a mapping with exactly"),
        (lambda d: d["sass"].update(extra=1), r"unknown field 'extra'"),
        (lambda d: d.update(ld_red=False), r"field 'sass.red': only a shape with ld_red: true takes it"),
    ],
)  # fmt: skip
def test_ldst_sass_field_errors(change, message: str) -> None:
    doc = copy.deepcopy(shipped("ldst/16x32bx2.yaml"))
    change(doc)
    with pytest.raises(TmemvizError, match=message):
        parse_shape(doc, "f.yaml")


def test_cp_and_shift_sass_errors() -> None:
    doc = copy.deepcopy(shipped("cp/32x128b.yaml"))
    doc["placements"][0]["sass"] = "LDTM.4x32dp128bit"
    with pytest.raises(
        TmemvizError, match=r"field 'placements\[0\].sass': expected a spelling that starts with UTCCP"
    ):
        parse_copy_shape(doc, "f.yaml")
    doc = copy.deepcopy(shipped("cp/32x128b.yaml"))
    doc["sass_decompress"] = {"b4x16_p64": "U4x16P64"}
    with pytest.raises(TmemvizError, match=r"field 'sass_decompress': expected a mapping with exactly"):
        parse_copy_shape(doc, "f.yaml")
    doc = shipped("shift/31x256b.yaml")
    with pytest.raises(TmemvizError, match=r"field 'sass': expected a spelling that starts with UTCSHIFT"):
        parse_shift_shape({**doc, "sass": "UTCBAR.DOWN"}, "f.yaml")


def test_mma_table_errors() -> None:
    doc = shipped("mma/sass.yaml")
    bad_kind = {**doc, "opcodes": {**doc["opcodes"], "UTCXMMA": {"plain": ["f32"]}}}
    with pytest.raises(
        TmemvizError, match=r"field 'opcodes.UTCXMMA.plain': 'f32' is not a tcgen05.mma .kind"
    ):
        parse_mma_sass(bad_kind, "f.yaml")
    twice = {**doc, "opcodes": {**doc["opcodes"], "UTCXMMA": {"plain": ["i8"]}}}
    with pytest.raises(TmemvizError, match=r"kind i8 is also under opcodes.UTCIMMA"):
        parse_mma_sass(twice, "f.yaml")
    with pytest.raises(TmemvizError, match=r"unknown field 'forms'"):
        parse_mma_sass({**doc, "opcodes": {"UTCHMMA": {"forms": []}}}, "f.yaml")
