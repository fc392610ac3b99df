"""``tmemviz explain K.cubin`` against ``nvdisasm -c -g K.cubin`` alone: the target is at most 3x.

Usage: python benchmarks/sass.py [--runs N] [--check] [--corpus DIR] [--record]

Cubins: every ``tests/kernels/*.cubin`` (real Triton and CuTe DSL kernels, one to a few tcgen05
instructions each) and one big cubin assembled here from ``tests/sass/forms.py`` (its 369 sm_100a
kernels, every tcgen05 form, about 1.3 MB, each kernel a layout of its own: the worst case) and a CuTe
DSL attention forward (``tests/kernels/cute_dsl_fmha.ptx``, 75 KB), both assembled here (ptxas 13: the
test extra's nvidia-cuda-nvcc, else skipped). For each:
the best of ``--runs`` times of nvdisasm writing its listing to /dev/null and of the installed CLI
(``tmemviz explain K.cubin -f json``, Python start-up included, output discarded), run alternately: wall
time, and CPU time (the process and the nvdisasm it runs), which the other loads of a shared machine do
not inflate. ``--check`` exits 1 when a CPU-time ratio exceeds 3.

``--corpus DIR`` (a corpus built by ``benchmarks/corpus.py``) adds CUTLASS example 77's FMHA, the
longest functions with MMAs: its listing (``explain K.sass``, CPU time and peak memory) and its cubin
against nvdisasm alone. ``--record`` writes the results to ``benchmarks/results/sass.json`` (a value
not measured in this run keeps its recorded one).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Record, record_flag, tools, usage_of  # noqa: E402

KERNELS = REPO / "tests" / "kernels"
TARGET = 3.0
FORMS_KERNELS = [0]  # kernels of the forms cubin, counted when it is made


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
    forms = list(all_forms())
    text = module(forms, "sm_100a")
    FORMS_KERNELS[0] = text.count(".entry")
    source.write_text(text)
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


def instructions(cli: list[str], cubin: Path, env: dict[str, str]) -> int:
    """tcgen05 instructions ``explain`` finds in ``cubin``."""
    import json

    out = subprocess.run([*cli, "explain", str(cubin), "-f", "json"], capture_output=True, text=True,
                         check=True, cwd=REPO, env=env).stdout  # fmt: skip
    return sum(len(f["instructions"]) for f in json.loads(out)["files"])


def corpus(directory: Path, cli: list[str], nvdisasm: str, runs: int, env: dict[str, str],
           record: Record) -> None:  # fmt: skip
    """CUTLASS example 77's FMHA forward from a corpus: its listing and its cubin."""
    stem = directory / "cutlass" / "77_blackwell_fmha" / "77_blackwell_fmha"
    listing, cubin = stem.with_suffix(".sass"), stem.with_suffix(".cubin")
    if not (listing.is_file() and cubin.is_file()):
        raise SystemExit(f"the corpus has no {stem.name}.sass and .cubin (benchmarks/corpus.py builds them)")
    times = [usage_of([*cli, "explain", str(listing), "-f", "json"], env=env) for _ in range(runs)]
    cpu, mb = min(t for t, _ in times), max(m for _, m in times)
    size = listing.stat().st_size
    print(f"CUTLASS 77 FMHA listing, {size / 1e6:.0f} MB: explain {cpu:.2f} s CPU, peak {mb:.0f} MB")
    what = "CUTLASS example 77's FMHA forward listing"
    record.add("cutlass77.listing_bytes", listing.stat().st_size, "bytes", f"{what}: its size")
    record.add("cutlass77.listing_cpu_s", cpu, "s", f"{what}: explain's CPU time",
               samples=[t for t, _ in times])  # fmt: skip
    record.add("cutlass77.listing_peak_mb", mb, "MB", f"{what}: explain's peak memory")
    explain = [*cli, "explain", str(cubin), "-f", "json"]
    _, c_dis, _, c_exp = compare([nvdisasm, "-c", "-g", str(cubin)], explain, runs, env)
    print(f"CUTLASS 77 FMHA cubin: nvdisasm {c_dis:.2f} s, explain {c_exp:.2f} s CPU ({c_exp / c_dis:.2f}x)")
    what = "CUTLASS example 77's FMHA forward cubin"
    record.add("cutlass77.cubin_bytes", cubin.stat().st_size, "bytes", f"{what}: its size")
    record.add("cutlass77.nvdisasm_cpu_s", c_dis, "s", f"{what}: nvdisasm -c -g's CPU time")
    record.add("cutlass77.explain_cpu_s", c_exp, "s", f"{what}: explain's CPU time (nvdisasm included)")
    record.add("cutlass77.ratio", c_exp / c_dis, "x", f"{what}: explain over nvdisasm, CPU time")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--corpus", type=Path, help="a corpus built by benchmarks/corpus.py")
    record_flag(parser)
    args = parser.parse_args()
    argv = [a if a != str(args.corpus) else "DIR" for a in sys.argv[1:]]
    record = Record("sass", argv, {
        "runs": args.runs,
        "measure": "best of runs, alternately: CPU seconds (user + system) of `tmemviz explain K.cubin -f "
                   "json` with the nvdisasm it runs, and of `nvdisasm -c -g K.cubin` alone; wall time too",
    })  # fmt: skip
    nvdisasm = tool("nvdisasm")
    if nvdisasm is None:
        print("nvdisasm is absent (pip install nvidia-cuda-nvdisasm): nothing to compare")
        return 1 if args.check else 0
    env = {**os.environ, "PATH": f"{Path(nvdisasm).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    script = Path(sys.executable).with_name("tmemviz")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "tmemviz"]
    worst = 0.0
    fixture_ratios: list[float] = []
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
            key = "forms" if cubin == big else cubin.stem
            what = "the forms cubin" if cubin == big else cubin.name
            record.add(f"{key}.bytes", cubin.stat().st_size, "bytes", f"{what}: its size")
            record.add(f"{key}.nvdisasm_cpu_s", c_dis, "s", f"{what}: nvdisasm -c -g's CPU time")
            record.add(f"{key}.explain_cpu_s", c_exp, "s", f"{what}: explain's CPU time (nvdisasm included)")
            record.add(f"{key}.ratio", ratio, "x", f"{what}: explain over nvdisasm, CPU time")
            record.add(f"{key}.wall_ratio", w_exp / w_dis, "x", f"{what}: explain over nvdisasm, wall time")
            if cubin in (big, fmha):
                record.add(f"{key}.tcgen05", instructions(cli, cubin, env), "count",
                           f"{what}: tcgen05 instructions explain finds")  # fmt: skip
            else:
                fixture_ratios.append(ratio)
            print(
                f"{name:34} {cubin.stat().st_size:9,} {w_dis:7.3f}s {w_exp:7.3f}s {w_exp / w_dis:6.2f}x "
                f"{c_dis:7.3f}s {c_exp:7.3f}s {ratio:6.2f}x"
            )
        if args.corpus:
            corpus(args.corpus, cli, nvdisasm, args.runs, env, record)
    verdict = "ok" if worst <= TARGET else "MISSED"
    print(f"worst CPU-time ratio {worst:.2f}x (target <= {TARGET}x) {verdict}")
    if fixture_ratios:
        record.add("fixtures.ratio_min", min(fixture_ratios), "x", "the fixture cubins: the lowest ratio")
        record.add("fixtures.ratio_max", max(fixture_ratios), "x", "the fixture cubins: the highest ratio")
    record.add("worst.ratio", worst, "x", "the highest CPU-time ratio of this run")
    record.targets((("ratio", TARGET, "x", "explain over nvdisasm alone, CPU time"),))
    if big is not None:
        record.add("forms.kernels", FORMS_KERNELS[0], "count", "kernels in the forms cubin")
    if args.record:
        if not args.corpus:
            record.keep("cutlass77.", "sass.py --corpus")
        versions = {"nvdisasm": [nvdisasm, "--version"], "ptxas": [tool("ptxas") or "ptxas", "--version"]}
        record.write(tools((), versions))
    return 1 if args.check and worst > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
