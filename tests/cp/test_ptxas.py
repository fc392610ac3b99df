"""tcgen05.cp legality checked against NVIDIA's assembler.

For every shape x {no multicast, the three multicasts} x {.cta_group::1, ::2} x
{no decompression, the two formats}, tmemviz must accept exactly what ptxas
assembles for sm_100a. Statements tmemviz accepts are printed by tmemviz
(``Copy.statement``); the ones it refuses are written here from the PTX syntax.
All statements go into one file (one kernel per CTA group, since all tcgen05
instructions of a kernel use the same ``.cta_group``); ptxas reports each bad
line by number.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from cp.oracle import ALL_MULTICASTS, CTA_GROUPS, DECOMPRESS, SHAPES, legal, mnemonic
from ptxas_run import assemble_lines

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.cp.layout import make_copy
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.cp.spelling import resolve_copy

PROLOGUE = """\
.version 8.8
.target sm_100a
.address_size 64
"""


def assemble(ptxas: str, directory: Path, kernels: list[list[str]]) -> tuple[int, dict[str, str]]:
    """Assemble each statement list as one kernel; return the status and {rejected statement: message}."""
    lines = PROLOGUE.splitlines()
    where: dict[int, str] = {}
    for k, statements in enumerate(kernels):
        lines += [f".visible .entry k{k}(.param .u32 p)", "{", "  .reg .b32 t;", "  .reg .b64 d;"]
        lines += ["  ld.param.u32 t, [p];", "  mov.b64 d, 0;"]
        for s in statements:
            lines.append(f"  {s}")
            where[len(lines)] = s
        lines += ["  ret;", "}"]
    return assemble_lines(ptxas, directory, lines, where)


def hand_statement(shape: str, multicast: str | None, group: int, fmt: str | None) -> str:
    """tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc; (PTX 9.7.16.9.2)."""
    return f"{mnemonic(shape, multicast, group, fmt)} [t], d;"


CROSS = list(itertools.product(sorted(SHAPES), (None, *ALL_MULTICASTS), CTA_GROUPS, DECOMPRESS))


def test_cross_product_size() -> None:
    assert len(CROSS) == 5 * 4 * 2 * 3


def test_tmemviz_accepts_exactly_what_ptxas_accepts(ptxas: str, catalog: Catalog, tmp_path: Path) -> None:
    accepted: dict[int, list[str]] = {1: [], 2: []}
    refused: dict[int, list[str]] = {1: [], 2: []}
    for shape, multicast, group, fmt in CROSS:
        try:
            cp = make_copy(catalog.get(CP, shape), multicast, group, fmt)
        except TmemvizError:
            refused[group].append(hand_statement(shape, multicast, group, fmt))
        else:
            statement = cp.statement("t", "d")
            # What tmemviz prints is the PTX syntax, and tmemviz reads it back unchanged.
            assert statement == hand_statement(shape, multicast, group, fmt)
            assert resolve_copy(catalog, statement).mnemonic == cp.mnemonic
            accepted[group].append(statement)
    # 6 legal (shape, multicast) pairs; every shape takes both formats and both CTA groups.
    assert sum(map(len, accepted.values())) == 6 * 2 * 3
    assert sum(map(len, refused.values())) == (20 - 6) * 2 * 3
    status, rejected = assemble(ptxas, tmp_path, [accepted[1] + refused[1], accepted[2] + refused[2]])
    assert status != 0
    assert sorted(rejected) == sorted(refused[1] + refused[2])
    # And the oracle's legality agrees with both.
    for shape, multicast, group, fmt in CROSS:
        statement = hand_statement(shape, multicast, group, fmt)
        assert (statement not in rejected) == legal(shape, multicast)


def test_ptxas_accepts_every_statement_tmemviz_prints(ptxas: str, catalog: Catalog, tmp_path: Path) -> None:
    kernels: dict[int, list[str]] = {1: [], 2: []}
    for shape in catalog.shapes(CP):
        for placement in shape.placements:
            for group in CTA_GROUPS:
                for fmt in DECOMPRESS:
                    cp = make_copy(shape, placement.multicast, group, fmt)
                    kernels[group].append(cp.statement("t", "d"))
    assert len(kernels[1]) == len(kernels[2]) == 18
    status, rejected = assemble(ptxas, tmp_path, [kernels[1], kernels[2]])
    assert rejected == {}
    assert status == 0


def test_ptxas_refuses_what_the_parser_refuses(ptxas: str, catalog: Catalog, tmp_path: Path) -> None:
    """Malformed lines tmemviz's parser rejects are malformed for ptxas too."""
    bad = [
        "tcgen05.cp.cta_group::1.128x128b.b8x16 [t], d;",  # .dst_fmt without .src_fmt
        "tcgen05.cp.cta_group::1.128x128b.b4x16_p64 [t], d;",  # .src_fmt without .dst_fmt
        "tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64.b6x16_p32 [t], d;",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.warpx2::02_13 [t], d;",
        "tcgen05.cp.cta_group::3.128x256b [t], d;",
        "tcgen05.cp.cta_group::1.96x128b [t], d;",  # a syntax error (fatal for ptxas): keep it last
    ]
    for line in bad:
        with pytest.raises(TmemvizError):
            resolve_copy(catalog, line)
    _, rejected = assemble(ptxas, tmp_path, [bad])
    assert sorted(rejected) == sorted(bad)


LENIENT = [
    "tcgen05.cp.128x256b [t], d;",
    "tcgen05.cp.cta_group::1.128x128b.b4x16_p64.b8x16 [t], d;",
    "tcgen05.cp.cta_group::1.cta_group::2.128x256b [t], d;",
    "tcgen05.cp.cta_group::1.128x128b.b8x16.b8x16.b4x16_p64 [t], d;",
]


def test_ptxas_refuses_the_lines_tmemviz_reads_leniently(ptxas: str, tmp_path: Path) -> None:
    """The PTX lines of the xfail tests in test_cp.py: ptxas refuses each of them.

    No .cta_group, the .src_fmt before .dst_fmt, two .cta_group qualifiers, .b8x16 twice.
    """
    _, rejected = assemble(ptxas, tmp_path, [LENIENT])
    assert sorted(rejected) == sorted(LENIENT)
