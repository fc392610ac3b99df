"""A register's bit fields as a figure, in the manner of the PTX ISA's descriptor tables.

Each 32 bits are one panel, most significant bit on the left: a row naming each field over its
bits, a row of the bits themselves (0/1), and a row with what each field decodes to. Fields the
table reserves are grey; a field whose bits the table does not allow is framed in red. Every box
carries its field, so the interactive page selects a whole field on a click and finds ``bit 5``.
Plain data from :mod:`tmemviz.draw.spec`; no family, no plotting library.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tmemviz.draw.geometry import MARK
from tmemviz.draw.palette import thread_color
from tmemviz.draw.spec import CHAR_IN, Box, FigureSpec, Outline, Panel

BITS_PER_PANEL = 32
BIT_W_IN = 10.5 * CHAR_IN
"""One bit's width: a 10-character name fits over a one-bit field."""
RESERVED_FILL = "#eeeeee"
ROWS = ("field", "bit", "value")


@dataclass(frozen=True)
class BitField:
    """Bits ``first`` .. ``first + width - 1`` of the register, named ``name``, decoding to ``value``."""

    first: int
    width: int
    name: str
    value: str
    tooltip: str
    reserved: bool = False
    """Bits the table fixes (reserved, must be 0, or a fixed version): drawn grey."""
    wrong: bool = False
    """The bits are not what the table allows: framed in red."""

    @property
    def bits(self) -> str:
        last = self.first + self.width - 1
        return str(self.first) if last == self.first else f"{self.first}-{last}"


def bitfield_spec(
    value: int, size: int, fields: Sequence[BitField], *, title: str, caption: str
) -> FigureSpec:
    """``value``'s ``size`` bits split into ``fields`` (which must cover every bit exactly once).

    >>> f = [BitField(0, 4, "low", "3", "low = 3"), BitField(4, 28, "high", "0", "high = 0", reserved=True)]
    >>> spec = bitfield_spec(3, 32, f, title="t", caption="c")
    >>> [b.label for b in spec.boxes if b.y == 1][-4:], spec.panels[0].x_ticks[0]
    (['0', '0', '1', '1'], (0.5, '31'))
    """
    covered = sorted(b for f in fields for b in range(f.first, f.first + f.width))
    if covered != list(range(size)) or size % BITS_PER_PANEL:
        raise ValueError(f"the fields must cover bits 0..{size - 1} exactly once")
    named = [f for f in sorted(fields, key=lambda f: f.first) if not f.reserved]
    fills = {f.first: thread_color(i) for i, f in enumerate(named)}
    panels = []
    for top in range(size - 1, -1, -BITS_PER_PANEL):
        low = top - BITS_PER_PANEL + 1
        boxes: list[Box] = []
        outlines: list[Outline] = []
        for f in sorted(fields, key=lambda f: -f.first):
            lo, hi = max(f.first, low), min(f.first + f.width - 1, top)
            if lo > hi:
                continue
            x, w = top - hi, hi - lo + 1
            fill = RESERVED_FILL if f.reserved else fills[f.first]
            data = (("bits", f"{f.first}-{f.first + f.width - 1}"), ("field", f.name), ("group", "field"))
            tip = f"bits {f.bits}: {f.tooltip}"
            boxes.append(Box(x, 0, w, 1, fill, f.name, tip, dim=f.reserved, data=data))
            for b in range(hi, lo - 1, -1):
                bit = (value >> b) & 1
                bit_data = (("bit", str(b)), ("field", f.name), ("group", "field"))
                boxes.append(
                    Box(top - b, 1, 1, 1, fill, str(bit), f"bit {b} = {bit}: {f.name}", data=bit_data)
                )
            boxes.append(Box(x, 2, w, 1, fill, f.value, tip, dim=f.reserved, data=data))
            if f.wrong:
                outlines.append(Outline(x, 0, w, len(ROWS), 2.0, MARK))
        word = f"{value >> low & 0xFFFFFFFF:08x}"
        panels.append(
            Panel(
                title=f"bits {top}..{low}: 0x{word}" if size > BITS_PER_PANEL else "",
                width=BITS_PER_PANEL,
                height=len(ROWS),
                cell_w_in=BIT_W_IN,
                boxes=tuple(boxes),
                x_ticks=tuple((i + 0.5, str(top - i)) for i in range(BITS_PER_PANEL)),
                y_ticks=tuple((i + 0.5, name) for i, name in enumerate(ROWS)),
                outlines=tuple(outlines),
                y_label="",
            )
        )
    return FigureSpec(title=title, caption=caption, panels=tuple(panels))
