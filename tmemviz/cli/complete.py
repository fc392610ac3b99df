"""Shell completion: shape names in every spelling tmemviz reads, and the ``.num`` values a shape takes.

Typer calls these with the word being completed (``incomplete``) and, where it
helps, the parameters parsed so far (``ctx.params``), recognised by the
parameter names ``ctx`` and ``incomplete``. They read the shipped shape files
(and ``--layouts`` / ``$TMEMVIZ_LAYOUTS``), so a new shape file completes too.
"""

from __future__ import annotations

from typing import Any

from tmemviz.cli.options import CP, LDST, catalog
from tmemviz.errors import TmemvizError


def _matching(names: list[str], incomplete: str) -> list[str]:
    key = incomplete.lower()
    return [n for n in names if n.lower().startswith(key)]


def _layouts(ctx: Any) -> Any:
    return getattr(ctx, "params", {}).get("layouts") if ctx is not None else None


def ldst_names(ctx: Any, incomplete: str) -> list[str]:
    """ld/st shapes and aliases; CUTLASS atom names once the word starts like one (``SM...``)."""
    try:
        shapes = catalog(_layouts(ctx)).shapes(LDST)
    except TmemvizError:
        return []
    names = [s.name for s in shapes] + [a for s in shapes for a in s.aliases]
    if incomplete[:2].upper() == "SM":
        from tmemviz.families.ldst.dialects import cutlass_name

        names += [
            cutlass_name(alias, op, num, pack)
            for s in shapes
            for alias in s.aliases
            for num in s.nums
            for op in ("ld", "st")
            for pack in (False, True)
        ]
    return _matching(names, incomplete)


def cp_names(ctx: Any, incomplete: str) -> list[str]:
    """cp shapes with each multicast they take; CUTLASS ``SM100_UTCCP_*`` atoms once the word starts so."""
    try:
        shapes = catalog(_layouts(ctx)).shapes(CP)
    except TmemvizError:
        return []
    names = [s.name + (f".{p.multicast}" if p.multicast else "") for s in shapes for p in s.placements]
    if incomplete[:2].upper() == "SM":
        from tmemviz.families.cp.dialects import utccp_name

        names += [utccp_name(p.cutlass, g) for s in shapes for p in s.placements if p.cutlass for g in (1, 2)]
    return _matching(names, incomplete)


def shift_names(ctx: Any, incomplete: str) -> list[str]:
    """tcgen05.shift in both qualifier orders (PTX 9.7.16.9.3's syntax line and its example)."""
    names = [
        f"tcgen05.shift.{order}"
        for group in (1, 2)
        for order in (f"cta_group::{group}.down", f"down.cta_group::{group}")
    ]
    return _matching(names, incomplete)


def datapath_names(ctx: Any, incomplete: str) -> list[str]:
    """The data-path layout letters (``layouts/datapath``, and the user's)."""
    from tmemviz.families.datapath.shapes import KIND as DATAPATH

    try:
        names = [p.name for p in catalog(_layouts(ctx)).shapes(DATAPATH)]
    except TmemvizError:
        return []
    return [n for n in names if n.lower().startswith(incomplete.lower())]


def any_names(ctx: Any, incomplete: str) -> list[str]:
    """Every family's names (``ptx`` takes any)."""
    return ldst_names(ctx, incomplete) + cp_names(ctx, incomplete) + shift_names(ctx, incomplete)


def nums(ctx: Any, args: list[str], incomplete: str) -> list[str]:
    """``x1`` .. the largest ``.num`` of the shape already typed (PTX Table 49), else of any shape.

    The shape is looked for among the words typed so far: while a ``--num``
    waits for its value, Click has not parsed the positional SHAPE yet, so the
    words come from the shell (``COMP_WORDS`` for bash, ``_TYPER_COMPLETE_ARGS``
    for zsh and fish).
    """
    import os

    from tmemviz.families.ldst.shapes import NUMS
    from tmemviz.families.ldst.spelling import parse_spelling

    legal = list(NUMS)
    found = catalog(_layouts(ctx))
    typed = getattr(ctx, "params", {}).get("shape") if ctx is not None else None
    shell = os.environ.get("COMP_WORDS") or os.environ.get("_TYPER_COMPLETE_ARGS") or ""
    for word in [typed or "", *args, *shell.split()[2:]]:
        if word.startswith("-"):
            continue
        try:
            shape = found.find(LDST, parse_spelling(word).shape)
        except TmemvizError:
            continue
        if shape is not None:
            legal = list(shape.nums)
            break
    return _matching([f"x{n}" for n in legal], incomplete)
