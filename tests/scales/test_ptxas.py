"""Every tcgen05.cp and tcgen05.mma line ``tmemviz scales`` prints assembles with NVIDIA's ptxas."""

from __future__ import annotations

from pathlib import Path

import pytest
from ptxas_run import assemble_lines

from tmemviz.catalog import Catalog
from tmemviz.families.scales import answers, layout
from tmemviz.families.scales.spelling import mma_statement, resolve_scales

HEADER = """\
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u32 p0, .param .u64 p1)
{
  .reg .b32 taddr, d_tmem, idesc, sfa_tmem, sfb_tmem;
  .reg .b64 sdesc, a_desc, b_desc;
  .reg .pred p;
  ld.param.u32 taddr, [p0];
  ld.param.u64 sdesc, [p1];
  mov.b32 d_tmem, taddr;
  mov.b32 idesc, taddr;
  mov.b32 sfa_tmem, taddr;
  mov.b32 sfb_tmem, taddr;
  mov.b64 a_desc, sdesc;
  mov.b64 b_desc, sdesc;
  setp.ne.b32 p, taddr, 0;
"""

CASES = [
    (operand, vec, kind, group, extent, k)
    for group in (1, 2)
    for operand, extent in (("A", 128 * group), ("B", 256), ("B", 64))
    for vec, kind, k in (
        (32, "mxf8f6f4", 256),
        (32, "mxf4", 256),
        (32, "mxf4nvf4", 128),
        (16, "mxf4nvf4", 512),
    )
]


@pytest.mark.parametrize("group", [1, 2])
def test_scales_statements_assemble(ptxas: str, tmp_path: Path, catalog: Catalog, group: int) -> None:
    """One kernel per CTA group: ptxas refuses a function that mixes .cta_group::1 and ::2."""
    statements: set[str] = set()
    for operand, vec, kind, cg, extent, k in CASES:
        if cg != group:
            continue
        given = {"m": extent} if operand == "A" else {"n": extent}
        s = resolve_scales(catalog, operand=operand, sf_vec=vec, k=k, cta_group=cg, kind=kind, **given)
        statements.update(answers.copy_statement(tr) for tr in layout.transfers(s))
        statements.add(mma_statement(s))
    ordered = sorted(statements)
    head = HEADER.splitlines()
    where = {len(head) + 1 + i: s for i, s in enumerate(ordered)}
    lines = head + [f"  {s}" for s in ordered] + ["  ret;", "}"]
    status, rejected = assemble_lines(ptxas, tmp_path, lines, where)
    assert not rejected, rejected
    assert status == 0
    assert any(f"cta_group::{group}.32x128b.warpx4 [taddr+28]" in s for s in ordered)
    assert sum(".block_scale.scale_vec::" in s for s in ordered) == 4


def test_ptxas_agrees_on_which_kind_takes_which_scale_vec(ptxas: str, tmp_path: Path) -> None:
    """The legal (kind, .scale_vec) pairs tmemviz accepts are exactly those ptxas assembles."""
    from tmemviz.families.scales.layout import MMA_K, SF_VECS

    ours = {(kind, f"{MMA_K[kind] // vec}X") for kind, vecs in SF_VECS.items() for vec in vecs}
    for kind in MMA_K:
        for x in ("1X", "2X", "4X"):
            statement = (
                f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale.scale_vec::{x} "
                "[d_tmem], a_desc, b_desc, idesc, [sfa_tmem], [sfb_tmem], p;"
            )
            head = HEADER.splitlines()
            lines = [*head, f"  {statement}", "  ret;", "}"]
            status, rejected = assemble_lines(ptxas, tmp_path, lines, {len(head) + 1: statement})
            assert ((kind, x) in ours) == (status == 0 and not rejected), (kind, x, rejected)
