"""The data-path table and placements against the PTX 9.7.16.10.5 table as typed from the facts file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.datapath.answers import organize
from tmemviz.families.datapath.organization import choose, letter, place, unplace
from tmemviz.families.datapath.shapes import KIND as DATAPATH
from tmemviz.families.datapath.shapes import load_path

# (M, cta_group, sparse, ws) -> letter; every combination, and the ones the table lacks (None).
EXPECTED = {
    (256, 2, False, False): "A",
    (256, 2, True, False): "A",
    (128, 2, False, False): "B",
    (128, 2, True, False): "C",
    (128, 1, False, False): "D",
    (128, 1, True, False): "D",
    (128, 1, False, True): "D",
    (128, 1, True, True): "D",
    (64, 1, False, True): "E",
    (64, 1, True, True): "E",
    (64, 1, False, False): "F",
    (64, 1, True, False): "F",
    (32, 1, False, True): "G",
    (32, 1, True, True): "G",
}


@pytest.mark.parametrize("m", [32, 64, 128, 256])
@pytest.mark.parametrize("cta_group", [1, 2])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("ws", [False, True])
def test_letter_for_every_combination(m: int, cta_group: int, sparse: bool, ws: bool) -> None:
    want = EXPECTED.get((m, cta_group, sparse, ws))
    if want is not None:
        assert letter(m, cta_group, sparse, ws) == want
        return
    with pytest.raises(TmemvizError) as err:
        letter(m, cta_group, sparse, ws)
    message = str(err.value)
    assert message.count(".") >= 1 and "\n" not in message
    assert "the PTX table has:" in message and "M=32 with .cta_group::1, .ws (G)" in message


def rows_of(catalog: Catalog) -> dict[str, object]:
    return {p.name: p for p in catalog.shapes(DATAPATH)}


def legal(path: object) -> list[int]:
    return list(path.legal_n())  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list("ABCDEFG"))
def test_place_is_a_bijection_onto_the_layouts_lanes(catalog: Catalog, name: str) -> None:
    path = catalog.get(DATAPATH, name)
    for n_total in (legal(path)[0], 64, 256):
        if n_total not in legal(path):
            continue
        for offset in path.lane_offsets:
            seen: dict[tuple[int, int, int], tuple[int, int]] = {}
            for m in range(path.m):
                for n in range(n_total):
                    p = place(path, n_total, m, n, offset)
                    assert (p.cta, p.lane, p.col) not in seen
                    seen[(p.cta, p.lane, p.col)] = (m, n)
                    assert unplace(path, n_total, p.cta, p.lane, p.col, offset) == (m, n)
                    assert 0 <= p.lane < 128 and 0 <= p.cta < path.cta_group
            lanes = {lane for _, lane, _ in seen}
            assert len(lanes) == path.lanes_used
            if path.placement == "half":
                assert lanes == {32 * b + offset + i for b in range(4) for i in range(16)}
            cols = {col for _, _, col in seen}
            assert cols == set(range(n_total // path.parts if path.placement == "folded" else n_total))


def test_the_table_rows(catalog: Catalog) -> None:
    rows = {
        p.name: (p.m, p.cta_group, p.organization, p.lanes_used, p.lane_offsets, p.figures)
        for p in catalog.shapes(DATAPATH)
    }
    assert rows == {
        "A": (256, 2, "4x1", 128, (0,), (205, 206)),
        "B": (128, 2, "2x2", 128, (0,), (207, 208)),
        "C": (128, 2, "4x1", 64, (0, 16), (209, 210)),
        "D": (128, 1, "4x1", 128, (0,), (211, 212)),
        "E": (64, 1, "2x3", 128, (0,), (213, 214)),
        "F": (64, 1, "4x1", 64, (0, 16), (215, 216)),
        "G": (32, 1, "1x4", 128, (0,), (217, 218)),
    }


def test_which_warp_reads_which_part(catalog: Catalog) -> None:
    """The facts file: B/E columns n < N/2 in lanes 0-63; G quarter q in lanes 32q..; F row 16w+i in 32w+i."""
    b = organize(catalog.get(DATAPATH, "B"), 256)
    assert [(r.cta, r.warp, r.rows, r.ns) for r in b.regions][:4] == [
        (0, 0, (0, 31), (0, 127)),
        (0, 1, (32, 63), (0, 127)),
        (0, 2, (0, 31), (128, 255)),
        (0, 3, (32, 63), (128, 255)),
    ]
    assert [(r.rows, r.ns) for r in b.regions][4] == ((64, 95), (0, 127))
    g = organize(catalog.get(DATAPATH, "G"), 64)
    assert [r.ns for r in g.regions] == [(0, 15), (16, 31), (32, 47), (48, 63)]
    f = organize(catalog.get(DATAPATH, "F"), 64, 16)
    assert [(r.lanes, r.rows, r.taddr_offset) for r in f.regions][1] == ((48, 63), (16, 31), 32 << 16)


def test_legal_n_per_layout(catalog: Catalog) -> None:
    """One CTA: N a multiple of 8 in 8..256 for M=64 and M=128 (NVIDIA's CuTe DSL 4.8.1 checks, and its
    shipped kernels run M=128, N=8; CUTLASS C++ 4.2.0 asks 16: docs/facts.md); a pair: 16 in 16..256."""
    legal = {name: list(catalog.get(DATAPATH, name).legal_n()) for name in "ABCDF"}  # type: ignore[attr-defined]
    assert legal["D"] == legal["F"] == list(range(8, 257, 8))
    assert legal["A"] == legal["B"] == legal["C"] == list(range(16, 257, 16))
    with pytest.raises(TmemvizError, match=r"N=12 is not legal for layout D .* a multiple of 8 in 8\.\.256"):
        organize(catalog.get(DATAPATH, "D"), 12)


def test_bad_n_and_offset_are_one_sentence(catalog: Catalog) -> None:
    with pytest.raises(TmemvizError, match=r"N=96 is not legal for layout G .* N must be 64, 128, 256"):
        organize(catalog.get(DATAPATH, "G"), 96)
    with pytest.raises(TmemvizError, match="lane offset 16 is not legal for layout D; it takes 0"):
        organize(catalog.get(DATAPATH, "D"), 128, 16)
    with pytest.raises(TmemvizError, match=r"no data-path layout for M=128 with \.cta_group::2, \.ws"):
        choose(catalog.shapes(DATAPATH), 128, 2, False, True)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("placement: half", "placement: full"), "'full' needs 128 rows per CTA"),
        (("parts: 1", "parts: 3"), "'half' needs 64 rows per CTA and parts 1"),
        (
            ("lane_offsets: [0, 16]", "lane_offsets: [0, 8]"),
            "only a half-data-path layout may take lane offset 16",
        ),
        (("m: 64", "m: 48"), "expected 32, 64, 128 or 256"),
        (("layout: F", "layout: FF"), "expected one capital letter"),
        (("sparsity: either", "sparsity: maybe"), "expected one of dense, sparse, either"),
        (
            ("n: {min: 8, max: 256, step: 8}", "n: {min: 8, max: 512, step: 8}"),
            "expected 0 < min <= max <= 256",
        ),
    ],
)
def test_bad_shape_files_name_file_and_field(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    source = Path(__file__).resolve().parents[2] / "layouts" / "datapath" / "F.yaml"
    text = source.read_text()
    assert edit[0] in text
    bad = tmp_path / "F.yaml"
    bad.write_text(text.replace(edit[0], edit[1]))
    with pytest.raises(TmemvizError, match=message) as err:
        load_path(bad)
    assert str(bad) in str(err.value)


@pytest.mark.parametrize("name", list("ABCDEFG"))
def test_each_warps_region_is_what_its_tile_instructions_load(catalog: Catalog, name: str) -> None:
    """The datapath table's warp regions and taddrs agree with the tile planner (built on the ld mapper)."""
    from tmemviz.families.ldst.shapes import KIND as LDST
    from tmemviz.families.tile.layout import elements, make_tile

    path = catalog.get(DATAPATH, name)
    for offset in path.lane_offsets:
        org = organize(path, 128, offset)
        tile = make_tile(
            catalog.get(LDST, "16x64b"),
            128,
            m=path.m,
            cta_group=path.cta_group,
            ws=path.ws == "yes",
            sparse=path.sparsity == "sparse",
            lane_offset=offset,
        )
        held: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for e in elements(tile):
            held.setdefault((e.cta, e.warp), set()).add((e.m, e.n))
        for r in org.regions:
            want = {(m, n) for m in range(r.rows[0], r.rows[1] + 1) for n in range(r.ns[0], r.ns[1] + 1)}
            assert held[(r.cta, r.warp)] == want
            first = min(i.taddr[0] for i in tile.issued if i.warp == r.warp and i.cta == r.cta)
            assert (first - offset) << 16 == r.taddr_offset
