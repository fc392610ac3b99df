"""What every command shares: option types, the catalog of shape files, printing or writing a result."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

from tmemviz.api import KINDS as KINDS  # re-exported: the families a SHAPE may name
from tmemviz.api import catalog as user_catalog
from tmemviz.catalog import Catalog
from tmemviz.cli.params import Option
from tmemviz.emitting import names_copy as names_copy  # re-exported: cp or ld/st, told from SHAPE
from tmemviz.errors import TmemvizError
from tmemviz.families.cp.shapes import KIND as CP  # noqa: F401 (cli.complete takes it from here)
from tmemviz.families.ldst.shapes import KIND as LDST  # noqa: F401
from tmemviz.values import parse_int

if TYPE_CHECKING:
    from tmemviz.draw.document import Document
    from tmemviz.draw.table import View


class TableFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class AnswerFormat(str, Enum):
    text = "text"
    json = "json"


class Format(str, Enum):
    """What a showing command writes; ``-o FILE``'s suffix says it too, and the two must agree."""

    table = "table"
    text = "text"
    txt = "txt"
    json = "json"
    csv = "csv"
    png = "png"
    svg = "svg"
    html = "html"


class Detail(str, Enum):
    auto = "auto"
    all = "all"
    schematic = "schematic"


TaddrOpt = Annotated[
    Optional[str],
    Option(
        "--taddr",
        help="taddr as LANE,COL or a 0x address (for a PTX line: its base register's value, the line's "
        "immediate added); coordinates become absolute.",
    ),
]
CtaOpt = Annotated[int, Option("--cta", help="With --lane: 0 = this CTA, 1 = the peer.")]
MmaCtaGroupOpt = Annotated[
    int,
    Option(
        "--cta-group",
        help="1, or 2: a CTA pair's tcgen05.mma, each CTA holding its own rows (of D, of A's scale "
        "factors) in its own TMEM.",
    ),
]
LaneOffsetOpt = Annotated[
    Optional[int],
    Option(
        "--lane-offset", help="Half the data path (layouts C, F): D in lanes +0..15 or +16..31 of each band."
    ),
]
MRowOpt = Annotated[Optional[int], Option("--m-row", help="Ask about row m of D (with --n-col: D[m][n]).")]
NColOpt = Annotated[Optional[int], Option("--n-col", help="Ask about column n of D (with --m-row: D[m][n]).")]
LayoutsOpt = Annotated[
    Optional[list[Path]],
    Option("--layouts", metavar="DIR", help="Extra shape files (*.yaml); also $TMEMVIZ_LAYOUTS."),
]
OutputOpt = Annotated[
    Optional[str],
    Option(
        "--output",
        "-o",
        help="Write to FILE (atomically): .png/.svg/.html draw the figure, .json/.csv the records, "
        ".txt the plain table; '-' is stdout (with --format).",
        metavar="FILE",
    ),
]
FormatOpt = Annotated[
    Optional[Format],
    Option(
        "--format",
        "-f",
        help="table, json, csv, png, svg or html [default: from -o's suffix, else table].",
        show_default=False,
        case_sensitive=False,
    ),
]
DetailOpt = Annotated[
    Detail,
    Option("--detail", help="Figures: auto (a schematic when the grid is huge), all, or schematic."),
]
DpiOpt = Annotated[int, Option("--dpi", help="Figures: resolution of PNG output.")]
TitleOpt = Annotated[Optional[str], Option("--title", help="Figures: the title [default: the instruction].")]


def catalog(layouts: Optional[list[Path]]) -> Catalog:
    """The shipped shape files plus ``$TMEMVIZ_LAYOUTS`` and ``--layouts``, each family read on first use."""
    return user_catalog(layouts)


def show(
    doc: Document,
    format: Optional[Enum],
    output: Optional[str],
    *,
    view: Optional[str] = None,
    detail: Detail = Detail.auto,
    dpi: int = 100,
) -> None:
    """Print ``doc`` (a colored table, JSON or CSV) or write what ``-o`` and ``--format`` say.

    ``format`` is a :class:`Format`, or a command's own superset of it (``check``'s adds ``sarif``,
    a form of its document).

    The format is settled before anything is computed or written, so a contradiction writes
    nothing; the file is written atomically.
    """
    from tmemviz.draw.document import FIGURES, output_format, render

    for warning in doc.warnings:
        sys.stderr.write(f"tmemviz: warning: {warning}\n")
    fmt = output_format(output, format.value if format is not None else None, doc)
    if output is None and fmt in FIGURES:
        raise TmemvizError(f"a {fmt} figure goes to a file: give -o FILE.{fmt} (or -o - for stdout)")
    if output is None and fmt == "txt":
        from tmemviz.draw.document import pick_view

        deliver(pick_view(doc, view)(terminal_width(None)), None, doc.notes)
        return
    data = render(doc, fmt, view=view, width=160, detail=detail.value, dpi=dpi)
    if output is None or output == "-":
        sys.stdout.buffer.write(data) if fmt in FIGURES else sys.stdout.write(data.decode())
        sys.stdout.flush()
        return
    from tmemviz.writing import write_atomic

    write_atomic(output, data)  # as typed: a trailing '/' must reach write_atomic


def deliver(body: str | View, output: Optional[str | Path], notes: Sequence[str] = ()) -> None:
    """Print to the terminal, or write the text (atomically) to ``output``.

    Each note ("where this rests on something other than the PTX text") is one
    line, never wrapped, so it can be grepped for.
    """
    lines = [f"note: {n}" for n in notes]
    if not isinstance(body, str):
        from rich.console import Console
        from rich.text import Text

        from tmemviz.draw.terminal import renderable

        console = (
            Console()
            if output is None
            else Console(record=True, width=terminal_width(output), file=io.StringIO())
        )
        console.print(renderable(body))
        for line in lines:
            console.print(Text(line, style="yellow"), soft_wrap=True)
        if output is None:
            return
        from tmemviz.draw.terminal import plain

        body = plain(console.export_text())
    else:
        body += "".join(f"{line}\n" for line in lines)
    if output is None:
        sys.stdout.write(body)
    else:
        from tmemviz.writing import write_atomic

        write_atomic(output, body.encode())


def terminal_width(output: Optional[str | Path]) -> int:
    """The width a table must fit: the terminal's, or 160 columns when written to a file."""
    if output is not None:
        return 160
    from rich.console import Console

    return Console().width


def questions(
    answer: Callable[[int, int], str],
    first: tuple[str, Optional[int]],
    second: tuple[str, Optional[int]],
    batch: Optional[str],
    *,
    as_json: bool = False,
) -> int:
    """Answer the question the two options ask, or one question per line of ``batch`` ('-' = stdin).

    Batch lines hold the two numbers (decimal or 0x hex) separated by a comma or
    spaces; blank lines and ``#`` comments are skipped. Answers stream out one per
    line as they are computed. A bad line gets one ``tmemviz: line N: ...`` on
    stderr and the run goes on, ending with status 2; with ``as_json`` it gets its
    JSON line too (``{"line": N, "question": ..., "error": ...}``, or the two numbers
    and ``error``), so the answers stay one per question, in order.
    """
    from tmemviz.files import text_lines

    (a_flag, a), (b_flag, b) = first, second
    a_key, b_key = a_flag.lstrip("-"), b_flag.lstrip("-")
    pair = f"{a_key.upper()},{b_key.upper()}"
    if batch is None:
        if a is None or b is None:
            raise TmemvizError(f"give {a_flag} and {b_flag}, or --batch FILE with one {pair} per line")
        sys.stdout.write(answer(a, b))
        return 0
    if a is not None or b is not None:
        raise TmemvizError(
            f"--batch reads {pair} from each line of its file; leave out {a_flag} and {b_flag}"
        )
    failed = 0
    for number, line in enumerate(text_lines(batch, what=f"one {pair} per line", limit=1 << 16), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        asked: dict[str, object] = {"line": number, "question": text}
        try:
            parts = text.replace(",", " ").split()
            if len(parts) != 2:
                raise TmemvizError(f"expected {pair}, got '{text[:80]}'")
            x, y = parse_int(parts[0], a_flag), parse_int(parts[1], b_flag)
            asked = {a_key: x, b_key: y}
            sys.stdout.write(answer(x, y))
        except TmemvizError as exc:
            if as_json:
                from tmemviz.draw.records import line as json_line

                sys.stdout.write(json_line({**asked, "error": str(exc)}))
            sys.stdout.flush()
            sys.stderr.write(f"tmemviz: line {number}: {exc}\n")
            failed += 1
        if batch == "-":
            sys.stdout.flush()
    return 2 if failed else 0
