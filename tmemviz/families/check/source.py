"""Where checked PTX comes from: each file read once (``-`` is stdin), or a string, by the explain scanner
with every function collected as it ends (:func:`tmemviz.families.explain.scan.records` with a
:class:`~tmemviz.ptx.body.Collector`) and checked then, so memory holds one function at a time."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import Finding


@dataclass
class Checked:
    """One checked file: its findings, and what the TMEM map draws."""

    path: str
    findings: list[Finding]
    kernels: list[Any] = field(default_factory=list)
    """The tracker's kernels (allocs, statements)."""
    regions: dict[str, list[Any]] = field(default_factory=dict)
    """Kernel name -> its placed regions."""

    def record(self) -> dict[str, Any]:
        return {"path": self.path, "findings": [f.record() for f in self.findings]}


def check_file(path: str, lines: Any, catalog: Catalog, defer: bool = True) -> Checked:
    """``defer``: a function's statements are collected only once it has a tcgen05 instruction (its calls
    otherwise: :mod:`tmemviz.ptx.deferred`); the findings and regions are the same either way."""
    from tmemviz.families.check.analysis import Checker
    from tmemviz.families.explain.follow.follower import Follower
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.scan import Module, records

    explainer = Explainer(catalog)
    explainer.lazy_cells = True  # cells are not written: each ld/st's extent comes from its layout
    checker = Checker()
    follower = Follower(explainer, catalog, checker.function)
    checker.follower = follower
    module = Module(path)
    module.instructions.extend(records(module, lines, explainer, explainer.footprint, follower, defer))
    follower.close()
    findings = checker.finish(module)
    kernels = [k for k, _ in follower.maps]
    regions = {k.name or f"line {k.line}": r for k, r in follower.maps}
    return Checked(path, findings, kernels, regions)


def check_sources(
    files: Sequence[str | os.PathLike[str]], text: str | None, catalog: Catalog
) -> list[Checked]:
    """Check each file (then ``text``, named ``<text>``); an unreadable file stops the run."""
    from tmemviz.files import text_lines

    if not files and text is None:
        raise TmemvizError("give one or more PTX files (or - for standard input)")
    out = [check_file(os.fspath(p), text_lines(p), catalog) for p in files]
    if text is not None:
        out.append(check_file("<text>", text.splitlines(), catalog))
    return out
