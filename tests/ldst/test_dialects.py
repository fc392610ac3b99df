"""tcgen05.ld/st/ld.red in every dialect: the emitted code assembles, compiles and names what CUTLASS does.

* PTX lines assemble with ptxas (sm_100a; ld.red sm_103a) inside a kernel that
  declares ``.reg .b32 %r<1000>`` and ``.reg .f32 %f<1000>``.
* CUDA wrappers and CCCL ``cuda::ptx`` calls compile with nvcc when called from a kernel.
* CUTLASS names are checked against CUTLASS's own list of atoms and the PTX each
  issues (tests/cutlass_atoms.txt); CuTe DSL and Gluon spellings against the
  naming rules of those libraries, written here independently.

A sample runs when the ``slow`` sweeps do not (``-m 'not slow'``); the sweeps cover every shape,
.num, pack mode, split offset and reduction, and the sample's own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_run import bad, ok
from compile_run import assemble, compile_cuda, compile_units

from tmemviz.catalog import Catalog
from tmemviz.families.ldst import dialects
from tmemviz.families.ldst.layout import Instruction, make_instruction
from tmemviz.families.ldst.reduction import RED_OPS, RED_TYPES, Reduction
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.ldst.spelling import resolve

ATOMS = Path(__file__).resolve().parents[1] / "cutlass_atoms.txt"
CTYPE = {"u32": "uint32_t", "s32": "int32_t", "f32": "float"}


def every_instruction(catalog: Catalog) -> list[Instruction]:
    """Every shape x .num x pack x op, plus non-default split offsets."""
    out = []
    for shape in catalog.shapes(LDST):
        for num in shape.nums:
            for pack in (False, True):
                for op in ("ld", "st"):
                    out.append(make_instruction(shape, num, pack=pack, op=op))
                    if shape.split:
                        width = num * shape.columns_per_rep * (2 if pack else 1)
                        for s in {3, width + 5, 512 - width}:
                            if s + width <= 512 and (op == "ld" or s >= width):
                                out.append(make_instruction(shape, num, pack=pack, op=op, split_offset=s))
    return out


def every_reduction(catalog: Catalog) -> list[Instruction]:
    """Every legal tcgen05.ld.red: shape x .num >= x2 x op x type x .abs x .NaN (f32 only)."""
    out = []
    for shape in catalog.shapes(LDST):
        if not shape.ld_red:
            continue
        for num in (n for n in shape.nums if n >= 2):
            for op in RED_OPS:
                for kind in RED_TYPES:
                    flags = [(False, False)] + (
                        [(True, False), (False, True), (True, True)] if kind == "f32" else []
                    )
                    for abs_, nan in flags:
                        split = {"split_offset": 2 * num + 1} if shape.split else {}
                        out.append(make_instruction(shape, num, red=Reduction(op, kind, abs_, nan), **split))
    return out


def sample(catalog: Catalog) -> list[Instruction]:
    get = lambda name: catalog.get(LDST, name)  # noqa: E731
    return [
        make_instruction(get("16x256b"), 4),
        make_instruction(get("32x32b"), 128, pack=True),
        make_instruction(get("16x32bx2"), 8, split_offset=16),
        make_instruction(get("16x128b"), 8, pack=True, op="st"),
        make_instruction(get("16x32bx2"), 2, pack=True, op="st"),
        make_instruction(get("16x64b"), 1, op="st"),
    ]


def red_sample(catalog: Catalog) -> list[Instruction]:
    get = lambda name: catalog.get(LDST, name)  # noqa: E731
    return [
        make_instruction(get("32x32b"), 2, red=Reduction("max", "f32", True, True)),
        make_instruction(get("16x32bx2"), 8, split_offset=16, red=Reduction("min", "u32")),
        make_instruction(get("32x32b"), 128, red=Reduction("min", "s32")),
    ]


# --- PTX --------------------------------------------------------------------------------------


def check_ptx_lines(instructions: list[Instruction]) -> list[str]:
    lines = []
    for ins in instructions:
        line = dialects.ptx(ins).code
        assert line is not None and line.endswith(";") and "\n" not in line
        n = ins.registers_per_thread
        kind = "f" if ins.red is not None and ins.red.type == "f32" else "r"
        assert line.count(f"%{kind}") - (1 if kind == "r" else 0) == n + (1 if ins.red else 0), line
        assert "[%r0]" in line
        lines.append(line)
    return lines


@pytest.mark.sample
def test_sample_ptx_assembles(ptxas: str, tmp_path: Path, catalog: Catalog) -> None:
    assert assemble(ptxas, tmp_path, check_ptx_lines(sample(catalog))) == ""
    assert assemble(ptxas, tmp_path, check_ptx_lines(red_sample(catalog)), "sm_103a") == ""


def test_ld_red_does_not_assemble_for_sm_100a(ptxas: str, tmp_path: Path, catalog: Catalog) -> None:
    """Why the notes say sm_103a: ptxas refuses tcgen05.ld.red for sm_100a."""
    assert "not supported" in assemble(ptxas, tmp_path, check_ptx_lines(red_sample(catalog)[:1]))


@pytest.mark.slow
def test_every_ptx_line_assembles(ptxas: str, tmp_path: Path, catalog: Catalog) -> None:
    # The samples too: they take split offsets the sweep does not (it runs instead of them).
    everything, reductions = every_instruction(catalog) + sample(catalog), every_reduction(catalog)
    assert assemble(ptxas, tmp_path, check_ptx_lines(everything)) == ""
    assert assemble(ptxas, tmp_path, check_ptx_lines(reductions + red_sample(catalog)), "sm_103a") == ""


# --- CUDA inline asm and CCCL -------------------------------------------------------------------


def cuda_source(instructions: list[Instruction]) -> str:
    """Every wrapper once, and a kernel calling each (an unused asm function is never compiled)."""
    functions: dict[str, str] = {}
    calls = []
    for ins in instructions:
        code = dialects.cuda(ins).code
        assert code is not None
        name = dialects.function_name(ins)
        assert functions.get(name, code) == code, f"two instructions share the name {name}"
        functions[name] = code
        n = ins.registers_per_thread
        if ins.red is not None:
            t = CTYPE[ins.red.type]
            calls.append(
                f"  {{ {t} v[{n}]; {t} m; {name}(v, m, taddr); acc += (uint32_t)m + (uint32_t)v[0]; }}"
            )
        elif ins.op == "ld":
            calls.append(f"  {{ uint32_t v[{n}]; {name}(v, taddr); acc += v[0]; }}")
        else:
            calls.append(f"  {{ uint32_t v[{n}] = {{}}; v[0] = acc; {name}(taddr, v); }}")
    kernel = "__global__ void k(uint32_t taddr, uint32_t *o) {\n  uint32_t acc = 0;\n" + "\n".join(calls)
    return "#include <cstdint>\n" + "\n".join(functions.values()) + "\n" + kernel + "\n  *o = acc;\n}\n"


def cccl_source(instructions: list[Instruction]) -> str:
    calls = []
    for ins in instructions:
        code = dialects.cccl(ins).code
        assert code is not None and code.startswith("cuda::ptx::tcgen05_")
        calls.append(
            f"  {{ uint32_t r[{ins.registers_per_thread}] = {{}}; r[0] = acc; {code} acc += r[0]; }}"
        )
    body = "\n".join(calls)
    return (
        "#include <cstdint>\n#include <cuda/ptx>\n"
        f"__global__ void k(uint32_t taddr, uint32_t *o) {{\n  uint32_t acc = 0;\n{body}\n  *o = acc;\n}}\n"
    )


@pytest.mark.sample
def test_sample_cuda_and_cccl_compile(nvcc: str, tmp_path: Path, catalog: Catalog) -> None:
    assert compile_cuda(nvcc, tmp_path, cuda_source(sample(catalog))) == ""
    assert compile_cuda(nvcc, tmp_path, cccl_source(sample(catalog))) == ""
    assert compile_cuda(nvcc, tmp_path, cuda_source(red_sample(catalog)), "sm_103a") == ""


@pytest.mark.slow
def test_every_cuda_wrapper_and_cccl_call_compiles(nvcc: str, tmp_path: Path, catalog: Catalog) -> None:
    everything = every_instruction(catalog) + sample(catalog)  # the samples too (they run instead of them)
    assert compile_units(nvcc, tmp_path, [cuda_source(everything), cccl_source(everything)]) == ""
    reductions = every_reduction(catalog) + red_sample(catalog)
    assert compile_cuda(nvcc, tmp_path, cuda_source(reductions), "sm_103a") == ""


def test_cuda_names_follow_the_rule(catalog: Catalog) -> None:
    get = lambda name: catalog.get(LDST, name)  # noqa: E731
    assert dialects.function_name(make_instruction(get("16x256b"), 4)) == "tcgen05_ld_16x256b_x4"
    assert dialects.function_name(make_instruction(get("16x128b"), 2, pack=True, op="st")) == (
        "tcgen05_st_16x128b_unpack_16b_x2"
    )
    red = make_instruction(get("32x32b"), 8, red=Reduction("max", "f32"))
    assert dialects.function_name(red) == "tcgen05_ld_red_32x32b_x8_max_f32"
    code = dialects.cuda(red).code or ""
    assert "float (&out)[8], float &redval, uint32_t taddr" in code and '"=f"(redval)' in code
    ld = dialects.cuda(make_instruction(get("16x32bx2"), 8, split_offset=16)).code or ""
    assert "uint32_t (&out)[8], uint32_t taddr" in ld and "[%8], 16;" in ld
    st = dialects.cuda(make_instruction(get("16x256b"), 1, op="st")).code or ""
    assert "uint32_t taddr, const uint32_t (&values)[4]" in st


def test_cccl_spellings(catalog: Catalog) -> None:
    get = lambda name: catalog.get(LDST, name)  # noqa: E731
    assert (
        dialects.cccl(make_instruction(get("16x256b"), 4)).code == "cuda::ptx::tcgen05_ld_16x256b(r, taddr);"
    )
    assert dialects.cccl(make_instruction(get("16x32bx2"), 8, split_offset=16, op="st", pack=True)).code == (
        "cuda::ptx::tcgen05_st_16x32bx2_unpack_16b(taddr, cuda::ptx::n32_t<16>{}, r);"
    )
    none = dialects.cccl(red_sample(catalog)[0])
    assert none.code is None and "no tcgen05.ld.red" in none.notes[0]


# --- CUTLASS, CuTe DSL, Gluon ---------------------------------------------------------------


def cutlass_atoms() -> list[tuple[str, str, int | None]]:
    out = []
    for line in ATOMS.read_text().splitlines():
        if line.startswith("#") or "TMEM" not in line:
            continue
        name, mnemonic, *imm = line.split()
        out.append((name, mnemonic, int(imm[0]) if imm else None))
    return out


def test_every_cutlass_tmem_atom_round_trips(catalog: Catalog) -> None:
    """Each CUTLASS atom, read by tmemviz, is the instruction CUTLASS issues, and is named back."""
    atoms = cutlass_atoms()
    assert len(atoms) == 150
    for name, mnemonic, imm in atoms:
        if "_STAT_" in name:
            num = int(re.search(r"(\d+)x$", name).group(1))  # type: ignore[union-attr]
            ins = make_instruction(catalog.get(LDST, "32x32b"), num, red=Reduction("max", "f32"))
        else:
            ins = resolve(catalog, name)
        assert ins.mnemonic == mnemonic, name
        assert ins.split_offset == imm, name
        assert dialects.cutlass(ins).code == name


@pytest.mark.slow
def test_cutlass_names_only_what_cutlass_has(catalog: Catalog) -> None:
    names = {name for name, _, _ in cutlass_atoms()}
    emitted = set()
    for ins in every_instruction(catalog) + every_reduction(catalog):
        code = dialects.cutlass(ins)
        if code.code is not None:
            assert code.code in names, code.code
            emitted.add(code.code)
        else:
            assert code.notes, ins.mnemonic
    assert emitted == names


CUTE = re.compile(
    r"^tcgen05\.(Ld|St)(32x32b|16x64b|16x128b|16x256b|16x32bx2)Op\(tcgen05\.Repetition\.x(\d+), "
    r"tcgen05\.(Pack\.NONE|Pack\.PACK_16b_IN_32b|Unpack\.NONE|Unpack\.UNPACK_32b_IN_16b)\)$"
)


def test_cute_dsl_ops_follow_the_library_names(catalog: Catalog) -> None:
    assert dialects.cute_dsl(make_instruction(catalog.get(LDST, "16x256b"), 4)).code == (
        "tcgen05.Ld16x256bOp(tcgen05.Repetition.x4, tcgen05.Pack.NONE)"
    )
    for ins in every_instruction(catalog):
        code = dialects.cute_dsl(ins)
        if not dialects.default_split(ins):
            assert code.code is None and code.notes
            continue
        m = CUTE.match(code.code or "")
        assert m, code.code
        kind, shape, num, pack = m.groups()
        assert (kind, shape, int(num)) == ("Ld" if ins.op == "ld" else "St", ins.shape.name, ins.num)
        expected = {
            ("ld", False): "Pack.NONE",
            ("ld", True): "Pack.PACK_16b_IN_32b",
            ("st", False): "Unpack.NONE",
            ("st", True): "Unpack.UNPACK_32b_IN_16b",
        }
        assert pack == expected[(ins.op, ins.pack)]


def test_cute_dsl_reductions(catalog: Catalog) -> None:
    first, second, _ = red_sample(catalog)
    assert dialects.cute_dsl(first).code == (
        "tcgen05.LdRed32x32bOp(tcgen05.Repetition.x2, tcgen05.Pack.NONE, "
        "redOp=tcgen05.TmemLoadRedOp.MAXABS, nan=True)"
    )
    assert dialects.cute_dsl(second).code == (
        "tcgen05.LdRed16x32bx2Op(tcgen05.Repetition.x8, tcgen05.Pack.NONE, "
        "redOp=tcgen05.TmemLoadRedOp.MIN, half_split_off=16)"
    )


def test_gluon_variants(catalog: Catalog) -> None:
    for ins in every_instruction(catalog):
        code = dialects.gluon(ins)
        if ins.shape.split:
            assert code.code is None and "cannot be asked" in code.notes[0]
        else:
            assert f'instr_variant="{ins.shape.name}"' in (code.code or "")


# --- the command ------------------------------------------------------------------------------


@pytest.mark.usefixtures("plain_terminal")
def test_ptx_command_translates_between_dialects(capsys: pytest.CaptureFixture[str]) -> None:
    from cli_run import run

    code, out, err = run(capsys, "ptx", "SM100_TMEM_LOAD_16dp256b4x", "--emit", "cccl")
    assert code == 0 and out == "cuda::ptx::tcgen05_ld_16x256b(r, taddr);\n"
    assert "note: r is uint32_t r[16]" in err
    code, out, _ = run(capsys, "ptx", "16x256b", "--num", "x4", "--emit", "cutlass")
    assert code == 0 and out == "SM100_TMEM_LOAD_16dp256b4x\n"
    code, out, _ = run(capsys, "ptx", "tcgen05.ld.sync.aligned.16x256b.x4.b32", "--emit", "cute-dsl")
    assert code == 0 and out == "tcgen05.Ld16x256bOp(tcgen05.Repetition.x4, tcgen05.Pack.NONE)\n"
    code, out, _ = run(capsys, "ptx", "32x32b", "-n", "2", "--red", "max", "--type", "f32", "-e", "ptx")
    assert code == 0 and out == "tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%f1, %f2}, %f3, [%r0];\n"


@pytest.mark.usefixtures("plain_terminal")
def test_ptx_command_all_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    out = ok(capsys, "ptx", "16x32bx2", "--num", "x8", "--split-offset", "16")
    for text in (
        "tcgen05.ld.sync.aligned.16x32bx2.x8.b32",
        "n32_t<16>",
        "fix immHalfSplitoff",
        "Gluon infers",
    ):
        assert text in out
    record = json.loads(ok(capsys, "ptx", "16x256b", "--num", "x4", "-f", "json"))
    assert record["instruction"] == "tcgen05.ld.sync.aligned.16x256b.x4.b32"
    assert [d["dialect"] for d in record["dialects"]] == [
        "ptx",
        "cuda",
        "cccl",
        "cutlass",
        "cute-dsl",
        "gluon",
    ]


@pytest.mark.usefixtures("plain_terminal")
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("32x32b", "-n", "2", "--red", "max", "--type", "f32", "--emit", "cccl"), "no tcgen05.ld.red"),
        (("16x32bx2", "--emit", "gluon"), "cannot be asked"),
        (("16x256b", "--multicast", "warpx4"), "--multicast applies to tcgen05.cp"),
        (("16x256b", "--emit", "fortran"), "fortran"),
        (("16x256b", "--num", "x64"), "x1..x32"),
        (("16x64b", "-n", "2", "--red", "min", "--type", "u32"), ".32x32b or .16x32bx2"),
        (("32x32b", "--red", "min", "--type", "u32"), "at least .x2"),
        (("32x32b", "-n", "4", "--red", "min", "--type", "s32", "--nan"), ".NaN applies to .f32"),
        (("32x32b", "-n", "4", "--type", "f32"), "--red min or --red max"),
        (("32x32b", "-n", "4", "--red", "add", "--type", "f32"), "--red must be min or max"),
        (("32x32b", "-n", "4", "--red", "max", "--type", "f64"), "--type must be u32, s32 or f32"),
        (("32x32b", "-n", "4", "--red", "max", "--type", "f32", "--pack"), "no .pack::16b"),
        (("tcgen05.ld.red.sync.aligned.32x32b.x2.f32",), ".min or .max"),
        (("tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32", "--red", "min"), "says min"),
    ],
)
def test_ptx_command_refuses_with_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], words: str
) -> None:
    assert words in bad(capsys, "ptx", *args)
