"""An MMA's operands beyond its descriptor, as explain records them: A's Tensor Memory address when A is
read from there (``[a-tmem]``, PTX 9.7.16.10.9), the scale-factor addresses of a block-scaled MMA
(byte, lane, column: :mod:`tmemviz.families.mma.scale_operands`), and what D becomes (enable-input-d,
scale-input-d). An address's byte (bits 31:30) that differs from the descriptor's SF ID is no warning:
CUTLASS keeps them equal, DeepGEMM and TensorRT-LLM keep the address fixed and step the SF ID along K
(docs/explain.md); both values are in the record.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.explain.scan import Module, Warning
from tmemviz.families.mma.scale_operands import byte_of, formula, scale_input_d_problems, split
from tmemviz.ptx.line import parse_address, parse_immediate


def mma_meta(mma: Any) -> dict[str, Any]:
    """``sp_meta``: the sparsity metadata's base register, lane and column."""
    a = mma.sp_meta
    return {} if a is None else {"sp_meta": {"base": a.base, "lane": a.lane_col[0], "col": a.lane_col[1]}}


def mma_a(mma: Any) -> dict[str, Any]:
    """``a_tmem``: A's base register, lane and column, when A is in Tensor Memory (``[a-tmem]``)."""
    if not mma.a_in_tmem:
        return {}
    a = parse_address(mma.a)
    return {"a_tmem": {"base": a.base, "lane": a.lane_col[0], "col": a.lane_col[1]}}


def mma_scales(mma: Any, bases: Any) -> dict[str, Any]:
    """``scale_a``/``scale_b``: base register, lane and column (bits 29:16 and 15:0 of the immediate,
    relative to the base), and ``byte`` (bits 31:30 of the address) where the base's value and the
    immediate make it one; else ``byte`` None, and ``byte_offset`` the immediate's bits 31:30 when not 0."""
    out: dict[str, Any] = {}
    for i, (name, address) in enumerate((("scale_a", mma.scale_a), ("scale_b", mma.scale_b))):
        if address is None:
            continue
        if address.offset < 0:
            address.lane_col  # noqa: B018  (refuses it, in one sentence)
        offset_byte, lane, col = split(address.offset)
        value = () if address.base is None else (bases[i] if bases else None)
        byte = byte_of(value, address.offset)
        where: dict[str, Any] = {"base": address.base, "lane": lane, "col": col, "byte": byte}
        if where["byte"] is None and offset_byte:
            where["byte_offset"] = offset_byte
        out[name] = where
    return out


def mma_update(mma: Any, module: Module, n: int) -> dict[str, Any]:
    """``enable_input_d``, ``scale_input_d`` and ``computes`` (what D becomes, in words); a scale-input-d
    the ISA does not allow is a warning."""
    enable = mma.enable_input_d
    number = parse_immediate(enable) if enable is not None else None
    enabled = None if number is None else bool(number)
    scale = mma.scale_input_d
    if scale is not None:
        for problem in scale_input_d_problems(mma.kind, scale):
            module.warnings.append(Warning(n, problem))
    return {"enable_input_d": enable, "scale_input_d": scale, "computes": formula(enable, scale, enabled)}
