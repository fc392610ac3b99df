"""Seeded bugs in kernels nobody here tuned check for: the mutation classes of tests/check seeded into
every PTX of the corpus (``python benchmarks/corpus.py DIR`` builds it), and whether check finds each.

Usage: python benchmarks/mutations.py DIR [--max-bytes N] [--record]

tests/check/test_mutations.py holds check to finding each class in at least 90% of the fixtures of
tests/kernels; this runs the same seeds (tests/check/seeds.py: every class but "shrink the alloc", which needs
each kernel's last used column, known only for the fixtures) over the
corpus's PTX modules up to ``--max-bytes`` (default 2 MB: CUTLASS 77's attention modules cost a minute
per seed), and prints, per class, in how many modules it could be seeded and in how many check reported
it under its rule (an error or a warning), naming the modules where it did not. ``--record`` writes
``benchmarks/results/mutations.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
# The tests' seeds first, with this folder off the path: its check.py would shadow the package tests/check.
sys.path[:] = [str(REPO / "tests"), *(p for p in sys.path if Path(p or ".").resolve() != HERE)]
from check.seeds import SEEDS  # noqa: E402

sys.path.insert(0, str(HERE))
from results import Record, record_flag, tools  # noqa: E402

import tmemviz  # noqa: E402


def found(text: str, rule: str) -> bool:
    (checked,) = tmemviz.check(text=text).subject
    return any(f.rule == rule and f.severity in ("error", "warning") for f in checked.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="a corpus folder holding manifest.json")
    parser.add_argument("--max-bytes", type=int, default=2_000_000)
    record_flag(parser)
    options = parser.parse_args()
    manifest = json.loads((options.dir / "manifest.json").read_text())
    paths = sorted(
        e["path"] for e in manifest["files"]
        if e["path"].endswith(".ptx") and (options.dir / e["path"]).stat().st_size <= options.max_bytes
    )  # fmt: skip
    results = {bug: [0, 0, []] for bug in SEEDS}
    for path in paths:
        text = (options.dir / path).read_text()
        for bug, (rule, seed) in SEEDS.items():
            mutated = seed(text)
            if mutated is None:
                continue
            row = results[bug]
            row[0] += 1
            if found(mutated, rule):
                row[1] += 1
            else:
                row[2].append(path)
    measure = f"check on each corpus PTX of at most {options.max_bytes} bytes, one seeded bug at a time"
    record = Record("mutations", sys.argv[1:], {"runs": 1, "measure": measure})
    record.add("modules", len(paths), "count", "corpus PTX modules the bugs were seeded into")
    print(f"{len(paths)} corpus PTX modules of at most {options.max_bytes} bytes")
    for bug, (seeded, hit, missed) in results.items():
        key = re.sub(r"_+", "_", re.sub(r"\W", "_", bug.lower())).strip("_")
        rule = SEEDS[bug][0]
        record.add(f"{key}.seeded", seeded, "count", f"{bug}: modules it could be seeded into")
        record.add(f"{key}.found", hit, "count", f"{bug}: modules where check reported it ({rule})")
        where = f"  not found in {', '.join(missed)}" if missed else ""
        print(f"{bug:45} {rule:18} {hit:3}/{seeded:<3}{where}")
    if options.record:
        record.write(tools())
    return 0


if __name__ == "__main__":
    sys.exit(main())
