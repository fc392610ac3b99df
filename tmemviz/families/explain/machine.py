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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.families.explain.sass_fields import Tables
from tmemviz.families.explain.sass_ops import SassOps
from tmemviz.families.explain.scan import Function, Module
from tmemviz.ptx.constants import const
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
                state.fn.constants.values.clear()
            if not text.lstrip().startswith("/*"):
                # Nsight Compute's rows (no /*offset*/): read whole, constants kept the same way.
                _other_format(text, state)
            elif state.targets and state.fn.constants.values:
                m = _ADDRESS.match(text)
                if m and int(m.group(1), 16) in state.targets:
                    state.fn.constants.values.clear()
            if "UR" in text and text.lstrip().startswith("/*"):
                if "UMOV" in text:
                    m = _UMOV.search(text)
                    if m and "@" in text[: m.start()]:
                        _forget(state.fn, m.group(1), "")  # a guarded move: maybe not made
                        continue
                    if m:
                        value = m.group(2)
                        number = int(value, 16) if value[:2] in ("0x", "0X") else int(value)
                        state.fn.constants.values[m.group(1)] = const(number & 0xFFFFFFFF)
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
            state.fn.constants.values.clear()  # a join point: a constant seen above may not reach here
        elif event.kind == "target" and module.target is None:
            module.target = event.value
    ops.flush(state, module)
    yield from ops.take()


def _other_format(text: str, state: _State) -> None:
    """The constant bookkeeping of the fast path, for a line that is not nvdisasm's or cuobjdump's."""
    sass = parse_sass(text)
    if sass is None:
        return
    if sass.address is not None and sass.address in state.targets:
        state.fn.constants.values.clear()
    ops = sass.operands
    if not ops or not ops[0].startswith("UR") or not ops[0][2:].isdigit() or sass.opcode.startswith("UTC"):
        return
    if (
        sass.opcode == "UMOV"
        and not sass.guard
        and not sass.modifiers
        and len(ops) == 2
        and re.fullmatch(r"0x[0-9a-fA-F]+|\d+", ops[1])
    ):
        number = int(ops[1], 16) if ops[1][:2] == "0x" else int(ops[1])
        state.fn.constants.values[ops[0]] = const(number & 0xFFFFFFFF)
    else:
        _forget(state.fn, ops[0], "." + ".".join(sass.modifiers))


def _forget(fn: Function, register: str, modifiers: str) -> None:
    """An instruction wrote ``register`` (two for .64 and .WIDE, four for .128): its constant is gone."""
    count = 4 if ".128" in modifiers else 2 if (".64" in modifiers or ".WIDE" in modifiers) else 1
    first = int(register[2:])
    for k in range(count):
        fn.constants.values.pop(f"UR{first + k}", None)


def dispatch(
    inputs: Sequence[tuple[str, Iterable[str]]],
    explainer: Any,
    ptx_records: Callable[[Module, Iterable[str]], Iterator[dict[str, Any]]],
) -> Iterator[tuple[Module, Iterator[dict[str, Any]]]]:
    """Per input (name, lines): its :class:`Module` and its records as made. A cubin (ELF, by its first
    bytes) goes through nvdisasm, a SASS listing (by its content) through :func:`sass_records`, PTX
    through ``ptx_records``. With several inputs, a SASS module gets ``pairing`` with the PTX module
    given before it that shares its functions (kept meanwhile: a few fields per instruction)."""
    from tmemviz.sass.cubin import cubin_lines, is_elf
    from tmemviz.sass.listing import sniff

    seen: list[tuple[str, list[dict[str, Any]]]] = []
    for name, lines in inputs:
        module = Module(name)
        if name != "<text>" and is_elf(name):
            kind, made = "sass", sass_records(module, cubin_lines(name), explainer.catalog, explainer)
        else:
            kind, stream = sniff(lines)
            if kind == "sass":
                made = sass_records(module, stream, explainer.catalog, explainer)
            else:
                made = ptx_records(module, stream)
        module.language = kind  # type: ignore[attr-defined]
        yield module, _tracked(module, made, seen, len(inputs)) if len(inputs) > 1 else made


def _tracked(
    module: Module, made: Iterator[dict[str, Any]], seen: list[tuple[str, list[dict[str, Any]]]], inputs: int
) -> Iterator[dict[str, Any]]:
    """The records, passed on; what pairing needs of each is kept, and a SASS module paired at the end."""
    from tmemviz.families.explain.pairing import light, pairing_for

    kept: list[dict[str, Any]] = []
    for record in made:
        kept.append(light(record))
        yield record
    if module.language == "sass":  # type: ignore[attr-defined]
        found = pairing_for(kept, seen, any_names=inputs == 2)
        if found is not None:
            module.pairing = found  # type: ignore[attr-defined]
    else:
        seen.append((module.path, kept))
