"""The ``ptx`` command: one instruction (tcgen05.ld/st/ld.red, tcgen05.cp, tcgen05.shift) in every dialect
(:mod:`tmemviz.emitting`, which :func:`tmemviz.emit` returns as a result)."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

from tmemviz.cli import complete
from tmemviz.cli.cp import CtaGroupOpt, DecompressOpt, MulticastOpt
from tmemviz.cli.ldst import AbsOpt, NanOpt, NumOpt, OpOpt, PackOpt, RedOpt, RedTypeOpt, SplitOpt
from tmemviz.cli.options import AnswerFormat, LayoutsOpt, catalog, deliver
from tmemviz.cli.params import Argument, Option
from tmemviz.code import DIALECTS
from tmemviz.draw import records
from tmemviz.emitting import chosen, emitted, table
from tmemviz.errors import TmemvizError

Emit = Enum("Emit", {name.replace("-", "_"): name for name in (*DIALECTS, "all")}, type=str)  # type: ignore[misc]


def ptx(
    shape: Annotated[
        str,
        Argument(
            help="Any SHAPE 'layout' or 'cp' takes: 16x256b, SM100_TMEM_LOAD_16dp256b4x, a PTX line, "
            "64x128b.warpx2::02_13, SM100_UTCCP_4x32dp128bit_2cta ...",
            metavar="SHAPE",
            show_default=False,
            autocompletion=complete.any_names,
        ),
    ],
    emit: Annotated[
        Emit, Option("--emit", "-e", help="ptx, cuda, cccl, cutlass, cute-dsl, gluon or all.")
    ] = Emit.all,  # type: ignore[attr-defined]
    num: NumOpt = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    op: OpOpt = None,
    red: RedOpt = None,
    red_type: RedTypeOpt = None,
    red_abs: AbsOpt = False,
    red_nan: NanOpt = False,
    multicast: MulticastOpt = None,
    cta_group: CtaGroupOpt = None,
    decompress: DecompressOpt = None,
    format: Annotated[AnswerFormat, Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    layouts: LayoutsOpt = None,
) -> None:
    """Write one instruction as PTX, CUDA inline asm, cuda::ptx, CUTLASS, CuTe DSL or Gluon code."""
    mnemonic, codes, warnings = emitted(
        catalog(layouts),
        shape,
        num=num,
        pack=pack,
        split_offset=None if split_offset is None else str(split_offset),
        op=op.value if op else None,
        red=red,
        red_type=red_type,
        red_abs=red_abs,
        red_nan=red_nan,
        multicast=multicast,
        cta_group=cta_group,
        decompress=decompress,
    )
    for warning in warnings:
        sys.stderr.write(f"tmemviz: warning: {warning}\n")
    wanted = emit.value
    codes = chosen(codes, wanted)
    if format is AnswerFormat.json:
        items = [{"dialect": c.dialect, "code": c.code, "notes": list(c.notes)} for c in codes]
        sys.stdout.write(records.pretty({"instruction": mnemonic, "dialects": items}))
    elif wanted == "all":
        deliver((table(mnemonic, codes),), None)
    else:
        (code,) = codes
        if code.code is None:
            raise TmemvizError(f"{wanted} cannot express {mnemonic}: {'; '.join(code.notes)}")
        for note in code.notes:
            sys.stderr.write(f"tmemviz: note: {note}\n")
        sys.stdout.write(code.code + "\n")


COMMANDS = {"ptx": ptx}
