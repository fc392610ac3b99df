"""tcgen05.ld.red: the reduction qualifiers and what PTX 9.7.16.8.3 allows.

``tcgen05.ld.red`` loads the same registers as ``tcgen05.ld`` and also reduces
(``.min`` / ``.max``) the values each thread loads into its scalar ``redval``.
Its shapes are the ones whose shape file says ``ld_red: true`` (.32x32b and
.16x32bx2); ``.num`` is at least ``.x2``; ``.abs`` / ``.NaN`` only with ``.f32``;
no ``.pack::16b``. ptxas (CUDA 13) refuses exactly these and assembles it for
sm_103a (not sm_100a).
"""

from __future__ import annotations

from typing import NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.shapes import Shape

RED_OPS = ("min", "max")
RED_TYPES = ("u32", "s32", "f32")
"""tcgen05.ld.red's .redOp and .type (PTX 9.7.16.8.3 syntax)."""


class Reduction(NamedTuple):
    """What tcgen05.ld.red computes: ``op`` over each thread's loaded columns, into ``redval``.

    ``.abs`` (reduce absolute values) and ``.NaN`` (a NaN input gives NaN) exist
    for ``.f32`` only (PTX 9.7.16.8.3).
    """

    op: str
    type: str
    abs: bool = False
    nan: bool = False

    @property
    def qualifiers(self) -> str:
        """``.max.abs.NaN.f32``: in the order of the PTX syntax line ``.redOp{.abs}{.NaN}.type``."""
        return f".{self.op}{'.abs' if self.abs else ''}{'.NaN' if self.nan else ''}.{self.type}"

    @property
    def words(self) -> str:
        """``max``, ``min of |x|``, ...: what redval holds.

        >>> Reduction("max", "f32", abs=True, nan=True).words
        'max of |x| (NaN if any is NaN)'
        """
        what = f"{self.op} of |x|" if self.abs else self.op
        return what + (" (NaN if any is NaN)" if self.nan else "")


class Reduced(NamedTuple):
    """Thread ``thread``'s redval reduces lane ``lane``, columns ``cols`` (ascending)."""

    thread: int
    lane: int
    cols: tuple[int, ...]


def check_reduction(shape: Shape, num: int, pack: bool, op: str, red: Reduction) -> None:
    """What PTX 9.7.16.8.3 allows tcgen05.ld.red (ptxas 13 refuses the same)."""
    if op != "ld":
        raise TmemvizError("a reduction (--red) belongs to tcgen05.ld.red; tcgen05.st has none")
    if not shape.ld_red:
        raise TmemvizError(f"tcgen05.ld.red takes .32x32b or .16x32bx2, not {shape.name} (PTX 9.7.16.8.3)")
    if red.op not in RED_OPS:
        raise TmemvizError(f"tcgen05.ld.red reduces with min or max, not '{red.op}' (PTX 9.7.16.8.3)")
    if red.type not in RED_TYPES:
        raise TmemvizError(f"tcgen05.ld.red takes .type u32, s32 or f32, not '{red.type}' (PTX 9.7.16.8.3)")
    if num < 2:
        raise TmemvizError("tcgen05.ld.red needs .num of at least .x2 (PTX 9.7.16.8.3)")
    if pack:
        raise TmemvizError("tcgen05.ld.red takes no .pack::16b (PTX 9.7.16.8.3 syntax)")
    if (red.abs or red.nan) and red.type != "f32":
        which = ".abs" if red.abs else ".NaN"
        raise TmemvizError(f"{which} applies to .f32 reductions only, not .{red.type} (PTX 9.7.16.8.3)")
