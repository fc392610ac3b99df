"""tcgen05.cp answers in words and records: where a row lands, what fills a lane, decompression.

Records are plain dicts and tuples; :mod:`tmemviz.draw.records` writes them.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.cp.decompress import (
    CONTAINER_BASIS,
    ELEMENTS,
    Format,
    NumberType,
    tmem_position,
    unpack,
    widen,
)
from tmemviz.families.cp.layout import Copy, Landing, source_bits


def lane_list(lanes: list[int]) -> str:
    """``lane 72`` / ``lanes 72 and 104`` / ``lanes 8, 40, 72 and 104``."""
    if len(lanes) == 1:
        return f"lane {lanes[0]}"
    return "lanes " + ", ".join(map(str, lanes[:-1])) + f" and {lanes[-1]}"


def cta_phrase(cp: Copy, ctas: set[int]) -> str:
    if cp.cta_group == 1:
        return ""
    return " of this CTA and of the peer CTA (cta 0 and 1)" if ctas == {0, 1} else f" of cta {min(ctas)}"


def row_sentence(cp: Copy, row: int, word: int | None, landings: tuple[Landing, ...]) -> str:
    """E.g. ``row 40 of 64x128b.warpx2::01_23 lands in lanes 72 and 104, columns 0..3 (words 0..3)``."""
    lanes = sorted({x.lane for x in landings})
    cols = sorted({x.col for x in landings})
    ctas = {x.cta for x in landings}
    where = f"{lane_list(lanes)}{cta_phrase(cp, ctas)}"
    if word is not None:
        what = f"word {word} of row {row}"
        spot = f"column {cols[0]}"
    else:
        what = f"row {row}"
        spot = f"columns {cols[0]}..{cols[-1]} (words 0..{len(cols) - 1} in order)"
    return f"{what} of {copy_context(cp)} lands in {where}, {spot}{bits_phrase(cp, word)}"


def source_sentence(cp: Copy, found: Landing) -> str:
    """E.g. ``lane 104, column 3 of ... receives word 3 of source row 40``."""
    cta = f" of cta {found.cta}" if cp.cta_group == 2 else ""
    return (
        f"lane {found.lane}, column {found.col}{cta} of {copy_context(cp)} receives word {found.word} "
        f"of source row {found.row}{bits_phrase(cp, found.word)}"
    )


def bits_phrase(cp: Copy, word: int | None) -> str:
    """With decompression, which packed elements and source bits fill the widened word."""
    if cp.decompress is None or word is None:
        return ""
    hi, lo = source_bits(cp, word)
    first = 4 * (word % 4)
    return (
        f" (widened elements {first}..{first + 3} of 16-byte chunk {word // 4}, "
        f"from source row bits {hi}:{lo})"
    )


def copy_context(cp: Copy) -> str:
    """``64x128b.warpx2::01_23``, with the CTA group and taddr when they matter."""
    parts = []
    if cp.cta_group == 2:
        parts.append(".cta_group::2")
    if cp.taddr is not None:
        parts.append(f"taddr lane {cp.taddr[0]}, column {cp.taddr[1]}")
    extra = f" ({'; '.join(parts)})" if parts else ""
    return f"{cp.qualifiers}{extra}"


# Records: what --format json / csv print.


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


def csv_header(cp: Copy) -> tuple[str, ...]:
    """``row,word,cta,lane,col``, plus ``src_bit_hi,src_bit_lo`` when decompressing."""
    extra = ("src_bit_hi", "src_bit_lo") if cp.decompress is not None else ()
    return ("row", "word", "cta", "lane", "col", *extra)


def csv_rows(cp: Copy, landings: tuple[Landing, ...]) -> list[tuple[int, ...]]:
    if cp.decompress is None:
        return [tuple(x) for x in landings]
    return [(*x, *source_bits(cp, x.word)) for x in landings]


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


DECOMPRESS_CSV_HEADER = ("index", "src_bits", "col", "byte", "code", "container", "value")


def decompress_csv_rows(elements: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """One row per element; ``src_bits`` as ``lo-hi``; code, container and value empty without data.

    >>> decompress_csv_rows([{"index": 0, "src_bits": [0, 3], "col": 0, "byte": 0}])
    [(0, '0-3', 0, 0, '', '', '')]
    """
    return [
        (
            e["index"],
            "-".join(str(b) for b in e["src_bits"]),
            e["col"],
            e["byte"],
            e.get("code", ""),
            e.get("container", ""),
            e.get("value", ""),
        )
        for e in elements
    ]
