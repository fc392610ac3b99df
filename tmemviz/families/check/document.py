"""Checked PTX modules as one :class:`~tmemviz.draw.document.Document`: findings as JSON, CSV and a
table, SARIF 2.1.0 for code scanning, and the kernels' TMEM map (the explain family's figure) as PNG,
SVG or HTML."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tmemviz.draw.document import Document, once
from tmemviz.families.check.findings import failing
from tmemviz.families.check.source import Checked
from tmemviz.values import plural

NOTES = (
    "a finding rests only on what the PTX proves: an address the analysis cannot follow (a register "
    "defined twice, a base it did not see allocated) or an nCols in a register is not judged",
)


def check_document(checked: Sequence[Checked], run: Any = None, notes: Sequence[str] = ()) -> Document:
    """``run``: the :class:`~tmemviz.families.check.sarif.Invocation` SARIF reports (its exit status, start
    and root); ``notes``: what the run's options left out, said under the table and in the JSON."""
    from tmemviz.families.check.sarif import Invocation

    run = run or Invocation(status(checked))
    files = [c.record() for c in checked]
    count = sum(len(f["findings"]) for f in files)

    def csv():
        header = ("path", "line", "severity", "rule", "message")
        rows = (
            (f["path"], x["line"], x["severity"], x["rule"], x["message"])
            for f in files
            for x in f["findings"]
        )
        return header, rows

    def table(width: int):
        from tmemviz.families.check.views import findings_view

        return findings_view(files, [c.hidden for c in checked])

    def figure():  # the same at every detail: built once per result (a large kernel's takes seconds)
        from tmemviz.families.explain.figures import map_spec

        marks = {c.path: c.findings for c in checked}
        budgets = {c.path: (c.target, c.budgets) for c in checked}
        return map_spec([(c.path, c.kernels, c.regions) for c in checked], "auto", marks, budgets)

    def sarif() -> str:
        from tmemviz import __version__
        from tmemviz.families.check.sarif import sarif_text

        return sarif_text(checked, __version__, run)

    return Document(
        kind="check",
        title=f"{plural(count, 'finding')} in {plural(len(files), 'file')}",
        header={},
        lists=lambda: (("files", files),),
        main="files",
        nested="findings",
        csv=csv,
        views={"findings": table},
        figure=once(figure),
        more={"sarif": sarif},
        notes=(*NOTES, *notes),
        subject=checked,
    )


def check_files(files: Any, text: str | None, catalog: Any) -> Document:
    """Check ``files`` (one path or directory, or several; ``-`` is stdin) and ``text``, as one document
    holding every finding (notes too: the command line's options choose what a run shows)."""
    import os

    from tmemviz.families.check.sarif import Invocation
    from tmemviz.families.check.source import check_sources

    run = Invocation()
    paths = [files] if isinstance(files, (str, os.PathLike)) else list(files)
    checked = check_sources(paths, text, catalog)
    run.status = status(checked)
    return check_document(checked, run)


def status(checked: Sequence[Checked], fail_on: str = "warning") -> int:
    """The exit status: 1 when any file has a finding at ``fail_on`` or above (an error or a warning by
    default), else 0."""
    return 1 if any(failing(c.findings, fail_on) for c in checked) else 0
