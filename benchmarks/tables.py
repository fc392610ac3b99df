"""The docs' benchmark numbers, from ``benchmarks/results/*.json``: rewritten in place, or checked.

Usage: python benchmarks/tables.py [--check]

Two kinds of places in README.md, docs/*.md and benchmarks/README.md quote the data:

* a number (or a word such as ``met``) right after ``<!-- bench:NAME.KEY -->``; several keys
  (``<!-- bench:a,b -->0.3-0.8 s``) take the numbers that follow, in order. The number is written
  with the precision and unit it has in the text (``83 KB`` for a value in bytes, ``240 ms`` for one in
  seconds); a number with trailing zeros (``25,700``) is rounded to them;
* a table between ``<!-- bench-table:NAME -->`` and ``<!-- /bench-table -->``, made whole from the
  data by :data:`TABLES`.

Without options the files are rewritten from the data (every benchmark's ``--record`` does this too);
``--check`` only lists what disagrees (a quoted number further from its value than the larger of the
data's noise and the text's rounding, a key or data file that is missing, a table that is not what the
data makes) and exits 1 if anything does. tests/test_numbers.py runs the same check.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import REPO, RESULTS, load, lookup

PAGES = ("README.md", "docs/*.md", "benchmarks/README.md")
MARK = re.compile(r"(?<!`)<!-- bench:(?P<keys>[\w.,-]+) -->")  # not in a code span
VALUE = re.compile(r"\*{0,2}(?:(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?) ?(?P<unit>ms|s|KB|MB|GB|x)?"
                   r"(?!\w)|(?P<word>[A-Za-z]+))")  # fmt: skip
GAP = re.compile(r"[^\d<\n]{0,14}?(?=\d)")  # between the numbers of one marker: "-", "x to ", " s, "
TABLE = re.compile(r"(<!-- bench-table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /bench-table -->)",
                   re.DOTALL)  # fmt: skip
KIB = 1024
SCALE = {  # (data unit, text unit) -> the text's number times this is in the data's unit
    ("bytes", "KB"): KIB, ("bytes", "MB"): KIB**2, ("bytes", "GB"): KIB**3, ("MB", "GB"): KIB,
    ("s", "ms"): 1e-3, ("s wall", "ms"): 1e-3, ("ms wall", "s"): 1e3,
}  # fmt: skip


def pages(root: Path = REPO) -> list[Path]:
    return [p for pattern in PAGES for p in sorted(root.glob(pattern))]


def _scale(unit: str, text_unit: str | None) -> float:
    return SCALE.get((unit, text_unit or ""), 1.0)


def _step(literal: str) -> float:
    """The rounding step of a number as written: 0.1 for 1.4, 100 for 25,700, 1 for 6."""
    digits = literal.replace(",", "")
    if "." in digits:
        return 10.0 ** -len(digits.split(".")[1])
    zeros = len(digits) - len(digits.rstrip("0"))
    return 10.0 ** min(zeros, max(len(digits) - 2, 0))


def _format(value: float, literal: str) -> str:
    """``value`` written as ``literal`` is: the same decimals, separators and rounding."""
    step = _step(literal)
    if step < 1:
        decimals = len(literal.split(".")[1])
        return f"{value:,.{decimals}f}" if "," in literal else f"{value:.{decimals}f}"
    rounded = int(round(value / step) * step)
    return f"{rounded:,}" if "," in literal or (rounded >= 10_000 and step > 1) else str(rounded)


def _values(text: str, start: int, count: int) -> list[re.Match[str]] | None:
    """The ``count`` values after position ``start``: the first right there, the others a short gap on."""
    found = []
    at = start
    for i in range(count):
        if i:
            gap = GAP.match(text, at)
            if gap is None:
                return None
            at = gap.end()
        m = VALUE.match(text, at)
        if not m or not (m.group("num") or m.group("word")):
            return None
        found.append(m)
        at = m.end()
    return found


def quotes(text: str) -> list[tuple[str, re.Match[str] | None, int]]:
    """Every marked quote of ``text``: (key, the value's match or None, the marker's line)."""
    out: list[tuple[str, re.Match[str] | None, int]] = []
    for mark in MARK.finditer(text):
        keys = mark.group("keys").split(",")
        line = text.count("\n", 0, mark.start()) + 1
        values = _values(text, mark.end(), len(keys))
        for i, key in enumerate(keys):
            out.append((key, values[i] if values else None, line))
    return out


def disagreement(key: str, m: re.Match[str] | None, where: Path) -> str | None:
    """Why the quote ``m`` of ``key`` disagrees with the data, or None."""
    try:
        entry = lookup(key, where)
    except KeyError as missing:
        return str(missing.args[0])
    if m is None:
        return f"{key}: no value right after the marker"
    value = entry["value"]
    if isinstance(value, str):
        shown = m.group("word") or m.group("num")
        return None if shown == value else f"{key}: the text says {shown!r}, the data {value!r}"
    if m.group("num") is None:
        return f"{key}: the text has {m.group('word')!r} where the data has the number {value}"
    assert isinstance(value, (int, float))
    unit = str(entry["unit"])
    scale = _scale(unit, m.group("unit"))
    shown = float(m.group("num").replace(",", "")) * scale
    allowed = max(float(entry["noise"]) * abs(value), _step(m.group("num")) * scale / 2) * (1 + 1e-9)
    if abs(shown - value) > allowed:
        when = entry.get("measured") or load(key.split(".")[0], where)["date"]
        shown_text = m.group(0).strip("*")
        return f"{key}: the text says {shown_text}, the data {value} {unit} (noise {entry['noise']}, {when})"
    return None


def rewrite_quotes(text: str, where: Path) -> str:
    """``text`` with every marked number written from the data."""
    pieces = []
    at = 0
    for mark in MARK.finditer(text):
        keys = mark.group("keys").split(",")
        values = _values(text, mark.end(), len(keys))
        if values is None:
            continue
        for key, m in zip(keys, values, strict=True):
            try:
                entry = lookup(key, where)
            except KeyError:
                continue
            value = entry["value"]
            group = "word" if isinstance(value, str) or m.group("num") is None else "num"
            if isinstance(value, str):
                new = value
            else:
                new = _format(float(value) / _scale(str(entry["unit"]), m.group("unit")), m.group("num"))
            pieces += [text[at : m.start(group)], new]
            at = m.end(group)
    return "".join(pieces) + text[at:]


def _kb(n: float) -> str:
    return f"{n / KIB:,.0f} KB" if n < KIB**2 else f"{n / KIB**2:,.1f} MB"


def _results(name: str, where: Path) -> dict[str, dict[str, object]]:
    results = load(name, where)["results"]
    assert isinstance(results, dict)
    return results


def _columns(*names: str) -> list[str]:
    """A markdown table's heading and separator lines."""
    return [f"| {' | '.join(names)} |", "|" + "---|" * len(names)]


def _header(name: str, where: Path, *columns: str) -> list[str]:
    """Where and when the data was measured, then the table's heading (``columns``)."""
    data = load(name, where)
    machine, tools, conditions = data["machine"], data["tools"], data["conditions"]
    assert isinstance(machine, dict) and isinstance(tools, dict) and isinstance(conditions, dict)
    return [
        f"`{data['command']}`, {str(data['date'])[:10]}, tmemviz {tools['tmemviz']} at {tools['commit']}: "
        f"{machine['cores']} cores ({machine['cpu']}), Python {machine['python']}, load average "
        f"{conditions['load_average_before']} before and {conditions['load_average_after']} after.",
        "",
        *_columns(*columns),
    ]


def _rows(results: dict[str, dict[str, object]], prefix: str) -> list[str]:
    """The row names under ``prefix`` (``fixtures.`` -> ``cute_dsl_gemm``), in the data's order."""
    names: list[str] = []
    for key in results:
        if key.startswith(prefix):
            row = key[len(prefix) :].rsplit(".", 1)[0].split(".findings")[0]
            if row not in names:
                names.append(row)
    return names


def _v(results: dict[str, dict[str, object]], key: str) -> float:
    value = results[key]["value"]
    assert isinstance(value, (int, float))
    return float(value)


def figures_table(where: Path) -> list[str]:
    r = _results("figures", where)
    lines = _header("figures", where, "figure", "format", "size", "wall s", "CPU s", "peak MB")
    for row in _rows(r, ""):
        if row.startswith(("target", "gallery")) or not row.endswith(("png", "svg", "html")):
            continue
        fmt = row.rsplit(".", 1)[1]
        command = str(r[row + ".bytes"]["what"]).removeprefix("size of tmemviz ").rsplit(" -o ", 1)[0]
        name = f"`{command}`"
        lines.append(f"| {name} | {fmt.upper()} | {_kb(_v(r, row + '.bytes'))} | {_v(r, row + '.s'):.2f} | "
                     f"{_v(r, row + '.cpu_s'):.2f} | {_v(r, row + '.peak_mb'):.0f} |")  # fmt: skip
    twice = ", byte-identical twice." if r.get("gallery.identical", {}).get("value") == "yes" else "."
    gallery = (f"Gallery: {_v(r, 'gallery.files'):.0f} files, {_v(r, 'gallery.bytes') / KIB**2:.1f} MB, "
               f"largest {_kb(_v(r, 'gallery.largest_bytes'))}, {_v(r, 'gallery.cpu_s'):.1f} s CPU "
               f"({_v(r, 'gallery.s'):.1f} s wall), peak {_v(r, 'gallery.peak_mb'):.0f} MB")  # fmt: skip
    lines += ["", gallery + twice]
    return lines


def cli_table(where: Path) -> list[str]:
    r = _results("cli_latency", where)
    lines = _header("cli_latency", where, "command", "median ms", "x floor")
    for row in _rows(r, ""):
        if f"{row}.ms" in r and row not in ("catalog", "layouts", "copies"):
            ratio = f"{_v(r, row + '.ratio'):.2f}x" if f"{row}.ratio" in r else "-"
            lines.append(f"| {row} | {_v(r, row + '.ms'):.0f} | {ratio} |")
    lines += ["", f"`which --batch` of 10,000 lines: {_v(r, 'batch.s'):.2f} s ({_v(r, 'batch.rate'):,.0f} "
              f"answers/s); in-process: catalog {_v(r, 'catalog.ms'):.0f} ms, all "
              f"{_v(r, 'layouts.count'):.0f} layouts {_v(r, 'layouts.ms'):.0f} ms, all "
              f"{_v(r, 'copies.count'):.0f} cp copies {_v(r, 'copies.ms'):.0f} ms (medians)."]  # fmt: skip
    return lines


def explain_table(where: Path) -> list[str]:
    r = _results("explain", where)
    return [*_header("explain", where, "module", "CPU s", "peak MB", "note"),
            f"| 1,000,000 lines without tcgen05 | {_v(r, 'plain.cpu_s'):.2f} | | |",
            f"| 200 Triton kernels ({_v(r, 'kernels.lines'):,.0f} lines) | {_v(r, 'kernels.cpu_s'):.2f} | | "
            f"{_v(r, 'kernels.cells'):,.0f} register cells |",
            f"| corpus of every compiler's fixture ({_v(r, 'corpus.lines'):,.0f} lines, "
            f"{_v(r, 'corpus.tcgen05'):,.0f} tcgen05) | {_v(r, 'corpus.cpu_s'):.2f} | | "
            f"{_v(r, 'corpus.ratio'):.1f}x the regex scan's {_v(r, 'corpus.regex_s'):.2f} s; "
            f"{_v(r, 'corpus.json_bytes') / KIB**2:.0f} MB of JSON |",
            f"| dense: 1,000,000 lines, {_v(r, 'dense.tcgen05'):,.0f} tcgen05 | {_v(r, 'dense.cpu_s'):.2f} | "
            f"{_v(r, 'dense.peak_mb'):.0f} | {_v(r, 'dense.json_bytes') / KIB**2:.0f} MB of JSON |",
            f"| one function of 1,000,000 lines | {_v(r, 'long.cpu_s'):.2f} | {_v(r, 'long.peak_mb'):.0f} "
            "| |"]  # fmt: skip


def check_table(where: Path) -> list[str]:
    r = _results("check", where)
    lines = _header(
        "check", where, "kernel", "lines", "explain s", "check s", "ratio", "check MB", "errors", "warnings",
        "notes",
    )  # fmt: skip
    for prefix in ("fixtures.", "corpus."):
        for row in _rows(r, prefix):
            k = prefix + row
            measured = r[k + ".ratio"].get("measured")
            lines.append(
                f"| {row.replace('.', '/')}{' (' + str(measured) + ')' if measured else ''} | "
                f"{_v(r, k + '.lines'):,.0f} | {_v(r, k + '.explain_cpu_s'):.2f} | "
                f"{_v(r, k + '.check_cpu_s'):.2f} | {_v(r, k + '.ratio'):.1f}x | "
                f"{_v(r, k + '.check_peak_mb'):.0f} | "
                + " | ".join(f"{_v(r, f'{k}.findings.{s}'):.0f}" for s in ("error", "warning", "note")) + " |"
            )  # fmt: skip
    return lines


def projects_table(where: Path) -> list[str]:
    """check's findings on the corpus: a row per project, CUTLASS's examples a row per module."""
    r = _results("check", where)
    lines = _columns("project", "PTX", "errors", "warnings", "wait-ld warnings", "wait-ld notes")

    def n(key: str) -> str:
        return f"{_v(r, key):.0f}" if key in r else "0"

    for row in _rows(r, "project."):
        k = f"project.{row}"
        if row.count(".") or f"{k}.ptx" not in r:
            continue
        name = str(r[k + ".ptx"]["what"]).split(" in the corpus")[0]
        if row == "cutlass_c_examples":  # a row per module: their findings differ in kind
            for kernel in _rows(r, "corpus.cutlass."):
                f = f"corpus.cutlass.{kernel}.findings"
                lines.append(f"| {name}: {kernel} | 1 | {n(f + '.error')} | {n(f + '.warning')} | "
                             f"{n(f + '.warning.wait-ld')} | {n(f + '.note.wait-ld')} |")  # fmt: skip
            continue
        lines.append(f"| {name} | {n(k + '.ptx')} | {n(k + '.error')} | {n(k + '.warning')} | "
                     f"{n(k + '.warning.wait-ld')} | {n(k + '.note.wait-ld')} |")  # fmt: skip
    return lines


def sass_table(where: Path) -> list[str]:
    r = _results("sass", where)
    lines = _header("sass", where, "cubin", "bytes", "nvdisasm CPU s", "explain CPU s", "ratio")
    for row in _rows(r, ""):
        if f"{row}.nvdisasm_cpu_s" in r:
            measured = r[row + ".ratio"].get("measured")
            when = f" ({measured})" if measured else ""
            size = _v(r, row + ".bytes") if f"{row}.bytes" in r else _v(r, row + ".cubin_bytes")
            lines.append(f"| {row}{when} | {size:,.0f} | "
                         f"{_v(r, row + '.nvdisasm_cpu_s'):.2f} | {_v(r, row + '.explain_cpu_s'):.2f} | "
                         f"{_v(r, row + '.ratio'):.2f}x |")  # fmt: skip
    return lines


def hostile_table(where: Path) -> list[str]:
    r = _results("hostile", where)
    lines = _header("hostile", where, "case", "exit", "wall s", "CPU s", "peak MB")
    for row in _rows(r, ""):
        if f"{row}.exit" in r:
            case = str(r[row + ".exit"]["what"]).rsplit(":", 1)[0]
            cells = [
                format(_v(r, f"{row}.{key}"), spec)
                for key, spec in (("exit", ".0f"), ("s", ".2f"), ("cpu_s", ".2f"), ("peak_mb", ".0f"))
            ]
            lines.append(f"| {case} | {' | '.join(cells)} |")
    return lines


TABLES: dict[str, Callable[[Path], list[str]]] = {
    "cli_latency": cli_table, "figures": figures_table, "explain": explain_table, "check": check_table,
    "check-projects": projects_table, "sass": sass_table, "hostile": hostile_table,
}  # fmt: skip


def rewrite_tables(text: str, where: Path) -> str:
    def made(m: re.Match[str]) -> str:
        if m.group("name") not in TABLES:
            return m.group(0)
        try:
            return m.group(1) + "\n".join(TABLES[m.group("name")](where)) + "\n" + m.group(4)
        except (FileNotFoundError, KeyError):
            return m.group(0)  # the data is not there (yet): problems() says so

    return TABLE.sub(made, text)


def problems(text: str, where: Path = RESULTS) -> list[str]:
    """What in ``text`` disagrees with the data in ``where``: one line each, with the line number."""
    found = [f"line {line}: {why}" for key, m, line in quotes(text) if (why := disagreement(key, m, where))]
    for m in TABLE.finditer(text):
        name = m.group("name")
        line = text.count("\n", 0, m.start()) + 1
        if name not in TABLES:
            found.append(f"line {line}: no table {name!r} (tables.py makes {', '.join(TABLES)})")
            continue
        try:
            want = "\n".join(TABLES[name](where)) + "\n"
        except FileNotFoundError as missing:
            data = Path(str(missing.filename)).name
            found.append(f"line {line}: table {name}: no data file benchmarks/results/{data}")
            continue
        except KeyError as missing:
            found.append(f"line {line}: table {name}: the data has no result {missing}")
            continue
        if m.group("body") != want:
            found.append(f"line {line}: table {name} is not what `python benchmarks/tables.py` makes of it")
    return found


def update(write: bool = True) -> int:
    """Rewrite every page from the data (unless ``write`` is false); print what still disagrees and
    return how many quotes do."""
    bad = 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        if write:
            new = rewrite_tables(rewrite_quotes(text, RESULTS), RESULTS)
            if new != text:
                page.write_text(new, encoding="utf-8")
                print(f"rewrote {page.relative_to(REPO)}: read the sentences around the numbers that moved")
                text = new
        for why in problems(text):
            print(f"{page.relative_to(REPO)}: {why}")
            bad += 1
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only list what disagrees; exit 1 if anything")
    return 1 if update(write=not parser.parse_args().check) else 0


if __name__ == "__main__":
    sys.exit(main())
