"""The operand forms real cubins hold that the first set of forms (forms.py) did not: written as small
kernels for ptxas the same way, so that what nvdisasm prints for each is observed, not assumed.

* folded address immediates: ``add.s32 %r1, %t, -128`` before an ld/st/cp/shift (``tmem[UR4+-0x80]``), a
  sum that carries into the lane (``+65408``: ``tmem[UR4+0xff80]``), a whole lane down, a split pair
  whose halves straddle the base; ``key["moved"]`` is the (lanes, columns) the address adds to the base;
* a constant address (``mov.b32 %r5, 65544``): ``tmem[0x10008]``, no base register;
* vectors of zeros (``STTM ... RZ``) and, beside them, vectors that are not all zero (their registers
  are loaded from global memory one word apart, so the listing shows which holds which element);
* ``scale-input-d`` (kind::f16 and tf32 only), the ``.ws`` zero-column mask, ``.ashift`` (A in Tensor
  Memory only; ptxas refuses it with a collector);
* every mma, collector and cp form of forms.py again for sm_103a (kind::i8 expected refused there).

PTX ISA 9.7.16.10.9 gives the mma syntax; nothing from tmemviz is used to write the forms.
"""

from __future__ import annotations

from dataclasses import replace

from forms import BASE_MMA, Form, _idesc, _loads, _stores, collector_forms, cp_forms, mma_forms

SM103 = "sm_103a"


def _st(name: str, key: dict, body: list[str], regs: int) -> Form:
    return Form(name, key, tuple(body), registers=regs)


def address_forms() -> list[Form]:
    """ld/st/cp/shift with immediates ptxas folds into the operand, and constant addresses."""
    out = []
    ld = {"op": "ld", "shape": "32x32b", "num": 2, "pack": False}
    st = {**ld, "op": "st"}
    for name, add, moved in (("neg", -128, (0, -128)), ("carry", 65408, (1, -128)),
                             ("lane_down", -1048576, (-16, 0))):  # fmt: skip
        out.append(_st(f"ld_{name}", {**ld, "moved": list(moved)},
                       [f"add.s32 r30, t, {add};", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0, r1}, [r30];",
                        "tcgen05.wait::ld.sync.aligned;", *_stores(2)], 2))  # fmt: skip
        out.append(_st(f"st_{name}", {**st, "moved": list(moved)},
                       [*_loads(2), f"add.s32 r30, t, {add};",
                        "tcgen05.st.sync.aligned.32x32b.x2.b32 [r30], {r0, r1};"], 2))  # fmt: skip
    split = {"op": "st", "shape": "16x32bx2", "num": 2, "pack": False}
    for name, add in (("neg", -16), ("straddle", -4)):
        out.append(_st(f"st_split_{name}", {**split, "moved": [0, add]},
                       [*_loads(2), f"add.s32 r30, t, {add};",
                        "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [r30], 8, {r0, r1};"], 2))  # fmt: skip
    out.append(Form("cp_neg", {"op": "cp", "shape": "128x256b", "multicast": None, "cta_group": 1,
                               "decompress": None, "moved": [0, -64]},
                    ("add.s32 r30, t, -64;", "tcgen05.cp.cta_group::1.128x256b [r30], a;")))  # fmt: skip
    out.append(Form("shift_neg", {"op": "shift", "cta_group": 1, "moved": [0, -64]},
                    ("add.s32 r30, t, -64;", "tcgen05.shift.cta_group::1.down [r30];")))  # fmt: skip
    out.append(_st("ld_constant_address", {**ld, "absolute": [1, 8]},
                   ["mov.b32 r30, 65544;", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0, r1}, [r30];",
                    "tcgen05.wait::ld.sync.aligned;", *_stores(2)], 2))  # fmt: skip
    out.append(_st("st_constant_address", {"op": "st", "shape": "16x256b", "num": 1, "pack": False,
                                           "absolute": [0, 8]},
                   [*_loads(4), "mov.b32 r30, 8;",
                    "tcgen05.st.sync.aligned.16x256b.x1.b32 [r30], {r0, r1, r2, r3};"], 4))  # fmt: skip
    out.append(Form("cp_constant_address", {"op": "cp", "shape": "128x256b", "multicast": None,
                                            "cta_group": 1, "decompress": None, "absolute": [0, 64]},
                    ("mov.b32 r30, 64;", "tcgen05.cp.cta_group::1.128x256b [r30], a;")))  # fmt: skip
    return out


def zero_forms() -> list[Form]:
    """Stores of all-zero vectors (ptxas names RZ) and of vectors with one element that is not zero."""
    out = []
    for shape, num, regs, pack, split in (("32x32b", 1, 1, False, ""), ("32x32b", 8, 8, False, ""),
                                          ("32x32b", 4, 4, True, ""), ("16x256b", 1, 4, False, ""),
                                          ("16x32bx2", 2, 2, False, ", 8")):  # fmt: skip
        q = f"tcgen05.st.sync.aligned.{shape}.x{num}{'.unpack::16b' if pack else ''}.b32"
        key = {"op": "st", "shape": shape, "num": num, "pack": pack}
        zeros = "{" + ", ".join(["r0"] * regs) + "}"
        tag = f"{shape}_x{num}{'_pack' if pack else ''}"
        out.append(
            Form(
                f"st_zero_{tag}",
                {**key, "zero": True},
                ("mov.b32 r0, 0;", f"{q} [t]{split}, {zeros};", "tcgen05.wait::st.sync.aligned;"),
            )
        )
        # One element loaded (the last), the others zero: no RZ; the listing shows each register.
        if regs > 1:
            body = [*(f"mov.b32 r{i}, 0;" for i in range(regs - 1)),
                    f"ld.global.b32 r{regs - 1}, [dp+{4 * (regs - 1)}];",
                    f"{q} [t]{split}, {{{', '.join(f'r{i}' for i in range(regs))}}};",
                    "tcgen05.wait::st.sync.aligned;"]  # fmt: skip
            out.append(Form(f"st_almost_zero_{tag}", {**key, "zero": False}, tuple(body)))
    out.append(Form("st_zero_constant_address", {"op": "st", "shape": "32x32b", "num": 1, "pack": False,
                                                 "zero": True, "absolute": [0, 0]},
                    ("mov.b32 r30, 0;", "mov.b32 r0, 0;",
                     "tcgen05.st.sync.aligned.32x32b.x1.b32 [r30], {r0};")))  # fmt: skip
    return out


def mma_operand_forms(target: str = "sm_100a") -> list[Form]:
    """scale-input-d (0 prints nothing), the .ws zero-column mask, .ashift (A in Tensor Memory)."""
    out = []
    suffix = "" if target == "sm_100a" else f"_{target}"
    for kind in ("f16", "tf32"):
        idesc = _idesc(kind, "", False)
        for group in (1, 2):
            for s in (0, 1, 15):
                key = {**BASE_MMA, "kind": kind, "cta_group": group, "scale_input_d": s}
                q = f"tcgen05.mma.cta_group::{group}.kind::{kind}"
                out.append(
                    Form(
                        f"mma{group}_{kind}_scale_d_{s}{suffix}",
                        key,
                        (f"mov.b32 r9, {idesc:#010x};", f"{q} [t], a, b, r9, q, {s};"),
                        target,
                    )
                )
        key = {**BASE_MMA, "kind": kind, "a_in_tmem": True, "sparse": True, "scale_input_d": 3}
        body = (f"mov.b32 r9, {_idesc(kind, '', True):#010x};",
                f"tcgen05.mma.sp.cta_group::1.kind::{kind} [t], [m], b, [x], r9, q, 3;")  # fmt: skip
        out.append(Form(f"mma1_{kind}_tmemA_sp_scale_d_3{suffix}", key, body, target))
        lanes = "{" + ", ".join(f"r{20 + i}" for i in range(4)) + "}"
        key = {**BASE_MMA, "kind": kind, "disable_output_lane": True, "scale_input_d": 5}
        body = (f"mov.b32 r9, {idesc:#010x};", *(f"mov.b32 r{20 + i}, {i};" for i in range(4)),
                f"tcgen05.mma.cta_group::1.kind::{kind} [t], a, b, r9, {lanes}, q, 5;")  # fmt: skip
        out.append(Form(f"mma1_{kind}_disable_output_lane_scale_d_5{suffix}", key, body, target))
    kinds = ("f16", "tf32", "f8f6f4") + (("i8",) if target == "sm_100a" else ())
    for kind in kinds:
        for sparse in (False, True):
            idesc = _idesc(kind, "", sparse)
            sp = ".sp" if sparse else ""
            meta = ", [x]" if sparse else ""
            key = {**BASE_MMA, "kind": kind, "sparse": sparse, "ws": True, "zero_column_mask": True}
            out.append(Form(f"mma1_{kind}{'_sp' if sparse else ''}_ws_zero_column_mask{suffix}", key,
                            (f"mov.b32 r9, {idesc:#010x};",
                             f"tcgen05.mma.ws{sp}.cta_group::1.kind::{kind} [t], a, b{meta}, r9, q, b;"),
                            target))  # fmt: skip
            for group in (1, 2):
                key = {**BASE_MMA, "kind": kind, "cta_group": group, "a_in_tmem": True, "sparse": sparse,
                       "ashift": True}  # fmt: skip
                q = f"tcgen05.mma{sp}.cta_group::{group}.kind::{kind}.ashift"
                out.append(
                    Form(
                        f"mma{group}_{kind}{'_sp' if sparse else ''}_ashift{suffix}",
                        key,
                        (f"mov.b32 r9, {idesc:#010x};", f"{q} [t], [m], b{meta}, r9, q;"),
                        target,
                    )
                )
    return out


def sm103_forms() -> list[Form]:
    """forms.py's mma, collector and cp forms, and the operand forms above, for sm_103a."""
    out = []
    for f in (*mma_forms(), *collector_forms(), *cp_forms()):
        key = dict(f.key)
        if key.get("kind") == "i8":
            key["expect_refused"] = "kind::i8"  # ptxas 13.5: "Feature '.kind::i8' not supported"
        out.append(replace(f, name=f"{f.name}_{SM103}", key=key, target=SM103))
    return [*out, *mma_operand_forms(SM103)]


def cubin_forms() -> list[Form]:
    return [*address_forms(), *zero_forms(), *mma_operand_forms(), *sm103_forms()]
