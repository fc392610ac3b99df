"""Assemble one statement per tcgen05 feature for every target with ptxas and keep whether it accepted it:
the evidence behind tmemviz.ptx.targets's table. ``observe(ptxas, directory)`` returns {feature: {target:
True | the refusal}}; ``python observe_targets.py PTXAS`` (from tests/ptx) rewrites targets_observed.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAD = """.version {version}
.target {target}
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 p)
{{
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
.reg .pred %p<4>;
mov.b32 %r1, smem;
mov.b32 %r2, 0;
mov.b64 %rd1, 0;
mov.b64 %rd2, 0;
mov.b32 %r3, 0x08200490;
setp.eq.u32 %p1, %r2, 0;
{body}
ret;
}}
"""
FORMS = {
    "alloc": "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",
    "ld": "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r4}, [%r2];",
    "ld.red": "tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%r4, %r5}, %r6, [%r2];",
    "st": "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r4};",
    "cp": "tcgen05.cp.cta_group::1.128x256b [%r2], %rd1;",
    "shift": "tcgen05.shift.cta_group::1.down [%r2];",
    "mma.f16": "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd2, %r3, %p1;",
    "mma.f16.scale_input_d": "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd2, %r3, %p1, 8;",
    "mma.tf32": "tcgen05.mma.cta_group::1.kind::tf32 [%r2], %rd1, %rd2, %r3, %p1;",
    "mma.f8f6f4": "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r2], %rd1, %rd2, %r3, %p1;",
    "mma.i8": "tcgen05.mma.cta_group::1.kind::i8 [%r2], %rd1, %rd2, %r3, %p1;",
    "mma.ws.i8": "tcgen05.mma.ws.cta_group::1.kind::i8 [%r2], %rd1, %rd2, %r3, %p1;",
    "mma.mxf8f6f4": "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale "
    "[%r2], %rd1, %rd2, %r3, [%r2], [%r2], %p1;",
    "mma.mxf4nvf4": "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 "
    "[%r2], %rd1, %rd2, %r3, [%r2], [%r2], %p1;",
    "commit": "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd1];",
}
"""Feature -> one statement using it (operands that ptxas accepts where the target runs it)."""
TARGETS = ("sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_107a", "sm_107f", "sm_110a", "sm_110f", "sm_100",
           "sm_120a", "sm_121a", "sm_90a")  # fmt: skip
NEWER = {"sm_107a": "9.4", "sm_107f": "9.4"}
"""Targets that PTX ISA 9.0 does not know yet: the first version ptxas 13.5 takes them in."""


def observe(ptxas: str, directory: Path, targets: tuple[str, ...] = TARGETS) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    path = directory / "k.ptx"
    for name, body in FORMS.items():
        row: dict[str, object] = {}
        for target in targets:
            path.write_text(HEAD.format(version=NEWER.get(target, "9.0"), target=target, body=body))
            done = subprocess.run([ptxas, f"-arch={target}", str(path), "-o", str(directory / "k.cubin")],
                                  capture_output=True, text=True, check=False)  # fmt: skip
            errors = [line for line in done.stderr.splitlines() if "error" in line]
            row[target] = (
                True
                if done.returncode == 0
                else (errors[0].split(";", 1)[-1].strip() if errors else "refused")
            )
        out[name] = row
    return out


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        found = observe(sys.argv[1], Path(tmp))
    (Path(__file__).parent / "targets_observed.json").write_text(
        json.dumps(found, indent=1, sort_keys=True) + "\n"
    )
