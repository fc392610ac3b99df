"""Assemble every form of :mod:`forms` with ptxas, disassemble with nvdisasm, and keep what they printed.

``observe(ptxas, nvdisasm, directory)`` returns, per form name, either the SASS lines of its kernel that
mention Tensor Memory work (and the STG/LDG lines that show its registers) or ptxas's refusal. Used by
tests/sass/test_evidence.py and to write tests/sass/observed.json (``python -m sass.observe`` from tests/).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from forms import Form, all_forms, module

_ERROR = re.compile(r"line (\d+); (?:error|fatal)\s*:\s*(.*)")
_KERNEL = re.compile(r"^\.visible \.entry (\w+)\(")
_FUNCTION = re.compile(r"^\s*\.text\.(\w+):")
_CODE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*$")
KEEP = ("TM", "UTC", "UMOV")
"""Opcodes kept as printed: the tcgen05 work and the constants moved into uniform registers (idesc)."""
_GLOBAL = re.compile(
    r"^(STG|LDG)\.E(?:\.(64|128))?\s+(?:(R\d+),\s*)?desc\[UR\d+\]\[R\d+\.64(?:\+(0x[0-9a-f]+))?\](?:,\s*(R\d+))?"
)


def global_words(lines: list[str], opcode: str) -> dict[int, int]:
    """Word offset (from the kernel's pointer) -> register number, for every STG (or LDG) of the kernel.

    >>> global_words(["STG.E.64 desc[UR4][R2.64+0x8], R6", "STG.E desc[UR4][R2.64], R4"], "STG")
    {2: 6, 3: 7, 0: 4}
    """
    out: dict[int, int] = {}
    for text in lines:
        m = _GLOBAL.match(text)
        if not m or m.group(1) != opcode:
            continue
        width = int(m.group(2) or 32) // 32
        register = m.group(5) if opcode == "STG" else m.group(3)
        offset = int(m.group(4) or "0", 16)
        if register is None or offset % 4:
            continue
        for k in range(width):
            out[offset // 4 + k] = int(register[1:]) + k
    return out


def version(tool: str) -> str:
    """E.g. ``13.5.37``: the V number of ``tool --version``."""
    out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else out.strip().splitlines()[-1]


def _assemble(ptxas: str, directory: Path, forms: list[Form], target: str) -> tuple[Path, dict[str, str]]:
    """Assemble the target's forms; drop each form ptxas refuses (with its message) and assemble again."""
    refused: dict[str, str] = {}
    todo = [f for f in forms if f.target == target]
    while True:
        text = module(todo, target)
        source = directory / f"forms_{target}.ptx"
        source.write_text(text)
        cubin = directory / f"forms_{target}.cubin"
        done = subprocess.run([ptxas, f"-arch={target}", str(source), "-o", str(cubin)],
                              capture_output=True, text=True, timeout=1200)  # fmt: skip
        if done.returncode == 0:
            return cubin, refused
        owner: dict[int, str] = {}
        current = None
        for number, line in enumerate(text.splitlines(), 1):
            m = _KERNEL.match(line)
            if m:
                current = m.group(1)
            owner[number] = current or ""
        bad = {}
        for message in (done.stdout + done.stderr).splitlines():
            m = _ERROR.search(message)
            if m and owner.get(int(m.group(1))):
                bad.setdefault(owner[int(m.group(1))], m.group(2).strip())
        if not bad:
            raise RuntimeError(f"ptxas failed outside any form: {(done.stdout + done.stderr)[-2000:]}")
        refused.update(bad)
        todo = [f for f in todo if f.name not in bad]


def disassemble(nvdisasm: str, cubin: Path) -> dict[str, list[str]]:
    """Kernel name -> its instructions as nvdisasm -c prints them (address stripped, no ';')."""
    out = subprocess.run(
        [nvdisasm, "-c", str(cubin)], capture_output=True, text=True, timeout=600, check=True
    )
    kernels: dict[str, list[str]] = {}
    current: list[str] = []
    for line in out.stdout.splitlines():
        m = _FUNCTION.match(line)
        if m:
            current = kernels.setdefault(m.group(1), [])
            continue
        m = _CODE.match(line)
        if m:
            current.append(m.group(2))
    return kernels


def observe(ptxas: str, nvdisasm: str, directory: Path) -> dict[str, Any]:
    forms = all_forms()
    result: dict[str, Any] = {
        "tools": {"ptxas": version(ptxas), "nvdisasm": version(nvdisasm)},
        "forms": {},
    }
    for target in sorted({f.target for f in forms}):
        cubin, refused = _assemble(ptxas, directory, forms, target)
        kernels = disassemble(nvdisasm, cubin)
        for f in forms:
            if f.target != target:
                continue
            entry: dict[str, Any] = {"key": f.key, "target": target}
            if f.name in refused:
                entry["refused"] = refused[f.name]
            else:
                lines = kernels[f.name]
                entry["sass"] = [s for s in lines if any(k in s.split()[s.startswith("@")] for k in KEEP)]
                if f.registers:
                    # The form moves register i of its vector to/from global word i (forms.py).
                    words = global_words(lines, "STG" if f.key["op"] != "st" else "LDG")
                    entry["registers"] = [words.get(i) for i in range(f.registers)]
                    if f.key["op"] == "ld.red":
                        entry["redval"] = words.get(256)
            result["forms"][f.name] = entry
    return result


def dump(found: dict[str, Any]) -> str:
    """The observations as JSON, one form per line (small, and a diff shows which form changed)."""
    forms = ",\n".join(f"  {json.dumps(n)}: {json.dumps(v)}" for n, v in found["forms"].items())
    return f'{{"tools": {json.dumps(found["tools"])},\n "forms": {{\n{forms}\n}}}}\n'


if __name__ == "__main__":
    ptxas_path, nvdisasm_path, out = sys.argv[1:4]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        found = observe(ptxas_path, nvdisasm_path, Path(tmp))
    Path(out).write_text(dump(found))
