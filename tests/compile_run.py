"""Compiling generated CUDA with nvcc and assembling generated PTX with ptxas, for the dialect tests.

Both ask only whether NVIDIA's tools accept the code, never what SASS comes out, so ptxas runs at -O0:
it reads and checks every instruction (syntax, operands, the target's support) as at -O3, and skips
only the optimizer, which cost most of the time (about 12 of 13 CPU seconds on the ld.red kernel).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PTX_HEADER = """\
.version {version}
.target {target}
.address_size 64
.visible .entry k(.param .u32 p, .param .u64 d)
{{
  .reg .b32 %r<1000>;
  .reg .f32 %f<1000>;
  .reg .b64 %rd<10>;
  ld.param.u32 %r0, [p];
  ld.param.u64 %rd0, [d];
"""
VERSIONS = {"sm_100a": "8.6", "sm_103a": "8.8"}
"""The oldest PTX ISA version each target accepts (ptxas 13.0)."""


def assemble(ptxas: str, directory: Path, lines: list[str], target: str = "sm_100a") -> str:
    """Assemble ``lines`` as the body of one kernel; return ptxas's complaints ('' when it accepts)."""
    source = directory / f"k_{target}.ptx"
    head = PTX_HEADER.format(version=VERSIONS[target], target=target)
    source.write_text(head + "".join(f"  {line}\n" for line in lines) + "  ret;\n}\n")
    done = subprocess.run(
        [ptxas, "-O0", f"-arch={target}", str(source), "-o", str(directory / f"k_{target}.cubin")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return "" if done.returncode == 0 else (done.stdout + done.stderr)[-4000:]


def compile_cuda(nvcc: str, directory: Path, source: str, target: str = "sm_100a") -> str:
    """Compile ``source`` for ``target`` (SASS, so ptxas runs too); return nvcc's complaints or ''.

    ``-cubin``: the device code only (front end, then ptxas), where every wrapper and call under test
    lives; the host pass, which sees none of their asm, is left out (it cost about 40% of the time).
    """
    path = directory / f"k_{target}.cu"
    path.write_text(source)
    arch = target.removeprefix("sm_")
    done = subprocess.run(
        [
            nvcc,
            "-std=c++17",
            "-Xptxas",
            "-O0",
            "-gencode",
            f"arch=compute_{arch},code={target}",
            "-cubin",
            str(path),
            "-o",
            str(directory / f"k_{target}.cubin"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return "" if done.returncode == 0 else (done.stdout + done.stderr)[-4000:]


def compile_units(nvcc: str, directory: Path, sources: list[str], target: str = "sm_100a") -> str:
    """Compile several CUDA sources as one translation unit (one nvcc run: its start-up and the
    ``<cuda/ptx>`` header cost about a second per run); return nvcc's complaints or ''.

    Their ``#include`` lines go first, once each; the rest of each source goes in a namespace of its own
    (``unit0``, ``unit1`` ...), so their kernels and wrappers keep their names without clashing.
    """
    includes: dict[str, None] = {}
    bodies = []
    for i, source in enumerate(sources):
        lines = source.splitlines()
        includes.update(dict.fromkeys(line for line in lines if line.startswith("#include")))
        body = "\n".join(line for line in lines if not line.startswith("#include"))
        bodies.append(f"namespace unit{i} {{\n{body}\n}}  // namespace unit{i}\n")
    return compile_cuda(nvcc, directory, "\n".join(includes) + "\n" + "".join(bodies), target)
