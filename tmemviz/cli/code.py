"""The ``ptx`` command: one instruction (tcgen05.ld/st/ld.red, tcgen05.cp, tcgen05.shift) in every dialect."""

from __future__ import annotations

import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated

from tmemviz.catalog import Catalog
from tmemviz.cli import complete
from tmemviz.cli.cp import CtaGroupOpt, DecompressOpt, MulticastOpt
from tmemviz.cli.ldst import AbsOpt, NanOpt, NumOpt, OpOpt, PackOpt, RedOpt, RedTypeOpt, SplitOpt
from tmemviz.cli.options import AnswerFormat, LayoutsOpt, catalog, deliver, names_copy
from tmemviz.cli.params import Argument, Option
from tmemviz.code import DIALECTS, Code, as_written
from tmemviz.draw import records
from tmemviz.draw.table import DIM, Column, Styled, Table
from tmemviz.errors import TmemvizError
from tmemviz.ptx.text import is_instruction

if TYPE_CHECKING:
    from tmemviz.ptx.line import PtxLine

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
    found = catalog(layouts)
    if is_instruction(shape, "tcgen05.shift"):  # the shift family loads only for a shift line
        given = {
            "--num": num,
            "--pack": pack or None,
            "--split-offset": split_offset,
            "--op": op,
            "--red": red,
            "--red-type": red_type,
            "--red-abs": red_abs or None,
            "--red-nan": red_nan or None,
            "--multicast": multicast,
            "--decompress": decompress,
        }
        mnemonic, codes = _shift_codes(
            found, shape, [k for k, v in given.items() if v is not None], cta_group
        )
    elif names_copy(found, shape):
        given = {
            "--num": num,
            "--pack": pack or None,
            "--split-offset": split_offset,
            "--op": op,
            "--red": red,
        }
        wrong = [k for k, v in given.items() if v is not None]
        if wrong:
            raise TmemvizError(f"{wrong[0]} applies to tcgen05.ld/st, not to a tcgen05.cp instruction")
        from tmemviz.families.cp import dialects as cp_dialects
        from tmemviz.families.cp.spelling import resolve_copy

        copy = resolve_copy(found, shape, multicast=multicast, cta_group=cta_group, decompress=decompress)
        mnemonic, codes = copy.mnemonic, [f(copy) for f in cp_dialects.EMITTERS.values()]
        line = _line(shape)
        if line is not None:  # [taddr], desc: the descriptor register is the last operand
            desc = line.operands[-1] if line.operands and not line.operands[-1].startswith("[") else "%rd0"
            names = [n for n in (copy.base, desc) if n and n.startswith("%")]
            codes = as_written(codes, copy.statement(copy.base or "%r0", desc), line.guard, names)
    else:
        given = {"--multicast": multicast, "--cta-group": cta_group, "--decompress": decompress}
        wrong = [k for k, v in given.items() if v is not None]
        if wrong:
            raise TmemvizError(f"{wrong[0]} applies to tcgen05.cp, not to a tcgen05.ld/st instruction")
        from tmemviz.cli.ldst import instruction
        from tmemviz.families.ldst import dialects

        ins = instruction(
            layouts, shape, num, pack, split_offset, None, None, op, red, red_type, red_abs, red_nan
        )
        mnemonic, codes = ins.mnemonic, [f(ins) for f in dialects.EMITTERS.values()]
        if ins.written is not None:
            names = [n for n in (ins.base, *(ins.written.vector or ()), ins.written.redval) if n]
            codes = as_written(codes, dialects.written_line(ins), ins.written.guard, names)
    wanted = emit.value
    if wanted != "all":
        codes = [c for c in codes if c.dialect == wanted]
    if format is AnswerFormat.json:
        items = [{"dialect": c.dialect, "code": c.code, "notes": list(c.notes)} for c in codes]
        sys.stdout.write(records.pretty({"instruction": mnemonic, "dialects": items}))
    elif wanted == "all":
        deliver((_table(mnemonic, codes),), None)
    else:
        (code,) = codes
        if code.code is None:
            raise TmemvizError(f"{wanted} cannot express {mnemonic}: {'; '.join(code.notes)}")
        for note in code.notes:
            sys.stderr.write(f"tmemviz: note: {note}\n")
        sys.stdout.write(code.code + "\n")


def _shift_codes(
    found: Catalog, shape: str, wrong: list[str], cta_group: str | None
) -> tuple[str, list[Code]]:
    """A tcgen05.shift line in every dialect; options of the other instructions are refused."""
    if wrong:
        raise TmemvizError(f"{wrong[0]} does not apply to tcgen05.shift, which has only .cta_group and .down")
    from tmemviz.families.shift import dialects as shift_dialects
    from tmemviz.families.shift.spelling import parse_cta_group, resolve_shift

    shifted = resolve_shift(found, shape)
    if cta_group is not None and parse_cta_group(cta_group) != shifted.cta_group:
        raise TmemvizError(
            f"the instruction says .cta_group::{shifted.cta_group} but --cta-group says {cta_group}"
        )
    codes = [f(shifted) for f in shift_dialects.EMITTERS.values()]
    line = _line(shape)
    register = shifted.address.register
    if line is not None and (line.guard or register):
        written = shifted.statement(register) if register else None
        codes = as_written(codes, written, line.guard, [register] if register else [])
    return shifted.mnemonic, codes


def _line(shape: str) -> PtxLine | None:
    """SHAPE as a PTX line (guard, operands), or None for a name."""
    if not is_instruction(shape):
        return None
    from tmemviz.ptx.line import parse_line

    return parse_line(shape)


def _shown(code: Code) -> str | None:
    """What the table shows: the code, or for a CUDA wrapper its signature (--emit cuda prints it whole)."""
    if code.code is None or code.dialect != "cuda":
        return code.code
    signature = next(line for line in code.code.splitlines() if line.startswith("__device__"))
    return signature.removesuffix(" {") + ";  // body: --emit cuda"


def _table(mnemonic: str, codes: list[Code]) -> Table:
    codes = [c._replace(code=_shown(c)) for c in codes]
    rows = [
        (
            c.dialect,
            Styled(c.code) if c.code is not None else Styled("(none)", DIM),
            Styled("\n".join(c.notes), DIM),
        )
        for c in codes
    ]
    columns = (Column("dialect", no_wrap=True), Column("code"), Column("notes"))
    return Table(columns, tuple(rows), title=mnemonic, title_justify="left", show_edge=False)


COMMANDS = {"ptx": ptx}
