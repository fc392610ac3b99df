"""Which PTX ``.target`` runs which tcgen05 instruction: read from the module's ``.target`` directive.

Shared by ``explain`` (a warning on the instruction) and ``check`` (a finding); one table, no copy.
Pure: no I/O.
"""

from __future__ import annotations

import re

_SM = re.compile(r"^sm_(\d+)([af])$")


def runs_ld_red(target: str | None) -> bool:
    """Whether ``.target`` runs tcgen05.ld.red: sm_101a/sm_110a, families 101f, 103f, 110f and up
    (PTX 9.7.16.8.3, Target ISA notes).

    >>> [runs_ld_red(t) for t in ("sm_100a", "sm_103a", "sm_103f", "sm_110a", "sm_100f", "sm_120a", None)]
    [False, True, True, True, False, False, False]
    """
    m = _SM.match(target or "")
    if not m:
        return False
    arch = int(m.group(1))
    return arch in (101, 103) or 110 <= arch < 120  # sm_11x: "sm_110f or higher in the same family"
