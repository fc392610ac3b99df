"""Who loads what: each warp's lane groups, its share of D's columns, and its tcgen05.ld instructions.

Each warp ``w`` may touch only lanes ``32*(w % 4) .. +31`` of its CTA's Tensor
Memory (PTX 9.7.16.8.1), so a warp loads the part of D its band holds: all 32
lanes (layouts A, B, D, E, G) or the 16 lanes at the lane offset (half the data
path: C, F). With ``.cta_group::2`` each CTA's own warps load its own TMEM, so
the plan of one CTA is issued in both.

How the work is split is the caller's choice in a real kernel; tmemviz follows
Triton Gluon's TMEM register layouts (``get_reg_layout``), checked against
Triton 3.9:

* 4 warps: warp w loads its band over all of D's columns; a 16-lane shape on a
  32-lane band needs a second instruction 16 lanes lower (taddr lane +16) for
  each step.
* 8 warps, one lane group per band (a 32-lane shape, or any shape on half the
  data path): warps 4-7 take the right half of the columns (Gluon's warp basis
  [0, N/2]).
* 8 warps, 16-lane shapes on 32-lane bands: warps 4-7 take lanes +16 of each
  band over all the columns (Gluon's warp basis [16, 0]).
* ``.16x32bx2``: immHalfSplitoff is half of the warp's columns, so threads 0-15
  load the left half and threads 16-31 the right half; this is what Gluon does
  when asked for "32x32b" on an M = 64 tile (half the data path).

A warp's instructions are numbered along N first step, then lane group: index
``i = step * groups + group``.

Default ``.num``: the largest legal ``.num`` whose instruction covers a whole
divisor of the warp's share of the columns (``.num`` values are powers of two,
so this is the fewest instructions that tile them exactly).
"""

from __future__ import annotations

from dataclasses import dataclass

from tmemviz.errors import TmemvizError
from tmemviz.families.datapath.shapes import DataPath
from tmemviz.families.ldst.layout import Instruction, make_instruction
from tmemviz.families.ldst.shapes import Shape
from tmemviz.tmem import WARP_LANES

WARPGROUP = 4


@dataclass(frozen=True)
class Issued:
    """One tcgen05.ld of the tile: the CTA and warp issuing it, its index among that warp's, and itself."""

    warp: int
    index: int
    ins: Instruction
    """With an absolute taddr (in its CTA's TMEM) and the issuing warp, validated by ``make_instruction``."""
    cta: int = 0

    @property
    def taddr(self) -> tuple[int, int]:
        assert self.ins.taddr is not None
        return self.ins.taddr


def band_lanes(path: DataPath, offset: int) -> tuple[int, int]:
    """The first lane of D in each 32-lane band (relative to the band) and how many lanes it holds.

    >>> from tmemviz.families.datapath.shapes import shipped_path
    >>> band_lanes(shipped_path("F"), 16), band_lanes(shipped_path("B"), 0)
    ((16, 16), (0, 32))
    """
    return (offset, 16) if path.placement == "half" else (0, WARP_LANES)


def refuse_wide_shape(path: DataPath, shape: Shape, offset: int) -> None:
    """A 32-lane shape cannot load half the data path: it would read 16 lanes that are not D."""
    first, held = band_lanes(path, offset)
    if shape.lanes > held:
        other = 16 - first
        raise TmemvizError(
            f"layout {path.name} holds D in lanes +{first}..+{first + 15} of each 32-lane band (half the "
            f"data path), so .{shape.name} would also read lanes +{other}..+{other + 15}, which are not this "
            "D (another accumulator or garbage): use a 16-lane shape (16x32bx2, 16x64b, 16x128b, 16x256b)"
        )


@dataclass(frozen=True)
class Plan:
    """Each warp's lane groups and its share of D's columns (one CTA; the pair repeats it)."""

    shape: Shape
    n: int
    warps: int
    bits: int
    storage: str | None
    columns: int
    """TMEM columns D occupies in each CTA (after folding and packing)."""
    starts: tuple[int, ...]
    """Lane starts (relative to a band) of the instructions covering D's lanes of a band."""

    @property
    def groups(self) -> int:
        return len(self.starts)

    @property
    def warpgroups(self) -> int:
        return self.warps // WARPGROUP

    @property
    def n_parts(self) -> int:
        """How many parts the columns are split into between warpgroups."""
        return max(1, self.warpgroups // self.groups)

    def lane_starts(self, warp: int) -> list[int]:
        """The lane starts warp ``warp`` loads: warpgroup g takes every g-th group."""
        if self.n_parts > 1:
            return list(self.starts)  # the warpgroups split the columns instead
        g = warp // WARPGROUP
        return [s for k, s in enumerate(self.starts) if k % self.warpgroups == g]

    def part(self, warp: int) -> int:
        """Which part of the columns warp ``warp`` loads."""
        return (warp // WARPGROUP) // self.groups if self.n_parts > 1 else 0

    def share(self) -> int:
        """TMEM columns each warp loads in each of its lane groups."""
        return self.columns // self.n_parts

    def span(self, num: int) -> int:
        """TMEM columns one instruction covers (both halves of a split shape)."""
        unpack = 2 if self.storage == "unpacked" else 1
        return num * self.shape.columns_per_rep * unpack * self.shape.accesses

    def elements(self, columns: int) -> int:
        return columns * (2 if self.storage == "packed" else 1)

    def fits(self, num: int) -> bool:
        return self.columns % self.n_parts == 0 and self.share() % self.span(num) == 0

    def default_num(self) -> int:
        legal = [k for k in self.shape.nums if self.fits(k)]
        if not legal:
            raise self.misfit(1)
        return max(legal)

    def check_num(self, num: int) -> int:
        make_instruction(self.shape, num)  # the PTX Table 49 limits, in the ld/st family's words
        if not self.fits(num):
            raise self.misfit(num)
        return num

    def misfit(self, num: int) -> TmemvizError:
        width = self.elements(self.span(num))
        split = ""
        if self.n_parts > 1:
            split = f"; with {self.warps} warps each warpgroup loads half of the columns"
        held = self.elements(self.columns)
        fold = f" (D's {held} elements per row in each lane band)" if held != self.n else ""
        return TmemvizError(
            f"N={self.n}{fold} is not a multiple of the instruction width: {self.shape.name}.x{num} covers "
            f"{width} elements of N ({self.bits}-bit) per row{split}"
        )

    def issue(self, num: int, base: tuple[int, int], ctas: int) -> tuple[Issued, ...]:
        shape = self.shape
        pack = self.storage == "unpacked"
        share = self.share()
        step = self.span(num) // shape.accesses  # columns of one access
        split = share // 2 if shape.split else None
        out: list[Issued] = []
        for cta in range(ctas):
            for warp in range(self.warps):
                band = WARP_LANES * (warp % WARPGROUP)
                first = base[1] + self.part(warp) * share
                index = 0
                for k in range(share // self.span(num)):
                    for start in self.lane_starts(warp):
                        taddr = (band + start, first + k * step)
                        ins = make_instruction(
                            shape, num, pack=pack, split_offset=split, taddr=taddr, warp=warp
                        )
                        out.append(Issued(warp, index, ins, cta))
                        index += 1
        return tuple(out)


def make_plan(
    path: DataPath, shape: Shape, n: int, warps: int, bits: int, storage: str | None, offset: int
) -> Plan:
    """The plan for D of layout ``path`` (``n`` columns of elements, ``offset`` its taddr lane)."""
    refuse_wide_shape(path, shape, offset)
    per_cta = n // path.parts if path.placement == "folded" else n
    columns = per_cta // 2 if storage == "packed" else per_cta
    first, held = band_lanes(path, offset)
    starts = tuple(range(first, first + held, shape.lanes))
    return Plan(shape, n, warps, bits, storage, columns, starts)
