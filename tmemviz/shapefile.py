"""Reading a shape file safely: size limit, ``yaml.safe_load``, one-line errors.

Shared by the tcgen05.ld/st catalog (:mod:`tmemviz.catalog`) and the
tcgen05.cp catalog (:mod:`tmemviz.catalog_cp`); both report problems as
``FILE: field 'NAME': what is wrong`` through :class:`TmemvizError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tmemviz.errors import TmemvizError

MAX_FILE_BYTES = 1 << 20


def read_yaml(path: Path) -> Any:
    """The YAML document of ``path``; unreadable, huge or malformed files raise one sentence."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TmemvizError(f"{path}: {size} bytes is too large for a shape file (limit 1 MiB)")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TmemvizError(f"{path}: cannot read the file ({exc})") from None
    try:
        return yaml.safe_load(text)
    except RecursionError:
        raise TmemvizError(f"{path}: the YAML is nested too deeply to be a shape file") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise TmemvizError(f"{path}: not valid YAML{at}: {problem}") from None


def yaml_files(directory: Path, *, builtin: bool) -> list[Path]:
    """The ``*.yaml`` / ``*.yml`` files directly inside ``directory``, sorted by name."""
    if not directory.is_dir():
        what = "the shipped layouts directory" if builtin else "layouts directory"
        raise TmemvizError(f"{what} '{directory}' does not exist or is not a directory")
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def check_fields(
    doc: Any, source: str, fields: dict[str, type], required: tuple[str, ...], what: str = "fields"
) -> None:
    """A mapping with only known ``fields``, all ``required`` ones, each of its declared type."""
    if not isinstance(doc, dict):
        raise TmemvizError(f"{source}: expected a mapping of {what}")
    for key in doc:
        if key not in fields:
            raise TmemvizError(f"{source}: unknown field '{key}'; allowed fields: {', '.join(fields)}")
    for key in required:
        if key not in doc:
            raise TmemvizError(f"{source}: field '{key}' is missing")
    for key, kind in fields.items():
        if key in doc and not is_kind(doc[key], kind):
            raise TmemvizError(f"{source}: field '{key}' must be {kind_name(kind)}, got {describe(doc[key])}")


def is_kind(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def kind_name(kind: type) -> str:
    return {int: "a whole number", str: "a string", list: "a list", dict: "a mapping"}.get(
        kind, kind.__name__
    )


def describe(value: Any) -> str:
    """A short description; never ``repr`` a container, which an alias bomb would expand."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} fields"
    if isinstance(value, str):
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    return f"{type(value).__name__} {str(value)[:40]}"
