"""What the CuTe DSL kernel scripts here share: compile one kernel on fake tensors without a GPU and keep
its PTX under a chosen name, and the command line (``python SCRIPT OUT_DIR [NAME ...]``)."""

from __future__ import annotations

import json
import os
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Set before the DSL is imported: it reads them once. sm_100a without a GPU; the PTX is kept.
os.environ.setdefault("CUTE_DSL_ARCH", "sm_100a")
os.environ["CUTE_DSL_KEEP"] = "ptx"
os.environ.setdefault("CUTE_DSL_LINEINFO", "1")
# No compile cache (every run compiles, so every run dumps its PTX), dumps to a folder of this run's own.
os.environ["CUTE_DSL_NO_CACHE"] = "1"
os.environ["CUTE_DSL_DISABLE_FILE_CACHING"] = "1"
DUMP = Path(tempfile.mkdtemp(prefix="cute-dsl-dump-"))
os.environ["CUTE_DSL_DUMP_DIR"] = str(DUMP)

import cutlass.cute as cute  # noqa: E402
from cutlass.cute.runtime import make_fake_stream  # noqa: E402

Kernel = tuple[str, str, str, Callable[[], Any], tuple]
"""(kind, persistent, warp_specialized, make the kernel object, its fake arguments)"""


def compile_kernel(kernel: Any, args: tuple, out: Path) -> None:
    """``cute.compile`` the kernel with a fake stream appended to ``args``; its PTX becomes ``out``."""
    # Kernels of one class compiled on the same fake arguments are dumped under one name: empty first.
    for old in DUMP.rglob("*"):
        if old.is_file():
            old.unlink()
    cute.compile(kernel, *args, make_fake_stream())
    found = sorted(DUMP.rglob("*.ptx"))
    if len(found) != 1:
        raise RuntimeError(f"expected one PTX in the dump folder, found {[p.name for p in found]}")
    text = found[0].read_text()
    # The .file directives name the script that wrote the kernel: keep only its file name.
    lines = []
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(".file") and '"' in line:
            head, name, tail = line.split('"', 2)
            line = f'{head}"{Path(name).name}"{tail}'
        lines.append(line)
    out.write_text("".join(lines))


def main(kernels: dict[str, Kernel], argv: list[str]) -> int:
    """Compile the named kernels (all when none is named) into ``argv[0]``; entries.json says what each
    is. A failure is reported and the others go on; the exit status says whether any failed."""
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    names = argv[1:] or sorted(kernels)
    entries, failed = [], 0
    for name in names:
        kind, persistent, ws, make, args = kernels[name]
        try:
            compile_kernel(make(), args, out / f"{name}.ptx")
        except Exception:  # one kernel failing is reported; the others go on
            traceback.print_exc()
            failed += 1
            continue
        entries.append({"file": f"{name}.ptx", "kind": kind, "persistent": persistent,
                        "warp_specialized": ws})  # fmt: skip
    (out / "entries.json").write_text(json.dumps(entries, indent=1))
    return 1 if failed else 0
