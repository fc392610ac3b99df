"""Running NVIDIA's assembler on generated PTX and mapping its complaints back to statements."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_ERROR_LINE = re.compile(r"line (\d+); (?:error|fatal)")


def assemble_lines(
    ptxas: str, directory: Path, lines: list[str], where: dict[int, str]
) -> tuple[int, dict[str, str]]:
    """Assemble ``lines`` for sm_100a; return the status and {rejected statement: ptxas's message}.

    ``where`` maps 1-based line numbers to the statement written there; an error
    on any other line fails the calling test.
    """
    source = directory / "k.ptx"
    source.write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [ptxas, "-arch=sm_100a", str(source), "-o", str(directory / "k.cubin")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    rejected: dict[str, str] = {}
    for message in (result.stdout + result.stderr).splitlines():
        m = _ERROR_LINE.search(message)
        if m is None:
            continue
        number = int(m.group(1))
        assert number in where, f"ptxas error outside the statements: {message}"
        rejected[where[number]] = message
    return result.returncode, rejected
