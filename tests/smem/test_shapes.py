"""The swizzle files: the shipped ones say what the facts say; broken ones are refused by file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmemviz.catalog import builtin_dir, load_catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.smem.shapes import KIND, builtin_swizzles, find_swizzle, load_swizzles

# smem-facts "Units and the swizzle" and the descriptor table: name -> (B, W bytes, repeat, code).
FACTS = {"none": (0, 16, 128, 0), "32B": (1, 32, 256, 6), "64B": (2, 64, 512, 4), "128B": (3, 128, 1024, 2)}

GOOD = """\
name: {name}
swizzle: {{bits: 1, base: 4, shift: 3}}
atom_bytes: 32
repeat_bytes: 256
descriptor_code: 6
majors: [K, MN]
"""


def test_shipped_swizzles_match_the_facts() -> None:
    found = {s.name: (s.bits, s.atom_bytes, s.repeat_bytes, s.descriptor_code) for s in builtin_swizzles()}
    assert found == FACTS
    for sw in builtin_swizzles():
        assert (sw.base, sw.shift, sw.majors) == (4, 3, ("K", "MN"))
        assert "9.7.16.3" in Path(sw.source).read_text(encoding="utf-8")
    assert find_swizzle("64B").notation() == "Swizzle<2,4,3>"
    assert (builtin_dir() / "smem").is_dir()
    assert find_swizzle("SWIZZLE_128B").name == "128B" and find_swizzle("interleave").name == "none"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "smem"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_user_file_loads(tmp_path: Path) -> None:
    _write(tmp_path, "mine", GOOD.format(name="mine"))
    (sw,) = load_swizzles(tmp_path)
    assert (sw.name, sw.bits, sw.atom_bytes, sw.descriptor_code) == ("mine", 1, 32, 6)


BROKEN = [
    (GOOD.format(name="other"), "name", "equal to the file name 'x'"),
    (GOOD.format(name="x").replace("atom_bytes: 32", "atom_bytes: 64"), "atom_bytes", "use 32"),
    (GOOD.format(name="x").replace("repeat_bytes: 256", "repeat_bytes: 512"), "repeat_bytes", "use 256"),
    (GOOD.format(name="x").replace("bits: 1", "bits: true"), "swizzle.bits", "expected an integer"),
    (GOOD.format(name="x").replace("bits: 1", "bits: 4"), "swizzle.bits", "allowed 0..3"),
    (GOOD.format(name="x").replace("base: 4", "base: 5"), "swizzle.base", "allowed 4..4"),
    (GOOD.format(name="x").replace(", shift: 3", ""), "swizzle", "exactly bits, base, shift"),
    (GOOD.format(name="x").replace("bits: 1,", "bits: 1.5,"), "swizzle.bits", "expected an integer"),
    (GOOD.format(name="x") + "aliases: [a b]\n", "aliases[0]", "letters, digits and _"),
    (GOOD.format(name="x").replace("descriptor_code: 6", "descriptor_code: 8"), "descriptor_code", "0..7"),
    (GOOD.format(name="x").replace("[K, MN]", "[K, K]"), "majors", "distinct values from K, MN"),
    (GOOD.format(name="x").replace("[K, MN]", "[]"), "majors", "non-empty"),
    (GOOD.format(name="x").replace("[K, MN]", "[N]"), "majors", "non-empty list"),
]


@pytest.mark.parametrize(("text", "field", "what"), BROKEN, ids=[f"{f}-{w}" for _, f, w in BROKEN])
def test_broken_fields_name_file_and_field(tmp_path: Path, text: str, field: str, what: str) -> None:
    path = _write(tmp_path, "x", text)
    with pytest.raises(TmemvizError) as err:
        load_swizzles(tmp_path)
    message = str(err.value)
    assert message.startswith(f"{path}: field '{field}': ")
    assert what in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("name: [unclosed\n", "not valid YAML"),
        ("- a list\n", "expected a mapping"),
        (GOOD.format(name="x").replace("atom_bytes: 32\n", ""), "field 'atom_bytes' is missing"),
        (GOOD.format(name="x") + "colour: red\n", "unknown field 'colour'"),
        (GOOD.format(name="x").replace("atom_bytes: 32", "atom_bytes: '32'"), "'atom_bytes' must be a whole"),
        (GOOD.format(name="x").replace("[K, MN]", "K"), "'majors' must be a list"),
    ],
)
def test_unreadable_files(tmp_path: Path, text: str, what: str) -> None:
    path = _write(tmp_path, "x", text)
    with pytest.raises(TmemvizError, match=what) as err:
        load_swizzles(tmp_path)
    assert str(err.value).startswith(f"{path}: ")


def test_duplicates_and_empty_directories(tmp_path: Path) -> None:
    with pytest.raises(TmemvizError, match="no swizzle files"):
        load_swizzles(tmp_path)
    _write(tmp_path, "a", GOOD.format(name="a"))
    _write(tmp_path, "b", GOOD.format(name="b"))
    with pytest.raises(TmemvizError, match=r"field 'swizzle.bits': 1 is also used by .*a\.yaml"):
        load_swizzles(tmp_path)
    wider = "name: b\naliases: [A]\nswizzle: {bits: 2, base: 4, shift: 3}\natom_bytes: 64\n"
    _write(tmp_path, "b", wider + "repeat_bytes: 512\ndescriptor_code: 4\nmajors: [MN]\n")
    with pytest.raises(TmemvizError, match=r"b\.yaml: field 'name'/'aliases': 'A' is already defined by .*a"):
        load_swizzles(tmp_path)


def test_user_directories_are_read_with_the_shipped_files(tmp_path: Path) -> None:
    # A --layouts DIR is searched in DIR/smem/ like every family's; a file that repeats a shipped
    # mode is refused (one descriptor code, one mode), naming both files.
    _write(tmp_path, "mine", GOOD.format(name="mine"))
    catalog = load_catalog([tmp_path])
    assert catalog.files(KIND)[-1] == tmp_path / "smem" / "mine.yaml"
    with pytest.raises(
        TmemvizError, match=r"mine\.yaml: field 'swizzle.bits': 1 is also used by .*32B\.yaml"
    ):
        catalog.shapes(KIND)
    assert [s.name for s in load_catalog().shapes(KIND)] == ["none", "32B", "64B", "128B"]


def test_unknown_swizzle_lists_the_known_ones() -> None:
    with pytest.raises(TmemvizError, match="unknown swizzle '256B'; known swizzles are none, 32B, 64B, 128B"):
        find_swizzle("256B")
