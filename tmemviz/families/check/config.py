"""``[tool.tmemviz.check]`` in the nearest ``pyproject.toml``: a project's settings for ``tmemviz check``.

The file is looked for from the working directory upward; the first ``pyproject.toml`` found is the
project's, and a project without the table gets the defaults (an enclosing project's settings do not
leak in). Paths in it (``baseline``, ``exclude``) are relative to the file's directory. Options given on
the command line replace the file's settings one by one. A setting that is not understood is refused in
one sentence naming the file, the key and what it takes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.check.rules import SEVERITIES
from tmemviz.families.check.selection import rule_ids

FILE = "pyproject.toml"
TABLE = "[tool.tmemviz.check]"
KEYS = ("select", "ignore", "fail-on", "notes", "baseline", "exclude")


@dataclass(frozen=True)
class Settings:
    """What the configuration says; None where it says nothing."""

    path: str | None = None
    """The pyproject.toml read (None: none found, or it has no table)."""
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    fail_on: str | None = None
    notes: bool | None = None
    baseline: str | None = None
    """A path, already joined to the file's directory."""
    exclude: tuple[str, ...] | None = None

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()


def find(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start``."""
    for directory in (start, *start.parents):
        candidate = directory / FILE
        if candidate.is_file():
            return candidate
    return None


def settings(start: Path | None = None) -> Settings:
    """The settings of the nearest pyproject.toml above ``start`` (the working directory by default)."""
    path = find((start or Path.cwd()).absolute())
    if path is None:
        return Settings()
    return parse(_load(path), _shown(path))


def _shown(path: Path) -> str:
    """The file as a refusal names it: from the working directory when it is there or above."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def _load(path: Path) -> Mapping[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 reads TOML with tomli, tomllib's source
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise TmemvizError(f"cannot read {_shown(path)}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TmemvizError(f"{_shown(path)} is not valid TOML ({exc}); fix it to read its {TABLE}") from None


def parse(data: Mapping[str, Any], path: str) -> Settings:
    """The settings of a parsed pyproject.toml (``path`` names it in refusals).

    >>> found = parse({"tool": {"tmemviz": {"check": {"fail-on": "error", "ignore": ["target"]}}}}, "p.toml")
    >>> found.fail_on, found.ignore, found.select, found.path
    ('error', ('target',), None, 'p.toml')
    """
    tool = data.get("tool", {})
    tmemviz = tool.get("tmemviz", {}) if isinstance(tool, dict) else {}
    table = tmemviz.get("check") if isinstance(tmemviz, dict) else None
    if table is None:
        return Settings()
    where = f"{path}: {TABLE}"
    if not isinstance(table, dict):
        raise TmemvizError(f"{where} must be a table of settings ({', '.join(KEYS)})")
    for key in table:
        if key not in KEYS:
            raise TmemvizError(f"{where} has no setting '{key}'; the settings are {', '.join(KEYS)}")
    directory = os.path.dirname(os.path.abspath(path))

    def strings(key: str) -> tuple[str, ...] | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TmemvizError(f'{where} {key} must be a list of strings, e.g. {key} = ["..."]')
        return tuple(value)

    select, ignore = strings("select"), strings("ignore")
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in SEVERITIES:
        raise TmemvizError(f"{where} fail-on must be one of {', '.join(SEVERITIES)}, got {fail_on!r}")
    notes = table.get("notes")
    if notes is not None and not isinstance(notes, bool):
        raise TmemvizError(f"{where} notes must be true or false, got {notes!r}")
    baseline = table.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or not baseline):
        raise TmemvizError(f"{where} baseline must be a file name (a string), got {baseline!r}")
    return Settings(
        path=path,
        select=None if select is None else rule_ids(select, f"{where} select"),
        ignore=None if ignore is None else rule_ids(ignore, f"{where} ignore"),
        fail_on=fail_on,
        notes=notes,
        baseline=None if baseline is None else os.path.join(directory, baseline),
        exclude=strings("exclude"),
    )
