"""Data-path layouts in a terminal: the table of A-G, and one layout's warps and regions.

Plain data (:mod:`tmemviz.draw.table` views); sentences and records live in
:mod:`tmemviz.families.datapath.answers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from tmemviz.draw.table import BOLD, ITALIC, Column, Styled, Table, View
from tmemviz.families.datapath.answers import Organization, mma_text, placement_text
from tmemviz.families.datapath.shapes import DataPath


def compact_n(values: tuple[int, ...]) -> str:
    """``16..256/16`` for an arithmetic run, else the values.

    >>> compact_n((8, 16, 24)), compact_n((64, 128, 256))
    ('8..24/8', '64, 128, 256')
    """
    step = values[1] - values[0] if len(values) > 1 else 0
    if len(values) > 2 and all(b - a == step for a, b in pairwise(values)):
        return f"{values[0]}..{values[-1]}/{step}"
    return ", ".join(map(str, values))


def table_view(paths: Sequence[DataPath]) -> View:
    """The seven rows of PTX 9.7.16.10.5, with how each places D and its figures."""
    columns = (
        Column("", justify="center", style=BOLD),
        Column("M", justify="right"),
        Column("CTAs", justify="center"),
        Column("A"),
        Column(".ws", justify="center"),
        Column("org", justify="center"),
        Column("lanes", justify="right"),
        Column("align", justify="center"),
        Column("legal N", no_wrap=True),
        Column("figures", no_wrap=True),
    )
    rows = tuple(
        (
            p.name,
            str(p.m),
            str(p.cta_group),
            "any" if p.sparsity == "either" else p.sparsity,
            {"yes": "yes", "no": "no", "either": "any"}[p.ws] if p.cta_group == 1 else "n/a",
            p.organization,
            str(p.lanes_used),
            "/".join(map(str, p.lane_offsets)),
            compact_n(p.n_values) + ("*" if p.n_ws else ""),
            "-".join(map(str, (p.figures[0], p.figures[-1]))) if p.figures else "",
        )
        for p in paths
    )
    return (
        Table(columns, rows, title="tcgen05.mma data-path layouts (PTX ISA 9.7.16.10.5)", show_edge=False),
        Styled(
            "CTAs = .cta_group; A = the A operand's sparsity; org = organization as the PTX table prints "
            "it; lanes = TMEM lanes D uses in each CTA; align = D's lane alignment; legal N a..b/s = a "
            "multiple of s in a..b (* with .ws: 64, 128, 256); figures = PTX figures. With .cta_group::2 "
            "each CTA of the pair holds M/2 rows of D (all N columns) in its own Tensor Memory; 'tmemviz "
            "datapath LETTER' shows where D[m][n] lives and each warp's taddr",
            ITALIC,
        ),
    )


def organization_view(org: Organization) -> View:
    """One layout: the MMA, the placement, then one row per (CTA, warp) with its region and taddr."""
    path = org.path
    pair = ""
    if path.cta_group == 2:
        rows = path.rows
        pair = f"; CTA c of the pair holds rows {rows}c..{rows}c+{rows - 1} (r = m - {rows}c)"
    half = path.placement == "half"
    lines = [
        Styled(
            f"layout {path.name}: {mma_text(path)} "
            f"({path.organization}{', half the data path' if half else ''}), N={org.n}"
            + (f", lane offset {org.offset}" if half else ""),
            BOLD,
        ),
        Styled(f"D in each CTA's TMEM: {placement_text(path)}{pair}"),
    ]
    columns = (
        Column("CTA", justify="right"),
        Column("warp", justify="right", style=BOLD),
        Column("lanes", no_wrap=True),
        Column("rows m of D", no_wrap=True),
        Column("n of D", no_wrap=True),
        Column("TMEM columns", no_wrap=True),
        Column("taddr to use", no_wrap=True),
    )
    rows = tuple(
        (
            str(r.cta),
            str(r.warp),
            f"{r.lanes[0]}..{r.lanes[1]}",
            f"{r.rows[0]}..{r.rows[1]}",
            f"{r.ns[0]}..{r.ns[1]}",
            f"{r.columns[0]}..{r.columns[1]}",
            "taddr" if r.taddr_offset == 0 else f"taddr+0x{r.taddr_offset:08x}",
        )
        for r in org.regions
    )
    figures = " and ".join(map(str, path.figures))
    return (
        *lines,
        Table(columns, rows, show_edge=False),
        Styled(
            f"taddr = D's address (lane {org.offset if path.placement == 'half' else 0} of the taddr given "
            "to tcgen05.mma, column c0); the taddr column adds the warp's first lane << 16 (PTX 9.7.16.2); "
            f"warp w may read only lanes 32(w%4)..32(w%4)+31 (PTX 9.7.16.8.1); PTX figures {figures}",
            ITALIC,
        ),
    )
