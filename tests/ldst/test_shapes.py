"""Shape-file validation: good user shapes load and work, bad ones fail with one clear sentence.

Every rejection must name the file and the offending field, through the API
(:func:`tmemviz.catalog.load_shape` / :func:`load_catalog`), through
``--layouts DIR`` and through ``$TMEMVIZ_LAYOUTS``. Hostile YAML must neither run
code nor hang. All files are written under ``tmp_path``; the shipped
``layouts/`` are only read.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from ldst.oracle import SHAPES as FACT_SHAPES

from tmemviz.catalog import builtin_dir, load_catalog
from tmemviz.cli import main
from tmemviz.cli.options import KINDS
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.ldst.shapes import load_shape, parse_shape

REPO = Path(__file__).resolve().parents[1]

# PTX Table 49: registers per repetition and the largest legal .num, from the facts oracle.
TABLE49 = {name: (s.regs, s.max_num) for name, s in FACT_SHAPES.items()}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TMEMVIZ_LAYOUTS", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    yield


def shipped(name: str) -> str:
    return (builtin_dir() / LDST.subdir / f"{name}.yaml").read_text(encoding="utf-8")


def user_copy(name: str = "16x256b", ptx_name: str = ".mine256", alias: str = "mine256dp") -> str:
    """A shipped shape file renamed so it does not clash with the shipped catalog."""
    text = shipped(name)
    text, n = re.subn(r"^ptx_name: .*$", f'ptx_name: "{ptx_name}"', text, count=1, flags=re.M)
    assert n == 1
    text, n = re.subn(r"^aliases: .*$", f"aliases: [{alias}]", text, count=1, flags=re.M)
    assert n == 1
    return text


def sub(text: str, old: str, new: str) -> str:
    """Replace the first ``old``; the test is meaningless if it is not there."""
    assert old in text, f"{old!r} not in the shape file"
    return text.replace(old, new, 1)


def bad_line(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert code == 2, f"exit status {code}, stderr {err!r}"
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tmemviz: "), err
    assert out == ""
    return lines[0]


def write(directory: Path, name: str, text: str | bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- shipped and valid user shapes


def test_shipped_shapes_load_and_match_table49() -> None:
    catalog = load_catalog((), KINDS)
    assert sorted(catalog.names(LDST)) == sorted(TABLE49)
    for name, (regs, max_num) in TABLE49.items():
        shape = catalog.get(LDST, name)
        assert (shape.registers_per_rep, shape.max_num) == (regs, max_num)
        assert Path(shape.source).parent == builtin_dir() / LDST.subdir


def test_parse_shape_equals_load_shape() -> None:
    path = builtin_dir() / LDST.subdir / "16x128b.yaml"
    from_file = load_shape(path)
    from_doc = parse_shape(yaml.safe_load(path.read_text()), "<memory>")
    assert from_doc.slots == from_file.slots and from_doc.owners == from_file.owners
    assert from_doc.source == "<memory>"


def test_user_copy_loads_and_lays_out_like_the_original(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = sub(user_copy(), "ptx_figure: 186\n", "")  # ptx_figure is optional
    write(tmp_path, "mine.yaml", text)
    catalog = load_catalog([tmp_path], KINDS)
    mine, original = catalog.get(LDST, "mine256"), catalog.get(LDST, "16x256b")
    assert catalog.get(LDST, ".MINE256") is mine and catalog.get(LDST, "mine256dp") is mine
    assert mine.slots == original.slots and mine.ptx_figure is None

    assert main(["layout", "mine256", "--num", "x4", "-f", "json", "--layouts", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["layout", "16x256b", "--num", "x4", "-f", "json"]) == 0
    reference = json.loads(capsys.readouterr().out)
    assert doc["instruction"] == "tcgen05.ld.sync.aligned.mine256.x4.b32"
    assert doc["cells"] == reference["cells"]

    assert main(["shapes", "--layouts", str(tmp_path)]) == 0
    assert ".mine256" in capsys.readouterr().out


def test_a_new_shape_via_env_with_two_dirs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A made-up .32x64b (two columns, thread t in lane t) through $TMEMVIZ_LAYOUTS, as .yml."""
    rows = "\n".join(f"      - T{t}r0 T{t}r1" for t in range(32))
    new = f"""\
ptx_name: .32x64b
aliases: [32dp64b]
lanes: 32
columns_per_rep: 2
registers_per_rep: 2
max_num: 64
accesses:
  - base: taddr
    grid:
{rows}
"""
    write(tmp_path / "a", "new.yml", new)
    write(tmp_path / "a", "notes.txt", "not a shape file: ignored")
    write(tmp_path / "b", "mine.yaml", user_copy())
    monkeypatch.setenv("TMEMVIZ_LAYOUTS", os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b")]))
    assert main(["which", "32x64b", "--num", "x2", "--lane", "5", "--col", "3"]) == 0
    assert capsys.readouterr().out == "lane 5, column 3 of 32x64b.x2 is held by thread 5, register r3\n"
    assert main(["shapes", "-f", "json"]) == 0
    entries = {e["shape"]: e for e in json.loads(capsys.readouterr().out)}
    assert set(entries) == {*TABLE49, "32x64b", "mine256"}
    assert entries["32x64b"]["registers"]["x64"] == 128 and entries["32x64b"]["registers"]["x128"] is None
    line = bad_line(capsys, "layout", "32x64b", "--num", "x128")
    assert "32x64b supports .num x1..x64" in line


# --------------------------------------------------------------------------- field-level rejections

Mutation = Callable[[str], str]

# (id, mutation of a valid 16x256b copy, fragments the one-line message must contain)
BAD_FIELDS: list[tuple[str, Mutation, list[str]]] = [
    ("unknown-key", lambda t: t + "colour: red\n", ["'colour'"]),
    ("missing-key", lambda t: sub(t, "max_num: 32\n", ""), ["'max_num'", "missing"]),
    ("lanes-string", lambda t: sub(t, "lanes: 16", 'lanes: "16"'), ["'lanes'", "whole number"]),
    ("lanes-bool", lambda t: sub(t, "lanes: 16", "lanes: true"), ["'lanes'", "boolean"]),
    ("lanes-too-many", lambda t: sub(t, "lanes: 16", "lanes: 33"), ["'lanes'"]),
    ("columns-zero", lambda t: sub(t, "columns_per_rep: 8", "columns_per_rep: 0"), ["'columns_per_rep'"]),
    (
        "regs-inconsistent",
        lambda t: sub(t, "registers_per_rep: 4", "registers_per_rep: 3"),
        ["'registers_per_rep'"],
    ),
    ("max-num-not-table49", lambda t: sub(t, "max_num: 32", "max_num: 64"), ["'max_num'", "32", "64"]),
    ("max-num-too-small", lambda t: sub(t, "max_num: 32", "max_num: 16"), ["'max_num'", "32"]),
    ("figure-string", lambda t: sub(t, "ptx_figure: 186", "ptx_figure: one"), ["'ptx_figure'"]),
    ("ptx-name-bad", lambda t: sub(t, '".mine256"', '"16x256b!"'), ["'ptx_name'"]),
    ("alias-bad", lambda t: sub(t, "[mine256dp]", "[[nested]]"), ["aliases[0]"]),
    ("accesses-not-list", lambda t: t[: t.index("accesses:")] + "accesses: taddr\n", ["'accesses'"]),
    (
        "access-not-mapping",
        lambda t: t[: t.index("accesses:")] + "accesses:\n  - taddr\n",
        ["accesses[0]"],
    ),
    ("duplicate-token", lambda t: sub(t, "T3r1", "T3r0"), ["grid[0]", "T3r0", "twice"]),
    ("missing-register", lambda t: sub(t, "T0r0", "T1r0"), ["accesses", "T1r0"]),
    ("thread-32", lambda t: sub(t, "T31r0", "T32r0"), ["grid[7]", "T32r0", "T0..T31"]),
    ("register-4", lambda t: sub(t, "T0r3", "T0r4"), ["grid[8]", "T0r4", "r0..r3"]),
    ("malformed-token", lambda t: sub(t, "T3r1", "T3x1"), ["grid[0]", "T3x1", "T<thread>r<register>"]),
    ("lowercase-token", lambda t: sub(t, "T3r1", "t3r1"), ["grid[0]", "t3r1"]),
    ("row-missing", lambda t: re.sub(r"^.*# lane 15\n", "", t, flags=re.M), ["accesses[0].grid", "16 rows"]),
    ("row-extra", lambda t: re.sub(r"^(.*# lane 15\n)", r"\1\1", t, flags=re.M), ["accesses[0].grid", "16"]),
    ("column-missing", lambda t: sub(t, "T3r0  T3r1", "T3r0"), ["grid[0]", "8 entries", "got 7"]),
    ("row-not-string", lambda t: re.sub(r"- T12r0 .*# lane 3", "- [T12r0, T12r1]", t), ["grid[3]"]),
    ("base-bad", lambda t: sub(t, "base: taddr", "base: taddr+4"), ["accesses[0].base", "taddr+4"]),
    ("base-missing", lambda t: sub(t, "  - base: taddr\n    grid:", "  - grid:"), ["accesses[0].base"]),
    ("access-unknown-key", lambda t: sub(t, "base: taddr\n", "base: taddr\n    shift: 1\n"), ["shift"]),
]


def _split_copy() -> str:
    return user_copy("16x32bx2", ".mysplit", "mysplitdp")


BAD_SPLIT: list[tuple[str, Mutation, list[str]]] = [
    (
        "split-bases-swapped",
        lambda t: sub(t, "base: taddr\n", "base: taddr+immHalfSplitoff\n"),
        ["accesses[0].base"],
    ),
    (
        "split-second-base",
        lambda t: sub(t, "base: taddr+immHalfSplitoff", "base: taddr"),
        ["accesses[1].base"],
    ),
    ("split-thread-twice", lambda t: sub(t, "T16r0", "T15r0"), ["accesses[1].grid[0]", "T15r0", "twice"]),
]


@pytest.mark.parametrize("via", ["api", "cli", "env"])
@pytest.mark.parametrize(
    ("copy", "mutate", "fragments"),
    [pytest.param(user_copy, m, f, id=i) for i, m, f in BAD_FIELDS]
    + [pytest.param(_split_copy, m, f, id=i) for i, m, f in BAD_SPLIT],
)
def test_bad_field_is_rejected_naming_file_and_field(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    copy: Callable[[], str],
    mutate: Mutation,
    fragments: list[str],
    via: str,
) -> None:
    good = copy()
    text = mutate(good)
    assert text != good
    path = write(tmp_path, "bad.yaml", text)
    if via == "api":
        with pytest.raises(TmemvizError) as caught:
            load_catalog([tmp_path], KINDS)
        message = str(caught.value)
    elif via == "cli":
        message = bad_line(capsys, "layout", "16x256b", "--layouts", str(tmp_path))
    else:
        monkeypatch.setenv("TMEMVIZ_LAYOUTS", str(tmp_path))
        message = bad_line(capsys, "shapes")
    assert str(path) in message, f"the message must name the file: {message}"
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_the_unmutated_copies_are_valid(tmp_path: Path) -> None:
    """Guards the table above: each mutation starts from a file that loads."""
    write(tmp_path, "a.yaml", user_copy())
    write(tmp_path, "b.yaml", _split_copy())
    assert {"mine256", "mysplit"} <= set(load_catalog([tmp_path], KINDS).names(LDST))


def test_parse_shape_names_its_source() -> None:
    doc = yaml.safe_load(user_copy())
    doc["lanes"] = 16.0
    with pytest.raises(TmemvizError, match=r"^<memory>: field 'lanes' must be a whole number"):
        parse_shape(doc, "<memory>")


# --------------------------------------------------------------------------- file-level rejections


def test_invalid_yaml_syntax_reports_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = user_copy()
    line_no = text.count("\n") + 1
    path = write(tmp_path, "broken.yaml", text + "\tlanes: 16\n")
    with pytest.raises(TmemvizError) as caught:
        load_shape(path)
    assert str(path) in str(caught.value) and f"line {line_no}" in str(caught.value)
    message = bad_line(capsys, "shapes", "--layouts", str(tmp_path))
    assert f"line {line_no}" in message


def test_unclosed_flow_sequence(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.yaml", 'ptx_name: ".x"\naliases: [a, b\nlanes: 16\n')
    with pytest.raises(TmemvizError, match=r"not valid YAML at line \d+"):
        load_shape(path)


@pytest.mark.parametrize(
    "tag",
    ["!!python/object/apply:os.system", "!!python/object/apply:subprocess.call", "!!python/name:os.system"],
)
def test_python_tags_are_rejected_not_executed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tag: str
) -> None:
    marker = tmp_path / "pwned"
    payload = f'{tag} [["touch", "{marker}"]]' if "subprocess" in tag else f'{tag} ["touch {marker}"]'
    if tag.endswith("name:os.system"):
        payload = f"{tag} ''"
    path = write(
        tmp_path / "d", "evil.yaml", sub(user_copy(), 'ptx_name: ".mine256"', f"ptx_name: {payload}")
    )
    message = bad_line(capsys, "shapes", "--layouts", str(tmp_path / "d"))
    assert str(path) in message and "python" in message
    assert not marker.exists(), "the YAML tag was executed"


def _bomb_file(directory: Path, field: str) -> Path:
    """A billion-laughs document (9 levels of 9 aliases, 387M leaves if expanded) as ``field``."""
    levels = "abcdefghi"
    items = ["  - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    items += [f"  - &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]" for prev, cur in itertools.pairwise(levels)]
    bomb = f"{field}:\n" + "\n".join(items) + "\n"
    text = user_copy()
    if field == "accesses":
        text = text[: text.index("accesses:")] + bomb
    else:
        text, n = re.subn(rf"^{field}:.*\n", lambda _: bomb, text, count=1, flags=re.M)
        assert n == 1
    return write(directory, "bomb.yaml", text)


def _limited_child() -> None:
    """Cap the child's memory so a runaway expansion fails instead of exhausting the machine."""
    import resource

    limit = 512 << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("field", ["lanes", "max_num", "ptx_figure", "aliases", "accesses"])
def test_billion_laughs_fails_fast(tmp_path: Path, field: str) -> None:
    path = _bomb_file(tmp_path / "d", field)
    script = "import sys; from tmemviz.cli import main; sys.exit(main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", script, "shapes", "--layouts", str(path.parent)]
    env = {k: v for k, v in os.environ.items() if k != "TMEMVIZ_LAYOUTS"}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    kwargs: dict[str, object] = {"preexec_fn": _limited_child} if sys.platform != "win32" else {}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=20, **kwargs)  # type: ignore[call-overload]
    except subprocess.TimeoutExpired:
        pytest.fail(f"an alias bomb in '{field}' made tmemviz hang (no answer within 20 s)")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and f"'{field}" in lines[0], done.stderr[-500:]
    assert len(lines[0]) < 1000, "the message must not echo the expanded document"


def test_deeply_nested_yaml_is_a_clean_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    depth = 50_000
    text = sub(user_copy(), "ptx_figure: 186", "ptx_figure: " + "[" * depth + "]" * depth)
    path = write(tmp_path, "deep.yaml", text)
    assert path.stat().st_size < 1 << 20
    message = bad_line(capsys, "shapes", "--layouts", str(tmp_path))
    assert str(path) in message


def test_file_over_one_mib_is_rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    padding = ("# " + "x" * 1021 + "\n") * 1025
    path = write(tmp_path, "huge.yaml", user_copy() + padding)
    assert path.stat().st_size > 1 << 20
    message = bad_line(capsys, "shapes", "--layouts", str(tmp_path))
    assert str(path) in message and "1 MiB" in message


def test_file_just_under_one_mib_is_fine(tmp_path: Path) -> None:
    text = user_copy()
    room = (1 << 20) - len(text.encode()) - 1
    write(tmp_path, "big.yaml", text + "#" * room + "\n")
    assert "mine256" in load_catalog([tmp_path], KINDS).names(LDST)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("- ptx_name: .x\n- lanes: 16\n", "mapping"),
        ("", "mapping"),
        ("just a string\n", "mapping"),
        (b"ptx_name: \xff\xfe\n", "cannot read"),
    ],
    ids=["top-level-list", "empty", "scalar", "not-utf8"],
)
def test_document_level_rejections(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | bytes, fragment: str
) -> None:
    path = write(tmp_path, "odd.yaml", content)
    message = bad_line(capsys, "shapes", "--layouts", str(tmp_path))
    assert str(path) in message and fragment in message


@pytest.mark.parametrize(
    ("ptx_name", "alias", "clash"),
    [
        (".16x256b", "mine256dp", "16x256b"),
        (".mine256", "16dp256b", "16dp256b"),
        (".mine256", "16X256B", "16X256B"),
    ],
    ids=["name-clash", "alias-clashes-with-alias", "alias-clashes-with-name"],
)
def test_duplicate_shape_names_are_rejected(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, ptx_name: str, alias: str, clash: str
) -> None:
    path = write(tmp_path, "dup.yaml", user_copy(ptx_name=ptx_name, alias=alias))
    message = bad_line(capsys, "shapes", "--layouts", str(tmp_path))
    assert str(path) in message and clash in message and "already defined" in message
    assert "ptx_name" in message or "aliases" in message


def test_same_shape_in_two_user_dirs_is_rejected(tmp_path: Path) -> None:
    write(tmp_path / "a", "mine.yaml", user_copy())
    second = write(tmp_path / "b", "mine.yaml", user_copy())
    with pytest.raises(TmemvizError) as caught:
        load_catalog([tmp_path / "a", tmp_path / "b"], KINDS)
    assert str(second) in str(caught.value) and "mine256" in str(caught.value)
