"""``tmemviz check`` beside ``tmemviz explain`` on the same real kernels, and the TMEM map of each fixture.

Usage: python benchmarks/check.py [--runs N] [--big-runs N] [--check] [--corpus DIR] [--synthetic] [--record]

The kernels: every PTX module of ``tests/kernels`` and, when there is one, of the corpus that
``benchmarks/corpus.py`` builds (``--corpus DIR``, ``TMEMVIZ_CORPUS``, or ``.corpus/``). Each is run
through the installed CLI in a subprocess, ``explain FILE -f json`` and ``check FILE -f json --notes``
alternately, best of ``--runs`` (``--big-runs`` for modules over 1 MB), in CPU seconds (user + system)
and peak resident memory; check's findings are counted by rule and severity. Targets (issue
P19): check <= 5x explain on every kernel, and <= 150 MB on any of them. ``--synthetic`` adds
``benchmarks/explain.py``'s generated modules (1,000,000 tcgen05-free lines, 200 Triton kernels, every
fixture in one module), which measure the reader rather than the analysis. Then ``check FIXTURE -o
map.png`` and ``-o map.html`` for every fixture: size (PNG <= 1 MB, HTML <= 2 MB) and time.
``--check`` exits 1 when a target is missed. ``--record`` writes the results to
``benchmarks/results/check.json``: every kernel, each corpus project's findings, the worst ratio; the
corpus's rows as last recorded (with their date) when this run has no corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from explain import FIXTURES, REPO, bytecode, corpus_module, kernels_module, plain_module
from results import Record, record_flag, tools, usage_of

RATIO = 5.0
MEMORY_MB = 150.0
PNG_BYTES, HTML_BYTES = 1 << 20, 2 << 20


BIG_BYTES = 1 << 20


def run(command: list[str], out: Path | None = None) -> tuple[float, float]:
    """CPU seconds and peak memory (MB) of one run; check exits 1 on findings, so 0 and 1 both finish.
    ``out`` keeps the output (the findings are counted from it), else it is discarded."""
    return usage_of(command, out, ok=(0, 1))


Times = tuple[list[float], float, list[float], float]


def measure(cli: list[str], path: Path, runs: int, out: Path) -> Times:
    """explain's and check's CPU times and their peak memory, run alternately; check's last output in
    ``out``."""
    explain, check = [], []
    for _ in range(runs):
        explain.append(run([*cli, "explain", str(path), "-f", "json"]))
        check.append(run([*cli, "check", str(path), "-f", "json", "--notes"], out))
    explain_mb, check_mb = max(m for _, m in explain), max(m for _, m in check)
    return [t for t, _ in explain], explain_mb, [t for t, _ in check], check_mb


def findings(out: Path) -> dict[str, int]:
    """check's findings in ``out`` counted by severity and by severity and rule."""
    counts: dict[str, int] = {"error": 0, "warning": 0, "note": 0}
    for entry in json.loads(out.read_text())["files"]:
        for finding in entry["findings"]:
            severity = finding["severity"]
            counts[severity] = counts.get(severity, 0) + 1
            key = f"{severity}.{finding['rule']}"
            counts[key] = counts.get(key, 0) + 1
    return counts


def corpus_kernels(named: Path | None) -> dict[Path, str]:
    """The corpus's PTX modules, each with its project (from the manifest)."""
    where = named or (Path(os.environ["TMEMVIZ_CORPUS"]) if os.environ.get("TMEMVIZ_CORPUS") else None)
    where = where or REPO / ".corpus"
    manifest = where / "manifest.json"
    if not manifest.is_file():
        return {}
    files = json.loads(manifest.read_text())["files"]
    found = {where / f["path"]: f.get("project", "unknown") for f in files if f["path"].endswith(".ptx")}
    return {path: found[path] for path in sorted(found) if path.is_file()}


def slug(text: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"\W", "_", text.lower())).strip("_")


def add_kernel(record: Record, key: str, name: str, path: Path, times: Times, counts: dict[str, int]) -> None:
    explain, explain_mb, check, check_mb = times
    record.add(f"{key}.explain_cpu_s", min(explain), "s", f"{name}: explain's CPU time", samples=explain)
    record.add(f"{key}.check_cpu_s", min(check), "s", f"{name}: check's CPU time", samples=check)
    record.add(f"{key}.ratio", min(check) / min(explain), "x", f"{name}: check over explain, CPU time")
    record.add(f"{key}.explain_peak_mb", explain_mb, "MB", f"{name}: explain's peak memory")
    record.add(f"{key}.check_peak_mb", check_mb, "MB", f"{name}: check's peak memory")
    text = path.read_bytes()
    record.add(f"{key}.bytes", len(text), "bytes", f"{name}: size")
    record.add(f"{key}.lines", text.count(b"\n"), "count", f"{name}: lines")
    record.add(f"{key}.entries", text.count(b".entry "), "count", f"{name}: kernels (.entry)")
    for what, count in counts.items():
        record.add(f"{key}.findings.{what}", count, "count", f"{name}: check's findings ({what})")


def summarize(record: Record) -> None:
    """The worst ratio and memory over every kernel in the record, and the range over the modules up to
    1 MB; said to mix dates where some rows were kept from an earlier run."""
    r = record.results
    rows = sorted(k.removesuffix(".ratio") for k in r if k.endswith(".ratio") and k.count(".") >= 2)
    kept = sorted({str(r[f"{row}.ratio"]["measured"]) for row in rows if "measured" in r[f"{row}.ratio"]})
    note = {"measured": "partly " + "; ".join(kept)} if kept else {}
    small = [row for row in rows if r[f"{row}.bytes"]["value"] <= BIG_BYTES]  # type: ignore[operator]
    what = "modules up to 1 MB (the fixtures and the corpus's but CUTLASS's stream-K and example 77)"
    for key, unit, label in (("ratio", "x", "check over explain"), ("check_cpu_s", "s", "check's CPU time")):
        for name, pick, group in (("small", min, small), ("small", max, small), ("worst", max, rows)):
            if group:
                value = pick(float(r[f"{row}.{key}"]["value"]) for row in group)  # type: ignore[arg-type]
                which = "lowest" if pick is min else "highest"
                suffix = f"_{pick.__name__}" if name == "small" else ""
                scope = what if name == "small" else "every kernel"
                record.add(f"{name}.{key}{suffix}", value, unit, f"{scope}: the {which} {label}")
                record.results[f"{name}.{key}{suffix}"].update(note)
    for name, group, scope in (("small", small, what), ("worst", rows, "every kernel")):
        if group:
            worst = max(float(r[f"{row}.ratio"]["value"]) for row in group)  # type: ignore[arg-type]
            verdict = "met" if worst <= RATIO else "missed"
            record.add(f"{name}.verdict", verdict, "", f"{scope}: the {RATIO:g}x target")
            record.add(f"{name}.count", len(group), "count", f"{scope}: how many")
    if rows:
        peak = max(float(r[f"{row}.check_peak_mb"]["value"]) for row in rows)  # type: ignore[arg-type]
        record.add("worst.check_peak_mb", peak, "MB", "every kernel: check's highest peak memory")
    for key in ("small.verdict", "small.count", "worst.verdict", "worst.count", "worst.check_peak_mb"):
        if key in r:
            r[key].update(note)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big-runs", type=int, help="runs for modules over 1 MB (default: --runs)")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--synthetic", action="store_true")
    record_flag(parser)
    args = parser.parse_args()
    if args.record and args.synthetic:
        parser.error("--record keeps real kernels only: leave out --synthetic")
    script = Path(sys.executable).with_name("tmemviz")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "tmemviz"]
    big_runs = args.big_runs or args.runs
    argv = [a if a != str(args.corpus) else "DIR" for a in sys.argv[1:]]
    record = Record("check", argv, {
        "runs": args.runs, "big_runs": big_runs,
        "measure": "CPU seconds (user + system) of `tmemviz explain FILE -f json` and `tmemviz check FILE -f "
                   "json --notes`, alternately, best of runs (big_runs for modules over 1 MB); peak RSS",
    })  # fmt: skip
    bytecode()
    missed = False
    corpus = corpus_kernels(args.corpus)
    projects = {path: "fixtures" for path in sorted(FIXTURES.glob("*.ptx"))} | corpus
    kernels = list(projects)
    worst = 0.0
    per_project: dict[str, dict[str, int]] = {}

    print(f"{'kernel':44s} {'explain':>9s} {'check':>9s} {'ratio':>6s} {'memory':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.synthetic:
            extra = {"plain 1M lines": Path(tmp) / "plain.ptx", "200 kernels": Path(tmp) / "kernels.ptx",
                     "every fixture": Path(tmp) / "corpus.ptx"}  # fmt: skip
            plain_module(extra["plain 1M lines"])
            kernels_module(extra["200 kernels"])
            corpus_module(extra["every fixture"])
            kernels += list(extra.values())
        out = Path(tmp) / "findings.json"
        for path in kernels:
            runs = big_runs if path.stat().st_size > BIG_BYTES else args.runs
            times = measure(cli, path, runs, out)
            explain, check, memory = min(times[0]), min(times[2]), times[3]
            ratio = check / explain
            ok = ratio <= RATIO and memory <= MEMORY_MB
            worst = max(worst, ratio)
            missed |= not ok
            name = path.name if path.parent == FIXTURES else "/".join(path.parts[-3:])
            print(f"{name[-44:]:44s} {explain:8.2f}s {check:8.2f}s {ratio:5.1f}x {memory:6.0f}MB"
                  f"{'' if ok else '  MISSED'}")  # fmt: skip
            if path not in projects:
                continue  # a synthetic module
            counts = findings(out)
            project = projects[path]
            if project == "fixtures":
                key = f"fixtures.{slug(path.stem)}"
            else:
                key = f"corpus.{slug(path.parent.parent.name)}.{slug(path.stem)}"
                totals = per_project.setdefault(project, {"ptx": 0})
                totals["ptx"] += 1
                for what, count in counts.items():
                    totals[what] = totals.get(what, 0) + count
            add_kernel(record, key, name, path, times, counts)
        target = f"target <= {RATIO:g}x, <= {MEMORY_MB:g} MB"
        print(f"worst ratio {worst:.1f}x over {len(kernels)} kernels ({target})")
        for project, totals in per_project.items():
            for what, count in totals.items():
                what_is = "PTX modules" if what == "ptx" else what
                key = f"project.{slug(project)}.{what}"
                record.add(key, count, "count", f"{project} in the corpus: {what_is}")
        for fixture in sorted(FIXTURES.glob("*.ptx")):
            sizes = []
            map_sizes = {}
            start = time.perf_counter()
            for suffix, limit in (("png", PNG_BYTES), ("html", HTML_BYTES)):
                out = Path(tmp) / f"map.{suffix}"
                subprocess.run([*cli, "check", str(fixture), "-o", str(out)], cwd=REPO, check=False,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
                size = out.stat().st_size
                map_sizes[suffix] = size
                missed |= size > limit
                sizes.append(f"{suffix} {size / 1024:7.1f} KB")
            print(f"{fixture.name:32s} {'  '.join(sizes)}  {time.perf_counter() - start:5.2f} s for both")
            for suffix, size in map_sizes.items():
                record.add(f"map.{slug(fixture.stem)}.{suffix}_bytes", size, "bytes",
                           f"check {fixture.name} -o map.{suffix}")  # fmt: skip
    record.targets(
        (
            ("ratio", RATIO, "x", "check over explain on every kernel"),
            ("peak_mb", MEMORY_MB, "MB", "check's peak memory on any kernel"),
            ("png_bytes", PNG_BYTES, "bytes", "a TMEM map's PNG"),
            ("html_bytes", HTML_BYTES, "bytes", "a TMEM map's HTML"),
        )
    )
    if args.record:
        if not corpus:
            record.keep("corpus.", "check.py --corpus")
            record.keep("project.", "check.py --corpus")
        summarize(record)
        record.write(tools())
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
