"""The ``tmemviz`` command: thin Typer commands over the catalog, mapper and renderers.

Every command parses its options, asks the mapper, and hands the result to a
renderer. Core errors arrive as :class:`TmemvizError` and become one sentence on
stderr with exit status 2 in :func:`main`, the only place that knows about exits.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console, RenderableType
from rich.text import Text

from tmemviz import mapper
from tmemviz.catalog import Catalog, load_catalog
from tmemviz.errors import TmemvizError
from tmemviz.parse import parse_half, resolve
from tmemviz.render import export, tables, text

APP_SETTINGS: dict[str, Any] = {
    "name": "tmemviz",
    "help": (
        "Exact data layouts of Blackwell Tensor Memory instructions "
        "(tcgen05.ld / tcgen05.st / tcgen05.cp, with decompression)."
    ),
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}
app = typer.Typer(**APP_SETTINGS)


class TableFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class ShapesFormat(str, Enum):
    table = "table"
    json = "json"


class AnswerFormat(str, Enum):
    text = "text"
    json = "json"


class View(str, Enum):
    grid = "grid"
    threads = "threads"


class Op(str, Enum):
    ld = "ld"
    st = "st"


ShapeArg = Annotated[
    str,
    typer.Argument(
        help="Shape: 16x256b, .16x256b, a CUTLASS name (16dp256b4x_16b) or a whole PTX instruction.",
        show_default=False,
    ),
]
NumOpt = Annotated[Optional[str], typer.Option("--num", "-n", help=".num repetition: x1..x128 (or 1..128).")]
PackOpt = Annotated[bool, typer.Option("--pack", "--unpack", help=".pack::16b (ld) / .unpack::16b (st).")]
SplitOpt = Annotated[
    Optional[int],
    typer.Option(
        "--split-offset", help="immHalfSplitoff of .16x32bx2, in columns [default: num, 2*num packed]."
    ),
]
TaddrOpt = Annotated[
    Optional[str],
    typer.Option("--taddr", help="taddr as LANE,COL or a 0x address; coordinates become absolute."),
]
WarpOpt = Annotated[
    Optional[int], typer.Option("--warp", help="Issuing warp (0..31); warp % 4 picks the lane band.")
]
OpOpt = Annotated[Optional[Op], typer.Option("--op", help="ld or st [default: ld, or what SHAPE says].")]
LayoutsOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--layouts", metavar="DIR", help="Extra shape files (*.yaml); also $TMEMVIZ_LAYOUTS."),
]


def _catalog(layouts: Optional[list[Path]]) -> Catalog:
    dirs: list[str | Path] = [d for d in os.environ.get("TMEMVIZ_LAYOUTS", "").split(os.pathsep) if d]
    dirs += layouts or []
    return load_catalog(dirs, lazy=True)


def _instruction(
    layouts: Optional[list[Path]],
    shape: str,
    num: Optional[str],
    pack: bool,
    split_offset: Optional[int],
    taddr: Optional[str],
    warp: Optional[int],
    op: Optional[Op],
) -> mapper.Instruction:
    ins = resolve(
        _catalog(layouts),
        shape,
        num=num,
        pack=pack,
        op=op.value if op else None,
        split_offset=str(split_offset) if split_offset is not None else None,
        taddr=taddr,
        warp=str(warp) if warp is not None else None,
    )
    for warning in ins.warnings:
        sys.stderr.write(f"tmemviz: warning: {warning}\n")
    return ins


@app.command()
def shapes(
    format: Annotated[
        ShapesFormat, typer.Option("--format", "-f", help="table or json.")
    ] = ShapesFormat.table,
    layouts: LayoutsOpt = None,
) -> None:
    """List every shape: ld/st with registers per .num (Table 49), then cp with its multicasts."""
    catalog = _catalog(layouts)
    if format is ShapesFormat.json:
        sys.stdout.write(json.dumps(export.shapes_record(catalog), indent=1) + "\n")
    else:
        from tmemviz.render.tables_cp import copy_shapes_view

        console = Console()
        console.print(tables.shapes_view(catalog))
        console.print()
        console.print(copy_shapes_view(catalog))


@app.command()
def layout(
    shape: ShapeArg,
    num: NumOpt = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    view: Annotated[View, typer.Option("--view", help="grid (lanes x columns) or threads.")] = View.grid,
    format: Annotated[
        TableFormat, typer.Option("--format", "-f", help="table, json or csv.")
    ] = TableFormat.table,
    output: Annotated[
        Optional[Path],
        typer.Option("--output", "-o", help="Write to this file (atomically) instead of stdout."),
    ] = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Show the whole layout of one tcgen05.ld/st: every thread, register, lane and column."""
    ins = _instruction(layouts, shape, num, pack, split_offset, taddr, warp, op)
    cells = mapper.cells(ins)
    if format is TableFormat.json:
        body = export.layout_json(ins, cells)
    elif format is TableFormat.csv:
        body = export.layout_csv(cells)
    else:
        console = Console() if output is None else Console(record=True, width=160, file=io.StringIO())
        renderable = (
            tables.grid_view(ins, cells, console.width)
            if view is View.grid
            else tables.threads_view(ins, cells)
        )
        console.print(renderable)
        if output is None:
            return
        body = console.export_text()
    if output is None:
        sys.stdout.write(body)
    else:
        from tmemviz.output import write_atomic

        write_atomic(output, body.encode())


@app.command()
def which(
    shape: ShapeArg,
    lane: Annotated[int, typer.Option("--lane", help="TMEM lane (taddr-relative unless --taddr).")],
    col: Annotated[int, typer.Option("--col", help="TMEM 32-bit column (taddr-relative unless --taddr).")],
    num: NumOpt = None,
    half: Annotated[
        Optional[str], typer.Option("--half", help="lo (bits 15:0) or hi (bits 31:16) of the cell.")
    ] = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    format: Annotated[AnswerFormat, typer.Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    layouts: LayoutsOpt = None,
) -> None:
    """Which thread and register hold TMEM lane L, column C?"""
    ins = _instruction(layouts, shape, num, pack, split_offset, taddr, warp, op)
    owners = mapper.which(ins, lane, col, parse_half(half) if half is not None else None)
    if format is AnswerFormat.json:
        first = owners[0]
        record: dict[str, object] = {"thread": first.thread, "reg": first.reg, "half": first.half}
        if ins.taddr is not None:
            record["warp"] = ins.warp
        if len(owners) > 1:
            record["owners"] = [o._asdict() for o in owners]
        sys.stdout.write(json.dumps(record) + "\n")
    else:
        sys.stdout.write(text.which_sentence(ins, lane, col, owners) + "\n")


@app.command()
def where(
    shape: ShapeArg,
    thread: Annotated[int, typer.Option("--thread", "-t", help="Thread (lane id in the warp, 0..31).")],
    reg: Annotated[int, typer.Option("--reg", "-r", help="Register index i of r_i in the vector operand.")],
    num: NumOpt = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    format: Annotated[AnswerFormat, typer.Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    layouts: LayoutsOpt = None,
) -> None:
    """Where in TMEM does thread T's register r come from (ld) or go to (st)?"""
    ins = _instruction(layouts, shape, num, pack, split_offset, taddr, warp, op)
    found = mapper.where(ins, thread, reg)
    if format is AnswerFormat.json:
        spots = [
            {"lane": c.lane, "col": c.col}
            if c.half is None
            else {"half": c.half, "lane": c.lane, "col": c.col}
            for c in found
        ]
        record: dict[str, object] = {"thread": thread, "reg": reg, "cells": spots}
        if ins.taddr is not None:
            record["warp"] = ins.warp
        sys.stdout.write(json.dumps(record) + "\n")
    else:
        sys.stdout.write(text.where_sentence(ins, thread, reg, found) + "\n")


def _deliver(body: str | RenderableType, output: Optional[Path], notes: Sequence[str] = ()) -> None:
    """Print to the terminal, or write the text (atomically) to ``output``.

    Each note ("where this rests on something other than the PTX text") is one
    line, never wrapped, so it can be grepped for.
    """
    lines = [f"note: {n}" for n in notes]
    if not isinstance(body, str):
        console = Console() if output is None else Console(record=True, width=160, file=io.StringIO())
        console.print(body)
        for line in lines:
            console.print(Text(line, style="yellow"), soft_wrap=True)
        if output is None:
            return
        body = console.export_text()
    else:
        body += "".join(f"{line}\n" for line in lines)
    if output is None:
        sys.stdout.write(body)
    else:
        from tmemviz.output import write_atomic

        write_atomic(output, body.encode())


CopyShapeArg = Annotated[
    str,
    typer.Argument(
        help=(
            "cp shape: 128x256b, 4x256b, 128x128b, 64x128b, 32x128b; qualifiers may follow "
            "(64x128b.warpx2::01_23), or give a whole tcgen05.cp line or a CUTLASS SM100_UTCCP_* name."
        ),
        show_default=False,
    ),
]
MulticastOpt = Annotated[
    Optional[str],
    typer.Option("--multicast", "-m", help="warpx2::02_13, warpx2::01_23 or warpx4 (as the shape requires)."),
]
CtaGroupOpt = Annotated[
    Optional[str],
    typer.Option("--cta-group", help="1 or 2 (.cta_group::2 also writes the peer CTA) [default: 1]."),
]
DecompressOpt = Annotated[
    Optional[str], typer.Option("--decompress", help="b4x16_p64 or b6x16_p32 (.b8x16.<fmt> decompression).")
]
OutputOpt = Annotated[
    Optional[Path], typer.Option("--output", "-o", help="Write to this file (atomically) instead of stdout.")
]


@app.command()
def cp(
    shape: CopyShapeArg,
    multicast: MulticastOpt = None,
    cta_group: CtaGroupOpt = None,
    decompress: DecompressOpt = None,
    taddr: TaddrOpt = None,
    row: Annotated[Optional[int], typer.Option("--row", help="Where does this source row land?")] = None,
    word: Annotated[
        Optional[int], typer.Option("--word", help="With --row: only this 32-bit word of the row.")
    ] = None,
    lane: Annotated[
        Optional[int], typer.Option("--lane", help="Which source row/word fills this lane?")
    ] = None,
    col: Annotated[Optional[int], typer.Option("--col", help="With --lane: the TMEM column.")] = None,
    cta: Annotated[int, typer.Option("--cta", help="With --lane: 0 = this CTA, 1 = the peer.")] = 0,
    format: Annotated[
        TableFormat, typer.Option("--format", "-f", help="table, json or csv.")
    ] = TableFormat.table,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Where tcgen05.cp puts each source row and word: TMEM cta, lane and column."""
    from tmemviz import mapper_cp
    from tmemviz.parse import resolve_copy
    from tmemviz.render import export_cp, tables_cp

    copy = resolve_copy(
        _catalog(layouts), shape, multicast=multicast, cta_group=cta_group, decompress=decompress, taddr=taddr
    )
    if row is not None and (lane is not None or col is not None):
        raise TmemvizError("give either --row (where does it land) or --lane and --col (what lands here)")
    if word is not None and row is None:
        raise TmemvizError("--word needs --row: it picks one 32-bit word of that source row")
    if (lane is None) != (col is None):
        raise TmemvizError("--lane and --col go together: they name one TMEM cell")
    if cta != 0 and lane is None:
        raise TmemvizError("--cta goes with --lane and --col: it picks this CTA (0) or the peer (1)")
    if lane is not None and col is not None:
        found = mapper_cp.source_of(copy, lane, col, cta)
        if format is TableFormat.json:
            record = {"instruction": copy.mnemonic, **export_cp.landing_record(copy, found)}
            body = json.dumps({**record, "notes": list(copy.notes())}) + "\n"
        elif format is TableFormat.csv:
            body = export_cp.copy_csv(copy, (found,))
        else:
            body = text.source_sentence(copy, found) + "\n"
        _deliver(body, output, copy.notes() if format is TableFormat.table else ())
        return
    if row is not None:
        hits = mapper_cp.row_landings(copy, row, word)
        if format is TableFormat.json:
            record = {"instruction": copy.mnemonic, "row": row, "word": word}
            record["cells"] = [export_cp.landing_record(copy, x) for x in hits]
            record["notes"] = list(copy.notes())
            body = json.dumps(record) + "\n"
        elif format is TableFormat.csv:
            body = export_cp.copy_csv(copy, hits)
        else:
            body = text.row_sentence(copy, row, word, hits) + "\n"
        _deliver(body, output, copy.notes() if format is TableFormat.table else ())
        return
    everything = mapper_cp.landings(copy)
    if format is TableFormat.json:
        _deliver(export_cp.copy_json(copy, everything), output)
    elif format is TableFormat.csv:
        _deliver(export_cp.copy_csv(copy, everything), output)
    else:
        _deliver(tables_cp.copy_view(copy, everything), output, copy.notes())


@app.command()
def decompress(
    fmt: Annotated[
        str,
        typer.Argument(metavar="FORMAT", help="b4x16_p64 (4-bit) or b6x16_p32 (6-bit).", show_default=False),
    ],
    type: Annotated[
        Optional[str],
        typer.Option(
            "--type", "-t", help="e2m1 (4-bit), e3m2 or e2m3 (6-bit): names the bits, decodes values."
        ),
    ] = None,
    hex: Annotated[
        Optional[str],
        typer.Option("--hex", help="Source bytes, byte 0 first: the data bytes or the whole 16-byte chunk."),
    ] = None,
    elements: Annotated[
        Optional[str], typer.Option("--elements", help="16 element codes instead, e.g. 1,2,0x7,0b0101,...")
    ] = None,
    format: Annotated[AnswerFormat, typer.Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    output: OutputOpt = None,
) -> None:
    """How tcgen05.cp widens 16 packed 4/6-bit elements into 8-bit containers; a byte calculator."""
    from tmemviz import decompress as dec
    from tmemviz.render import export_cp, tables_cp

    form = dec.get_format(fmt)
    kind = dec.get_type(form, type)
    if hex is not None and elements is not None:
        raise TmemvizError("give either --hex (source bytes) or --elements (element codes), not both")
    chunk = None
    if hex is not None:
        chunk = dec.parse_hex(form, hex)
    elif elements is not None:
        chunk = dec.pack(form, dec.parse_codes(form, elements))
    if format is AnswerFormat.json:
        _deliver(export_cp.decompress_json(form, kind, chunk), output)
    else:
        _deliver(tables_cp.decompress_view(form, kind, chunk), output, (dec.CONTAINER_BASIS,))


@app.command()
def figure(
    shape: Annotated[
        str,
        typer.Argument(
            help=(
                "A shape as for layout; 'pack' / 'unpack' (PTX Figure 193); 'cp' followed by a cp shape; "
                "or 'decompress' followed by b4x16_p64 / b6x16_p32."
            )
        ),
    ],
    output: Annotated[
        str, typer.Option("--output", "-o", help="OUT.png or OUT.svg; '-' writes to stdout (needs --format).")
    ],
    detail: Annotated[
        Optional[str],
        typer.Argument(help="After 'cp': the cp shape; after 'decompress': the format.", show_default=False),
    ] = None,
    num: NumOpt = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    highlight: Annotated[
        Optional[str],
        typer.Option("--highlight", help="Threads to keep in color, e.g. 0,17; the rest are dimmed."),
    ] = None,
    multicast: MulticastOpt = None,
    cta_group: CtaGroupOpt = None,
    decompress: DecompressOpt = None,
    row: Annotated[
        Optional[int], typer.Option("--row", help="cp: mark this source row and every lane it lands in.")
    ] = None,
    type: Annotated[
        Optional[str], typer.Option("--type", "-t", help="decompress: e2m1, e3m2 or e2m3 [default: all].")
    ] = None,
    title: Annotated[
        Optional[str], typer.Option("--title", help="Figure title [default: the PTX instruction].")
    ] = None,
    dpi: Annotated[int, typer.Option("--dpi", help="Resolution of PNG output.")] = 100,
    format: Annotated[
        Optional[str], typer.Option("--format", "-f", help="png or svg [default: from the output suffix].")
    ] = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Draw a layout as PNG or SVG in the style of the PTX ISA figures (ld/st, pack, cp, decompression)."""
    fmt = _figure_format(output, format)
    ldst = {"--num": num, "--pack": pack or None, "--split-offset": split_offset, "--warp": warp, "--op": op}
    ldst["--highlight"] = highlight
    cp_only = {"--multicast": multicast, "--cta-group": cta_group, "--decompress": decompress, "--row": row}
    kind = _figure_kind(_catalog(layouts), shape, detail)
    given_ldst = [k for k, v in ldst.items() if v is not None]
    given_cp = [k for k, v in cp_only.items() if v is not None]
    if kind != "ldst" and given_ldst:
        raise TmemvizError(f"{given_ldst[0]} applies to tcgen05.ld/st figures, not to a {kind} figure")
    if kind != "cp" and given_cp:
        raise TmemvizError(f"{given_cp[0]} applies to tcgen05.cp figures ('tmemviz figure cp SHAPE ...')")
    if kind != "decompress" and type is not None:
        raise TmemvizError("--type applies to decompression figures ('tmemviz figure decompress FORMAT ...')")
    if kind in ("pack", "decompress") and taddr is not None:
        raise TmemvizError(f"--taddr does not apply to a {kind} figure")
    if kind == "pack":
        from tmemviz.render.figure_spec import pack_spec

        spec = pack_spec("ld" if shape.lower() == "pack" else "st")
    elif kind == "decompress":
        from tmemviz import decompress as dec
        from tmemviz.render.figure_spec_cp import decompress_spec

        form = dec.get_format(detail or "")
        spec = decompress_spec(form, dec.get_type(form, type) if type else None, title=title)
    elif kind == "cp":
        from tmemviz import mapper_cp
        from tmemviz.parse import resolve_copy
        from tmemviz.render.figure_spec_cp import copy_spec

        spelled = detail if shape.lower() == "cp" else shape
        copy = resolve_copy(
            _catalog(layouts),
            spelled or "",
            multicast=multicast,
            cta_group=cta_group,
            decompress=decompress,
            taddr=taddr,
        )
        if row is not None:
            mapper_cp.row_landings(copy, row)  # a clear error for a row the shape does not have
        spec = copy_spec(copy, row=row, title=title)
    else:
        from tmemviz.parse import parse_threads
        from tmemviz.render.figure_spec import layout_spec

        ins = _instruction(layouts, shape, num, pack, split_offset, taddr, warp, op)
        threads = parse_threads(highlight) if highlight else frozenset()
        spec = layout_spec(ins, mapper.cells(ins), highlight=threads, title=title)
    from tmemviz.render.figure import draw, render

    data = render(draw(spec), fmt, dpi)
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        from tmemviz.output import write_atomic

        write_atomic(Path(output), data)


def _figure_kind(catalog: Catalog, shape: str, detail: Optional[str]) -> str:
    """``ldst``, ``pack``, ``cp`` or ``decompress``: what the SHAPE [DETAIL] arguments ask to draw."""
    word = shape.strip().lower()
    if word in ("cp", "decompress"):
        if not detail:
            what = "a cp shape, e.g. 'figure cp 64x128b'" if word == "cp" else "b4x16_p64 or b6x16_p32"
            raise TmemvizError(f"'figure {word}' needs {what}")
        return word
    if detail is not None:
        raise TmemvizError(
            f"unexpected argument '{detail}' after '{shape}'; only 'cp' and 'decompress' take one"
        )
    if word in ("pack", "unpack"):
        return "pack"
    if word.startswith("tcgen05.cp") or word.startswith("sm100_utccp_"):
        return "cp"
    head = word.split(".")[0] if not word.startswith(".") else word.split(".")[1]
    if catalog.find(head) is None and catalog.find_copy(head) is not None:
        return "cp"
    return "ldst"


def _figure_format(output: str, given: Optional[str]) -> str:
    formats = ("png", "svg")
    if given is not None:
        if given.lower() not in formats:
            raise TmemvizError(f"unsupported figure format '{given}'; use png or svg")
        return given.lower()
    if output == "-":
        raise TmemvizError("writing a figure to stdout (-o -) needs --format png or --format svg")
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise TmemvizError(f"unsupported output suffix '{Path(output).suffix or '(none)'}'; use .png or .svg")
    return suffix


@app.command()
def gallery(
    directory: Annotated[Path, typer.Argument(help="Where to write the figures and README.md.")] = Path(
        "gallery"
    ),
    layouts: LayoutsOpt = None,
) -> None:
    """Regenerate the documentation gallery: ld/st shapes at x1/x2/x4, pack, every cp shape, decompression."""
    from rich.progress import Progress

    from tmemviz import gallery as gallery_index
    from tmemviz.output import write_atomic
    from tmemviz.render.figure import draw, render
    from tmemviz.render.figure_spec import layout_spec, pack_spec
    from tmemviz.render.figure_spec_cp import copy_spec, decompress_spec

    items = gallery_index.entries(_catalog(layouts))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TmemvizError(f"cannot create {directory}: {exc.strerror or exc}") from None
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("drawing the gallery", total=len(items))
        for entry in items:
            if entry.instruction is not None:
                spec = layout_spec(entry.instruction, mapper.cells(entry.instruction))
            elif entry.copy is not None:
                spec = copy_spec(entry.copy, row=entry.copy_row)
            elif entry.decompress is not None:
                spec = decompress_spec(entry.decompress, entry.number_type)
            else:
                spec = pack_spec(entry.pack_op or "ld")
            fig = draw(spec)
            for fmt in ("svg", "png"):
                write_atomic(directory / f"{entry.name}.{fmt}", render(fig, fmt))
            progress.advance(task)
    write_atomic(directory / "README.md", gallery_index.index_markdown(items).encode())
    sys.stdout.write(f"wrote {2 * len(items)} figures and README.md to {directory}\n")


def _app_for(argv: list[str]) -> typer.Typer:
    """The app holding only the command ``argv`` names, or the whole app (help, typos).

    Typer builds the parser of every registered command on each run, about 2 ms
    per command; a one-shot query should pay only for its own. The callback keeps
    it a group, so ``tmemviz which ...`` parses and reports usage exactly as the
    full app does.
    """
    wanted = [c for c in app.registered_commands if argv and c.callback and c.callback.__name__ == argv[0]]
    if len(wanted) != 1 or any(a in ("--help", "-h") for a in argv[1:2]):
        return app
    single = typer.Typer(**APP_SETTINGS)
    single.callback()(_no_options)
    single.registered_commands = wanted
    return single


def _no_options() -> None:
    """Exact data layouts of Blackwell Tensor Memory instructions."""


def main(argv: Optional[list[str]] = None) -> int:
    """Run the CLI; bad input becomes one line on stderr and exit status 2."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = _app_for(args)(args=args, prog_name="tmemviz", standalone_mode=False)
    except TmemvizError as exc:
        sys.stderr.write(f"tmemviz: {exc}\n")
        return 2
    except typer.TyperException as exc:
        # Typer's own usage errors (unknown option, bad choice, not a number).
        sys.stderr.write(f"tmemviz: {exc.format_message()}\n")
        return 2
    except typer.Abort:
        sys.stderr.write("tmemviz: aborted\n")
        return 130
    except BrokenPipeError:
        # `tmemviz layout ... | head` closes the pipe early; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return result if isinstance(result, int) else 0
