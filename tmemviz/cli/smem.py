"""Commands for shared-memory operands: ``smem`` (canonical layouts) and ``desc`` (the descriptor)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

from tmemviz.cli.options import (
    Detail,
    DetailOpt,
    DpiOpt,
    FormatOpt,
    LayoutsOpt,
    OutputOpt,
    TitleOpt,
    deliver,
    show,
)
from tmemviz.cli.params import Argument, Option
from tmemviz.draw import records
from tmemviz.errors import TmemvizError


class CellLabel(str, Enum):
    byte = "byte"
    chunk = "chunk"


MajorOpt = Annotated[
    Optional[str],
    Option("--major", help="K (K contiguous) or MN (M/N contiguous).", show_default=False),
]
SwizzleOpt = Annotated[
    Optional[str],
    Option("--swizzle", help="none, 32B, 64B or 128B (also SW128, SWIZZLE_128B, Swizzle<3,4,3>)."),
]
DtypeOpt = Annotated[
    Optional[str], Option("--dtype", help="e4m3, e5m2, s8, u8, f16, bf16, tf32, f32 or s32.")
]
RowsOpt = Annotated[Optional[int], Option("--rows", help="Dense tile: M/N extent in elements.")]
ColsOpt = Annotated[Optional[int], Option("--cols", help="Dense tile: K extent in elements.")]
MOpt = Annotated[Optional[int], Option("--m", help="PTX formula: repeat count m (M/N blocks).")]
KOpt = Annotated[Optional[int], Option("--k", help="PTX formula: repeat count k (K blocks).")]
LboOpt = Annotated[Optional[str], Option("--lbo", help="PTX formula: leading byte offset, in bytes.")]
SboOpt = Annotated[Optional[str], Option("--sbo", help="PTX formula: stride byte offset, in bytes.")]
CellsOpt = Annotated[
    Optional[CellLabel],
    Option("--cells", help="What each grid cell shows: byte or chunk [default: byte]."),
]


def smem(
    major: MajorOpt = None,
    swizzle: SwizzleOpt = None,
    dtype: DtypeOpt = None,
    rows: RowsOpt = None,
    cols: ColsOpt = None,
    m: MOpt = None,
    k: KOpt = None,
    lbo: LboOpt = None,
    sbo: SboOpt = None,
    offset: Annotated[
        Optional[str], Option("--offset", help="Which element sits at this byte offset?")
    ] = None,
    cells: CellsOpt = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """A canonical shared-memory layout of a tcgen05.mma operand: each element's byte, LBO/SBO, descriptor."""
    from tmemviz import api
    from tmemviz.draw.document import output_format

    doc = api.smem(
        major=major,
        swizzle=swizzle,
        dtype=dtype,
        rows=rows,
        cols=cols,
        m=m,
        k=k,
        lbo=lbo,
        sbo=sbo,
        cells=(cells or CellLabel.byte).value,
        title=title,
        layouts=layouts,
    )
    fmt = output_format(output, format.value if format else None, doc)
    if cells is not None and fmt in ("json", "csv"):
        raise TmemvizError("--cells chooses what the grid shows; it applies to the table and figures only")
    if offset is None:
        show(doc, format, output, detail=detail, dpi=dpi)
        return
    from tmemviz.families.smem import answers
    from tmemviz.values import parse_int

    if cells is not None:
        raise TmemvizError("--cells chooses what the grid shows; it does not apply to --offset")
    byte = parse_int(offset, "--offset")
    if fmt not in ("json", "txt"):
        raise TmemvizError(f"--offset answers in text or json, not {fmt}")
    if fmt == "json":
        deliver(records.line(answers.offset_record(doc.subject, byte)), output)
    else:
        deliver(answers.offset_sentence(doc.subject, byte) + "\n", output)


def desc(
    value: Annotated[
        Optional[str],
        Argument(metavar="HEX", help="A descriptor to decode, e.g. 0x4000404000010000.", show_default=False),
    ] = None,
    start_address: Annotated[
        Optional[str],
        Option("--start-address", help="Encode: shared-memory byte address [default: 0]."),
    ] = None,
    lbo: Annotated[
        Optional[str], Option("--lbo", help="Encode: LBO in bytes [default: unused, encoded 1].")
    ] = None,
    sbo: Annotated[Optional[str], Option("--sbo", help="Encode: SBO in bytes.")] = None,
    swizzle: Annotated[
        Optional[str], Option("--swizzle", help="Encode: none, 32B, 64B, 128B or 128B_base32B.")
    ] = None,
    base_offset: Annotated[
        Optional[int], Option("--base-offset", help="Encode: matrix base offset 0..7 [default: 0].")
    ] = None,
    lbo_mode: Annotated[
        Optional[str],
        Option("--lbo-mode", help="Encode: relative (0) or absolute (1) [default: relative]."),
    ] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
) -> None:
    """Decode a tcgen05 shared-memory descriptor into its fields, or encode one from them."""
    from tmemviz import api

    doc = api.desc(
        value,
        start_address=start_address,
        lbo=lbo,
        sbo=sbo,
        swizzle=swizzle,
        base_offset=base_offset,
        lbo_mode=lbo_mode,
    )
    show(doc, format, output)


COMMANDS = {"smem": smem, "desc": desc}
"""Command name -> function, in the order ``--help`` lists them."""
