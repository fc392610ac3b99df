"""tcgen05.cp and decompression figures: the specs say what the mapper says; the CLI routes and refuses.

Spec tests need no matplotlib; a few end-to-end runs render SVG and check its text and tooltips.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tmemviz.catalog import Catalog
from tmemviz.cli import main
from tmemviz.families.cp.decompress import CONTAINER_BASIS, FORMATS, TYPES
from tmemviz.families.cp.figures import HIGHLIGHT, copy_spec, decompress_spec
from tmemviz.families.cp.layout import Copy, landings, make_copy
from tmemviz.families.cp.shapes import KIND as CP

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def _no_user_layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TMEMVIZ_LAYOUTS", raising=False)
    yield


def every_copy(catalog: Catalog) -> list[Copy]:
    return [
        make_copy(shape, p.multicast, cta_group)
        for shape in catalog.shapes(CP)
        for p in shape.placements
        for cta_group in (1, 2)
    ]


_TIP = re.compile(r"^cta (\d), lanes (\d+)\.\.(\d+), column (\d+) <- rows (\d+)\.\.(\d+), word (\d+)$")


def test_copy_spec_draws_every_landing_exactly_once(catalog: Catalog) -> None:
    """Each TMEM landing box covers a run of lanes; together they are exactly the mapper's landings."""
    for cp in every_copy(catalog):
        drawn: list[tuple[int, int, int, int, int]] = []
        for box in copy_spec(cp).boxes:
            m = _TIP.match(box.tooltip)
            if not m:
                continue
            cta, lo, hi, col, first, last, word = map(int, m.groups())
            assert hi - lo == last - first and box.h == hi - lo + 1
            drawn += [(first + i, word, cta, lo + i, col) for i in range(hi - lo + 1)]
        assert sorted(drawn) == sorted(landings(cp)), cp.mnemonic


def test_copy_spec_has_one_arrow_per_replica_and_a_peer_for_cta_group_2(catalog: Catalog) -> None:
    for cp in every_copy(catalog):
        spec = copy_spec(cp)
        panel = spec.panels[0]
        replicas = sum(len(b.starts) for b in cp.placement.blocks)
        assert len(panel.arrows) == replicas
        texts = [n.text for n in panel.notes]
        assert ("TMEM, peer CTA (cta 1)" in texts) == (cp.cta_group == 2)
        assert spec.title == cp.mnemonic


def test_copy_spec_marks_row_40_of_01_23_at_lanes_72_and_104(catalog: Catalog) -> None:
    cp = make_copy(catalog.get(CP, "64x128b"), "warpx2::01_23")
    panel = copy_spec(cp, row=40).panels[0]
    red = [n.text for n in panel.notes if n.color == HIGHLIGHT]
    assert sorted(red) == ["lane 104", "lane 72", "row 40"]
    assert sum(a.color == HIGHLIGHT for a in panel.arrows) == 2
    marked = sorted(b.y for b in panel.boxes if b.fill == HIGHLIGHT and b.tooltip.startswith("cta 0"))
    assert marked == [72, 104]


def test_copy_spec_states_the_4x256b_basis(catalog: Catalog) -> None:
    cp = make_copy(catalog.get(CP, "4x256b"))
    assert "CUTLASS" in copy_spec(cp).caption
    assert "CUTLASS" not in copy_spec(make_copy(catalog.get(CP, "128x256b"))).caption


@pytest.mark.parametrize("name", list(FORMATS))
def test_decompress_spec_elements_sit_at_their_source_bits(name: str) -> None:
    fmt = FORMATS[name]
    spec = decompress_spec(fmt)
    panel = spec.panels[0]
    elements = {b.label: b for b in panel.boxes if b.y == 2}
    assert len(elements) == 16
    for i in range(16):
        box = elements[f"e{i}"]
        # Little-endian stream: element i occupies bits w*i .. w*i+w-1 (facts file).
        assert (box.x, box.w) == (fmt.element_bits * i, fmt.element_bits)
    pads = [b for b in panel.boxes if b.y == 1 and "padding" in b.tooltip]
    assert len(pads) == fmt.padding_bytes
    containers = [b for b in panel.boxes if b.tooltip.startswith("container ") and ":" in b.tooltip]
    assert [b.x for b in containers] == [8 * i for i in range(16)]
    assert any(CONTAINER_BASIS in n.text for n in panel.notes)


@pytest.mark.parametrize(("name", "kinds"), [("b4x16_p64", ["e2m1"]), ("b6x16_p32", ["e3m2", "e2m3"])])
def test_decompress_spec_blows_up_every_type_of_the_width(name: str, kinds: list[str]) -> None:
    fmt = FORMATS[name]
    panel = decompress_spec(fmt).panels[0]
    titles = [n.text for n in panel.notes if "(PTX Figure" in n.text]
    assert [t.split()[0].lower() for t in titles] == kinds
    hi, lo = fmt.container_bits
    bits = [b for b in panel.boxes if b.tooltip.startswith("container bit ")]
    assert len(bits) == 8 * len(kinds)
    for b in bits:
        bit = int(b.tooltip.rsplit(" ", 1)[1])
        assert (b.label != "0") == (lo <= bit <= hi)
    for kind in kinds:
        one = decompress_spec(fmt, TYPES[kind]).panels[0]
        names = [b.label for b in one.boxes if b.tooltip.startswith("container bit ")]
        assert names == ["0"] * (7 - hi) + list(TYPES[kind].labels()) + ["0"] * lo


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_figure_cp_svg_has_tooltips_title_and_marked_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "row40.svg"
    code, _, err = run(capsys, "figure", "cp", "64x128b.warpx2::01_23", "--row", "40", "-o", str(out))
    assert code == 0, err
    root = ET.fromstring(out.read_bytes())
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert "cta 0, lanes 64..95, column 0 <- rows 32..63, word 0" in titles
    text = out.read_text()
    assert "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23" in text
    assert "lane 72" in text and "lane 104" in text


@pytest.mark.parametrize(
    "args",
    [
        ("figure", "32x128b", "-m", "warpx4"),
        ("figure", "SM100_UTCCP_2x64dp128bitlw0213_2cta"),
        ("figure", "tcgen05.cp.cta_group::2.4x256b"),
        ("figure", "cp", "128x128b", "--decompress", "b6x16_p32", "--taddr", "0,8"),
        ("figure", "decompress", "b4x16_p64"),
        ("figure", "decompress", "b6x16_p32", "--type", "e2m3"),
    ],
)
def test_figure_routes_cp_and_decompress(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    out = tmp_path / "f.svg"
    code, _, err = run(capsys, *args, "-o", str(out))
    assert code == 0, err
    assert out.read_bytes().startswith(b"<?xml")


def test_decompress_figure_prints_the_basis(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "d.svg"
    assert run(capsys, "figure", "decompress", "b6x16_p32", "-o", str(out))[0] == 0
    assert "cp_narrow_a_to_tmem_mma.py" in out.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("figure", "cp"), "'figure cp' needs a cp shape"),
        (("figure", "decompress"), "'figure decompress' needs b4x16_p64 or b6x16_p32"),
        (("figure", "cp", "64x128b"), "requires .warpx2::02_13 or .warpx2::01_23"),
        (("figure", "cp", "64x128b", "-m", "warpx2::01_23", "--row", "64"), "row 64 does not exist"),
        (("figure", "16x256b", "--multicast", "warpx4"), "No such option: --multicast"),
        (("figure", "cp", "128x256b", "--num", "x4"), "No such option: --num"),
        (("figure", "decompress", "b4x16_p64", "--type", "e3m2"), "e3m2 is a 6-bit type"),
        (("figure", "16x256b", "--type", "e2m1"), "--type describes a tcgen05.ld.red reduction"),
        (("figure", "16x256b", "extra"), "unexpected extra argument"),
        (("figure", "decompress", "b4x16_p64", "--taddr", "0,0"), "No such option: --taddr"),
    ],
)
def test_figure_refuses_mixed_up_requests(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    out = tmp_path / "never.png"
    code, stdout, err = run(capsys, *args, "-o", str(out))
    assert code == 2 and stdout == ""
    assert err.startswith("tmemviz: ") and err.count("\n") == 1 and message in err
    assert not out.exists() and list(tmp_path.iterdir()) == []
