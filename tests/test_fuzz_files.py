"""Hostile files and standard input for every command that reads them: an answer or one sentence.

Inputs: random binary (fixed seed), an endless line (``/dev/zero``, and one just past the line bound),
huge numbers, deep brackets, NUL bytes, invalid UTF-8, lone carriage returns, an empty file, a
directory; shape files that are YAML bombs, deeply nested, too large or not YAML. Readers: ``explain``
(file and ``-``), ``which``/``where --batch`` (file and ``-``), ``--layouts`` directories.
"""

from __future__ import annotations

import io
import random
import resource
import sys
from pathlib import Path

import pytest
from cli_run import run

from tmemviz.files import MAX_LINE_BYTES

SEED = 18
HUGE = "9" * 5000
LD = "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2];\n"


def hostile() -> dict[str, bytes]:
    rng = random.Random(SEED)
    return {
        "binary": bytes(rng.randrange(256) for _ in range(1 << 16)),
        "nul": b"tcgen05.ld.sync.aligned\x00.32x32b.x1.b32 {%r1}, [%r2];\n",
        "utf8": LD.encode() + b"// \xff\xfe bad bytes\n",
        "huge-number": f"{HUGE},{HUGE}\n{HUGE}\n".encode(),
        "huge-immediate": f"tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r1}}, [%r2 + {HUGE}];\n".encode(),
        "brackets": ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, " + "[" * 100_000 + "\n").encode(),
        "braces": ("{" * 50_000 + "\n" + "}" * 50_000 + "\n").encode(),
        "long-line": b"a" * (MAX_LINE_BYTES + 1),
        "carriage-returns": LD.replace("\n", "\r").encode() * 100,
        "empty": b"",
        "garbage-lines": b"1,2,3\n,\n0x\n-\n1 2\n\t\n" + b"#" * 1000 + b"\n",
    }


INPUTS = hostile()


def check(code: int, err: str) -> None:
    assert code in (0, 1, 2), code
    assert "Traceback" not in err
    lines = err.splitlines()
    assert all(line.startswith("tmemviz: ") for line in lines), err[:300]
    if code == 2:
        assert lines, "exit 2 with nothing said"
        assert all(len(line) < 500 for line in lines), max(map(len, lines))


READERS = [
    ("explain", ["explain", "{}"]),
    ("which", ["which", "16x256b", "--batch", "{}"]),
    ("where", ["where", "16x256b", "--batch", "{}", "-f", "json"]),
]
CASES = [
    pytest.param(
        reader,
        argv,
        name,
        id=f"{reader}-{name}",
    )
    for reader, argv in READERS
    for name in INPUTS
]


@pytest.mark.parametrize(("reader", "argv", "name"), CASES)
def test_hostile_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reader: str, argv: list[str], name: str
) -> None:
    path = tmp_path / f"{name}.ptx"
    path.write_bytes(INPUTS[name])
    code, _, err = run(capsys, *(a.format(path) for a in argv))
    check(code, err)


@pytest.mark.parametrize(("reader", "argv", "name"), CASES)
def test_hostile_stdin(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    reader: str,
    argv: list[str],
    name: str,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(INPUTS[name])))
    code, _, err = run(capsys, *(a.format("-") for a in argv))
    check(code, err)


@pytest.mark.parametrize(("reader", "argv"), READERS, ids=[r for r, _ in READERS])
def test_dev_zero_and_a_directory_are_refused_with_flat_memory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reader: str, argv: list[str]
) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for target in ("/dev/zero", str(tmp_path)):
        code, _, err = run(capsys, *(a.format(target) for a in argv))
        assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10  # KiB


def test_standard_input_twice(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(LD.encode())))
    code, out, err = run(capsys, "explain", "-", "-")
    check(code, err)  # refused in one sentence: standard input can be read once
    assert code == 2 and "standard input" in err and out == ""


SHAPE_FILES = {
    "alias-bomb": "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "ptx_name: *i\n",
    "deep": "x: " + "[" * 600 + "]" * 600 + "\n",  # past the parser's recursion limit
    "not-yaml": "ptx_name: [unclosed\n",
    "binary": "\x00\x01\x02",
    "scalar": "42\n",
    "wrong-types": "ptx_name: 3\nlanes: abc\nbits_per_rep: [1]\n",
    "huge": "# " + "x" * (1 << 20) + "\n",
}


@pytest.mark.parametrize("name", SHAPE_FILES)
@pytest.mark.parametrize(
    "command",
    [
        ["shapes"],
        ["layout", "16x256b"],
        ["cp", "128x256b"],
        ["smem", "--major", "K", "--swizzle", "128B", "--dtype", "f16", "--rows", "64", "--cols", "64"],
    ],
)
def test_hostile_shape_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, command: list[str]
) -> None:
    for sub in ("", "ldst", "cp", "smem"):
        (tmp_path / sub).mkdir(exist_ok=True)
        (tmp_path / sub / f"{name}.yaml").write_text(
            SHAPE_FILES[name], encoding="utf-8", errors="surrogateescape"
        )
    code, _, err = run(capsys, *command, "--layouts", str(tmp_path))
    check(code, err)
    assert code == 2  # every one of these files is refused, naming the file
    assert name in err
