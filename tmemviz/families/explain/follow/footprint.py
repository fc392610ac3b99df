"""Which Tensor Memory one tcgen05 instruction touches, relative to the registers that address it.

Each instruction's own family answers (through its explain record): the ld/st register layout's cells,
the cp shape's rows and words, the shift's rows, the MMA's D from its instruction descriptor's M and N and
the data-path layout (PTX 9.7.16.10.5), its scale factors and sparsity metadata. Where the explain record
could not decode the idesc but the data-flow analysis knows its value, the D is worked out from that
value here. A scale-factor address holds the scale factor's byte in bits 31:30 and its lane in bits 29:16
(shared/spec ordering-facts §2; CUTLASS ``make_runtime_instr_desc_block_scaled``).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.regions import d_extent, footprints
from tmemviz.families.mma.scale_operands import lane as sf_lane

Interval = tuple[int, int]
SCALES = ("A scale factors", "B scale factors")


@dataclass(frozen=True)
class Touch:
    """Cells of one operand, relative to the address its ``register`` holds (lane << 16 | column)."""

    what: str
    """``cells`` (ld/st), ``rows`` (cp, shift), ``D``, ``A scale factors``, ``B scale factors``,
    ``metadata``."""
    register: str
    lanes: Interval
    cols: Interval
    writes: bool
    exact: bool = True
    """False where only a lower bound is known (a D whose idesc is not known: its first cell)."""

    @property
    def scale(self) -> bool:
        return self.what in SCALES


def touches(record: Mapping[str, Any] | None, catalog: Any, extent: Any, idesc: int | None) -> list[Touch]:
    """Every operand region of the instruction whose explain ``record`` is given; ``extent`` is an ld/st's
    (lanes, columns) from its layout, ``idesc`` the descriptor's value when the analysis knows it."""
    if not record or "error" in record:
        return []
    op = record.get("op")
    if op == "mma" and idesc is not None and not record.get("idesc"):
        record = _with_idesc(record, idesc)
    out = []
    for what, base, lanes, cols in footprints(record, catalog, extent):
        if base is None:
            continue
        writes = op in ("st", "cp", "shift") or (op == "mma" and what == "D")
        exact = not (op == "mma" and what == "D" and not (record.get("idesc") and record.get("layout")))
        if what in SCALES or what == "metadata":
            lanes = (sf_lane(lanes[0]), sf_lane(lanes[1]))  # bits 31:30 are the byte (mma/scale_operands)
        out.append(Touch(what, base, lanes, cols, writes, exact))
    return out


def _with_idesc(record: Mapping[str, Any], value: int) -> Mapping[str, Any]:
    """The record as if its idesc had been decoded: ``idesc`` M/N/D type and the data-path ``layout``."""
    from tmemviz.families.explain.answers import datapath
    from tmemviz.families.mma.idesc import decode

    try:
        found = decode(value & 0xFFFFFFFF, str(record.get("kind")))
    except TmemvizError:
        return record
    fields = dict(found.fields)
    if not isinstance(fields.get("n"), int) or not isinstance(fields.get("m"), int):
        return record
    group, sparse, ws = int(record.get("cta_group") or 1), bool(record.get("sparse")), bool(record.get("ws"))
    letter, _ = datapath(fields["m"], fields["n"], group, sparse, ws)
    if letter is None or d_extent(letter, fields["n"]) is None:
        return record
    return {**record, "idesc": fields, "layout": letter}
