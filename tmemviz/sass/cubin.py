"""A cubin (CUDA ELF) read as a SASS listing: NVIDIA's ``nvdisasm -c -g`` prints it, streamed here.

nvdisasm is not a dependency: it is found on PATH, else in the pip package ``nvidia-cuda-nvdisasm``
(the optional extra ``sass``: ``pip install '.[sass]'`` from a checkout). It is only needed for a
cubin; listings are read directly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from tmemviz.errors import TmemvizError

ELF_MAGIC = b"\x7fELF"
MISSING = (
    "{path} is a cubin; explaining it needs NVIDIA's nvdisasm: put it on PATH or install the pip "
    "package nvidia-cuda-nvdisasm (from a checkout of tmemviz: pip install '.[sass]'), or give the text "
    "nvdisasm -c prints"
)


def is_elf(path: str | os.PathLike[str]) -> bool:
    """Whether the file starts with the ELF magic (``-``, standard input, never does: it is text)."""
    if os.fspath(path) == "-":
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False  # the text reader reports it in its words


def find_nvdisasm() -> str | None:
    """nvdisasm on PATH, else the one the pip package ``nvidia-cuda-nvdisasm`` installs."""
    import shutil  # here, not at import: a PTX input only asks is_elf
    from pathlib import Path

    found = shutil.which("nvdisasm")
    if found:
        return found
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or ()) if spec else ():
        # cu13 wheels put it in nvidia/cu13/bin, cu12 ones in nvidia/cuda_nvdisasm/bin.
        for candidate in sorted(Path(root).glob("*/bin/nvdisasm")):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def cubin_lines(
    path: str | os.PathLike[str], nvdisasm: str | None = None, encodings: bool = False
) -> Iterator[str]:
    """The lines ``nvdisasm -c -g`` prints for ``path``, streamed (never the whole listing in memory);
    ``encodings``: with ``-hex``, each instruction's two 64-bit words (its control bits: scoreboards)."""
    import subprocess

    name = os.fspath(path)
    tool = nvdisasm or find_nvdisasm()
    if tool is None:
        raise TmemvizError(MISSING.format(path=name))
    try:
        proc = subprocess.Popen(
            [tool, "-c", "-g", *(["-hex"] if encodings else []), name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1 << 16,
        )
    except OSError as exc:
        raise TmemvizError(f"cannot run {tool} on {name}: {exc.strerror or exc}") from None
    assert proc.stdout is not None and proc.stderr is not None
    try:
        yield from proc.stdout
    finally:
        proc.stdout.close()
        problem = proc.stderr.read()
        proc.stderr.close()
        code = proc.wait()
    if code != 0:
        first = next((t.strip() for t in problem.splitlines() if t.strip()), f"exit status {code}")
        raise TmemvizError(f"nvdisasm cannot read {name}: {first} (it reads a whole cubin, not a fat binary)")
