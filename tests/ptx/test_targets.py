"""The one table of which target runs which tcgen05 feature (tmemviz.ptx.targets) against what ptxas 13.5
accepted (targets_observed.json, written by observe_targets.py), and check's ``target`` rule on it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

import tmemviz
from tmemviz.ptx.line import parse_line
from tmemviz.ptx.targets import unsupported

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from observe_targets import FORMS, TARGETS, observe  # noqa: E402

OBSERVED = json.loads((HERE / "targets_observed.json").read_text())


def predicted(target: str, statement: str) -> bool:
    line = parse_line(statement)
    return not unsupported(target, line.opcode, line.operands)


@pytest.mark.parametrize("name", sorted(FORMS))
def test_the_table_says_what_ptxas_accepted(name: str) -> None:
    for target in TARGETS:
        assert predicted(target, FORMS[name]) == (OBSERVED[name][target] is True), (name, target)


def _ptxas() -> str | None:
    found = shutil.which("ptxas")
    try:
        import nvidia.cu13  # the test extra's nvidia-cuda-nvcc: ptxas 13.5

        path = Path(nvidia.cu13.__path__[0]) / "bin" / "ptxas"
        return str(path) if path.exists() else found
    except ImportError:
        return found


@pytest.mark.slow
def test_a_fresh_observation_equals_the_file(tmp_path: Path) -> None:
    ptxas = _ptxas()
    if ptxas is None:
        pytest.skip("no ptxas (the test extra's nvidia-cuda-nvcc)")
    assert observe(ptxas, tmp_path) == OBSERVED


KERNEL = """.version 9.0
.target {target}
.address_size 64
.visible .entry k()
{{
.reg .b32 %r<8>;
.reg .b64 %rd<4>;
.reg .pred %p<2>;
mov.b32 %r2, 0;
mov.b64 %rd1, 0;
mov.b32 %r3, 0x08200490;
setp.eq.u32 %p1, %r2, 0;
{body}
ret;
}}
"""


@pytest.mark.parametrize(
    ("target", "body", "feature"),
    [
        ("sm_100f", FORMS["shift"], "tcgen05.shift"),
        ("sm_103a", FORMS["mma.i8"], "tcgen05.mma .kind::i8"),
        ("sm_110a", FORMS["mma.f16.scale_input_d"], "tcgen05.mma scale-input-d"),
        ("sm_100a", FORMS["ld.red"], "tcgen05.ld.red"),
    ],
)
def test_check_reports_a_feature_its_target_does_not_run(target: str, body: str, feature: str) -> None:
    text = KERNEL.format(target=target, body=body)
    (checked,) = tmemviz.check(text=text).subject
    found = [f for f in checked.findings if f.rule == "target" and f.severity == "error"]
    assert len(found) == 1 and found[0].message.startswith(feature + " does not run on .target " + target)
    (clean,) = tmemviz.check(text=KERNEL.format(target="sm_100a" if "ld.red" not in body else "sm_103a",
                                                body=body)).subject  # fmt: skip
    assert not [f for f in clean.findings if f.rule == "target" and f.severity == "error"]
