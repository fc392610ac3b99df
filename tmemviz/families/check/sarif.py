"""Findings as SARIF 2.1.0 (OASIS), the format GitHub code scanning reads: one run, tool ``tmemviz``
with every rule, one result per finding with its ``ruleId``, level and ``region.startLine``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tmemviz.families.check.rules import RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"


def sarif_log(files: Sequence[Any], version: str) -> dict[str, Any]:
    """The SARIF log of checked files (each with ``path`` and ``findings``)."""
    rules = [
        {
            "id": rule.id,
            "name": "".join(part.capitalize() for part in rule.id.split("-")),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.why},
            "help": {"text": f"{rule.why} See docs/check.md, rule {rule.id}."},
        }
        for rule in RULES
    ]
    index = {rule.id: i for i, rule in enumerate(RULES)}
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": f.severity,
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(checked.path)},
                        "region": {"startLine": max(1, f.line)},
                    }
                }
            ],
        }
        for checked in files
        for f in checked.findings
    ]
    driver = {"name": "tmemviz", "version": version, "rules": rules}
    return {"$schema": SCHEMA, "version": VERSION, "runs": [{"tool": {"driver": driver}, "results": results}]}


def _uri(path: str) -> str:
    """A relative URI as code scanning expects (``-`` and ``<text>`` keep their names).

    >>> _uri("kernels\\\\a b.ptx"), _uri("./k.ptx")
    ('kernels/a%20b.ptx', 'k.ptx')
    """
    from urllib.parse import quote

    text = path.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return quote(text, safe="/<>-._~")


def sarif_text(files: Sequence[Any], version: str) -> str:
    return json.dumps(sarif_log(files, version), indent=1) + "\n"
