"""Shared-memory answers as sentences and records: the layout header, its cells, "what is at byte B?".

Plain strings and dicts; :mod:`tmemviz.draw.records` writes them as JSON or CSV.
"""

from __future__ import annotations

from tmemviz.errors import TmemvizError
from tmemviz.families.smem.descriptor import UNUSED_LBO, decode, encode_layout
from tmemviz.families.smem.layout import CHUNK_BYTES, SMEM_BYTES, SmemLayout

BASE_NOTE = "byte offsets are from a base aligned to 1024 bytes (the longest swizzle repeat)"
"""The one assumption of every offset shown: the swizzle acts on absolute address bits (PTX 9.7.16.3)."""

MMA_K_BYTES = 32
"""K bytes one tcgen05.mma consumes from a shared-memory operand (256 bits, PTX 9.7.16.3)."""


def title(layout: SmemLayout) -> str:
    """``K-major, 128B swizzle, bf16, 128 x 64``.

    >>> from tmemviz.families.smem.layout import dense_tile
    >>> title(dense_tile("MN", "none", "f16", 16, 16))
    'MN-major, no swizzle, f16, 16 x 16'
    """
    sw = "no swizzle" if layout.swizzle.bits == 0 else f"{layout.swizzle.name} swizzle"
    return f"{layout.major}-major, {sw}, {layout.dtype}, {layout.rows} x {layout.cols}"


def offset_text(name: str, value: int | None, *, unused: int | None = None) -> str:
    """``SBO 1024 bytes (encoded 64)``, or ``LBO unused (encoded 1)``.

    >>> offset_text("LBO", None, unused=16), offset_text("SBO", 1024)
    ('LBO unused (encoded 1)', 'SBO 1024 bytes (encoded 64)')
    """
    if value is None:
        return f"{name} unused (encoded {(unused or 0) >> 4})"
    return f"{name} {value} bytes (encoded {value >> 4})"


def summary_lines(layout: SmemLayout) -> list[str]:
    """What the grid is, its CuTe expression, LBO/SBO and the descriptor, one line each."""
    desc = encode_layout(layout)
    lines = [
        f"{title(layout)} elements (rows M/N x cols K), {layout.bits}-bit, "
        f"{layout.rows * layout.cols * layout.element_bytes} bytes",
        f"layout      {layout.notation()}",
        f"offsets     {offset_text('LBO', layout.lbo, unused=UNUSED_LBO)}, {offset_text('SBO', layout.sbo)}",
        f"descriptor  0x{desc:016x} (start address 0, swizzle {layout.swizzle.name})",
    ]
    return lines


def notes(layout: SmemLayout, dense: bool) -> list[str]:
    """What the answer rests on beyond the PTX formula, one line each."""
    out = [BASE_NOTE]
    if dense and layout.cols * layout.bits > 8 * MMA_K_BYTES:
        out.append(
            "LBO, SBO and the descriptor are those of the tile's first MMA K-block (32 bytes of K) at "
            "start address 0, as CUTLASS's make_umma_desc builds them"
        )
    return out


def layout_header(layout: SmemLayout) -> dict[str, object]:
    """The JSON answer's fields before ``cells``."""
    return {
        "major": layout.major,
        "swizzle": layout.swizzle.name,
        "dtype": layout.dtype,
        "bits": layout.bits,
        "rows": layout.rows,
        "cols": layout.cols,
        "lbo": layout.lbo,
        "sbo": layout.sbo,
        "layout": layout.notation(),
        "descriptor": decode(encode_layout(layout)).to_record(),
    }


CSV_HEADER = ("row", "col", "byte")


def cell_records(layout: SmemLayout) -> list[dict[str, int]]:
    """``{"row", "col", "byte"}`` for every element, row by row."""
    return [{"row": r, "col": c, "byte": b} for r, c, b in layout.cells()]


def offset_record(layout: SmemLayout, byte: int) -> dict[str, int | None]:
    """Which element holds ``byte``: row/col (None when no element does), which of its bytes, the chunk.

    >>> from tmemviz.families.smem.layout import dense_tile
    >>> offset_record(dense_tile("K", "128B", "bf16", 128, 64), 1041)
    {'byte': 1041, 'row': 8, 'col': 8, 'element_byte': 1, 'chunk': 65}
    """
    if isinstance(byte, bool) or not isinstance(byte, int) or not 0 <= byte < SMEM_BYTES:
        raise TmemvizError(
            f"--offset must be a byte offset in 0..{SMEM_BYTES - 1} (228 KB of shared memory), got {byte!r}"
        )
    found = layout.element_at(byte)
    row, col = found if found is not None else (None, None)
    inside = None if found is None else byte - layout.byte_of(*found)
    return {"byte": byte, "row": row, "col": col, "element_byte": inside, "chunk": byte // CHUNK_BYTES}


def offset_sentence(layout: SmemLayout, byte: int) -> str:
    """The reverse question in one sentence.

    >>> from tmemviz.families.smem.layout import dense_tile
    >>> offset_sentence(dense_tile("K", "128B", "bf16", 128, 64), 1040).split(" is ")[1]
    'element (row 8, col 8), bytes 1040..1041 (16-byte chunk 65)'
    """
    rec = offset_record(layout, byte)
    where = f"byte {byte} of {title(layout)}"
    if rec["row"] is None:
        end = layout.footprint_bytes
        gaps = "" if end == layout.rows * layout.cols * layout.element_bytes else ", with gaps"
        return f"{where} holds no element; the elements occupy bytes 0..{end - 1}{gaps}"
    first = byte - (rec["element_byte"] or 0)
    span = (
        f"byte {first}" if layout.element_bytes == 1 else f"bytes {first}..{first + layout.element_bytes - 1}"
    )
    return f"{where} is element (row {rec['row']}, col {rec['col']}), {span} (16-byte chunk {rec['chunk']})"
