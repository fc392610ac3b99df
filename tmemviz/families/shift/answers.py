"""tcgen05.shift answers in words and records: what moves where, what a lane holds afterwards.

Records are plain dicts and tuples; :mod:`tmemviz.draw.records` writes them.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.shift.layout import Move, Shift, goes_to, held_after


def context(shift: Shift) -> str:
    """``tcgen05.shift.cta_group::1.down (taddr lane 32, column 8)`` or ``(relative to taddr)``."""
    lane, col = shift.taddr
    if shift.relative:
        where = f"relative to {shift.address.register}"
        if shift.address.immediate:
            where += (
                f", address {shift.address.register}+{shift.address.immediate} = lane {lane}, column {col}"
            )
    else:
        where = f"taddr lane {lane}, column {col}"
    return f"{shift.mnemonic} ({where})"


def summary(shift: Shift) -> str:
    """One line: which lanes move where, in which columns and CTAs.

    >>> from tmemviz.families.shift.layout import make_shift
    >>> from tmemviz.families.shift.shapes import builtin
    >>> print(summary(make_shift(builtin(), 2, base=(32, 8))))
    lanes 32..62 move down one lane to 33..63, columns 8..15 (32 bytes each), in this CTA and the peer CTA
    """
    first, last = shift.lanes
    step = shift.shape.step
    c0, c1 = shift.columns
    where = "in this CTA and the peer CTA" if shift.cta_group == 2 else "in this CTA"
    moved_last = first + shift.shape.rows - 1
    return (
        f"lanes {first}..{moved_last} move down {'one lane' if step == 1 else f'{step} lanes'} to "
        f"{first + step}..{last}, columns {c0}..{c1} ({shift.shape.row_bits // 8} bytes each), {where}"
    )


def lane_sentence(shift: Shift, lane: int, cta: int = 0) -> str:
    """What happens to ``lane``: where its element goes and what it holds afterwards."""
    c0, c1 = shift.columns
    who = f"lane {lane}, columns {c0}..{c1}" + (f" of cta {cta}" if shift.cta_group == 2 else "")
    before = held_after(shift, lane, cta)
    after = goes_to(shift, lane, cta)
    holds = (
        f"afterwards holds what lane {before} held"
        if before is not None
        else "afterwards holds data the PTX text does not specify"
    )
    moves = (
        f"its element moves to lane {after}"
        if after is not None
        else f"its element is not moved (the last row) and is overwritten by lane {lane - shift.shape.step}'s"
    )
    return f"{who} of {context(shift)}: {moves}; it {holds}"


# Records: what --format json / csv print.


def move_record(m: Move) -> dict[str, Any]:
    """``{"cta", "from": {"lane", "col", "cols"}, "to": {...}}``: one element's move."""
    return {
        "cta": m.cta,
        "from": {"lane": m.from_lane, "col": m.col, "cols": m.cols},
        "to": {"lane": m.to_lane, "col": m.col, "cols": m.cols},
    }


def header(shift: Shift) -> dict[str, Any]:
    """The JSON fields before the moves."""
    lane, col = shift.taddr
    dl, dc = shift.address.offset
    first, last = shift.lanes
    return {
        "instruction": shift.mnemonic,
        "cta_group": shift.cta_group,
        "taddr": {"lane": lane, "col": col},
        "shape": shift.shape.name,
        "coordinates": "relative" if shift.relative else "absolute",
        "address": {
            "register": shift.address.register,
            "immediate": shift.address.immediate,
            "offset": {"lane": dl, "col": dc},
        },
        "lanes": [first, last],
        "columns": list(shift.columns),
        "first_row_after": "unspecified",
        "notes": list(shift.notes()),
    }


def lane_record(shift: Shift, lane: int, cta: int = 0) -> dict[str, Any]:
    """One lane's story: ``held_after`` (None = unspecified) and ``goes_to`` (None = not moved)."""
    return {
        "instruction": shift.mnemonic,
        "cta": cta,
        "lane": lane,
        "columns": list(shift.columns),
        "goes_to": goes_to(shift, lane, cta),
        "held_after": held_after(shift, lane, cta),
    }


CSV_HEADER = ("cta", "from_lane", "to_lane", "col", "cols")


def csv_rows(moved: tuple[Move, ...]) -> list[tuple[int, ...]]:
    return [(m.cta, m.from_lane, m.to_lane, m.col, m.cols) for m in moved]
