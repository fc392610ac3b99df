"""check on FlashAttention-4's SM100 kernels (tests/kernels/fa4: built from its registry package, never
tuned for): they allocate all 512 columns and address Tensor Memory by number, never reading the base
back; the forward kernel is silent, a column moved past Tensor Memory is outside the allocation, the map
places the numbered accesses, and the 1-CTA MLA decode kernel's stores not waited for
(``tcgen05.wait::st``) before it lets the MMA warp go on, and read back the next round, are found (the
SASS confirms each: tests/kernels/README.md)."""

from __future__ import annotations

from pathlib import Path

import tmemviz

FA4 = Path(__file__).parents[1] / "kernels" / "fa4"
FORWARD = FA4 / "fwd_h128_bf16_causal.ptx"
MLA = FA4 / "mla_fwd_1cta_bf16_decode.ptx"
COLUMN = "or.b32 \t%r42, %r41, 64;"
"""The column (64) of the softmax warps' S tile, ORed into a base of lane quarter and stage."""


def findings(doc: tmemviz.Document) -> list[tuple[int, str, str, str]]:
    (checked,) = doc.subject
    return [(f.line, f.severity, f.rule, f.message) for f in checked.findings]


def loud(found: list[tuple[int, str, str, str]]) -> list[tuple[int, str, str, str]]:
    return [f for f in found if f[1] in ("error", "warning")]


def test_the_forward_kernel_is_silent() -> None:
    assert loud(findings(tmemviz.check(FORWARD))) == []


def test_a_column_past_tensor_memory_is_outside_the_allocation_that_takes_every_column() -> None:
    text = FORWARD.read_text()
    assert text.count(COLUMN) == 1
    lines = text.splitlines()
    reads = [i for i, line in enumerate(lines, 1) if "tcgen05.ld" in line and "[%r42]" in line]
    assert reads
    # Column 500: the softmax's x32 loads of S reach columns 500..531, past the 512 of Tensor Memory.
    found = loud(findings(tmemviz.check(text=text.replace(COLUMN, COLUMN.replace(" 64;", " 500;")))))
    outside = [f for f in found if f[2] == "outside-allocation"]
    assert outside and {f[1] for f in outside} == {"error"}
    assert reads[0] in {f[0] for f in outside}
    assert all("as a number" in f[3] and "columns 500.." in f[3] for f in outside)
    assert {f[2] for f in found} == {"outside-allocation"}


def test_the_map_places_the_accesses_given_as_numbers() -> None:
    (checked,) = tmemviz.check(FORWARD).subject
    (regions,) = checked.regions.values()
    ops = {r.op for r in regions}
    assert {"ld", "st", "mma"} <= ops, ops
    assert not any(r.outside for r in regions)


def test_the_mla_decode_stores_not_waited_for_are_found_where_the_mma_warp_is_let_go() -> None:
    """Its correction warps rescale O (ld, multiply, st) and arrive on the mbarrier the MMA warp waits on
    before accumulating into O again, with no tcgen05.wait::st: a warning at each arrive, naming the
    store just before it, and at each read-back of the next round; a wait before each arrive ends both."""
    text = MLA.read_text()
    assert "tcgen05.wait::st" not in text, "the kernel has none: each finding is true"
    found = loud(findings(tmemviz.check(text=text)))
    assert all(f[1] == "warning" and f[2] == "wait-ld" for f in found)
    read_back = [f for f in found if "with no tcgen05.wait::st between them" in f[3]]
    released = [f for f in found if "lets other threads go on" in f[3]]
    assert len(read_back) == 8 and len(released) == 2 and len(found) == 10
    lines = text.splitlines()
    for line, _, _, message in released:
        assert lines[line - 1].strip().startswith("mbarrier.arrive")
        store = int(message.split("tcgen05.st on line ")[1].split()[0])
        assert "tcgen05.st" in lines[store - 1] and store < line
        assert not any("tcgen05.st" in x for x in lines[store : line - 1]), "the nearest store is named"
    waited = lines[:]
    for line, *_ in sorted(released, reverse=True):
        waited.insert(line - 1, "\ttcgen05.wait::st.sync.aligned;")
    assert loud(findings(tmemviz.check(text="\n".join(waited)))) == []
