"""Machine-readable views of tcgen05.cp: JSON and CSV of the landings, JSON of decompression."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from tmemviz.decompress import CONTAINER_BASIS, ELEMENTS, Format, NumberType, tmem_position, unpack, widen
from tmemviz.mapper_cp import Copy, Landing, source_bits


def landing_record(cp: Copy, x: Landing) -> dict[str, Any]:
    """One cell; with decompression it also names the source row bits behind the widened word."""
    record: dict[str, Any] = {"row": x.row, "word": x.word, "cta": x.cta, "lane": x.lane, "col": x.col}
    if cp.decompress is not None:
        record["src_bits"] = list(source_bits(cp, x.word))
    return record


def copy_header(cp: Copy) -> dict[str, Any]:
    return {
        "instruction": cp.mnemonic,
        "shape": cp.shape.name,
        "multicast": cp.multicast,
        "cta_group": cp.cta_group,
        "decompress": cp.decompress.name if cp.decompress else None,
        "rows": cp.shape.rows,
        "words_per_row": cp.shape.words,
        "replicas": cp.replicas,
        "coordinates": "relative" if cp.taddr is None else "absolute",
        "taddr": None if cp.taddr is None else {"lane": cp.taddr[0], "col": cp.taddr[1]},
        "notes": list(cp.notes()),
    }


def copy_json(cp: Copy, landings: tuple[Landing, ...]) -> str:
    """The header fields, then one cell per line so the file stays greppable and diffable."""
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in copy_header(cp).items()]
    body = ",\n".join(f"  {json.dumps(landing_record(cp, x))}" for x in landings)
    return "{\n" + "\n".join(head) + '\n "cells": [\n' + body + "\n ]\n}\n"


def copy_csv(cp: Copy, landings: tuple[Landing, ...]) -> str:
    """``row,word,cta,lane,col``, plus ``src_bit_hi,src_bit_lo`` when decompressing."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["row", "word", "cta", "lane", "col"]
    if cp.decompress is not None:
        header += ["src_bit_hi", "src_bit_lo"]
    writer.writerow(header)
    for x in landings:
        row = list(x)
        if cp.decompress is not None:
            row += list(source_bits(cp, x.word))
        writer.writerow(row)
    return out.getvalue()


def decompress_record(fmt: Format, kind: NumberType | None, chunk: bytes | None) -> dict[str, Any]:
    """Positions of all 16 elements; with a chunk also codes, containers, values and ``output_hex``."""
    codes = unpack(fmt, chunk) if chunk is not None else None
    out = widen(fmt, chunk) if chunk is not None else None
    elements = []
    for i in range(ELEMENTS):
        col, byte = tmem_position(i)
        item: dict[str, Any] = {"index": i, "src_bits": list(fmt.source_bits(i)), "col": col, "byte": byte}
        if codes is not None and out is not None:
            item["code"] = codes[i]
            item["container"] = out[i]
            if kind is not None:
                item["value"] = kind.value(codes[i])
        elements.append(item)
    record: dict[str, Any] = {
        "format": fmt.name,
        "qualifiers": fmt.qualifiers,
        "type": kind.name if kind else None,
        "element_bits": fmt.element_bits,
        "data_bytes": fmt.data_bytes,
        "padding_bytes": fmt.padding_bytes,
        "container_bits": list(fmt.container_bits),
        "bit_names": list(kind.labels()) if kind else None,
        "basis": CONTAINER_BASIS,
    }
    if chunk is not None and out is not None:
        record["input_hex"] = chunk.hex()
        record["output_hex"] = out.hex()
    record["elements"] = elements
    return record


def decompress_json(fmt: Format, kind: NumberType | None, chunk: bytes | None) -> str:
    """The decompression record with one element per line."""
    record = decompress_record(fmt, kind, chunk)
    rows = record.pop("elements")
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in record.items()]
    body = ",\n".join(f"  {json.dumps(r)}" for r in rows)
    return "{\n" + "\n".join(head) + '\n "elements": [\n' + body + "\n ]\n}\n"
