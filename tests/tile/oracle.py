"""An independent encoding of the tile rules: who holds D[m][n], from the facts file and the issue text.

Nothing here imports tmemviz. The single-instruction mappings are the x1 formulas
of the facts file ("tcgen05.ld / tcgen05.st register layouts"), repeated for
``.num`` and doubled for ``.pack::16b`` as it says; the tile rules are the ones
the tile command promises (M = 128, cta_group::1: row m in lane m; Gluon's split
of 8 warps; immHalfSplitoff = half the warp's columns; instructions numbered
step along N first, then lane group).
"""

from __future__ import annotations

from collections.abc import Callable

# shape -> (lanes, W columns per repetition, R registers per repetition, largest .num, x1 formula)
# The formula gives, for thread t, [(reg, lane, col, second_half)] of one repetition.
X1 = Callable[[int], list[tuple[int, int, int, bool]]]

SHAPES: dict[str, tuple[int, int, int, int, X1]] = {
    "32x32b": (32, 1, 1, 128, lambda t: [(0, t, 0, False)]),
    "16x64b": (16, 2, 1, 128, lambda t: [(0, (t >> 2) + 8 * (t & 1), (t >> 1) & 1, False)]),
    "16x128b": (16, 4, 2, 64, lambda t: [(0, t >> 2, t & 3, False), (1, (t >> 2) + 8, t & 3, False)]),
    "16x256b": (
        16,
        8,
        4,
        32,
        lambda t: [
            (0, t >> 2, 2 * (t & 3), False),
            (1, t >> 2, 2 * (t & 3) + 1, False),
            (2, (t >> 2) + 8, 2 * (t & 3), False),
            (3, (t >> 2) + 8, 2 * (t & 3) + 1, False),
        ],
    ),
    "16x32bx2": (16, 1, 1, 128, lambda t: [(0, t % 16, 0, t >= 16)]),
}
BITS = {"f32": 32, "f16": 16, "bf16": 16}

Holder = tuple[int, int, int, int, "int | None", int, int]
"""(warp, thread, instruction, reg, half, lane, col)."""


def plan(shape: str, n: int, warps: int, dtype: str, storage: str | None, num: int | None = None) -> dict:
    """The instruction plan: num, per warp the list of (lane, col) taddrs, the split offset."""
    lanes, w, _, max_num, _ = SHAPES[shape]
    split = shape == "16x32bx2"
    total = n // 2 if storage == "packed" else n  # TMEM columns of D
    if lanes == 32:
        offsets = {warp: [0] for warp in range(warps)}
        parts = warps // 4
    else:
        offsets = {warp: ([0, 16] if warps == 4 else [16 * (warp // 4)]) for warp in range(warps)}
        parts = 1
    share = total // parts

    def access(k: int) -> int:  # columns of one access
        return k * w * (2 if storage == "unpacked" else 1)

    def fits(k: int) -> bool:
        return total % parts == 0 and share % (access(k) * (2 if split else 1)) == 0

    legal = [k for k in (1, 2, 4, 8, 16, 32, 64, 128) if k <= max_num]
    if num is None:
        num = max(k for k in legal if fits(k))
    assert fits(num)
    a = access(num)
    steps = share // (a * (2 if split else 1))
    taddrs = {}
    for warp in range(warps):
        band = 32 * (warp % 4)
        part = warp // 4 if parts > 1 else 0
        taddrs[warp] = [(band + off, part * share + s * a) for s in range(steps) for off in offsets[warp]]
    return {"num": num, "taddrs": taddrs, "split": share // 2 if split else None, "access": a}


def holders(shape: str, n: int, warps: int, dtype: str, storage: str | None, num: int | None = None) -> dict:
    """{(m, n): (warp, thread, instruction, reg, half, lane, col)} for the whole tile."""
    _, w, r, _, x1 = SHAPES[shape]
    p = plan(shape, n, warps, dtype, storage, num)
    out: dict[tuple[int, int], Holder] = {}
    for warp, taddrs in p["taddrs"].items():
        for index, (lane0, col0) in enumerate(taddrs):
            for t in range(32):
                for k in range(p["num"]):
                    for reg, lane, col, second in x1(t):
                        reg += k * r
                        col += k * w
                        base = col0 + (p["split"] if second else 0)
                        here = lane0 + lane
                        if storage == "unpacked":  # .pack::16b: column c -> 2c (bits 15:0), 2c+1 (31:16)
                            for half in (0, 1):
                                c = base + 2 * col + half
                                _put(out, (here, c), (warp, t, index, reg, half, here, c))
                        elif storage == "packed":  # plain load: one column = two elements
                            c = base + col
                            for half in (0, 1):
                                _put(out, (here, 2 * c + half), (warp, t, index, reg, half, here, c))
                        else:
                            c = base + col
                            _put(out, (here, c), (warp, t, index, reg, None, here, c))
    return out


def _put(out: dict, key: tuple[int, int], value: Holder) -> None:
    assert key not in out, f"D{list(key)} loaded twice"
    out[key] = value
