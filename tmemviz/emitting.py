"""One instruction (tcgen05.ld/st/ld.red, tcgen05.cp, tcgen05.shift) in every dialect: what the command
``tmemviz ptx`` prints and the function :func:`tmemviz.emit` returns.

The function is not named ``ptx``: :mod:`tmemviz.ptx` is the PTX reader package, and a package's
submodule, once imported, is an attribute of its parent, so one name cannot be both.

>>> doc = emit("16x256b", num=4, emit="cccl")
>>> doc.title, [(c.dialect, c.code) for c in doc.cells]
('tcgen05.ld.sync.aligned.16x256b.x4.b32', [('cccl', 'cuda::ptx::tcgen05_ld_16x256b(r, taddr);')])
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional, Union

from tmemviz.arguments import checked
from tmemviz.arguments import cli_text as _text
from tmemviz.code import DIALECTS, Code, as_written
from tmemviz.errors import TmemvizError

if TYPE_CHECKING:
    from tmemviz.catalog import Catalog
    from tmemviz.draw.document import Document
    from tmemviz.draw.table import Table
    from tmemviz.ptx.line import PtxLine


def names_copy(found: Catalog, shape: str) -> bool:
    """Whether SHAPE spells a tcgen05.cp (a cp line, a UTCCP atom, or a name only cp knows)."""
    from tmemviz.families.cp.shapes import KIND as CP
    from tmemviz.families.ldst.shapes import KIND as LDST
    from tmemviz.ptx.text import is_instruction

    word = shape.strip().lower()
    if word.startswith(("tcgen05.cp", "sm100_utccp_")) or is_instruction(word, "tcgen05.cp"):
        return True  # is_instruction: a compiler's line may start with a guard (@%p1 tcgen05.cp...)
    head = word.split(".")[0] if not word.startswith(".") else word.split(".")[1]
    return found.find(LDST, head) is None and found.find(CP, head) is not None


def emitted(
    found: Catalog,
    shape: str,
    *,
    num: Optional[str] = None,
    pack: bool = False,
    split_offset: Optional[str] = None,
    op: Optional[str] = None,
    red: Optional[str] = None,
    red_type: Optional[str] = None,
    red_abs: bool = False,
    red_nan: bool = False,
    multicast: Optional[str] = None,
    cta_group: Optional[str] = None,
    decompress: Optional[str] = None,
) -> tuple[str, list[Code], tuple[str, ...]]:
    """The instruction SHAPE and the options spell: its mnemonic, its code in every dialect (in
    :data:`~tmemviz.code.DIALECTS` order) and warnings; an option of another instruction is refused."""
    from tmemviz.ptx.text import is_instruction

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
        wrong = [k for k, v in given.items() if v is not None]
        if wrong:
            raise TmemvizError(
                f"{wrong[0]} does not apply to tcgen05.shift, which has only .cta_group and .down"
            )
        mnemonic, codes = _shift_codes(found, shape, cta_group)
        return mnemonic, codes, ()
    if names_copy(found, shape):
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
        codes = [f(copy) for f in cp_dialects.EMITTERS.values()]
        line = _line(shape)
        if line is not None:  # [taddr], desc: the descriptor register is the last operand
            desc = line.operands[-1] if line.operands and not line.operands[-1].startswith("[") else "%rd0"
            names = [n for n in (copy.base, desc) if n and n.startswith("%")]
            codes = as_written(codes, copy.statement(copy.base or "%r0", desc), line.guard, names)
        return copy.mnemonic, codes, ()
    given = {"--multicast": multicast, "--cta-group": cta_group, "--decompress": decompress}
    wrong = [k for k, v in given.items() if v is not None]
    if wrong:
        raise TmemvizError(f"{wrong[0]} applies to tcgen05.cp, not to a tcgen05.ld/st instruction")
    from tmemviz.families.ldst import dialects
    from tmemviz.families.ldst.spelling import resolve

    ins = resolve(
        found,
        shape,
        num=num,
        pack=pack,
        op=op,
        split_offset=split_offset,
        red=red,
        red_type=red_type,
        red_abs=red_abs,
        red_nan=red_nan,
    )
    codes = [f(ins) for f in dialects.EMITTERS.values()]
    if ins.written is not None:
        names = [n for n in (ins.base, *(ins.written.vector or ()), ins.written.redval) if n]
        codes = as_written(codes, dialects.written_line(ins), ins.written.guard, names)
    return ins.mnemonic, codes, tuple(ins.warnings)


def _shift_codes(found: Catalog, shape: str, cta_group: Optional[str]) -> tuple[str, list[Code]]:
    """A tcgen05.shift line in every dialect."""
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
    from tmemviz.ptx.text import is_instruction

    if not is_instruction(shape):
        return None
    from tmemviz.ptx.line import parse_line

    return parse_line(shape)


def chosen(codes: Sequence[Code], wanted: str) -> list[Code]:
    """The codes of one dialect (``all``: every one); an unknown dialect is refused."""
    if wanted == "all":
        return list(codes)
    if wanted not in DIALECTS:
        raise TmemvizError(f"--emit must be {', '.join(DIALECTS)} or all, got '{wanted}'")
    return [c for c in codes if c.dialect == wanted]


def _shown(code: Code) -> str | None:
    """What the table shows: the code, or for a CUDA wrapper its signature (--emit cuda prints it whole)."""
    if code.code is None or code.dialect != "cuda":
        return code.code
    signature = next(line for line in code.code.splitlines() if line.startswith("__device__"))
    return signature.removesuffix(" {") + ";  // body: --emit cuda"


def table(mnemonic: str, codes: Sequence[Code]) -> Table:
    """Every dialect's code (a CUDA wrapper by its signature) and notes, one row each."""
    from tmemviz.draw.table import DIM, Column, Styled, Table

    rows = [
        (
            c.dialect,
            Styled("(none)", DIM) if c.code is None else Styled(str(_shown(c))),
            Styled("\n".join(c.notes), DIM),
        )
        for c in codes
    ]
    columns = (Column("dialect", no_wrap=True), Column("code"), Column("notes"))
    return Table(columns, tuple(rows), title=mnemonic, title_justify="left", show_edge=False)


@checked
def emit(
    shape: str,
    emit: str = "all",
    num: Union[int, str, None] = None,
    pack: bool = False,
    split_offset: Optional[int] = None,
    op: Optional[str] = None,
    red: Optional[str] = None,
    red_type: Optional[str] = None,
    red_abs: bool = False,
    red_nan: bool = False,
    multicast: Optional[str] = None,
    cta_group: Union[int, str, None] = None,
    decompress: Optional[str] = None,
    layouts: Optional[Sequence[Union[str, os.PathLike[str]]]] = None,
) -> Document:
    """One instruction as PTX, CUDA inline asm, ``cuda::ptx``, CUTLASS, CuTe DSL or Gluon code (the
    command ``tmemviz ptx``): ``.cells`` are the dialects, each with its ``code`` (None where the
    dialect cannot express it) and ``notes``; ``emit`` picks one dialect."""
    from tmemviz.draw.document import Document
    from tmemviz.user_catalog import catalog

    mnemonic, codes, warnings = emitted(
        catalog(layouts),
        shape,
        num=_text(num),
        pack=pack,
        split_offset=_text(split_offset),
        op=_text(op),
        red=red,
        red_type=red_type,
        red_abs=red_abs,
        red_nan=red_nan,
        multicast=multicast,
        cta_group=_text(cta_group),
        decompress=decompress,
    )
    codes = chosen(codes, emit)
    records = [{"dialect": c.dialect, "code": c.code, "notes": list(c.notes)} for c in codes]
    return Document(
        kind="emit",
        title=mnemonic,
        header={"instruction": mnemonic},
        lists=lambda: [("dialects", records)],
        main="dialects",
        views={"dialects": lambda width: (table(mnemonic, codes),)},
        warnings=warnings,
        subject=codes,
    )
