"""Which PTX ``.target`` runs which tcgen05 instruction, and on which devices a module's target runs: one
table, shared by ``explain`` (a warning on the instruction) and ``check`` (the ``target`` rule).

Each :class:`Feature` names what it covers, the targets that run it and where that comes from: the PTX
ISA's Target ISA notes (9.7.16.8.3 tcgen05.ld/ld.red, 9.7.16.9.3 tcgen05.shift, 9.7.16.10.9 tcgen05.mma)
and what ptxas 13.5 accepts, established by assembling one statement per feature for every target
(tests/ptx/observe_targets.py; tests/ptx/targets_observed.json holds what it printed). An ``a`` target
runs on exactly its compute capability, an ``f`` target on every member of its family with the same or a
higher minor version (PTX ISA 5.1 "Target ISA"). ``sm_101a``/``sm_101f`` are the names 11.0 had before
PTX ISA 9.0; ``sm_107a``/``sm_107f`` need PTX ISA 9.4 (ptxas 13.5 refuses them in older modules).

Tensor Memory holds 128 lanes of 512 columns of 32 bits per SM (PTX ISA 9.7.16.2) on every target here;
a larger figure reported for sm_107 (576 columns, in a third-party DSL's helpers) is not in the PTX ISA
seen, so it is not relied on. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_TARGET = re.compile(r"^sm_(\d+)([af]?)$")

TCGEN05_ARCHS = (100, 101, 103, 107, 110)
FAMILIES = {100: (100, 103), 101: (101,), 103: (103,), 107: (107,), 110: (110,)}
"""``f`` target -> the compute capabilities (x10) that run it."""
CAPACITY = 512
"""Tensor Memory columns per SM (PTX ISA 9.7.16.2), on every target with tcgen05."""
CAPACITIES: dict[int, tuple[int, str]] = {
    100: (512, "PTX ISA 9.7.16.2: 128 lanes x 512 columns per SM"),
    101: (512, "PTX ISA 9.7.16.2 (sm_101 is sm_110 before PTX ISA 9.0)"),
    103: (512, "PTX ISA 9.7.16.2"),
    107: (512, "PTX ISA 9.7.16.2; 576 is reported by a DSL's helpers, not by the ISA, so not relied on"),
    110: (512, "PTX ISA 9.7.16.2; openxla/xla#40118 (Tensor Memory placed past column 512 trapped)"),
}
"""Compute capability (x10) -> Tensor Memory columns per SM, and the source."""


def parse(target: str | None) -> tuple[int, str] | None:
    """``sm_100a`` -> (100, "a"); None when not an ``sm_`` target.

    >>> parse("sm_100a"), parse("sm_120"), parse("compute_90"), parse(None)
    ((100, 'a'), (120, ''), None, None)
    """
    m = _TARGET.match(target or "")
    return (int(m.group(1)), m.group(2)) if m else None


@dataclass(frozen=True)
class Feature:
    name: str
    """What the feature is, as a message names it: ``tcgen05.shift``, ``tcgen05.mma .kind::i8``."""
    archs: tuple[int, ...]
    """Compute capabilities (x10) whose targets run it."""
    suffixes: str
    """``a`` (architecture-specific targets only) or ``af`` (family-specific ones too)."""
    source: str

    def runs(self, target: str | None) -> bool:
        found = parse(target)
        return found is not None and found[0] in self.archs and found[1] != "" and found[1] in self.suffixes

    def targets(self) -> str:
        """The targets that run it, in words: ``sm_100a, sm_103a, sm_110a``."""
        names = [f"sm_{a}{s}" for a in self.archs if a != 101 for s in self.suffixes]
        return ", ".join(names)


TCGEN05 = Feature("tcgen05", TCGEN05_ARCHS, "af", "PTX ISA 9.7.16 Target ISA notes; ptxas 13.5")
LD_RED = Feature("tcgen05.ld.red", (101, 103, 107, 110), "af", "PTX ISA 9.7.16.8.3; ptxas 13.5")
SHIFT = Feature("tcgen05.shift", (100, 101, 103, 107, 110), "a", "PTX ISA 9.7.16.9.3; ptxas 13.5")
KIND_I8 = Feature("tcgen05.mma .kind::i8", (100, 101, 110), "a", "ptxas 13.5 (refused on sm_103, sm_107, f)")
SCALE_INPUT_D = Feature(
    "tcgen05.mma scale-input-d", (100, 103, 107), "af", "ptxas 13.5 (refused on sm_110a/f)"
)

Matcher = Callable[[str, tuple[str, ...]], bool]


def _mma_scaled_d(opcode: str, operands: tuple[str, ...]) -> bool:
    """A dense, non-.ws MMA whose last operand is an immediate: its scale-input-d (PTX 9.7.16.10.9)."""
    if not opcode.startswith("tcgen05.mma") or ".ws" in opcode or "block_scale" in opcode or not operands:
        return False
    last = operands[-1].strip()
    return last[:1].isdigit()


RULES: tuple[tuple[Feature, Matcher], ...] = (
    (LD_RED, lambda opcode, operands: opcode.startswith("tcgen05.ld.red")),
    (SHIFT, lambda opcode, operands: opcode.startswith("tcgen05.shift")),
    (KIND_I8, lambda opcode, operands: opcode.startswith("tcgen05.mma") and "kind::i8" in opcode),
    (SCALE_INPUT_D, _mma_scaled_d),
)
"""Features narrower than tcgen05 itself, and which statements use them."""


def unsupported(target: str | None, opcode: str, operands: tuple[str, ...] = ()) -> list[Feature]:
    """The features a tcgen05 statement uses that ``target`` does not run (all tcgen05 when it runs none).

    >>> [f.name for f in unsupported("sm_103a", "tcgen05.mma.cta_group::1.kind::i8", ("[%r1]", "%p1"))]
    ['tcgen05.mma .kind::i8']
    >>> [f.name for f in unsupported("sm_110a", "tcgen05.mma.cta_group::1.kind::f16", ("[%r1]", "%p1", "8"))]
    ['tcgen05.mma scale-input-d']
    >>> unsupported("sm_100a", "tcgen05.shift.cta_group::1.down", ("[%r1]",))
    []
    """
    if not TCGEN05.runs(target):
        return [TCGEN05]
    return [f for f, used in RULES if used(opcode, operands) and not f.runs(target)]


def runs_ld_red(target: str | None) -> bool:
    """Whether ``.target`` runs tcgen05.ld.red.

    >>> [runs_ld_red(t) for t in ("sm_100a", "sm_103a", "sm_103f", "sm_110a", "sm_100f", "sm_120a", None)]
    [False, True, True, True, False, False, False]
    """
    return LD_RED.runs(target)


def runs_tcgen05(target: str | None) -> bool:
    """Whether a module of this ``.target`` may hold tcgen05 instructions.

    >>> [runs_tcgen05(t) for t in ("sm_100a", "sm_100f", "sm_103a", "sm_110f", "sm_100", "sm_120a", "sm_90a")]
    [True, True, True, True, False, False, False]
    """
    return TCGEN05.runs(target)


def capacity(target: str | None) -> int:
    """Tensor Memory columns per SM on ``target``'s devices (:data:`CAPACITIES`; :data:`CAPACITY` for a
    target without its own row, or none).

    >>> capacity("sm_100a"), capacity("sm_110f"), capacity(None)
    (512, 512, 512)
    """
    found = parse(target)
    return CAPACITIES.get(found[0], (CAPACITY, ""))[0] if found else CAPACITY


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
