"""``tmemviz explain`` on big modules: streaming a module with no tcgen05, and ~200 compiled kernels.

Usage: python benchmarks/explain.py [--runs N] [--check] [--record]

Modules are generated into a temporary directory:

* 1,000,000 lines of ordinary PTX (integer and float arithmetic, global loads and stores, labels and
  branches across 100 functions) and no tcgen05 instruction;
* about 200 kernels built from the real Triton output in ``tests/kernels`` (their function
  bodies joined two or three to a kernel, entries renamed): about 180,000 lines and 470,000 register
  cells in the JSON.

The package's modules are byte-compiled first (as a wheel install does). Each is explained by the
installed CLI in a subprocess (``tmemviz explain FILE -f json``, output
discarded), best of ``--runs``. Times are CPU seconds of the subprocess (user + system, from
``wait4``), not wall time: the figure does not move when other processes share the machine.
Targets: the first < 3 s, the second < 2.5 s, the corpus <= 8x a bare regex scan of it; peak memory
<= 400 MB for a dense 1,000,000-line module and for one 1,000,000-line function. ``--check`` exits 1
when a target is missed; ``--record`` writes the results to ``benchmarks/results/explain.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Record, record_flag, tools  # noqa: E402

FIXTURES = REPO / "tests" / "kernels"
PLAIN_TARGET_S = 3.0
KERNELS_TARGET_S = 2.5
CORPUS_RATIO = 8.0
DENSE_TARGET_MB = 400
HEADER = ".version 9.0\n.target sm_103a\n.address_size 64\n\n"


def plain_module(path: Path, lines: int = 1_000_000, functions: int = 100) -> None:
    """``lines`` lines of tcgen05-free PTX in ``functions`` entries."""
    body_lines = lines // functions - 6
    pattern = [
        "\tadd.s32 \t%r{a}, %r{b}, {k};",
        "\tmul.lo.s32 \t%r{b}, %r{a}, %r{c};",
        "\tld.global.b32 \t%r{c}, [%rd{a}+{k}];",
        "\tfma.rn.f32 \t%f{a}, %f{b}, %f{c}, %f{a};",
        "\tst.global.b32 \t[%rd{b}+{k}], %r{a};",
        "\tsetp.lt.s32 \t%p1, %r{a}, {k};",
        "\tmov.b32 \t%r{a}, {k};",
        "\t@%p1 bra \t$L__BB{f}_{k};",
        "$L__BB{f}_{k}:",
    ]
    with path.open("w") as out:
        out.write(HEADER)
        for f in range(functions):
            out.write(f".visible .entry plain_{f}(\n\t.param .u64 p\n)\n{{\n")
            for i in range(body_lines):
                line = pattern[i % len(pattern)]
                out.write(line.format(a=i % 50, b=(i + 7) % 50, c=(i + 13) % 50, k=i, f=f))
                out.write("\n")
            out.write("\tret;\n}\n")


def _body(text: str) -> str:
    """The first .entry's body (from its opening brace to the end), without the module header."""
    start = text.index(".visible .entry")
    brace = text.index("{", start)
    return text[brace:].rstrip()


def kernels_module(path: Path, kernels: int = 200) -> tuple[int, int]:
    """``kernels`` entries, each two or three fixture bodies in one; returns (lines, register cells)."""
    names = ["triton_mma_epilogue.ptx", "triton_st_16x64b.ptx", "triton_ld_red_sm103a.ptx"]
    bodies = [_body((FIXTURES / n).read_text()) for n in names]
    with path.open("w") as out:
        out.write(HEADER)
        for k in range(kernels):
            parts = [bodies[k % 3], bodies[(k + 1) % 3]] + ([bodies[(k + 2) % 3]] if k % 3 == 0 else [])
            out.write(f".visible .entry kernel_{k}(\n\t.param .u64 p\n)\n{{\n")
            for part in parts:
                out.write(part.strip()[1:-1])  # the body without its braces, so one kernel holds them all
                out.write("\n")
            out.write("}\n")
    text = subprocess.run(
        [sys.executable, "-m", "tmemviz", "explain", str(path), "-f", "json"],
        capture_output=True, text=True, check=True, cwd=REPO,
    ).stdout  # fmt: skip
    data = json.loads(text)
    cells = sum(len(i.get("cells", ())) for f in data["files"] for i in f["instructions"])
    return sum(1 for _ in path.open()), cells


def corpus_module(path: Path, lines: int = 700_000) -> int:
    """Every compiler's fixture (CUTLASS atoms, CuTe DSL GEMM, Triton, nvcc) repeated, entries renamed,
    to ``lines`` lines; returns the line count."""
    import re

    names = ["cutlass_atoms.ptx", "cute_dsl_gemm.ptx", "cute_dsl_fmha.ptx", "triton_mma_epilogue.ptx",
             "triton_st_16x64b.ptx", "nvcc_inline_asm.ptx"]  # fmt: skip
    bodies = []
    for n in names:
        text = (FIXTURES / n).read_text()
        bodies.append(text[text.index(".visible .entry") :])
    count = k = 0
    with path.open("w") as out:
        out.write(".version 9.0\n.target sm_100a\n.address_size 64\n")
        while count < lines:
            body = re.sub(r"(\.entry\s+)([\w$]+)", rf"\g<1>\g<2>_{k}", bodies[k % len(bodies)])
            out.write(body)
            count += body.count("\n")
            k += 1
    return count


def regex_scan(path: Path, runs: int) -> float:
    """A bare Python regex scan of ``path`` (the floor the explain time is compared with)."""
    code = "import re,sys\np=re.compile(r'tcgen05')\nn=sum(1 for l in open(sys.argv[1]) if p.search(l))"
    return best([sys.executable, "-c", code, str(path)], runs)


def dense_module(path: Path, lines: int = 1_000_000) -> int:
    """The CUTLASS atoms kernel repeated to ``lines`` lines (one tcgen05 instruction in 13 lines); returns
    the number of tcgen05 instructions."""
    import re

    text = (FIXTURES / "cutlass_atoms.ptx").read_text()
    body = text[text.index(".visible .entry") :]
    count = k = 0
    with path.open("w") as out:
        out.write(".version 9.0\n.target sm_100a\n.address_size 64\n")
        while count < lines:
            piece = re.sub(r"(\.entry\s+)([\w$]+)", rf"\g<1>\g<2>_{k}", body)
            out.write(piece)
            count += piece.count("\n")
            k += 1
    return 24 * k


def long_function_module(path: Path, lines: int = 1_000_000) -> None:
    """One kernel of ``lines`` plain lines, then an alloc whose size is a register set at its end: the
    reader keeps the function's text until the value is asked for (tmemviz.ptx.lazy)."""
    with path.open("w") as out:
        out.write(HEADER + ".visible .entry long_k()\n{\n")
        for i in range(lines):
            out.write(f"\tadd.s32 \t%r{i % 50}, %r{(i + 7) % 50}, {i};\n")
        out.write("\tmov.u32 \t%r99, 256;\n")
        out.write("\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], %r99;\n")
        out.write("\tret;\n}\n")


_PEAK = """import os, subprocess, sys
count = sys.argv[1] == "count"
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE if count else subprocess.DEVNULL)
size = 0
while count and (chunk := child.stdout.read(1 << 20)):
    size += len(chunk)
_, status, usage = os.wait4(child.pid, 0)
print(status, usage.ru_maxrss, usage.ru_utime + usage.ru_stime, size)
"""


def peak(command: list[str], count: bool = False) -> tuple[float, float, int]:
    """(CPU seconds, peak resident MB, bytes written) of one run. The output is discarded, or with
    ``count`` counted through a pipe (which costs the child CPU time: a run that counts is not timed).
    A small parent starts it: a child forked from this process (which has read big JSON) would count
    this process's pages as its own."""
    mode = "count" if count else "discard"
    done = subprocess.run([sys.executable, "-c", _PEAK, mode, *command], capture_output=True, text=True,
                          cwd=REPO)  # fmt: skip
    status, kb, cpu, size = done.stdout.split()
    if int(status):
        raise SystemExit(f"{' '.join(command)} failed")
    return float(cpu), int(kb) / 1024, int(size)


def cpu_seconds(command: list[str]) -> float:
    """User + system CPU seconds of one run of ``command`` (output discarded)."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=REPO)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise SystemExit(f"{' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime


def best(command: list[str], runs: int) -> float:
    return min(samples(command, runs))


def samples(command: list[str], runs: int) -> list[float]:
    return [cpu_seconds(command) for _ in range(runs)]


def tcgen05_count(path: Path) -> int:
    """Lines of ``path`` that are a tcgen05 instruction (guarded or not)."""
    import re

    pattern = re.compile(r"^\s*(@!?%\w+\s+)?tcgen05\.")
    with path.open() as lines:
        return sum(1 for line in lines if pattern.match(line))


def bytecode() -> None:
    """The package's bytecode written first, as an installed wheel has it: with PYTHONDONTWRITEBYTECODE
    set (or sources newer than their .pyc) every run would otherwise compile its modules again. Forced:
    a source edited within the second its .pyc was written looks current to compileall (which compares
    the mtime only) but not to the importer (which compares the size too)."""
    import compileall

    import tmemviz

    compileall.compile_dir(Path(tmemviz.__file__).parent, quiet=1, force=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    record_flag(parser)
    args = parser.parse_args()
    record = Record("explain", sys.argv[1:], {
        "runs": args.runs,
        "measure": "CPU seconds (user + system) of `tmemviz explain FILE -f json`, output discarded, best of "
                   "runs; peak memory (wait4's ru_maxrss) of one run",
    })  # fmt: skip
    script = Path(sys.executable).with_name("tmemviz")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "tmemviz"]
    bytecode()
    missed = False
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.ptx"
        plain_module(plain)
        runs = samples([*cli, "explain", str(plain), "-f", "json"], args.runs)
        t = min(runs)
        record.add("plain.cpu_s", t, "s", "1,000,000 lines without tcgen05", samples=runs)
        ok = t < PLAIN_TARGET_S
        missed |= not ok
        verdict = "ok" if ok else "MISSED"
        print(f"1,000,000 lines, no tcgen05:        {t:6.2f} s  (target < {PLAIN_TARGET_S} s) {verdict}")
        big = Path(tmp) / "kernels.ptx"
        lines, cells = kernels_module(big)
        runs = samples([*cli, "explain", str(big), "-f", "json"], args.runs)
        t = min(runs)
        record.add("kernels.cpu_s", t, "s", "200 kernels of Triton output", samples=runs)
        record.add("kernels.lines", lines, "count", "lines of the 200 kernels")
        record.add("kernels.cells", cells, "count", "register cells in the 200 kernels' JSON")
        ok = t < KERNELS_TARGET_S
        missed |= not ok
        print(
            f"200 kernels, {lines:,} lines, {cells:,} cells: {t:6.2f} s  (target < {KERNELS_TARGET_S} s) "
            f"{'ok' if ok else 'MISSED'}"
        )
        corpus = Path(tmp) / "corpus.ptx"
        lines = corpus_module(corpus)
        floor = regex_scan(corpus, args.runs)
        runs = samples([*cli, "explain", str(corpus), "-f", "json"], args.runs)
        t = min(runs)
        record.add("corpus.cpu_s", t, "s", "the corpus of every compiler's fixture", samples=runs)
        record.add("corpus.regex_s", floor, "s", "a bare Python regex scan of the corpus")
        record.add("corpus.ratio", t / floor, "x", "the corpus: explain over the regex scan")
        record.add("corpus.verdict", "met" if t <= CORPUS_RATIO * floor else "missed", "",
                   f"the corpus: the target of {CORPUS_RATIO:g}x")  # fmt: skip
        record.add("corpus.lines", lines, "count", "lines of the corpus")
        record.add("corpus.tcgen05", tcgen05_count(corpus), "count", "tcgen05 instructions in the corpus")
        size = peak([*cli, "explain", str(corpus), "-f", "json"], count=True)[2]
        record.add("corpus.json_bytes", size, "bytes", "the corpus's JSON")
        ok = t <= CORPUS_RATIO * floor
        missed |= not ok
        print(
            f"every compiler, {lines:,} lines: {t:6.2f} s = {t / floor:.1f}x a bare regex scan "
            f"({floor:.2f} s) (target <= {CORPUS_RATIO}x) {'ok' if ok else 'MISSED'}"
        )
        dense = Path(tmp) / "dense.ptx"
        count = dense_module(dense)
        record.add("dense.tcgen05", count, "count", "tcgen05 instructions in the dense module")
        label = f"1,000,000 lines, {count:,} tcgen05 instructions"
        missed |= not memory_case(label, cli, dense, record, "dense")
        long = Path(tmp) / "long.ptx"
        long_function_module(long)
        missed |= not memory_case("one function of 1,000,000 lines", cli, long, record, "long")
    record.targets(
        (
            ("plain_s", PLAIN_TARGET_S, "s", "1,000,000 lines without tcgen05"),
            ("kernels_s", KERNELS_TARGET_S, "s", "the 200 kernels"),
            ("corpus_ratio", CORPUS_RATIO, "x", "the corpus over the regex scan"),
            ("peak_mb", DENSE_TARGET_MB, "MB", "peak memory of the dense module and the function"),
        )
    )
    if args.record:
        record.write(tools())
    return 1 if args.check and missed else 0


def memory_case(label: str, cli: list[str], path: Path, record: Record, key: str) -> bool:
    """Explain ``path`` once, print its CPU time and peak memory; whether the peak is within target."""
    t, mb, _ = peak([*cli, "explain", str(path), "-f", "json"])
    size = peak([*cli, "explain", str(path), "-f", "json"], count=True)[2]
    record.add(f"{key}.cpu_s", t, "s", f"{label}, one run")
    record.add(f"{key}.peak_mb", mb, "MB", f"{label}: peak memory")
    record.add(f"{key}.json_bytes", size, "bytes", f"{label}: the JSON")
    ok = mb <= DENSE_TARGET_MB
    verdict = "ok" if ok else "MISSED"
    print(f"{label}: {t:6.2f} s CPU, peak {mb:.0f} MB (target <= {DENSE_TARGET_MB} MB) {verdict}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
