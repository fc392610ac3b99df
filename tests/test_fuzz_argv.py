"""Random command lines over every command (fixed seed): an answer or one clear refusal, never a trace.

Each case picks a command, maybe its positional argument, and a few of its own options (read from the
same declarations Typer gets) with values drawn from pools of legal, borderline and hostile text. The
run must end with status 0, 1 or 2, print no traceback, and on status 2 end with one ``tmemviz: `` line
(batch runs report each bad line on its own line; warnings come before the refusal).

Figures (png/svg, matplotlib) and the gallery are left to their own tests: this one stays fast.
"""

from __future__ import annotations

import importlib
import io
import random
import sys
from pathlib import Path

import pytest
from cli_run import run

from tmemviz.cli.app import COMMANDS
from tmemviz.cli.params import Option, markers, parameters

SEED = 18
CASES = 300
SKIPPED = ("figure", "gallery")

HUGE = "9" * 5000
GENERIC = [
    "0",
    "1",
    "-1",
    "2",
    "3",
    "0x10",
    "abc",
    "",
    " ",
    "9" * 60,
    HUGE,
    "1.5",
    "x4",
    "32,8",
    "K",
    "\x00",
    "é",
]
SHIFT = "tcgen05.shift.cta_group::1.down [%r1];"
LINES = [
    "16x256b",
    "32x32b",
    "16x32bx2",
    "16x64b.x2",
    ".16x128b.x4.pack::16b",
    "SM100_TMEM_LOAD_16dp256b4x",
    "tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r2}, [%r3 + 1048576];",
    "@%p1 tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r2], 2, {%r1};",
    "tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%f1, %f2}, %f3, [%r4];",
    "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2], %r3;",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2 + 4294967296];",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2 + -4];",
    "[" * 500 + "]" * 500,
    "{" * 300,
    "128x256b",
    "64x128b.warpx2::02_13",
    SHIFT,
    "$\\invalidcommand$",
]
POSITIONAL = {
    "layout": LINES,
    "which": LINES,
    "where": LINES,
    "ptx": LINES,
    "cp": ["128x256b", "4x256b", "64x128b.warpx2::02_13", "32x128b.warpx4", "SM100_UTCCP_4x32dp128bit_2cta"],
    "decompress": ["b6x16_p32", "b4x16_p64", "b8"],
    "desc": ["0x4000404000010000", "0x0", "ff", "123", "0xffffffffffffffffff"],
    "idesc": ["0x08200010", "136314896", "0x0", "-1"],
    "datapath": ["A", "B", "C", "D", "E", "F", "G", "Z", "d"],
    "shift": [SHIFT, "tcgen05.shift.down.cta_group::2 [%r1];", "tcgen05.shift [x]"],
}
SPECIFIC = {
    "--num": ["x1", "x2", "x4", "x32", "x128", "4", "x3"],
    "--shape": ["16x256b", "32x32b", "16x32bx2", "16x64b"],
    "--n": ["16", "64", "128", "256", "100", "512"],
    "--m": ["64", "128", "256", "2", "16"],
    "--k": ["1", "2", "64", "128", "256"],
    "--rows": ["8", "64", "128", "4096"],
    "--cols": ["8", "64", "128", "4096"],
    "--lbo": ["16", "256", "0x100"],
    "--sbo": ["512", "1024"],
    "--format": ["table", "json", "csv", "txt", "text", "html"],
    "--dtype": ["f16", "bf16", "f32", "e4m3", "tf32"],
    "--swizzle": ["128B", "64B", "32B", "none", "Swizzle<3,4,3>", "K_SW128", "128B_base32B"],
    "--major": ["K", "MN", "row"],
    "--kind": ["f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4nvf4"],
    "--emit": ["ptx", "cuda", "cccl", "cutlass", "cute-dsl", "gluon", "all"],
    "--view": ["grid", "threads", "summary", "bands"],
    "--detail": ["auto", "schematic"],
    "--dpi": ["20"],
    "--taddr": ["0,0", "32,8", "0x200008", "128,0", "0,512"],
    "--warp": ["0", "1", "4", "31"],
    "--lane": ["0", "5", "31", "127", "128"],
    "--col": ["0", "5", "511", "512"],
    "--thread": ["0", "5", "31"],
    "-t": ["0", "5", "31", "e2m1"],
    "--reg": ["0", "1", "127"],
    "-r": ["0", "1"],
    "--cta-group": ["1", "2"],
    "--sf-vec": ["16", "32"],
    "--operand": ["A", "B"],
    "--multicast": ["warpx2::02_13", "warpx4"],
    "--red": ["min", "max"],
    "--type": ["u32", "s32", "f32", "e3m2"],
    "--half": ["lo", "hi"],
    "--storage": ["packed", "unpacked"],
    "--title": ["cost $5 and $6", "$\\invalidcommand$", "a\x01b"],
}


def flags(command: str) -> tuple[list[tuple[str, bool]], bool]:
    """(each option flag and whether it is a bool, whether the command takes a positional argument)."""
    func = importlib.import_module(COMMANDS[command]).COMMANDS[command]
    options, positional = [], False
    for p in parameters(func):
        base, marker = markers(p.annotation)
        if isinstance(marker, Option):
            options += [(flag, base is bool) for flag in marker.decls]
        elif marker is not None:
            positional = True
    return options, positional


BASE = {
    "which": ["--lane", "1", "--col", "1"],
    "where": ["-t", "1", "-r", "0"],
    "smem": ["--major", "K", "--swizzle", "128B", "--dtype", "f16", "--rows", "64", "--cols", "64"],
    "idesc": ["--kind", "f16"],
    "tile": ["--n", "64", "--shape", "32x32b"],
    "scales": ["--k", "128", "--m", "128"],
    "desc": [],
}
"""Options that make a command answer; each case keeps each pair with probability 0.7, so most runs
get past the first refusal into the families' own checks."""


def argv(rng: random.Random, command: str, tmp: Path) -> list[str]:
    options, positional = flags(command)
    args = [command]
    if positional and rng.random() < 0.9:
        pool = POSITIONAL.get(command, GENERIC)
        args.append(rng.choice(pool) if rng.random() < 0.85 else rng.choice(GENERIC))
        if command == "explain":
            args[-1] = str(tmp / rng.choice(["kernel.ptx", "kernel.ptx", "missing.ptx"]))
    base = BASE.get(command, [])
    for i in range(0, len(base), 2):
        if rng.random() < 0.7:
            args += base[i : i + 2]
    for _ in range(rng.randint(0, 3)):
        flag, is_bool = rng.choice(options)
        if is_bool:
            args.append(flag)
            continue
        if flag in ("--output", "-o", "--write-baseline"):  # files are written only under tmp
            value = str(
                tmp / f"out{rng.randint(0, 3)}{rng.choice(['.json', '.csv', '.txt', '.html', '', '/'])}"
            )
        elif flag == "--batch":
            value = rng.choice([str(tmp / "batch.txt"), "-", str(tmp / "missing.txt")])
        elif flag == "--layouts":
            value = rng.choice([str(tmp), str(tmp / "missing"), "a" * 300])
        else:
            specific = SPECIFIC.get(flag, [])
            value = rng.choice(specific) if specific and rng.random() < 0.8 else rng.choice(GENERIC)
        args += [flag, value]
    return args


def hostile_tree(tmp: Path) -> None:
    (tmp / "kernel.ptx").write_text(
        ".version 8.7\n.target sm_100a\n.visible .entry k() {\n"
        "tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r2}, [%r3];\n}\n"
    )
    (tmp / "batch.txt").write_text("1,2\n0x3 4\nbad\n99 99\n" + "9" * 200 + ",1\n")


RNG = random.Random(SEED)
NAMES = [c for c in COMMANDS if c not in SKIPPED]
ARGVS: list[list[str]] = []


def test_random_command_lines_answer_or_refuse_in_one_sentence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile_tree(tmp_path)
    rng = random.Random(SEED)
    failures = []
    for _ in range(CASES):
        args = argv(rng, rng.choice(NAMES), tmp_path)
        monkeypatch.setattr(sys, "stdin", io.StringIO("1,2\nbad\n"))
        try:
            code, _, err = run(capsys, *args)
        except BaseException as exc:  # any escape is the finding
            failures.append(f"{args!r}: raised {type(exc).__name__}: {exc}"[:400])
            continue
        problem = verdict(args, code, err)
        if problem:
            failures.append(f"{args!r}: {problem}"[:400])
    assert not failures, "\n".join(failures[:20])


def verdict(args: list[str], code: int, err: str) -> str | None:
    """What is wrong with this run's ending, or None."""
    if code not in (0, 1, 2):
        return f"exit status {code}"
    if "Traceback" in err:
        return "a traceback: " + err[-300:]
    lines = err.splitlines()
    if any(not line.startswith("tmemviz: ") for line in lines):
        return f"stderr lines not from tmemviz: {err[:300]!r}"
    if code == 2:
        if not lines:
            return "exit 2 with nothing on stderr"
        refusals = [line for line in lines if not line.startswith(("tmemviz: warning:", "tmemviz: note:"))]
        if "--batch" not in args and len(refusals) != 1:
            return f"{len(refusals)} refusal lines: {err[:300]!r}"
    return None
