"""tmemviz: exact data layouts of NVIDIA Blackwell Tensor Memory instructions.

Data flows one way: ``layouts/<family>/*.yaml`` -> a family's ``shapes``
(load and validate) -> its ``layout`` (pure functions) -> its ``views``,
``answers`` and ``figures`` (plain data) -> its ``document`` (one result in every
form) -> :mod:`tmemviz.draw` (Rich, JSON/CSV, matplotlib, HTML) -> :mod:`tmemviz.api`
(the functions below) and :mod:`tmemviz.cli` (the ``tmemviz`` command, built on them).

The Python API (``tmemviz.layout``, ``tmemviz.cp``, ``tmemviz.tile`` ...) is loaded on
first use, so ``import tmemviz`` costs almost nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

API = (
    *("layout", "pack", "cp", "decompress", "smem", "desc", "tile", "shift", "scales", "datapath"),
    *("idesc", "explain", "check", "emit"),
)
"""The functions of :mod:`tmemviz.api`, one per command that shows something."""

if TYPE_CHECKING:
    from tmemviz.api import (
        check,
        cp,
        datapath,
        decompress,
        desc,
        emit,
        explain,
        idesc,
        layout,
        pack,
        scales,
        shift,
        smem,
        tile,
    )
    from tmemviz.draw.document import Document, Record
    from tmemviz.errors import TmemvizError

__all__ = [
    "Document",
    "Record",
    "TmemvizError",
    "__version__",
    "check",
    "cp",
    "datapath",
    "decompress",
    "desc",
    "emit",
    "explain",
    "idesc",
    "layout",
    "pack",
    "scales",
    "shift",
    "smem",
    "tile",
]


def __dir__() -> list[str]:
    """What ``dir(tmemviz)`` and tab completion offer: the documented API, not only what is loaded."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    """Load the API (and its types) on first use, not at ``import tmemviz``."""
    if name in API:
        from tmemviz import api

        return getattr(api, name)
    if name in ("Document", "Record"):
        from tmemviz.draw import document

        return getattr(document, name)
    if name == "TmemvizError":
        from tmemviz.errors import TmemvizError

        return TmemvizError
    if name == "ptx":  # the package of that name is the PTX reader, an attribute once it is imported
        raise AttributeError(
            "tmemviz.ptx is the PTX reader package (import tmemviz.ptx.stream ...); the command "
            "'tmemviz ptx' is the function tmemviz.emit"
        )
    raise AttributeError(f"module 'tmemviz' has no attribute '{name}'")
