"""tmemviz check on real kernels from three compilers: silent on each as built, and each seeded bug class
found, by its rule id, in at least 90% of the kernels it can be seeded into (tests/kernels/README.md
says how each kernel was made)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from check import checked
from check import mutations as mut
from check import mutations_flow as flow
from check.seeds import SEEDS

import tmemviz

KERNELS = Path(__file__).parents[1] / "kernels"
NOT_CORRECT = {
    "mma_forms.ptx": "one line per MMA form, no kernel",
    "cutlass_atoms.ptx": "a catalogue of CUTLASS atoms, never run: its block-scaled MMA writes D at +256 "
    "with N=256, columns 256..511 of a 256-column alloc (test_a_real_outside_allocation_is_found)",
}
CORRECT = sorted(p.name for p in KERNELS.glob("*.ptx") if p.name not in NOT_CORRECT)
"""Every kernel of the shared corpus that a compiler built as a working kernel."""
CONFIRMED: dict[str, list[tuple[str, str, int]]] = {
    # Its kernel constant_addresses, written for the SASS tests, uses Tensor Memory at constant addresses
    # with no tcgen05.alloc on purpose (tests/kernels/README.md): a true no-alloc.
    "sass_operands.ptx": [("no-alloc", "error", 91)],
}
"""Findings known to be true, per fixture (benchmarks/corpus-allowed.json lists those of the broad
corpus)."""

USED = {
    "triton_mma_epilogue.ptx": {0: 31},
    "triton_st_16x64b.ptx": {0: 15},
    "triton_ld_red_sm103a.ptx": {0: 15},
    "triton_mma_scaled.ptx": {0: 39},
    "nvcc_inline_asm.ptx": {0: 231},
    "check_triton_mma_n128.ptx": {0: 127},
    "check_triton_two_buffers.ptx": {0: 127},
    "check_cutlass_tmem.ptx": {0: 127, 1: 79},
    "check_cute_dsl_gemm.ptx": {0: 63},
    "check_cute_dsl_gemm_2cta.ptx": {0: 127},
    "cute_dsl_gemm.ptx": {0: 127},
    "cute_dsl_fmha.ptx": {0: 319},
}
"""The last TMEM column each alloc's kernel uses, from the kernel as written (accumulator N, copies)."""

CLASSES: dict[str, tuple[str, Callable[[str, str], str | None]]] = {
    "shrink the alloc": ("outside-allocation", lambda name, text: mut.shrink_alloc(USED.get(name, {}))(text)),
    **{bug: (rule, lambda name, text, seed=seed: seed(text)) for bug, (rule, seed) in SEEDS.items()},
}


def failing(text: str, name: str = "<text>") -> list[tuple[str, str, int]]:
    """The errors and warnings of check's reading of ``text`` (checked.deferred: what tmemviz check reads,
    shared with test_deferred, which checks many of the same seeded kernels)."""
    records, _, _ = checked.deferred(text)
    return [(r["rule"], r["severity"], r["line"]) for r in records if r["severity"] in ("error", "warning")]


@pytest.mark.parametrize("name", CORRECT)
def test_nothing_fires_on_correct_kernels(name: str) -> None:
    assert failing((KERNELS / name).read_text()) == CONFIRMED.get(name, [])


@pytest.mark.parametrize("bug", sorted(CLASSES))
def test_each_seeded_bug_is_found_by_its_rule(bug: str) -> None:
    rule, seed = CLASSES[bug]
    seeded, found, missed = 0, 0, []
    for name in CORRECT:
        text = (KERNELS / name).read_text()
        mutated = seed(name, text)
        if mutated is None:
            continue
        assert mutated != text
        seeded += 1
        if any(r == rule for r, _, _ in failing(mutated)):
            found += 1
        else:
            missed.append(name)
    assert seeded >= 3, f"{bug}: seeded into only {seeded} kernels"
    assert found >= 0.9 * seeded, f"{bug}: {rule} found {found}/{seeded}; missed in {missed}"


def test_a_load_in_the_next_warps_lanes_is_found_where_the_warps_are_known() -> None:
    """A load of the lanes 32 past a real one: in the kernels whose launch bounds say which warp each
    thread is in, found in at least 90% (without bounds, where the first load's lane offset is not one
    number per group of threads, warp-lanes does not judge it: docs/check.md)."""
    bounded = [n for n in CORRECT if re.search(r"\.(reqntid|maxntid)\b", (KERNELS / n).read_text())]
    seeded = [(n, flow.next_band((KERNELS / n).read_text())) for n in bounded]
    seeded = [(n, t) for n, t in seeded if t is not None]
    missed = [n for n, t in seeded if not any(r == "warp-lanes" for r, _, _ in failing(t))]
    assert len(seeded) >= 10 and len(missed) <= 0.1 * len(seeded), missed


def test_a_seeded_bug_is_not_reported_as_another() -> None:
    """The seeded kernel's errors and warnings are all of the seeded rule (or its consequences)."""
    text = (KERNELS / "check_triton_mma_n128.ptx").read_text()
    rules = {r for r, _, _ in failing(mut.consumer_target(text) or "")}
    assert rules == {"target"}
    rules = {r for r, _, _ in failing(mut.delete_dealloc(text) or "")}
    assert rules == {"never-freed"}


def test_a_real_outside_allocation_is_found() -> None:
    """The atoms catalogue allocates 256 columns and points a 128x256 block-scaled MMA at +256 (read
    through the Python API, as a user's path, where the other tests read text)."""
    (checked_file,) = tmemviz.check(KERNELS / "cutlass_atoms.ptx").subject
    found = [(f.rule, f.severity, f.line) for f in checked_file.findings if f.severity != "note"]
    assert found == [("outside-allocation", "error", 266)]
