"""The interactive HTML page, without a browser: one element per cell with its coordinates, boxes where
matplotlib puts them, nothing that could reach the network, and the ``figure -o FILE.html`` CLI.

The page is parsed with the standard library's HTML parser; what a browser does with it (hover,
click, search, keyboard) is tested in ``tests/browser``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_run import bad, ok

from tmemviz.catalog import Catalog
from tmemviz.draw.geometry import place
from tmemviz.draw.html import Link, how_text, page, search_hint
from tmemviz.draw.spec import Box, FigureSpec, Panel
from tmemviz.families.cp.decompress import FORMATS, TYPES
from tmemviz.families.cp.figures import copy_spec, decompress_spec
from tmemviz.families.cp.layout import landings, make_copy
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.ldst import layout as mapper
from tmemviz.families.ldst.figures import layout_spec, pack_spec
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.smem.examples import ptx_figure
from tmemviz.families.smem.figures import layout_spec as smem_spec

REPO = Path(__file__).resolve().parents[1]
PT = 72.0


@pytest.fixture(autouse=True)
def _no_user_layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TMEMVIZ_LAYOUTS", raising=False)
    yield


@dataclass
class Parsed:
    """What the page holds: every element's tag and attributes, text per tag, the inline style/script."""

    elements: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    cells: list[dict[str, str]] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = Parsed()
        self._open: list[str] = []
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.out.elements.append((tag, found))
        if "cell" in found.get("class", "").split():
            self.out.cells.append(found)
        self._open.append(tag)
        self._text = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        text = "".join(self._text)
        if tag == "title" and self._open[-2:-1] == ["rect"]:
            self.out.titles.append(text)
        elif tag == "style":
            self.out.styles.append(text)
        elif tag == "script":
            self.out.scripts.append(text)
        while self._open and self._open.pop() != tag:
            pass
        self._text = []


def parse(data: bytes) -> Parsed:
    parser = _Parser()
    parser.feed(data.decode("utf-8"))
    parser.close()
    return parser.out


def data_of(attrs: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((k.removeprefix("data-"), v) for k, v in attrs.items() if k.startswith("data-"))


def check_cells_are_the_boxes(spec: FigureSpec, parsed: Parsed) -> None:
    """One .cell per box with coordinates, in order, carrying exactly Box.data, placed as matplotlib does."""
    boxes = [b for b in spec.boxes if b.data]
    assert len(parsed.cells) == len(boxes)
    geometry = place(spec)
    placed = [(p, b) for p in geometry.panels for b in p.panel.boxes if b.data]
    for attrs, (where, box) in zip(parsed.cells, placed, strict=True):
        assert data_of(attrs) == box.data
        x, y = where.at(box.x, box.y)
        assert float(attrs["x"]) == pytest.approx(x * PT, abs=0.006)
        assert float(attrs["y"]) == pytest.approx(y * PT, abs=0.006)
        assert float(attrs["width"]) == pytest.approx(box.w * where.panel.cell_w_in * PT, abs=0.006)
        assert attrs["fill"] == box.fill


def check_offline(data: bytes) -> None:
    """No URL that could leave the file: no src, no link, no url(), no @import; a policy that blocks all."""
    text = data.decode()
    parsed = parse(data)
    for tag, attrs in parsed.elements:
        assert tag not in ("link", "img", "iframe", "object", "embed", "audio", "video", "source", "base")
        assert "src" not in attrs and "srcset" not in attrs, tag
        assert "xlink:href" not in attrs
        if tag == "a":
            assert not re.match(r"^[a-z]+:|^//", attrs["href"]), attrs["href"]
    assert (
        "url(" not in text
        and "@import" not in text
        and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    assert "https://" not in text
    (policy,) = [a["content"] for t, a in parsed.elements if a.get("http-equiv") == "Content-Security-Policy"]
    assert policy.startswith("default-src 'none';")
    for kind, bodies in (("style-src", parsed.styles), ("script-src", parsed.scripts)):
        for body in bodies:
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            assert f"{kind} 'sha256-{digest}'" in policy, f"the {kind} hash does not match the inline {kind}"


def ldst_spec(catalog: Catalog, shape: str, num: int, pack: bool = False, **kw: object) -> FigureSpec:
    ins = mapper.make_instruction(catalog.get(LDST, shape), num, pack=pack, **kw)  # type: ignore[arg-type]
    return layout_spec(ins, mapper.cells(ins))


LDST_CASES = [
    ("16x256b", 4, False, {}),
    ("32x32b", 2, True, {}),
    ("16x32bx2", 2, False, {"split_offset": 16}),
]


@pytest.mark.parametrize(
    ("shape", "num", "pack", "kw"), LDST_CASES, ids=["16x256b.x4", "32x32b.x2.pack", "split16"]
)
def test_ldst_page_has_one_element_per_tmem_cell(
    catalog: Catalog, shape: str, num: int, pack: bool, kw: dict[str, object]
) -> None:
    ins = mapper.make_instruction(catalog.get(LDST, shape), num, pack=pack, **kw)  # type: ignore[arg-type]
    spec = layout_spec(ins, mapper.cells(ins))
    data = page(spec)
    parsed = parse(data)
    check_cells_are_the_boxes(spec, parsed)
    check_offline(data)
    want = {(c.lane, c.col): c for c in mapper.cells(ins)}
    assert len(parsed.cells) == len(want)
    for attrs in parsed.cells:
        cell = want[(int(attrs["data-lane"]), int(attrs["data-col"]))]
        assert (int(attrs["data-thread"]), int(attrs["data-reg"])) == (cell.thread, cell.reg)
        assert attrs.get("data-half") == (None if cell.half is None else str(cell.half))
        assert "data-group" not in attrs  # ld/st cells are grouped by thread
    assert len(parsed.titles) == len(parsed.cells)
    assert parsed.titles[0] == spec.boxes[0].tooltip


def test_16x256b_x4_page_says_who_holds_lane_9_col_5(catalog: Catalog) -> None:
    parsed = parse(page(ldst_spec(catalog, "16x256b", 4)))
    (i,) = [i for i, a in enumerate(parsed.cells) if (a["data-lane"], a["data-col"]) == ("9", "5")]
    assert parsed.titles[i] == "lane 9, col 5 -> T6 r3"
    assert sum(a["data-thread"] == "6" for a in parsed.cells) == 16  # registers per thread


def test_cp_page_cells_name_rows_lanes_words_and_cta(catalog: Catalog) -> None:
    """Source boxes carry rows/word, TMEM boxes also lanes/col/cta; their runs are the mapper's landings."""
    cp = make_copy(catalog.get(CP, "64x128b"), "warpx2::01_23", cta_group=2)
    spec = copy_spec(cp, row=40)
    data = page(spec)
    parsed = parse(data)
    check_cells_are_the_boxes(spec, parsed)
    check_offline(data)
    tmem = [a for a in parsed.cells if "data-lanes" in a]
    source = [a for a in parsed.cells if "data-lanes" not in a]
    assert len(source) == len(cp.placement.blocks) * cp.shape.words
    assert all(set(a) >= {"data-rows", "data-word", "data-group"} for a in source)
    covered = set()
    for a in tmem:
        first, _, last = a["data-lanes"].partition("-")
        r0, _, r1 = a["data-rows"].partition("-")
        lanes = range(int(first), int(last or first) + 1)
        rows = range(int(r0), int(r1 or r0) + 1)
        assert len(lanes) == len(rows) and a["data-group"] == "rows"
        covered |= {
            (row, int(a["data-word"]), int(a["data-cta"]), lane, int(a["data-col"]))
            for row, lane in zip(rows, lanes, strict=True)
        }
    assert covered == {(h.row, h.word, h.cta, h.lane, h.col) for h in landings(cp)}


def test_decompress_and_smem_pages(catalog: Catalog) -> None:
    fmt = FORMATS["b6x16_p32"]
    spec = decompress_spec(fmt, TYPES["e3m2"])
    parsed = parse(page(spec))
    check_cells_are_the_boxes(spec, parsed)
    elements = [a for a in parsed.cells if "data-element" in a]
    assert sorted(int(a["data-element"]) for a in elements) == sorted(
        list(range(16)) * 2
    )  # source + container
    assert {a["data-group"] for a in elements} == {"element"}
    layout = ptx_figure(191)
    spec = smem_spec(layout)
    parsed = parse(page(spec))
    check_cells_are_the_boxes(spec, parsed)
    assert {(a["data-row"], a["data-col"], a["data-byte"]) for a in parsed.cells} == {
        (str(r), str(c), str(b)) for r, c, b in layout.cells()
    }
    assert all(a["data-chunk"] == str(int(a["data-byte"]) // 16) for a in parsed.cells)


def test_pack_page_has_boxes_but_nothing_to_find() -> None:
    spec = pack_spec("ld")
    data = page(spec)
    parsed = parse(data)
    assert parsed.cells == []
    assert len(parsed.titles) == len(spec.boxes)
    assert not any(a.get("id") == "find" for _, a in parsed.elements)
    assert any(a.get("id") == "info" for _, a in parsed.elements)
    check_offline(data)


def test_page_is_deterministic_and_escapes_text(catalog: Catalog) -> None:
    spec = ldst_spec(catalog, "16x64b", 2)
    hostile = FigureSpec('<script>alert("x")</script>', "a & b", spec.panels)
    links = (Link("index", "index.html", "index"), Link("<b>", "a b.html"))
    first = page(hostile, links=links)
    assert first == page(hostile, links=links)
    text = first.decode()
    assert '<script>alert("x")' not in text and "&lt;script&gt;alert" in text
    assert "a &amp; b" in text and 'href="a b.html"' in text and "&lt;b&gt;</a>" in text
    assert len(parse(first).scripts) == 1
    check_offline(first)


def test_bad_box_data_is_refused() -> None:
    def spec_of(data: tuple[tuple[str, str], ...]) -> FigureSpec:
        box = Box(0, 0, 1, 1, "#ffffff", "x", "tip", data=data)
        return FigureSpec("t", "c", (Panel("", 1, 1, 0.5, (box,)),))

    with pytest.raises(ValueError, match="cannot be an HTML data attribute"):
        page(spec_of((("Lane", "1"),)))
    with pytest.raises(ValueError, match="twice"):
        page(spec_of((("lane", "1"), ("lane", "2"))))
    with pytest.raises(ValueError, match="groups by"):
        page(spec_of((("lane", "1"), ("group", "warp thread"))))
    assert b'data-group="lane col"' in page(spec_of((("lane", "1"), ("col", "2"), ("group", "lane col"))))


def test_search_hint_and_manual_follow_the_coordinates(catalog: Catalog) -> None:
    ld = ldst_spec(catalog, "16x256b", 1)
    assert search_hint(ld.boxes).startswith("lane,col · T")
    assert "share its thread" in how_text(ld.boxes)
    cp = copy_spec(make_copy(catalog.get(CP, "128x128b")))
    assert search_hint(cp.boxes) == "lane,col · row 0 · word 0"
    assert "share its rows" in how_text(cp.boxes)
    smem = smem_spec(ptx_figure(191))
    assert search_hint(smem.boxes) == "row,col · byte 0 · chunk 0"
    assert "share its chunk" in how_text(smem.boxes)
    assert search_hint(pack_spec("st").boxes) == ""


# --------------------------------------------------------------------------- CLI


def test_figure_writes_html_for_every_kind(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runs = {
        "ldst": ["16x256b", "--num", "x4"],
        "pack": ["unpack"],
        "cp": ["cp", "64x128b.warpx2::01_23", "--row", "40"],
        "decompress": ["decompress", "b4x16_p64"],
        "smem": [
            "smem",
            "--major",
            "K",
            "--swizzle",
            "128B",
            "--dtype",
            "bf16",
            "--rows",
            "8",
            "--cols",
            "64",
        ],
        "tile": ["tile", "--n", "16", "--shape", "16x256b"],  # 2048 elements: labelled
    }
    for kind, args in runs.items():
        out = tmp_path / f"{kind}.html"
        assert ok(capsys, "figure", *args, "-o", str(out)) == ""
        data = out.read_bytes()
        assert data.startswith(b"<!DOCTYPE html>"), kind
        check_offline(data)
        if kind != "pack":
            assert parse(data).cells, kind
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{k}.html" for k in runs)


def test_figure_html_to_stdout(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "tmemviz", "figure", "32x32b", "-n", "x2", "--pack", "-o", "-", "-f", "HTML"]
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert len(parse(done.stdout).cells) == 32 * 4
    assert list(tmp_path.iterdir()) == []


def test_html_needs_no_matplotlib(tmp_path: Path) -> None:
    script = """
import contextlib, io, sys
import tmemviz.cli
with contextlib.redirect_stdout(io.StringIO()):
    code = tmemviz.cli.main(["figure", "16x256b", "--num", "x4", "-o", "f.html"])
print(code, "matplotlib" in sys.modules)
"""
    env = {k: v for k, v in os.environ.items() if k not in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "False"]
    assert (tmp_path / "f.html").stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "f.htm"], "unsupported output suffix '.htm'; use .png, .svg or .html"),
        (["-o", "-"], "-o - needs --format"),
        (["-o", "f.html", "--format", "pdf"], "'pdf' is not one of"),
    ],
)
def test_figure_format_messages(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert message in bad(capsys, "figure", "16x64b", *args)
    assert list(tmp_path.iterdir()) == []


def test_format_option_contradicting_the_suffix_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "figure.svg"
    assert "contradicts the output file" in bad(
        capsys, "figure", "16x64b", "-o", str(out), "--format", "html"
    )
    assert list(tmp_path.iterdir()) == []
    ok(capsys, "figure", "16x64b", "-o", str(out), "--format", "svg")
    assert out.read_bytes().startswith(b"<?xml")
