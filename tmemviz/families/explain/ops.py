"""What one tcgen05 statement does, as a record, in the words the other families use.

Each ``_op`` function takes the parsed line and returns the op-specific fields; problems it finds
are warnings (line-numbered) on the module, never exceptions: a kernel is explained as far as it can be.
"""

from __future__ import annotations

import re
from json.encoder import encode_basestring_ascii
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.explain import answers
from tmemviz.families.explain.memo import CellSet, Known, LazyCells, Made, Memo, remember
from tmemviz.families.explain.mma_operands import mma_a, mma_meta, mma_scales, mma_update
from tmemviz.families.explain.scan import Function, Module, Warning
from tmemviz.families.explain.short_ops import alloc, commit, fence, shift, wait
from tmemviz.ptx.line import PtxLine
from tmemviz.ptx.names import is_name
from tmemviz.ptx.targets import runs_ld_red

OPS = (
    "alloc",
    "dealloc",
    "relinquish_alloc_permit",
    "ld",
    "st",
    "wait",
    "cp",
    "shift",
    "mma",
    "commit",
    "fence",
)
CACHED_CHARS = 1 << 25
"""Cells JSON kept for repeats (32 Mi characters): memory stays bounded whatever the module (memo.py
bounds the records it remembers the same way)."""
_CTA = re.compile(r"cta_group::([12])")


class Explainer:
    """Explains statements of one run; caches each distinct ld/st layout (kernels repeat them)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.layouts: dict[tuple[Any, ...], Any] = {}
        self.choices: dict[tuple[Any, ...], Any] = {}
        self.lazy_cells = False
        """Records hold :class:`LazyCells` instead of cell dicts (the streamed JSON writes them from
        :meth:`cells_json`'s per-layout template: kernels repeat the same layout with other registers)."""
        self.shared = False
        """Records are written as they are made and dropped, none changed nor kept (``explain -f json`` of a
        PTX module, :mod:`~tmemviz.families.explain.stream`): a repeat's record is then its statement's one
        scratch dict, its head set in place (no copy, no check that it is unchanged)."""
        self.cell_sets: dict[tuple[Any, ...], CellSet] = {}
        """An ld/st's cells by what decides them (shape, .num, packing, origin, accesses): statements that
        differ in their base register only (an FMHA's loads from four buffers) share them."""
        self.texts: dict[LazyCells, str] = {}
        """Cells JSON already written, by layout and register names: a kernel repeats an instruction
        (unrolled loops, inlined helpers) with the same registers; at most :data:`CACHED_CHARS` kept."""
        self._cached = 0
        self.memo = Memo()
        """Per distinct statement: what it needs, and its records made so far (memo.py)."""
        self.last: dict[str, Any] | None = None
        self.last_made: Made | None = None
        """The record just made, and its :class:`Made` (what :meth:`text_of` writes it from)."""

    def preview(self, cells: LazyCells, count: int) -> tuple[list[dict[str, Any]], int]:
        """The first ``count`` cells of thread 0 (what the table shows) and how many thread 0 has."""
        ins, cell_set, _ = self.layouts[cells.key]
        first = [c for c in cell_set.cells if c.thread == 0]
        return answers.cell_records(first[:count], cells.names, ins.pack), len(first)

    def cells_json(self, cells: LazyCells, keep: bool = True) -> str:
        """The JSON text of one ld/st's cells, exactly as ``json.dumps`` of :func:`answers.cell_records`;
        ``keep``: remembered for a repeat (memo.py remembers its own)."""
        import json

        text = self.texts.get(cells)
        if text is not None:
            return text
        ins, cell_set, _ = self.layouts[cells.key]
        count = ins.registers_per_thread
        template = cell_set.template
        if template is None:
            template = cell_set.template = answers.cells_template(cell_set.cells, count, ins.pack)
        names = [json.dumps(n) for n in cells.names or ()]
        text = template.format(*names, *["null"] * (count - len(names)))
        if keep and self._cached + len(text) <= CACHED_CHARS:
            self.texts[cells] = text
            self._cached += len(text)
        return text

    def footprint(self, line: PtxLine) -> tuple[str | None, frozenset[tuple[int, int]]] | None:
        """The cells (lane, column relative to the base register) a tcgen05.ld/st touches, for check's
        places (follow/places.py); None when the line is not one tmemviz explained."""
        seen = self.memo.footprints.get(id(line))  # the reader shares one parsed line per text
        if seen is not None and seen[0] is line:
            return seen[1]
        known = self.layouts.get(_layout_key(line))
        if known is None:
            return None  # not explained (yet): not remembered
        _, cell_set, address = known
        spots = cell_set.spots
        if spots is None:
            spots = cell_set.spots = frozenset((c.lane, c.col) for c in cell_set.cells)
        where = (address.base if address else None), spots
        self.memo.footprint(line, where)
        return where

    def __call__(
        self, line: int, statement: str, parsed: PtxLine, fn: Function, module: Module
    ) -> dict[str, Any] | None:
        # What this statement made before (memo.py), for the value of the one register constant its
        # record depends on: asked once per statement.
        seen = self.memo.lines.get(id(parsed))
        known = seen[1] if seen is not None and seen[0] is parsed else None
        if known is None or known.target != module.target or known.lazy is not self.lazy_cells:
            known = self.memo.known(parsed, module.target, self.lazy_cells)
        if known.tokens is None:
            return None  # a name that merely contains tcgen05 (a label, a comment-like token)
        value = None if known.operand is None else fn.constants.get(known.operand)
        key = value
        if known.bases:  # a block-scaled MMA: its scale-factor addresses' registers say their bytes
            key = (value, tuple(() if b is None else fn.constants.get(b) for b in known.bases))
        try:
            made = known.made.get(key)
            keep = True
        except TypeError:  # a value that cannot be a key (a Value is a tuple): answered afresh
            made, keep = None, False
        if made is None:
            start = len(module.warnings)
            record = self._answer(line, statement, parsed, fn.name, module, known, key)
            new = module.warnings[start:]
            if keep and all(w.line == line for w in new):
                made = remember(record, tuple(w.message for w in new))
                if made is not None:  # handed out as a copy too: the first record shares nothing either
                    self.memo.add(known, key, made)
                    record = made.record(line, statement, fn.name)
        else:  # a repeat: a fresh copy of what the statement made (or its scratch), its warnings here
            record = (
                made.record(line, statement, fn.name)
                if not self.shared
                else self._scratch(made, line, statement, fn.name)
            )
            if made.messages:
                for message in made.messages:
                    module.warnings.append(Warning(line, message))
        self.last, self.last_made = record, made
        return record

    def text_of(self, record: dict[str, Any]) -> tuple[bytes, bytes] | None:
        """The JSON text of ``record`` (UTF-8) in two pieces, its head (line, ptx, function) and the rest,
        when it is the record just made and unchanged since (memo.py); None otherwise."""
        made = self.last_made
        if made is None or record is not self.last:
            return None
        if not (self.shared and record is made.scratch) and (
            list(record) != made.keys or list(record.values())[3:] != made.values
        ):
            return None  # changed since it was made: written the slow way
        tail = made.tail
        if tail is None:
            tail = self.memo.tail(made, self._cells_once)
            if tail is None:
                return None
        line, ptx, function = record["line"], record["ptx"], record["function"]
        memo = self.memo
        if type(line) is not int or type(ptx) is not str or type(function) is not str:
            return None
        if ptx != made.ptx:  # a statement's text is encoded once while it repeats, a function's too
            made.ptx, made.ptx_json = ptx, encode_basestring_ascii(ptx)
        if function != memo.function:
            memo.function, memo.function_json = function, encode_basestring_ascii(function)
        ptx_json, function_json = made.ptx_json, memo.function_json
        head = f'{{"line": {int.__repr__(line)}, "ptx": {ptx_json}, "function": {function_json}, '
        return head.encode(), tail

    def _scratch(self, made: Made, line: int, statement: str, function: str | None) -> dict[str, Any]:
        """A repeat's record while :attr:`shared`: the statement's one scratch copy, its head set here."""
        record = made.scratch
        if record is None:
            record = made.scratch = made.record(line, statement, function)
            self.memo.size += made.size
        else:
            record["line"], record["ptx"], record["function"] = line, statement, function
        return record

    def _cells_once(self, cells: LazyCells) -> str:
        return self.cells_json(cells, keep=False)  # the record's text keeps it (memo.py)

    def _answer(
        self, line: int, statement: str, parsed: PtxLine, name: str | None, module: Module, known: Known,
        value: Any,
    ) -> dict[str, Any]:  # fmt: skip
        record: dict[str, Any] = {"line": line, "ptx": statement, "function": name}
        tokens = known.tokens
        assert tokens is not None
        if parsed.guard:
            record["guard"] = parsed.guard
        head = tokens[1].split("::")[0]
        m = _CTA.search(parsed.opcode)
        if m:
            record["cta_group"] = int(m.group(1))
        try:
            if head == "mma":
                bases = None
                if known.bases:
                    value, bases = value
                record.update(self.mma(parsed, known.mma, value, module, line, bases))
                return record
            handler = _HANDLERS.get(head)
            if handler is None:
                record["op"] = tokens[1]
                module.warnings.append(
                    Warning(line, f"tcgen05.{tokens[1]} is not a tcgen05 instruction tmemviz knows")
                )
                return record
            record.update(handler(self, parsed, tokens, value, module, line))
        except TmemvizError as exc:
            record.setdefault("op", head)
            record["error"] = str(exc)
            module.warnings.append(Warning(line, str(exc)))
        return record

    def ldst(self, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
        from tmemviz.families.ldst.layout import cells
        from tmemviz.families.ldst.spelling import parse_spelling, resolve

        op = "ld.red" if tokens[1] == "ld" and "red" in tokens[2:3] else tokens[1]
        out: dict[str, Any] = {"op": op}
        if op == "ld.red" and not runs_ld_red(module.target):
            module.warnings.append(
                Warning(
                    n,
                    "tcgen05.ld.red needs .target sm_101a/sm_110a or the sm_101f, sm_103f, sm_110f families, "
                    f"but this module targets {module.target or 'nothing'} (PTX 9.7.16.8.3)",
                )
            )
        # Kernels repeat the same instruction with other registers: resolve each distinct one once.
        key = _layout_key(line)
        known = self.layouts.get(key)
        if known is None:
            ins = resolve(self.catalog, line.text)
            decides = (ins.shape.name, ins.num, ins.pack, ins.origin, ins.access_bases)
            cell_set = self.cell_sets.get(decides)
            if cell_set is None:
                cell_set = self.cell_sets[decides] = CellSet(cells(ins))
            known = self.layouts[key] = (ins, cell_set, parse_spelling(line.text).address)
        ins, cell_set, address = known
        found = cell_set.cells
        for warning in ins.warnings:
            module.warnings.append(Warning(n, warning))
        vectors = line.vectors()
        names = vectors[-1 if op == "st" else 0] if vectors else None
        if names is not None and any(x in ("...", "…") for x in names):
            names = None
        out.update(
            shape=ins.shape.name,
            num=ins.num,
            pack=ins.pack,
            split_offset=ins.split_offset,
            base=address.base if address else None,
            offset={"lane": ins.offset[0], "col": ins.offset[1]},
            registers=list(names) if names else None,
        )
        if ins.red is not None:
            out["red"] = {"op": ins.red.op, "type": ins.red.type, "abs": ins.red.abs, "nan": ins.red.nan}
            redval = vectors[1] if len(vectors) > 1 else None
            plain = [o for o in line.operands[1:] if is_name(o)]
            out["redval_register"] = redval[0] if redval else (plain[0] if plain else None)
        if self.lazy_cells:
            out["cells"] = LazyCells(key, tuple(names) if names else None)
        else:
            out["cells"] = answers.cell_records(found, names, ins.pack)
        out["summary"] = answers.ldst_summary(ins, address.base if address else None)
        return out

    def mma(
        self, line: PtxLine, mma: Any, value: Any, module: Module, n: int, bases: Any = None
    ) -> dict[str, Any]:
        """``mma``: the line as :func:`parse_mma` read it (None: read here); ``value``: its idesc's value;
        ``bases``: what the registers of its scale-factor addresses hold (block-scaled MMAs)."""
        from tmemviz.families.mma.idesc import decode
        from tmemviz.families.mma.spelling import parse_mma

        if mma is None:
            mma = parse_mma(line)
        out: dict[str, Any] = {
            "op": "mma",
            "kind": mma.kind,
            "cta_group": mma.cta_group,
            "sparse": mma.sparse,
            "ws": mma.ws,
            "block_scale": mma.block_scale,
            "scale_vec": mma.scale_vec,
            "collector": list(mma.collector),
            "d": {"base": mma.d.base, "lane": mma.d.lane_col[0], "col": mma.d.lane_col[1]},
            "a_in_tmem": mma.a_in_tmem,
            **mma_a(mma),
            **mma_meta(mma),
            **mma_scales(mma, bases),
            "idesc_operand": mma.idesc,
            "idesc": None,
            "layout": None,
            **mma_update(mma, module, n),
        }
        if value is None or all(b.known == 0 for b in value):
            out["summary"] = answers.mma_summary(out, None)
            return out
        if len(value) > 1 or not value[0].exact:
            return self._choices(out, value, mma, module, n)
        found = decode(value[0].value & 0xFFFFFFFF, mma.kind)
        out["idesc"] = {"value": found.value, "hex": f"0x{found.value:08x}", **found.fields}
        for problem in found.problems:
            module.warnings.append(Warning(n, f"idesc {mma.idesc} = 0x{found.value:08x}: {problem}"))
        if found.sparse != mma.sparse:
            said, is_ = ("sparse", "dense") if found.sparse else ("dense", "sparse")
            module.warnings.append(
                Warning(
                    n,
                    f"idesc {mma.idesc} = 0x{found.value:08x} says {said} (bit 2), but the instruction is "
                    f"{is_} ({'no ' if not mma.sparse else ''}.sp); CUTLASS sets the bit exactly for .sp",
                )
            )
        out["layout"], problem = answers.datapath(found.m, found.n, mma.cta_group, mma.sparse, mma.ws)
        if problem:
            module.warnings.append(Warning(n, f"idesc {mma.idesc} = 0x{found.value:08x}: {problem}"))
        out["summary"] = answers.mma_summary(out, found)
        return out

    def _choices(self, out: dict[str, Any], value: Any, mma: Any, module: Module, n: int) -> dict[str, Any]:
        """An idesc that is one of several constants, or has run-time bits: what they share, decoded."""
        from tmemviz.families.explain.choices import decode_choices, record, summary

        key = (tuple(value), mma.kind)
        c = self.choices.get(key)
        if c is None:
            c = self.choices[key] = decode_choices(tuple(value), mma.kind)
        out["idesc"] = record(c)
        for problem in c.problems:
            module.warnings.append(Warning(n, f"idesc {mma.idesc} (one of {len(c.candidates)}): {problem}"))
        sparse = c.fields.get("sparse")
        if sparse is not None and sparse != mma.sparse:
            module.warnings.append(
                Warning(
                    n,
                    f"idesc {mma.idesc} says {'sparse' if sparse else 'dense'} (bit 2), but the "
                    f"instruction is {'sparse' if mma.sparse else 'dense'}",
                )
            )
        if c.m is not None and c.n is not None:
            out["layout"], problem = answers.datapath(c.m, c.n, mma.cta_group, mma.sparse, mma.ws)
            if problem:
                module.warnings.append(Warning(n, f"idesc {mma.idesc}: {problem}"))
        out["summary"] = answers.mma_summary(out, None, choices=summary(c))
        return out

    def cp(self, line: PtxLine, tokens: list[str], value: Any, module: Module, n: int) -> dict[str, Any]:
        from tmemviz.families.cp.spelling import resolve_copy

        copy = resolve_copy(self.catalog, line.text)
        return {
            "op": "cp",
            "shape": copy.shape.name,
            "multicast": copy.multicast,
            "decompress": copy.decompress.name if copy.decompress else None,
            "base": copy.base,
            "offset": {"lane": copy.offset[0], "col": copy.offset[1]},
            "summary": answers.cp_summary(copy),
        }


def _layout_key(line: PtxLine) -> tuple[Any, ...]:
    """What decides an ld/st's layout: opcode, address and immediates, vector lengths (not names)."""
    return (
        line.opcode,
        *(o for o in line.operands if not o.startswith("{")),
        *(len(v) for v in line.vectors()),
    )


_HANDLERS = {
    "alloc": alloc,
    "dealloc": alloc,
    "relinquish_alloc_permit": alloc,
    "ld": Explainer.ldst,
    "st": Explainer.ldst,
    "wait": wait,
    "cp": Explainer.cp,
    "shift": shift,
    "commit": commit,
    "fence": fence,
}
"""The handler of each op but mma (:meth:`Explainer.mma` takes the line as memo.py's ``Known`` read it)."""
