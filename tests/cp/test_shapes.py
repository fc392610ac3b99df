"""tcgen05.cp shape-file validation: good user cp shapes load and work, bad ones fail clearly.

A cp shape file sits in ``<layouts dir>/cp/``. Every rule of the cp catalog must
reject a bad file with one :class:`TmemvizError` naming the file and the field.
Files are written under ``tmp_path``; the shipped ``layouts/cp`` are only read.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cp.oracle import CUTLASS, MULTICASTS, SHAPES, landings

from tmemviz.catalog import builtin_dir, load_catalog
from tmemviz.cli import main
from tmemviz.cli.options import KINDS
from tmemviz.errors import TmemvizError
from tmemviz.families.cp import layout as mapper_cp
from tmemviz.families.cp.layout import make_copy
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.cp.shapes import CopyShape, load_copy_shape, parse_copy_shape
from tmemviz.families.cp.spelling import find_cutlass_copy

Doc = dict[str, Any]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    yield


def base() -> Doc:
    """A valid user cp shape: 32 rows of 256 bits, three placements."""
    return {
        "ptx_name": ".32x256b",
        "aliases": ["mine32dp256bit"],
        "rows": 32,
        "row_bits": 256,
        "basis": "an invented shape\n   for the tests",
        "placements": [
            {"multicast": "none", "cutlass": "MINE_32dp256bit", "blocks": [{"rows": "0-31", "lanes": [32]}]},
            {
                "multicast": "warpx2::01_23",
                "blocks": [{"rows": "0-15", "lanes": [0, 32]}, {"rows": "16-31", "lanes": [80, 112]}],
            },
            {"multicast": "warpx4", "blocks": [{"rows": "0-31", "lanes": [0, 32, 64, 96]}]},
        ],
    }


def write_cp(root: Path, doc: Any, name: str = "x.yaml") -> Path:
    directory = root / "cp"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def cp_shapes(root: Path) -> tuple[CopyShape, ...]:
    """The cp shapes of the catalog with ``root`` added (the catalog may read them lazily)."""
    return load_catalog([root], KINDS).shapes(CP)


def rejected(root: Path, doc: Any) -> tuple[Path, str]:
    """Write ``doc`` as a user cp file; both loaders must refuse it. Returns (path, message)."""
    path = write_cp(root, doc)
    with pytest.raises(TmemvizError) as via_catalog:
        cp_shapes(root)
    with pytest.raises(TmemvizError) as direct:
        load_copy_shape(path)
    message = str(via_catalog.value)
    assert message == str(direct.value)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message
    return path, message


# --------------------------------------------------------------------------- the shipped files


def test_shipped_cp_files_all_load() -> None:
    files = sorted((builtin_dir() / "cp").glob("*.yaml"))
    assert sorted(p.stem for p in files) == sorted(SHAPES)
    catalog = load_catalog((), KINDS)
    for path in files:
        shape = load_copy_shape(path)
        assert catalog.get(CP, shape.name) == shape
        assert shape.source == str(path)
    # Largest copies first.
    sizes = [s.rows * s.row_bits for s in catalog.shapes(CP)]
    assert sizes == sorted(sizes, reverse=True)


def test_shipped_cutlass_names() -> None:
    catalog = load_catalog((), KINDS)
    names = {p.cutlass: (s.name, p.multicast) for s in catalog.shapes(CP) for p in s.placements}
    assert names == CUTLASS
    for shape in catalog.shapes(CP):
        assert shape.multicasts == MULTICASTS[shape.name]
        assert bool(shape.basis) == (shape.name == "4x256b")


# --------------------------------------------------------------------------- a valid user shape


def test_valid_user_shape_is_loaded_and_usable(tmp_path: Path) -> None:
    write_cp(tmp_path, base())
    catalog = load_catalog([tmp_path], KINDS)
    assert len(catalog.shapes(CP)) == len(SHAPES) + 1
    shape = catalog.get(CP, "32x256b")
    assert catalog.get(CP, ".32X256B") is shape
    assert catalog.get(CP, "mine32dp256bit") is shape
    assert shape.basis == "an invented shape for the tests"
    assert find_cutlass_copy(catalog, "MINE_32dp256bit") == (shape, shape.placements[0])
    # none: row r -> lane 32 + r.
    cp = make_copy(shape)
    assert cp.notes() == ("an invented shape for the tests",)
    got = {tuple(x) for x in mapper_cp.landings(cp)}
    assert got == {(r, w, 0, 32 + r, w) for r in range(32) for w in range(8)}
    # warpx2::01_23: rows 0-15 -> lanes r, 32+r; rows 16-31 -> 80+(r-16), 112+(r-16).
    cp = make_copy(shape, "warpx2::01_23", cta_group=2)
    assert sorted({x.lane for x in mapper_cp.row_landings(cp, 20)}) == [84, 116]
    assert cp.replicas == 4
    # warpx4 is the same as the shipped .32x128b's lanes, but 8 words.
    cp = make_copy(shape, "warpx4", decompress="b6x16_p32")
    lanes = {(x.row, x.lane) for x in mapper_cp.landings(cp)}
    assert lanes == {(x[0], x[3]) for x in landings("32x128b", "warpx4", 1)}
    with pytest.raises(TmemvizError, match=r"takes no \.multicast or \.warpx2::01_23 or \.warpx4"):
        make_copy(shape, "warpx2::02_13")


def test_valid_user_shape_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_cp(tmp_path, base())
    code = main(["cp", "32x256b", "-m", "warpx2::01_23", "--row", "20", "--layouts", str(tmp_path)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "lanes 84 and 116" in out


def test_valid_user_shape_through_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_cp(tmp_path, base())
    monkeypatch.setenv("TMEMVIZ_LAYOUTS", str(tmp_path))
    code = main(["cp", "mine32dp256bit", "--lane", "40", "--col", "7"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "receives word 7 of source row 8" in out


def test_yml_suffix_is_loaded_and_other_files_ignored(tmp_path: Path) -> None:
    write_cp(tmp_path, base(), "x.yml")
    (tmp_path / "cp" / "notes.txt").write_text("not: [a shape", encoding="utf-8")
    assert load_catalog([tmp_path], KINDS).find(CP, "32x256b") is not None


def test_decompression_needs_whole_chunks(tmp_path: Path) -> None:
    doc = base()
    doc.update(ptx_name=".32x64b", row_bits=64)
    write_cp(tmp_path, doc)
    shape = load_catalog([tmp_path], KINDS).get(CP, "32x64b")
    assert make_copy(shape).shape.words == 2
    with pytest.raises(TmemvizError, match=r"16-byte chunks.*\.32x64b.*64 bits"):
        make_copy(shape, decompress="b4x16_p64")


def test_single_row_blocks_and_int_rows(tmp_path: Path) -> None:
    doc = base()
    doc["placements"][0]["blocks"] = [{"rows": 0, "lanes": [32]}, {"rows": " 1 - 31 ", "lanes": [33]}]
    write_cp(tmp_path, doc)
    cp = make_copy(load_catalog([tmp_path], KINDS).get(CP, "32x256b"))
    assert sorted({x.lane for x in mapper_cp.landings(cp)}) == list(range(32, 64))


# --------------------------------------------------------------------------- every rule


def top(**changes: Any) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        for key, value in changes.items():
            if value is _DROP:
                del doc[key]
            else:
                doc[key] = value

    return edit


def placement(i: int, **changes: Any) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        for key, value in changes.items():
            if value is _DROP:
                del doc["placements"][i][key]
            else:
                doc["placements"][i][key] = value

    return edit


def block(i: int, b: int, **changes: Any) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        for key, value in changes.items():
            doc["placements"][i]["blocks"][b][key] = value

    return edit


def blocks(i: int, *items: tuple[Any, list[Any]]) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        doc["placements"][i]["blocks"] = [{"rows": r, "lanes": lanes} for r, lanes in items]

    return edit


def duplicate(multicast: str) -> Callable[[Doc], None]:
    """Placement 2 becomes a copy of placement 1 (warpx2::01_23) spelled ``multicast``."""

    def edit(doc: Doc) -> None:
        doc["placements"][2] = {**copy.deepcopy(doc["placements"][1]), "multicast": multicast}

    return edit


_DROP = object()

RULES: list[tuple[str, Callable[[Doc], None], str, str]] = [
    # (id, edit, field named in the message, what the message says)
    ("unknown-top-field", top(lanes=4), "'lanes'", r"unknown field 'lanes'; allowed fields"),
    ("missing-rows", top(rows=_DROP), "'rows'", r"field 'rows' is missing"),
    ("missing-placements", top(placements=_DROP), "'placements'", r"is missing"),
    ("rows-not-int", top(rows="32"), "'rows'", r"whole number"),
    ("rows-bool", top(rows=True), "'rows'", r"whole number"),
    ("row-bits-float", top(row_bits=256.0), "'row_bits'", r"whole number"),
    ("ptx-name-not-str", top(ptx_name=32), "'ptx_name'", r"string"),
    ("placements-not-list", top(placements={"multicast": "none"}), "'placements'", r"list"),
    ("aliases-not-list", top(aliases="mine"), "'aliases'", r"list"),
    ("basis-not-str", top(basis=["a"]), "'basis'", r"string"),
    ("ptx-name-form", top(ptx_name="32x256"), "'ptx_name'", r"ROWSxBITSb"),
    ("ptx-name-words", top(ptx_name="warpx4"), "'ptx_name'", r"ROWSxBITSb"),
    ("ptx-name-rows", top(ptx_name=".64x256b"), "'ptx_name'", r"disagrees with rows 32 and row_bits 256"),
    ("ptx-name-bits", top(ptx_name=".32x128b"), "'ptx_name'", r"disagrees with rows 32 and row_bits 256"),
    ("rows-zero", top(ptx_name=".0x256b", rows=0), "'rows'", r"1\.\.128"),
    ("rows-too-many", top(ptx_name=".129x256b", rows=129), "'rows'", r"1\.\.128"),
    ("row-bits-odd", top(ptx_name=".32x48b", row_bits=48), "'row_bits'", r"multiple of 32"),
    ("row-bits-zero", top(ptx_name=".32x0b", row_bits=0), "'row_bits'", r"multiple of 32"),
    ("row-bits-huge", top(ptx_name=".32x16416b", row_bits=16416), "'row_bits'", r"512 columns"),
    ("alias-form", top(aliases=["ok", "bad-name"]), "'aliases[1]'", r"letters, digits and _"),
    ("alias-int", top(aliases=[7]), "'aliases[0]'", r"letters, digits and _"),
    ("no-placements", top(placements=[]), "'placements'", r"at least one placement"),
    ("placement-not-mapping", top(placements=["none"]), "'placements[0]'", r"mapping"),
    ("placement-unknown-field", placement(0, lanes=[0]), "'placements[0]'", r"unknown field 'lanes'"),
    ("placement-no-blocks", placement(0, blocks=_DROP), "'placements[0]'", r"'blocks' is missing"),
    ("placement-no-multicast", placement(0, multicast=_DROP), "'placements[0]'", r"'multicast' is missing"),
    ("multicast-null", placement(0, multicast=None), "'placements[0]'", r"'multicast' must be a string"),
    ("multicast-unknown", placement(0, multicast="warpx8"), "'placements[0].multicast'", r"warpx8"),
    ("multicast-pair", placement(1, multicast="warpx2::03_12"), "'placements[1].multicast'", r"expected one"),
    (
        "multicast-twice",
        duplicate("warpx2::01_23"),
        "'placements[2].multicast'",
        r"'warpx2::01_23' is given twice",
    ),
    ("multicast-twice-spelled", duplicate(" .WARPX2::01_23"), "'placements[2].multicast'", r"given twice"),
    (
        "none-twice",
        top(placements=[base()["placements"][0]] * 2),
        "'placements[1].multicast'",
        r"'none' is given",
    ),
    ("cutlass-form", placement(0, cutlass="SM100 UTCCP"), "'placements[0].cutlass'", r"CUTLASS atom name"),
    ("blocks-empty", placement(0, blocks=[]), "'placements[0].blocks'", r"at least one block"),
    ("blocks-not-list", placement(0, blocks="0-31"), "'placements[0]'", r"'blocks' must be a list"),
    ("block-not-mapping", placement(0, blocks=[[0, 31]]), "'placements[0].blocks[0]'", r"mapping"),
    ("block-unknown-field", block(0, 0, warps=[1]), "'placements[0].blocks[0]'", r"unknown field 'warps'"),
    ("block-rows-text", block(0, 0, rows="a-b"), "'placements[0].blocks[0].rows'", r"range such as 0-31"),
    ("block-rows-list", block(0, 0, rows=[0, 31]), "'placements[0].blocks[0].rows'", r"a list of 2"),
    ("block-rows-bool", block(0, 0, rows=True), "'placements[0].blocks[0].rows'", r"boolean"),
    ("block-rows-negative", block(0, 0, rows=-1), "'placements[0].blocks[0].rows'", r"range such as"),
    ("block-rows-reversed", block(0, 0, rows="31-0"), "'placements[0].blocks[0].rows'", r"not a range"),
    ("block-rows-beyond", block(0, 0, rows="0-32"), "'placements[0].blocks[0].rows'", r"within 0\.\.31"),
    ("block-lanes-empty", block(0, 0, lanes=[]), "'placements[0].blocks[0].lanes'", r"first lanes"),
    ("block-lanes-bool", block(0, 0, lanes=[True]), "'placements[0].blocks[0].lanes'", r"first lanes"),
    ("block-lanes-text", block(0, 0, lanes=["0"]), "'placements[0].blocks[0].lanes'", r"first lanes"),
    ("block-lanes-int", block(0, 0, lanes=0), "'placements[0].blocks[0]'", r"'lanes' must be a list"),
    ("lanes-beyond-127", block(0, 0, lanes=[100]), "'placements[0].blocks[0].lanes'", r"lane 100.*0\.\.127"),
    ("lanes-at-128", blocks(0, ("0-30", [0]), ("31", [128])), "'placements[0].blocks[1].lanes'", r"0\.\.127"),
    ("lanes-negative", block(0, 0, lanes=[-1]), "'placements[0].blocks[0].lanes'", r"lane -1"),
    (
        "row-placed-twice",
        blocks(0, ("0-31", [32]), (5, [0])),
        "'placements[0].blocks'",
        r"row 5 is placed by two blocks",
    ),
    ("row-missing", blocks(0, ("0-30", [32])), "'placements[0].blocks'", r"row 31 is not placed"),
    (
        "row-missing-middle",
        blocks(0, ("0-9", [0]), ("11-31", [43])),
        "'placements[0].blocks'",
        r"row 10 is not",
    ),
    (
        "replica-counts-differ",
        blocks(1, ("0-15", [0, 32]), ("16-31", [80])),
        "'placements[1].blocks'",
        r"same number of replicas",
    ),
    (
        "lane-written-twice",
        blocks(0, ("0-15", [32]), ("16-31", [40])),
        "'placements[0].blocks'",
        r"lane 40 would receive both row 8 and row 16",
    ),
    (
        "lane-written-twice-in-one-block",
        blocks(1, ("0-31", [0, 16])),
        "'placements[1].blocks'",
        r"lane 16 would receive both row 0 and row 16",
    ),
    (
        "warpx4-not-four-warps",
        blocks(2, ("0-15", [0, 16, 64, 96]), ("16-31", [32, 48, 80, 112])),
        "'placements[2].blocks'",
        r"row 0 lands in lanes 0, 16, 64, 96 \(warps 0, 0, 2, 3\).*warpx4",
    ),
    (
        "warpx2-two-replicas-in-one-warp",
        blocks(1, ("0-15", [0, 16, 32]), ("16-31", [64, 80, 96])),
        "'placements[1].blocks'",
        r"row 0 lands in lanes 0, 16, 32 \(warps 0, 0, 1\)",
    ),
    (
        "warpx4-three-replicas",
        blocks(2, ("0-31", [0, 32, 64])),
        "'placements[2].blocks'",
        r"warpx4",
    ),
    (
        "warpx2-01_23-given-02_13-pairs",
        blocks(1, ("0-15", [0, 64]), ("16-31", [32, 96])),
        "'placements[1].blocks'",
        r"warps 0, 2.*warpx2::01_23: \{0,1\} or \{2,3\}",
    ),
    (
        "warpx2-02_13-given-01_23-pairs",
        lambda d: d["placements"].__setitem__(
            1,
            {
                "multicast": "warpx2::02_13",
                "blocks": [{"rows": "0-15", "lanes": [0, 32]}, {"rows": "16-31", "lanes": [80, 112]}],
            },
        ),
        "'placements[1].blocks'",
        r"warpx2::02_13: \{0,2\} or \{1,3\}",
    ),
    (
        "warpx2-row-crosses-a-band",
        blocks(1, ("0-31", [16, 48])),
        "'placements[1].blocks'",
        r"row 16 lands in lanes 32, 64",
    ),
    ("none-two-replicas", blocks(0, ("0-31", [0, 64])), "'placements[0].blocks'", r"one warp"),
]


@pytest.mark.parametrize(("edit", "field", "pattern"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_rule(tmp_path: Path, edit: Callable[[Doc], None], field: str, pattern: str) -> None:
    doc = copy.deepcopy(base())
    edit(doc)
    _, message = rejected(tmp_path, doc)
    assert f"field {field}" in message, message
    assert re.search(pattern, message), message


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("", r"expected a mapping"),
        ("- 1\n- 2\n", r"expected a mapping"),
        ("ptx_name: [unclosed\n", r"not valid YAML at line"),
        ("ptx_name: !!python/object/apply:os.system ['true']\n", r"not valid YAML"),
        ("\tptx_name: x\n", r"not valid YAML"),
    ],
)
def test_not_a_shape_file(tmp_path: Path, text: str, pattern: str) -> None:
    _, message = rejected(tmp_path, text)
    assert re.search(pattern, message), message


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(
            f"{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
    text = "\n".join(lines) + "\nptx_name: .4x256b\nrows: 4\nrow_bits: 256\nplacements: *i\n"
    _, message = rejected(tmp_path, text)
    assert len(message) < 400


def test_not_utf8(tmp_path: Path) -> None:
    path = write_cp(tmp_path, "")
    path.write_bytes(b"ptx_name: \xff\xfe\n")
    with pytest.raises(TmemvizError, match=r"cannot read"):
        cp_shapes(tmp_path)


# --------------------------------------------------------------------------- clashes with other files


@pytest.mark.parametrize(
    ("edit", "clash"),
    [
        (
            top(
                ptx_name=".128x256b",
                rows=128,
                placements=[{"multicast": "none", "blocks": [{"rows": "0-127", "lanes": [0]}]}],
            ),
            "128x256b",
        ),
        (top(aliases=["128x128b"]), "128x128b"),
        (top(aliases=["128X128B"]), "128X128B"),
        (placement(0, cutlass="SM100_UTCCP_4dp256bit"), "SM100_UTCCP_4dp256bit"),
        (placement(0, cutlass="sm100_utccp_4x32dp128bit"), "sm100_utccp_4x32dp128bit"),
        (top(aliases=["MINE_32dp256bit"]), "MINE_32dp256bit"),
    ],
    ids=["name", "alias", "alias-case", "cutlass", "cutlass-case", "alias-vs-own-cutlass"],
)
def test_clash_with_shipped_names(tmp_path: Path, edit: Callable[[Doc], None], clash: str) -> None:
    doc = copy.deepcopy(base())
    edit(doc)
    path = write_cp(tmp_path, doc)
    load_copy_shape(path)  # valid on its own
    with pytest.raises(TmemvizError) as err:
        cp_shapes(tmp_path)
    message = str(err.value)
    assert message.startswith(f"{path}: field 'ptx_name'/'aliases'/'cutlass'"), message
    assert f"'{clash}' is already defined by" in message


def test_two_user_files_with_one_name(tmp_path: Path) -> None:
    write_cp(tmp_path, base(), "a.yaml")
    doc = copy.deepcopy(base())
    doc["aliases"] = []
    doc["placements"][0]["cutlass"] = "OTHER_32dp256bit"
    second = write_cp(tmp_path, doc, "b.yaml")
    with pytest.raises(TmemvizError) as err:
        cp_shapes(tmp_path)
    message = str(err.value)
    assert message.startswith(f"{second}: ") and "'32x256b' is already defined by" in message
    assert str(tmp_path / "cp" / "a.yaml") in message


def test_bad_file_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(base())
    blocks(0, ("0-31", [32]), (5, [0]))(doc)
    path = write_cp(tmp_path, doc)
    code = main(["cp", "128x256b", "--layouts", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tmemviz: {path}: field 'placements[0].blocks'")


def test_parse_copy_shape_source_is_used_verbatim() -> None:
    with pytest.raises(TmemvizError, match=r"^somewhere: field 'rows' is missing"):
        doc = base()
        del doc["rows"]
        parse_copy_shape(doc, "somewhere")


# --------------------------------------------------------------------------- known bugs


def test_table_lists_every_warp_of_a_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(base())
    doc.update(ptx_name=".128x64b", rows=128, row_bits=64, aliases=[])
    doc["placements"] = [{"multicast": "none", "blocks": [{"rows": "0-127", "lanes": [0]}]}]
    write_cp(tmp_path, doc)
    code = main(["cp", "128x64b", "--layouts", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 0
    line = next(x for x in out.splitlines() if x.split()[:2] == ["0-127", "0-127"])
    assert line.split()[2:] == ["0,", "1,", "2,", "3"]
