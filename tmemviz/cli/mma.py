"""``tmemviz idesc``: the tcgen05.mma instruction descriptor, decoded or encoded."""

from __future__ import annotations

from typing import Annotated, Optional

from tmemviz.cli.options import FormatOpt, OutputOpt, show
from tmemviz.cli.params import Argument, Option

_Text = Optional[str]


def idesc(
    value: Annotated[
        _Text,
        Argument(
            metavar="VALUE", help="A descriptor to decode: 0x08200010 or 136314896.", show_default=False
        ),
    ] = None,
    kind: Annotated[
        _Text, Option("--kind", help="f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4 (required).")
    ] = None,
    d_type: Annotated[
        _Text, Option("--d-type", help="Encode: F16, F32 or S32 [default: F32; S32 for i8].")
    ] = None,
    a_type: Annotated[
        _Text, Option("--a-type", help="Encode: A's type, e.g. F16, BF16, TF32, E4M3, S8.")
    ] = None,
    b_type: Annotated[_Text, Option("--b-type", help="Encode: B's type.")] = None,
    a_major: Annotated[_Text, Option("--a-major", help="Encode: K or MN [default: K].")] = None,
    b_major: Annotated[_Text, Option("--b-major", help="Encode: K or MN [default: K].")] = None,
    negate_a: Annotated[_Text, Option("--negate-a", help="Encode: yes or no.")] = None,
    negate_b: Annotated[_Text, Option("--negate-b", help="Encode: yes or no.")] = None,
    m: Annotated[_Text, Option("--m", help="Encode: M (32, 64, 128, 256) [default: 128].")] = None,
    n: Annotated[_Text, Option("--n", help="Encode: N, a multiple of 8 in 8..256.")] = None,
    sparse: Annotated[_Text, Option("--sparse", help="Encode: yes or no.")] = None,
    sparse_id: Annotated[_Text, Option("--sparse-id", help="Encode: sparsity selector 0..3.")] = None,
    saturate: Annotated[_Text, Option("--saturate", help="Encode: yes or no (kind::i8).")] = None,
    max_shift: Annotated[_Text, Option("--max-shift", help="Encode: .ws max shift 0, 8, 16 or 32.")] = None,
    sfa_id: Annotated[_Text, Option("--sfa-id", help="Encode: A scale-factor ID 0..3.")] = None,
    sfb_id: Annotated[_Text, Option("--sfb-id", help="Encode: B scale-factor ID 0..3.")] = None,
    scale_type: Annotated[_Text, Option("--scale-type", help="Encode: UE4M3 or UE8M0.")] = None,
    k: Annotated[_Text, Option("--k", help="Encode: K of kind::mxf4/mxf4nvf4, 64 or 96.")] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
) -> None:
    """Decode a tcgen05.mma instruction descriptor into its fields, or encode one from them."""
    from tmemviz import api

    fields = dict(locals())
    for name in ("format", "output", "api"):
        fields.pop(name)
    show(api.idesc(**fields), format, output)


COMMANDS = {"idesc": idesc}
"""Command name -> function, in the order ``--help`` lists them."""
