"""SASS listings explained: each LDTM/STTM/UTCCP/UTC*MMA/UTCBAR/UTCATOMSWS/UTCSHIFT as the record of
the PTX instruction it implements.

The SASS names come from the families' shape files (``sass`` fields; layouts/mma/sass.yaml,
layouts/explain/sass.yaml). Each instruction is rewritten as the PTX statement it implements (the
register vector R<n>..R<n+k-1>, the folded address immediate, the split offset of a 16x32bx2 pair)
and answered by the same :class:`~tmemviz.families.explain.ops.Explainer` as PTX, so both records
come from one piece of family code. What SASS does not show (.sp without a constant idesc, f16 vs
tf32, a dealloc's .cta_group) is said, never guessed.

What a UTC*MMA's idesc register holds comes from a forward data-flow over the function's control-flow
graph (:mod:`tmemviz.sass.flow`): the listing is read once, a function's labels, branches, register
writes and tcgen05 instructions are kept until it ends (no more than
:data:`~tmemviz.sass.flow.MAX_STEPS` at once), then explained in order. Given the PTX the SASS was made
from, an MMA the SASS alone cannot decode takes its kind and idesc from its PTX line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.explain.sass_fields import Tables
from tmemviz.families.explain.sass_ops import SassOps
from tmemviz.families.explain.scan import Function, Module
from tmemviz.sass.flow import CONTROL, MAX_STEPS, Body, facts_at
from tmemviz.sass.line import SassLine, parse_sass
from tmemviz.sass.listing import events
from tmemviz.sass.writes import write_in, write_of

_OPCODE = re.compile(r"\s*/\*[0-9a-fA-F]+\*/\s*(?:@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_]*)")

Lender = Callable[[str | None], "tuple[str, list[dict[str, Any]]] | None"]
"""Function name -> (PTX path, the light records of its PTX function), or None: the PTX to pair with."""


@dataclass
class _State:
    fn: Function
    held: tuple[int, SassLine, tuple[str, int] | None, dict[str, Any]] | None = None
    """A t0_t15 half of a 16x32bx2 waiting for its t16_t31 half (the next tcgen05 instruction)."""


def scan_sass(path: str, lines: Iterable[str], catalog: Catalog, explainer: Any) -> Module:
    """Every tcgen05 instruction of a SASS listing, as records, in listing order."""
    module = Module(path)
    module.instructions.extend(sass_records(module, lines, catalog, explainer))
    return module


def _is_tcgen05(opcode: str) -> bool:
    return opcode in ("LDTM", "STTM") or opcode.startswith("UTC")


class _Reader:
    """One listing's functions, kept one at a time (:class:`~tmemviz.sass.flow.Body`) and explained."""

    def __init__(self, module: Module, ops: SassOps, lender: Lender | None) -> None:
        self.module = module
        self.ops = ops
        self.lender = lender
        self.state = _State(Function(None))
        self.body = Body()
        self.parts = 0
        """Parts of the current function solved before its end (a function past MAX_STEPS)."""

    def code(self, text: str, line: int, source: tuple[str, int] | None) -> None:
        body = self.body
        m = _OPCODE.match(text)
        if m is None:  # Nsight Compute's rows: read whole
            sass = parse_sass(text)
            if sass is None:
                return
            if _is_tcgen05(sass.opcode):
                body.ask((line, sass, source), write_of(sass), sass.address, _reads(sass))
            elif not body.control(sass, text):
                write = write_of(sass)
                if write is not None:
                    body.write(write, sass.address)
            return
        opcode = m.group(1)
        if opcode in CONTROL or _is_tcgen05(opcode):
            sass = parse_sass(text)
            if sass is None:
                return
            if opcode in CONTROL:
                body.control(sass, text)
            else:
                body.ask((line, sass, source), write_of(sass), sass.address, _reads(sass))
        else:
            write = write_in(text)
            if write is not None:
                body.write(write, _address(text))

    def finish(self, last: bool) -> Iterator[dict[str, Any]]:
        """Explain what is kept: the function's end (``last``), or a part of a long one."""
        body, self.body = self.body, Body()
        closed = last and not self.parts
        self.parts = 0 if last else self.parts + 1
        ops, state, module = self.ops, self.state, self.module
        mmas: dict[int, tuple[int, SassLine, Any, dict[str, Any]]] = {}
        for (line, sass, source), facts in facts_at(body, closed=closed):
            state.fn.constants.values = facts
            ops.handle(line, sass, source, state, module)
            if self.lender is not None and sass.opcode.endswith("MMA"):
                mmas[line] = (line, sass, source, dict(facts))
        if last:
            ops.flush(state, module)
        state.fn.constants.values = {}
        records = ops.take()
        if mmas and self.lender is not None:
            self._borrow(records, mmas)
        yield from records

    def _borrow(self, records: list[dict[str, Any]], mmas: dict[int, Any]) -> None:
        """MMAs the SASS alone does not decode take kind and idesc from the PTX line they implement."""
        from tmemviz.families.explain.pairing import lent
        from tmemviz.families.explain.umma import mma

        found = self.lender(self.state.fn.name) if self.lender else None
        if found is None:
            return
        path, ptx = found
        for i, given in lent(records, ptx, path):
            line, sass, _, facts = mmas[records[i]["line"]]
            self.state.fn.constants.values = facts
            before = len(self.module.warnings)
            try:
                record = mma(self.ops, line, sass, self.state, self.module, given)
            except TmemvizError:  # the first explanation stands
                del self.module.warnings[before:]
                continue
            finally:
                self.state.fn.constants.values = {}
            base = {k: records[i][k] for k in ("line", "sass", "function", "address", "source", "guard")
                    if k in records[i]}  # fmt: skip
            records[i] = self.ops.finish(base, record)


def _reads(sass: SassLine) -> tuple[str, ...]:
    """What the flow must know at a tcgen05 instruction: a UTC*MMA's idesc register (and the uniform
    predicate guarding it, under which the register may hold more)."""
    if not sass.opcode.endswith("MMA"):
        return ()
    found = next((o[6:-1] for o in sass.operands if o.startswith("idesc[") and o.endswith("]")), None)
    if found is None:
        return ()
    return (found, sass.guard.lstrip("!")) if sass.guard else (found,)


def _address(text: str) -> int | None:
    """The code offset ``/*0030*/`` a listing line starts with."""
    start = text.find("/*")
    end = text.find("*/", start)
    try:
        return int(text[start + 2 : end], 16) if start >= 0 and end > start else None
    except ValueError:
        return None


def sass_records(
    module: Module,
    lines: Iterable[str],
    catalog: Catalog,
    explainer: Any,
    lender: Lender | None = None,
    observe: Callable[[Any], None] | None = None,
    only: Container[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """The records of a SASS listing, a function's at its end (warnings and target go to ``module``);
    ``observe`` is shown every event of the one read (:mod:`tmemviz.sass.waits` keeps what it needs);
    ``only``: the functions whose instructions are explained (the others' are passed over)."""
    reader = _Reader(module, SassOps(catalog, explainer, Tables.build(catalog)), lender)
    wanted = True
    for event in events(lines):
        if observe is not None:
            observe(event)
        kind = event.kind
        if kind == "code":
            if wanted:
                reader.code(event.value, event.line, event.source)
                if len(reader.body) >= MAX_STEPS:
                    yield from reader.finish(last=False)
        elif kind == "label":
            if wanted:
                reader.body.label(event.value)
        elif kind == "function":
            yield from reader.finish(last=True)
            reader.state = _State(Function(event.value))
            wanted = only is None or event.value in only
        elif kind == "target" and module.target is None:
            module.target = event.value
    yield from reader.finish(last=True)


def dispatch(
    inputs: Sequence[tuple[str, Iterable[str]]],
    explainer: Any,
    ptx_records: Callable[[Module, Iterable[str]], Iterator[dict[str, Any]]],
) -> Iterator[tuple[Module, Iterator[dict[str, Any]]]]:
    """Per input (name, lines): its :class:`Module` and its records as made. A cubin (ELF, by its first
    bytes) goes through nvdisasm, a SASS listing (by its content) through :func:`sass_records`, PTX
    through ``ptx_records``. With several inputs, a SASS module gets ``pairing`` with the PTX module
    given before it that shares its functions (kept meanwhile: a few fields per instruction), and its
    MMAs the PTX's idesc where the SASS alone does not decode it."""
    from tmemviz.families.explain.pairing import lender
    from tmemviz.sass.cubin import cubin_lines, is_elf
    from tmemviz.sass.listing import sniff

    seen: list[tuple[str, list[dict[str, Any]]]] = []
    for name, lines in inputs:
        module = Module(name)
        lend = lender(seen, any_names=len(inputs) == 2) if len(inputs) > 1 else None
        if name != "<text>" and is_elf(name):
            kind, made = "sass", sass_records(module, cubin_lines(name), explainer.catalog, explainer, lend)
        else:
            kind, stream = sniff(lines)
            if kind == "sass":
                made = sass_records(module, stream, explainer.catalog, explainer, lend)
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
