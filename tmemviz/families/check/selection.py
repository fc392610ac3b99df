"""Which findings a run of ``tmemviz check`` shows and fails on: rules selected and ignored, notes
shown or not, a baseline's findings taken out, and the level at which the run fails (``--fail-on``).

Pure: the findings are filtered as data; reading the baseline and the configuration is elsewhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import failing
from tmemviz.families.check.rules import BY_ID, SEVERITIES


def rule_ids(values: Iterable[str], where: str) -> tuple[str, ...]:
    """Rule ids given as ``a,b`` or one by one, checked against the registry (``where`` names the
    option or the configuration key, for the refusal).

    >>> rule_ids(["target, wait-ld", "target"], "--select")
    ('target', 'wait-ld')
    >>> rule_ids(["tagret"], "--ignore")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: unknown rule 'tagret' in --ignore; the rules are alloc-columns, ...
    """
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            rule = part.strip()
            if not rule:
                continue
            if rule not in BY_ID:
                raise TmemvizError(f"unknown rule '{rule}' in {where}; the rules are {', '.join(BY_ID)}")
            if rule not in out:
                out.append(rule)
    return tuple(out)


@dataclass(frozen=True)
class Policy:
    """What a run shows and fails on. By default: every rule, errors and warnings (notes hidden), and
    exit 1 on any error or warning left."""

    select: tuple[str, ...] | None = None
    """The rules applied (None: all)."""
    ignore: tuple[str, ...] = ()
    fail_on: str = "warning"
    notes: bool = False
    baseline: Any = None
    """A :class:`~tmemviz.families.check.baseline.Baseline`: the findings it records are not shown."""

    def __post_init__(self) -> None:
        assert self.fail_on in SEVERITIES, self.fail_on

    @property
    def shows_notes(self) -> bool:
        """Notes are shown with ``notes``, and when the run fails on them (``--fail-on note``)."""
        return self.notes or self.fail_on == "note"

    def applies(self, rule: str) -> bool:
        return (self.select is None or rule in self.select) and rule not in self.ignore

    def apply(self, checked: Sequence[Any]) -> list[Any]:
        """Each checked file (:class:`~tmemviz.families.check.source.Checked`) with only the findings
        shown; ``hidden`` counts the notes and the baseline's findings left out."""
        matcher = self.baseline.matcher() if self.baseline is not None else None
        out = []
        for c in checked:
            kept, notes, recorded = [], 0, 0
            for f in c.findings:
                if not self.applies(f.rule):
                    continue
                if f.severity == "note" and not self.shows_notes:
                    notes += 1
                elif matcher is not None and matcher.recorded(c.path, f, c.prints[f]):
                    recorded += 1
                else:
                    kept.append(f)
            hidden = {k: v for k, v in (("notes", notes), ("baseline", recorded)) if v}
            out.append(dataclasses.replace(c, findings=kept, hidden=hidden))
        return out

    def status(self, checked: Sequence[Any]) -> int:
        """The exit status of findings already :meth:`apply`'d: 1 when any is at ``fail_on`` or above."""
        return 1 if any(failing(c.findings, self.fail_on) for c in checked) else 0
