"""The SASS spelling tables of layouts/ checked against what ptxas and nvdisasm print.

For every PTX form of forms.py (each ld/st shape x .num x pack, ld.red, each cp shape x multicast x
.cta_group x decompression, each mma kind x .cta_group x A in TMEM x .sp x .ws, commit, alloc, dealloc,
shift, waits and fences) the tables predict the SASS opcode and modifiers; the prediction must equal
what nvdisasm printed. observed.json holds those observations (tool versions included), so the tables
are checked without the tools; with them (the test extra), a fresh observation must equal the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tmemviz.catalog import Catalog
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.explain.umma import explain_table
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.mma.shapes import mma_sass
from tmemviz.families.shift.shapes import KIND as SHIFT

OBSERVED = Path(__file__).with_name("observed.json")
CTA_PAIR = "2CTA"


def observed() -> dict:
    return json.loads(OBSERVED.read_text())


def spelled(lines: list[str]) -> list[str]:
    """The opcode+modifiers of each tcgen05 SASS line (guard dropped; UMOV lines left out)."""
    out = []
    for line in lines:
        words = line.split()
        word = words[1] if words[0].startswith("@") else words[0]
        if "TM" in word or word.startswith("UTC"):
            out.append(word)
    return out


def with_pair(spelling: str, group: int, after: int = 1) -> str:
    """``.2CTA`` inserted after the first ``after`` words (the opcode; UTCCP's opcode, T and S)."""
    if group == 1:
        return spelling
    words = spelling.split(".")
    return ".".join([*words[:after], CTA_PAIR, *words[after:]])


def predict(catalog: Catalog, key: dict, target: str = "sm_100a") -> list[str] | None:
    """What the tables say nvdisasm prints for the form ``key`` on ``target``, instruction by instruction
    (None: none)."""
    op = key["op"]
    if op in ("ld", "st", "ld.red"):
        shape = catalog.get(LDST, key["shape"])
        table = shape.sass
        num = f".x{key['num']}" if key["num"] > 1 else ""
        if op == "ld.red":
            red = table.red
            kind, rest = key["red"].split(".")[-1], key["red"].split(".")[:-1]
            name = ".".join(w for w in rest if w != "NaN")
            tail = (
                f".{red[name]}" + (f".{red[kind]}" if red[kind] else "") + (".NAN" if "NaN" in rest else "")
            )
            return [red["opcode"] + s.removeprefix("LDTM") + num + tail for s in table.ld]
        pack = f".{table.pack[op]}" if key["pack"] else ""
        return [s + num + pack for s in getattr(table, op)]
    if op == "cp":
        copy = catalog.get(CP, key["shape"])
        placement = copy.placement(key["multicast"])
        text = with_pair(placement.sass, key["cta_group"], after=3)
        fmt = dict(copy.sass_decompress).get(key["decompress"]) if key["decompress"] else None
        return [text + (f".{fmt}" if fmt else "")]
    if op == "mma":
        table = mma_sass()
        text = with_pair(table.opcode(key["kind"]), key["cta_group"])
        for on, qualifier in ((key["ws"], ".ws"), (key.get("ashift"), ".ashift"),
                              (key["scale"] == "block16", ".block16")):  # fmt: skip
            text += f".{table.word(qualifier, target)}" if on else ""
        return [text]
    if op == "shift":
        return [with_pair(catalog.shapes(SHIFT)[0].sass, key["cta_group"])]
    entry = explain_table()[op]
    if "none" in entry:
        return None
    if key.get("cta_group") == 2 and entry.get("cta_group_2"):
        text = with_pair(entry["sass"], 2)
    else:
        text = entry["sass"]
    return [text + (f".{entry['multicast']}" if key.get("multicast") else "")]


FORMS = sorted(observed()["forms"])


def check(catalog: Catalog, name: str, entry: dict) -> None:
    if "expect_refused" in entry["key"]:  # a form the target does not have (kind::i8 on sm_103a)
        assert entry["key"]["expect_refused"] in entry.get("refused", ""), (name, entry)
        return
    assert "refused" not in entry, f"ptxas refused {name}: {entry.get('refused')}"
    expected = predict(catalog, entry["key"], entry["target"])
    got = spelled(entry["sass"])
    if expected is None:
        assert got == [], f"{name}: the tables say no instruction, nvdisasm printed {got}"
    elif entry["key"]["op"] == "alloc":
        # ptxas retries the allocation in a loop: the same instruction twice.
        assert got and set(got) == set(expected), (name, got, expected)
    else:
        assert got == expected, (name, got, expected)
    key = entry["key"]
    if "collector" in key:
        check_collector(name, key["collector"], entry["sass"])
    if key["op"] == "mma":
        check_after_idesc(name, key, entry["sass"])
    if key["op"] in ("ld", "st", "cp", "shift"):
        check_address(name, key, entry["sass"])


def check_after_idesc(name: str, key: dict, lines: list[str]) -> None:
    """The operands after idesc[..]: [scale tmem[..]], [one uniform register: the disable-output-lane
    vector, or .ws's zero-column mask], the enable-input-d predicate, [scale-input-d, when not 0]."""
    line = next(s for s in lines if s.startswith("UTC"))
    after = [o.strip() for o in line.split("idesc[", 1)[1].split(",")[1:]]
    expected = ["tmem"] if key["block_scale"] else []
    expected += ["UR"] if key.get("disable_output_lane") or key.get("zero_column_mask") else []
    expected += ["UP"]
    scale = key.get("scale_input_d") or 0
    expected += [f"0x{scale:x}"] if scale else []
    assert len(after) == len(expected), line
    assert all(a.startswith(e) for a, e in zip(after, expected, strict=True)), line


def check_address(name: str, key: dict, lines: list[str]) -> None:
    """A folded immediate (``moved``: lanes, columns the PTX added to the base) or a constant address
    (``absolute``) prints as the 32-bit sum's immediate; an all-zero vector as RZ, any other as R<n>."""
    from tmemviz.sass.line import parse_sass

    for text in lines:
        sass = parse_sass(text)
        if not (sass.opcode in ("LDTM", "STTM") or sass.opcode.startswith("UTC")):
            continue
        (base, imm) = sass.tmem()
        if "moved" in key:
            lane, col = key["moved"]
            assert base is not None and imm & 0xFFFFFFFF in {((lane << 16) + col + extra) & 0xFFFFFFFF
                                                            for extra in (0, 8)}, (name, text)  # fmt: skip
        if "absolute" in key:
            lane, col = key["absolute"]
            assert base is None and imm in ((lane << 16) + col, (lane << 16) + col + 8), (name, text)
        if "zero" in key:
            data = [o for o in sass.operands if not o.startswith("tmem[")]
            assert (data == ["RZ"]) == key["zero"] and (key["zero"] or data[0].startswith("R")), (name, text)


def check_collector(name: str, collector: str, lines: list[str]) -> None:
    """The words the table gives the form's collector are the ones on its A or B operand, and no others."""
    _, buffer, op = collector.split("::")
    words = next(w for b, o, w in mma_sass().collector if (b, o) == (buffer, op))
    line = next(s for s in lines if s.startswith("UTC"))
    a, b = (o.strip() for o in line.split(None, 1)[1].split(",")[:2])
    printed = {
        "A": tuple(x for x in a.split("]")[1].split(".") if x),
        "B": tuple(x for x in b.split("]")[1].split(".") if x),
    }
    letter = "A" if buffer == "a" else "B"
    assert set(printed[letter]) == set(words), (name, printed, words)
    assert printed["B" if letter == "A" else "A"] == (), (name, printed)


@pytest.mark.parametrize("name", FORMS)
def test_tables_say_what_nvdisasm_printed(catalog: Catalog, name: str) -> None:
    check(catalog, name, observed()["forms"][name])


def test_every_form_was_assembled_and_versions_are_recorded() -> None:
    data = observed()
    assert data["tools"] == {"ptxas": "13.5.37", "nvdisasm": "13.5.37"}
    assert len(data["forms"]) == 569
    refused = {n for n, e in data["forms"].items() if "refused" in e}
    assert refused == {n for n, e in data["forms"].items() if "expect_refused" in e["key"]}
    assert len(refused) == 12 and all(
        e["target"] == "sm_103a" for n, e in data["forms"].items() if n in refused
    )


def test_yaml_records_the_versions_it_was_established_with() -> None:
    tools = observed()["tools"]
    for name in ("mma", "explain"):
        text = (Path(__file__).parents[2] / "layouts" / name / "sass.yaml").read_text()
        assert f"tools: {{ptxas: {tools['ptxas']}, nvdisasm: {tools['nvdisasm']}}}" in text


def test_vector_registers_are_consecutive_from_the_one_named() -> None:
    """The register each PTX vector element lands in (seen through the stores/loads of forms.py) is the
    named register plus the element's index, for every ld/st/ld.red form."""
    for name, entry in observed()["forms"].items():
        if "registers" not in entry:
            continue
        first = int(spelled_register(entry))
        assert entry["registers"] == list(range(first, first + len(entry["registers"]))), name


def spelled_register(entry: dict) -> str:
    line = next(s for s in entry["sass"] if "TM" in s.split()[0])
    operands = [o.strip() for o in line.split(None, 1)[1].split(",")]
    registers = [o for o in operands if o.startswith("R")]
    return registers[-1 if entry["key"]["op"] == "ld.red" else 0][1:]


def test_a_fresh_observation_equals_the_file(observed_now: dict) -> None:
    data = observed()
    if observed_now["tools"] != data["tools"]:
        pytest.skip(f"tools {observed_now['tools']} differ from the recorded {data['tools']}")
    assert observed_now == data


def test_the_tables_predict_a_fresh_observation(catalog: Catalog, observed_now: dict) -> None:
    """Whatever ptxas/nvdisasm 13.x the test extra brings, the tables must still say what they print."""
    for name, entry in observed_now["forms"].items():
        check(catalog, name, entry)
