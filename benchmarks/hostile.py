"""Hostile input costs a bounded moment and bounded memory: one refusal, never a wait or a swap storm.

Usage: python benchmarks/hostile.py [--check] [--record]

Each case runs the CLI in a subprocess (``python -m tmemviz``) and reports its exit status, wall
time, CPU time and peak memory (``wait4``'s ``ru_maxrss``): ``explain`` and ``which --batch`` on
``/dev/zero`` and on an endless line without newlines piped to stdin (64 MiB of ``x``), shared-memory tiles of
4096 x 4096 and 2**64 rows, 5,000-digit numbers for ``layout --num``, ``desc`` and ``idesc``, and
``tile --n 100``. Every case must end with status 2 in under 1.5 s and 100 MB. ``--check`` exits 1
when one does not; ``--record`` writes the results to ``benchmarks/results/hostile.json``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Record, record_flag, tools  # noqa: E402

TIME_S = 1.5
MEMORY_MB = 100
HUGE = "9" * 5000
SMEM = ["smem", "--major", "K", "--swizzle", "128B", "--dtype", "f16"]
CASES: list[tuple[str, list[str], int]] = [
    ("explain /dev/zero", ["explain", "/dev/zero"], 0),
    ("which --batch /dev/zero", ["which", "16x256b", "--batch", "/dev/zero"], 0),
    ("explain - (64 MiB, no newline)", ["explain", "-"], 64 << 20),
    ("which --batch - (64 MiB, no newline)", ["which", "16x256b", "--batch", "-"], 64 << 20),
    ("smem 4096 x 4096", [*SMEM, "--rows", "4096", "--cols", "4096"], 0),
    ("smem 2**64 rows", [*SMEM, "--rows", str(2**64), "--cols", "64"], 0),
    ("layout --num 5,000 digits", ["layout", "16x256b", "--num", HUGE], 0),
    ("desc 5,000 digits", ["desc", "0x" + HUGE], 0),
    ("idesc 5,000 digits", ["idesc", HUGE, "--kind", "f16"], 0),
    ("tile --n 100", ["tile", "--n", "100", "--shape", "32x32b"], 0),
]


def run(args: list[str], stdin_bytes: int) -> tuple[int, float, float, float]:
    """(exit status, wall seconds, peak MB, CPU seconds) of one CLI run; ``stdin_bytes`` of ``x`` piped in."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tmemviz", *args],
        stdin=subprocess.PIPE if stdin_bytes else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    if stdin_bytes:
        chunk = b"x" * (1 << 20)
        try:
            for _ in range(stdin_bytes >> 20):
                proc.stdin.write(chunk)  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass  # refused before the end: the point
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return os.waitstatus_to_exitcode(status), elapsed, usage.ru_maxrss / 1024, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    record_flag(parser)
    options = parser.parse_args()
    measure = "one `python -m tmemviz` process per case: exit status, wall seconds, peak RSS (wait4)"
    record = Record("hostile", sys.argv[1:], {"runs": 1, "measure": measure})
    seconds_all, megabytes_all = [], []
    missed = 0
    print(f"{'case':40} {'exit':>4} {'time':>7} {'memory':>8}")
    for name, args, stdin_bytes in CASES:
        code, seconds, megabytes, cpu = run(args, stdin_bytes)
        ok = code == 2 and seconds < TIME_S and megabytes < MEMORY_MB
        missed += not ok
        print(f"{name:40} {code:>4} {seconds:6.2f}s {megabytes:6.0f}MB{'' if ok else '  MISSED'}")
        key = re.sub(r"_+", "_", re.sub(r"\W", "_", name.lower())).strip("_")
        record.add(f"{key}.exit", code, "count", f"{name}: exit status")
        record.add(f"{key}.s", seconds, "s wall", f"{name}: wall time")
        record.add(f"{key}.cpu_s", cpu, "s", f"{name}: CPU time (user + system)")
        record.add(f"{key}.peak_mb", megabytes, "MB", f"{name}: peak memory")
        seconds_all.append(seconds)
        megabytes_all.append(megabytes)
    record.add("all.s_min", min(seconds_all), "s wall", "the quickest case's wall time")
    record.add("all.s_max", max(seconds_all), "s wall", "the slowest case's wall time")
    record.add("all.peak_mb_min", min(megabytes_all), "MB", "the smallest case's peak memory")
    record.add("all.peak_mb_max", max(megabytes_all), "MB", "the largest case's peak memory")
    record.add("all.missed", missed, "count", "cases that missed a target")
    record.add("target.s", TIME_S, "s wall", "target: each case's wall time")
    record.add("target.peak_mb", MEMORY_MB, "MB", "target: each case's peak memory")
    if options.record:
        record.write(tools())
    print(f"targets: exit 2, < {TIME_S} s, < {MEMORY_MB} MB each")
    return 1 if missed and options.check else 0


if __name__ == "__main__":
    sys.exit(main())
