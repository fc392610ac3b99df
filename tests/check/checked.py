"""A kernel's text as ``tmemviz check`` reads it, once per text for the session: test_deferred compares
it with the eager reading, test_mutations looks in it for a seeded bug's rule, and both check the same
kernels and seeded bugs."""

from __future__ import annotations

from functools import cache
from typing import Any

from tmemviz.catalog import Catalog, load_catalog
from tmemviz.cli.options import KINDS
from tmemviz.families.check.source import check_file

Seen = tuple[list[dict[str, Any]], str, list[tuple[Any, ...]]]


def seen(text: str, catalog: Catalog, defer: bool, lines: Any = None) -> Seen:
    """Findings (as records), regions, and each kernel's allocs and tcgen05 statements; ``lines``: the
    text as read some other way (a file's blocks: :func:`tmemviz.files.text_lines`)."""
    given = lines if lines is not None else text.splitlines(keepends=True)
    checked = check_file("k.ptx", given, catalog, defer=defer)
    kernels = [
        (k.name, k.line, [(a.line, a.columns) for a in k.allocs], [(s.line, s.op) for s in k.statements])
        for k in checked.kernels
    ]
    return [f.record() for f in checked.findings], repr(checked.regions), kernels


@cache
def deferred(text: str) -> Seen:
    """:func:`seen` as check reads by default (deferred), with the shipped shapes; the same text is
    checked once (callers only read the result)."""
    return seen(text, load_catalog((), KINDS), True)
