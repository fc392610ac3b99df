"""One finding of ``tmemviz check``: a line, a severity, a rule id and one sentence; plain data."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tmemviz.families.check.rules import BY_ID, SEVERITIES


@dataclass(frozen=True, order=True)
class Finding:
    line: int
    severity: str
    rule: str
    message: str
    hazard: Any = field(default=None, compare=False, repr=False)
    """What a ``wait-ld`` finding is about (:class:`~tmemviz.families.explain.follow.pending.Hazard`:
    the load or store's line, the instruction overtaking it), for judging it against the SASS
    (:mod:`tmemviz.families.check.scoreboards`); not part of what the finding is or shows."""

    def __post_init__(self) -> None:
        assert self.rule in BY_ID, self.rule
        assert self.severity in SEVERITIES, self.severity

    def record(self) -> dict[str, Any]:
        return {"line": self.line, "severity": self.severity, "rule": self.rule, "message": self.message}


def access_error(a: Any, access: Any, warps: Any, rule: str, where: str, rest: str) -> Finding:
    """An error at a Tensor Memory access (``tcgen05.OP{where} in warp W{rest}``) for the warps that make
    it: a note where the CTA may not have them (:meth:`~tmemviz.families.explain.follow.kernel.Analysed.
    severity`)."""
    index = access.ins.index
    return Finding(
        access.ins.line, a.severity("error", warps, index), rule,
        f"tcgen05.{access.op}{where}{a.who(warps, index)}{rest}",
    )  # fmt: skip


def at_least(severity: str, level: str) -> bool:
    """Whether ``severity`` is ``level`` or more severe.

    >>> at_least("error", "warning"), at_least("note", "warning"), at_least("warning", "warning")
    (True, False, True)
    """
    return SEVERITIES.index(severity) <= SEVERITIES.index(level)


def failing(findings: Iterable[Finding], fail_on: str = "warning") -> bool:
    """Whether any finding is at ``fail_on`` or above (``tmemviz check`` then exits 1); by default an
    error or a warning.

    >>> failing([Finding(3, "note", "target", "runs on sm_100")])
    False
    >>> warning = Finding(3, "warning", "wait-ld", "")
    >>> failing([warning]), failing([warning], "error")
    (True, False)
    """
    return any(at_least(f.severity, fail_on) for f in findings)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """By line, then severity (errors first), then rule; duplicates dropped."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(set(findings), key=lambda f: (f.line, rank[f.severity], f.rule, f.message))
