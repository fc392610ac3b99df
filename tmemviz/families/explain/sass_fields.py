"""What every SASS record of explain shares: the spelling tables built from the shape files, the SASS fields
of a record (text, code address, source line, guard), and a record that could not be explained."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.families.explain.scan import Function, Module, Warning
from tmemviz.sass.line import SassLine

CTA_PAIR = "2CTA"
"""The modifier ptxas adds for .cta_group::2 (UTCCP, UTC*MMA, UTCBAR, UTCSHIFT, alloc)."""


@dataclass
class Tables:
    """SASS spelling -> what it implements, built once per run from the shape files."""

    ldst: dict[str, tuple[Any, str, int]] = field(default_factory=dict)
    """``LDTM.16dp64bit`` -> (ld/st shape, "ld"/"st", access index)."""
    cp: dict[str, tuple[Any, str | None]] = field(default_factory=dict)
    """``UTCCP.T.S.4x32dp128bit`` -> (cp shape, multicast)."""
    decompress: dict[str, str] = field(default_factory=dict)
    shift: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, catalog: Catalog) -> Tables:
        from tmemviz.families.cp.shapes import KIND as CP
        from tmemviz.families.ldst.shapes import KIND as LDST
        from tmemviz.families.shift.shapes import KIND as SHIFT

        t = cls()
        for shape in catalog.shapes(LDST):
            if shape.sass is not None:
                for op, names in (("ld", shape.sass.ld), ("st", shape.sass.st)):
                    for access, name in enumerate(names):
                        t.ldst[name] = (shape, op, access)
        for copy in catalog.shapes(CP):
            t.decompress.update({word: fmt for fmt, word in copy.sass_decompress})
            for p in copy.placements:
                if p.sass:
                    t.cp[p.sass] = (copy, p.multicast)
        for shift in catalog.shapes(SHIFT):
            if shift.sass:
                t.shift[shift.sass] = shift
        return t


def record_base(line: int, sass: SassLine, source: tuple[str, int] | None, fn: Function) -> dict[str, Any]:
    """The fields every SASS record has besides the PTX ones."""
    out: dict[str, Any] = {"line": line, "sass": sass.text, "function": fn.name}
    if sass.address is not None:
        out["address"] = f"0x{sass.address:04x}"
    if source is not None:
        out["source"] = {"file": source[0], "line": source[1]}
    if sass.guard:
        out["guard"] = sass.guard
    return out


def not_explained(out: dict[str, Any], op: str, message: str, module: Module) -> dict[str, Any]:
    out.setdefault("op", op)
    out["error"] = message
    module.warnings.append(Warning(out["line"], message))
    return out
