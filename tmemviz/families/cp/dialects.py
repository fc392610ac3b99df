"""tcgen05.cp names out: the copy as PTX, CUDA, CCCL, CUTLASS, CuTe DSL and (not) Gluon.

Naming rules (CUDA 13.0's ptxas, nvcc and CCCL headers; CUTLASS ``SM100_UTCCP_*``
atoms; CuTe DSL ``Cp*Op``): CCCL spells ``cuda::ptx::tcgen05_cp_<shape>[_<multicast>]
[_b8x16_<format>](cuda::ptx::cta_group_<G>, taddr, sdesc)`` with ``::`` of the
multicast written ``_``; the CUTLASS atom and CuTe DSL op come from the shape file
(``cutlass``, ``cute_dsl``); neither has a decompressing copy.

>>> from tmemviz.families.cp.layout import make_copy
>>> from tmemviz.families.cp.shapes import builtin
>>> cp = make_copy(builtin("64x128b"), "warpx2::02_13", cta_group=2)
>>> cccl(cp).code
'cuda::ptx::tcgen05_cp_64x128b_warpx2_02_13(cuda::ptx::cta_group_2, taddr, sdesc);'
>>> cutlass(cp).code, cute_dsl(cp).code
('SM100_UTCCP_2x64dp128bitlw0213_2cta', 'tcgen05.Cp2x64x128b0213Op(tcgen05.CtaGroup.TWO)')
"""

from __future__ import annotations

from tmemviz.code import Code, asm_string
from tmemviz.families.cp.layout import Copy

TARGET = "assembles with ptxas -arch=sm_100a; all tcgen05 instructions of a kernel use one .cta_group"


def stem(cp: Copy) -> str:
    """``64x128b_warpx2_02_13_b8x16_b6x16_p32``: the qualifiers as one identifier."""
    return cp.qualifiers.replace("::", "_").replace(".", "_")


def ptx(cp: Copy) -> Code:
    """The PTX line: taddr in ``%r0``, the shared-memory descriptor in the 64-bit ``%rd0``."""
    return Code(
        "ptx", cp.statement("%r0", "%rd0"), (TARGET, "%rd0 is a .b64 register holding the descriptor")
    )


def cuda(cp: Copy) -> Code:
    """A ``__device__ __forceinline__`` wrapper with the inline asm; one thread issues it."""
    indent = "      "
    name = f"tcgen05_cp_{stem(cp)}_cta{cp.cta_group}"
    body = (
        f"// {cp.mnemonic}: issued by one thread\n"
        f"__device__ __forceinline__ void {name}(uint32_t taddr, uint64_t sdesc) {{\n"
        f"  asm volatile(\n{indent}{asm_string(cp.statement('%0', '%1'), indent)}\n"
        f'{indent}:\n{indent}: "r"(taddr), "l"(sdesc));\n}}'
    )
    return Code("cuda", body, ("needs #include <cstdint>", "compiles for sm_100a"))


def cccl(cp: Copy) -> Code:
    """The ``cuda::ptx`` call (``#include <cuda/ptx>``)."""
    call = f"cuda::ptx::tcgen05_cp_{stem(cp)}(cuda::ptx::cta_group_{cp.cta_group}, taddr, sdesc);"
    return Code("cccl", call, ("the CCCL of CUDA 13.0 emits tcgen05.cp only for sm_100a and sm_101a",))


def utccp_name(atom: str, cta_group: int) -> str:
    """``SM100_UTCCP_128dp256bit_2cta``: the shape file's atom with its CTA-group suffix."""
    return f"{atom}_{cta_group}cta"


def cutlass(cp: Copy) -> Code:
    """The CUTLASS ``SM100_UTCCP_*`` atom."""
    if cp.placement.cutlass is None:
        return Code("cutlass", None, (f"the shape file of {cp.shape.name} names no CUTLASS atom",))
    if cp.decompress is not None:
        return Code("cutlass", None, ("CUTLASS's SM100_UTCCP_* atoms do not decompress",))
    return Code("cutlass", utccp_name(cp.placement.cutlass, cp.cta_group))


def cute_dsl(cp: Copy) -> Code:
    """The CuTe DSL op of ``cutlass.cute.nvgpu.tcgen05`` (imported as ``tcgen05``)."""
    op = cp.placement.cute_dsl
    if op is None:
        return Code("cute-dsl", None, (f"the shape file of {cp.shape.name} names no CuTe DSL op",))
    if cp.decompress is not None:
        return Code(
            "cute-dsl",
            None,
            (
                f"{op} takes no decompression; CuTe DSL's experimental primitives have "
                "tcgen05_cp(..., src_format=...)",
            ),
        )
    group = "ONE" if cp.cta_group == 1 else "TWO"
    return Code("cute-dsl", f"tcgen05.{op}(tcgen05.CtaGroup.{group})")


def gluon(cp: Copy) -> Code:
    return Code("gluon", None, ("Gluon's tcgen05_copy(src, dst) picks the copy shape itself",))


EMITTERS = {"ptx": ptx, "cuda": cuda, "cccl": cccl, "cutlass": cutlass, "cute-dsl": cute_dsl, "gluon": gluon}
"""Dialect name -> emitter, in the order of :data:`tmemviz.code.DIALECTS`."""
