"""Benchmark results as data: one JSON file per benchmark in ``benchmarks/results/``, quoted by the docs.

A benchmark run with ``--record`` writes ``results/NAME.json`` (keys sorted, so a re-run changes only
the lines whose values changed): the date, the machine (cores, CPU model, Python), the versions of the
tools it ran, the conditions (runs, load average before and after, what was timed) and its results.
Each result is ``{"value", "unit", "noise", "what"}`` under a dotted key; ``noise`` is the relative
difference within which a quoted number still agrees with the value (the larger of the unit's usual
noise, below, and the spread of the recorded samples). A value that could not be measured on the
recording machine carries ``"measured": "as measured on DATE ..."`` and comes from the text that
quoted it then; nothing is estimated.

The docs quote a result as ``<!-- bench:NAME.KEY -->`` followed by the number (``tables.py`` rewrites
the number from the data, ``tests/test_numbers.py`` checks it agrees).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"

# Relative noise by unit, where the samples do not show a larger spread. CPU seconds of one process
# move about 5% from run to run on a shared machine; wall time more; peak memory a little (allocator
# and page timing); a figure's bytes only with the fonts and libraries, which the data records; a
# count not at all. A ratio of two CPU times carries both timings' noise.
NOISE = {"s": 0.05, "s wall": 0.10, "ms wall": 0.10, "MB": 0.05, "x": 0.10, "bytes": 0.01, "count": 0.0,
         "/s": 0.10, "minutes": 0.10}  # fmt: skip


_LAUNCH = (
    "import resource, subprocess, sys\n"
    "with open(sys.argv[1], 'wb') as sink:\n"
    "    code = subprocess.run(sys.argv[2:], stdout=sink, stderr=subprocess.DEVNULL).returncode\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(code, u.ru_utime + u.ru_stime, u.ru_maxrss)\n"
)


def usage_of(
    command: Sequence[str],
    out: Path | None = None,
    ok: Sequence[int] = (0,),
    env: dict[str, str] | None = None,
) -> tuple[float, float]:
    """(CPU seconds, peak MB) of one run of ``command``, its output kept in ``out`` (else discarded); an
    exit status outside ``ok`` stops the benchmark. The command is started by a small launcher, not by
    the benchmark: Linux counts a forked child's pages as resident from the fork, so a child of a
    benchmark that has read a large JSON output reported that benchmark's memory as its own (the CUTLASS
    77 FMHA listing seemed to take 109 MB; it takes 43)."""
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCH, str(out or os.devnull), *command],
        capture_output=True, text=True, cwd=REPO, env=env,
    )  # fmt: skip
    code, cpu, kb = done.stdout.split() if done.returncode == 0 else ("-1", "0", "0")
    if int(code) not in ok:
        raise SystemExit(f"{' '.join(command)} failed (exit {code})")
    return float(cpu), int(kb) / 1024


def machine() -> dict[str, object]:
    """The facts of this machine a timing depends on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "os": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
    }


def _commit() -> str:
    """The repository's commit, with ``+changes`` when the measured code (the package and its shape
    files) differs from it in the work tree."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "tmemviz", "layouts"],
                               cwd=REPO, capture_output=True, text=True, check=True).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty.strip() else "")


def tools(packages: Iterable[str] = (), commands: dict[str, Sequence[str]] | None = None) -> dict[str, str]:
    """tmemviz's version and commit, the named packages' versions and each command's first output line."""
    import tmemviz

    found = {"tmemviz": tmemviz.__version__, "commit": _commit()}
    for name in packages:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    for name, command in (commands or {}).items():
        try:
            out = subprocess.run(list(command), capture_output=True, text=True, check=False).stdout
        except OSError:
            found[name] = "absent"
            continue
        lines = [line for line in out.splitlines() if line.strip()]
        found[name] = lines[-1].strip() if lines else "unknown"  # nvdisasm/ptxas: "Cuda compilation tools..."
    return found


class Record:
    """The results of one run of one benchmark, written by :meth:`write` when ``--record`` asks."""

    def __init__(self, name: str, argv: Sequence[str], conditions: dict[str, object]) -> None:
        self.name = name
        self.data: dict[str, object] = {
            "benchmark": name,
            # A folder given by its absolute path (the corpus) is shown as DIR: no machine's path is kept.
            "command": " ".join(
                ["python", f"benchmarks/{name}.py", *("DIR" if os.path.isabs(a) else a for a in argv)]
            ),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
            "machine": machine(),
            "conditions": {**conditions, "load_average_before": _load()},
        }
        self.results: dict[str, dict[str, object]] = {}

    def add(self, key: str, value: float | int | str, unit: str, what: str, *,
            samples: Sequence[float] = (), measured: str = "") -> None:  # fmt: skip
        """One result; ``samples`` (every run's value) widen the noise to their spread."""
        noise = 0.0 if key.startswith("target.") else NOISE.get(unit, 0.0)  # a target is a constant
        if len(samples) > 1 and min(samples) > 0:
            noise = max(noise, (max(samples) - min(samples)) / min(samples))
        entry: dict[str, object] = {"value": _rounded(value), "unit": unit, "noise": round(noise, 3),
                                    "what": what}  # fmt: skip
        if measured:
            entry["measured"] = measured
        self.results[key] = entry

    def targets(self, rows: Sequence[tuple[str, float | int, str, str]]) -> None:
        """The benchmark's targets, each ``(key, value, unit, what)`` recorded as ``target.KEY``."""
        for key, value, unit, what in rows:
            self.add(f"target.{key}", value, unit, f"target: {what}")

    def keep(self, prefix: str, how: str) -> None:
        """The results under ``prefix`` as last recorded, where this run did not measure them, each
        marked as measured on the date it was (``how`` says by what)."""
        path = RESULTS / f"{self.name}.json"
        if not path.is_file():
            return
        old = json.loads(path.read_text())
        for key, entry in old["results"].items():
            if key.startswith(prefix) and key not in self.results:
                kept = dict(entry)
                kept.setdefault("measured", f"as measured on {old['date'][:10]} ({how})")
                self.results[key] = kept

    def write(self, tool_versions: dict[str, str]) -> Path:
        conditions = self.data["conditions"]
        assert isinstance(conditions, dict)
        conditions["load_average_after"] = _load()
        self.data["tools"] = tool_versions
        self.data["results"] = self.results
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"{self.name}.json"
        path.write_text(json.dumps(self.data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        print(f"recorded {len(self.results)} results in {path.relative_to(REPO)}")
        from tables import update  # the docs quote the data: rewritten with it

        update()
        return path


def _load() -> str:
    """The 1-, 5- and 15-minute load averages: how busy the machine was."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _rounded(value: float | int | str) -> float | int | str:
    """Four significant digits: more than any timing carries, and stable diffs."""
    if isinstance(value, float):
        return float(f"{value:.4g}")
    return value


def load(name: str, where: Path = RESULTS) -> dict[str, object]:
    return json.loads((where / f"{name}.json").read_text())


def lookup(key: str, where: Path = RESULTS) -> dict[str, object]:
    """The result ``NAME.KEY`` (``explain.corpus.cpu_s``); KeyError naming what is missing."""
    name, _, rest = key.partition(".")
    path = where / f"{name}.json"
    if not path.is_file():
        raise KeyError(f"{key}: no data file benchmarks/results/{name}.json")
    results = load(name, where)["results"]
    assert isinstance(results, dict)
    if rest not in results:
        raise KeyError(f"{key}: benchmarks/results/{name}.json has no result {rest!r}")
    return results[rest]


def record_flag(parser: object) -> None:
    """The ``--record`` option every benchmark takes."""
    parser.add_argument(  # type: ignore[attr-defined]
        "--record", action="store_true",
        help="write the results to benchmarks/results/ (with the date, machine and versions)",
    )  # fmt: skip


if __name__ == "__main__":
    json.dump({"machine": machine(), "tools": tools()}, sys.stdout, indent=1)
