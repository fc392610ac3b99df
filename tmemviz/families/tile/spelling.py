"""Tile options as users type them: the MMA (M, cta_group, .ws, sparse), shape, ``.num``, warps, dtype ..."""

from __future__ import annotations

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.datapath.shapes import KIND as DATAPATH
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.ldst.spelling import parse_num
from tmemviz.families.tile.layout import DTYPE_BITS, TILE_M, Tile, make_tile
from tmemviz.tmem import parse_taddr

DTYPE_NAMES = {"f32": "f32", "fp32": "f32", "float32": "f32", "f16": "f16", "fp16": "f16", "half": "f16"}
DTYPE_NAMES.update({"float16": "f16", "bf16": "bf16", "bfloat16": "bf16"})


def parse_dtype(text: str) -> str:
    """``f32``, ``f16`` or ``bf16`` (also ``float32``, ``fp16``, ``bfloat16`` ...).

    >>> parse_dtype("BFloat16")
    'bf16'
    """
    key = text.strip().lower()
    if key not in DTYPE_NAMES:
        raise TmemvizError(f"unknown dtype '{text}'; use {', '.join(DTYPE_BITS)}")
    return DTYPE_NAMES[key]


def resolve_tile(
    catalog: Catalog,
    *,
    shape: str,
    n: int,
    m: int = TILE_M,
    num: str | None = None,
    warps: int = 4,
    dtype: str = "f32",
    storage: str | None = None,
    taddr: str | None = None,
    cta_group: int = 1,
    sparse: bool = False,
    ws: bool = False,
    lane_offset: int | None = None,
) -> Tile:
    """The tile the options describe; ``shape`` is a bare ld/st shape name (``16x256b``, ``16dp256b``)."""
    name = shape.strip()
    if "." in name.lstrip(".") or " " in name:
        raise TmemvizError(
            f"--shape takes a bare shape such as 16x256b, got '{shape}'; give .num with --num "
            "(the tile decides .pack::16b from --dtype and --storage)"
        )
    found = catalog.get(LDST, name)
    return make_tile(
        found,
        n,
        m=m,
        num=parse_num(num) if num is not None else None,
        warps=warps,
        dtype=parse_dtype(dtype),
        storage=storage.strip().lower() if storage is not None else None,
        taddr=parse_taddr(taddr) if taddr is not None else None,
        cta_group=cta_group,
        sparse=sparse,
        ws=ws,
        lane_offset=lane_offset,
        paths=catalog.shapes(DATAPATH),
    )
