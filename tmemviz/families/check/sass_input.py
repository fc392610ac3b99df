"""``check K.ptx --sass K.cubin``: the SASS given beside the PTX, read once (a cubin through nvdisasm
``-hex``, whose encodings carry the scoreboards; a listing as printed), and only when a ``wait-ld``
warning is there to judge; only the functions holding one are kept
(:class:`tmemviz.sass.waits.Collector`). The judging itself is :mod:`tmemviz.families.check.scoreboards`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import Finding

Sass = tuple[str, Iterable[str]]
"""The SASS given with ``--sass``: its name and lines (:func:`sass_lines`)."""


def sass_lines(sass: str) -> Iterable[str]:
    """The lines of the SASS given with ``--sass``: a cubin's listing with its encodings (nvdisasm
    ``-hex``), or a listing's own lines; refused unless it is one of them."""
    from tmemviz.files import text_lines
    from tmemviz.sass.cubin import cubin_lines, find_nvdisasm, is_elf
    from tmemviz.sass.listing import sniff

    if not os.path.isfile(sass):
        raise TmemvizError(
            f"--sass {sass}: no such file; give the cubin ptxas made of the PTX, or its listing"
        )
    if is_elf(sass):
        tool = find_nvdisasm()
        if tool is None:
            raise TmemvizError(
                f"--sass {sass} is a cubin, and reading it needs NVIDIA's nvdisasm: put it on PATH or "
                "install the pip package nvidia-cuda-nvdisasm, or give the listing nvdisasm -hex prints"
            )
        return cubin_lines(sass, tool, encodings=True)
    kind, lines = sniff(text_lines(sass, "SASS listing"))
    if kind != "sass":
        raise TmemvizError(
            f"--sass {sass} is not SASS; give the cubin ptxas made of the PTX, or the listing nvdisasm "
            "-hex or cuobjdump -sass prints of it"
        )
    return lines


def against_sass(
    findings: list[Finding], records: list[dict[str, Any]], path: str, given: Sass, catalog: Catalog,
    explainer: Any,
) -> list[Finding]:  # fmt: skip
    """``findings`` with each wait-ld warning judged against the SASS ``given`` (read here, once, and
    only when there is a warning to judge: only its functions are kept)."""
    from tmemviz.families.check.scoreboards import judged, places_of, wanted
    from tmemviz.families.explain.machine import sass_records
    from tmemviz.families.explain.pairing import light
    from tmemviz.families.explain.scan import Module
    from tmemviz.sass.waits import Collector

    sass, lines = given
    function_of = {r["line"]: r.get("function") for r in records if "line" in r}
    need = wanted(findings, function_of)
    if not need:
        return findings
    collector = Collector(need)
    made = sass_records(Module(sass), lines, catalog, explainer, observe=collector, only=need)
    kept = [light(r) for r in made]
    collector.close()
    if not collector.encoded:
        raise TmemvizError(
            f"--sass {sass} prints no instruction encodings, so its scoreboards cannot be read; give the "
            "cubin, or the listing nvdisasm -hex or cuobjdump -sass prints"
        )
    missing = sorted(n for n in need if n not in collector.functions)
    if len(missing) == len(need):
        raise TmemvizError(
            f"--sass {sass} holds no function {missing[0]} of {path}; give the SASS ptxas made of that PTX"
        )
    ptx = [light(r) for r in records if r.get("function") in need]
    return judged(findings, places_of(ptx, kept), collector.functions, function_of)
