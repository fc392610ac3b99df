"""``tmemviz decompress``: the byte calculator end to end, checked against the bit-level oracle.

The oracle (``oracle_chunk`` / ``oracle_widen``) and the OCP value tables live in
test_decompress.py and import nothing from tmemviz; here they are compared with
what the command prints, as JSON and as text, to stdout and to a file.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import bad, ok
from cp.test_decompress import (
    CONTAINER_LOW,
    ELEMENTS,
    TYPE_WIDTH,
    WIDTH,
    data_bytes,
    oracle_chunk,
    oracle_codes,
    oracle_widen,
    spec_value,
)

from tmemviz.families.cp.decompress import CONTAINER_BASIS

NOTE = f"note: {CONTAINER_BASIS}"
PATTERNS = {
    "e2m1": "0 0 s e1 e0 m0 0 0",
    "e3m2": "0 s e2 e1 e0 m1 m0 0",
    "e2m3": "0 s e1 e0 m2 m1 m0 0",
}
ROW = re.compile(r"^\s*e(\d+)\s+(\d+):(\d+)\s+(\S+)\s+(\d)\.(\d)(?:\s+([01]+)\s+([01]{8})\s+([0-9a-f]{2}))?")


# --------------------------------------------------------------------------- helpers


@pytest.fixture(autouse=True)
def _wide_terminal(plain_terminal: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Wide enough that no table row wraps."""
    monkeypatch.setenv("COLUMNS", "400")
    yield


def ok_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    record = json.loads(ok(capsys, "decompress", *args, "--format", "json"))
    assert isinstance(record, dict)
    return record


def rows(text: str) -> dict[int, re.Match[str]]:
    """The element rows of the text table, by element index."""
    found = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            found[int(m.group(1))] = m
    return found


def random_chunks(fmt: str, count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    return [bytes(rng.randrange(256) for _ in range(16)) for _ in range(count)]


CASES = [
    pytest.param(fmt, chunk, id=f"{fmt}-{chunk.hex()}")
    for fmt in WIDTH
    for chunk in random_chunks(fmt, 12, 7 if fmt == "b4x16_p64" else 11)
]


# --------------------------------------------------------------------------- JSON against the oracle


@pytest.mark.parametrize(("fmt", "chunk"), CASES)
def test_json_hex_whole_chunk(capsys: pytest.CaptureFixture[str], fmt: str, chunk: bytes) -> None:
    """16 bytes in (nonzero padding): output_hex is the oracle's, input_hex the bytes as given."""
    width = WIDTH[fmt]
    record = ok_json(capsys, fmt, "--hex", chunk.hex(" "))
    assert record["input_hex"] == chunk.hex()
    assert record["output_hex"] == oracle_widen(width, chunk).hex()


@pytest.mark.parametrize(("fmt", "chunk"), CASES)
def test_json_hex_data_only(capsys: pytest.CaptureFixture[str], fmt: str, chunk: bytes) -> None:
    width = WIDTH[fmt]
    n = data_bytes(width)
    data = chunk[:n]
    record = ok_json(capsys, fmt, "--hex", ":".join(f"0x{b:02x}" for b in data))
    assert record["input_hex"] == (data + bytes(16 - n)).hex()
    assert record["output_hex"] == oracle_widen(width, data + bytes(16 - n)).hex()
    assert record["output_hex"] == oracle_widen(width, chunk).hex()  # the padding never matters


@pytest.mark.parametrize("type_name", ["e2m1", "e3m2", "e2m3"])
@pytest.mark.parametrize("seed", range(6))
def test_json_elements(capsys: pytest.CaptureFixture[str], type_name: str, seed: int) -> None:
    """--elements: packed by the oracle, widened by the oracle, every element record checked."""
    width = TYPE_WIDTH[type_name]
    fmt = {4: "b4x16_p64", 6: "b6x16_p32"}[width]
    rng = random.Random(100 * seed + width)
    codes = [rng.randrange(2**width) for _ in range(ELEMENTS)]
    if seed == 0:
        codes = [2**width - 1] * ELEMENTS
    spelled = ",".join(rng.choice((str(c), hex(c), bin(c))) for c in codes)
    record = ok_json(capsys, fmt, "--type", type_name, "--elements", spelled)
    chunk = oracle_chunk(width, codes)
    out = oracle_widen(width, chunk)
    assert record["input_hex"] == chunk.hex()
    assert record["output_hex"] == out.hex()
    assert record["type"] == type_name
    elements = record["elements"]
    assert [e["index"] for e in elements] == list(range(ELEMENTS))
    for i, e in enumerate(elements):
        assert e["src_bits"] == [width * i + width - 1, width * i]
        assert (e["col"], e["byte"]) == (i // 4, i % 4)
        assert e["code"] == codes[i]
        assert e["container"] == out[i] == codes[i] << CONTAINER_LOW[width]
        assert e["value"] == spec_value(type_name, codes[i])


def test_json_fixed_e2m1(capsys: pytest.CaptureFixture[str]) -> None:
    record = ok_json(capsys, "b4x16_p64", "--hex", "10 32 54 76 98 ba dc fe")
    assert record["output_hex"] == "0004080c1014181c2024282c3034383c"
    assert record["input_hex"] == "1032547698badcfe" + "00" * 8
    assert [e["value"] for e in record["elements"]] == [
        0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
        -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("fmt", "type_name", "header"),
    [
        (
            "b4x16_p64",
            None,
            {
                "format": "b4x16_p64",
                "qualifiers": ".b8x16.b4x16_p64",
                "type": "e2m1",
                "element_bits": 4,
                "data_bytes": 8,
                "padding_bytes": 8,
                "container_bits": [5, 2],
                "bit_names": ["s", "e1", "e0", "m0"],
            },
        ),
        (
            "b6x16_p32",
            None,
            {
                "format": "b6x16_p32",
                "qualifiers": ".b8x16.b6x16_p32",
                "type": None,
                "element_bits": 6,
                "data_bytes": 12,
                "padding_bytes": 4,
                "container_bits": [6, 1],
                "bit_names": None,
            },
        ),
        ("b6x16_p32", "e3m2", {"type": "e3m2", "bit_names": ["s", "e2", "e1", "e0", "m1", "m0"]}),
        ("b6x16_p32", "e2m3", {"type": "e2m3", "bit_names": ["s", "e1", "e0", "m2", "m1", "m0"]}),
    ],
)
def test_json_header_without_data(
    capsys: pytest.CaptureFixture[str], fmt: str, type_name: str | None, header: dict[str, Any]
) -> None:
    """No data: positions only, the basis line, no bytes and no codes."""
    args = [fmt] + (["-t", type_name] if type_name else [])
    record = ok_json(capsys, *args)
    for key, value in header.items():
        assert record[key] == value, key
    assert record["basis"] == CONTAINER_BASIS
    assert "output_hex" not in record and "input_hex" not in record
    width = WIDTH[fmt]
    for i, e in enumerate(record["elements"]):
        assert e == {"index": i, "src_bits": [width * i + width - 1, width * i], "col": i // 4, "byte": i % 4}


def test_json_6bit_without_type_has_no_values(capsys: pytest.CaptureFixture[str]) -> None:
    chunk = bytes(range(200, 216))
    record = ok_json(capsys, "b6x16_p32", "--hex", chunk.hex())
    assert record["output_hex"] == oracle_widen(6, chunk).hex()
    assert all("value" not in e for e in record["elements"])
    assert [e["code"] for e in record["elements"]] == oracle_codes(6, chunk)


@pytest.mark.parametrize("spelling", ["b6x16_p32", ".b6x16_p32", "b8x16.b6x16_p32", ".b8x16.b6x16_p32"])
def test_format_spellings(capsys: pytest.CaptureFixture[str], spelling: str) -> None:
    chunk = bytes.fromhex("c00f00000000000000000000")
    record = ok_json(capsys, spelling, "--hex", chunk.hex())
    assert record["format"] == "b6x16_p32"
    assert record["output_hex"] == "007e" + "00" * 14


# --------------------------------------------------------------------------- text


def test_text_e2m1(capsys: pytest.CaptureFixture[str]) -> None:
    text = ok(capsys, "decompress", "b4x16_p64", "--hex", "10 32 54 76 98 ba dc fe")
    lines = [line.rstrip() for line in text.splitlines()]
    assert "output (16 containers, byte 0 first): 00 04 08 0c 10 14 18 1c 20 24 28 2c 30 34 38 3c" in lines
    assert "input  (16-byte chunk, byte 0 first): 10 32 54 76 98 ba dc fe 00 00 00 00 00 00 00 00" in lines
    assert NOTE in lines
    assert any(PATTERNS["e2m1"] in line and "5:2" in line for line in lines)
    found = rows(text)
    assert sorted(found) == list(range(ELEMENTS))
    for i, m in found.items():
        assert (int(m.group(2)), int(m.group(3))) == (4 * i + 3, 4 * i)
        assert m.group(4) == f"{i // 2}[{'3:0' if i % 2 == 0 else '7:4'}]"
        assert (int(m.group(5)), int(m.group(6))) == (i // 4, i % 4)
        assert m.group(7) == format(i, "04b")
        assert m.group(8) == format(i << 2, "08b")
        assert m.group(9) == format(i << 2, "02x")
    e15 = next(line for line in lines if line.strip().startswith("e15 "))
    assert e15.split()[-1] == "-6"
    e5 = next(line for line in lines if line.strip().startswith("e5 "))
    assert e5.split()[-1] == "3"


@pytest.mark.parametrize(("type_name", "other"), [("e3m2", "e2m3"), ("e2m3", "e3m2")])
def test_text_6bit_bit_names(capsys: pytest.CaptureFixture[str], type_name: str, other: str) -> None:
    chunk = bytes.fromhex("40200c44611c48a22c4ce3fc")  # codes 0..14 and 63
    text = ok(capsys, "decompress", "b6x16_p32", "--type", type_name, "--hex", chunk.hex())
    lines = [line.rstrip() for line in text.splitlines()]
    assert any(PATTERNS[type_name] in line and "6:1" in line for line in lines)
    assert not any(PATTERNS[other] in line for line in lines)
    assert NOTE in lines
    out = oracle_widen(6, chunk + bytes(4))
    assert f"output (16 containers, byte 0 first): {out.hex(' ')}" in lines
    found = rows(text)
    assert sorted(found) == list(range(ELEMENTS))
    codes = [*range(15), 63]
    for i, m in found.items():
        assert m.group(7) == format(codes[i], "06b")
        assert m.group(8) == format(codes[i] << 1, "08b")
    e15 = next(line for line in lines if line.strip().startswith("e15 "))
    assert float(e15.split()[-1]) == {"e3m2": -28.0, "e2m3": -7.5}[type_name]
    e1 = next(line for line in lines if line.strip().startswith("e1 "))
    assert float(e1.split()[-1]) == {"e3m2": 0.0625, "e2m3": 0.125}[type_name]


def test_text_6bit_straddling_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    found = rows(ok(capsys, "decompress", "b6x16_p32"))
    assert found[0].group(4) == "0[5:0]"
    assert found[1].group(4) == "0[7:6]+1[3:0]"
    assert found[2].group(4) == "1[7:4]+2[1:0]"
    assert found[3].group(4) == "2[7:2]"
    assert found[15].group(4) == "11[7:2]"


def test_text_6bit_without_type(capsys: pytest.CaptureFixture[str]) -> None:
    lines = [line.rstrip() for line in ok(capsys, "decompress", "b6x16_p32").splitlines()]
    assert any("0 b5 b4 b3 b2 b1 b0 0" in line for line in lines)
    assert any("--type e3m2" in line and "--type e2m3" in line for line in lines)
    assert NOTE in lines
    assert not any(line.startswith("output (") for line in lines)


@pytest.mark.parametrize("args", [("b4x16_p64",), ("b6x16_p32", "-t", "e3m2"), ("b6x16_p32", "-t", "e2m3")])
def test_text_shows_basis_wherever_container_bits_show(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    lines = [line.rstrip() for line in ok(capsys, "decompress", *args).splitlines()]
    assert lines.count(NOTE) == 1


# --------------------------------------------------------------------------- -o FILE


def test_output_file_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "d.json"
    chunk = bytes(range(16, 32))
    args = ("b6x16_p32", "-t", "e2m3", "--hex", chunk.hex(), "-f", "json", "-o", str(target))
    assert ok(capsys, "decompress", *args) == ""
    record = json.loads(target.read_text())
    assert record["output_hex"] == oracle_widen(6, chunk).hex()
    assert record["basis"] == CONTAINER_BASIS


def test_output_file_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "d.txt"
    codes = ",".join(map(str, range(16)))
    assert ok(capsys, "decompress", "b4x16_p64", "--elements", codes, "-o", str(target)) == ""
    text = target.read_text()
    assert "output (16 containers, byte 0 first): 00 04 08 0c 10 14 18 1c 20 24 28 2c 30 34 38 3c" in text
    assert PATTERNS["e2m1"] in text
    assert NOTE in " ".join(text.split())  # the basis, whatever the line width
    assert "\x1b[" not in text


def test_output_file_basis_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "d.txt"
    ok(capsys, "decompress", "b4x16_p64", "-o", str(target))
    assert NOTE in [line.rstrip() for line in target.read_text().splitlines()]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "args",
    [
        ("b4x16_p32",),  # unknown format
        ("b8x16",),
        ("e2m1",),
        ("b4x16_p64", "--type", "e3m2"),  # wrong type for the width
        ("b4x16_p64", "-t", "e2m3"),
        ("b6x16_p32", "--type", "e2m1"),
        ("b6x16_p32", "-t", "fp6"),
        ("b4x16_p64", "--hex", "10 32 54 76 98 ba dc fe", "--elements", ",".join(["0"] * 16)),
        ("b4x16_p64", "--hex", "10 32 54 76 98 ba dc f"),  # odd nibble count
        ("b4x16_p64", "--hex", "10 32 54 76 98 ba dc fg"),  # non-hex
        ("b4x16_p64", "--hex", "10 32 54 76 98 ba dc"),  # 7 bytes
        ("b6x16_p32", "--hex", "10 32 54 76 98 ba dc fe"),  # 8 bytes for a 12-byte format
        ("b4x16_p64", "--hex", ""),
        ("b4x16_p64", "--elements", ",".join(["0"] * 15)),
        ("b4x16_p64", "--elements", ",".join(["16"] * 16)),
        ("b6x16_p32", "--elements", ",".join(["64"] * 16)),
        ("b6x16_p32", "--elements", ",".join(["x"] * 16)),
        ("b4x16_p64", "--format", "pdf"),
        ("b4x16_p64", "--bogus"),
    ],
)
def test_bad_input(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    bad(capsys, "decompress", *args)


def test_bad_input_with_json_and_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An error leaves no file behind."""
    target = tmp_path / "never.json"
    bad(capsys, "decompress", "b4x16_p64", "-t", "e3m2", "--hex", "00" * 8, "-f", "json", "-o", str(target))
    assert not target.exists()
    bad(capsys, "decompress", "b4x16_p64", "--hex", "00", "-o", str(tmp_path / "missing" / "x.txt"))


def test_missing_format_argument(capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, "decompress")


def test_messages_name_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    assert "e3m2" in bad(capsys, "decompress", "b4x16_p64", "--type", "e3m2")
    assert "b4x16_p32" in bad(capsys, "decompress", "b4x16_p32")
    line = bad(capsys, "decompress", "b4x16_p64", "--hex", "00", "--elements", "0")
    assert "--hex" in line and "--elements" in line
