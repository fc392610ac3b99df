"""A :class:`~tmemviz.draw.spec.Field` as pixels: RGBA rows, and a PNG written with zlib alone.

Both renderers draw a field from these: matplotlib as one image, the interactive page as one
``<image>`` holding this PNG (a ``data:`` URL, so nothing loads). No plotting library here.
"""

from __future__ import annotations

import struct
import zlib

from tmemviz.draw.spec import Field

BLANK = (255, 255, 255, 0)
"""A cell that is not there (color index -1): transparent."""


def rgba(color: str) -> tuple[int, int, int, int]:
    """``#rrggbb`` (or ``#rgb``) as an opaque RGBA tuple.

    >>> rgba("#ff8000"), rgba("#fff")
    ((255, 128, 0, 255), (255, 255, 255, 255))
    """
    h = color.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    if len(h) != 6:
        raise ValueError(f"field colors are #rrggbb, got {color!r}")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), 255


def rows_rgba(field: Field, scale: int = 1) -> list[bytes]:
    """The field's pixel rows (RGBA, ``scale`` pixels per cell each way), top to bottom.

    >>> f = Field(0, 0, 2, 1, ("i",), ((0, 1),), (0, -1), ("#ff0000",), "{i}")
    >>> rows_rgba(f)
    [b'\\xff\\x00\\x00\\xff\\xff\\xff\\xff\\x00']
    """
    pixels = [bytes(rgba(c)) * scale for c in field.palette]
    blank = bytes(BLANK) * scale
    out = []
    for r in range(field.rows):
        line = b"".join(
            pixels[i] if i >= 0 else blank for i in field.colors[r * field.cols : (r + 1) * field.cols]
        )
        out += [line] * scale
    return out


def png(field: Field, scale: int = 1) -> bytes:
    """The field as a deterministic RGBA PNG (no dates, no text chunks), ``scale`` pixels per cell."""
    rows = rows_rgba(field, scale)
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 (none) per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", field.cols * scale, field.rows * scale, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
