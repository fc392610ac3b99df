"""The catalogue rules on real kernels (tests/kernels/README.md says how each was made): each bug class
seeded into every kernel it can be seeded into is found by its rule. That the kernels as built get no
error or warning from these rules is test_mutations.test_nothing_fires_on_correct_kernels, which asks it
of every rule over the same kernels. Seeds are applied at run time and never saved."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from check.test_mutations import CORRECT, KERNELS

import tmemviz

ALLOC = re.compile(r"^(\s*)(tcgen05\.alloc\.cta_group::([12])[\w:.]*\s*\[([^\]]+)\]\s*,\s*[^;]+;)", re.M)
LD = re.compile(r"^\s*(?:@!?%\w+\s+)?tcgen05\.ld\.[\w:.]*\s*\{([^}]*)\}", re.M)


def drop_cluster_waits(text: str) -> str | None:
    """Every barrier.cluster arrive and wait gone, in a kernel that frees a .cta_group::2 allocation."""
    if "tcgen05.dealloc.cta_group::2" not in text:
        return None
    kept = [line for line in text.splitlines(keepends=True) if "barrier.cluster." not in line]
    return "".join(kept)


def drop_allocs(text: str) -> str | None:
    """Every tcgen05.alloc (and the permit's release) gone: Tensor Memory used with none."""
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if "tcgen05.alloc" not in line and "relinquish_alloc_permit" not in line]
    return "".join(kept) if len(kept) < len(lines) else None


def second_alloc(text: str) -> str | None:
    """Right after the first alloc, another of 512 columns into the next word: more than an SM has."""
    m = ALLOC.search(text)
    if m is None:
        return None
    indent, group, place = m.group(1), m.group(3), m.group(4).strip()
    extra = f"\n{indent}tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32 [{place}+8], 512;"
    return text[: m.end()] + extra + text[m.end() :]


def small_budget(text: str) -> str | None:
    """setmaxnreg.dec to 24 (the least there is) just before the first load writing more registers."""
    for m in LD.finditer(text):
        if len([r for r in m.group(1).split(",") if r.strip()]) > 24:
            start = text.rfind("\n", 0, m.start()) + 1
            return text[:start] + "\tsetmaxnreg.dec.sync.aligned.u32 24;\n" + text[start:]
    return None


def drop_relinquish(text: str) -> str | None:
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if "relinquish_alloc_permit" not in line]
    return "".join(kept) if len(kept) < len(lines) else None


CLASSES: dict[str, tuple[str, str, Callable[[str], str | None]]] = {
    "no cluster barrier around a 2-CTA alloc/dealloc": ("pair-sync", "warning", drop_cluster_waits),
    "no tcgen05.alloc": ("no-alloc", "error", drop_allocs),
    "a second alloc past the capacity": ("capacity", "error", second_alloc),
    "setmaxnreg below a load's registers": ("ld-registers", "error", small_budget),
    "no relinquish_alloc_permit": ("relinquish", "note", drop_relinquish),
}


def findings(text: str) -> list[tuple[str, str, int]]:
    (checked,) = tmemviz.check(text=text).subject
    return [(f.rule, f.severity, f.line) for f in checked.findings]


@pytest.mark.parametrize("bug", sorted(CLASSES))
def test_each_seeded_class_is_found_by_its_rule(bug: str) -> None:
    rule, severity, seed = CLASSES[bug]
    seeded, missed = [], []
    for name in CORRECT:
        mutated = seed((KERNELS / name).read_text())
        if mutated is None:
            continue
        seeded.append(name)
        if not any(r == rule and s == severity for r, s, _ in findings(mutated)):
            missed.append(name)
    assert len(seeded) >= 2, f"{bug}: seeded into only {seeded}"
    assert not missed, f"{bug}: {rule} missed in {missed} (seeded into {seeded})"


def test_pair_sync_is_seeded_into_two_compilers_kernels() -> None:
    """CuTe DSL's 2-CTA GEMM, nvcc's CUTLASS kernels: at least two compilers."""
    seeded = {n for n in CORRECT if drop_cluster_waits((KERNELS / n).read_text()) is not None}
    assert {"check_cute_dsl_gemm_2cta.ptx", "cutlass_example70_gemm.ptx", "check_cutlass_tmem.ptx"} <= seeded


MMA = re.compile(r"tcgen05\.mma\.[\w:.]*\s*(\[[^\]]*\]|[^,]+),([^,]+),([^,]+),\s*(%\w+)")


def wide_n(text: str) -> str | None:
    """The first MMA whose idesc is one constant moved into its register gets N = 384 (bits 17-22)."""
    for m in MMA.finditer(text):
        reg = re.escape(m.group(4))
        found = list(re.finditer(rf"mov\.[bu]32\s+{reg}\s*,\s*(\d+)\s*;", text))
        if len(found) != 1:
            continue
        d = found[0]
        value = (int(d.group(1)) & ~(0x3F << 17)) | ((384 >> 3) << 17)
        return text[: d.start(1)] + str(value) + text[d.end(1) :]
    return None


def odd_split(text: str) -> str | None:
    """The first .16x32bx2 store made .unpack::16b with an odd second-half offset."""
    m = re.search(r"(tcgen05\.st\.sync\.aligned\.16x32bx2\.x\d+)(\.b32\s*\[[^\]]*\]\s*,\s*)(\d+)", text)
    if m is None:
        return None
    offset = int(m.group(3)) | 1
    return text[: m.start()] + m.group(1) + ".unpack::16b" + m.group(2) + str(offset) + text[m.end() :]


def test_an_idesc_n_past_the_table_is_found_in_real_kernels() -> None:
    seeded, missed = [], []
    for name in CORRECT:
        mutated = wide_n((KERNELS / name).read_text())
        if mutated is None:
            continue
        seeded.append(name)
        if ("operand-range", "error") not in {(r, s) for r, s, _ in findings(mutated)}:
            missed.append(name)
    assert {n.split("_")[0] for n in seeded} >= {"triton", "nvcc"}, seeded
    assert not missed, f"missed in {missed} (seeded into {seeded})"


def test_an_odd_unpacked_split_is_found_in_a_real_kernel() -> None:
    text = (KERNELS / "triton_split_16x32bx2.ptx").read_text()
    mutated = odd_split(text)
    assert mutated is not None and ".unpack::16b.b32 [%r2 + 0], 9," in mutated
    lines = [line for r, s, line in findings(mutated) if r == "operand-range" and s == "error"]
    assert lines == [next(i for i, t in enumerate(mutated.splitlines(), 1) if ".unpack::16b" in t)]
    fixed = mutated.replace("], 9,", "], 10,")
    assert [r for r, _, _ in findings(fixed) if r == "operand-range"] == []


def unguarded_arrive(text: str) -> str | None:
    """The lane guard taken off the first mbarrier.arrive: its own predicate, or the branch around it."""
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if re.search(r"\bmbarrier\.arrive", line)), None)
    if at is None:
        return None
    guarded = re.sub(r"^(\s*)@!?%\w+\s+", r"\1", lines[at])
    if guarded != lines[at]:
        lines[at] = guarded
        return "".join(lines)
    for i in range(at - 1, max(at - 8, 0), -1):
        if re.match(r"^\s*@!?%\w+\s+bra", lines[i]):
            del lines[i]
            return "".join(lines)
    return None


def counts_to_one(text: str) -> str | None:
    """Every mbarrier.init's count made 1: a barrier a whole warp arrives on (count 32, 128) now expects
    one arrival."""
    new = re.sub(r"(mbarrier\.init\.[\w:.]+\s*\[[^\]]+\]\s*,\s*)([^;\s]+)", r"\g<1>1", text)
    return new if new != text else None


@pytest.mark.parametrize(
    ("seed", "compiler"), [(unguarded_arrive, "cute_dsl"), (counts_to_one, "cutlass_example")]
)
def test_a_whole_warp_arriving_on_a_count_one_barrier_is_found(
    seed: Callable[[str], str | None], compiler: str
) -> None:
    """CuTe DSL's elected arrives made whole-warp; CUTLASS's whole-warp arrives on a count-1 barrier."""
    seeded, found = [], []
    for name in CORRECT:
        mutated = seed((KERNELS / name).read_text()) if compiler in name else None
        if mutated is None:
            continue
        seeded.append(name)
        if ("arrive-count", "warning") in {(r, s) for r, s, _ in findings(mutated)}:
            found.append(name)
    assert len(seeded) >= 2 and found == seeded, (seeded, found)


TMA = re.compile(r"cp\.async\.bulk\.tensor\.[\w:.]*\.shared::(?:cta|cluster)\.global[\w:.]*\s*(\[[^\]]+\])")
ALLOC_WORD = re.compile(r"(tcgen05\.alloc\.[\w:.]+\s*)(\[[^\]]+\])")


def word_on_tma(text: str) -> str | None:
    """The first alloc's address word moved onto the first TMA load's destination (TLX PR #1449)."""
    t, m = TMA.search(text), ALLOC_WORD.search(text)
    if t is None or m is None:
        return None
    return text[: m.start(2)] + t.group(1) + text[m.end(2) :]


def test_an_alloc_word_on_a_tma_destination_is_found_in_real_kernels() -> None:
    """CuTe DSL's TMA destinations are fixed places for stage 0; CUTLASS's move with the stage (their
    registers are written more than once), where the rule claims nothing."""
    seeded, found = [], []
    for name in CORRECT:
        mutated = word_on_tma((KERNELS / name).read_text())
        if mutated is None:
            continue
        seeded.append(name)
        if ("alloc-overlap", "warning") in {(r, s) for r, s, _ in findings(mutated)}:
            found.append(name)
    cute = [n for n in seeded if "cute_dsl" in n]
    assert len(cute) >= 3 and set(cute) <= set(found), (seeded, found)
