"""The catalog every API function and command reads: the shipped shape files, ``$TMEMVIZ_LAYOUTS`` and
the ``layouts`` a call names (``--layouts``), each family read on first use."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

from tmemviz.catalog import ShapeKind
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.ldst.shapes import KIND as LDST

if TYPE_CHECKING:
    from tmemviz.catalog import Catalog

KINDS: tuple[ShapeKind[Any], ...] = (LDST, CP)
"""The families whose shape names a SHAPE argument may hold (for "use 'tmemviz cp'" hints)."""

PathLike = Union[str, os.PathLike[str]]


def catalog(layouts: Optional[Sequence[PathLike]] = None) -> Catalog:
    """The shipped shape files plus ``$TMEMVIZ_LAYOUTS`` and ``layouts``, each family read on first use."""
    from tmemviz.catalog import load_catalog

    dirs: list[PathLike] = [d for d in os.environ.get("TMEMVIZ_LAYOUTS", "").split(os.pathsep) if d]
    dirs += list(layouts or [])
    return load_catalog(dirs, KINDS, lazy=True)
