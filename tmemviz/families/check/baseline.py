"""Findings recorded once, so that a run fails only on new ones: each finding's fingerprint, and the
baseline file (``--baseline FILE``, ``--write-baseline FILE``).

A fingerprint must survive lines added or removed above a finding (and a compiler renumbering its
registers), and tell two findings of one file apart. It is made of the rule, the severity, the text of
the statement the finding is on (whitespace and comments aside, register numbers dropped: ``%rd12`` is
``%rd``), and which occurrence of that (rule, severity, text) in the file it is. Where no statement
text is known for a line, the message stands in for it, its numbers dropped.

The file is JSON: ``{"tmemviz-check-baseline": 1, "findings": [{"path", "rule", "fingerprint", "line",
"severity", "message"}, ...]}``, paths relative to the file's own directory with ``/``; ``line``,
``severity`` and ``message`` are for the people reading it (matching uses path, rule and fingerprint).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import Finding

FORMAT = "tmemviz-check-baseline"
"""The key naming the file's kind, its value the format's version."""
VERSION = 1
_REGISTER_NUMBER = re.compile(r"(%[A-Za-z_$][A-Za-z_$]*?)\d+\b")
_NUMBER = re.compile(r"\d+")


def normalized(text: str) -> str:
    """A statement as a fingerprint reads it: comments out, whitespace one space, no final ``;``,
    register numbers dropped (immediates kept: an nCols or an offset is part of what is wrong).

    >>> normalized("@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32  [%rd12], 64; // x")
    '@%p tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd], 64'
    """
    from tmemviz.ptx.text import strip_comment

    code = " ".join(strip_comment(text)[0].split())
    return _REGISTER_NUMBER.sub(r"\1", code.rstrip(";").rstrip())


class Fingerprints(Mapping[Finding, str]):
    """:func:`fingerprints` of a file's findings, worked out when first asked (a run that writes no
    SARIF and reads no baseline never asks); every finding of the file counted, whichever are shown."""

    def __init__(self, findings: Sequence[Finding], texts: Mapping[int, str]) -> None:
        self._given: tuple[Sequence[Finding], Mapping[int, str]] | None = (findings, texts)
        self._prints: dict[Finding, str] = {}

    def _made(self) -> dict[Finding, str]:
        if self._given is not None:
            self._prints, self._given = fingerprints(*self._given), None
        return self._prints

    def __getitem__(self, finding: Finding) -> str:
        return self._made()[finding]

    def __iter__(self) -> Iterator[Finding]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())


def fingerprints(findings: Sequence[Finding], texts: Mapping[int, str]) -> dict[Finding, str]:
    """Each finding's fingerprint (``findings`` in line order, as :func:`ordered` gives them)."""
    import hashlib  # (only where fingerprints are asked for)

    seen: Counter[str] = Counter()
    out = {}
    for f in findings:
        text = texts.get(f.line)
        anchor = normalized(text) if text else "message: " + _NUMBER.sub("#", f.message)
        key = f"{f.rule}\0{f.severity}\0{anchor}"
        out[f] = hashlib.sha256(f"{key}\0{seen[key]}".encode()).hexdigest()[:24]
        seen[key] += 1
    return out


def _key(path: str, directory: str) -> str:
    """A checked file's path as the baseline in ``directory`` names it (``-`` and ``<text>`` as they are).

    >>> _key("k/a.ptx", os.getcwd())
    'k/a.ptx'
    """
    if path in ("-", "<text>"):
        return path
    return os.path.relpath(os.path.abspath(path), directory).replace(os.sep, "/")


@dataclass
class Baseline:
    """The findings a baseline file records: (path, rule, fingerprint), each as often as recorded."""

    path: str
    entries: Counter[tuple[str, str, str]] = field(default_factory=Counter)

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def matcher(self) -> Matcher:
        """What one run takes out of the baseline (each entry matches one finding)."""
        return Matcher(self.directory, Counter(self.entries))


@dataclass
class Matcher:
    directory: str
    left: Counter[tuple[str, str, str]]

    def recorded(self, path: str, finding: Finding, fingerprint: str) -> bool:
        """Whether the baseline records this finding (then it is taken: it matches no other)."""
        key = (_key(path, self.directory), finding.rule, fingerprint)
        if self.left[key] <= 0:
            return False
        self.left[key] -= 1
        return True


def entries(checked: Sequence[Any], directory: str) -> list[dict[str, Any]]:
    """The records of every finding of ``checked`` (each with ``path``, ``findings``, ``prints``)."""
    out = [
        {
            "path": _key(c.path, directory),
            "rule": f.rule,
            "fingerprint": c.prints[f],
            "line": f.line,
            "severity": f.severity,
            "message": f.message,
        }
        for c in checked
        for f in c.findings
    ]
    return sorted(out, key=lambda e: (e["path"], e["line"], e["rule"], e["fingerprint"]))


def baseline_text(checked: Sequence[Any], path: str) -> str:
    """The baseline file recording every finding of ``checked``, to be written at ``path``."""
    found = entries(checked, os.path.dirname(os.path.abspath(path)))
    lines = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in found)
    body = f"\n{lines}\n " if found else ""
    return f'{{\n "{FORMAT}": {VERSION},\n "findings": [{body}]\n}}\n'


def from_entries(path: str, checked: Sequence[Any]) -> Baseline:
    """The baseline that :func:`baseline_text` writes for ``checked`` (without reading it back)."""
    directory = os.path.dirname(os.path.abspath(path))
    return Baseline(
        path, Counter((e["path"], e["rule"], e["fingerprint"]) for e in entries(checked, directory))
    )


def read_baseline(path: str) -> Baseline:
    """The baseline file at ``path``; anything else is refused in one sentence naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise TmemvizError(f"cannot read the baseline {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TmemvizError(f"the baseline {path} is not UTF-8 text; write it with --write-baseline") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TmemvizError(
            f"the baseline {path} is not JSON ({exc}); write it with --write-baseline"
        ) from None
    if (
        not isinstance(data, dict)
        or data.get(FORMAT) != VERSION
        or not isinstance(data.get("findings"), list)
    ):
        raise TmemvizError(
            f'the baseline {path} is not a tmemviz check baseline (a JSON object with "{FORMAT}": {VERSION} '
            'and a "findings" list); write it with --write-baseline'
        )
    found: Counter[tuple[str, str, str]] = Counter()
    for number, entry in enumerate(data["findings"], 1):
        values = [entry.get(k) if isinstance(entry, dict) else None for k in ("path", "rule", "fingerprint")]
        if not all(isinstance(v, str) and v for v in values):
            raise TmemvizError(
                f"the baseline {path}: finding {number} needs a path, a rule and a fingerprint (strings)"
            )
        found[(values[0], values[1], values[2])] += 1
    return Baseline(path, found)
