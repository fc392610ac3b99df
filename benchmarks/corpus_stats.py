"""What a corpus built by ``benchmarks/corpus.py`` holds, from its manifest: the numbers the README quotes.

Usage: python benchmarks/corpus_stats.py DIR [--record]

Counts the manifest's PTX modules (all, CUTLASS's examples), their tcgen05 instructions, its files, the
persistent warp-specialized modules by compiler (the manifest's ``persistent`` says ``yes...`` or
``both`` and ``warp_specialized`` says ``yes``), the seconds nvcc took over CUTLASS's examples (the
manifest's ``seconds``), the bytes of the files it lists and of the scratch environments (``DIR/venvs``).
``--record`` writes them to ``benchmarks/results/corpus.json``; the numbers a manifest does not hold (the
build's wall time, its longest examples, torch's size) keep their recorded values, with their date.
Record only after a full build: a partial one would replace the full build's counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Record, record_flag, tools

CUTLASS = "CUTLASS C++ examples"
FAMILIES = {"nvcc": "nvcc", "nvidia-cutlass-dsl": "cute_dsl", "triton": "triton"}


def tree_bytes(directory: Path) -> int:
    """Bytes of the regular files under ``directory`` (links not followed)."""
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            path = Path(root) / name
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total


def stats(directory: Path) -> dict[str, tuple[int, str, str]]:
    """(value, unit, what) by result key."""
    files = json.loads((directory / "manifest.json").read_text())["files"]
    ptx = [f for f in files if f["path"].endswith(".ptx")]
    cutlass = [f for f in ptx if f.get("project") == CUTLASS]
    found: dict[str, tuple[int, str, str]] = {
        "held.ptx": (len(ptx), "count", "PTX modules"),
        "held.tcgen05": (sum(int(f.get("tcgen05", 0)) for f in ptx), "count", "tcgen05 instructions (PTX)"),
        "held.files": (len(files), "count", "files (PTX, cubins, listings)"),
        "held.cutlass_ptx": (len(cutlass), "count", "CUTLASS C++ examples' PTX"),
        "build.examples": (len(cutlass), "count", "CUTLASS examples built"),
        "build.nvcc_s": (round(sum(float(f.get("seconds", 0)) for f in cutlass)), "s",
                         "nvcc's time over the CUTLASS examples"),
        "size.corpus_bytes": (sum((directory / f["path"]).stat().st_size for f in files
                                  if (directory / f["path"]).is_file()), "bytes",
                              "the corpus's files (without the scratch environments)"),
    }  # fmt: skip
    for compiler, family in FAMILIES.items():
        count = sum(1 for f in ptx if f.get("compiler", "").startswith(compiler)
                    and (str(f.get("persistent", "")).startswith("yes") or f.get("persistent") == "both")
                    and f.get("warp_specialized") == "yes")  # fmt: skip
        what = f"persistent, warp-specialized kernels ({compiler})"
        found[f"held.persistent_ws_{family}"] = (count, "count", what)
    if (directory / "venvs").is_dir():
        found["size.venvs_bytes"] = (tree_bytes(directory / "venvs"), "bytes", "the scratch environments")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a directory built by benchmarks/corpus.py")
    record_flag(parser)
    args = parser.parse_args()
    if not (args.corpus / "manifest.json").is_file():
        print(f"corpus_stats: {args.corpus} has no manifest.json (benchmarks/corpus.py DIR builds one)",
              file=sys.stderr)  # fmt: skip
        return 2
    found = stats(args.corpus)
    for key, (value, unit, what) in found.items():
        print(f"{key:32} {value:>14,} {unit:6} {what}")
    if args.record:
        measure = "counts and sizes from DIR's manifest"
        record = Record("corpus", ["DIR", "--record"], {"runs": 1, "measure": measure})
        record.data["command"] = "python benchmarks/corpus_stats.py DIR --record"
        for key, (value, unit, what) in found.items():
            record.add(key, value, unit, what)
        record.keep("", "not in a manifest: the build's log as quoted then")
        record.write(tools())
    return 0


if __name__ == "__main__":
    sys.exit(main())
