"""Every PTX line a tile prints assembles with NVIDIA's ptxas (``[taddr+imm]`` addresses included)."""

from __future__ import annotations

from pathlib import Path

from ptxas_run import assemble_lines

from tmemviz.catalog import Catalog
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.tile.answers import statement
from tmemviz.families.tile.layout import make_tile

HEADER = """\
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u32 p)
{
  .reg .b32 r<300>;
  .reg .b32 taddr;
  ld.param.u32 taddr, [p];
"""


def test_tile_statements_assemble(ptxas: str, tmp_path: Path, catalog: Catalog) -> None:
    statements: set[str] = set()
    for shape in ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"):
        for warps in (4, 8):
            for dtype, storage in (("f32", None), ("bf16", "packed"), ("f16", "unpacked")):
                tile = make_tile(
                    catalog.get(LDST, shape), 128, warps=warps, dtype=dtype, storage=storage, num=2
                )
                statements.update(statement(tile, i) for i in tile.issued)
    ordered = sorted(statements)
    head = HEADER.splitlines()
    where = {len(head) + 1 + i: s for i, s in enumerate(ordered)}
    lines = head + [f"  {s}" for s in ordered] + ["  ret;", "}"]
    status, rejected = assemble_lines(ptxas, tmp_path, lines, where)
    assert not rejected, rejected
    assert status == 0
    assert any("[taddr+0x00700000]" in s for s in ordered) and any(", 64;" in s for s in ordered)


def test_every_data_path_layout_statements_assemble(ptxas: str, tmp_path: Path, catalog: Catalog) -> None:
    """Layouts A-G (lane offsets 0 and 16 for C/F), each shape that can load them, default .num."""
    statements: set[str] = set()
    layouts = [
        (256, 2, False, False, 0),
        (128, 2, False, False, 0),
        (128, 2, False, True, 16),
        (64, 1, True, False, 0),
        (64, 1, False, False, 16),
        (64, 1, False, False, 0),
        (32, 1, True, False, 0),
    ]
    for m, cta_group, ws, sparse, offset in layouts:
        for shape in ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"):
            if (offset or (m == 64 and not ws) or sparse) and shape == "32x32b":
                continue  # half the data path: refused, see tests/tile/test_layouts_a_to_g.py
            for warps in (4, 8):
                tile = make_tile(
                    catalog.get(LDST, shape),
                    128,
                    m=m,
                    cta_group=cta_group,
                    ws=ws,
                    sparse=sparse,
                    lane_offset=offset,
                    warps=warps,
                )
                statements.update(statement(tile, i) for i in tile.issued)
    ordered = sorted(statements)
    head = HEADER.splitlines()
    where = {len(head) + 1 + i: s for i, s in enumerate(ordered)}
    lines = head + [f"  {s}" for s in ordered] + ["  ret;", "}"]
    status, rejected = assemble_lines(ptxas, tmp_path, lines, where)
    assert not rejected, rejected
    assert status == 0
