"""Text in figures is literal: no mathtext or TeX, and no character that makes the SVG or the page invalid.

Every string a figure draws (title, caption, panel titles, notes, arrow labels, markers, cell labels,
tooltips) may come from the user, so each is drawn as typed: ``cost $5 and $6`` is not TeX, and
control characters, lone surrogates and non-characters are made visible (:mod:`tmemviz.draw.text`).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_run import ok

from tmemviz import api
from tmemviz.draw.document import figure_bytes
from tmemviz.draw.spec import Arrow, Box, Field, FigureSpec, Note, Panel
from tmemviz.draw.text import literal

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NASTY = "cost $5 and $6 $\\invalidcommand$ $x^2$ a\x00b\x07c\td\ne\x7f\x85f\udcff\ufffe<&>'\""
"""Dollars (mathtext), a TeX command matplotlib cannot parse, every kind of control, XML's specials."""
FORBIDDEN_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def test_literal_shows_every_control_and_keeps_the_rest() -> None:
    assert literal("cost $5 and $6") == "cost $5 and $6"
    assert literal(NASTY) == (
        "cost $5 and $6 $\\invalidcommand$ $x^2$ a\\x00b\\x07c d e\\x7f\\x85f\ufffd\ufffd<&>'\""
    )
    for code in range(0x110000):
        ch = chr(code)
        out = literal(ch)
        assert not FORBIDDEN_IN_XML.search(out), hex(code)
        if out != ch:  # only controls, surrogates and the two non-characters are touched
            assert code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF)


def spec_with_text(text: str) -> FigureSpec:
    """One of every kind of text a spec carries, each ``text`` with a distinct prefix."""
    field = Field(
        0, 2, 2, 1, ("i",), ((0, 1),), (0, 0), ("#ffffff",), "F " + text + " {i}", labels=((0, "L " + text),)
    )
    panel = Panel(
        "P " + text,
        4,
        4,
        0.6,
        (Box(0, 0, 1, 1, "#ffffff", "B " + text, "T " + text),),
        x_ticks=((0.5, "X " + text),),
        y_ticks=((0.5, "Y " + text),),
        markers=((1.0, "M " + text),),
        arrows=(Arrow(0, 3, 1, 3, "A " + text),),
        notes=(Note(2, 1, "N " + text),),
        y_label="W " + text,
        fields=(field,),
    )
    return FigureSpec("H " + text, "C " + text, (panel,))


def svg_texts(svg: bytes) -> list[str]:
    """Every <text> and <title> of an SVG; ElementTree refuses a document that is not well-formed XML."""
    root = ET.fromstring(svg)
    return ["".join(el.itertext()) for el in root.iter() if el.tag in (f"{SVG}text", f"{SVG}title")]


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

        self.fields: list[dict[str, object]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        data = dict(attrs).get("data-field")
        if data is not None:
            self.fields.append(json.loads(data))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


PREFIXES = {
    "H": "title",
    "C": "caption",
    "P": "panel title",
    "B": "cell label",
    "T": "tooltip",
    "X": "x tick",
    "Y": "y tick",
    "M": "marker",
    "A": "arrow label",
    "N": "note",
    "W": "y axis label",
    "L": "field label",
}


@pytest.fixture(scope="module")
def drawn() -> dict[str, bytes]:
    """One figure with every kind of text, in each format (drawn once for this module)."""
    spec = spec_with_text(NASTY)
    return {fmt: figure_bytes(spec, fmt) for fmt in ("svg", "html", "png")}


def test_every_text_is_literal_in_the_svg(drawn: dict[str, bytes]) -> None:
    texts = "\n".join(svg_texts(drawn["svg"]))  # ElementTree refuses what XML forbids
    assert not FORBIDDEN_IN_XML.search(drawn["svg"].decode())
    for prefix, what in PREFIXES.items():
        want = f"{prefix} {literal(NASTY)}"
        if prefix == "C":  # the caption wraps: its words, line by line
            assert all(word in texts for word in want.split()), what
            continue
        # svg.fonttype none keeps text as text: mathtext would have split "$x^2$" into glyphs.
        assert want in texts, what


def test_every_text_is_literal_on_the_page(drawn: dict[str, bytes]) -> None:
    page = drawn["html"].decode()
    assert not FORBIDDEN_IN_XML.search(page)
    parser = _Texts()
    parser.feed(page)
    texts = "\n".join(parser.texts)
    for prefix, what in PREFIXES.items():
        assert f"{prefix} {literal(NASTY)}" in texts, what
    # The field's tooltip is computed by the script from data-field's JSON: literal there too.
    (field,) = parser.fields
    assert field["tooltip"] == f"F {literal(NASTY)} {{i}}"


def test_png_draws_tex_it_cannot_parse(drawn: dict[str, bytes]) -> None:
    assert drawn["png"].startswith(PNG_SIGNATURE)


@pytest.mark.parametrize("fmt", ["png", "svg", "html"])
def test_title_option_is_literal(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """P18: ``--title '$\\invalidcommand$'`` was matplotlib's mathtext traceback; now it is the title."""
    out = tmp_path / f"x.{fmt}"
    title = "$\\invalidcommand$ cost $5 and $6\x07"
    ok(capsys, "layout", "32x32b", "--title", title, "-o", str(out))
    data = out.read_bytes()
    if fmt == "png":
        assert data.startswith(PNG_SIGNATURE)
    elif fmt == "svg":
        assert literal(title) in svg_texts(data)
    else:
        assert "<h1>$\\invalidcommand$ cost $5 and $6\\x07</h1>" in data.decode()


def test_api_title_with_undecodable_bytes_saves_valid_svg(tmp_path: Path) -> None:
    """An argv byte that is not UTF-8 reaches Python as a lone surrogate: drawn as U+FFFD, never a crash."""
    doc = api.layout("32x32b", title="bad \udcff byte")
    svg = doc.save(tmp_path / "t.svg").read_bytes()
    assert "bad \ufffd byte" in svg_texts(svg)
    assert "bad \ufffd byte" in doc.save(tmp_path / "t.html").read_text(encoding="utf-8")
