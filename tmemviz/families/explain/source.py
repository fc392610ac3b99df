"""Where explained PTX comes from: files streamed line by line (``-`` is stdin), or a string.

Reading goes through :func:`tmemviz.files.text_lines`, as every family's shape files go through
:mod:`tmemviz.files`: one-line errors for binary or non-UTF-8 input, never a whole file in memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tmemviz.catalog import Catalog
from tmemviz.draw.document import Document
from tmemviz.errors import TmemvizError

if TYPE_CHECKING:
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.scan import Module


def explain_sources(
    files: Sequence[str | os.PathLike[str]],
    text: str | None,
    catalog: Catalog,
    *,
    table_only: bool = False,
    named: Sequence[tuple[str, Iterable[str]]] = (),
) -> Document:
    """Scan each file (then ``text``, named ``<text>``, then the ``named`` inputs: a name and its lines)
    with one explainer, as one document.

    ``table_only``: each ld/st record keeps only the cells the table shows (thread 0's first ones), so a
    module of any length costs a row per instruction; such a document is for the table alone. Otherwise
    the allocation tracker follows the same read, so the document's TMEM map reads no file again.
    """
    from tmemviz.families.explain.document import explain_document
    from tmemviz.families.explain.ops import Explainer, LazyCells
    from tmemviz.families.explain.views import REGISTERS_SHOWN

    explainer = Explainer(catalog)
    explainer.lazy_cells = table_only
    modules = []
    for module, made in scanned(files, text, explainer, track=not table_only, named=named):
        for record in made:
            cells = record.get("cells")
            if isinstance(cells, LazyCells):
                record["cells"], record["thread0_cells"] = explainer.preview(cells, 2 * REGISTERS_SHOWN)
            module.instructions.append(record)
        modules.append(module)
    return explain_document(modules, catalog)


def scanned(
    files: Sequence[str | os.PathLike[str]],
    text: str | None,
    explainer: Explainer,
    *,
    track: bool = False,
    named: Sequence[tuple[str, Iterable[str]]] = (),
) -> Iterator[tuple[Module, Iterator[dict[str, Any]]]]:
    """The one dispatch point from what the user gave to explained modules: per file (``-`` is standard
    input, readable once), then ``text`` (named ``<text>``), its :class:`Module` and its instruction
    records as they are made (consume them before the next module). Another input language (SASS)
    plugs in here: a scanner that yields records with the same fields. ``track``: the allocation tracker
    follows the same read (``module.tracker``, what the TMEM map draws)."""
    from tmemviz.families.explain.scan import records
    from tmemviz.files import text_lines

    if not files and text is None and not named:
        raise TmemvizError("give one or more PTX or SASS files or cubins (or - for standard input)")
    names = [os.fspath(p) for p in files]
    if names.count("-") > 1:
        raise TmemvizError("standard input (-) can be read only once; give - at most once")
    for name in names:
        _check_regular(name)
    # A cubin is read from its path (nvdisasm needs the file): text alone comes through standard input.
    what = "PTX or a SASS listing as text (a cubin by its path)"
    inputs: list[tuple[str, Iterable[str]]] = [(name, text_lines(name, what)) for name in names]
    if text is not None:
        inputs.append(("<text>", text.splitlines()))
    inputs += named  # texts and cubins the Python API was given (tmemviz/sources.py), by their shown names
    # PTX, a SASS listing or a cubin, told by content; SASS given with its PTX is paired (explain/machine.py).
    from tmemviz.families.explain.machine import dispatch

    def ptx(module: Module, lines: Iterable[str]) -> Iterator[dict[str, Any]]:
        tracker = None
        if track:
            from tmemviz.families.explain.budget import gather
            from tmemviz.families.explain.follow.follower import Follower

            tracker = Follower(explainer, explainer.catalog, gather(module.budgets))
        return records(module, lines, explainer, tracker)

    yield from dispatch(inputs, explainer, ptx)


def stream_json(
    files: Sequence[str | os.PathLike[str]], text: str | None, catalog: Catalog, output: str | None
) -> None:
    """``explain -f json``: records written as they are made (to stdout, or atomically to ``output``)."""
    from tmemviz.families.explain.document import NOTES
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.stream import to_output, write_json

    explainer = Explainer(catalog)
    found = scanned(files, text, explainer)
    first = next(found, None)  # bad arguments are refused before anything is written
    if first is None:
        return
    import itertools

    to_output(output, lambda write: write_json(itertools.chain([first], found), explainer, write, NOTES))


def _check_regular(name: str) -> None:
    """A missing file or a directory is refused before anything is written; a device (``/dev/zero``)
    streams forever without a newline: refused before reading."""
    import stat

    if name == "-":
        return
    try:
        mode = os.stat(name).st_mode
    except OSError as exc:  # said before any output is written (the JSON is streamed)
        raise TmemvizError(f"cannot read {name}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise TmemvizError(f"{name} is a directory; give a PTX file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise TmemvizError(
            f"{name} is not a regular file or a pipe; give a PTX file (or - for standard input)"
        )
