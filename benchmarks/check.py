"""``tmemviz check`` beside ``tmemviz explain`` on the same big modules, and the TMEM map of each fixture.

Usage: python benchmarks/check.py [--runs N] [--check]

The modules are ``benchmarks/explain.py``'s (generated into a temporary directory): 1,000,000 lines
of tcgen05-free PTX, about 200 kernels built from the Triton fixtures, and the ~700,000-line corpus of
every compiler's fixture. Each is run through the installed CLI in a subprocess, ``explain FILE -f json``
and ``check FILE -f json`` alternately, best of ``--runs``, in CPU seconds (user + system). Target:
check <= 2.5x explain on each (check reads every statement, where explain skips those that cannot touch
Tensor Memory). Then ``check FIXTURE
-o map.png`` and ``-o map.html`` for every kernel of ``tests/kernels``: size (targets: PNG <= 1 MB,
HTML <= 2 MB) and time. ``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from explain import FIXTURES, REPO, best, corpus_module, kernels_module, plain_module

RATIO = 2.5
PNG_BYTES, HTML_BYTES = 1 << 20, 2 << 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    script = Path(sys.executable).with_name("tmemviz")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "tmemviz"]
    missed = False
    with tempfile.TemporaryDirectory() as tmp:
        modules = {"plain 1M lines": Path(tmp) / "plain.ptx", "200 kernels": Path(tmp) / "kernels.ptx",
                   "corpus": Path(tmp) / "corpus.ptx"}  # fmt: skip
        plain_module(modules["plain 1M lines"])
        kernels_module(modules["200 kernels"])
        corpus_module(modules["corpus"])
        for name, path in modules.items():
            explain = best([*cli, "explain", str(path), "-f", "json"], args.runs)
            check = best_check([*cli, "check", str(path), "-f", "json"], args.runs)
            ok = check <= RATIO * explain
            missed |= not ok
            print(f"{name:15s} explain {explain:6.2f} s  check {check:6.2f} s  ({check / explain:.2f}x)"
                  f"{'' if ok else '  MISSED'}")  # fmt: skip
        for fixture in sorted(FIXTURES.glob("*.ptx")):
            sizes = []
            start = time.perf_counter()
            for suffix, limit in (("png", PNG_BYTES), ("html", HTML_BYTES)):
                out = Path(tmp) / f"map.{suffix}"
                subprocess.run([*cli, "check", str(fixture), "-o", str(out)], cwd=REPO, check=False)
                size = out.stat().st_size
                missed |= size > limit
                sizes.append(f"{suffix} {size / 1024:7.1f} KB")
            print(f"{fixture.name:32s} {'  '.join(sizes)}  {time.perf_counter() - start:5.2f} s for both")
    return 1 if missed and args.check else 0


def best_check(command: list[str], runs: int) -> float:
    """Like ``best`` (CPU seconds), but check exits 1 on findings: any status but 2 is a finished run."""
    times = []
    for _ in range(runs):
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{' '.join(command)} failed")
        times.append(usage.ru_utime + usage.ru_stime)
    return min(times)


if __name__ == "__main__":
    sys.exit(main())
