"""Trim a PTX module to its kernel that holds tcgen05 instructions, for a test fixture.

    python benchmarks/corpus_trim.py IN.ptx OUT.ptx

A compiled CUTLASS example is a megabyte of PTX: curand's tables as 460 KB lines, reference kernels, and
assertion messages whose bytes spell the build machine's paths. The fixture keeps the compiler's header
comment, ``.version``/``.target``/``.address_size``, the first ``.entry`` that holds ``tcgen05.``, and the
module-scope declarations that entry names (transitively), each ``.global``/``.const`` declared without
its initializer. Nothing else is edited: the kept lines are the compiler's, in its order.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

NAME = re.compile(r"[A-Za-z_$%][\w$]*")
HEADER = re.compile(r"^\s*\.(version|target|address_size)\b")


def items(lines: list[str]) -> list[list[str]]:
    """The module's top-level items: a declaration up to its ';', a function up to its closing brace."""
    out: list[list[str]] = []
    item: list[str] = []
    depth = 0
    for line in lines:
        if not item and not line.strip():
            continue
        item.append(line)
        code = line.split("//", 1)[0]
        depth += code.count("{") - code.count("}")
        stripped = code.strip()
        if depth == 0 and (stripped.endswith(";") or stripped == "}" or HEADER.match(line) or not stripped):
            out.append(item)
            item = []
    if item:
        out.append(item)
    return out


def declared_name(item: list[str]) -> str | None:
    """The symbol a module-scope declaration or function declares."""
    text = " ".join(line.split("//", 1)[0].strip() for line in item)
    if not text.startswith("."):
        return None
    found = re.search(r"\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([\w$]+)", text)
    if found:
        return found.group(1)
    found = re.search(r"([\w$]+)\s*(?:\[[^\]]*\])?\s*(?:=.*)?;\s*$", text)
    return found.group(1) if found else None


def without_initializer(item: list[str]) -> list[str]:
    if len(item) == 1 and re.match(r"^\s*(?:\.\w+\s+)*\.(?:global|const)\b", item[0]) and "=" in item[0]:
        return [item[0].split("=", 1)[0].rstrip() + ";\n"]
    return item


def trim(text: str) -> str:
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//"))
    head, parts = lines[:first], items(lines[first:])
    entry = next(
        p for p in parts if any(".entry" in line for line in p) and any("tcgen05." in line for line in p)
    )
    names = {declared_name(p): p for p in parts if p is not entry and declared_name(p)}
    keep = {id(entry)}
    todo = [entry]
    while todo:
        for name in set(NAME.findall("".join(todo.pop()))):
            part = names.get(name)
            if part is not None and id(part) not in keep:
                keep.add(id(part))
                todo.append(part)
    out = list(head)
    for n, part in enumerate(parts):
        if part is entry and n and out[-1].strip():
            out.append("\n")  # the entry set apart, as the compiler writes it
        if HEADER.match(part[0]) or id(part) in keep:
            out.extend(part if part is entry else without_initializer(part))
    return "".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: corpus_trim.py IN.ptx OUT.ptx", file=sys.stderr)
        return 2
    Path(argv[1]).write_text(trim(Path(argv[0]).read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
