"""In-process cost of drawing figures: the largest layouts, and the whole gallery.

Usage: python benchmarks/figures.py [--runs N] [--check]

The first import of matplotlib (through ``tmemviz.draw.figure``) is timed
once and reported on its own line; everything after it runs warm. Each figure
row is what ``tmemviz figure`` does after parsing its options: the spec, the
matplotlib figure and the PNG or SVG bytes (nothing is written to disk), best
of ``--runs``. The gallery row writes every gallery figure and its index into a
temporary directory through the ``gallery`` command, once.

Targets: each figure <= 3 s; the whole gallery <= 60 s. ``--check`` exits 1
when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tmemviz.catalog import load_catalog  # noqa: E402
from tmemviz.cli.options import KINDS  # noqa: E402
from tmemviz.cp.shapes import KIND as CP  # noqa: E402
from tmemviz.ldst import layout as mapper  # noqa: E402
from tmemviz.ldst.shapes import KIND as LDST  # noqa: E402

FIGURE_TARGET_S = 3.0
GALLERY_TARGET_S = 60.0
LAYOUTS = (("32x32b", 128, False), ("16x32bx2", 128, False), ("16x256b", 32, True))


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=lambda s: max(1, int(s)), default=3, help="timed runs per figure (best is kept)"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    os.environ.pop("TMEMVIZ_LAYOUTS", None)

    start = time.perf_counter()
    from tmemviz.draw.figure import draw, render
    from tmemviz.ldst.figures import layout_spec

    import_s = time.perf_counter() - start

    catalog = load_catalog((), KINDS)
    rows: list[tuple[str, float, float]] = []
    for name, num, pack in LAYOUTS:
        ins = mapper.make_instruction(catalog.get(LDST, name), num, pack=pack)
        for fmt in ("png", "svg"):

            def work(ins: mapper.Instruction = ins, fmt: str = fmt) -> bytes:
                return render(draw(layout_spec(ins, mapper.cells(ins))), fmt)

            rows.append((f"{ins.qualifiers} {fmt.upper()}", best_of(args.runs, work), FIGURE_TARGET_S))

    from tmemviz.cp import decompress
    from tmemviz.cp import layout as mapper_cp
    from tmemviz.cp.figures import copy_spec, decompress_spec

    # The busiest cp figure (8 columns, both CTAs) and the busiest decompression figure.
    cp = mapper_cp.make_copy(catalog.get(CP, "128x256b"), cta_group=2)
    six = decompress.FORMATS["b6x16_p32"]
    for fmt in ("png", "svg"):

        def draw_cp(fmt: str = fmt) -> bytes:
            return render(draw(copy_spec(cp, row=70)), fmt)

        def draw_dec(fmt: str = fmt) -> bytes:
            return render(draw(decompress_spec(six)), fmt)

        rows.append(
            (f"cp {cp.qualifiers} cta_group::2 {fmt.upper()}", best_of(args.runs, draw_cp), FIGURE_TARGET_S)
        )
        rows.append((f"decompress {six.name} {fmt.upper()}", best_of(args.runs, draw_dec), FIGURE_TARGET_S))

    from tmemviz.cli import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cli(["gallery", str(Path(tmp) / "gallery")])
        gallery_s = time.perf_counter() - start
        figures = len(list((Path(tmp) / "gallery").glob("*.*"))) - 1
    if code != 0:
        raise SystemExit(f"tmemviz gallery failed with exit status {code}")
    rows.append((f"whole gallery ({figures} figures + README)", gallery_s, GALLERY_TARGET_S))

    width = max(len(r[0]) for r in rows)
    print(f"matplotlib import (once, not in the rows below): {import_s:.2f} s")
    print(f"figures: best of {args.runs} in-process runs (spec + draw + render, no disk)")
    print()
    print(f"{'what':<{width}}  {'seconds':>8}  {'target':>7}  result")
    print(f"{'-' * width}  {'-' * 8}  {'-' * 7}  ------")
    missed = 0
    for what, seconds, target in rows:
        verdict = "PASS" if seconds <= target else "OVER"
        missed += verdict == "OVER"
        print(f"{what:<{width}}  {seconds:>8.2f}  {target:>6.0f}s  {verdict}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
