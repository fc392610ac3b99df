"""tcgen05.ld/st/ld.red names out: the instruction as PTX, CUDA, CCCL, CUTLASS, CuTe DSL and Gluon.

Naming rules, checked against the sources named in each note (CUDA 13.0's ptxas,
nvcc and CCCL headers; CUTLASS ``include/cute/arch/copy_sm100.hpp``; CuTe DSL
``cutlass.cute.nvgpu.tcgen05``; Triton Gluon 3.9):

* CCCL picks ``.num`` by the array length: ``cuda::ptx::tcgen05_ld_16x256b(r, taddr)``
  with ``uint32_t r[16]`` is ``.x4``; ``.16x32bx2`` adds ``cuda::ptx::n32_t<S>{}``.
* CUTLASS names atoms ``SM100_TMEM_LOAD_<alias><num>x[_16b]`` after the shape's
  CUTLASS alias (``16dp256b``); its ``16dp32b`` atoms fix immHalfSplitoff at
  ``num`` (``2*num`` packed), the halves side by side.
* CuTe DSL ops are ``Ld<shape>Op(Repetition.xN, Pack...)`` / ``St<shape>Op(...)``;
  ``Ld16x32bx2Op`` has no split-offset field (the compiler uses the CUTLASS one).
* Gluon asks for a register layout by ``instr_variant`` and picks ``.num`` itself;
  it infers ``.16x32bx2`` and cannot be asked for it.

>>> from tmemviz.families.ldst.layout import make_instruction
>>> from tmemviz.families.ldst.shapes import builtin
>>> ins = make_instruction(builtin("16x256b"), 4)
>>> cccl(ins).code, cutlass(ins).code
('cuda::ptx::tcgen05_ld_16x256b(r, taddr);', 'SM100_TMEM_LOAD_16dp256b4x')
"""

from __future__ import annotations

import re

from tmemviz.code import Code, asm_operands, asm_string
from tmemviz.families.ldst.layout import Instruction
from tmemviz.tmem import address as tmem_address

PTX_TARGET = "assembles with ptxas -arch=sm_100a (PTX ISA .version 8.6 or later)"
RED_TARGET = "tcgen05.ld.red assembles for sm_103a (.version 8.8 or later), not for sm_100a"
WAIT_LD = "read the registers only after tcgen05.wait::ld.sync.aligned (PTX 9.7.16.8.5)"
_CUTLASS_ALIAS = re.compile(r"^\d+dp\d+b$")


def default_split(ins: Instruction) -> bool:
    """Whether the split offset is the one CUTLASS and CuTe DSL fix: ``num`` (``2*num`` packed)."""
    return ins.split_offset is None or ins.split_offset == ins.access_width


def registers(ins: Instruction) -> tuple[list[str], str]:
    """PTX register names for the vector and redval: ``%r1..%rN`` (``%f`` for .f32 reductions)."""
    kind = "f" if ins.red is not None and ins.red.type == "f32" else "r"
    count = ins.registers_per_thread
    return [f"%{kind}{i}" for i in range(1, count + 1)], f"%{kind}{count + 1}"


def ptx(ins: Instruction) -> Code:
    """The one PTX line: taddr in ``%r0``, the vector in ``%r1..``; drops into a kernel
    that declares ``.reg .b32 %r<1000>;`` and ``.reg .f32 %f<1000>;``."""
    vector, redval = registers(ins)
    return Code("ptx", ins.statement("%r0", vector, redval), (RED_TARGET if ins.red else PTX_TARGET,))


def written_line(ins: Instruction) -> str | None:
    """A PTX line given as input, as it wrote its registers (guard apart); None for a bare shape."""
    written = ins.written
    if written is None:
        return None
    vector, redval = registers(ins)
    return ins.statement(ins.base or "%r0", written.vector or vector, written.redval or redval)


def function_name(ins: Instruction) -> str:
    """``tcgen05_ld_16x256b_pack_16b_x4``; ld.red: ``tcgen05_ld_red_32x32b_x8_max_f32``."""
    shape = ins.shape.name
    if ins.red is not None:
        name = f"tcgen05_ld_red_{shape}_x{ins.num}_{ins.red.op}_{ins.red.type}"
        name += ("_abs" if ins.red.abs else "") + ("_nan" if ins.red.nan else "")
    else:
        pack = ("_pack_16b" if ins.op == "ld" else "_unpack_16b") if ins.pack else ""
        name = f"tcgen05_{ins.op}_{shape}{pack}_x{ins.num}"
    if not default_split(ins):
        name += f"_split{ins.split_offset}"
    return name


def cuda(ins: Instruction) -> Code:
    """A ``__device__ __forceinline__`` wrapper with the inline asm, signatures as CCCL's."""
    n = ins.registers_per_thread
    indent = "      "
    if ins.red is not None:
        ctype = {"u32": "uint32_t", "s32": "int32_t", "f32": "float"}[ins.red.type]
        letter = "f" if ins.red.type == "f32" else "r"
        text = ins.statement(f"%{n + 1}", [f"%{i}" for i in range(n)], f"%{n}")
        outs = [f'"={letter}"(out[{i}])' for i in range(n)] + [f'"={letter}"(redval)']
        signature = f"{ctype} (&out)[{n}], {ctype} &redval, uint32_t taddr"
        operands = f': {asm_operands(outs, indent + "  ")}\n{indent}: "r"(taddr)'
    elif ins.op == "ld":
        text = ins.statement(f"%{n}", [f"%{i}" for i in range(n)])
        outs = [f'"=r"(out[{i}])' for i in range(n)]
        signature = f"uint32_t (&out)[{n}], uint32_t taddr"
        operands = f': {asm_operands(outs, indent + "  ")}\n{indent}: "r"(taddr)'
    else:
        text = ins.statement("%0", [f"%{i}" for i in range(1, n + 1)])
        ins_ = ['"r"(taddr)'] + [f'"r"(values[{i}])' for i in range(n)]
        signature = f"uint32_t taddr, const uint32_t (&values)[{n}]"
        operands = f":\n{indent}: {asm_operands(ins_, indent + '  ')}"
    body = (
        f"// {ins.mnemonic}: {n} register{'s' if n != 1 else ''} per thread\n"
        f"__device__ __forceinline__ void {function_name(ins)}({signature}) {{\n"
        f"  asm volatile(\n{indent}{asm_string(text, indent)}\n{indent}{operands});\n}}"
    )
    notes = ["needs #include <cstdint>", RED_TARGET if ins.red else "compiles for sm_100a"]
    if ins.op == "ld":
        notes.append(WAIT_LD)
    return Code("cuda", body, tuple(notes))


def cccl(ins: Instruction) -> Code:
    """The ``cuda::ptx`` call (``#include <cuda/ptx>``), ``r`` the register array."""
    if ins.red is not None:
        return Code(
            "cccl",
            None,
            (
                "the CCCL of CUDA 13.0 has no tcgen05.ld.red; newer CCCL adds "
                f"cuda::ptx::tcgen05_ld_red_{ins.shape.name}[_abs](op, r, taddr) returning redval, "
                "without .NaN",
            ),
        )
    pack = ("_pack_16b" if ins.op == "ld" else "_unpack_16b") if ins.pack else ""
    name = f"cuda::ptx::tcgen05_{ins.op}_{ins.shape.name}{pack}"
    imm = f"cuda::ptx::n32_t<{ins.split_offset}>{{}}" if ins.split_offset is not None else None
    offset = tmem_address(*ins.offset)
    taddr = f"taddr + {offset}" if offset else "taddr"  # the line's address immediate (PTX 9.7.16.2)
    if ins.op == "ld":
        args = ["r", taddr] + ([imm] if imm else [])
    else:
        args = [taddr] + ([imm] if imm else []) + ["r"]
    notes = (
        f"r is uint32_t r[{ins.registers_per_thread}]: the array length picks .x{ins.num}",
        "the CCCL of CUDA 13.0 emits tcgen05.ld/st only for sm_100a and sm_101a",
    )
    return Code("cccl", f"{name}({', '.join(args)});", notes)


def cutlass_alias(ins: Instruction) -> str | None:
    return next((a for a in ins.shape.aliases if _CUTLASS_ALIAS.match(a)), None)


def cutlass_name(alias: str, op: str, num: int, pack: bool) -> str:
    """``SM100_TMEM_LOAD_16dp256b4x_16b``: CUTLASS's atom for a shape alias, op, ``.num`` and packing.

    >>> cutlass_name("16dp32b", "st", 8, False)
    'SM100_TMEM_STORE_16dp32b8x'
    """
    kind = "LOAD" if op == "ld" else "STORE"
    return f"SM100_TMEM_{kind}_{alias}{num}x{'_16b' if pack else ''}"


def cutlass(ins: Instruction) -> Code:
    """The CUTLASS copy atom (``include/cute/arch/copy_sm100.hpp``)."""
    alias = cutlass_alias(ins)
    if alias is None:
        return Code("cutlass", None, (f"{ins.shape.name} has no CUTLASS alias in its shape file",))
    if ins.red is not None:
        stat = ins.shape.name == "32x32b" and ins.red == ins.red._replace(
            op="max", type="f32", abs=False, nan=False
        )
        if stat and ins.num in (32, 128):
            return Code(
                "cutlass",
                f"SM100_TMEM_LOAD_STAT_{alias}{ins.num}x",
                ("needs CUTE_ARCH_TCGEN05_TMEM_STAT_ENABLED (SM103)",),
            )
        return Code(
            "cutlass",
            None,
            ("CUTLASS's only ld.red atoms are SM100_TMEM_LOAD_STAT_32dp32b32x and ..128x (.max.f32)",),
        )
    if not default_split(ins):
        half = "2*num" if ins.pack else "num"
        return Code(
            "cutlass",
            None,
            (f"CUTLASS's {alias} atoms fix immHalfSplitoff at {half} = {ins.access_width}",),
        )
    kind = "LOAD" if ins.op == "ld" else "STORE"
    notes = (
        (f"immHalfSplitoff {ins.split_offset}, fixed by the atom",) if ins.split_offset is not None else ()
    )
    if ins.offset != (0, 0):
        lane, col = ins.offset
        notes += (f"the atom takes a TMEM address: add the line's immediate {tmem_address(lane, col)} "
                  f"(lane +{lane}, column +{col}) to it",)  # fmt: skip
    return Code("cutlass", f"SM100_TMEM_{kind}_{alias}{ins.num}x{'_16b' if ins.pack else ''}", notes)


def cute_dsl(ins: Instruction) -> Code:
    """The CuTe DSL op of ``cutlass.cute.nvgpu.tcgen05`` (imported as ``tcgen05``)."""
    rep = f"tcgen05.Repetition.x{ins.num}"
    stem = ins.shape.name
    if ins.red is not None:
        op = ins.red.op.upper() + ("ABS" if ins.red.abs else "")
        args = [rep, "tcgen05.Pack.NONE", f"redOp=tcgen05.TmemLoadRedOp.{op}"]
        if ins.red.nan:
            args.append("nan=True")
        if ins.split_offset is not None:
            args.append(f"half_split_off={ins.split_offset}")
        type_note = f"the copy's element type picks .{ins.red.type} (Float32, Uint32 or Int32)"
        return Code("cute-dsl", f"tcgen05.LdRed{stem}Op({', '.join(args)})", (type_note,))
    if not default_split(ins):
        return Code(
            "cute-dsl",
            None,
            (f"Ld{stem}Op/St{stem}Op take no split offset: they use {ins.access_width} (num, 2*num packed)",),
        )
    if ins.op == "ld":
        pack = "tcgen05.Pack.PACK_16b_IN_32b" if ins.pack else "tcgen05.Pack.NONE"
        return Code("cute-dsl", f"tcgen05.Ld{stem}Op({rep}, {pack})")
    unpack = "tcgen05.Unpack.UNPACK_32b_IN_16b" if ins.pack else "tcgen05.Unpack.NONE"
    return Code("cute-dsl", f"tcgen05.St{stem}Op({rep}, {unpack})")


def gluon(ins: Instruction) -> Code:
    """Triton Gluon: the ``instr_variant`` of a TMEM register layout (Triton 3.9)."""
    if ins.shape.split:
        return Code(
            "gluon",
            None,
            (f"Gluon infers {ins.shape.name} itself and cannot be asked for it (instr_variant)",),
        )
    layout = f'layout = tmem.get_reg_layout(instr_variant="{ins.shape.name}")'
    notes = ["Gluon picks .num and the instruction count from the tensor shape itself"]
    if ins.red is not None:
        args = ["layout"] + (["abs=True"] if ins.red.abs else [])
        if ins.red.nan:
            args.append("propagate_nan=tl.PropagateNan.ALL")
        call = f"values, redval = tmem.load_{ins.red.op}({', '.join(args)})"
        notes.append(f"the tensor's dtype picks .{ins.red.type}")
    elif ins.op == "ld":
        call = "values = tmem.load(layout)"
    else:
        call = "tmem.store(values)  # values in `layout`"
    if ins.pack:
        notes.append("16-bit element types give the packed form")
    return Code("gluon", f"{layout}\n{call}", tuple(notes))


EMITTERS = {"ptx": ptx, "cuda": cuda, "cccl": cccl, "cutlass": cutlass, "cute-dsl": cute_dsl, "gluon": gluon}
"""Dialect name -> emitter, in the order of :data:`tmemviz.code.DIALECTS`."""
