"""Where explained PTX comes from: files streamed line by line (``-`` is stdin), or a string.

Reading goes through :func:`tmemviz.files.text_lines`, as every family's shape files go through
:mod:`tmemviz.files`: one-line errors for binary or non-UTF-8 input, never a whole file in memory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tmemviz.catalog import Catalog
from tmemviz.draw.document import Document
from tmemviz.errors import TmemvizError


def explain_sources(files: Sequence[str | os.PathLike[str]], text: str | None, catalog: Catalog) -> Document:
    """Scan each file (then ``text``, named ``<text>``) with one explainer, as one document."""
    from tmemviz.families.explain.document import explain_document
    from tmemviz.families.explain.machine import read_module
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.pairing import pair_modules

    if not files and text is None:
        raise TmemvizError("give one or more PTX or SASS files or cubins (or - for standard input)")
    explainer = Explainer(catalog)
    # PTX, a SASS listing or a cubin, told by content (tmemviz/families/explain/machine.py).
    modules = [read_module(os.fspath(p), None, catalog, explainer) for p in files]
    if text is not None:
        modules.append(read_module("<text>", text.splitlines(), catalog, explainer))
    pair_modules(modules)
    return explain_document(modules)
