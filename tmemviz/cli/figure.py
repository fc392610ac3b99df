"""The ``figure`` command: any family's layout as PNG, SVG or an interactive HTML page, in the style of
the PTX ISA figures.

SHAPE [DETAIL] picks the family: an ld/st shape (or ``pack`` / ``unpack``),
``cp SHAPE`` (or a cp shape, PTX line or CUTLASS atom), ``decompress FORMAT``, ``smem`` (a
shared-memory layout given by the ``smem`` command's options) and ``tile`` (an accumulator tile
given by the ``tile`` command's options).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from tmemviz.catalog import Catalog
from tmemviz.cli.cp import CtaGroupOpt, DecompressOpt, MulticastOpt
from tmemviz.cli.ldst import AbsOpt, NanOpt, NumOpt, OpOpt, PackOpt, RedOpt, SplitOpt, WarpOpt, instruction
from tmemviz.cli.options import LayoutsOpt, TaddrOpt, catalog, names_copy
from tmemviz.cli.smem import (
    CellsOpt,
    ColsOpt,
    DtypeOpt,
    KOpt,
    LboOpt,
    MajorOpt,
    MOpt,
    RowsOpt,
    SboOpt,
    SwizzleOpt,
)
from tmemviz.cli.tile import StorageOpt, TileNOpt, TileShapeOpt
from tmemviz.draw.spec import FigureSpec
from tmemviz.errors import TmemvizError


def figure(
    shape: Annotated[
        str,
        typer.Argument(
            help=(
                "A shape as for layout; 'pack' / 'unpack' (PTX Figure 193); 'cp' followed by a cp shape; "
                "'decompress' followed by b4x16_p64 / b6x16_p32; 'smem' with --major, --swizzle, --dtype; "
                "or 'tile' with --n, --shape (as for the tile command)."
            )
        ),
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output", "-o", help="OUT.png, OUT.svg or OUT.html; '-' writes to stdout (needs --format)."
        ),
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
    red: RedOpt = None,
    type: Annotated[
        Optional[str],
        typer.Option(
            "--type", "-t", help="decompress: e2m1, e3m2 or e2m3 [default: all]; with --red: u32, s32 or f32."
        ),
    ] = None,
    red_abs: AbsOpt = False,
    red_nan: NanOpt = False,
    major: MajorOpt = None,
    swizzle: SwizzleOpt = None,
    dtype: DtypeOpt = None,
    rows: RowsOpt = None,
    cols: ColsOpt = None,
    m: MOpt = None,
    k: KOpt = None,
    lbo: LboOpt = None,
    sbo: SboOpt = None,
    cells: CellsOpt = None,
    n: TileNOpt = None,
    tile_shape: TileShapeOpt = None,
    warps: Annotated[Optional[int], typer.Option("--warps", help="tile: 4 or 8 warps [default: 4].")] = None,
    storage: StorageOpt = None,
    thread: Annotated[
        Optional[int],
        typer.Option("--thread", help="tile: keep this thread (of every warp, or of --warp) in color."),
    ] = None,
    title: Annotated[
        Optional[str], typer.Option("--title", help="Figure title [default: the PTX instruction].")
    ] = None,
    dpi: Annotated[int, typer.Option("--dpi", help="Resolution of PNG output.")] = 100,
    format: Annotated[
        Optional[str],
        typer.Option("--format", "-f", help="png, svg or html [default: from the output suffix]."),
    ] = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Draw a layout as PNG, SVG or an interactive HTML page in the style of the PTX ISA figures."""
    fmt = figure_format(output, format)
    ldst = {"--num": num, "--pack": pack or None, "--split-offset": split_offset, "--warp": warp, "--op": op}
    ldst["--highlight"] = highlight
    ldst.update({"--red": red, "--abs": red_abs or None, "--nan": red_nan or None})
    cp_only = {"--multicast": multicast, "--cta-group": cta_group, "--decompress": decompress, "--row": row}
    kind = figure_kind(catalog(layouts), shape, detail)
    given_ldst = [k for k, v in ldst.items() if v is not None]
    given_cp = [k for k, v in cp_only.items() if v is not None]
    if kind == "tile":  # a tile figure takes --num and --warp too
        given_ldst = [k for k in given_ldst if k not in ("--num", "--warp")]
    if kind != "ldst" and given_ldst:
        raise TmemvizError(f"{given_ldst[0]} applies to tcgen05.ld/st figures, not to a {kind} figure")
    if kind != "cp" and given_cp:
        raise TmemvizError(f"{given_cp[0]} applies to tcgen05.cp figures ('tmemviz figure cp SHAPE ...')")
    if kind != "decompress" and type is not None and not (kind == "ldst" and red is not None):
        raise TmemvizError("--type applies to decompression figures ('tmemviz figure decompress FORMAT ...')")
    smem_only = {"--major": major, "--swizzle": swizzle, "--dtype": dtype, "--rows": rows, "--cols": cols}
    smem_only.update({"--m": m, "--k": k, "--lbo": lbo, "--sbo": sbo, "--cells": cells})
    given_smem = [name for name, value in smem_only.items() if value is not None]
    if kind == "tile":  # and --m and --dtype
        given_smem = [name for name in given_smem if name not in ("--m", "--dtype")]
    tile_only = {"--n": n, "--shape": tile_shape, "--warps": warps, "--storage": storage, "--thread": thread}
    given_tile = [name for name, value in tile_only.items() if value is not None]
    if kind != "tile" and given_tile:
        raise TmemvizError(
            f"{given_tile[0]} applies to tile figures ('tmemviz figure tile --n N --shape SHAPE ...')"
        )
    if kind != "smem" and given_smem:
        raise TmemvizError(f"{given_smem[0]} applies to shared-memory figures ('tmemviz figure smem ...')")
    if kind in ("pack", "decompress", "smem") and taddr is not None:
        raise TmemvizError(f"--taddr does not apply to a {kind} figure")
    spec: FigureSpec
    if kind == "smem":
        from tmemviz.smem.figures import layout_spec as smem_spec
        from tmemviz.smem.spelling import resolve_layout

        shared, _ = resolve_layout(
            catalog(layouts),
            major=major,
            swizzle=swizzle,
            dtype=dtype,
            rows=rows,
            cols=cols,
            m=m,
            k=k,
            lbo=lbo,
            sbo=sbo,
        )
        spec = smem_spec(shared, label=cells.value if cells else "byte", title=title)
    elif kind == "pack":
        from tmemviz.ldst.figures import pack_spec

        spec = pack_spec("ld" if shape.lower() == "pack" else "st")
    elif kind == "decompress":
        from tmemviz.cp import decompress as dec
        from tmemviz.cp.figures import decompress_spec

        form = dec.get_format(detail or "")
        spec = decompress_spec(form, dec.get_type(form, type) if type else None, title=title)
    elif kind == "cp":
        from tmemviz.cp.figures import copy_spec
        from tmemviz.cp.layout import row_landings
        from tmemviz.cp.spelling import resolve_copy

        spelled = detail if shape.lower() == "cp" else shape
        copy = resolve_copy(
            catalog(layouts),
            spelled or "",
            multicast=multicast,
            cta_group=cta_group,
            decompress=decompress,
            taddr=taddr,
        )
        if row is not None:
            row_landings(copy, row)  # a clear error for a row the shape does not have
        spec = copy_spec(copy, row=row, title=title)
    elif kind == "tile":
        from tmemviz.cli.tile import resolve as resolve_tile
        from tmemviz.tile.figures import tile_spec
        from tmemviz.tile.layout import elements

        tiled = resolve_tile(
            layouts, tile_shape, n, 128 if m is None else m, num, warps or 4, dtype or "f32", storage, taddr
        )
        if thread is not None and not 0 <= thread < 32:
            raise TmemvizError(f"--thread must be 0..31 (the thread's lane id in its warp), got {thread}")
        if warp is not None and not 0 <= warp < tiled.warps:
            raise TmemvizError(
                f"--warp must be 0..{tiled.warps - 1} for a tile loaded by {tiled.warps} warps, got {warp}"
            )
        spec = tile_spec(tiled, elements(tiled), thread=thread, warp=warp, title=title)
    else:
        from tmemviz.ldst.figures import layout_spec
        from tmemviz.ldst.layout import cells
        from tmemviz.ldst.spelling import parse_threads

        ins = instruction(
            layouts, shape, num, pack, split_offset, taddr, warp, op, red, type, red_abs, red_nan
        )
        threads = parse_threads(highlight) if highlight else frozenset()
        spec = layout_spec(ins, cells(ins), highlight=threads, title=title)
    write_figure(spec, output, fmt, dpi)


def write_figure(spec: FigureSpec, output: str, fmt: str, dpi: int) -> None:
    """Draw ``spec`` and write it to ``output`` atomically, or to stdout for ``-``."""
    if fmt == "html":
        from tmemviz.draw.html import page  # no matplotlib: the page draws the spec as inline SVG

        data = page(spec)
    else:
        from tmemviz.draw.figure import draw, render

        data = render(draw(spec), fmt, dpi)
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        from tmemviz.files import write_atomic

        write_atomic(Path(output), data)


def figure_kind(found: Catalog, shape: str, detail: Optional[str]) -> str:
    """``ldst``, ``pack``, ``cp``, ``decompress``, ``smem`` or ``tile``: what SHAPE [DETAIL] ask to draw."""
    word = shape.strip().lower()
    if word in ("cp", "decompress"):
        if not detail:
            what = "a cp shape, e.g. 'figure cp 64x128b'" if word == "cp" else "b4x16_p64 or b6x16_p32"
            raise TmemvizError(f"'figure {word}' needs {what}")
        return word
    if word == "tile":
        if detail is not None:
            raise TmemvizError(f"'figure tile' takes no argument after it, got '{detail}'; use --n, --shape")
        return "tile"
    if word == "smem":
        if detail is not None:
            raise TmemvizError(
                f"'figure smem' takes no argument after it, got '{detail}'; use --major, --swizzle ..."
            )
        return "smem"
    if detail is not None:
        raise TmemvizError(
            f"unexpected argument '{detail}' after '{shape}'; only 'cp' and 'decompress' take one"
        )
    if word in ("pack", "unpack"):
        return "pack"
    return "cp" if names_copy(found, shape) else "ldst"


def figure_format(output: str, given: Optional[str]) -> str:
    formats = ("png", "svg", "html")
    if given is not None:
        if given.lower() not in formats:
            raise TmemvizError(f"unsupported figure format '{given}'; use png, svg or html")
        return given.lower()
    if output == "-":
        raise TmemvizError("writing a figure to stdout (-o -) needs --format png, svg or html")
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix not in formats:
        given_suffix = Path(output).suffix or "(none)"
        raise TmemvizError(f"unsupported output suffix '{given_suffix}'; use .png, .svg or .html")
    return suffix


COMMANDS = {"figure": figure}
