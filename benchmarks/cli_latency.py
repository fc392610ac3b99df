"""CLI start-up latency against the import floor, batch throughput, and in-process cost of every layout.

Usage: python benchmarks/cli_latency.py [--runs N] [--check] [--record]

Subprocess timings alternate between the commands, so drift in machine load
hits all of them alike:

* floor: ``python -c "import typer, rich.console, rich.table"`` (what any
  Typer + Rich CLI must pay), ``python -c "import typer"`` and bare ``python -c pass``;
* the one-shot answers ``which``, ``where``, ``ptx``, ``cp --row``,
  ``decompress --format json`` and ``desc``, each as ``python -m tmemviz ...``;
* the installed ``tmemviz`` console script next to this interpreter, if any.

The shipped shape files' cache is warmed once before timing (what every run but
the first after an install sees). Then a 10,000-line ``which --batch`` runs in
one process and its answers per second are printed.

Targets: a one-shot answer <= 0.8x the floor's median (``which`` is the one the
issue names); the batch under 1 s; all 74 layouts (5 shapes x every legal .num
x packed/unpacked) computed in-process in < 0.1 s, with the catalog load
reported separately. ``--check`` exits 1 when a target is missed; ``--record`` writes the results
to ``benchmarks/results/cli_latency.json``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Record, record_flag, tools  # noqa: E402

QUERY = ["which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5"]
ANSWERS = {
    "which": QUERY,
    "where": ["where", "16x256b", "--num", "x4", "-t", "5", "-r", "4"],
    "ptx --emit ptx": ["ptx", "16x256b", "--num", "x4", "--emit", "ptx"],
    "cp --row": ["cp", "64x128b.warpx2::01_23", "--row", "40"],
    "decompress -f json": ["decompress", "b4x16_p64", "--hex", "1032547698badcfe", "--format", "json"],
    "desc -f json": ["desc", "0x4000404000010000", "-f", "json"],
}
FLOOR = [sys.executable, "-c", "import typer, rich.console, rich.table"]
RATIO_TARGET = 0.8
BATCH_LINES = 10_000
BATCH_TARGET_S = 1.0
LAYOUTS_TARGET_S = 0.1
KEYS = {  # result keys of the rows that are not one-shot answers
    "floor: import typer, rich": "floor",
    "python -c 'import typer'": "import_typer",
    "python -c pass": "python",
    "tmemviz which (console script)": "script",
}


def _env() -> dict[str, str]:
    # An installed package runs from compiled bytecode (pip writes it); a shell that forbids writing
    # it would time compiling tmemviz's sources on every run instead.
    skip = ("TMEMVIZ_LAYOUTS", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in skip}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _time_once(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def time_commands(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """``runs`` timings of each command, interleaved; one untimed warm-up each."""
    env = _env()
    for cmd in commands.values():
        _time_once(cmd, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            times[name].append(_time_once(cmd, env))
    return times


def time_batch() -> float:
    """Seconds for one process answering :data:`BATCH_LINES` which-questions (best of 3)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "questions.txt"
        path.write_text("".join(f"{i % 16},{i % 32}\n" for i in range(BATCH_LINES)))
        cmd = [sys.executable, "-m", "tmemviz", *QUERY[:4], "--batch", str(path)]
        return min(_time_once(cmd, _env()) for _ in range(3))


def _repeat(fn: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def time_in_process(repeats: int) -> tuple[list[float], list[float], int]:
    """(catalog-load times, all-layouts times, number of layouts)."""
    sys.path.insert(0, str(REPO))
    from tmemviz.catalog import load_catalog
    from tmemviz.cli.options import KINDS
    from tmemviz.families.ldst import layout as mapper
    from tmemviz.families.ldst.shapes import KIND as LDST

    catalog_times = _repeat(lambda: load_catalog((), KINDS), repeats)
    catalog = load_catalog((), KINDS)
    combos = [(s, n, p) for s in catalog.shapes(LDST) for n in s.nums for p in (False, True)]

    def all_layouts() -> int:
        total = 0
        for shape, num, pack in combos:
            total += len(mapper.cells(mapper.make_instruction(shape, num, pack=pack)))
        return total

    return catalog_times, _repeat(all_layouts, repeats), len(combos)


def time_copies(repeats: int) -> tuple[list[float], int]:
    """All tcgen05.cp landings: every shape x multicast x CTA group (x3 decompression)."""
    from tmemviz.catalog import load_catalog
    from tmemviz.cli.options import KINDS
    from tmemviz.families.cp import layout as mapper_cp
    from tmemviz.families.cp.shapes import KIND as CP

    catalog = load_catalog((), KINDS)
    copies = [
        mapper_cp.make_copy(s, p.multicast, g, d)
        for s in catalog.shapes(CP)
        for p in s.placements
        for g in (1, 2)
        for d in (None, "b4x16_p64", "b6x16_p32")
    ]
    return _repeat(lambda: sum(len(mapper_cp.landings(c)) for c in copies), repeats), len(copies)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def _in_process_row(label: str, times: list[float], width: int, target: float | None) -> bool:
    """Print one in-process row; whether its median meets ``target`` (always, without one)."""
    median = statistics.median(times)
    passed = target is None or median < target
    verdict = "-" if target is None else f"< {target * 1000:.0f} ms {'ok' if passed else 'MISSED'}"
    print(f"{label:<{width}}  {_ms(median)}  {_ms(min(times))}  {times[0] * 1000:6.1f}   {verdict}")
    return passed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs per command (default 20)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    record_flag(parser)
    args = parser.parse_args(argv)
    record = Record(
        "cli_latency",
        sys.argv[1:] if argv is None else argv,
        {"runs": args.runs, "measure": "wall time of each subprocess, median of alternating runs"},
    )

    commands = {
        "floor: import typer, rich": FLOOR,
        "python -c 'import typer'": [sys.executable, "-c", "import typer"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    commands |= {
        f"tmemviz {name}": [sys.executable, "-m", "tmemviz", *argv] for name, argv in ANSWERS.items()
    }
    script = shutil.which("tmemviz", path=str(Path(sys.executable).parent))
    if script:
        commands["tmemviz which (console script)"] = [script, *QUERY]
    times = time_commands(commands, args.runs)
    floor = statistics.median(times["floor: import typer, rich"])

    width = max(len(name) for name in commands)
    print(f"Python {sys.version.split()[0]}, {args.runs} alternating runs each, wall time in ms")
    print(f"{'command':<{width}}  {'median':>8}  {'min':>8}  {'x floor':>7}  target")
    ok = True
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = median / floor
        if not name.startswith("tmemviz"):
            verdict = "-"
        else:
            passed = ratio <= RATIO_TARGET
            ok &= passed
            verdict = f"<= {RATIO_TARGET}x {'ok' if passed else 'MISSED'}"
        print(f"{name:<{width}}  {_ms(median)}  {_ms(min(samples))}  {ratio:6.2f}x  {verdict}")
        key = KEYS[name] if name in KEYS else name.removeprefix("tmemviz ").split()[0].replace("-", "")
        record.add(f"{key}.ms", median * 1000, "ms wall", f"median wall time of {name}")
        if name.startswith("tmemviz"):
            record.add(f"{key}.ratio", ratio, "x", f"{name}: median over the floor's median")

    batch_s = time_batch()
    rate = BATCH_LINES / batch_s
    passed = batch_s < BATCH_TARGET_S
    ok &= passed
    print(
        f"{'which --batch, ' + str(BATCH_LINES) + ' lines':<{width}}  {_ms(batch_s)}  "
        f"{rate:8.0f} answers/s  < {BATCH_TARGET_S:.0f} s {'ok' if passed else 'MISSED'}"
    )

    record.add("batch.s", batch_s, "s wall", f"which --batch of {BATCH_LINES:,} lines, best of 3")
    record.add("batch.rate", rate, "/s", "which --batch answers per second")

    catalog_times, layout_times, count = time_in_process(max(5, args.runs // 4))
    copy_times, copies = time_copies(max(5, args.runs // 4))
    width = max(width, 40)
    print()
    print(f"{'in-process':<{width}}  {'median':>8}  {'min':>8}  {'first':>7}  target")
    _in_process_row("load_catalog((), KINDS)", catalog_times, width, None)
    ok &= _in_process_row(f"all {count} layouts (mapper.cells)", layout_times, width, LAYOUTS_TARGET_S)
    ok &= _in_process_row(f"all {copies} cp copies (mapper_cp.landings)", copy_times, width, LAYOUTS_TARGET_S)
    for key, times, what in (
        ("catalog", catalog_times, "load_catalog, in-process"),
        ("layouts", layout_times, f"all {count} ld/st layouts' cells, in-process"),
        ("copies", copy_times, f"all {copies} cp copies' landings, in-process"),
    ):
        record.add(f"{key}.ms", statistics.median(times) * 1000, "ms wall", f"median of {what}")
    record.add("layouts.count", count, "count", "ld/st layouts (shape x legal .num x packing)")
    record.add("copies.count", copies, "count", "cp copies (shape x multicast x CTA group x decompression)")
    record.targets(
        (
            ("ratio", RATIO_TARGET, "x", "a one-shot answer's median over the floor's"),
            ("batch_s", BATCH_TARGET_S, "s wall", "the batch's time"),
            ("layouts_ms", LAYOUTS_TARGET_S * 1000, "ms wall", "all layouts, all copies"),
        )
    )
    if args.record:
        record.write(tools(("typer", "rich")))
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
