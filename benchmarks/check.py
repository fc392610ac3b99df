"""``tmemviz check`` beside ``tmemviz explain`` on the same real kernels, and the TMEM map of each fixture.

Usage: python benchmarks/check.py [--runs N] [--check] [--corpus DIR] [--synthetic]

The kernels: every PTX module of ``tests/kernels`` and, when there is one, of the corpus that
``benchmarks/corpus.py`` builds (``--corpus DIR``, ``TMEMVIZ_CORPUS``, or ``.corpus/``). Each is run
through the installed CLI in a subprocess, ``explain FILE -f json`` and ``check FILE -f json``
alternately, best of ``--runs``, in CPU seconds (user + system) and peak resident memory. Targets (issue
P19): check <= 5x explain on every kernel, and <= 150 MB on any of them. ``--synthetic`` adds
``benchmarks/explain.py``'s generated modules (1,000,000 tcgen05-free lines, 200 Triton kernels, every
fixture in one module), which measure the reader rather than the analysis. Then ``check FIXTURE -o
map.png`` and ``-o map.html`` for every fixture: size (PNG <= 1 MB, HTML <= 2 MB) and time.
``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from explain import FIXTURES, REPO, corpus_module, kernels_module, plain_module

RATIO = 5.0
MEMORY_MB = 150.0
PNG_BYTES, HTML_BYTES = 1 << 20, 2 << 20


def run(command: list[str]) -> tuple[float, float]:
    """CPU seconds and peak memory (MB) of one run; check exits 1 on findings, so 0 and 1 both finish."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(cli: list[str], path: Path, runs: int) -> tuple[float, float, float, float]:
    """explain's and check's best CPU time and their peak memory, run alternately."""
    explain, check = [], []
    for _ in range(runs):
        explain.append(run([*cli, "explain", str(path), "-f", "json"]))
        check.append(run([*cli, "check", str(path), "-f", "json"]))
    return (min(t for t, _ in explain), max(m for _, m in explain),
            min(t for t, _ in check), max(m for _, m in check))  # fmt: skip


def corpus_kernels(named: Path | None) -> list[Path]:
    where = named or (Path(os.environ["TMEMVIZ_CORPUS"]) if os.environ.get("TMEMVIZ_CORPUS") else None)
    where = where or REPO / ".corpus"
    manifest = where / "manifest.json"
    if not manifest.is_file():
        return []
    files = json.loads(manifest.read_text())["files"]
    paths = (where / f["path"] for f in files if f["path"].endswith(".ptx"))
    return sorted(path for path in paths if path.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--synthetic", action="store_true")
    args = parser.parse_args()
    script = Path(sys.executable).with_name("tmemviz")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "tmemviz"]
    missed = False
    kernels = sorted(FIXTURES.glob("*.ptx")) + corpus_kernels(args.corpus)
    worst = 0.0
    print(f"{'kernel':44s} {'explain':>9s} {'check':>9s} {'ratio':>6s} {'memory':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.synthetic:
            extra = {"plain 1M lines": Path(tmp) / "plain.ptx", "200 kernels": Path(tmp) / "kernels.ptx",
                     "every fixture": Path(tmp) / "corpus.ptx"}  # fmt: skip
            plain_module(extra["plain 1M lines"])
            kernels_module(extra["200 kernels"])
            corpus_module(extra["every fixture"])
            kernels += list(extra.values())
        for path in kernels:
            explain, _, check, memory = measure(cli, path, args.runs)
            ratio = check / explain
            ok = ratio <= RATIO and memory <= MEMORY_MB
            worst = max(worst, ratio)
            missed |= not ok
            name = path.name if path.parent == FIXTURES else "/".join(path.parts[-3:])
            print(f"{name[-44:]:44s} {explain:8.2f}s {check:8.2f}s {ratio:5.1f}x {memory:6.0f}MB"
                  f"{'' if ok else '  MISSED'}")  # fmt: skip
        target = f"target <= {RATIO:g}x, <= {MEMORY_MB:g} MB"
        print(f"worst ratio {worst:.1f}x over {len(kernels)} kernels ({target})")
        for fixture in sorted(FIXTURES.glob("*.ptx")):
            sizes = []
            start = time.perf_counter()
            for suffix, limit in (("png", PNG_BYTES), ("html", HTML_BYTES)):
                out = Path(tmp) / f"map.{suffix}"
                subprocess.run([*cli, "check", str(fixture), "-o", str(out)], cwd=REPO, check=False,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
                size = out.stat().st_size
                missed |= size > limit
                sizes.append(f"{suffix} {size / 1024:7.1f} KB")
            print(f"{fixture.name:32s} {'  '.join(sizes)}  {time.perf_counter() - start:5.2f} s for both")
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
