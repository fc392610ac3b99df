"""Files in and out at the edges: what ``-o`` does to what is already there, and bounded reading."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import threading
from pathlib import Path

import pytest
from cli_run import bad, ok, run

from tmemviz import files, writing
from tmemviz.errors import TmemvizError

# --- -o: regular files, links, special files, directories -------------------------------------------


def test_an_existing_files_mode_is_kept_and_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text("old")
    secret.chmod(0o600)
    writing.write_atomic(secret, b"new")
    assert secret.read_bytes() == b"new"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    umask = os.umask(0o027)
    try:
        writing.write_atomic(tmp_path / "fresh.json", b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "fresh.json").stat().st_mode) == 0o640


def test_a_symlink_is_followed_and_stays_a_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    ok(capsys, "layout", "16x256b", "-o", str(link))
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["shape"] == "16x256b"
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["real.json"]  # no temp left behind
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "data" / "new.json")
    writing.write_atomic(dangling, b"{}")
    assert dangling.is_symlink() and (tmp_path / "data" / "new.json").read_bytes() == b"{}"


def test_a_hard_linked_file_is_written_in_place_and_keeps_its_links(tmp_path: Path) -> None:
    first = tmp_path / "a.txt"
    first.write_text("old")
    second = tmp_path / "b.txt"
    os.link(first, second)
    writing.write_atomic(first, b"new")
    assert second.read_bytes() == b"new"
    assert first.stat().st_ino == second.stat().st_ino and first.stat().st_nlink == 2


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    writing.write_atomic(fifo, b"through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_character_device_stays_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null
    except (PermissionError, AttributeError):
        pytest.skip("cannot make a device node here")
    ok(capsys, "layout", "16x256b", "-f", "json", "-o", str(null))
    assert stat.S_ISCHR(null.stat().st_mode)
    assert list(tmp_path.iterdir()) == [null]


def test_dev_stdout_is_written_in_place(tmp_path: Path) -> None:
    import subprocess

    target = tmp_path / "out.json"
    with target.open("wb") as handle:
        done = subprocess.run(
            [sys.executable, "-m", "tmemviz", "layout", "16x256b", "-f", "json", "-o", "/dev/stdout"],
            stdout=handle,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(target.read_text())["shape"] == "16x256b"


def test_a_directory_or_a_trailing_slash_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = bad(capsys, "layout", "16x256b", "-o", f"{tmp_path}/newdir/")
    assert "ending in '/'" in line
    assert list(tmp_path.iterdir()) == []
    line = bad(capsys, "layout", "16x256b", "-o", f"{tmp_path}/out.json/")
    assert "ending in '/'" in line and list(tmp_path.iterdir()) == []
    (tmp_path / "dir.json").mkdir()
    assert "is a directory" in bad(capsys, "layout", "16x256b", "-o", str(tmp_path / "dir.json"))
    with pytest.raises(TmemvizError, match="ending in '/'"):
        writing.write_atomic(f"{tmp_path}/x/", b"")


# --- bounded reading ----------------------------------------------------------------------------------


def lines_of(data: bytes, tmp_path: Path, **kw: int) -> list[str]:
    path = tmp_path / "in.ptx"
    path.write_bytes(data)
    return list(files.text_lines(path, **kw))


def test_a_line_longer_than_the_bound_is_refused_naming_it(tmp_path: Path) -> None:
    assert lines_of(b"a" * 100 + b"\n", tmp_path, limit=101) == ["a" * 100 + "\n"]
    with pytest.raises(TmemvizError, match=r"line 2 is longer than 100B"):
        lines_of(b"ok\n" + b"a" * 101, tmp_path, limit=100)
    assert files.MAX_LINE_BYTES == 4 << 20
    with pytest.raises(TmemvizError, match=r"longer than 4 MiB"):
        lines_of(b"x" * (files.MAX_LINE_BYTES + 1), tmp_path)


def test_an_endless_line_is_refused_with_flat_memory(capsys: pytest.CaptureFixture[str]) -> None:
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    line = bad(capsys, "which", "16x256b", "--batch", "/dev/zero")
    assert "NUL byte on line 1" in line
    with pytest.raises(TmemvizError, match="NUL byte on line 1"):
        list(files.text_lines("/dev/zero"))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10  # KiB: under 64 MiB


def test_bad_utf8_names_its_line_and_crlf_reads_as_lf(tmp_path: Path) -> None:
    assert lines_of(b"a\r\nb\n", tmp_path) == ["a\n", "b\n"]
    with pytest.raises(TmemvizError, match=r"not UTF-8 text \(line 3\)"):
        lines_of(b"a\nb\n\xff\n", tmp_path)
    with pytest.raises(TmemvizError, match=r"not UTF-8 text \(line 1\)"):
        lines_of(b"\xff", tmp_path)


def _line_by_line(data: bytes, limit: int) -> tuple[list[str], str | None]:
    """What a reader of one line at a time gives (``readline(limit + 1)``, each line checked and decoded
    on its own): the lines before the first bad one, and why it is bad."""
    stream = io.BytesIO(data)
    out: list[str] = []
    number = 0
    while raw := stream.readline(limit + 1):
        number += 1
        if b"\0" in raw:
            return out, f"a NUL byte on line {number}"
        if len(raw) > limit:
            return out, f"line {number} is longer"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return out, f"(line {number})"
        out.append(line[:-2] + "\n" if line.endswith("\r\n") else line)
    return out, None


def test_property_block_reading_equals_line_by_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Lines across block edges, CRLF, a form feed or U+2028 inside a line, NUL, bad UTF-8, long lines:
    the block reader gives what a line-by-line reader gives, then the same error."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    monkeypatch.setattr(files, "_BLOCK_BYTES", 7)
    pieces = [b"a", b"mov;", b"\n", b"\r\n", b"\r", b"\x0c", "\u2028".encode(), b"\0", b"\xff", b"xxxxxxxxxx"]
    path = tmp_path / "in.ptx"

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(pieces), max_size=30), st.sampled_from([8, 12, 64]))
    def check(parts: list[bytes], limit: int) -> None:
        data = b"".join(parts)
        path.write_bytes(data)
        want, why = _line_by_line(data, limit)
        got: list[str] = []
        try:
            for line in files.text_lines(path, limit=limit):
                got.append(line)
        except TmemvizError as exc:
            assert why is not None and why in str(exc), (exc, why)
        else:
            assert why is None
        assert got == want

    check()


def test_standard_input_read_twice_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"one\ntwo\n")))
    assert list(files.text_lines("-")) == ["one\n", "two\n"]
    assert list(files.text_lines("-")) == []
    assert not sys.stdin.closed


# --- batch answers as JSON ----------------------------------------------------------------------------


def test_which_batch_json_answers_every_question_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "q.txt"
    batch.write_text("9,5\n# a comment\n99 5\nfoo\n0x1 1\n")
    code, out, err = run(capsys, "which", "16x256b", "--batch", str(batch), "-f", "json")
    assert code == 2
    answers = [json.loads(line) for line in out.splitlines()]
    assert answers[0] == {"lane": 9, "col": 5, "thread": 6, "reg": 3, "half": None}
    assert answers[1]["lane"] == 99 and answers[1]["col"] == 5 and "outside" in answers[1]["error"]
    assert answers[2] == {"line": 4, "question": "foo", "error": "expected LANE,COL, got 'foo'"}
    assert answers[3]["lane"] == 1 and answers[3]["col"] == 1 and "error" not in answers[3]
    assert len(answers) == 4 and err.count("tmemviz: line") == 2
    code, out, _ = run(capsys, "where", "16x256b", "--batch", str(batch), "-f", "json")
    assert [json.loads(line).get("thread") for line in out.splitlines()] == [9, 99, None, 1]


# --- the command line's own edges ---------------------------------------------------------------------


def test_an_overlong_layouts_name_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(capsys, "layout", "16x256b", "--layouts", "a" * 300)
    assert "does not exist or is not a directory" in line and len(line) < 200


def test_ctrl_c_exits_130_without_a_trace(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tmemviz import api

    def interrupted(*args: object, **kw: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "layout", interrupted)
    code, out, err = run(capsys, "layout", "16x256b")
    assert (code, out, err) == (130, "", "")
    code, out, err = run(capsys, "layout", "16x256b", "--view", "grid", "--help")
    assert code == 0
