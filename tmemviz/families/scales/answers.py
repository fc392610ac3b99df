"""Scale-factor answers as records (JSON/CSV) and sentences.

The JSON document is ``{"operand", "sf_vec", "rows", "kblocks", ..., "cells": [{"row", "kblock",
"smem", "tmem": [{"lane", "col", "byte"}]}], "copies": [{"ptx", "smem", "col"}], "mma": [...]}``;
under ``.cta_group::2`` each TMEM entry also names its ``cta``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.families.scales import layout
from tmemviz.families.scales.layout import Read, Scales, Spot, Transfer
from tmemviz.families.scales.spelling import SF_ID_SHIFT, idesc_bits, mma_statement, sf_id_field, sf_id_unit

CSV_HEADER = ("row", "kblock", "smem", "copy", "cta", "lane", "col", "byte")


def header(s: Scales) -> dict[str, Any]:
    """The JSON fields before the lists."""
    return {
        "operand": s.operand,
        "sf_vec": s.sf_vec,
        "rows": s.rows,
        "kblocks": s.kblocks,
        "kind": s.kind,
        "scale_vec": s.scale_vec,
        "cta_group": s.cta_group,
        ("m" if s.operand == "A" else "n"): s.extent,
        "k": s.k,
        "padded_rows": s.padded,
        "columns": s.columns,
        "mma_k": s.mma_k,
        "sf_id_selects": sf_id_unit(s),
        "mma_ptx": mma_statement(s),
    }


def spot_record(s: Scales, x: Spot) -> dict[str, int]:
    record = {"lane": x.lane, "col": x.col, "byte": x.byte}
    if s.cta_group == 2:
        record["cta"] = x.cta
    return record


def cell_record(s: Scales, row: int, kblock: int) -> dict[str, Any]:
    """Where SF[row][kblock] sits: its shared-memory byte, its TMEM bytes, the copy that moves it."""
    tr, _, _ = layout.source_row(s, row, kblock)
    record: dict[str, Any] = {"row": row, "kblock": kblock}
    if s.cta_group == 2 and s.operand == "A":
        record["cta"] = layout.owner(s, row)[0]
    record["smem"] = layout.smem_byte(s, row, kblock)
    record["copy"] = tr.index
    record["tmem"] = [spot_record(s, x) for x in layout.landings(s, row, kblock)]
    return record


def all_rows(s: Scales) -> range:
    return range(s.extent if s.operand == "A" else s.rows)


def cell_records(s: Scales) -> list[dict[str, Any]]:
    return [cell_record(s, row, kb) for row in all_rows(s) for kb in range(s.kblocks)]


def copy_record(s: Scales, tr: Transfer) -> dict[str, Any]:
    """One tcgen05.cp: its PTX, the byte offset of its 512-byte source chunk, its TMEM column."""
    first = layout.CHUNK_ROWS * tr.tile
    last = min(first + layout.CHUNK_ROWS, s.rows) - 1
    blocks = layout.CHUNK_BLOCKS * tr.kchunk
    return {
        "ptx": copy_statement(tr),
        "smem": tr.smem,
        "col": tr.col,
        "rows": [first, last],
        "kblocks": [blocks, blocks + layout.CHUNK_BLOCKS - 1],
    }


def copy_statement(tr: Transfer) -> str:
    """The copy as ptxas assembles it: taddr of the first chunk plus this chunk's column."""
    return tr.copy.statement(f"taddr+{tr.col}" if tr.col else "taddr", "sdesc")


def mma_record(s: Scales, r: Read) -> dict[str, Any]:
    """One MMA along K: the column its scale factors start at (the scale tmem address) and its SF ID."""
    return {
        "mma": r.index,
        "k": [r.k_first, r.k_last],
        "kblocks": list(r.kblocks),
        "col": r.col,
        "cols": [r.col, r.col + layout.mma_columns(s) - 1],
        "sf_id": r.sf_id,
        "bytes": [r.sf_id, r.sf_id + s.per_mma - 1],
        "idesc_bits": [SF_ID_SHIFT[s.operand], SF_ID_SHIFT[s.operand] + 1],
        "idesc_or": idesc_bits(s, r.sf_id),
    }


def csv_rows(
    s: Scales, rows: Iterable[int] | None = None, blocks: Iterable[int] | None = None
) -> list[tuple[Any, ...]]:
    """One line per TMEM byte of every scale factor (of ``rows`` and ``blocks`` when given)."""
    out: list[tuple[Any, ...]] = []
    for row in all_rows(s) if rows is None else rows:
        for kb in range(s.kblocks) if blocks is None else blocks:
            tr, _, _ = layout.source_row(s, row, kb)
            smem = layout.smem_byte(s, row, kb)
            for x in layout.landings(s, row, kb):
                out.append((row, kb, smem, tr.index, x.cta, x.lane, x.col, x.byte))
    return out


def cell_sentence(s: Scales, row: int, kblock: int) -> str:
    """One line: where SF[row][kblock] is and which MMA reads it."""
    rec = cell_record(s, row, kblock)
    spots = layout.landings(s, row, kblock)
    lanes = ", ".join(str(x.lane) for x in spots if x.cta == spots[0].cta)
    where = "" if s.cta_group == 1 else f" of CTA {spots[0].cta}" + (" and CTA 1" if s.operand == "B" else "")
    mma = kblock // s.per_mma
    return (
        f"SF{s.operand}[{row}][{kblock}] (K {kblock * s.sf_vec}..{(kblock + 1) * s.sf_vec - 1}): "
        f"shared-memory byte {rec['smem']}, copy {rec['copy']}; TMEM{where} lanes {lanes}, "
        f"column {spots[0].col}, byte {spots[0].byte}; "
        f"read by MMA {mma} with {sf_id_field(s)} {layout.reads(s)[mma].sf_id}"
    )


def cell_records_at(s: Scales, lane: int, col: int, cta: int = 0) -> list[dict[str, Any]]:
    """What the four bytes of TMEM (cta, lane, col) hold: one record per byte (row None = padding)."""
    out = []
    for byte in range(layout.CHUNK_BLOCKS):
        found = layout.source_of(s, lane, col, byte, cta)
        row, kb = found if found is not None else (None, None)
        out.append({"byte": byte, "row": row, "kblock": kb})
    return out


def cell_at_sentence(s: Scales, lane: int, col: int, cta: int = 0) -> str:
    """One line: the scale factors in the four bytes of a TMEM cell and the MMAs that read them."""
    parts = []
    for r in cell_records_at(s, lane, col, cta):
        if r["row"] is None:
            parts.append(f"byte {r['byte']}: padding")
            continue
        mma = r["kblock"] // s.per_mma
        parts.append(f"byte {r['byte']}: SF{s.operand}[{r['row']}][{r['kblock']}] (MMA {mma})")
    where = f"CTA {cta} " if s.cta_group == 2 else ""
    return f"TMEM {where}lane {lane}, column {col}: " + "; ".join(parts)
