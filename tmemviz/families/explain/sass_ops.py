"""Each tcgen05 SASS instruction rewritten as the PTX statement it implements, then explained as PTX.

The statement is built from the shape files' SASS names (:class:`~.sass_fields.Tables`) and the operands
nvdisasm prints; the record the PTX explainer returns is then given the SASS fields (text, address,
source line) and, where SASS shows less than PTX, says so (a null field, two kinds) instead of guessing.
"""

from __future__ import annotations

from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.explain.sass_fields import CTA_PAIR, Tables, not_explained, record_base
from tmemviz.families.explain.sass_offsets import move_cells, move_copy
from tmemviz.families.explain.scan import Module, Warning
from tmemviz.sass.address import relative, split
from tmemviz.sass.line import SassLine, bracket, register_number

HALF_THREADS = ((0, 15), (16, 31))
"""The threads each access of a .16x32bx2 carries (PTX Figure 187; SASS _t0_t15 / _t16_t31)."""


ZERO = (
    "; RZ: every register of the vector reads as zero (ptxas names RZ only for a vector that is all 0: "
    "tests/sass/observed.json)"
)


def _address(tmem: tuple[str | None, int]) -> str:
    base, imm = tmem
    if base is None:
        return f"[{imm}]"
    return f"[{base} + {imm}]" if imm else f"[{base}]"


def _at(tmem: tuple[str | None, int]) -> tuple[int, int]:
    """The (lanes, columns) an operand's immediate adds to its base (both may be negative,
    :func:`~tmemviz.sass.address.relative`); a constant address's own lane and column."""
    base, imm = tmem
    if base is not None:
        return relative(imm)
    if imm < 0:
        raise TmemvizError(f"the constant address {imm} is no Tensor Memory address")
    return imm >> 16, imm & 0xFFFF


def _said(base: str | None, at: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """The address of the PTX statement (none of it negative) and the (lanes, columns) left to move."""
    said, rest = split(*at)
    return _address((base, (said[0] << 16) | said[1])), rest


def _half_summary(record: dict[str, Any], op: str, lo: int, hi: int) -> str:
    """E.g. ``16x32bx2.x8, threads 16..31 (second access, split offset 8): load lanes 0..15, columns 8..15``
    (the half's own cells)."""
    cells = record["cells"]
    lanes = sorted({c["lane"] for c in cells})
    cols = sorted({c["col"] for c in cells})
    runs: list[list[int]] = []
    for c in cols:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    spans = " and ".join(f"{a}..{b}" if a != b else str(a) for a, b in runs)
    split = record["split_offset"]
    which = (
        "first access"
        if lo == 0
        else "second access" + (f", split offset {split}" if split is not None else "")
    )
    if split is None:
        which += "; its other half is not next to it, the split offset is unknown"
    verb = {"st": "store"}.get(op, "load")
    base = f" relative to {record['base']}" if record.get("base") else ""
    regs = len(record.get("registers") or ())
    pack = (".unpack::16b" if op == "st" else ".pack::16b") if record["pack"] else ""
    return (
        f"{record['shape']}.x{record['num']}{pack}, threads {lo}..{hi} "
        f"({which}): {verb} lanes {lanes[0]}..{lanes[-1]}, columns {spans}{base} ({regs} registers/thread)"
    )


class SassOps:
    """Explains the tcgen05 instructions of one listing, in order (holding a split half for its pair)."""

    def __init__(self, catalog: Catalog, explainer: Any, tables: Tables) -> None:
        self.catalog = catalog
        self.explain = explainer
        self.tables = tables
        self.sink: list[dict[str, Any]] = []
        """Records made and not yet taken (:meth:`take`)."""

    def take(self) -> list[dict[str, Any]]:
        """The records made since the last call, in order."""
        out, self.sink = self.sink, []
        return out

    def handle(self, line: int, sass: SassLine, source: Any, state: Any, module: Module) -> None:
        op = sass.opcode
        if op in ("LDTM", "STTM"):
            self.ldst(line, sass, source, state, module)
            return
        self.flush(state, module)
        out = record_base(line, sass, source, state.fn)
        try:
            if op == "UTCCP":
                record = self.cp(line, sass, state, module)
            elif op == "UTCSHIFT":
                record = self.shift(line, sass, state, module)
            elif op == "UTCBAR":
                record = self.commit(line, sass, state, module)
            elif op == "UTCATOMSWS":
                record = self.alloc(sass)
            elif op.startswith("UTC") and op.endswith("MMA"):
                from tmemviz.families.explain.umma import mma

                record = mma(self, line, sass, state, module)
            else:
                return  # another UTC instruction (none is tcgen05 work tmemviz maps)
        except TmemvizError as exc:
            self.sink.append(not_explained(out, op, f"{sass.text}: {exc}", module))
            return
        if record is not None:
            self.sink.append(self.finish(out, record))

    def finish(self, out: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
        """The PTX record with the SASS fields; its ``ptx`` is the statement the SASS implements."""
        line = out["line"]
        record.pop("function", None)
        record.pop("guard", None)
        merged = {**out, **record, "line": line}
        return merged

    def as_ptx(
        self, line: int, statement: str, state: Any, module: Module, real_cells: bool = False
    ) -> dict[str, Any]:
        """The PTX explainer's record of ``statement``; ``real_cells``: cell dicts even when the explainer
        makes lazy ones (the streamed JSON's), since a split half keeps only its threads' cells."""
        from tmemviz.ptx.line import parse_line

        lazy = self.explain.lazy_cells
        self.explain.lazy_cells = lazy and not real_cells
        try:
            record = self.explain(line, statement, parse_line(statement), state.fn, module)
        finally:
            self.explain.lazy_cells = lazy
        if record is None:
            raise TmemvizError(f"'{statement}' is not a tcgen05 statement")
        return record  # an "error" in it was warned about by the explainer, as for PTX

    # -- tcgen05.ld / tcgen05.st / tcgen05.ld.red ---------------------------------------------------

    def ldst(self, line: int, sass: SassLine, source: Any, state: Any, module: Module) -> None:
        out = record_base(line, sass, source, state.fn)
        try:
            parsed = self._read_ldst(sass)
        except TmemvizError as exc:
            self.flush(state, module)
            self.sink.append(not_explained(out, sass.opcode.lower()[:2], f"{sass.text}: {exc}", module))
            return
        shape, access = parsed["shape"], parsed["access"]
        held = state.held
        if shape.split and access == 1 and held is not None and self._pairs(held[3], parsed):
            state.held = None
            first_line, first_sass, first_source, first = held
            offset = parsed["at"][1] - first["at"][1]
            self._emit(first_line, first_sass, first_source, first, state, module, offset, first["at"])
            self._emit(line, sass, source, parsed, state, module, offset, first["at"])
            return
        self.flush(state, module)
        if shape.split and access == 0:
            state.held = (line, sass, source, parsed)
            return
        self._emit(line, sass, source, parsed, state, module, None, None)

    def flush(self, state: Any, module: Module) -> None:
        """Explain a held t0_t15 half alone (no t16_t31 half followed it)."""
        if state.held is not None:
            line, sass, source, parsed = state.held
            state.held = None
            self._emit(line, sass, source, parsed, state, module, None, None)

    @staticmethod
    def _pairs(first: dict[str, Any], second: dict[str, Any]) -> bool:
        same = ("op", "num", "pack", "red", "first", "redval", "shape")
        (l0, c0), (l1, c1) = first["at"], second["at"]
        return all(first[k] == second[k] for k in same) and first["tmem"][0] == second["tmem"][0] \
            and l0 == l1 and c1 >= c0  # fmt: skip

    def _read_ldst(self, sass: SassLine) -> dict[str, Any]:
        mods = list(sass.modifiers)
        red = None
        if "STAT" in mods:
            mods.remove("STAT")
            red = True
        num, pack = 1, False
        rest = []
        for word in mods:
            if word.startswith("x") and word[1:].isdigit():
                num = int(word[1:])
            else:
                rest.append(word)
        shape = access = op = None
        for i, word in enumerate(rest):
            found = self.tables.ldst.get(f"{sass.opcode}.{word}")
            if found:
                shape, op, access = found
                del rest[i]
                break
        if shape is None:
            shape, op, access = self.tables.ldst.get(sass.opcode, (None, None, None))
        if shape is None or shape.sass is None:
            raise TmemvizError(f"no ld/st shape file spells {sass.opcode} with {'.'.join(sass.modifiers)}")
        words = shape.sass
        if words.pack[op] in rest:
            rest.remove(words.pack[op])
            pack = True
        reduction = None
        if red:
            reduction, rest = self._reduction(shape, rest)
        if rest:
            raise TmemvizError(f"modifier(s) {', '.join(rest)} are in no shape file's SASS spelling")
        regs = [o for o in sass.operands if not o.startswith("tmem[")]
        tmem = sass.tmem()
        if tmem is None or not regs:
            raise TmemvizError("expected a register and a tmem[..] operand")
        redval = regs[0] if reduction else None
        vector = regs[1] if reduction and len(regs) > 1 else regs[0]
        first = register_number(vector)
        zero = vector == "RZ" and sass.opcode == "STTM"  # a store of zeros (observed: tests/sass)
        if first is None and not zero:
            raise TmemvizError(
                f"expected a register R<n>{' or RZ' if sass.opcode == 'STTM' else ''}, got {vector}"
            )
        op_name = "ld.red" if reduction else ("ld" if sass.opcode == "LDTM" else "st")
        return {"op": op_name, "shape": shape, "access": access, "num": num, "pack": pack, "red": reduction,
                "redval": redval, "first": first, "tmem": tmem, "at": _at(tmem)}  # fmt: skip

    @staticmethod
    def _reduction(shape: Any, rest: list[str]) -> tuple[str, list[str]]:
        words = shape.sass.red or {}
        reverse = {v: k for k, v in words.items() if v and k != "opcode"}
        parts = {reverse[w]: w for w in rest if w in reverse}
        left = [w for w in rest if w not in reverse]
        op = next((k for k in ("min.abs", "max.abs", "min", "max") if k in parts), None)
        if op is None:
            raise TmemvizError("LDTM.STAT without MIN, MAX, MINABS or MAXABS")
        kind = next((k for k in ("s32", "f32") if k in parts), "u32")
        text = op + (".NaN" if "NaN" in parts else "") + f".{kind}"
        return text, left

    def _emit(self, line, sass, source, parsed, state, module, split_offset, start) -> None:
        """One LDTM/STTM as its PTX statement; a split half's ``start`` is its pair's first address
        (lanes, columns from the base) and ``split_offset`` the columns between them (None: alone)."""
        out = record_base(line, sass, source, state.fn)
        shape, access = parsed["shape"], parsed["access"]
        regs = shape.registers_per_rep * parsed["num"]
        zero = parsed["first"] is None
        names = ["RZ"] * regs if zero else [f"R{parsed['first'] + k}" for k in range(regs)]
        base = parsed["tmem"][0]
        at = parsed["at"]
        width = parsed["num"] * shape.columns_per_rep * (2 if parsed["pack"] else 1)
        alone = shape.split and split_offset is None
        if alone:
            # Alone (its other half is not next to it): its own address starts its access, which is all
            # its cells depend on; the split offset is unknown (a width is assumed only to build the
            # statement, and not reported).
            split_offset = width
            start = (at[0], at[1] - width) if access == 1 else at
        if not shape.split:
            start = at
        if base is None and (start[0] < 0 or start[1] < 0):
            message = f"{sass.text}: a constant address whose split pair would start before column 0"
            self.sink.append(not_explained(out, parsed["op"], message, module))
            return
        address, rest = _said(base, start)
        q = f"{shape.name}.x{parsed['num']}"
        vector = "{" + ", ".join(names) + "}"
        address += f", {split_offset}" if shape.split else ""
        if parsed["op"] == "ld.red":
            statement = (
                f"tcgen05.ld.red.sync.aligned.{q}.{parsed['red']} {vector}, {parsed['redval']}, {address};"
            )
        elif parsed["op"] == "ld":
            pack = ".pack::16b" if parsed["pack"] else ""
            statement = f"tcgen05.ld.sync.aligned.{q}{pack}.b32 {vector}, {address};"
        else:
            pack = ".unpack::16b" if parsed["pack"] else ""
            statement = f"tcgen05.st.sync.aligned.{q}{pack}.b32 {address}, {vector};"
        moved = rest != (0, 0)
        record = self.as_ptx(line, statement, state, module, real_cells=shape.split or moved)
        if parsed["op"] == "ld.red":
            record["redval_register"] = parsed["redval"]
        if "cells" in record and moved:
            move_cells(record, *rest)
        if shape.split and "cells" in record:
            lo, hi = HALF_THREADS[access]
            record["cells"] = [c for c in record["cells"] if lo <= c["thread"] <= hi]
            record["threads"] = [lo, hi]
            record["offset"] = {"lane": at[0], "col": at[1]}
            if alone:
                record["split_offset"] = None
            record["summary"] = _half_summary(record, parsed["op"], lo, hi)
        if zero and "summary" in record:
            record["summary"] += ZERO
        self.sink.append(self.finish(out, record))

    # -- cp, shift, commit, alloc/dealloc -------------------------------------------------------------

    def _group(self, sass: SassLine) -> tuple[int, list[str]]:
        mods = list(sass.modifiers)
        group = 2 if CTA_PAIR in mods else 1
        return group, [m for m in mods if m != CTA_PAIR]

    def cp(self, line: int, sass: SassLine, state: Any, module: Module) -> dict[str, Any]:
        group, mods = self._group(sass)
        fmt = next((self.tables.decompress[m] for m in mods if m in self.tables.decompress), None)
        mods = [m for m in mods if m not in self.tables.decompress]
        found = self.tables.cp.get(".".join([sass.opcode, *mods]))
        if found is None:
            raise TmemvizError("no cp shape file spells this copy")
        copy, multicast = found
        tmem = sass.tmem()
        desc = next((bracket(o) for o in sass.operands if o.startswith("gdesc[")), None)
        if tmem is None or desc is None:
            raise TmemvizError("expected tmem[..] and gdesc[..] operands")
        q = f"tcgen05.cp.cta_group::{group}.{copy.name}" + (f".{multicast}" if multicast else "")
        q += f".b8x16.{fmt}" if fmt else ""
        address, rest = _said(tmem[0], _at(tmem))
        record = self.as_ptx(line, f"{q} {address}, {desc[1]};", state, module)
        move_copy(record, *rest)
        return record

    def shift(self, line: int, sass: SassLine, state: Any, module: Module) -> dict[str, Any]:
        group, mods = self._group(sass)
        shape = self.tables.shift.get(".".join([sass.opcode, *mods]))
        if shape is None:
            raise TmemvizError("no shift shape file spells this shift")
        tmem = sass.tmem()
        if tmem is None:
            raise TmemvizError("expected a tmem[..] operand")
        address, rest = _said(tmem[0], _at(tmem))
        record = self.as_ptx(line, f"tcgen05.shift.cta_group::{group}.down {address};", state, module)
        if rest[0] % shape.lane_alignment:
            module.warnings.append(Warning(line, f"tcgen05.shift's taddr lane must be aligned to "
                                                 f"{shape.lane_alignment}, got {rest[0]}"))  # fmt: skip
        move_copy(record, *rest)
        return record

    def commit(self, line: int, sass: SassLine, state: Any, module: Module) -> dict[str, Any]:
        from tmemviz.families.explain.umma import explain_table

        words = explain_table()["commit"]
        group, mods = self._group(sass)
        multicast = words["multicast"] in mods
        bar = next((bracket(o) for o in sass.operands if o.startswith("[")), None)
        if bar is None:
            raise TmemvizError("expected an [mbarrier] operand")
        q = f"tcgen05.commit.cta_group::{group}.mbarrier::arrive::one.shared::cluster"
        if multicast:
            mask = sass.operands[-1]
            return self.as_ptx(line, f"{q}.multicast::cluster.b64 [{bar[1]}], {mask};", state, module)
        return self.as_ptx(line, f"{q}.b64 [{bar[1]}];", state, module)

    def alloc(self, sass: SassLine) -> dict[str, Any] | None:
        """alloc and dealloc: SASS shows neither the column count nor where the address goes."""
        from tmemviz.families.explain.umma import explain_table

        table = explain_table()
        group, mods = self._group(sass)
        spelled = ".".join([sass.opcode, *mods])
        if spelled == table["alloc"]["sass"]:
            summary = (
                "allocates Tensor Memory columns (all 128 lanes); the count is in a register and the "
                "address is stored to shared memory by the instructions that follow"
            )
            return {
                "op": "alloc",
                "cta_group": group,
                "columns": None,
                "destination": None,
                "summary": summary,
            }
        if spelled == table["dealloc"]["sass"]:
            summary = (
                "frees Tensor Memory columns; ptxas spells .cta_group::1 and ::2 alike (its group is not "
                "in the instruction)"
            )
            return {"op": "dealloc", "cta_group": None, "columns": None, "taddr": None, "summary": summary}
        return None
