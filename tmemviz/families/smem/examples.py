"""The canonical-layout examples of PTX ISA 9.7.16.3, figures 188-192, as printed and corrected.

Facts: smem-facts.md "The five spec examples". Figure 189 as printed is not one-to-one, so building
it raises a :class:`TmemvizError` that says "overlap"; :func:`figure_189_corrected` is our
one-to-one reading of it.
"""

from __future__ import annotations

from tmemviz.errors import TmemvizError
from tmemviz.families.smem.layout import SmemLayout, canonical, dense_tile

PTX_FIGURES: dict[int, tuple[str, str, str, int, int, int | None, int]] = {
    188: ("K", "none", "tf32", 2, 2, 256, 128),
    189: ("K", "32B", "tf32", 2, 2, None, 256),
    190: ("MN", "none", "bf16", 2, 2, 256, 128),
    191: ("MN", "32B", "bf16", 2, 2, 256, 512),
    192: ("MN", "64B", "bf16", 2, 2, 512, 1024),
}
"""(major, swizzle, dtype, m, k, LBO bytes, SBO bytes) of PTX figures 188-192 as printed."""


def ptx_figure(number: int) -> SmemLayout:
    """PTX figure ``number`` (188-192) as printed. Figure 189 is refused: as printed it asks for four
    16-byte K chunks in a 32-byte row, so it overlaps (smem-facts "The five spec examples").

    >>> ptx_figure(192).notation()
    'Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))'
    """
    if number not in PTX_FIGURES:
        raise TmemvizError(f"PTX figure {number!r} is not a canonical-layout figure; known: 188..192")
    return canonical(*PTX_FIGURES[number])


def figure_189_corrected() -> SmemLayout:
    """A one-to-one reading of PTX figure 189: the same 16 x 16 tf32 tile and SBO, with K chunks
    (4,2):(1,4) per 32-byte K-block and the second K-block after both row groups (the CUTLASS
    dense tile). Our choice: PTX does not say where the second K-block goes.

    >>> figure_189_corrected().notation()
    'Swizzle<1,4,3> o ((8,2),(4,2,2)):((8,64),(1,4,128))'
    """
    return dense_tile("K", "32B", "tf32", 16, 16)
