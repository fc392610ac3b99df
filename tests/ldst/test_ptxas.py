"""tmemviz's PTX Table 49/50 data checked against NVIDIA's assembler.

Every statement tmemviz prints for a legal (shape, .num, pack, op) must assemble
for sm_100a; every .num tmemviz refuses (the NA entries of Table 49/50, and
non-.num values) and every wrong vector size must be refused by ptxas too.
Statements are batched into a few files; ptxas reports each bad line by number,
so one call checks many statements.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from ldst.oracle import NUMS, SHAPES, access_width, combinations
from ptxas_run import assemble_lines

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import Instruction, make_instruction
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.ldst.spelling import resolve

Build = Callable[..., Instruction]

HEADER = """\
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u32 p)
{
  .reg .b32 r<300>;
  .reg .b32 ta;
  ld.param.u32 ta, [p];
"""
FOOTER = "  ret;\n}\n"


def assemble(ptxas: str, directory: Path, statements: list[str]) -> tuple[int, dict[str, str]]:
    """Assemble the statements in one kernel; return ptxas's status and the rejected statements.

    The result maps each rejected statement to ptxas's message for its line.
    """
    head = HEADER.splitlines()
    where = {len(head) + 1 + i: s for i, s in enumerate(statements)}
    lines = head + [f"  {s}" for s in statements] + FOOTER.splitlines()
    return assemble_lines(ptxas, directory, lines, where)


def vector(count: int) -> str:
    return "{" + ", ".join(f"r{i}" for i in range(count)) + "}"


def hand_statement(op: str, qualifiers: str, count: int, split: int | None) -> str:
    """A tcgen05.ld/st statement written without tmemviz (PTX 9.7.16.8.3 / 9.7.16.8.4 syntax)."""
    address = "[ta]" if split is None else f"[ta], {split}"
    if op == "ld":
        return f"tcgen05.ld.sync.aligned.{qualifiers}.b32 {vector(count)}, {address};"
    return f"tcgen05.st.sync.aligned.{qualifiers}.b32 {address}, {vector(count)};"


def legal_statements(build: Build) -> list[str]:
    out = []
    for name, num, pack in combinations():
        for op in ("ld", "st"):
            out.append(build(name, num, pack, op=op).statement("ta"))
    # .16x32bx2 with explicit immHalfSplitoff values, overlapping ones for ld only.
    for num in (1, 4, 32, 128):
        for pack in (False, True):
            width = access_width("16x32bx2", num, pack)
            offsets = {0, 1, width - 1, width, width + 5, 512 - width}
            for s in sorted(x for x in offsets if x + width <= 512):
                for op in ("ld", "st"):
                    if op == "st" and s < width:
                        continue
                    out.append(build("16x32bx2", num, pack, op=op, split_offset=s).statement("ta"))
    return out


def test_ptxas_accepts_every_statement_tmemviz_prints(ptxas: str, build: Build, tmp_path: Path) -> None:
    statements = legal_statements(build)
    assert len(statements) > 148  # 74 combinations x ld/st, plus the split offsets
    status, rejected = assemble(ptxas, tmp_path, statements)
    assert rejected == {}
    assert status == 0


def test_ptxas_agrees_with_tmemviz_on_every_num(ptxas: str, catalog: Catalog, tmp_path: Path) -> None:
    """For each shape and each .num (and x256), tmemviz accepts iff ptxas accepts (Table 49/50)."""
    accepted: list[str] = []
    refused: list[str] = []
    for name in sorted(SHAPES):
        shape = catalog.get(LDST, name)
        for num in (*NUMS, 256):
            for op in ("ld", "st"):
                for pack in (False, True):
                    try:
                        ins = make_instruction(shape, num, pack=pack, op=op)
                    except TmemvizError:
                        qualifiers = f"{name}.x{num}" + (
                            (".pack::16b" if op == "ld" else ".unpack::16b") * pack
                        )
                        split = 2 * num if SHAPES[name].split else None
                        refused.append(hand_statement(op, qualifiers, SHAPES[name].regs * num, split))
                    else:
                        accepted.append(ins.statement("ta"))
    # Table 49: NA for 16x128b.x128, 16x256b.x64, 16x256b.x128, plus x256 for all five shapes,
    # each for ld/st x unpacked/packed.
    assert len(refused) == (3 + 5) * 4
    assert len(accepted) == 74 * 2
    _, rejected = assemble(ptxas, tmp_path, accepted + refused)
    assert sorted(rejected) == sorted(refused)


def test_ptxas_rejects_wrong_vector_sizes(ptxas: str, catalog: Catalog, tmp_path: Path) -> None:
    """One register too few or too many is refused by ptxas and by tmemviz's parser alike."""
    wrong: list[str] = []
    for name, num, pack in combinations():
        fact = SHAPES[name]
        count = fact.regs * num  # Table 49: R x num
        split = (2 * num if pack else num) if fact.split else None
        for op in ("ld", "st"):
            qualifiers = f"{name}.x{num}" + ((".pack::16b" if op == "ld" else ".unpack::16b") * pack)
            for bad in (count - 1, count + 1):
                if bad < 1:
                    continue
                statement = hand_statement(op, qualifiers, bad, split)
                wrong.append(statement)
                with pytest.raises(TmemvizError):
                    resolve(catalog, statement)
            # The right count passes tmemviz's parser (and is in the accepted batch above).
            ins = resolve(catalog, hand_statement(op, qualifiers, count, split))
            assert ins.registers_per_thread == count
    status, rejected = assemble(ptxas, tmp_path, wrong)
    assert status != 0
    assert sorted(rejected) == sorted(wrong)


def test_ptxas_rejects_misplaced_operands_and_qualifiers(ptxas: str, tmp_path: Path) -> None:
    """The syntax rules tmemviz's statement() relies on (PTX 9.7.16.8.3 / 9.7.16.8.4)."""
    bad = [
        "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {r0}, [ta];",  # .shape2 needs immHalfSplitoff
        "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [ta], {r0};",
        "tcgen05.ld.sync.aligned.16x64b.x1.b32 {r0}, [ta], 4;",  # .shape1 takes none
        "tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [ta], {r0};",  # pack is ld-only
        "tcgen05.ld.sync.aligned.32x32b.x1.unpack::16b.b32 {r0}, [ta];",  # unpack is st-only
    ]
    good = [
        "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {r0}, [ta], 1;",
        "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [ta], 1, {r0};",
        "tcgen05.ld.sync.aligned.16x64b.x1.b32 {r0}, [ta];",
    ]
    _, rejected = assemble(ptxas, tmp_path, good + bad)
    assert sorted(rejected) == sorted(bad)
