"""One result in every form: what a command shows, what the Python API returns, and its bytes per format.

A family builds a :class:`Document` from pieces it already has — its JSON header and
records, its CSV rows, its terminal views, its figure spec — each as a callable, so a
command that prints one table never builds the figure, and a notebook that draws the
figure never builds the CSV. :mod:`tmemviz.draw.document` turns a document into bytes for
one format; the CLI writes those bytes where ``-o`` says, and ``Document.save`` writes
exactly the same bytes.

The family decides *what* (records, tables, boxes); this module and ``draw`` decide
*how* (JSON text, Rich, matplotlib, HTML) and know no family.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tmemviz.errors import TmemvizError

if TYPE_CHECKING:
    from tmemviz.draw.spec import FigureSpec
    from tmemviz.draw.table import View

FIGURES = ("png", "svg", "html")


class Record(dict):  # type: ignore[type-arg]
    """A JSON record whose fields are also attributes: ``cell.thread`` is ``cell["thread"]``.

    >>> r = Record(thread=6, reg=3)
    >>> r.thread, r["reg"], r
    (6, 3, Record(thread=6, reg=3))
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"this record has no field '{name}' (it has: {', '.join(self)})") from None

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.items())
        return f"Record({inner})"


Lists = Sequence[tuple[str, Sequence[Mapping[str, Any]]]]


@dataclass
class Document:
    """What one command shows, in every form it can be written in.

    ``lists`` are the JSON document's lists in order (the per-element one is named by
    ``main``, usually ``"cells"``); ``views`` the terminal views by name, the first the
    default; ``figure(detail)`` the figure spec (``detail`` is ``"auto"``, ``"all"`` or
    ``"schematic"``), or None for a result that has no figure.
    """

    kind: str
    """The command (and API function) that made it: ``layout``, ``cp``, ``tile`` ..."""
    title: str
    """One line naming it, e.g. the PTX instruction."""
    header: Mapping[str, Any]
    lists: Callable[[], Lists] = lambda: ()
    main: str = "cells"
    nested: Optional[str] = None
    """A list inside each record of ``main`` written one element per line in JSON too (explain's
    ``instructions`` inside each file), so big documents stay greppable."""
    csv: Optional[Callable[[], tuple[Sequence[str], Iterable[Sequence[Any]]]]] = None
    views: Mapping[str, Callable[[int], View]] = field(default_factory=dict)
    figure: Optional[Callable[[str], FigureSpec]] = None
    more: Mapping[str, Callable[[], str]] = field(default_factory=dict)
    """Text forms only this result has, by suffix (``check``'s ``sarif``): written as ``-o`` and
    ``--format`` write the others."""
    notes: tuple[str, ...] = ()
    """Where the answer rests on something other than the PTX text: printed under tables."""
    warnings: tuple[str, ...] = ()
    """Suspicious but legal input: the CLI prints each on stderr."""
    subject: Any = field(default=None, repr=False)
    """The family's own object this describes (an Instruction, a Copy, a Tile ...), for deeper questions."""
    notebook: tuple[str, ...] = ()
    """The views a notebook shows as tables above the figure (explain's instructions, check's findings)."""
    which_of: Optional[Callable[..., Record]] = field(default=None, repr=False)
    where_of: Optional[Callable[..., Record]] = field(default=None, repr=False)

    @cached_property
    def cells(self) -> tuple[Record, ...]:
        """The per-element records (those of the JSON list ``main``), with attribute access."""
        for name, items in self.lists():
            if name == self.main:
                return tuple(Record(item) for item in items)
        return ()

    def which(self, **coordinates: Any) -> Record:
        """The record at these coordinates, e.g. ``which(lane=9, col=5)`` (what holds this cell)."""
        if self.which_of is None:
            raise TmemvizError(f"{_a(self.kind)} result has no which(); look in .cells")
        return _ask(self.which_of, "which", coordinates)

    def where(self, **coordinates: Any) -> Record:
        """The record of this owner, e.g. ``where(thread=6, reg=3)`` (where does it go)."""
        if self.where_of is None:
            raise TmemvizError(f"{_a(self.kind)} result has no where(); look in .cells")
        return _ask(self.where_of, "where", coordinates)

    def to_json(self) -> str:
        """The JSON document, exactly as ``--format json`` prints it."""
        return render(self, "json").decode()

    def to_csv(self) -> str:
        """The CSV text, exactly as ``--format csv`` prints it."""
        return render(self, "csv").decode()

    def to_text(self, view: Optional[str] = None, width: int = 160) -> str:
        """The plain table (no color codes), exactly as ``-o FILE.txt`` writes it."""
        return render(self, "txt", view=view, width=width).decode()

    def save(
        self, path: str | Path, *, detail: str = "auto", dpi: int = 100, view: Optional[str] = None
    ) -> Path:
        """Write what ``-o path`` writes (the format from the suffix), atomically; returns the path."""
        from tmemviz.writing import write_atomic

        fmt = output_format(str(path), None, self)
        write_atomic(path, render(self, fmt, view=view, detail=detail, dpi=dpi))
        return Path(path)

    def _repr_html_(self) -> str:
        """The HTML a notebook shows (:mod:`tmemviz.draw.notebook`): tables, then the interactive figure."""
        from tmemviz.draw.notebook import notebook_html

        return notebook_html(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """What Jupyter shows of a bare result: HTML, a small PNG for static viewers, one line of text."""
        from tmemviz.draw.notebook import bundle

        return bundle(self, include, exclude)

    def __repr__(self) -> str:
        n = len(self.cells)
        # main names the records in the plural ("cells", "files"); one of them is said in the singular.
        count = f", {n} {self.main[:-1] if n == 1 and self.main.endswith('s') else self.main}"
        count = "" if self.title.endswith(f" {count[2:]}") else count  # check's title counts its files
        return f"<tmemviz {self.kind}: {self.title}{count}>"


def _ask(answer: Callable[..., Record], method: str, coordinates: dict[str, Any]) -> Record:
    """Call a family's which/where with coordinates checked: known names, all required ones, whole
    numbers (a bool or a float is refused, never read as a lane); text only where the family takes
    it (a half given as ``"lo"``)."""
    code = answer.__code__
    names = code.co_varnames[: code.co_argcount]
    required = names[: len(names) - len(answer.__defaults__ or ())]
    listed = ", ".join(names)
    for name, value in coordinates.items():
        if name not in names:
            raise TmemvizError(f"{method}() takes {listed}; '{name}' is not one of them")
        hint = str(answer.__annotations__.get(name, "int"))
        if value is None and "None" in hint:
            continue
        if isinstance(value, str) and "str" in hint:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            from tmemviz.values import kind_of

            raise TmemvizError(f"{method}(): {name} must be a whole number, got {kind_of(value)}")
    missing = [name for name in required if name not in coordinates]
    if missing:
        raise TmemvizError(f"{method}() needs {' and '.join(missing)} (it takes {listed})")
    return answer(**coordinates)


RECORDS = ("json", "csv")
SUFFIXES = (*FIGURES, *RECORDS, "txt")
"""Every suffix ``-o`` understands, in the order error messages list them."""
ALIASES = {"table": "txt", "text": "txt"}
"""``--format`` names of the plain table."""
DETAILS = ("auto", "all", "schematic")


def output_format(output: Optional[str], given: Optional[str], doc: Document) -> str:
    """The format to write: ``png``/``svg``/``html``/``json``/``csv``/``txt``.

    The suffix of ``output`` decides; ``given`` (``--format``) may agree with it, or
    decides alone when there is no suffix (or no file). A contradiction, an unknown
    suffix, or a format this result does not have is a :class:`TmemvizError`.
    """
    fmt = format_named(output, given, tuple(doc.more))
    check_available(doc, fmt)
    return fmt


def format_named(output: Optional[str], given: Optional[str], more: tuple[str, ...] = ()) -> str:
    """The format ``output`` and ``given`` name (:func:`output_format`'s rule), before the result is
    made: ``more``, the result's own forms (``check``'s ``sarif``); whether it has the format is not
    asked."""
    fmt = None
    known = (*SUFFIXES, *more)
    if given is not None:
        fmt = ALIASES.get(given.lower(), given.lower())
        if fmt not in known:
            raise TmemvizError(f"unknown format '{given}'; use {_listed(('table', *known[:-1]))}")
    if output is not None and output != "-":
        suffix = Path(output).suffix.lower()
        if suffix:
            by_suffix = suffix.lstrip(".")
            if by_suffix not in known:
                raise TmemvizError(
                    f"unsupported output suffix '{Path(output).suffix}'; use "
                    f"{_listed(tuple('.' + s for s in known))} (the suffix says what is written)"
                )
            if fmt is not None and fmt != by_suffix:
                raise TmemvizError(
                    f"--format {given} contradicts the output file '{Path(output).name}' "
                    f"(its suffix says {by_suffix}); give one or make them agree"
                )
            fmt = by_suffix
    elif output == "-" and fmt is None:
        raise TmemvizError("writing to stdout with -o - needs --format (png, svg, html, json, csv or table)")
    return fmt or "txt"


def check_available(doc: Document, fmt: str) -> None:
    """Refuse a format the result cannot be written in, naming those it can."""
    have = [f for f in (*SUFFIXES, *doc.more) if available(doc, f)]
    if fmt not in have:
        raise TmemvizError(f"{_a(doc.kind)} result has no {_what(fmt)}; write it as {_listed(have)}")


def available(doc: Document, fmt: str) -> bool:
    if fmt in doc.more:
        return True
    if fmt in FIGURES:
        return doc.figure is not None
    if fmt == "csv":
        return doc.csv is not None
    if fmt == "txt":
        return bool(doc.views)
    return True


def _a(kind: str) -> str:
    """``a cp``, ``an explain``: the article a result's kind takes.

    >>> _a("tile"), _a("idesc")
    ('a tile', 'an idesc')
    """
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def _what(fmt: str) -> str:
    return "figure" if fmt in FIGURES else "CSV form" if fmt == "csv" else fmt


def _listed(items: tuple[str, ...] | list[str]) -> str:
    items = list(items)
    return ", ".join(items[:-1]) + f" or {items[-1]}" if len(items) > 1 else items[0]


def render(
    doc: Document,
    fmt: str,
    *,
    view: Optional[str] = None,
    width: int = 160,
    detail: str = "auto",
    dpi: int = 100,
) -> bytes:
    """``doc`` in format ``fmt`` (one of :data:`SUFFIXES` or of ``doc.more``), as bytes."""
    check_available(doc, fmt)
    if fmt in doc.more:
        return doc.more[fmt]().encode()
    if fmt == "json":
        return json_text(doc).encode()
    if fmt == "csv":
        from tmemviz.draw.records import csv_text

        assert doc.csv is not None
        header, rows = doc.csv()
        return csv_text(header, rows).encode()
    if fmt == "txt":
        return plain_text(doc, view, width).encode()
    return figure_bytes(figure_spec(doc, detail), fmt, dpi)


def json_text(doc: Document) -> str:
    """The JSON document: the header's fields one per line, then each list with one record per line."""
    from tmemviz.draw.records import document, line

    header = dict(doc.header)
    if doc.notes and "notes" not in header:
        header["notes"] = list(doc.notes)  # the caveats the table prints under itself belong here too
    lists = list(doc.lists())
    if not lists:
        return line(header)
    return document(header, lists, doc.nested)


def once(build: Callable[[], FigureSpec]) -> Callable[[str], FigureSpec]:
    """A ``Document.figure`` for a figure that is the same at every detail (the TMEM map): built on first
    use and kept with the result, so a notebook's HTML and PNG, or a second ``save``, build it once.

    >>> calls = []
    >>> figure = once(lambda: calls.append(1) or "spec")
    >>> figure("auto"), figure("schematic"), len(calls)
    ('spec', 'spec', 1)
    """
    kept: list[FigureSpec] = []

    def figure(detail: str) -> FigureSpec:
        if not kept:
            kept.append(build())
        return kept[0]

    return figure


def figure_spec(doc: Document, detail: str = "auto") -> FigureSpec:
    if detail not in DETAILS:
        raise TmemvizError(f"--detail must be {_listed(DETAILS)}, got '{detail}'")
    assert doc.figure is not None
    return doc.figure(detail)


def figure_bytes(spec: FigureSpec, fmt: str, dpi: int = 100) -> bytes:
    """A spec drawn as PNG or SVG (matplotlib) or as an interactive page (no matplotlib)."""
    if fmt == "html":
        from tmemviz.draw.html import page

        return page(spec)
    from tmemviz.draw import figure

    return figure.render(figure.draw(spec), fmt, dpi)


def view_names(doc: Document) -> tuple[str, ...]:
    return tuple(doc.views)


def pick_view(doc: Document, view: Optional[str]) -> Callable[[int], View]:
    if not doc.views:
        raise TmemvizError(f"{_a(doc.kind)} result has no table; write it as json")
    name = view or next(iter(doc.views))
    if name not in doc.views:
        raise TmemvizError(f"unknown view '{name}'; use {_listed(list(doc.views))}")
    return doc.views[name]


def plain_text(doc: Document, view: Optional[str] = None, width: int = 160) -> str:
    """The table as plain text (no color codes) with its notes, as ``-o FILE.txt`` writes it."""
    from rich.console import Console
    from rich.text import Text

    from tmemviz.draw.terminal import plain, renderable

    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    console.print(renderable(pick_view(doc, view)(width)))
    for note in doc.notes:
        console.print(Text(f"note: {note}"), soft_wrap=True)
    return plain(console.export_text())
