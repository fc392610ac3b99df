"""SASS listings explained: each LDTM/STTM/UTCCP/UTC*MMA/UTCBAR/UTCATOMSWS/UTCSHIFT as the record of
the PTX instruction it implements.

The SASS names come from the families' shape files (``sass`` fields; layouts/mma/sass.yaml,
layouts/explain/sass.yaml). Each instruction is rewritten as the PTX statement it implements (the
register vector R<n>..R<n+k-1>, the folded address immediate, the split offset of a 16x32bx2 pair)
and answered by the same :class:`~tmemviz.families.explain.ops.Explainer` as PTX, so both records
come from one piece of family code. What SASS does not show (.sp without a constant idesc, f16 vs
tf32, a dealloc's .cta_group) is said, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.families.explain.sass_fields import Tables
from tmemviz.families.explain.sass_ops import SassOps
from tmemviz.families.explain.scan import Function, Module
from tmemviz.sass.line import SassLine, parse_sass
from tmemviz.sass.listing import events

_WRITES_UR = re.compile(r"^\s*(?:/\*\w+\*/)?\s*(?:@!?U?P\w+\s+)?[A-Z][A-Z0-9_]*(\.[\w.]+)?\s+(UR\d+)\b")
_UMOV = re.compile(r"\bUMOV\s+(UR\d+)\s*,\s*(0x[0-9a-fA-F]+|\d+)\s*;")
_WANTED = ("TM", "UTC")
_ADDRESS = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/")
_BRANCH = re.compile(r"\bBRA(?:\.\w+)*\s+(?:!?U?P\w+\s*,\s*)?(0x[0-9a-fA-F]+)")


@dataclass
class _State:
    fn: Function
    targets: set[int] = field(default_factory=set)
    """Branch targets ahead (cuobjdump prints ``BRA 0x1e0``, no labels): a join point clears constants."""
    held: tuple[int, SassLine, tuple[str, int] | None, dict[str, Any]] | None = None
    """A t0_t15 half of a 16x32bx2 waiting for its t16_t31 half (the next tcgen05 instruction)."""


def scan_sass(path: str, lines: Iterable[str], catalog: Catalog, explainer: Any) -> Module:
    """Every tcgen05 instruction of a SASS listing, as records, in listing order."""
    module = Module(path)
    module.instructions.extend(sass_records(module, lines, catalog, explainer))
    return module


def sass_records(
    module: Module, lines: Iterable[str], catalog: Catalog, explainer: Any
) -> Iterator[dict[str, Any]]:
    """The records of a SASS listing as they are made (warnings and target go to ``module``)."""
    ops = SassOps(catalog, explainer, Tables.build(catalog))
    state = _State(Function(None))
    for event in events(lines):
        yield from ops.take()
        if event.kind == "code":
            text = event.value
            if "BRA" in text:
                m = _BRANCH.search(text)
                if m:
                    state.targets.add(int(m.group(1), 16))
                state.fn.movs.clear()
            if state.targets and state.fn.movs:
                m = _ADDRESS.match(text)
                if m and int(m.group(1), 16) in state.targets:
                    state.fn.movs.clear()
            if "UR" in text:
                if "UMOV" in text:
                    m = _UMOV.search(text)
                    if m:
                        value = m.group(2)
                        number = int(value, 16) if value[:2] in ("0x", "0X") else int(value)
                        state.fn.movs[m.group(1)] = number & 0xFFFFFFFF
                        continue
                m = _WRITES_UR.match(text)
                if m and not any(w in text for w in _WANTED):
                    _forget(state.fn, m.group(2), m.group(1) or "")
            if not any(w in text for w in _WANTED):
                continue
            sass = parse_sass(text)
            if sass is None:
                continue
            if sass.opcode == "UTCATOMSWS":
                for operand in sass.operands:  # the allocated address comes back in a uniform register
                    if operand.startswith("UR") and operand[2:].isdigit():
                        _forget(state.fn, operand, "")
            ops.handle(event.line, sass, event.source, state, module)
        elif event.kind == "function":
            ops.flush(state, module)
            state = _State(Function(event.value))
        elif event.kind == "label":
            ops.flush(state, module)
            state.fn.movs.clear()  # a join point: a constant seen above may not reach here
        elif event.kind == "target" and module.target is None:
            module.target = event.value
    ops.flush(state, module)
    yield from ops.take()


def _forget(fn: Function, register: str, modifiers: str) -> None:
    """An instruction wrote ``register`` (two or four of them for .64/.128): its constant is gone."""
    count = 4 if ".128" in modifiers else 2 if ".64" in modifiers else 1
    first = int(register[2:])
    for k in range(count):
        fn.movs.pop(f"UR{first + k}", None)


def read_module(path: str, lines: Iterable[str] | None, catalog: Catalog, explainer: Any) -> Module:
    """One input explained: a cubin (ELF, through nvdisasm), a SASS listing or PTX, told by content.

    ``lines`` given: text already in hand (``--text``); else the file ``path`` (``-`` is stdin).
    """
    from tmemviz.families.explain.scan import scan
    from tmemviz.files import text_lines
    from tmemviz.sass.cubin import cubin_lines, is_elf
    from tmemviz.sass.listing import sniff

    if lines is None and is_elf(path):
        module = scan_sass(path, cubin_lines(path), catalog, explainer)
        module.language = "sass"  # type: ignore[attr-defined]
        return module
    kind, stream = sniff(text_lines(path) if lines is None else lines)
    module = scan_sass(path, stream, catalog, explainer) if kind == "sass" else scan(path, stream, explainer)
    module.language = kind  # type: ignore[attr-defined]
    return module
