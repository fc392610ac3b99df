"""An independent oracle for the shared-memory layout tests, written from the facts, not from tmemviz.

It reads a layout in the PTX/CuTe spelling (``Swizzle<B,M,S> o (shape):(stride)``), evaluates it by
brute force, and builds dense CUTLASS-order tiles by counting atoms. Nothing here imports tmemviz.
"""

from __future__ import annotations

import re
from itertools import product

Nested = int | tuple["Nested", ...]

DTYPE_BITS = {"e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32}
SWIZZLE_BITS = {"none": 0, "32B": 1, "64B": 2, "128B": 3}


def _parse_tuple(text: str, pos: int) -> tuple[Nested, int]:
    if text[pos] != "(":
        match = re.match(r"\d+", text[pos:])
        assert match, f"expected a number at {text[pos:]!r}"
        return int(match.group()), pos + match.end()
    items: list[Nested] = []
    pos += 1
    while True:
        item, pos = _parse_tuple(text, pos)
        items.append(item)
        if text[pos] == ")":
            return tuple(items), pos + 1
        assert text[pos] == ",", f"expected ',' at {text[pos:]!r}"
        pos += 1


def parse(notation: str) -> tuple[tuple[int, int, int], Nested, Nested]:
    """(B, M, S) (0, 4, 3 when there is no swizzle), shape, stride."""
    swizzle = (0, 4, 3)
    match = re.fullmatch(r"Swizzle<(\d+),(\d+),(\d+)> o (.*)", notation)
    if match:
        swizzle = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
        notation = match.group(4)
    shape, pos = _parse_tuple(notation, 0)
    assert notation[pos] == ":"
    stride, end = _parse_tuple(notation, pos + 1)
    assert end == len(notation)
    return swizzle, shape, stride


def _flatten(value: Nested) -> list[int]:
    return [value] if isinstance(value, int) else [x for v in value for x in _flatten(v)]


def mode_offset(index: int, shape: Nested, stride: Nested) -> int:
    """CuTe: split a 1-D index colexicographically (first sub-mode fastest) and dot with strides."""
    total = 0
    for extent, step in zip(_flatten(shape), _flatten(stride), strict=True):
        total += (index % extent) * step
        index //= extent
    assert index == 0, "index out of range"
    return total


def swizzle(address: int, b: int, m: int, s: int) -> int:
    """Bit by bit: bit (m+i) of the result is bit (m+i) XOR bit (m+s+i) of the address."""
    out = address
    for i in range(b):
        if (address >> (m + s + i)) & 1:
            out ^= 1 << (m + i)
    return out


def evaluate(notation: str, dtype: str) -> dict[tuple[int, int], int]:
    """Every (row, col) -> swizzled byte offset of a rank-2 layout."""
    (b, m, s), shape, stride = parse(notation)
    assert isinstance(shape, tuple) and isinstance(stride, tuple) and len(shape) == 2
    bits = DTYPE_BITS[dtype]
    rows = 1
    for e in _flatten(shape[0]):
        rows *= e
    cols = 1
    for e in _flatten(shape[1]):
        cols *= e
    # The two modes are independent: each row's and each column's offset is split out once, not again
    # for every element of its row or column.
    row_offsets = [mode_offset(r, shape[0], stride[0]) for r in range(rows)]
    col_offsets = [mode_offset(c, shape[1], stride[1]) for c in range(cols)]
    out = {}
    for (r, row), (c, col) in product(enumerate(row_offsets), enumerate(col_offsets)):
        out[(r, c)] = swizzle((row + col) * bits // 8, b, m, s)
    return out


def dense(major: str, swizzle_name: str, dtype: str, rows: int, cols: int) -> dict[tuple[int, int], int]:
    """A dense tile built by counting atoms (smem-facts "Units and the swizzle", "Dense CUTLASS-order
    tiles"): an atom is 8 lines of W bytes, 8*W bytes in all; K-major atoms are numbered along M/N
    first, MN-major atoms along K first."""
    b = SWIZZLE_BITS[swizzle_name]
    width = 16 << b
    size = DTYPE_BITS[dtype] // 8
    per_line = width // size  # elements in one W-byte line of an atom
    out = {}
    for r, c in product(range(rows), range(cols)):
        if major == "K":  # lines are M/N rows, K runs along the line
            atom_mn, line = divmod(r, 8)
            atom_k, within = divmod(c, per_line)
            atom = atom_mn + atom_k * (rows // 8)
        else:  # lines are K rows, M/N runs along the line
            atom_mn, within = divmod(r, per_line)
            atom_k, line = divmod(c, 8)
            atom = atom_k + atom_mn * (cols // 8)
        plain = atom * 8 * width + line * width + within * size
        out[(r, c)] = swizzle(plain, b, 4, 3)
    return out


def first_collision(cells: dict[tuple[int, int], int]) -> tuple[tuple[int, int], tuple[int, int], int] | None:
    """The first two elements, in row-major order, that share a byte offset."""
    seen: dict[int, tuple[int, int]] = {}
    for key in sorted(cells):
        byte = cells[key]
        if byte in seen:
            return seen[byte], key, byte
        seen[byte] = key
    return None
