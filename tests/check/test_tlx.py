"""check on Triton Language Extensions' Blackwell tutorials (tests/kernels/tlx: built from the registry
package triton-utlx, never tuned for). Their warp-specialized partitions are reached through one
``brx.idx`` whose index each worker warp reads from shared memory, its ``.branchtargets`` list printed as
a label on a line of its own: the partitions are in the control-flow graph, checked, and drawn on the
map; a wait deleted in a worker partition is found."""

from __future__ import annotations

from pathlib import Path

import pytest

import tmemviz

TLX = Path(__file__).parents[1] / "kernels" / "tlx"
ATTENTION = TLX / "fa_ws_pipelined.ptx"
GEMM = TLX / "gemm_ws.ptx"


def findings(doc: tmemviz.Document) -> list[tuple[int, str, str, str]]:
    (checked,) = doc.subject
    return [(f.line, f.severity, f.rule, f.message) for f in checked.findings]


@pytest.mark.parametrize("path", [ATTENTION, GEMM], ids=lambda p: p.stem)
def test_the_tutorials_are_silent(path: Path) -> None:
    assert {(f[1], f[2]) for f in findings(tmemviz.check(path))} == {
        ("note", "alloc-columns"),
        ("note", "target"),
    }


def test_a_wait_deleted_in_a_worker_partition_is_found() -> None:
    lines = ATTENTION.read_text().splitlines(keepends=True)
    brx = next(i for i, line in enumerate(lines) if "brx.idx" in line)
    # The first tcgen05.ld after the dispatch (a worker's), and the wait::ld that follows it.
    load = next(i for i in range(brx, len(lines)) if "tcgen05.ld." in lines[i])
    wait = next(i for i in range(load, len(lines)) if "tcgen05.wait::ld" in lines[i])
    assert all("brx" not in line for line in lines[load:wait])
    seeded = "".join([*lines[:wait], "\n", *lines[wait + 1 :]])
    found = [f for f in findings(tmemviz.check(text=seeded)) if f[2] == "wait-ld"]
    assert any(f"line {load + 1}" in f[3] for f in found), found
    assert not [f for f in findings(tmemviz.check(ATTENTION)) if f[2] == "wait-ld"]


def test_the_map_places_the_partitions_accumulators() -> None:
    notes = {
        path.stem: [n.text for p in tmemviz.check(path).figure("auto").panels for n in p.notes]
        for path in (ATTENTION, GEMM)
    }
    assert any(n.startswith("MMA accumulator (D), 4 stages") for n in notes["fa_ws_pipelined"])
    assert any(n.startswith("MMA accumulator (D), 2 stages") for n in notes["gemm_ws"])
