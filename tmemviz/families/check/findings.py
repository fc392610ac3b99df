"""One finding of ``tmemviz check``: a line, a severity, a rule id and one sentence; plain data."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tmemviz.families.check.rules import BY_ID, SEVERITIES


@dataclass(frozen=True, order=True)
class Finding:
    line: int
    severity: str
    rule: str
    message: str

    def __post_init__(self) -> None:
        assert self.rule in BY_ID, self.rule
        assert self.severity in SEVERITIES, self.severity

    def record(self) -> dict[str, Any]:
        return {"line": self.line, "severity": self.severity, "rule": self.rule, "message": self.message}


def failing(findings: Iterable[Finding]) -> bool:
    """Whether any finding is an error or a warning (``tmemviz check`` then exits 1).

    >>> failing([Finding(3, "note", "target", "runs on sm_100")])
    False
    >>> failing([Finding(3, "warning", "wait-ld", "")])
    True
    """
    return any(f.severity in ("error", "warning") for f in findings)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """By line, then severity (errors first), then rule; duplicates dropped."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(set(findings), key=lambda f: (f.line, rank[f.severity], f.rule, f.message))
