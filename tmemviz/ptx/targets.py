"""Which PTX ``.target`` runs tcgen05 (and tcgen05.ld.red), and on which devices a module's target runs.

PTX ISA target notes (and CCCL's instruction table): tcgen05 needs an architecture-specific (``a``) or
family-specific (``f``) target of compute capability 10.0, 10.3 or 11.0 (``sm_101a``/``sm_101f`` are
the names 11.0 had before PTX ISA 9.0). An ``a`` target runs on exactly its compute capability; an ``f``
target on every member of its family with the same or a higher minor version.

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


TCGEN05_ARCHS = (100, 101, 103, 110)
FAMILIES = {100: (100, 103), 101: (101,), 103: (103,), 110: (110,)}
"""``f`` target -> the compute capabilities (x10) that run it."""
_TARGET = re.compile(r"^sm_(\d+)([af]?)$")


def parse(target: str | None) -> tuple[int, str] | None:
    """``sm_100a`` -> (100, "a"); None when not an ``sm_`` target.

    >>> parse("sm_100a"), parse("sm_120"), parse("compute_90"), parse(None)
    ((100, 'a'), (120, ''), None, None)
    """
    m = _TARGET.match(target or "")
    return (int(m.group(1)), m.group(2)) if m else None


def runs_tcgen05(target: str | None) -> bool:
    """Whether a module of this ``.target`` may hold tcgen05 instructions.

    >>> [runs_tcgen05(t) for t in ("sm_100a", "sm_100f", "sm_103a", "sm_110f", "sm_100", "sm_120a", "sm_90a")]
    [True, True, True, True, False, False, False]
    """
    found = parse(target)
    return found is not None and found[0] in TCGEN05_ARCHS and found[1] in ("a", "f")


def devices(target: str) -> str:
    """In words, which compute capabilities run a module of this target.

    >>> devices("sm_100a"), devices("sm_100f"), devices("sm_120a")
    ('compute capability 10.0 only', 'compute capability 10.0 and 10.3', 'compute capability 12.0 only')
    """
    found = parse(target)
    if found is None:
        return f"whatever '{target}' names"
    arch, suffix = found
    if suffix == "f":
        caps = FAMILIES.get(arch, (arch,))
        return "compute capability " + " and ".join(f"{c // 10}.{c % 10}" for c in caps)
    if suffix == "a":
        return f"compute capability {arch // 10}.{arch % 10} only"
    return f"compute capability {arch // 10}.{arch % 10} and later (no architecture-specific features)"
