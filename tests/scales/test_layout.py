"""Every scale factor lands in TMEM exactly as the copies put it; TMEM byte -> SF round trips; MMA reads.

The TMEM image here is built the way hardware builds it: each copy's 512-byte source chunk,
16 bytes per source row, placed by tmemviz's cp mapper (``tmemviz.families.cp.layout.row_landings``);
the shared-memory image from CUTLASS's chunk rule as mma-facts.md states it (row 32c + r of a
128-row tile at byte 16r + 4c of its chunk, block k at + k % 4).
"""

from __future__ import annotations

import itertools

import pytest

from tmemviz.catalog import Catalog
from tmemviz.families.cp.layout import row_landings
from tmemviz.families.scales import layout
from tmemviz.families.scales.spelling import resolve_scales

CONFIGS = [
    ("A", 32, None, 1, 128, 128),
    ("A", 32, "mxf4", 1, 128, 256),
    ("A", 16, None, 1, 128, 512),
    ("A", 32, None, 2, 256, 256),
    ("A", 16, None, 2, 256, 128),
    ("B", 32, None, 1, 128, 128),
    ("B", 32, None, 1, 64, 256),
    ("B", 16, None, 1, 192, 256),
    ("B", 16, None, 1, 256, 512),
    ("B", 32, "mxf4", 2, 256, 256),
    ("B", 16, None, 2, 48, 128),
]


def make(catalog: Catalog, operand: str, vec: int, kind: str | None, group: int, extent: int, k: int):
    given = {"m": extent} if operand == "A" else {"n": extent}
    return resolve_scales(catalog, operand=operand, sf_vec=vec, k=k, cta_group=group, kind=kind, **given)


def smem_image(s: layout.Scales, cta: int) -> dict[int, tuple[int, int]]:
    """Shared-memory byte -> (row, kblock) of CTA ``cta``, from the chunk rule and CuTe DSL's chunk order."""
    image = {}
    for row in s.cta_rows(cta):
        within = row - s.cta_rows(cta).start
        tile, r = divmod(within, 128)
        for kb in range(s.kblocks):
            chunk = kb // 4 + s.kchunks * tile
            image[512 * chunk + 16 * (r % 32) + 4 * (r // 32) + kb % 4] = (row, kb)
    return image


def tmem_image(s: layout.Scales) -> dict[tuple[int, int, int, int], tuple[int, int] | None]:
    """(cta, lane, col, byte) -> (row, kblock), executing every copy through the cp mapper."""
    image: dict[tuple[int, int, int, int], tuple[int, int] | None] = {}
    sources = {cta: smem_image(s, cta) for cta in s.owners}
    for tr in layout.transfers(s):
        for src_row in range(32):
            for word in range(4):
                for x in row_landings(tr.copy, src_row, word):
                    for byte in range(4):
                        key = (x.cta, x.lane, x.col, byte)
                        assert key not in image, f"two copies write {key}"
                        image[key] = sources[x.cta].get(tr.smem + 16 * src_row + 4 * word + byte)
    return image


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_every_scale_factor_lands_as_the_copies_put_it(catalog: Catalog, config) -> None:
    s = make(catalog, *config)
    image = tmem_image(s)
    expected: dict[tuple[int, int], set[tuple[int, int, int, int]]] = {}
    for key, sf in image.items():
        if sf is not None:
            expected.setdefault(sf, set()).add(key)
    rows = range(s.extent) if s.operand == "A" else range(s.rows)
    assert len(expected) == len(rows) * s.kblocks, "every scale factor is copied"
    for row, kb in itertools.product(rows, range(s.kblocks)):
        got = {(x.cta, x.lane, x.col, x.byte) for x in layout.landings(s, row, kb)}
        assert got == expected[(row, kb)], (row, kb)
        copies = 1 if s.operand == "A" else s.cta_group
        assert len(got) == 4 * copies and {lane // 32 for _, lane, _, _ in got} == {0, 1, 2, 3}
    # TMEM byte -> SF round trip over every byte the copies write (padding rows answer None).
    for (cta, lane, col, byte), sf in image.items():
        assert layout.source_of(s, lane, col, byte, cta) == sf


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_smem_bytes_are_a_bijection_onto_the_chunks(catalog: Catalog, config) -> None:
    s = make(catalog, *config)
    for cta in s.owners:
        seen = {layout.smem_byte(s, row, kb) for row in s.cta_rows(cta) for kb in range(s.kblocks)}
        assert len(seen) == len(s.cta_rows(cta)) * s.kblocks
        assert max(seen) < 512 * s.tiles * s.kchunks
        assert smem_image(s, cta) == {
            layout.smem_byte(s, row, kb): (row, kb) for row in s.cta_rows(cta) for kb in range(s.kblocks)
        }


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_each_mma_reads_its_blocks_at_its_column_and_sf_id(catalog: Catalog, config) -> None:
    """PTX 9.7.16.10.7: row r's scale factors sit in column (scale address) + r / 32, lane r % 32 of
    every subpartition; SF ID selects byte (1X), half-word (2X) or word (4X)."""
    s = make(catalog, *config)
    reads = layout.reads(s)
    assert len(reads) == s.k // s.mma_k
    assert [b for r in reads for b in r.kblocks] == list(range(s.kblocks))
    legal_ids = {1: {0, 1, 2, 3}, 2: {0, 2}, 4: {0}}[s.per_mma]
    for r in reads:
        assert r.sf_id in legal_ids
        for i, kb in enumerate(r.kblocks):
            for cta in s.owners:
                for within, row in enumerate(s.cta_rows(cta)):
                    spots = {(x.lane, x.col, x.byte) for x in layout.landings(s, row, kb) if x.cta == cta}
                    want = {(within % 32 + 32 * p, r.col + within // 32, r.sf_id + i) for p in range(4)}
                    assert spots == want, (r.index, row, kb)


SWEEP = [
    ("B", vec, kind, group, n, 4 * vec * chunks)
    for vec, kind in ((32, "mxf8f6f4"), (32, "mxf4"), (16, "mxf4nvf4"))
    for group in (1, 2)
    for n in range(16, 257, 16)
    for chunks in (
        (1, 2) if n in (16, 128, 256) else (1,)
    )  # a second chunk at the smallest, middle, widest N
] + [
    ("A", vec, kind, group, 128 * group, 4 * vec * 3)
    for vec, kind in ((32, None), (16, None))
    for group in (1, 2)
]


@pytest.mark.parametrize("config", SWEEP, ids=lambda c: "-".join(map(str, c)))
def test_sweep_every_legal_n(catalog: Catalog, config) -> None:
    """Every N the MMA takes (and A in both CTA groups): the copies put each scale factor where
    ``landings`` says, each TMEM byte names it back, and the MMA reads find it."""
    test_every_scale_factor_lands_as_the_copies_put_it(catalog, config)
    test_each_mma_reads_its_blocks_at_its_column_and_sf_id(catalog, config)
