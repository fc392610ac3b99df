"""The Field primitive: a dense grid drawn as one image, its per-cell detail kept in compact columns.

Checked on a synthetic 256 x 128 field (the size of a 128x256 accumulator): the PNG shows each cell's
palette color, the SVG and the page hold one image and no per-cell node, the page's columns decode
(as its script does: little-endian typed arrays in base64) to exactly the field's values, and the
detail policy switches at the label limit.
"""

from __future__ import annotations

import base64
import io
import json
import re
import struct
import zlib
from html.parser import HTMLParser

import pytest

from tmemviz.draw import raster
from tmemviz.draw.html import how_text, page, search_hint
from tmemviz.draw.spec import LABEL_LIMIT, Box, Field, FigureSpec, Outline, Panel, detail_mode, field_of
from tmemviz.errors import TmemvizError

COLS, ROWS = 256, 128
PALETTE = ("#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f")
TYPES = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "i32": "<i"}


def big_field(**kw: object) -> Field:
    n = COLS * ROWS
    m = tuple(i // COLS for i in range(n))
    col = tuple(i % COLS for i in range(n))
    thread = tuple((i // COLS) % 32 for i in range(n))
    reg = tuple(1000 + (i % COLS) for i in range(n))  # beyond one byte: a 16-bit column
    half = tuple(-1 if c < 8 else c % 2 for c in col)
    colors = tuple(
        -1 if (r, c) == (5, 7) else t % len(PALETTE) for r, c, t in zip(m, col, thread, strict=True)
    )
    return Field(
        0,
        0,
        COLS,
        ROWS,
        ("m", "n", "thread", "reg", "half"),
        (m, col, thread, reg, half),
        colors,
        PALETTE,
        "D[{m}][{n}] -> T{thread} r{reg}{half}",
        texts=(("half", ((-1, ""), (0, ".lo"), (1, ".hi"))),),
        special=((3, "two owners here"),),
        labels=((0, "T0 r1000"),),
        **kw,  # type: ignore[arg-type]
    )


def spec_with(field: Field) -> FigureSpec:
    panel = Panel(
        "n 0..255",
        COLS,
        ROWS,
        0.06,
        (),
        x_ticks=((0.5, "0"), (255.5, "255")),
        y_ticks=((0.5, "0"), (127.5, "127")),
        outlines=(Outline(0, 0, 128, 32, 2.0),),
        fields=(field,),
        cell_h_in=0.06,
    )
    return FigureSpec("a field", "caption", (panel,))


# --------------------------------------------------------------------------- the data


def test_tooltips_texts_special_and_records() -> None:
    f = big_field()
    assert f.tooltip_of(0) == "D[0][0] -> T0 r1000"
    assert f.tooltip_of(COLS + 9) == "D[1][9] -> T1 r1009.hi"
    assert f.tooltip_of(3) == "two owners here"
    assert f.record(COLS * 2 + 10) == {"m": 2, "n": 10, "thread": 2, "reg": 1010, "half": 0}
    assert f.selects_by == ("thread",)
    assert big_field(group=("m",)).selects_by == ("m",)


def test_bad_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="needs 4 colors"):
        Field(0, 0, 2, 2, ("a",), ((0, 0, 0, 0),), (0, 0, 0), ("#fff",), "{a}")
    with pytest.raises(ValueError, match="distinct"):
        Field(0, 0, 1, 1, ("a", "a"), ((0,), (0,)), (0,), ("#fff",), "{a}")
    with pytest.raises(ValueError, match="group"):
        Field(0, 0, 1, 1, ("a",), ((0,),), (0,), ("#fff",), "{a}", group=("b",))


def test_detail_policy() -> None:
    assert detail_mode("auto", LABEL_LIMIT) == "all"
    assert detail_mode("auto", LABEL_LIMIT + 1) == "schematic"
    assert detail_mode("all", 10**6) == "all" and detail_mode("schematic", 1) == "schematic"
    with pytest.raises(TmemvizError, match="auto, all or schematic"):
        detail_mode("most", 1)


# --------------------------------------------------------------------------- pixels


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGBA rows of an 8-bit RGBA PNG (filter 0 rows, as tmemviz writes them)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert (depth, color) == (8, 6)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + 4 * width
    rows = [raw[i * stride : (i + 1) * stride] for i in range(height)]
    assert all(r[0] == 0 for r in rows)
    return width, height, [r[1:] for r in rows]


def test_field_png_has_each_cells_color_and_is_deterministic() -> None:
    f = big_field()
    data = raster.png(f, scale=2)
    assert data == raster.png(f, scale=2)
    width, height, rows = png_pixels(data)
    assert (width, height) == (2 * COLS, 2 * ROWS)
    for i in (0, 1, COLS + 3, 5 * COLS + 7, COLS * ROWS - 1):
        r, c = divmod(i, COLS)
        pixel = rows[2 * r + 1][8 * c + 4 : 8 * c + 8]
        want = (255, 255, 255, 0) if f.colors[i] < 0 else raster.rgba(PALETTE[f.colors[i]])
        assert tuple(pixel) == want, i


def test_matplotlib_draws_one_image_and_only_the_sample_labels() -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.image import AxesImage

    from tmemviz.draw.figure import draw, render

    fig = draw(spec_with(big_field()))
    (ax,) = fig.axes
    assert len([a for a in ax.get_children() if isinstance(a, AxesImage)]) == 1
    png = render(fig, "png")
    assert len(png) < 300_000
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    # Cell (row 40, col 200) sits at LEFT_IN + 200.5 cells across, TITLE_IN + HEADER_IN + 40.5 cells down.
    from tmemviz.draw.geometry import HEADER_IN, LEFT_IN, TITLE_IN

    x = (LEFT_IN + 200.5 * 0.06) * 100
    y = (TITLE_IN + HEADER_IN + 40.5 * 0.06) * 100
    assert "#{:02x}{:02x}{:02x}".format(*image.getpixel((int(x), int(y)))) == PALETTE[40 % 32 % 4]
    svg = render(draw(spec_with(big_field())), "svg").decode()
    assert svg.count("<image") == 1
    assert len(svg) < 200_000
    assert "T0 r1000" in svg and "D[" not in svg  # the sample label; no per-cell tooltip text


# --------------------------------------------------------------------------- the page


class Nodes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag


def decode(b64: str, kind: str) -> tuple[int, ...]:
    raw = base64.b64decode(b64)
    size = struct.calcsize(TYPES[kind])
    return tuple(struct.unpack(TYPES[kind], raw[i : i + size])[0] for i in range(0, len(raw), size))


@pytest.mark.parametrize("grid", [False, True])
def test_page_holds_one_image_and_the_columns_not_one_node_per_cell(grid: bool) -> None:
    f = big_field(grid=grid)
    data = page(spec_with(f))
    assert data == page(spec_with(f))
    assert len(data) < 600_000
    nodes = Nodes()
    nodes.feed(data.decode())
    assert len(nodes.tags) < 60  # 32768 cells, but a few dozen elements
    (image,) = [a for t, a in nodes.tags if t == "image"]
    assert image["href"].startswith("data:image/png;base64,")
    width, height, _ = png_pixels(base64.b64decode(image["href"].split(",", 1)[1]))
    assert (width, height) == (COLS, ROWS)
    (g,) = [a for t, a in nodes.tags if "field" in a.get("class", "").split()]
    meta = json.loads(g["data-field"])
    assert (meta["cols"], meta["rows"], meta["names"]) == (COLS, ROWS, list(f.names))
    assert meta["types"] == ["u8", "u8", "u8", "u16", "i8"]
    for k, values in enumerate(f.values):
        assert decode(meta["values"][k], meta["types"][k]) == values
    assert decode(meta["colors"][1], meta["colors"][0]) == f.colors
    assert meta["special"] == {"3": "two owners here"} and meta["group"] == ["thread"]
    assert meta["texts"] == {"half": {"-1": "", "0": ".lo", "1": ".hi"}}
    # The page's position of the field is where matplotlib draws it (points: 72 per inch).
    assert (meta["x"], meta["w"]) == (pytest.approx(0.55 * 72), pytest.approx(COLS * 0.06 * 72))
    policy = next(a["content"] for t, a in nodes.tags if a.get("http-equiv") == "Content-Security-Policy")
    assert policy.startswith("default-src 'none';") and policy.endswith("; img-src data:")
    assert "url(" not in data.decode() and "http://" not in data.decode().replace("http://www.w3.org", "")
    assert len(re.findall(r"<text", data.decode())) < 12  # ticks, axis, title and the one sample label


def test_pages_without_fields_allow_no_images() -> None:
    spec = FigureSpec("boxes", "c", (Panel("", 1, 1, 0.5, (Box(0, 0, 1, 1, "#ffffff", "a", "a"),)),))
    assert b"img-src" not in page(spec)


def test_search_hint_and_manual_name_the_field_coordinates() -> None:
    f = big_field()
    assert search_hint((), (f,)) == "T0 · T0 r1000 · m 0 · n 0"  # the middle cell: D[64][0]
    assert "share its thread" in how_text((), (f,))


def test_field_of_places_records_and_leaves_holes_blank() -> None:
    records = [
        {"m": 10 + r, "n": 4 + c, "t": r * 3 + c} for r in range(2) for c in range(3) if (r, c) != (1, 1)
    ]
    f = field_of(
        records,
        ("m", "n", "t", "half"),
        row="m",
        col="n",
        color=lambda e: e["t"] % 2,
        palette=PALETTE,
        tooltip="D[{m}][{n}] T{t}{half}",
        texts=(("half", ((-1, ""),)),),
        x=2.0,
    )
    assert (f.x, f.cols, f.rows) == (2.0, 3, 2)
    assert f.colors == (0, 1, 0, 1, -1, 1)
    assert f.tooltip_of(5) == "D[11][6] T5"
    assert f.record(4) == {"m": -1, "n": -1, "t": -1, "half": -1}
    with pytest.raises(ValueError, match="two records"):
        field_of(
            [*records, records[0]], ("m",), row="m", col="n", color=lambda e: 0, palette=PALETTE, tooltip=""
        )
