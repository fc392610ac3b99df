"""Where checked PTX comes from: each file read once (``-`` is stdin), or a string, by the explain scanner
with every function followed as it ends (:func:`tmemviz.families.explain.scan.records` with a
:class:`~tmemviz.families.explain.follow.follower.Follower`), so memory holds one function at a time.

``check`` judges PTX. Input that holds none (an empty file, Python, a README), a SASS listing or a cubin
is refused in one sentence naming what it is, told by content as ``explain`` tells PTX from SASS
(:func:`tmemviz.sass.listing.sniff`, :func:`tmemviz.sass.cubin.is_elf`), never by the suffix.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import Finding, ordered
from tmemviz.families.explain.follow.follower import Follower
from tmemviz.gcpause import paused
from tmemviz.ptx.text import is_instruction

READS = "tmemviz check reads PTX modules (.target, .entry/.func and their statements) as compilers write them"
"""What every refusal of input that is not PTX ends with."""
FOR_SASS = "but tmemviz check judges PTX; run tmemviz explain for SASS, or check the PTX it was built from"


@dataclass
class Checked:
    """One checked file: its findings, and what the TMEM map draws."""

    path: str
    findings: list[Finding]
    kernels: list[Any] = field(default_factory=list)
    """The tracker's kernels (allocs, statements)."""
    regions: dict[str, list[Any]] = field(default_factory=dict)
    """Kernel name -> its placed regions."""
    prints: Mapping[Finding, str] = field(default_factory=dict)
    """Each finding's fingerprint (:mod:`tmemviz.families.check.baseline`): SARIF's partialFingerprints,
    and what a baseline matches."""
    hidden: dict[str, int] = field(default_factory=dict)
    """Findings a run's options left out, by why (``notes``, ``baseline``): the table says how many."""
    budgets: dict[str, Any] = field(default_factory=dict)
    """Kernel name -> its Tensor Memory budget (:class:`tmemviz.families.explain.budget.Budget`)."""
    target: str | None = None
    """The module's ``.target``: whose capacity the map's budget is drawn against."""

    def record(self) -> dict[str, Any]:
        return {"path": self.path, "findings": [f.record() for f in self.findings]}


class Reading(Follower):
    """The follower, noting also what only ``check`` needs of the same read: whether the text is PTX at
    all, and the tcgen05 statements the reader could not read."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ptx = False
        """A .target, a function or a tcgen05 statement was read."""
        self.unreadable: list[tuple[int, str]] = []
        self.texts: dict[int, str] = {}
        """Line -> the statement starting there, for the statements that could not be read."""

    def observe(self, event: Any) -> None:
        super().observe(event)
        kind, s = event.kind, event.statement
        if kind in ("target", "function", "tcgen05"):
            self.ptx = True
        elif kind == "problem" and s is not None and is_instruction(s.text):
            # A tcgen05 statement the shared reader could not read (explain warns "not read as PTX"),
            # or one cut by the reader's bound or by the end of the text: no rule sees it.
            self.ptx = True
            self.unreadable.append((s.first, str(event.message)))
            self.texts.setdefault(s.first, s.text)


def unreadable(problems: Iterable[tuple[int, str]]) -> list[Finding]:
    """The ``unreadable`` findings of the reader's problems with tcgen05 statements."""
    prefix = "not read as PTX: "
    return [
        Finding(
            line,
            "error",
            "unreadable",
            "this tcgen05 statement could not be read, so no rule checked it: "
            + (message[len(prefix) :] if message.startswith(prefix) else message),
        )
        for line, message in problems
    ]


def read(
    path: str, lines: Iterable[str], catalog: Catalog, defer: bool = True, sass: Any = None, maps: bool = True
) -> Checked | str:
    """One file checked, or the sentence refusing it (not PTX). ``defer``: a function's statements are
    followed only once it has a tcgen05 instruction (its calls otherwise: :mod:`tmemviz.ptx.deferred`);
    the findings and regions are the same either way. ``sass``: (name, lines) of the cubin or listing
    ptxas made of it, against which each wait-ld warning is judged
    (:mod:`tmemviz.families.check.sass_input`). ``maps``: the kernels' TMEM map is made (what the
    figures draw: :attr:`Checked.kernels` and :attr:`Checked.regions` are empty without it)."""
    with paused():  # the cycle collector, while the file is read and analysed (tmemviz.gcpause: why)
        return _read(path, lines, catalog, defer, sass, maps)


def _read(
    path: str, lines: Iterable[str], catalog: Catalog, defer: bool, sass: Any, maps: bool
) -> Checked | str:
    from tmemviz.families.check.analysis import Checker
    from tmemviz.families.check.baseline import Fingerprints
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.scan import Module, records
    from tmemviz.sass.cubin import is_elf
    from tmemviz.sass.listing import sniff

    if path != "<text>" and is_elf(path):
        return f"{path} is a cubin (an ELF file), {FOR_SASS}"
    kind, lines = sniff(lines)
    if kind == "sass":
        return f"{path} is a SASS listing, {FOR_SASS}"
    explainer = Explainer(catalog)
    explainer.lazy_cells = True  # cells are not written: each ld/st's extent comes from its layout
    checker = Checker()
    module, reading = Module(path), Reading(explainer, catalog, checker.function, mapping=maps)
    checker.follower = reading
    # The explain scanner's one read, the follower fed every event of it (as explain's TMEM map is).
    module.instructions.extend(records(module, lines, explainer, reading, defer))
    reading.close()
    if not reading.ptx:
        return f"{path} {_what(path)}; {READS}"
    findings = ordered([*checker.finish(module), *unreadable(reading.unreadable)])
    if sass is not None:
        from tmemviz.families.check.sass_input import against_sass

        findings = ordered(against_sass(findings, module.instructions, path, sass, catalog, explainer))
    kernels = [k for k, _ in reading.maps]
    regions = {k.name or f"line {k.line}": r for k, r in reading.maps}
    texts = {**checker.texts, **reading.texts}
    prints = Fingerprints(findings, texts)
    return Checked(path, findings, kernels, regions, prints, budgets=checker.budgets, target=module.target)


def _what(path: str) -> str:
    """What a text without PTX is, as far as can be said without reading it again: empty, or not PTX."""
    try:
        empty = path not in ("-", "<text>") and os.path.getsize(path) == 0
    except OSError:
        empty = False
    return "is empty" if empty else "holds no PTX (no .target, .entry, .func or tcgen05 statement)"


def check_file(path: str, lines: Any, catalog: Catalog, defer: bool = True, maps: bool = True) -> Checked:
    """:func:`read`, a refusal raised as :class:`TmemvizError`."""
    found = read(path, lines, catalog, defer, maps=maps)
    if isinstance(found, str):
        raise TmemvizError(found)
    return found


def check_sources(
    files: Sequence[str | os.PathLike[str]],
    text: str | None,
    catalog: Catalog,
    exclude: Any = None,
    sass: str | None = None,
    maps: bool = True,
) -> list[Checked]:
    """Check each file, each directory's PTX files (:mod:`tmemviz.families.check.walk`), then ``text``
    (named ``<text>``); an unreadable file, or one named that is not PTX, stops the run. A file a
    directory walk found that is not PTX is passed over. ``exclude``: what the walk leaves out.
    ``sass``: the SASS of the one PTX file given; ``maps``: the TMEM map made (see :func:`read`)."""
    from tmemviz.families.check.walk import inputs
    from tmemviz.files import text_lines

    if not files and text is None:
        raise TmemvizError("give one or more PTX files or directories (or - for standard input)")
    out = []
    found = inputs([os.fspath(p) for p in files], exclude)
    given = None
    if sass is not None:
        if len(found) != 1 or not found[0][1] or text is not None:
            raise TmemvizError("the SASS given pairs with the one PTX file it was made of; give one PTX file")
        from tmemviz.families.check.sass_input import sass_lines

        given = (sass, sass_lines(sass))  # refused, if it must be, before the PTX is read
    for path, named in found:
        checked = read(path, text_lines(path), catalog, sass=given, maps=maps)
        if isinstance(checked, Checked):
            out.append(checked)
        elif named:
            raise TmemvizError(checked)
    if text is not None:
        if not text.strip():
            raise TmemvizError(f"the text is empty; {READS}")
        out.append(check_file("<text>", text.splitlines(), catalog, maps=maps))
    if not out:
        walked = ", ".join(os.fspath(p) for p in files)
        raise TmemvizError(f"no PTX file found in {walked}: {READS}, *.ptx files in directories")
    return out
