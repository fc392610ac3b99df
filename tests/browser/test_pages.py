"""The interactive pages in a real headless Chromium, opened offline from file:// URLs.

Debian's ``chromium`` package driven by Playwright for Python (``executable_path``; Playwright's own
browser download is never used). Every test checks that the page made no request beyond its own
file and logged no console error. Skipped, with the reason, where Chromium or Playwright is missing;
``.ci/run`` installs Chromium with apt-get first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from browser.chromium import MISSING

from tmemviz.catalog import Catalog
from tmemviz.cli import main
from tmemviz.families.ldst import layout as mapper
from tmemviz.families.ldst.shapes import KIND as LDST

GALLERY = Path(__file__).resolve().parents[2] / "gallery"
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

PAGES = {
    # name: the figure command's arguments (all written with -o NAME.html)
    "16x256b.x4": ["16x256b", "--num", "x4"],
    "32x32b.x2.pack": ["32x32b", "--num", "x2", "--pack"],
    "16x32bx2.x2.split16": ["16x32bx2", "--num", "x2", "--split-offset", "16"],
    "16x256b.x32.pack": ["16x256b", "--num", "x32", "--pack"],
    "16x256b.x32.pack.all": ["16x256b", "--num", "x32", "--pack", "--detail", "all"],
    "cp": ["cp", "64x128b.warpx2::01_23", "--cta-group", "2", "--row", "40"],
    "decompress": ["decompress", "b6x16_p32", "--type", "e3m2"],
    "smem": [  # PTX Figure 191
        *("smem", "--major", "MN", "--swizzle", "32B", "--dtype", "bf16"),
        *("--m", "2", "--k", "2", "--lbo", "256", "--sbo", "512"),
    ],
    "pack": ["pack"],
    "scales.padded": [
        "scales",
        "--operand",
        "B",
        "--sf-vec",
        "16",
        "--n",
        "192",
        "--k",
        "128",
        "--detail",
        "schematic",
    ],
    "desc": ["desc", "0x4000404000010000"],
}
PAGES["tile"] = ["tile", "--n", "64", "--shape", "16x256b", "--detail", "all"]
PAGES["tile.schematic"] = ["tile", "--n", "256", "--shape", "16x256b"]


class Pages:
    """Each page written by ``tmemviz figure ... -o NAME.html``, as a user would, when a test first asks
    for it (a test process writes only the pages its tests open)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.made: dict[str, Path] = {}

    def __getitem__(self, name: str) -> Path:
        if name not in self.made:
            path = self.out / f"{name}.html"
            assert main(["figure", *PAGES[name], "-o", str(path)]) == 0, name
            self.made[name] = path
        return self.made[name]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Pages:
    return Pages(tmp_path_factory.mktemp("pages"))


@dataclass
class Visit:
    """One page in a fresh context, with everything it asked the network for and every console error."""

    page: object
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()  # type: ignore[attr-defined]

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector)  # type: ignore[attr-defined]

    def js(self, script: str, arg: object = None) -> object:
        return self.page.evaluate(script, arg)  # type: ignore[attr-defined]

    def find(self, query: str) -> None:
        self.page.fill("#find", query)  # type: ignore[attr-defined]
        self.page.press("#find", "Enter")  # type: ignore[attr-defined]

    def attrs(self, selector: str, *names: str) -> list[tuple[str | None, ...]]:
        """The given attributes of every element matching ``selector``."""
        script = (
            "([s, names]) => Array.from(document.querySelectorAll(s), e => names.map(n => e.getAttribute(n)))"
        )
        got = self.js(script, [selector, list(names)])
        return [tuple(row) for row in got]  # type: ignore[union-attr]

    def clean(self) -> None:
        assert self.requests == [], f"the page asked the network for {self.requests}"
        assert self.errors == [], f"console errors: {self.errors}"


@pytest.fixture
def visit(browser: object) -> Iterator[object]:
    contexts = []

    def _open(path: Path, **options: object) -> Visit:
        context = browser.new_context(**options)  # type: ignore[attr-defined]
        contexts.append(context)
        page = context.new_page()
        seen = Visit(page)
        page.on("request", lambda r: None if r.url.startswith("file://") else seen.requests.append(r.url))
        page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: seen.errors.append(str(e)))
        page.goto(path.as_uri())
        return seen

    yield _open
    for context in contexts:
        context.close()


def cell(lane: int, col: int) -> str:
    return f'.cell[data-lane="{lane}"][data-col="{col}"]'


# --------------------------------------------------------------------------- ld/st


def test_16x256b_x4_offline_hover_select_search(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """The issue's acceptance case: ``tmemviz figure 16x256b --num x4 -o f.html`` opened from disk."""
    v = visit(pages["16x256b.x4"])
    assert v.count(".cell") == 16 * 32
    v.page.hover(cell(9, 5))
    assert v.text("#info") == "lane 9, col 5 -> T6 r3"
    v.page.click(cell(9, 5))
    assert v.count(".selected") == 16  # registers per thread of .16x256b.x4
    assert set(v.attrs(".selected", "data-thread")) == {("6",)}
    v.page.keyboard.press("Escape")
    assert v.count(".selected") == 0
    v.find("9,5")
    assert v.attrs(".hit", "data-lane", "data-col") == [("9", "5")]
    v.find("T6")
    assert v.count(".hit") == 16 and set(v.attrs(".hit", "data-thread")) == {("6",)}
    v.find("T6 r3")
    assert v.attrs(".hit", "data-lane", "data-col") == [("9", "5")]
    assert v.text("#count") == "1 match"
    v.find("lane 9, col 5")
    assert v.count(".hit") == 1
    v.find("nonsense")
    assert v.count(".hit") == 0 and "not understood" in v.text("#count")
    v.clean()


CASES = [("32x32b.x2.pack", "32x32b", 2, True, None), ("16x32bx2.x2.split16", "16x32bx2", 2, False, 16)]


@pytest.mark.parametrize(("name", "shape", "num", "pack", "split"), CASES, ids=[c[0] for c in CASES])
def test_ldst_pages_match_the_mapper(  # type: ignore[no-untyped-def]
    visit,
    pages: Pages,
    catalog: Catalog,
    name: str,
    shape: str,
    num: int,
    pack: bool,
    split: int | None,
) -> None:
    ins = mapper.make_instruction(catalog.get(LDST, shape), num, pack=pack, split_offset=split)
    cells = mapper.cells(ins)
    v = visit(pages[name])
    assert v.count(".cell") == len({(c.lane, c.col) for c in cells})
    target = cells[len(cells) // 2 + 3]
    v.page.hover(cell(target.lane, target.col))
    half = {None: "", 0: ".lo", 1: ".hi"}[target.half]
    assert v.text("#info") == f"lane {target.lane}, col {target.col} -> T{target.thread} r{target.reg}{half}"
    v.page.click(cell(target.lane, target.col))
    mine = {(c.lane, c.col) for c in cells if c.thread == target.thread}
    got = v.attrs(".selected", "data-lane", "data-col", "data-reg")
    assert {(int(lane), int(col)) for lane, col, _ in got} == mine  # type: ignore[arg-type]
    assert len({reg for *_, reg in got}) == ins.registers_per_thread
    v.find(f"T{target.thread} r{target.reg}{half}")
    assert v.attrs(".hit", "data-lane", "data-col") == [(str(target.lane), str(target.col))]
    if pack:
        v.find(f"T{target.thread} r{target.reg}")
        assert v.count(".hit") == 2  # both 16-bit halves of the register
    if split is not None:
        second = [c for c in cells if c.col >= split]
        assert second and v.count(f'.cell[data-col="{second[0].col}"]') == 16
    v.clean()


def test_big_packed_layout_with_every_label_stays_interactive(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """--detail all: 8192 cells in stacked panels; the last panel's cells answer hover, click and search."""
    v = visit(pages["16x256b.x32.pack.all"])
    assert v.count(".cell") == 16 * 512
    assert v.count(".panel svg") > 1
    v.page.click(cell(15, 511))
    assert v.count(".selected") == 2 * 128  # 128 registers, two halves each
    assert v.text("#info").startswith("lane 15, col 511 -> T31 r127")
    v.clean()


def field_point(v: Visit, index: int, row: int, col: int) -> tuple[float, float]:
    """Where on screen the center of cell (row, col) of the page's ``index``-th field is."""
    box = v.js(
        """([k, row, col]) => {
            const g = document.querySelectorAll("svg .field")[k];
            const d = JSON.parse(g.getAttribute("data-field"));
            const at = () => {
                const r = g.querySelector(".field-img").getBoundingClientRect();
                return [r.x + (col + 0.5) * r.width / d.cols, r.y + (row + 0.5) * r.height / d.rows];
            };
            const [x, y] = at();  // bring the cell to the middle of the window (the panel scrolls sideways)
            g.closest(".panel").scrollLeft += x - innerWidth / 2;
            window.scrollBy(0, y - innerHeight / 2);
            return at();
        }""",
        [index, row, col],
    )
    return box[0], box[1]  # type: ignore[index]


def test_big_packed_layout_is_a_schematic_with_per_cell_detail(  # type: ignore[no-untyped-def]
    visit, pages: Pages, catalog: Catalog
) -> None:
    """auto: one Field image, no node per cell; hover, click, search and arrow keys still answer per cell."""
    ins = mapper.make_instruction(catalog.get(LDST, "16x256b"), 32, pack=True)
    owner = {(c.lane, c.col): c for c in mapper.cells(ins)}
    v = visit(pages["16x256b.x32.pack"])
    assert v.count("svg .field") == 1
    assert v.count("svg *") < 1500  # the key panel (256 cells, titles, labels) and frames; not 3 x 8192
    assert v.count(".cell") == 16 * 16  # repetition 0, labelled
    for lane, col in ((15, 511), (9, 5), (0, 300)):
        x, y = field_point(v, 0, lane, col)
        v.page.mouse.move(x, y)
        c = owner[(lane, col)]
        assert (
            v.text("#info")
            == f"lane {lane}, col {col} -> T{c.thread} r{c.reg}{'.lo' if c.half == 0 else '.hi'}"
        )
    x, y = field_point(v, 0, 15, 511)
    v.page.mouse.click(x, y)
    # The thread's group everywhere: 256 cells in the map, and its 8 cells (r0..r3, both halves) in the key.
    assert v.text("#count") == "T31: 264 cells selected"
    assert v.count(".cell.selected") == 8
    assert v.js("document.body.classList.contains('dimming')") is True
    marked = v.js(
        "document.querySelector('svg .field .mark.selected').getAttribute('d').split('z').length - 1"
    )
    assert marked == 256
    v.page.keyboard.press("ArrowLeft")
    c = owner[(15, 510)]
    assert v.text("#info") == f"lane 15, col 510 -> T{c.thread} r{c.reg}.lo"
    v.page.keyboard.press("Escape")
    assert v.js("document.body.classList.contains('dimming')") is False
    v.page.click(cell(9, 5))  # a key cell selects its thread in the map too
    assert v.text("#count") == f"T{owner[(9, 5)].thread}: 264 cells selected"
    marked = v.js(
        "document.querySelector('svg .field .mark.selected').getAttribute('d').split('z').length - 1"
    )
    assert marked == 256
    v.page.keyboard.press("Escape")
    # Arrow keys cross from the key panel into the map (the cell below on the page) and back.
    v.page.click(cell(15, 0))
    v.page.keyboard.press("ArrowDown")
    assert re.match(r"lane 0, col \d+ -> T\d+ r\d+\.(lo|hi)$", v.text("#info")), v.text("#info")
    v.page.keyboard.press("ArrowUp")
    assert v.text("#info").startswith("lane 15, col ")
    v.page.keyboard.press("Escape")
    v.find("T6 r3")
    assert v.text("#count") == "4 matches"  # two halves, in the key panel and in the map
    v.find("9,5")
    assert v.text("#count") == "2 matches"
    c = owner[(9, 5)]
    assert v.text("#info") == f"lane 9, col 5 -> T{c.thread} r{c.reg}.hi"
    v.find("lane 15 col 511")
    assert v.text("#count") == "1 match"  # only the map reaches column 511
    v.clean()


# --------------------------------------------------------------------------- other families


def test_cp_page_selects_row_blocks_and_finds_lanes(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    v = visit(pages["cp"])
    # .64x128b.warpx2::01_23, .cta_group::2: 2 blocks x 4 words in the source, 2 replicas x 2 CTAs in TMEM.
    assert v.count(".cell") == 2 * 4 + 2 * 4 * 2 * 2
    landing = '.cell[data-cta="1"][data-rows="32-63"][data-word="3"][data-lanes="96-127"]'
    v.page.hover(landing)
    assert v.text("#info") == "cta 1, lanes 96..127, column 3 <- rows 32..63, word 3"
    v.page.click(landing)
    assert v.count(".selected") == 4 + 4 * 2 * 2  # the block's source words and every replica
    assert set(v.attrs(".selected", "data-rows")) == {("32-63",)}
    v.find("104,3")  # lane 104 column 3: this CTA's and the peer's
    assert sorted(v.attrs(".hit", "data-cta", "data-lanes")) == [("0", "96-127"), ("1", "96-127")]
    v.find("row 40")
    assert v.count(".hit") == 4 + 4 * 2 * 2
    v.find("row 40 word 2 cta 0")
    assert sorted(v.attrs(".hit", "data-lanes")) == [("64-95",), ("96-127",)]
    v.clean()


def test_smem_page_selects_chunks(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    v = visit(pages["smem"])
    assert v.count(".cell") == 32 * 16
    v.find("3,8")
    ((byte,),) = v.attrs(".hit", "data-byte")
    v.page.hover('.cell[data-row="3"][data-col="8"]')
    assert v.text("#info") == f"row 3, col 8 -> byte {byte}"
    v.page.click('.cell[data-row="3"][data-col="8"]')
    chunk = int(byte) // 16  # type: ignore[arg-type]
    assert set(v.attrs(".selected", "data-chunk")) == {(str(chunk),)}
    assert v.count(".selected") == 8  # 16 bytes of bf16
    v.find(f"byte {byte}")
    assert v.attrs(".hit", "data-row", "data-col") == [("3", "8")]
    v.clean()


def test_decompress_and_pack_pages(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    v = visit(pages["decompress"])
    v.page.click('.cell[data-container="5"]')
    assert v.count(".selected") == 2  # element 5 in the source and its container
    assert set(v.attrs(".selected", "data-element")) == {("5",)}
    v.find("element 7")
    assert v.count(".hit") == 2
    v.clean()
    v = visit(pages["pack"])
    assert v.count(".cell") == 0 and v.count("#find") == 0
    v.page.hover("rect.box >> nth=1")
    assert v.text("#info") == "TMEM column 2c, bits 15:0 -> register bits 15:0"
    v.clean()


def test_tile_page(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    v = visit(pages["tile"])
    assert v.count(".cell") > 0
    first = ".cell >> nth=0"
    v.page.hover(first)
    assert v.text("#info") == v.page.locator(f"{first} >> title").text_content()
    v.page.click(first)
    # One warp's thread: 128 x 64 f32 over 4 warps is 128*64/128 = 64 registers per thread.
    assert v.count(".selected") == 64
    assert v.js("new Set([...document.querySelectorAll('.selected')].map(e => e.dataset.warp)).size") == 1
    v.page.fill("#find", "37,5")
    v.page.press("#find", "Enter")
    assert v.count(".hit") == 1
    v.clean()


def test_big_tile_is_a_schematic_with_per_element_detail(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """128 x 256: one Field image, the holder of any D[m][n] on hover; a click selects one warp's thread."""
    v = visit(pages["tile.schematic"])
    assert v.count("svg .field") == 1 and v.count(".cell") == 0
    assert v.count("svg *") < 500
    x, y = field_point(v, 0, 37, 5)
    v.page.mouse.move(x, y)
    assert (
        v.text("#info") == "D[37][5] -> w1 T22 i0 r1 (lane 37, col 5)"
    )  # as 'tmemviz tile --m-row 37 --n-col 5'
    v.page.mouse.click(x, y)
    marked = v.js(
        "document.querySelector('svg .field .mark.selected').getAttribute('d').split('z').length - 1"
    )
    assert marked == 256  # registers per thread: 128*256 / (32*4)
    v.page.keyboard.press("Escape")
    v.find("37,5")
    assert v.text("#count") == "1 match"
    v.clean()


# --------------------------------------------------------------------------- keyboard, media, zoom


def test_keyboard_reaches_search_and_moves_the_selection(  # type: ignore[no-untyped-def]
    visit, pages: Pages, catalog: Catalog
) -> None:
    ins = mapper.make_instruction(catalog.get(LDST, "16x256b"), 4)
    v = visit(pages["16x256b.x4"])
    v.page.keyboard.press("Tab")
    assert v.js("document.activeElement.id") == "find"
    assert v.js("getComputedStyle(document.activeElement).outlineStyle") != "none"  # a visible focus ring
    v.page.keyboard.type("T6 r3")
    v.page.keyboard.press("Enter")
    assert v.count(".hit") == 1
    v.page.keyboard.press("Tab")
    assert v.js("document.activeElement.id") == "figure"
    v.page.keyboard.press("ArrowRight")  # the selection starts at the match: lane 9, col 5
    assert v.attrs(".current", "data-lane", "data-col") == [("9", "5")]
    for key, (lane, col) in (("ArrowRight", (9, 6)), ("ArrowDown", (10, 6)), ("ArrowLeft", (10, 5))):
        v.page.keyboard.press(key)
        (owner,) = mapper.which(ins, lane, col)
        assert v.attrs(".current", "data-lane", "data-col") == [(str(lane), str(col))]
        assert set(v.attrs(".selected", "data-thread")) == {(str(owner.thread),)}
        assert v.text("#info") == f"lane {lane}, col {col} -> T{owner.thread} r{owner.reg}"
    v.page.keyboard.press("ArrowUp")
    v.page.keyboard.press("ArrowUp")
    assert v.attrs(".current", "data-lane", "data-col") == [("8", "5")]
    v.page.keyboard.press("Escape")
    assert v.count(".selected") == 0 and v.count(".hit") == 0
    v.clean()


def luminance(css: str) -> float:
    """Relative luminance (WCAG) of an ``rgb(...)`` color."""
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


STYLE = "([sel, prop]) => getComputedStyle(document.querySelector(sel))[prop]"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_both_color_schemes_are_readable(visit, pages: Pages, scheme: str) -> None:  # type: ignore[no-untyped-def]
    v = visit(pages["16x256b.x4"], color_scheme=scheme)
    page_bg, page_ink = v.js(STYLE, ["body", "backgroundColor"]), v.js(STYLE, ["body", "color"])
    assert (luminance(page_bg) < 0.1) == (scheme == "dark")  # type: ignore[arg-type]
    assert contrast(page_bg, page_ink) >= 7  # type: ignore[arg-type]
    assert contrast(v.js(STYLE, ["#find", "backgroundColor"]), v.js(STYLE, ["#find", "color"])) >= 7  # type: ignore[arg-type]
    # The figure keeps its light sheet and black labels in both schemes, as in the PNG.
    assert luminance(v.js(STYLE, ["svg", "backgroundColor"])) > 0.8  # type: ignore[arg-type]
    assert v.js(STYLE, [".label", "fill"]) == "rgb(0, 0, 0)"
    v.clean()


def test_print_stylesheet(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    v = visit(pages["16x256b.x4"], color_scheme="dark")
    v.page.click(cell(9, 5))
    v.page.emulate_media(media="print")
    assert not v.page.is_visible("#find") and not v.page.is_visible("#info") and not v.page.is_visible(".how")
    assert v.page.is_visible("h1") and v.page.is_visible(".caption")
    assert v.js(STYLE, ["body", "backgroundColor"]) in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
    assert v.js(STYLE, ["body", "color"]) == "rgb(0, 0, 0)"
    # Whole panels across the page width, cell colors kept, nothing faded by the selection.
    width = v.js("document.documentElement.clientWidth")
    assert v.js("document.querySelector('svg').getBoundingClientRect().width") <= width  # type: ignore[operator]
    assert v.js(STYLE, [cell(0, 0), "fillOpacity"]) == "1"
    assert v.js(STYLE, [cell(0, 0), "printColorAdjust"]) == "exact"
    pdf = v.page.pdf()
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    v.clean()


def test_readable_and_usable_at_200_percent_zoom(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """200% zoom of a 1280 x 800 window is a 640 x 400 CSS-pixel viewport."""
    v = visit(pages["16x256b.x4"], viewport={"width": 640, "height": 400})
    assert v.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    box = v.page.locator("#find").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 640
    assert v.js(STYLE, ["header", "position"]) == "static"  # no sticky header eating the short window
    assert v.js(
        "(() => { const p = document.querySelector('.panel'); return p.scrollWidth > p.clientWidth; })()"
    )
    label = v.page.locator(".label >> nth=0").bounding_box()
    assert label is not None and label["height"] >= 8  # 6.5 pt labels at 1.25x, before the zoom doubles them
    v.page.click(cell(9, 30))  # far right: the panel scrolls to it
    assert v.count(".selected") == 16
    assert v.text("#info").startswith("lane 9, col 30 -> ")
    v.clean()


def test_a_request_or_error_would_be_noticed(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """The control for every clean(): an attempted load is seen, and the page's policy blocks it."""
    v = visit(pages["16x256b.x4"])
    url = "http://192.0.2.1/x.png"  # TEST-NET-1: nothing answers there anyway
    v.js("(url) => { const i = document.createElement('img'); i.src = url; document.body.append(i); }", url)
    v.page.wait_for_timeout(200)
    assert v.requests == [url]
    assert "Content Security Policy" in " ".join(v.errors)


# --------------------------------------------------------------------------- the gallery


@pytest.mark.skipif(not (GALLERY / "index.html").is_file(), reason="the gallery has no index.html")
def test_gallery_index_links_every_page_and_back(visit) -> None:  # type: ignore[no-untyped-def]
    v = visit(GALLERY / "index.html")
    links = [h for (h,) in v.attrs("tbody th > a:first-child", "href")]
    pages = sorted(p.name for p in GALLERY.glob("*.html") if p.name != "index.html")
    assert sorted(links) == pages  # type: ignore[type-var]
    v.page.click(f'a[href="{links[0]}"]')
    v.page.wait_for_load_state()
    assert v.page.url.endswith(f"/{links[0]}")
    assert v.count(".cell") > 0
    v.page.click('nav a[rel="next"]')
    v.page.wait_for_load_state()
    assert v.page.url.endswith(f"/{links[1]}")
    v.page.click('nav a[rel="index"]')
    v.page.wait_for_load_state()
    assert v.page.url.endswith("/index.html")
    v.clean()


SHARDS = 4
"""The gallery's pages in four tests (every fourth page each): some 20 s of loading in one test would
end the suite last on one worker while the other waits."""


@pytest.mark.skipif(not GALLERY.is_dir(), reason="no gallery")
@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda k: f"pages {k + 1} of {SHARDS}")
def test_every_gallery_page_loads_cleanly(browser: object, shard: int) -> None:
    """Each committed page, offline: no request, no console error, and one element per cell."""
    paths = sorted(GALLERY.glob("*.html"))[shard::SHARDS]
    assert paths
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: None if r.url.startswith("file://") else requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    for path in paths:
        page.goto(path.as_uri())
        count = page.locator(".cell").count()
        assert count == path.read_text(encoding="utf-8").count('class="box cell"'), path.name
        assert requests == [] and errors == [], (path.name, requests, errors)
    context.close()


def test_schematic_in_dark_scheme_and_print(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """A field keeps the light sheet in the dark scheme; in print the selection's veil is gone."""
    v = visit(pages["16x256b.x32.pack"], color_scheme="dark")
    assert luminance(v.js(STYLE, ["svg", "backgroundColor"])) > 0.8  # type: ignore[arg-type]
    x, y = field_point(v, 0, 3, 40)
    v.page.mouse.click(x, y)
    assert v.js(STYLE, ["svg .field .veil", "display"]) == "inline"
    v.page.emulate_media(media="print")
    assert v.js(STYLE, ["svg .field .veil", "display"]) == "none"
    assert v.page.is_visible("svg .field-img")
    assert v.js(STYLE, ["svg .field-img", "imageRendering"]) == "pixelated"
    pdf = v.page.pdf()
    assert pdf.startswith(b"%PDF")
    v.clean()


def test_scales_schematic_names_scale_factors_and_padding(  # type: ignore[no-untyped-def]
    visit, pages: Pages, catalog: Catalog
) -> None:
    """P18: a scale-factor map drawn as one image still names each byte's SF on hover; padding bytes
    say so (their own tooltip), and a click on one selects it alone (it has no row to group by)."""
    from tmemviz.families.scales import figures, layout
    from tmemviz.families.scales.spelling import resolve_scales

    s = resolve_scales(catalog, operand="B", sf_vec=16, n=192, k=128)
    spec = figures.scales_spec(s, detail="schematic")
    (field,) = spec.panels[0].fields
    v = visit(pages["scales.padded"])
    assert v.count("svg .field") == 1 and not v.errors
    x, y = field_point(v, 0, 0, 24)  # lane 0, column 6, byte 0: rows 192..255 of the second tile
    v.page.mouse.move(x, y)
    assert layout.source_of(s, 0, 6, 0) is None
    assert v.text("#info") == "lane 0, col 6, byte 0: padding"
    v.page.mouse.click(x, y)
    assert v.text("#count") == "this cell: 1 cell selected"
    v.page.keyboard.press("Escape")
    x, y = field_point(v, 0, 5, 1)  # lane 5, column 0, byte 1
    v.page.mouse.move(x, y)
    row, kb = layout.source_of(s, 5, 0, 1)  # type: ignore[misc]
    assert v.text("#info") == field.tooltip_of(5 * field.cols + 1)
    assert v.text("#info").startswith(f"SFB[{row}][{kb}] -> lane 5 ")
    v.page.mouse.click(x, y)
    in_map = sum(1 for i in range(field.size) if field.record(i)["row"] == row)
    in_chunk = sum(1 for b in spec.boxes if dict(b.data).get("row") == str(row))
    assert v.text("#count") == f"row {row}: {in_map + in_chunk} cells selected"


def test_descriptor_page_selects_whole_fields(visit, pages: Pages) -> None:  # type: ignore[no-untyped-def]
    """P18: desc -o FILE.html: a click on any bit selects its whole field; Find takes a bit number."""
    v = visit(pages["desc"])
    assert not v.errors and v.count(".cell") == 64 + 2 * 10  # every bit, and each field's name and value
    v.page.click('svg .cell[data-bit="35"]')
    assert v.text("#count") == "field SBO: 16 cells selected"  # 14 bits, name and value
    v.page.keyboard.press("Escape")
    v.find("bit 62")
    assert v.text("#count") == "3 matches"  # the bit, and the swizzle field's name and value (bits 61-63)
