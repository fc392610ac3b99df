"""Every tcgen05 PTX form tmemviz explains, written as small kernels for ptxas, one kernel per form.

Written from the PTX ISA syntax (9.7.16.7.1, 9.7.16.8.3/4, 9.7.16.9.2, 9.7.16.9.3, 9.7.16.10.9,
9.7.16.11.1), using nothing from tmemviz, so that the spelling tables of ``layouts/`` can be checked
against what ptxas makes of each form. A ld's registers are stored to global memory one word apart (the
first register at byte 0) so ptxas keeps the load and the stores show which SASS register holds which
PTX register; a st's registers are loaded from global memory the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cp.oracle import CTA_GROUPS, DECOMPRESS, placements
from ldst.oracle import SHAPES, combinations

HEADER = """\
.version {version}
.target {target}
.address_size 64
"""
VERSION = "9.0"


@dataclass(frozen=True)
class Form:
    """One PTX form: its kernel name, the facts that identify it, and the kernel body."""

    name: str
    key: dict[str, Any]
    body: tuple[str, ...]
    target: str = "sm_100a"
    registers: int = 0
    """Registers of a ld's (st's) vector, stored (loaded) word by word from global memory."""
    meta: dict[str, Any] = field(default_factory=dict)


_NAMES = re.compile(r"(?<![\w.%:])(r\d+|t|m|x|a|b|q|dp)(?![\w:])")
"""The kernel's register names, written bare in the forms and given PTX's % here (``r3`` -> ``%r3``)."""


def kernel(form: Form) -> str:
    lines = [
        f".visible .entry {form.name}(.param .u32 p, .param .u64 d)",
        "{",
        "  .reg .b32 %r<300>;",
        "  .reg .b32 t, m, x;",
        "  .reg .b64 dp, a, b, bar;",
        "  .reg .pred q;",
        "  .shared .align 8 .b64 sbar;",
        "  .shared .align 8 .b32 sdst;",
        "  ld.param.u32 t, [p];",
        "  ld.param.u64 dp, [d];",
        "  ld.global.u64 a, [dp+8];",
        "  ld.global.u64 b, [dp+16];",
        "  ld.global.u32 m, [dp+24];",
        "  ld.global.u32 x, [dp+28];",
        "  setp.ne.b32 q, t, 0;",
        *(f"  {s}" for s in form.body),
        "  ret;",
        "}",
    ]
    return "\n".join(lines[:2] + [_NAMES.sub(r"%\1", t) for t in lines[2:]])


def module(forms: list[Form], target: str) -> str:
    return HEADER.format(version=VERSION, target=target) + "\n".join(
        kernel(f) for f in forms if f.target == target
    )


def _vector(count: int) -> str:
    return "{" + ", ".join(f"r{i}" for i in range(count)) + "}"


def _stores(count: int) -> list[str]:
    return [f"st.global.b32 [dp+{4 * i}], r{i};" for i in range(count)]


def _loads(count: int) -> list[str]:
    return [f"ld.global.b32 r{i}, [dp+{4 * i}];" for i in range(count)]


SPLIT = 64
"""The immHalfSplitoff the .16x32bx2 forms use: beyond any access's columns (x128 packed = 128)."""
BASE = 0x10008
"""The immediate added to taddr: lane 1, column 8 (lane << 16 | column, PTX 9.7.16.2.1)."""


def ldst_forms() -> list[Form]:
    out = []
    for shape, num, pack in combinations():
        regs = SHAPES[shape].regs * num
        for op in ("ld", "st"):
            # A split offset other than the access width, so the SASS second address shows it.
            split = SHAPES[shape].split
            address = f"[t+{BASE}]" + (f", {SPLIT + SHAPES[shape].width * num * (2 if pack else 1)}"
                                        if split else "")  # fmt: skip
            packing = (".pack::16b" if op == "ld" else ".unpack::16b") if pack else ""
            q = f"tcgen05.{op}.sync.aligned.{shape}.x{num}{packing}.b32"
            if op == "ld":
                body = [f"{q} {_vector(regs)}, {address};", "tcgen05.wait::ld.sync.aligned;", *_stores(regs)]
            else:
                body = [*_loads(regs), f"{q} {address}, {_vector(regs)};", "tcgen05.wait::st.sync.aligned;"]
            key = {"op": op, "shape": shape, "num": num, "pack": pack}
            out.append(
                Form(f"{op}_{shape}_x{num}{'_pack' if pack else ''}", key, tuple(body), registers=regs)
            )
    return out


def ld_red_forms() -> list[Form]:
    """tcgen05.ld.red (sm_103a): both shapes, min/max, .abs and .NaN for f32 (PTX 9.7.16.8.3)."""
    out = []
    for shape in ("32x32b", "16x32bx2"):
        for red in ("min.u32", "max.s32", "min.f32", "max.abs.f32", "min.NaN.f32", "max.abs.NaN.f32"):
            for num in (2, 8):
                address = "[t]" + (", 32" if shape == "16x32bx2" else "")
                body = [
                    f"tcgen05.ld.red.sync.aligned.{shape}.x{num}.{red} {_vector(num)}, r200, {address};",
                    "tcgen05.wait::ld.sync.aligned;",
                    *_stores(num),
                    "st.global.b32 [dp+1024], r200;",
                ]
                name = f"ldred_{shape}_x{num}_{red.replace('.', '_')}"
                key = {"op": "ld.red", "shape": shape, "num": num, "red": red}
                out.append(Form(name, key, tuple(body), target="sm_103a", registers=num))
    return out


def cp_forms() -> list[Form]:
    out = []
    for shape, multicast in placements():
        for group in CTA_GROUPS:
            for fmt in DECOMPRESS:
                q = f"tcgen05.cp.cta_group::{group}.{shape}"
                q += f".{multicast}" if multicast else ""
                q += f".b8x16.{fmt}" if fmt else ""
                name = f"cp{group}_{shape}_{(multicast or 'none').replace('::', '_')}_{fmt or 'plain'}"
                key = {"op": "cp", "shape": shape, "multicast": multicast, "cta_group": group,
                       "decompress": fmt}  # fmt: skip
                out.append(Form(name, key, (f"{q} [t+{BASE & 0xFFFF}], a;",)))  # lane 0: the copies span 128
    return out


KINDS = ("f16", "tf32", "f8f6f4", "i8")
SCALED = (
    ("mxf8f6f4", ".block_scale.block32"),
    ("mxf4", ".block_scale.block32"),
    ("mxf4nvf4", ".block_scale.block32"),
    ("mxf4nvf4", ".block_scale.block16"),
)


TYPES = {"f16": "F16", "tf32": "TF32", "f8f6f4": "E4M3", "i8": "S8", "mxf8f6f4": "E4M3", "mxf4": "E2M1",
         "mxf4nvf4": "E2M1"}  # fmt: skip


def _idesc(kind: str, scale: str, sparse: bool) -> int:
    """A valid instruction descriptor for the form: M=128, N=64, A/B of the kind's type, bit 2 set exactly
    for .sp (as CUTLASS sets it); UE4M3 scale factors for block16, UE8M0 otherwise."""
    from tmemviz.families.mma.idesc import encode

    given: dict[str, Any] = {"a_type": TYPES[kind], "b_type": TYPES[kind], "n": 64, "sparse": sparse}
    if scale:
        given["scale_type"] = "UE4M3" if scale.endswith("block16") else "UE8M0"
    return encode(kind, **given)


def mma_forms() -> list[Form]:
    """Each kind x cta_group x {A in shared memory, A in TMEM} x {dense, .sp} x {plain, .ws}."""
    out = []
    cases = [(k, "") for k in KINDS] + list(SCALED)
    for kind, scale in cases:
        for group in CTA_GROUPS:
            for a_tmem in (False, True):
                for sparse in (False, True):
                    for ws in (False, True):
                        if ws and (group == 2 or scale):
                            continue  # .ws: cta_group::1, no block scaling (PTX 9.7.16.10.9)
                        op = "tcgen05.mma" + (".ws" if ws else "") + (".sp" if sparse else "")
                        q = f"{op}.cta_group::{group}.kind::{kind}{scale}"
                        ops = ["[t]", "[m]" if a_tmem else "a", "b"]
                        if sparse:
                            ops.append("[x]")
                        ops.append("r9")
                        if scale:
                            ops += ["[t+64]", "[t+96]"]
                        ops.append("q")
                        name = (f"mma{group}_{kind}{scale.replace('.', '_')}{'_tmemA' if a_tmem else ''}"
                                f"{'_sp' if sparse else ''}{'_ws' if ws else ''}")  # fmt: skip
                        key = {"op": "mma", "kind": kind, "cta_group": group, "a_in_tmem": a_tmem,
                               "sparse": sparse, "ws": ws, "block_scale": bool(scale),
                               "scale": scale.rsplit(".", 1)[-1] if scale else None}  # fmt: skip
                        idesc = _idesc(kind, scale, sparse)
                        body = (f"mov.b32 r9, {idesc:#010x};", f"{q} {', '.join(ops)};")
                        out.append(Form(name, key, body))
    return out


COLLECTOR_OPS = ("fill", "use", "lastuse", "discard")
BASE_MMA = {"op": "mma", "kind": "f16", "cta_group": 1, "a_in_tmem": False, "sparse": False, "ws": False,
            "block_scale": False, "scale": None}  # fmt: skip


def collector_forms() -> list[Form]:
    """kind::f16, cta_group::1 with each collector usage (PTX 9.7.16.10.9: ::a for tcgen05.mma, ::b0..::b3
    for tcgen05.mma.ws), and the disable-output-lane vector (4 registers for cta_group::1, 8 for ::2)."""
    out = []
    idesc = _idesc("f16", "", False)
    for a_tmem in (False, True):
        for op in COLLECTOR_OPS:
            ops = ["[t]", "[m]" if a_tmem else "a", "b", "r9", "q"]
            name = f"mma1_f16_collector_a_{op}{'_tmemA' if a_tmem else ''}"
            key = {**BASE_MMA, "a_in_tmem": a_tmem, "collector": f"collector::a::{op}"}
            q = f"tcgen05.mma.cta_group::1.kind::f16.collector::a::{op}"
            out.append(Form(name, key, (f"mov.b32 r9, {idesc:#010x};", f"{q} {', '.join(ops)};")))
    for buffer in ("b0", "b1", "b2", "b3"):
        for op in COLLECTOR_OPS:
            name = f"mma1_f16_ws_collector_{buffer}_{op}"
            key = {**BASE_MMA, "ws": True, "collector": f"collector::{buffer}::{op}"}
            q = f"tcgen05.mma.ws.cta_group::1.kind::f16.collector::{buffer}::{op}"
            out.append(Form(name, key, (f"mov.b32 r9, {idesc:#010x};", f"{q} [t], a, b, r9, q;")))
    for group, count in ((1, 4), (2, 8)):
        vector = "{" + ", ".join(f"r{20 + i}" for i in range(count)) + "}"
        key = {**BASE_MMA, "cta_group": group, "disable_output_lane": True}
        body = (f"mov.b32 r9, {idesc:#010x};", *(f"mov.b32 r{20 + i}, {i};" for i in range(count)),
                f"tcgen05.mma.cta_group::{group}.kind::f16 [t], a, b, r9, {vector}, q;")  # fmt: skip
        out.append(Form(f"mma{group}_f16_disable_output_lane", key, body))
    return out


def other_forms() -> list[Form]:
    out = []
    for group in CTA_GROUPS:
        g = f"cta_group::{group}"
        out += [
            Form(f"alloc{group}", {"op": "alloc", "cta_group": group},
                 (f"tcgen05.alloc.{g}.sync.aligned.shared::cta.b32 [sdst], 64;",
                  "ld.shared.b32 r1, [sdst];", "st.global.b32 [dp], r1;")),
            Form(f"dealloc{group}", {"op": "dealloc", "cta_group": group},
                 (f"tcgen05.dealloc.{g}.sync.aligned.b32 t, 64;",)),
            Form(f"relinquish{group}", {"op": "relinquish_alloc_permit", "cta_group": group},
                 (f"tcgen05.relinquish_alloc_permit.{g}.sync.aligned;",)),
            Form(f"shift{group}", {"op": "shift", "cta_group": group},
                 (f"tcgen05.shift.{g}.down [t+{BASE & 0xFFFF}];",)),
            Form(f"commit{group}", {"op": "commit", "cta_group": group, "multicast": False},
                 (f"tcgen05.commit.{g}.mbarrier::arrive::one.shared::cluster.b64 [sbar];",)),
            Form(f"commit{group}_multicast", {"op": "commit", "cta_group": group, "multicast": True},
                 (f"tcgen05.commit.{g}.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 "
                  "[sbar], 3;",)),
        ]  # fmt: skip
    out += [
        Form("wait_ld", {"op": "wait::ld"}, ("tcgen05.wait::ld.sync.aligned;",)),
        Form("wait_st", {"op": "wait::st"}, ("tcgen05.wait::st.sync.aligned;",)),
        Form("fence_before", {"op": "fence::before_thread_sync"}, ("tcgen05.fence::before_thread_sync;",)),
        Form("fence_after", {"op": "fence::after_thread_sync"}, ("tcgen05.fence::after_thread_sync;",)),
    ]
    return out


def all_forms() -> list[Form]:
    from cubin_forms import cubin_forms  # they build on the forms here

    return [*ldst_forms(), *ld_red_forms(), *cp_forms(), *mma_forms(), *collector_forms(), *other_forms(),
            *cubin_forms()]  # fmt: skip
