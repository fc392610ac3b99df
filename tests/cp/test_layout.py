"""tcgen05.cp landings checked exhaustively against the independent facts oracle.

Every legal (shape, multicast, .cta_group, decompression) of PTX 9.7.16.9.2 is
compared cell by cell with :mod:`facts_oracle_cp`; then the structural properties
(replicas, warp pairs, bijection, taddr placement), the facts' worked points, the
legality rules and the spellings tmemviz accepts.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from cp.oracle import (
    ALL_MULTICASTS,
    CTA_GROUPS,
    CUTLASS,
    FORMATS,
    MULTICASTS,
    SHAPES,
    TMEM_COLUMNS,
    TMEM_LANES,
    cell_sources,
    combinations,
    expected_warps,
    fits,
    landings,
    lane_extent,
    legal,
    mnemonic,
    placements,
    replicas,
    row_lanes,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.cp import layout as mapper_cp
from tmemviz.families.cp.layout import Copy, make_copy
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.cp.shapes import CopyShape
from tmemviz.families.cp.spelling import find_cutlass_copy, parse_cp_spelling, resolve_copy

Combo = tuple[str, str | None, int, str | None]
COMBOS = combinations()
PLACEMENTS = placements()


def cid(combo: tuple[object, ...]) -> str:
    return ".".join(str(x) for x in combo if x is not None)


def build(catalog: Catalog, combo: tuple[str, str | None, int, str | None], **kw: object) -> Copy:
    shape, multicast, group, fmt = combo
    return make_copy(catalog.get(CP, shape), multicast, group, fmt, **kw)  # type: ignore[arg-type]


def as_tuples(xs: tuple[mapper_cp.Landing, ...]) -> list[tuple[int, int, int, int, int]]:
    return [(x.row, x.word, x.cta, x.lane, x.col) for x in xs]


# --------------------------------------------------------------------------- the oracle itself


def test_oracle_counts() -> None:
    assert len(PLACEMENTS) == 6
    assert len(COMBOS) == 36
    # Every shape writes rows x words x replicas cells.
    for shape, multicast in PLACEMENTS:
        for group in CTA_GROUPS:
            fact = SHAPES[shape]
            got = landings(shape, multicast, group)
            assert len(got) == fact.rows * fact.words * replicas(multicast, group)


def test_catalog_has_exactly_the_ptx_shapes(catalog: Catalog) -> None:
    assert sorted(s.name for s in catalog.shapes(CP)) == sorted(SHAPES)
    for name, fact in SHAPES.items():
        shape = catalog.get(CP, name)
        assert (shape.rows, shape.words, shape.row_bits) == (fact.rows, fact.words, 32 * fact.words)
        assert sorted(shape.multicasts, key=str) == sorted(MULTICASTS[name], key=str)
        assert shape.ptx_name == "." + name


# --------------------------------------------------------------------------- exhaustive comparison


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_landings_equal_oracle(catalog: Catalog, cpc: Combo) -> None:
    shape, multicast, group, fmt = cpc
    cp = build(catalog, cpc)
    got = as_tuples(mapper_cp.landings(cp))
    assert len(got) == len(set(got)), "a landing is listed twice"
    assert set(got) == landings(shape, multicast, group)
    # Documented order: by row, word, cta, lane.
    assert got == sorted(got, key=lambda x: (x[0], x[1], x[2], x[3]))
    assert cp.mnemonic == mnemonic(shape, multicast, group, fmt)
    assert cp.statement() == f"{cp.mnemonic} [taddr], sdesc;"
    assert cp.statement("ta", "d") == f"{cp.mnemonic} [ta], d;"
    assert cp.cta_group == group and cp.multicast == multicast
    assert (cp.decompress.name if cp.decompress else None) == fmt


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_decompression_does_not_move_landings(catalog: Catalog, placement: tuple[str, str | None]) -> None:
    shape, multicast = placement
    for group in CTA_GROUPS:
        plain = mapper_cp.landings(build(catalog, (shape, multicast, group, None)))
        for fmt in FORMATS:
            assert mapper_cp.landings(build(catalog, (shape, multicast, group, fmt))) == plain


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_replicas_and_warps(catalog: Catalog, cpc: Combo) -> None:
    shape, multicast, group, _ = cpc
    cp = build(catalog, cpc)
    per_cta = {None: 1, "warpx2::02_13": 2, "warpx2::01_23": 2, "warpx4": 4}[multicast]
    assert cp.replicas == per_cta * group == replicas(multicast, group)
    assert cp.placement.replicas == per_cta
    assert list(cp.ctas) == list(range(group))
    fact = SHAPES[shape]
    for row in range(fact.rows):
        hits = mapper_cp.row_landings(cp, row)
        assert len(hits) == fact.words * cp.replicas
        for word in range(fact.words):
            for cta in range(group):
                lanes = [x.lane for x in hits if x.word == word and x.cta == cta]
                assert len(lanes) == per_cta
                warps = [lane // 32 for lane in lanes]
                # One landing per warp of the multicast's warp group, never two in one warp.
                assert len(set(warps)) == len(warps)
                assert frozenset(warps) == expected_warps(shape, multicast, row)
                assert all(x.col == word for x in hits if x.word == word)
        assert {x.cta for x in hits} == set(range(group))


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_peer_cta_gets_the_same_cells(catalog: Catalog, cpc: Combo) -> None:
    cp = build(catalog, cpc)
    by_cta: dict[int, set[tuple[int, int, int, int]]] = {0: set(), 1: set()}
    for x in mapper_cp.landings(cp):
        by_cta[x.cta].add((x.row, x.word, x.lane, x.col))
    if cp.cta_group == 1:
        assert by_cta[1] == set()
    else:
        assert by_cta[1] == by_cta[0] != set()


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_no_cell_written_twice_and_source_of_inverts(catalog: Catalog, cpc: Combo) -> None:
    cp = build(catalog, cpc)
    everything = mapper_cp.landings(cp)
    cells = Counter((x.cta, x.lane, x.col) for x in everything)
    assert max(cells.values()) == 1
    for x in everything:
        assert mapper_cp.source_of(cp, x.lane, x.col, x.cta) == x
    # row_landings(row, word) is exactly the slice of row_landings(row).
    for row in range(cp.shape.rows):
        whole = mapper_cp.row_landings(cp, row)
        for word in range(cp.shape.words):
            assert mapper_cp.row_landings(cp, row, word) == tuple(x for x in whole if x.word == word)


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_source_of_refuses_every_cell_not_written(
    catalog: Catalog, placement: tuple[str, str | None]
) -> None:
    shape, multicast = placement
    cp = build(catalog, (shape, multicast, 2, None))
    written = cell_sources(shape, multicast, 2)
    words = SHAPES[shape].words
    for cta in (0, 1):
        for lane in range(-1, TMEM_LANES + 1):
            for col in range(-1, words + 2):
                key = (cta, lane, col)
                if key in written:
                    assert tuple(mapper_cp.source_of(cp, lane, col, cta)) == written[key]
                else:
                    with pytest.raises(TmemvizError):
                        mapper_cp.source_of(cp, lane, col, cta)
    # The peer only exists with .cta_group::2.
    one = build(catalog, (shape, multicast, 1, None))
    with pytest.raises(TmemvizError, match=r"cta_group::2"):
        mapper_cp.source_of(one, 0, 0, 1)
    for cta in (-1, 2):
        with pytest.raises(TmemvizError):
            mapper_cp.source_of(cp, 0, 0, cta)


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_written_lanes_and_spans(catalog: Catalog, placement: tuple[str, str | None]) -> None:
    shape, multicast = placement
    cp = build(catalog, (shape, multicast, 1, None))
    lanes = sorted({lane for r in range(SHAPES[shape].rows) for lane in row_lanes(shape, multicast, r)})
    covered = sorted(lane for lo, hi in mapper_cp.written_lanes(cp) for lane in range(lo, hi + 1))
    assert covered == lanes
    ranges = mapper_cp.written_lanes(cp)
    # Merged: sorted, disjoint and not adjacent.
    assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(ranges))
    assert cp.lane_span() == lane_extent(shape, multicast)
    assert cp.column_span() == (0, SHAPES[shape].words - 1)


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_source_bits_without_decompression(catalog: Catalog, placement: tuple[str, str | None]) -> None:
    cp = build(catalog, (*placement, 1, None))
    for word in range(cp.shape.words):
        assert mapper_cp.source_bits(cp, word) == (32 * word + 31, 32 * word)


def test_row_and_word_out_of_range(catalog: Catalog) -> None:
    for shape, multicast in PLACEMENTS:
        cp = build(catalog, (shape, multicast, 1, None))
        fact = SHAPES[shape]
        for row in (-1, fact.rows, fact.rows + 100):
            with pytest.raises(TmemvizError, match=rf"row {row} does not exist.*0\.\.{fact.rows - 1}"):
                mapper_cp.row_landings(cp, row)
        for word in (-1, fact.words):
            with pytest.raises(TmemvizError, match=rf"word {word} does not exist"):
                mapper_cp.row_landings(cp, 0, word)


# --------------------------------------------------------------------------- worked points of the facts


def lanes_of(cp: Copy, row: int, cta: int = 0) -> list[int]:
    return sorted({x.lane for x in mapper_cp.row_landings(cp, row) if x.cta == cta})


def cols_of(cp: Copy, row: int) -> list[int]:
    return sorted({x.col for x in mapper_cp.row_landings(cp, row)})


def test_worked_points(catalog: Catalog) -> None:
    def get(name: str) -> CopyShape:
        return catalog.get(CP, name)

    cp = make_copy(get("64x128b"), "warpx2::01_23")
    assert lanes_of(cp, 40) == [72, 104]
    assert lanes_of(cp, 0) == [0, 32] and lanes_of(cp, 31) == [31, 63]
    assert lanes_of(cp, 32) == [64, 96] and lanes_of(cp, 63) == [95, 127]
    cp = make_copy(get("64x128b"), "warpx2::02_13")
    assert lanes_of(cp, 40) == [40, 104]
    assert lanes_of(cp, 0) == [0, 64] and lanes_of(cp, 31) == [31, 95]
    assert lanes_of(cp, 32) == [32, 96] and lanes_of(cp, 63) == [63, 127]
    cp = make_copy(get("32x128b"), "warpx4")
    assert lanes_of(cp, 5) == [5, 37, 69, 101]
    assert cols_of(cp, 5) == [0, 1, 2, 3]
    cp = make_copy(get("4x256b"))
    assert lanes_of(cp, 2) == [64]
    assert cols_of(cp, 2) == list(range(8))
    assert [lanes_of(cp, a) for a in range(4)] == [[0], [32], [64], [96]]
    cp = make_copy(get("128x256b"))
    assert lanes_of(cp, 77) == [77] and cols_of(cp, 77) == list(range(8))
    cp = make_copy(get("128x128b"))
    assert lanes_of(cp, 127) == [127] and cols_of(cp, 127) == [0, 1, 2, 3]
    # .cta_group::2: the same lanes in the peer CTA.
    cp = make_copy(get("64x128b"), "warpx2::01_23", cta_group=2)
    assert lanes_of(cp, 40, cta=1) == [72, 104]
    # The mapper's own doctest points, independently.
    cp = make_copy(get("64x128b"), "warpx2::01_23")
    assert tuple(mapper_cp.source_of(cp, 104, 3)) == (40, 3, 0, 104, 3)
    cp = make_copy(get("128x256b"), taddr=(0, 32))
    assert tuple(mapper_cp.source_of(cp, 70, 37)) == (70, 5, 0, 70, 37)


def test_notes(catalog: Catalog) -> None:
    note = make_copy(catalog.get(CP, "4x256b")).notes()
    assert len(note) == 1
    assert "CUTLASS" in note[0] and "4x256b" in note[0]
    assert "32" in note[0]  # row a -> lane 32*a
    for shape, multicast in PLACEMENTS:
        cp = make_copy(catalog.get(CP, shape), multicast)
        assert bool(cp.notes()) == (shape == "4x256b")
        for fmt in FORMATS:
            notes = make_copy(catalog.get(CP, shape), multicast, decompress=fmt).notes()
            # The facts: which shapes take decompression is unknown; say so.
            assert len(notes) == len(cp.notes()) + 1
            assert any("decompression" in n and "not say" in n for n in notes)
            assert all("\n" not in n for n in notes)


# --------------------------------------------------------------------------- taddr placement


def extreme_taddrs(shape: str, multicast: str | None) -> list[tuple[int, int]]:
    _, hi = lane_extent(shape, multicast)
    max_lane, max_col = TMEM_LANES - 1 - hi, TMEM_COLUMNS - SHAPES[shape].words
    return [
        (0, 0),
        (max_lane, max_col),
        (max_lane + 1, 0),
        (0, max_col + 1),
        (-1, 0),
        (0, -1),
        (TMEM_LANES, 0),
        (0, TMEM_COLUMNS),
        (max_lane // 2, max_col // 2),
    ]


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_taddr_edges(catalog: Catalog, placement: tuple[str, str | None]) -> None:
    shape, multicast = placement
    for taddr in extreme_taddrs(shape, multicast):
        for group in CTA_GROUPS:
            if fits(shape, multicast, taddr):
                cp = build(catalog, (shape, multicast, group, None), taddr=taddr)
                assert set(as_tuples(mapper_cp.landings(cp))) == landings(shape, multicast, group, taddr)
                assert cp.origin == taddr
            else:
                with pytest.raises(TmemvizError, match=r"taddr"):
                    build(catalog, (shape, multicast, group, None), taddr=taddr)


def test_taddr_lane_room_per_shape(catalog: Catalog) -> None:
    """Shapes that cover all 128 lanes need taddr lane 0; .4x256b has room for lanes 0..31."""
    room = {}
    for shape, multicast in PLACEMENTS:
        ok = [lane for lane in range(TMEM_LANES) if _accepts(catalog, shape, multicast, (lane, 0))]
        room[(shape, multicast)] = (min(ok), max(ok), len(ok))
    assert room == {
        ("128x256b", None): (0, 0, 1),
        ("128x128b", None): (0, 0, 1),
        ("64x128b", "warpx2::02_13"): (0, 0, 1),
        ("64x128b", "warpx2::01_23"): (0, 0, 1),
        ("32x128b", "warpx4"): (0, 0, 1),
        ("4x256b", None): (0, 31, 32),
    }


def _accepts(catalog: Catalog, shape: str, multicast: str | None, taddr: tuple[int, int]) -> bool:
    try:
        make_copy(catalog.get(CP, shape), multicast, taddr=taddr)
    except TmemvizError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    index=st.integers(0, len(PLACEMENTS) - 1),
    group=st.sampled_from(CTA_GROUPS),
    lane=st.one_of(st.just(0), st.integers(0, 31), st.integers(-4, TMEM_LANES + 4)),
    col=st.one_of(st.integers(-4, TMEM_COLUMNS + 4), st.integers(TMEM_COLUMNS - 10, TMEM_COLUMNS)),
    pick=st.integers(0, 10**6),
)
def test_taddr_random(catalog: Catalog, index: int, group: int, lane: int, col: int, pick: int) -> None:
    shape, multicast = PLACEMENTS[index]
    taddr = (lane, col)
    if not fits(shape, multicast, taddr):
        with pytest.raises(TmemvizError):
            build(catalog, (shape, multicast, group, None), taddr=taddr)
        return
    cp = build(catalog, (shape, multicast, group, None), taddr=taddr)
    got = mapper_cp.landings(cp)
    assert set(as_tuples(got)) == landings(shape, multicast, group, taddr)
    x = got[pick % len(got)]
    assert mapper_cp.source_of(cp, x.lane, x.col, x.cta) == x
    # Relative coordinates plus taddr.
    rel = mapper_cp.landings(build(catalog, (shape, multicast, group, None)))
    y = rel[pick % len(rel)]
    assert got[pick % len(got)] == y._replace(lane=y.lane + lane, col=y.col + col)
    # Just outside the copy: refused.
    with pytest.raises(TmemvizError):
        mapper_cp.source_of(cp, x.lane, col + SHAPES[shape].words, x.cta)
    with pytest.raises(TmemvizError):
        mapper_cp.source_of(cp, x.lane, col - 1, x.cta)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lane=st.integers(0, 31), col=st.integers(0, TMEM_COLUMNS - 8), group=st.sampled_from(CTA_GROUPS))
def test_taddr_random_4x256b(catalog: Catalog, lane: int, col: int, group: int) -> None:
    """The only shape with lane room: every legal taddr, compared with the oracle."""
    cp = build(catalog, ("4x256b", None, group, None), taddr=(lane, col))
    assert set(as_tuples(mapper_cp.landings(cp))) == landings("4x256b", None, group, (lane, col))
    assert mapper_cp.written_lanes(cp) == tuple((lane + 32 * a, lane + 32 * a) for a in range(4))


# --------------------------------------------------------------------------- legality


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("multicast", [None, *ALL_MULTICASTS], ids=str)
def test_multicast_legality(catalog: Catalog, shape: str, multicast: str | None) -> None:
    if legal(shape, multicast):
        assert make_copy(catalog.get(CP, shape), multicast).multicast == multicast
        return
    with pytest.raises(TmemvizError) as err:
        make_copy(catalog.get(CP, shape), multicast)
    message = str(err.value)
    assert f".{shape}" in message and "PTX 9.7.16.9.2" in message
    if shape == "64x128b":
        assert "requires" in message and ".warpx2::02_13" in message and ".warpx2::01_23" in message
    elif shape == "32x128b":
        assert "requires .warpx4" in message
    else:
        assert "takes no .multicast" in message and f".{multicast}" in message
    if multicast is not None:
        assert multicast in message


def test_requirement_messages(catalog: Catalog) -> None:
    def get(name: str) -> CopyShape:
        return catalog.get(CP, name)

    with pytest.raises(TmemvizError, match=r"\.64x128b requires \.warpx2::02_13 or \.warpx2::01_23"):
        make_copy(get("64x128b"))
    with pytest.raises(TmemvizError, match=r"\.32x128b requires \.warpx4.*warpx2::01_23"):
        make_copy(get("32x128b"), "warpx2::01_23")
    with pytest.raises(TmemvizError, match=r"\.128x256b takes no \.multicast.*warpx4"):
        make_copy(get("128x256b"), "warpx4")
    with pytest.raises(TmemvizError, match=r"unknown multicast 'warpx8'.*warpx2::02_13.*warpx4"):
        make_copy(get("128x256b"), "warpx8")
    with pytest.raises(TmemvizError, match=r"unknown multicast"):
        make_copy(get("64x128b"), "warpx2::03_12")


@pytest.mark.parametrize("group", [0, 3, -1, 4])
def test_cta_group_must_be_1_or_2(catalog: Catalog, group: int) -> None:
    with pytest.raises(TmemvizError, match=r"1 or 2.*cta_group::1.*cta_group::2"):
        make_copy(catalog.get(CP, "128x256b"), cta_group=group)
    with pytest.raises(TmemvizError, match=r"1 or 2"):
        resolve_copy(catalog, f"tcgen05.cp.cta_group::{group}.128x256b [t], d;")
    with pytest.raises(TmemvizError, match=r"1 or 2"):
        resolve_copy(catalog, "128x256b", cta_group=str(group))


@pytest.mark.parametrize(
    "text", ["tcgen05.cp.cta_group::3.128x256b", "128x256b.cta_group::0", "cta_group::12.4x256b"]
)
def test_parser_refuses_other_cta_groups(catalog: Catalog, text: str) -> None:
    with pytest.raises(TmemvizError, match=r"1 or 2"):
        parse_cp_spelling(catalog, text)


@pytest.mark.parametrize("name", ["b5x16_p64", "b4x16", "b8x16", "e2m1", "b6x16_p64", ""])
def test_unknown_decompression(catalog: Catalog, name: str) -> None:
    with pytest.raises(TmemvizError, match=r"decompression format.*b4x16_p64.*b6x16_p32"):
        make_copy(catalog.get(CP, "128x128b"), decompress=name)


@pytest.mark.parametrize("fmt", FORMATS)
def test_decompression_spellings(catalog: Catalog, fmt: str) -> None:
    for spelled in (fmt, f".{fmt}", f"b8x16.{fmt}", f".b8x16.{fmt}", fmt.upper()):
        cp = resolve_copy(catalog, "128x128b", decompress=spelled)
        assert cp.mnemonic == mnemonic("128x128b", None, 1, fmt)


@pytest.mark.parametrize(
    "line",
    [
        "tcgen05.cp.cta_group::1.128x128b.b8x16 [t], d;",
        "tcgen05.cp.cta_group::1.128x128b.b4x16_p64 [t], d;",
        "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13.b6x16_p32 [t], d;",
        "32x128b.warpx4.b8x16",
    ],
)
def test_unpaired_formats_are_refused(catalog: Catalog, line: str) -> None:
    with pytest.raises(TmemvizError, match=r"\.dst_fmt and \.src_fmt come as a pair"):
        resolve_copy(catalog, line)


# --------------------------------------------------------------------------- spellings


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_ptx_line_round_trip(catalog: Catalog, cpc: Combo) -> None:
    shape, multicast, group, fmt = cpc
    cp = build(catalog, cpc)
    for text in (cp.statement(), cp.statement("%r1", "%rd2"), cp.mnemonic, cp.mnemonic.upper()):
        again = resolve_copy(catalog, text)
        assert again.mnemonic == cp.mnemonic
    # The dotted spelling plus options.
    dotted = resolve_copy(catalog, cp.qualifiers, cta_group=str(group))
    assert dotted.mnemonic == cp.mnemonic
    # Options alone.
    opts = resolve_copy(catalog, f".{shape}", multicast=multicast, cta_group=str(group), decompress=fmt)
    assert opts.mnemonic == cp.mnemonic
    spelled = parse_cp_spelling(catalog, cp.statement())
    assert (spelled.shape, spelled.multicast, spelled.cta_group, spelled.decompress) == (
        shape,
        multicast,
        group,
        fmt,
    )


@pytest.mark.parametrize("atom", sorted(CUTLASS))
def test_cutlass_names(catalog: Catalog, atom: str) -> None:
    shape, multicast = CUTLASS[atom]
    for spelled, group in ((atom, 1), (f"{atom}_1cta", 1), (f"{atom}_2cta", 2), (atom.lower() + "_2cta", 2)):
        cp = resolve_copy(catalog, spelled)
        assert cp.mnemonic == mnemonic(shape, multicast, group, None)
        assert cp.placement.cutlass == atom
    bare = atom.removeprefix("SM100_UTCCP_")
    assert resolve_copy(catalog, bare).mnemonic == mnemonic(shape, multicast, 1, None)
    found = find_cutlass_copy(catalog, atom)
    assert found is not None and found[0].name == shape and found[1].multicast == multicast
    # An atom fixes the CTA group: repeating it is fine, contradicting it is an error.
    assert resolve_copy(catalog, f"{atom}_2cta", cta_group="2").cta_group == 2
    with pytest.raises(TmemvizError, match=r"--cta-group"):
        resolve_copy(catalog, f"{atom}_2cta", cta_group="1")
    with pytest.raises(TmemvizError, match=r"--cta-group"):
        resolve_copy(catalog, f"{atom}_1cta", cta_group="2")
    # Decompression is not part of an atom name; the option adds it.
    assert resolve_copy(catalog, atom, decompress="b4x16_p64").decompress is not None
    # The atom fixes the multicast.
    if multicast is not None:
        assert resolve_copy(catalog, atom, multicast=multicast).multicast == multicast
        other = next(m for m in ALL_MULTICASTS if m != multicast)
        with pytest.raises(TmemvizError, match=r"--multicast"):
            resolve_copy(catalog, atom, multicast=other)


def test_conflicting_options_and_spellings(catalog: Catalog) -> None:
    with pytest.raises(
        TmemvizError, match=r"the shape says warpx2::02_13 but --multicast says warpx2::01_23"
    ):
        resolve_copy(catalog, "64x128b.warpx2::02_13", multicast="warpx2::01_23")
    with pytest.raises(TmemvizError, match=r"--cta-group"):
        resolve_copy(catalog, "tcgen05.cp.cta_group::1.128x256b [t], d;", cta_group="2")
    with pytest.raises(TmemvizError, match=r"--decompress"):
        resolve_copy(catalog, "128x128b.b8x16.b4x16_p64", decompress="b6x16_p32")
    with pytest.raises(TmemvizError, match=r"--multicast"):
        resolve_copy(catalog, "tcgen05.cp.cta_group::1.32x128b.warpx4 [t], d;", multicast="warpx2::01_23")
    # Repeating the spelling is fine, in any spelling.
    cp = resolve_copy(
        catalog,
        "tcgen05.cp.cta_group::2.64x128b.warpx2::01_23.b8x16.b6x16_p32 [t], d;",
        multicast=".warpx2::01_23",
        cta_group="cta_group::2",
        decompress="b8x16.b6x16_p32",
    )
    assert cp.mnemonic == mnemonic("64x128b", "warpx2::01_23", 2, "b6x16_p32")


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("", r"empty"),
        ("   ", r"empty"),
        ("tcgen05.cp", r"names no tcgen05.cp shape"),
        ("tcgen05.ld.sync.aligned.16x256b.x1.b32 {r0}, [t];", r"not a tcgen05.cp.*tmemviz layout"),
        ("16x256b", r"unknown tcgen05.cp shape '16x256b'.*tmemviz layout"),
        ("96x128b", r"unknown tcgen05.cp shape '96x128b'.*128x256b"),
        ("64x128b.warpx2::01_23.warpx2::02_13", r"two .multicast"),
        ("128x128b.b8x16.b4x16_p64.b6x16_p32", r"two \.src_fmt qualifiers"),
        ("128x256b.x4", r"'.x4' is not a qualifier of tcgen05.cp"),
        ("128x256b.128x128b", r"not a qualifier"),
        ("SM100_UTCCP_128dp256bit_3cta", r"unknown tcgen05.cp shape"),
        ("SM100_UTCCP_64dp256bit", r"unknown tcgen05.cp shape"),
        ("128x256b.warpx4", r"takes no .multicast"),
        ("64x128b", r"requires"),
        ("32x128b.warpx2::02_13", r"requires .warpx4"),
    ],
)
def test_bad_spellings(catalog: Catalog, text: str, pattern: str) -> None:
    with pytest.raises(TmemvizError, match=pattern):
        resolve_copy(catalog, text)


def test_resolve_copy_taddr(catalog: Catalog) -> None:
    cp = resolve_copy(catalog, "4x256b", taddr="0x00050010")
    assert cp.taddr == (5, 16)
    assert set(as_tuples(mapper_cp.landings(cp))) == landings("4x256b", None, 1, (5, 16))
    assert resolve_copy(catalog, "4x256b", taddr="31,504").taddr == (31, 504)
    for bad in ("32,0", "0,505", "0x00200000"):
        with pytest.raises(TmemvizError, match=r"taddr"):
            resolve_copy(catalog, "4x256b", taddr=bad)


@pytest.mark.parametrize("multicast", ["warpx4", ".warpx4", "WARPX4", " warpx4 "])
def test_multicast_spellings(catalog: Catalog, multicast: str) -> None:
    assert make_copy(catalog.get(CP, "32x128b"), multicast).multicast == "warpx4"


@pytest.mark.parametrize("multicast", [None, "none", "", ".none"])
def test_no_multicast_spellings(catalog: Catalog, multicast: str | None) -> None:
    assert make_copy(catalog.get(CP, "128x256b"), multicast).multicast is None


# --------------------------------------------------------------------------- known bugs


def test_two_cta_groups_in_one_line_are_refused(catalog: Catalog) -> None:
    with pytest.raises(TmemvizError):
        resolve_copy(catalog, "tcgen05.cp.cta_group::1.cta_group::2.128x256b [t], d;")


def test_repeated_dst_fmt_is_refused(catalog: Catalog) -> None:
    with pytest.raises(TmemvizError):
        resolve_copy(catalog, "tcgen05.cp.cta_group::1.128x128b.b8x16.b8x16.b4x16_p64 [t], d;")


def test_ptx_line_without_cta_group_is_refused(catalog: Catalog) -> None:
    with pytest.raises(TmemvizError, match=r"cta_group"):
        resolve_copy(catalog, "tcgen05.cp.128x256b [t], d;")


def test_formats_out_of_order_are_refused(catalog: Catalog) -> None:
    with pytest.raises(TmemvizError):
        resolve_copy(catalog, "tcgen05.cp.cta_group::1.128x128b.b4x16_p64.b8x16 [t], d;")
