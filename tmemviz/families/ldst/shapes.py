"""Load and validate the tcgen05.ld/st shape files of ``layouts/ldst/`` into frozen dataclasses.

A shape file is the x1 picture of one PTX "Matrix Fragment" figure plus the
numbers of Tables 49/50. Everything general (``.num`` repetition, packing,
taddr placement) lives in :mod:`tmemviz.families.ldst.layout`, so adding a shape means
adding a file. Every check below names the file and the field it rejects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tmemviz.catalog import ShapeKind, load_unique, shipped
from tmemviz.errors import TmemvizError
from tmemviz.files import check_fields, describe, read_yaml
from tmemviz.tmem import THREADS, WARP_LANES

MAX_REGISTERS = 128
"""No tcgen05.ld/st vector operand exceeds 128 registers: Tables 49/50 say NA beyond."""

NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
"""The ``.num`` qualifiers ``.x1`` .. ``.x128`` (PTX 9.7.16.8.3 syntax)."""

BASES = ("taddr", "taddr+immHalfSplitoff")
"""Where an access starts: at taddr, or (``.16x32bx2``) at taddr + immHalfSplitoff."""

FIELDS = {
    "ptx_name": str,
    "aliases": list,
    "lanes": int,
    "columns_per_rep": int,
    "registers_per_rep": int,
    "max_num": int,
    "ptx_figure": int,
    "ld_red": bool,
    "accesses": list,
    "sass": dict,
}
REQUIRED = ("ptx_name", "lanes", "columns_per_rep", "registers_per_rep", "max_num", "accesses")
ACCESS_FIELDS = ("base", "grid")
_NAME = re.compile(r"^\.?([0-9a-z_]+)$", re.IGNORECASE)
_TOKEN = re.compile(r"^T(\d+)r(\d+)$")


@dataclass(frozen=True)
class Slot:
    """One cell of the x1 picture: register ``reg`` of ``thread`` at (lane, col) of an access."""

    thread: int
    reg: int
    access: int
    lane: int
    col: int


@dataclass(frozen=True)
class SassSpelling:
    """A shape's SASS names: the opcode of each access for ld and st, the pack words, ld.red's words."""

    ld: tuple[str, ...]
    st: tuple[str, ...]
    pack: dict[str, str]
    """``{"ld": "PACK16BIT", "st": "EXPAND16BIT"}``: .pack::16b / .unpack::16b."""
    red: dict[str, str] | None
    """tcgen05.ld.red: ``opcode`` and the words of min, max, min.abs, max.abs, u32, s32, f32, NaN."""


SASS_FIELDS = {"ld": list, "st": list, "pack": dict, "red": dict}
RED_WORDS = ("opcode", "min", "max", "min.abs", "max.abs", "u32", "s32", "f32", "NaN")


@dataclass(frozen=True)
class Shape:
    """A validated tcgen05.ld/st data-movement shape."""

    name: str
    aliases: tuple[str, ...]
    lanes: int
    columns_per_rep: int
    registers_per_rep: int
    max_num: int
    split: bool
    ptx_figure: int | None
    source: str
    slots: tuple[Slot, ...]
    """Indexed by ``thread * registers_per_rep + reg``."""
    owners: tuple[int, ...]
    """Slot index, indexed by ``(access * lanes + lane) * columns_per_rep + col``."""
    ld_red: bool = False
    """Whether tcgen05.ld.red takes this shape (PTX 9.7.16.8.3: .32x32b and .16x32bx2 only)."""
    sass: SassSpelling | None = field(default=None, compare=False)
    """How ptxas spells the shape in SASS (the shape file's ``sass`` field), when recorded."""

    @property
    def ptx_name(self) -> str:
        return "." + self.name

    @property
    def accesses(self) -> int:
        return 2 if self.split else 1

    @property
    def bits_per_rep(self) -> int:
        """Bits each lane moves per repetition (the ``b`` number of the shape's name)."""
        return 32 * self.columns_per_rep

    @property
    def nums(self) -> tuple[int, ...]:
        return tuple(n for n in NUMS if n <= self.max_num)

    def slot(self, thread: int, reg: int) -> Slot:
        """The x1 cell of ``thread``'s register ``reg`` (``reg < registers_per_rep``)."""
        return self.slots[thread * self.registers_per_rep + reg]

    def owner(self, access: int, lane: int, col: int) -> Slot:
        """The x1 slot at (lane, col) of ``access``; all three within the x1 picture."""
        return self.slots[self.owners[(access * self.lanes + lane) * self.columns_per_rep + col]]


def load_shapes(files: Sequence[Path]) -> tuple[Shape, ...]:
    """Read and validate every ld/st shape file; a name or alias may be defined once."""
    shapes = load_unique(files, load_shape, lambda s: (s.name, *s.aliases), "'ptx_name'/'aliases'")
    # The PTX figures' order (183..187) reads best; user shapes follow by name.
    shapes.sort(key=lambda s: (s.ptx_figure is None, s.ptx_figure or 0, s.name))
    return tuple(shapes)


KIND: ShapeKind[Shape] = ShapeKind(
    subdir="ldst",
    title="tcgen05.ld/st",
    command="layout",
    unknown="unknown shape",
    known="known tcgen05.ld/st shapes",
    load=load_shapes,
    top_level=True,
)
"""tcgen05.ld/st shape files: ``layouts/ldst/``; in a user's directory also directly inside it."""


def load_shape(path: Path) -> Shape:
    """Read one shape file; any problem raises :class:`TmemvizError` naming file and field."""
    return parse_shape(read_yaml(path), str(path))


def parse_shape(doc: Any, source: str) -> Shape:
    """Validate a loaded YAML document into a :class:`Shape`."""
    check_fields(doc, source, FIELDS, REQUIRED, "fields at the top level")

    def fail(field: str, message: str) -> TmemvizError:
        return TmemvizError(f"{source}: field '{field}': {message}")

    m = _NAME.match(doc["ptx_name"])
    if not m:
        raise fail("ptx_name", "expected a PTX shape name such as '.16x256b'")
    name = m.group(1)
    aliases = doc.get("aliases", [])
    for i, alias in enumerate(aliases):
        if not isinstance(alias, str) or not _NAME.match(alias):
            raise fail(f"aliases[{i}]", f"expected a name such as '16dp256b', got {describe(alias)}")
    lanes = doc["lanes"]
    if not 1 <= lanes <= WARP_LANES:
        raise fail("lanes", f"must be 1..{WARP_LANES} (one warp reaches 32 TMEM lanes, PTX 9.7.16.8.1)")
    width = doc["columns_per_rep"]
    if not 1 <= width <= 512:
        raise fail("columns_per_rep", "must be 1..512 (TMEM has 512 columns)")
    regs = doc["registers_per_rep"]
    accesses = doc["accesses"]
    if len(accesses) not in (1, 2):
        raise fail("accesses", f"expected 1 or 2 accesses, got {len(accesses)}")
    if regs * THREADS != len(accesses) * lanes * width:
        raise fail(
            "registers_per_rep",
            f"{regs} registers x {THREADS} threads must equal the {len(accesses) * lanes * width} "
            f"cells of {len(accesses)} access(es) of {lanes} lanes x {width} columns",
        )
    max_num = doc["max_num"]
    expected_max = max(n for n in NUMS if n * regs <= MAX_REGISTERS) if regs <= MAX_REGISTERS else 0
    if max_num != expected_max:
        raise fail(
            "max_num",
            f"expected {expected_max}: the largest .num whose {regs} x num registers stay within "
            f"{MAX_REGISTERS} (PTX Table 49), got {max_num}",
        )
    figure = doc.get("ptx_figure")
    slots, owners = _parse_accesses(accesses, lanes, width, regs, fail)
    return Shape(
        name=name,
        aliases=tuple(aliases),
        lanes=lanes,
        columns_per_rep=width,
        registers_per_rep=regs,
        max_num=max_num,
        split=len(accesses) == 2,
        ptx_figure=figure,
        source=source,
        slots=slots,
        owners=owners,
        ld_red=doc.get("ld_red", False),
        sass=_parse_sass(doc["sass"], source, len(accesses), doc.get("ld_red", False))
        if "sass" in doc
        else None,
    )


def _parse_sass(doc: Any, source: str, accesses: int, ld_red: bool) -> SassSpelling:
    """The ``sass`` field: ``ld``/``st`` one spelling per access, ``pack``, and ``red`` for ld.red shapes."""
    from tmemviz.sass.names import spelling, words

    check_fields(doc, f"{source}: field 'sass'", SASS_FIELDS, ("ld", "st", "pack"))
    ops: dict[str, tuple[str, ...]] = {}
    for op, opcode in (("ld", "LDTM"), ("st", "STTM")):
        items = doc[op]
        if len(items) != accesses:
            raise TmemvizError(
                f"{source}: field 'sass.{op}': expected one spelling per access ({accesses}), "
                f"got {len(items)}"
            )
        ops[op] = tuple(spelling(v, source, f"sass.{op}[{i}]", opcode) for i, v in enumerate(items))
    red = None
    if "red" in doc:
        if not ld_red:
            raise TmemvizError(f"{source}: field 'sass.red': only a shape with ld_red: true takes it")
        red = words({**doc["red"], "opcode": "_"} if isinstance(doc["red"], dict) else doc["red"],
                    source, "sass.red", RED_WORDS)  # fmt: skip
        red["opcode"] = spelling(doc["red"]["opcode"], source, "sass.red.opcode", "LDTM")
    return SassSpelling(ops["ld"], ops["st"], words(doc["pack"], source, "sass.pack", ("ld", "st")), red)


def _parse_accesses(
    accesses: list[Any], lanes: int, width: int, regs: int, fail: Any
) -> tuple[tuple[Slot, ...], tuple[int, ...]]:
    by_key: dict[tuple[int, int], Slot] = {}
    where: dict[tuple[int, int], str] = {}
    cell_keys: list[tuple[int, int]] = []
    for a, access in enumerate(accesses):
        field = f"accesses[{a}]"
        if not isinstance(access, dict):
            raise fail(field, f"expected a mapping with {' and '.join(ACCESS_FIELDS)}")
        for key in access:
            if key not in ACCESS_FIELDS:
                raise fail(f"{field}.{key}", f"unknown field; allowed: {', '.join(ACCESS_FIELDS)}")
        base = str(access.get("base", "")).replace(" ", "")
        if base != BASES[a]:
            raise fail(f"{field}.base", f"expected '{BASES[a]}', got {describe(access.get('base'))}")
        grid = access.get("grid")
        if not isinstance(grid, list) or len(grid) != lanes:
            raise fail(f"{field}.grid", f"expected a list of {lanes} rows (one per lane)")
        for lane, row in enumerate(grid):
            rf = f"{field}.grid[{lane}]"
            if not isinstance(row, str):
                raise fail(rf, f"expected a string of {width} entries like 'T6r3', got {describe(row)}")
            tokens = row.split()
            if len(tokens) != width:
                raise fail(rf, f"expected {width} entries (columns_per_rep), got {len(tokens)}")
            for col, token in enumerate(tokens):
                m = _TOKEN.match(token)
                if not m:
                    raise fail(rf, f"entry {col} '{token}' is not of the form 'T<thread>r<register>'")
                thread, reg = int(m.group(1)), int(m.group(2))
                if thread >= THREADS or reg >= regs:
                    raise fail(
                        rf,
                        f"entry {col} '{token}' is out of range: threads are T0..T{THREADS - 1}, "
                        f"registers r0..r{regs - 1}",
                    )
                here = f"{rf} column {col}"
                if (thread, reg) in by_key:
                    raise fail(rf, f"'{token}' appears twice, at {where[(thread, reg)]} and {here}")
                by_key[(thread, reg)] = Slot(thread, reg, a, lane, col)
                where[(thread, reg)] = here
                cell_keys.append((thread, reg))
    missing = [f"T{t}r{r}" for t in range(THREADS) for r in range(regs) if (t, r) not in by_key]
    if missing:
        raise fail("accesses", f"the grids never place {', '.join(missing[:8])}")
    slots = tuple(by_key[(t, r)] for t in range(THREADS) for r in range(regs))
    owners = tuple(t * regs + r for t, r in cell_keys)
    return slots, owners


def builtin(name: str) -> Shape:
    """A shipped shape by name (doctests and quick scripts).

    >>> builtin("16dp256b").name
    '16x256b'
    """
    return shipped(KIND, name)
