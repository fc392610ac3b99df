"""Scale-factor options as users type them, checked against the PTX text, and the PTX they name.

Legal combinations (PTX 9.7.16.10.7, ``.block_scale``): ``.kind::mxf8f6f4`` takes block32
(``.scale_vec::1X``), ``.kind::mxf4`` block32 (``.scale_vec::2X``), ``.kind::mxf4nvf4``
block32 (``.scale_vec::2X``) or block16 (``.scale_vec::4X``). One dense MMA spans K = 32
(mxf8f6f4) or 64 (mxf4, mxf4nvf4) elements (PTX 9.7.16.10.1).
"""

from __future__ import annotations

from typing import Optional

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.scales.layout import (
    CHUNK_BLOCKS,
    CHUNK_ROWS,
    COPY_SHAPE,
    SF_VECS,
    Scales,
    make_scales,
)
from tmemviz.tmem import TMEM_COLUMNS

KINDS = tuple(SF_VECS)
DEFAULT_KIND = {32: "mxf8f6f4", 16: "mxf4nvf4"}
"""The kind assumed when --kind is not given: MXFP8 for block32, NVFP4 for block16."""
SF_TYPES = {("mxf8f6f4", 32): "ue8m0", ("mxf4", 32): "ue8m0", ("mxf4nvf4", 32): "ue8m0"}
SF_TYPES[("mxf4nvf4", 16)] = "ue4m3 or ue8m0"
M_PER_CTA = 128
"""Rows of A per CTA that CUTLASS's scale-factor layouts take (CuTe DSL: 'expects the M-mode to be 128')."""
MAX_N = 256
N_NOTE = (
    "N steps of 16 (16..256) follow PTX 9.7.16.10.1's rows for M = 128; tmemviz did not check the "
    "block-scaled rows of that table separately"
)


def parse_operand(text: str) -> str:
    """``A`` or ``B`` (any case; ``sfa``/``sfb`` too).

    >>> parse_operand("sfb")
    'B'
    """
    key = str(text).strip().upper().removeprefix("SF")
    if key not in ("A", "B"):
        raise TmemvizError(f"--operand must be A or B (whose scale factors), got '{text}'")
    return key


def parse_kind(text: str) -> str:
    """``mxf8f6f4``, ``mxf4`` or ``mxf4nvf4`` (also spelled ``.kind::mxf4``).

    >>> parse_kind(".kind::MXF4NVF4")
    'mxf4nvf4'
    """
    key = str(text).strip().lower().lstrip(".").removeprefix("kind::")
    if key not in KINDS:
        raise TmemvizError(
            f"unknown kind '{text}'; block-scaled MMAs are {', '.join(KINDS)} (PTX 9.7.16.10.7)"
        )
    return key


def parse_sf_vec(value: int | str) -> int:
    """16 or 32 (also ``block16``, ``block32``)."""
    key = str(value).strip().lower().lstrip(".").removeprefix("block")
    if key not in ("16", "32"):
        raise TmemvizError(f"--sf-vec must be 16 or 32 (K elements per scale factor), got '{value}'")
    return int(key)


def check_kind(kind: str, sf_vec: int) -> None:
    """Refuse a block size the kind does not take.

    >>> check_kind("mxf8f6f4", 16)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: .kind::mxf8f6f4 takes block32 (.scale_vec::1X) only; ...
    """
    if sf_vec in SF_VECS[kind]:
        return
    x = {"mxf8f6f4": "1X"}.get(kind, "2X")
    raise TmemvizError(
        f".kind::{kind} takes block32 (.scale_vec::{x}) only; block16 (.scale_vec::4X) needs "
        ".kind::mxf4nvf4 (PTX 9.7.16.10.7)"
    )


def resolve_scales(
    catalog: Catalog,
    *,
    operand: str,
    sf_vec: int | str,
    k: int,
    m: Optional[int] = None,
    n: Optional[int] = None,
    cta_group: int | str = 1,
    kind: Optional[str] = None,
) -> Scales:
    """The scale factors the options describe, every value checked."""
    from tmemviz.families.cp.spelling import parse_cta_group

    op = parse_operand(operand)
    vec = parse_sf_vec(sf_vec)
    name = parse_kind(kind) if kind is not None else DEFAULT_KIND[vec]
    check_kind(name, vec)
    group = parse_cta_group(cta_group)
    extent = _extent(op, m, n, group)
    _check_k(name, vec, k)
    s = make_scales(op, name, vec, group, extent, k, catalog.get(CP, COPY_SHAPE))
    if s.columns > TMEM_COLUMNS:
        raise TmemvizError(
            f"the scale factors of K = {k} would take {s.columns} TMEM columns; there are {TMEM_COLUMNS}"
        )
    return s


def _extent(op: str, m: Optional[int], n: Optional[int], group: int) -> int:
    if op == "A":
        if n is not None or m is None:
            raise TmemvizError("scale factors of A need --m (the MMA's M), not --n")
        want = M_PER_CTA * group
        if m > want:
            raise TmemvizError(
                f"M = {m} is beyond what one .cta_group::{group} block-scaled MMA takes; "
                f"the largest M is {want}"
            )
        if m != want:
            raise TmemvizError(
                f"M = {m} is not modelled: CUTLASS's scale-factor layouts take 128 rows of A per CTA, so "
                f"--m must be {want} with --cta-group {group}"
            )
        return m
    if m is not None or n is None:
        raise TmemvizError("scale factors of B need --n (the MMA's N), not --m")
    step = 16  # M = 128 per CTA: PTX 9.7.16.10.1's N steps for M=128 (see N_NOTE)
    if n > MAX_N:
        raise TmemvizError(f"N = {n} is beyond what a block-scaled MMA takes; N is at most {MAX_N}")
    if n < step or n % step:
        raise TmemvizError(
            f"N must be a multiple of {step} from {step} to {MAX_N} with .cta_group::{group}, got {n}"
        )
    return n


def _check_k(kind: str, vec: int, k: int) -> None:
    chunk_k = CHUNK_BLOCKS * vec
    if k <= 0 or k % chunk_k:
        raise TmemvizError(
            f"K must be a positive multiple of {chunk_k} (a 512-byte chunk holds {CHUNK_BLOCKS} blocks of "
            f"{vec} per row), got {k}"
        )


def mma_statement(s: Scales) -> str:
    """The block-scaled MMA (shared-memory A and B), as ptxas assembles it."""
    return (
        f"tcgen05.mma.cta_group::{s.cta_group}.kind::{s.kind}.block_scale.scale_vec::{s.scale_vec} "
        "[d_tmem], a_desc, b_desc, idesc, [sfa_tmem], [sfb_tmem], p;"
    )


def sf_id_field(s: Scales) -> str:
    """Where the SF ID goes: the instruction descriptor's SFA ID or SFB ID field."""
    return f"SF{s.operand} ID"


SF_ID_SHIFT = {"A": 29, "B": 4}
"""Lowest bit of the 2-bit SFA ID / SFB ID in the instruction descriptor (CUTLASS)."""
SF_ID_NOTE = (
    "the SF ID's place in the instruction descriptor (SFA ID bits 29-30, SFB ID bits 4-5) follows CUTLASS's "
    "InstrDescriptorBlockScaled; the PTX excerpts at hand give only the dense kinds' descriptor table"
)


def idesc_bits(s: Scales, sf_id: int) -> int:
    """What to OR into the instruction descriptor for ``sf_id``.

    >>> from tmemviz.families.scales.layout import builtin_32x128b
    >>> hex(idesc_bits(make_scales("A", "mxf8f6f4", 32, 1, 128, 128, builtin_32x128b()), 3))
    '0x60000000'
    """
    return sf_id << SF_ID_SHIFT[s.operand]


def sf_id_unit(s: Scales) -> str:
    """What the SF ID selects in a 32-bit column (PTX 9.7.16.10.7)."""
    return {1: "byte", 2: "half-word", 4: "word"}[s.per_mma]


def rows_note(s: Scales) -> str | None:
    """Rows the chunks carry that hold no scale factor (CUTLASS pads to whole 128-row chunks)."""
    if s.padded == s.rows:
        return None
    return (
        f"{s.rows} rows padded to {s.padded} (whole {CHUNK_ROWS}-row chunks, as CUTLASS pads them); "
        f"rows {s.rows}..{s.padded - 1} of each chunk hold no scale factor"
    )
