"""Explained PTX modules as one :class:`~tmemviz.draw.document.Document`: JSON, a table, the TMEM map."""

from __future__ import annotations

from collections.abc import Sequence

from tmemviz.catalog import Catalog
from tmemviz.draw.document import Document, once
from tmemviz.families.explain.answers import file_record
from tmemviz.families.explain.scan import Module
from tmemviz.values import plural

NOTES = (
    "ld/st lanes and columns are relative to the base register of the address, its immediate applied "
    "(imm >> 16 lanes, imm & 0xFFFF columns)",
    "a tcgen05.mma idesc is decoded when the function builds its register from constants (mov, selp, or, "
    "and, shl, shr, add, cvt, prmt) on every path to the MMA; a choice of constants (two paths, a selp) "
    "decodes to the fields they share",
    "the PTX ISA completes a tcgen05.ld only at tcgen05.wait::ld (a tcgen05.st at tcgen05.wait::st); "
    "whether each path waits in time is not judged here: tmemviz check (rule wait-ld) follows every path",
)


def _map(modules: Sequence[Module], catalog: Catalog, detail: str):  # type: ignore[no-untyped-def]
    from tmemviz.families.explain.figures import explain_map

    return explain_map(modules, catalog, detail)


def explain_document(modules: Sequence[Module], catalog: Catalog) -> Document:
    """Every file's tcgen05 instructions and warnings, in line order."""
    files = [file_record(m) for m in modules]
    count = sum(len(f["instructions"]) for f in files)

    def csv():
        header = ("path", "line", "op", "thread", "reg", "half", "register", "lane", "col")
        rows = (
            (f["path"], i["line"], i["op"], c["thread"], c["reg"], c.get("half", ""), c["register"] or "",
             c["lane"], c["col"])
            for f in files
            for i in f["instructions"]
            for c in i.get("cells") or ()
        )  # fmt: skip
        return header, rows

    def table(width: int):
        from tmemviz.families.explain.views import explain_view

        return explain_view(files)

    return Document(
        kind="explain",
        title=plural(count, "tcgen05 instruction"),
        header={},
        lists=lambda: (("files", files),),
        main="files",
        nested="instructions",
        csv=csv,
        views={"instructions": table},
        figure=once(lambda: _map(modules, catalog, "auto")),  # the map is the same at every detail
        notes=NOTES,
        subject=modules,
    )
