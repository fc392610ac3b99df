"""``tmemviz explain K.cubin`` against ``nvdisasm -c -g K.cubin`` alone: the target is at most 3x.

Usage: python benchmarks/sass.py [--runs N] [--check]

Cubins: every ``tests/kernels/*.cubin`` (real Triton and CuTe DSL kernels, one to a few tcgen05
instructions each) and one big cubin assembled here from ``tests/sass/forms.py`` (its 369 sm_100a
kernels, every tcgen05 form, about 1.3 MB, each kernel a layout of its own: the worst case) and a CuTe
DSL attention forward (``tests/kernels/cute_dsl_fmha.ptx``, 75 KB), both assembled here (ptxas 13: the
test extra's nvidia-cuda-nvcc, else skipped). For each:
the best of ``--runs`` times of nvdisasm writing its listing to /dev/null and of the installed CLI
(``tmemviz explain K.cubin -f json``, Python start-up included, output discarded), run alternately: wall
time, and CPU time (the process and the nvdisasm it runs), which the other loads of a shared machine do
not inflate. ``--check`` exits 1 when a CPU-time ratio exceeds 3.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "tests" / "kernels"
TARGET = 3.0


def tool(name: str) -> str | None:
    """``name`` from the pip wheels (nvidia/*/bin), else PATH."""
    sys.path.insert(0, str(REPO / "tests" / "sass"))
    from conftest import pip_tool

    return pip_tool(name)


def once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and the children it waited for: nvdisasm under explain)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, cwd=REPO, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare(a: list[str], b: list[str], runs: int, env: dict[str, str]) -> tuple[float, float, float, float]:
    """Best wall and CPU times of ``a`` and of ``b``, run alternately (a loaded machine hits both alike)."""
    wa, ca, wb, cb = [], [], [], []
    for _ in range(runs):
        w, c = once(a, env)
        wa.append(w)
        ca.append(c)
        w, c = once(b, env)
        wb.append(w)
        cb.append(c)
    return min(wa), min(ca), min(wb), min(cb)


def forms_cubin(directory: Path) -> Path | None:
    """The sm_100a kernels of tests/sass/forms.py assembled into one cubin (None without ptxas)."""
    ptxas = tool("ptxas")
    if ptxas is None:
        return None
    sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "sass")]
    from forms import all_forms, module

    source = directory / "forms.ptx"
    source.write_text(module(all_forms(), "sm_100a"))
    cubin = directory / "forms.cubin"
    subprocess.run([ptxas, "-arch=sm_100a", str(source), "-o", str(cubin)], check=True)
    return cubin


def fmha_cubin(directory: Path) -> Path | None:
    """tests/kernels/cute_dsl_fmha.ptx (a CuTe DSL attention forward, 42 tcgen05 instructions), assembled."""
    ptxas = tool("ptxas")
    source = KERNELS / "cute_dsl_fmha.ptx"
    if ptxas is None or not source.exists():
        return None
    cubin = directory / "cute_dsl_fmha.cubin"
    subprocess.run([ptxas, "-arch=sm_100a", str(source), "-o", str(cubin)], check=True)
    return cubin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    nvdisasm = tool("nvdisasm")
    if nvdisasm is None:
        print("nvdisasm is absent (pip install nvidia-cuda-nvdisasm): nothing to compare")
        return 1 if args.check else 0
    env = {**os.environ, "PATH": f"{Path(nvdisasm).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    script = Path(sys.executable).with_name("tmemviz")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "tmemviz"]
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        cubins = sorted(KERNELS.glob("*.cubin"))
        big = forms_cubin(Path(tmp))
        fmha = fmha_cubin(Path(tmp))
        cubins += [c for c in (fmha, big) if c is not None]
        if big is None:
            print("ptxas is absent: the assembled cubins are skipped")
        print(f"{'':34} {'':>9} {'wall time':^26} {'CPU time':^26}")
        print(f"{'cubin':34} {'bytes':>9} {'nvdisasm':>8} {'explain':>8} {'ratio':>7} "
              f"{'nvdisasm':>8} {'explain':>8} {'ratio':>7}")  # fmt: skip
        for cubin in cubins:
            w_dis, c_dis, w_exp, c_exp = compare(
                [nvdisasm, "-c", "-g", str(cubin)],
                [*cli, "explain", str(cubin), "-f", "json"],
                args.runs,
                env,
            )
            ratio = c_exp / c_dis
            worst = max(worst, ratio)
            name = "forms (sm_100a kernels)" if cubin == big else cubin.name
            print(
                f"{name:34} {cubin.stat().st_size:9,} {w_dis:7.3f}s {w_exp:7.3f}s {w_exp / w_dis:6.2f}x "
                f"{c_dis:7.3f}s {c_exp:7.3f}s {ratio:6.2f}x"
            )
    verdict = "ok" if worst <= TARGET else "MISSED"
    print(f"worst CPU-time ratio {worst:.2f}x (target <= {TARGET}x) {verdict}")
    return 1 if args.check and worst > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
