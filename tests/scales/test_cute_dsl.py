"""Cross-check against NVIDIA CuTe DSL: every scale factor's shared-memory byte and TMEM bytes.

``cute_dsl_layouts.txt`` holds the layouts CuTe DSL printed (how it was produced is written at its
top); this file evaluates them (a CuTe layout maps a coordinate to the sum of its flattened
coordinates times their strides) and compares with :mod:`tmemviz.families.scales.layout` for every
scale factor of every recorded case.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tmemviz.catalog import Catalog
from tmemviz.families.scales import layout
from tmemviz.families.scales.spelling import resolve_scales

FIXTURE = Path(__file__).with_name("cute_dsl_layouts.txt")
CASE = re.compile(r"CASE ab=(\w+) vec=(\d+) cta_group=(\d) m=(\d+) n=(\d+) k=(\d+) mma_k=(\d+)")
LANE = 262144
"""TMEM address step of one lane for 8-bit values in CuTe DSL's printing."""


def parse(text: str) -> tuple[object, object]:
    shape, stride = text.split(":")
    return ast.literal_eval(shape.strip()), ast.literal_eval(stride.strip())


def flat(t: object) -> list[int]:
    return [x for s in t for x in flat(s)] if isinstance(t, tuple) else [t]  # type: ignore[union-attr]


def offset(index: int, shape: object, stride: object) -> int:
    """A 1-D index into a (nested) mode: colexicographic coordinates times strides."""
    total = 0
    for size, step in zip(flat(shape), flat(stride), strict=True):
        total += (index % size) * step
        index //= size
    assert index == 0, "index beyond the mode"
    return total


def cases() -> list[tuple[dict[str, int | str], dict[str, tuple[object, object]]]]:
    out = []
    current: dict[str, tuple[object, object]] = {}
    for line in FIXTURE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = CASE.match(line)
        if m:
            ab, vec, cg, mm, n, k, mma_k = m.groups()
            current = {}
            out.append(
                (
                    {
                        "ab": ab,
                        "vec": int(vec),
                        "cg": int(cg),
                        "m": int(mm),
                        "n": int(n),
                        "k": int(k),
                        "mma_k": int(mma_k),
                    },
                    current,
                )
            )
        else:
            name, text = line.split(" ", 1)
            current[name] = parse(text)
    return out


CASES = cases()


def kind_of(case: dict[str, int | str]) -> str:
    if case["ab"] == "Float8E4M3FN":
        return "mxf8f6f4"
    return "mxf4" if case["vec"] == 32 else "mxf4nvf4"


def test_fixture_has_both_cta_groups_and_vector_sizes() -> None:
    assert {c["cg"] for c, _ in CASES} == {1, 2}
    assert {c["vec"] for c, _ in CASES} == {16, 32}
    assert len(CASES) >= 10


@pytest.mark.parametrize("index", range(len(CASES)))
@pytest.mark.parametrize("operand", ["A", "B"])
def test_smem_and_tmem_match_cute_dsl(catalog: Catalog, index: int, operand: str) -> None:
    case, printed = CASES[index]
    extent = {"m": case["m"]} if operand == "A" else {"n": case["n"]}
    s = resolve_scales(
        catalog,
        operand=operand,
        sf_vec=case["vec"],
        k=int(case["k"]),
        cta_group=case["cg"],
        kind=kind_of(case),
        **extent,  # type: ignore[arg-type]
    )
    assert s.mma_k == case["mma_k"]
    (rows_s, kin_s), mm_s, mk_s = printed[f"SMEM_SF{operand}"][0]  # type: ignore[misc]
    (rows_d, kin_d), _, mk_d = printed[f"SMEM_SF{operand}"][1]  # type: ignore[misc]
    (trows_s, tkin_s), _, tmk_s = printed[f"TMEM_SF{operand}"][0]  # type: ignore[misc]
    (trows_d, tkin_d), _, tmk_d = printed[f"TMEM_SF{operand}"][1]  # type: ignore[misc]
    assert flat(mm_s) == [1], "one MMA per CTA along M/N in every recorded case"
    mma_k = int(case["mma_k"])
    for row in range(s.rows):
        for kb in range(s.kblocks):
            k = kb * s.sf_vec
            mma, k_in = divmod(k, mma_k)
            want_smem = offset(row, rows_s, rows_d) + offset(k_in, kin_s, kin_d) + offset(mma, mk_s, mk_d)
            base = (
                offset(row, trows_s[0], trows_d[0]) + offset(k_in, tkin_s, tkin_d) + offset(mma, tmk_s, tmk_d)
            )
            reps = {base + offset(r, trows_s[1], trows_d[1]) for r in range(flat(trows_s[1])[0])}
            want_tmem = {(a // LANE, (a % LANE) // 4, a % 4) for a in reps}
            for cta in s.owners:
                global_row = row + (cta * s.rows if operand == "A" else 0)
                assert layout.smem_byte(s, global_row, kb) == want_smem, (row, kb)
                got = {(x.lane, x.col, x.byte) for x in layout.landings(s, global_row, kb) if x.cta == cta}
                assert got == want_tmem, (cta, row, kb)
