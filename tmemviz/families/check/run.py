"""One run of ``tmemviz check`` as CI runs it: the project's configuration and the command line's options
made one :class:`~tmemviz.families.check.selection.Policy`, the inputs checked, a baseline read or
written, and the document to show with the run's exit status.

Everything that can be refused (the configuration, a rule id, the baseline, the root) is refused
before any input is read; nothing is written before every input was read.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.draw.document import Document
from tmemviz.errors import TmemvizError
from tmemviz.families.check.selection import Policy, rule_ids
from tmemviz.values import plural


@dataclass(frozen=True)
class Request:
    """What the command line said; None where it said nothing (the configuration then decides)."""

    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    fail_on: str | None = None
    notes: bool | None = None
    both_notes: bool = False
    """``--notes`` and ``--no-notes`` both given."""
    baseline: str | None = None
    write_baseline: str | None = None
    exclude: Sequence[str] | None = None
    root: str | None = None
    sass: str | None = None
    """The cubin or SASS listing of the one PTX file given: wait-ld warnings are judged against it."""
    maps: bool = True
    """The kernels' TMEM map is made: the output draws it (png, svg, html)."""


def policy_of(request: Request, config: Any) -> Policy:
    """The command line's options over the configuration's settings, one by one."""
    if request.both_notes:
        raise TmemvizError("--notes and --no-notes contradict each other; give one")
    select = rule_ids(request.select, "--select") if request.select is not None else config.select
    ignore = rule_ids(request.ignore, "--ignore") if request.ignore is not None else config.ignore
    notes = request.notes if request.notes is not None else config.notes
    return Policy(
        select=select,
        ignore=ignore or (),
        fail_on=request.fail_on or config.fail_on or "warning",
        notes=bool(notes),
    )


def run(
    files: Sequence[str], request: Request, catalog: Catalog, check_format: Callable[[Document], None]
) -> tuple[Document, int]:
    """The document of one run and its exit status. ``check_format`` refuses an output the document
    cannot be written as; it is asked before a baseline file is written."""
    from tmemviz.families.check.baseline import baseline_text, from_entries, read_baseline
    from tmemviz.families.check.config import settings
    from tmemviz.families.check.document import check_document
    from tmemviz.families.check.sarif import Invocation, now
    from tmemviz.families.check.source import check_sources
    from tmemviz.families.check.walk import Exclude

    start = now()
    config = settings()
    policy = policy_of(request, config)
    exclude = None
    if request.exclude is not None:
        exclude = Exclude(tuple(request.exclude), os.getcwd())
    elif config.exclude:
        exclude = Exclude(config.exclude, config.directory)
    root = os.path.abspath(request.root or os.getcwd())
    if not os.path.isdir(root):
        raise TmemvizError(
            f"--root {request.root} is not a directory; give the directory SARIF URIs start from"
        )
    written = request.write_baseline
    path = None if written else request.baseline or config.baseline
    baseline = read_baseline(path) if path else None

    checked = check_sources(files, None, catalog, exclude, request.sass, request.maps)
    text = None
    if written:
        current = policy.apply(checked)
        text = baseline_text(current, written)
        baseline = from_entries(written, current)
    policy = dataclasses.replace(policy, baseline=baseline)
    shown = policy.apply(checked)
    status = policy.status(shown)
    doc = check_document(shown, Invocation(status, start, root), _said(shown, baseline))
    if written and text is not None:
        from tmemviz.writing import write_atomic

        check_format(doc)
        write_atomic(written, text.encode())
    return doc, status


def _said(shown: Sequence[Any], baseline: Any) -> list[str]:
    """What a run left out, said under the table (and in the JSON's notes)."""
    notes = sum(c.hidden.get("notes", 0) for c in shown)
    recorded = sum(c.hidden.get("baseline", 0) for c in shown)
    out = []
    if notes:
        out.append(f"{plural(notes, 'note')} not shown: --notes shows them")
    if recorded:
        out.append(f"{plural(recorded, 'finding')} recorded in the baseline {baseline.path} not shown")
    return out
