"""tcgen05.shift names out: PTX, CUDA inline asm, CCCL and CuTe DSL; where CUTLASS and Gluon have none.

Facts behind each spelling (CUDA 13.0's ptxas, nvcc and CCCL headers; CUTLASS's C++
``include/cute/arch``; nvidia-cutlass-dsl 4.8.1; Triton 3.9):

* CCCL: ``cuda::ptx::tcgen05_shift_down(cuda::ptx::cta_group_<G>, taddr)`` (``<cuda/ptx>``),
  which emits the syntax line's order; CUDA 13.0's CCCL emits it for sm_100a and sm_101a only.
* CUTLASS C++ (CuTe) has no tcgen05.shift atom; CuTe DSL has one in its experimental
  primitives: ``tcgen05_shift(taddr, group=CTAGroup.CTA_1 | CTA_2)`` of
  ``cutlass.experimental.primitives``, whose PTX is the syntax line's order too.
* Triton's Gluon has no tcgen05.shift op.

>>> from tmemviz.families.shift.layout import Address, make_shift
>>> from tmemviz.families.shift.shapes import builtin
>>> s = make_shift(builtin(), 2, Address("%r2", 0x200008))
>>> ptx(s).code
'tcgen05.shift.cta_group::2.down [%r0+2097160];'
>>> cccl(s).code
'cuda::ptx::tcgen05_shift_down(cuda::ptx::cta_group_2, taddr + 0x200008u);'
"""

from __future__ import annotations

from tmemviz.code import Code
from tmemviz.families.shift.layout import Shift

TARGET = "assembles with ptxas -arch=sm_100a (PTX 9.7.16.9.3 also lists sm_103a and sm_110a)"
ONE_GROUP = "all tcgen05 instructions of a kernel use one .cta_group"


def ptx(shift: Shift) -> Code:
    """The PTX line in the syntax line's order, taddr in ``%r0`` (plus the line's immediate, if any)."""
    other = shift.mnemonic.replace(
        f".cta_group::{shift.cta_group}.down", f".down.cta_group::{shift.cta_group}"
    )
    notes = (TARGET, ONE_GROUP, f"the PTX example's order {other} assembles too", *_absolute(shift))
    return Code("ptx", shift.statement("%r0"), notes)


def cuda(shift: Shift) -> Code:
    """A ``__device__ __forceinline__`` wrapper with the inline asm; one thread issues it."""
    name = f"tcgen05_shift_down_cta{shift.cta_group}"
    body = (
        f"// {shift.mnemonic}: issued by one thread; asynchronous (tcgen05.commit tracks it)\n"
        f"__device__ __forceinline__ void {name}(uint32_t taddr) {{\n"
        f'  asm volatile("{shift.statement("%0")}" :: "r"(taddr) : "memory");\n}}'
    )
    return Code("cuda", body, ("needs #include <cstdint>", "compiles for sm_100a", *_absolute(shift)))


def _absolute(shift: Shift) -> tuple[str, ...]:
    """For an ``[imm]`` operand: the register form is emitted, because ptxas 13.0 crashes on the other."""
    if not shift.address.absolute:
        return ()
    imm = shift.address.immediate
    return (f"taddr = 0x{imm:x} (the line's absolute [{imm}]); ptxas 13.0 crashes on tcgen05.shift [imm]",)


def cccl(shift: Shift) -> Code:
    """The ``cuda::ptx`` call (``#include <cuda/ptx>``); an address immediate is added to taddr."""
    imm = shift.address.immediate
    if shift.address.absolute:
        operand = f"0x{imm:x}u"
    elif imm:
        operand = f"taddr + 0x{imm:x}u" if imm > 0 else f"taddr - 0x{-imm:x}u"
    else:
        operand = "taddr"
    call = f"cuda::ptx::tcgen05_shift_down(cuda::ptx::cta_group_{shift.cta_group}, {operand});"
    return Code("cccl", call, ("the CCCL of CUDA 13.0 emits tcgen05.shift only for sm_100a and sm_101a",))


def cutlass(shift: Shift) -> Code:
    return Code(
        "cutlass",
        None,
        ("CUTLASS's C++ CuTe has no tcgen05.shift atom; use the inline asm of --emit cuda",),
    )


def cute_dsl(shift: Shift) -> Code:
    """CuTe DSL's experimental primitive (``from cutlass.experimental import primitives as prims``)."""
    call = f"prims.tcgen05_shift(taddr, group=prims.CTAGroup.CTA_{shift.cta_group})"
    notes = (
        "from cutlass.experimental import primitives as prims (nvidia-cutlass-dsl 4.8.1; experimental)",
        "taddr is an LLVM pointer into tensor memory (address space 6)",
    )
    if shift.address.absolute:
        notes += _absolute(shift)
    elif shift.address.immediate:
        notes += (f"add the immediate {shift.address.immediate} to the address first",)
    return Code("cute-dsl", call, notes)


def gluon(shift: Shift) -> Code:
    return Code("gluon", None, ("Triton 3.9's Gluon has no tcgen05.shift operation",))


EMITTERS = {"ptx": ptx, "cuda": cuda, "cccl": cccl, "cutlass": cutlass, "cute-dsl": cute_dsl, "gluon": gluon}
"""Dialect name -> emitter, in the order of :data:`tmemviz.code.DIALECTS`."""
