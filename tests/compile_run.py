"""Compiling generated CUDA with nvcc and assembling generated PTX with ptxas, for the dialect tests."""

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
        [ptxas, f"-arch={target}", str(source), "-o", str(directory / f"k_{target}.cubin")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return "" if done.returncode == 0 else (done.stdout + done.stderr)[-4000:]


def compile_cuda(nvcc: str, directory: Path, source: str, target: str = "sm_100a") -> str:
    """Compile ``source`` for ``target`` (SASS, so ptxas runs too); return nvcc's complaints or ''."""
    path = directory / f"k_{target}.cu"
    path.write_text(source)
    arch = target.removeprefix("sm_")
    done = subprocess.run(
        [
            nvcc,
            "-std=c++17",
            "-gencode",
            f"arch=compute_{arch},code={target}",
            "-c",
            str(path),
            "-o",
            str(directory / f"k_{target}.o"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return "" if done.returncode == 0 else (done.stdout + done.stderr)[-4000:]
