"""Every form's SASS (as nvdisasm printed it, observed.json) explained into the same record as its PTX.

The PTX side is the form's own statement (forms.py) explained by tmemviz; the SASS side the lines
nvdisasm printed for it. ld/st cells must be the same (thread, register index, lane, column, half), and
each SASS cell's register name must be the register the form's stores/loads show holding that PTX
vector element (observed.json "registers"); cp, mma, commit, shift, alloc, dealloc the same fields.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forms import all_forms, module

import tmemviz

OBSERVED = Path(__file__).with_name("observed.json")
DATA = json.loads(OBSERVED.read_text())
FORMS = {f.name: f for f in all_forms()}
SAME = ("op", "shape", "num", "pack", "multicast", "decompress", "cta_group", "ws", "a_in_tmem", "sparse",
        "block_scale", "columns")  # fmt: skip


def listing(name: str, entry: dict) -> str:
    """The form's lines as an ``nvdisasm -c`` listing (code offsets made up, 16 bytes apart)."""
    lines = [f"\t.target\t{entry['target']}", f".text.{name}:"]
    lines += [f"        /*{16 * i:04x}*/                   {s} ;" for i, s in enumerate(entry["sass"])]
    return "\n".join(lines) + "\n"


def explain(text: str) -> dict:
    return tmemviz.explain(text=text).lists()[0][1][0]


def ptx_records(name: str) -> list[dict]:
    form = FORMS[name]
    records = explain(module([form], form.target))["instructions"]
    return [r for r in records if r["op"] not in ("wait::ld", "wait::st")]


def cells(record: dict) -> set[tuple]:
    return {(c["thread"], c["reg"], c.get("half"), c["lane"], c["col"]) for c in record["cells"]}


def moved(cells_: set[tuple], key: dict) -> set[tuple]:
    """The PTX form's cells (relative to the register holding the sum) as relative to the SASS base: a
    folded immediate ``moved`` them, a constant address is ``absolute``."""
    lane, col = key.get("moved") or key.get("absolute") or (0, 0)
    return {(t, r, h, la + lane, co + col) for t, r, h, la, co in cells_}


@pytest.mark.parametrize("name", sorted(DATA["forms"]))
def test_sass_record_is_the_ptx_record(name: str) -> None:
    entry = DATA["forms"][name]
    if "refused" in entry:
        assert "expect_refused" in entry["key"]
        return
    got = explain(listing(name, entry))
    sass = got["instructions"]
    assert got["language"] == "sass" and got["target"] == entry["target"]
    ptx = ptx_records(name)
    # Where the PTX form is refused (an access past column 511), the SASS one is, in the same words.
    assert [r.get("error") for r in sass if "error" in r] == [r["error"] for r in ptx if "error" in r] * len(
        [r for r in sass if "error" in r]
    )
    if not ptx or ptx[0]["op"].startswith(("fence", "wait", "relinquish")):
        assert sass == []
        return
    (p,) = ptx
    assert sass, f"{name}: no SASS record"
    if "error" in p:
        return
    if p["op"] == "alloc":
        assert {r["op"] for r in sass} == {"alloc"} and all(r["cta_group"] == p["cta_group"] for r in sass)
        return
    if p["op"] == "dealloc":
        (s,) = sass
        assert s["op"] == "dealloc" and s["cta_group"] is None  # SASS spells both groups alike
        return
    if p.get("shape") == "16x32bx2":
        first, second = sass
        assert (first["threads"], second["threads"]) == ([0, 15], [16, 31])
        assert first["split_offset"] == second["split_offset"] == p["split_offset"]
        merged = {**first, "cells": first["cells"] + second["cells"]}
        sass = [merged]
    (s,) = sass
    for key in SAME:
        if key == "kind":
            continue
        assert s.get(key) == p.get(key), (name, key, s.get(key), p.get(key))
    if p["op"] == "mma":
        assert p["kind"] in s["kind"].split(" or "), (s["kind"], p["kind"])
        assert (s["scale_vec"] or "block32") == (p["scale_vec"] or "block32") if p["block_scale"] else True
        assert s["idesc"] == p["idesc"] and s["layout"] == p["layout"]
        # Every collector usage reads back but ::a::discard and ::b0::discard, which print no word.
        invisible = ("collector::a::discard", "collector::b0::discard")
        assert s["collector"] == [c for c in p["collector"] if c not in invisible]
    key = entry["key"]
    if p["op"] == "mma":
        # What the records do not hold (yet) the statement the SASS was read as must: PTX's operand.
        said = s["ptx"].rstrip(";")
        assert said.endswith(f", {key.get('scale_input_d')}") == bool(key.get("scale_input_d")), said
        assert (".ashift" in said) == bool(key.get("ashift")), said
        assert said.endswith(", UR6") == bool(key.get("zero_column_mask")), said  # after enable-input-d
        assert ("{" in said) == bool(key.get("disable_output_lane")), said  # a vector only for lanes
    lane, col = key.get("moved") or key.get("absolute") or (0, 0)
    if "cells" in p:
        assert cells(s) == moved(cells(p), key)
        # The register named for each cell is the one the stores/loads show holding that vector element;
        # RZ (zero) for a vector of zeros.
        if key.get("zero"):
            assert {c["register"] for c in s["cells"]} == {"RZ"} and "reads as zero" in s["summary"]
        elif "registers" in entry:
            shown = entry["registers"]
            assert all(c["register"] == f"R{shown[c['reg']]}" for c in s["cells"])
        if p.get("shape") != "16x32bx2":
            assert s["offset"] == {"lane": p["offset"]["lane"] + lane, "col": p["offset"]["col"] + col}
    if p["op"] == "ld.red":
        assert s["red"] == p["red"] and s["redval_register"] == f"R{entry['redval']}"
    if p["op"] == "cp":
        assert s["offset"] == {"lane": p["offset"]["lane"] + lane, "col": p["offset"]["col"] + col}
    if p["op"] == "shift":
        r = p["rows"]
        assert s["rows"] == {
            "from_lanes": [x + lane for x in r["from_lanes"]],
            "to_lanes": [x + lane for x in r["to_lanes"]],
            "cols": [x + col for x in r["cols"]],
        }
    assert got["warnings"] == [], got["warnings"]


def test_every_form_has_a_kernel() -> None:
    assert set(FORMS) == set(DATA["forms"])
