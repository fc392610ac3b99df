"""Findings as SARIF 2.1.0 (OASIS), the format GitHub code scanning reads: one run, tool ``tmemviz`` with
every rule (its descriptions, help, link and default level), the invocation (exit code, start and end
in UTC), and one result per finding: its ``ruleId``, level, message, the file as a URI relative to the
root (``uriBaseId`` ``%SRCROOT%``, given in ``originalUriBaseIds``), the line, and a fingerprint that
survives line shifts (``partialFingerprints``)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tmemviz.families.check.rules import DOCS_URL, RULES, Rule

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
VERSION = "2.1.0"
ROOT = "%SRCROOT%"
"""The ``uriBaseId`` of every file under the root: code scanning resolves it against the checkout."""
FINGERPRINT = "tmemviz/v1"
"""The ``partialFingerprints`` key (:func:`tmemviz.families.check.baseline.fingerprints`)."""


def now() -> float:
    """The time now, in seconds since the epoch (made a SARIF date-time only where one is written)."""
    return time.time()


@dataclass
class Invocation:
    """One run of ``tmemviz check``: when it started, its exit status, and the root relative URIs
    start from (the working directory by default)."""

    status: int = 0
    start: float = field(default_factory=now)
    root: str = field(default_factory=os.getcwd)


def utc(moment: float) -> str:
    """A SARIF date-time (seconds since the epoch as UTC, milliseconds, ``Z``).

    >>> utc(1735787045.678901)
    '2025-01-02T03:04:05.678Z'
    """
    from datetime import datetime, timezone  # only where SARIF is written

    return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def descriptor(rule: Rule) -> dict[str, Any]:
    """A rule as SARIF's ``reportingDescriptor``."""
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.why},
        "helpUri": rule.help_uri,
        "help": {
            "text": f"{rule.title}. {rule.why} See {rule.help_uri}",
            "markdown": f"**{rule.title}**\n\n{rule.why}\n\n[tmemviz check: {rule.id}]({rule.help_uri})",
        },
        "defaultConfiguration": {"level": rule.level},
    }


def artifact(path: str, root: str) -> dict[str, Any]:
    """Where a checked file is: relative to the root (with its ``uriBaseId``) when under it, else an
    absolute ``file:`` URI; standard input and text are named as they are (percent-encoded).

    >>> artifact(os.path.join("k", "a b.ptx"), os.getcwd())
    {'uri': 'k/a%20b.ptx', 'uriBaseId': '%SRCROOT%'}
    >>> artifact("<text>", os.getcwd()), artifact("<matmul.ptx>", os.getcwd())
    ({'uri': '%3Ctext%3E'}, {'uri': '%3Cmatmul.ptx%3E'})
    """
    if path == "-" or (path.startswith("<") and path.endswith(">")):  # texts the Python API was given
        return {"uri": quote(path, safe="")}
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive (Windows): no relative path
        relative = os.pardir
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(relative.replace(os.sep, "/"), safe="/"), "uriBaseId": ROOT}


def sarif_log(files: Sequence[Any], version: str, run: Invocation | None = None) -> dict[str, Any]:
    """The SARIF log of checked files (each with ``path``, ``findings`` and their ``prints``)."""
    run = run or Invocation()
    index = {rule.id: i for i, rule in enumerate(RULES)}
    results = []
    for checked in files:
        where = artifact(checked.path, run.root)
        for f in checked.findings:
            results.append(
                {
                    "ruleId": f.rule,
                    "ruleIndex": index[f.rule],
                    "level": f.severity,
                    "message": {"text": f.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": where,
                                "region": {"startLine": max(1, f.line)},
                            }
                        }
                    ],
                    "partialFingerprints": {FINGERPRINT: checked.prints[f]},
                }
            )
    driver = {
        "name": "tmemviz",
        "version": version,
        "informationUri": f"{DOCS_URL}check.md",
        "rules": [descriptor(rule) for rule in RULES],
    }
    invocation = {
        "executionSuccessful": True,  # findings are the run's answer; a run that fails writes no SARIF
        "exitCode": run.status,
        "startTimeUtc": utc(run.start),
        "endTimeUtc": utc(max(now(), run.start)),
    }
    root = {"uri": Path(os.path.abspath(run.root)).as_uri().rstrip("/") + "/"}
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [invocation],
                "originalUriBaseIds": {ROOT: root},
                "results": results,
            }
        ],
    }


def sarif_text(files: Sequence[Any], version: str, run: Invocation | None = None) -> str:
    return json.dumps(sarif_log(files, version, run), indent=1) + "\n"
