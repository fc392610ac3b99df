"""What the reader keeps while inside one function: its constants, its allocs and deallocs, its first
``.cta_group`` (:func:`tmemviz.ptx.stream.events` makes one per ``.entry``/``.func``).

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tmemviz.ptx.line import PtxLine
from tmemviz.ptx.registers import Constants


@dataclass
class FunctionState:
    """What the readers keep while inside one .entry/.func (a new one per function)."""

    name: str | None
    constants: Any = field(default_factory=Constants)
    """:class:`~tmemviz.ptx.registers.Constants`, or :class:`~tmemviz.ptx.lazy.Lazy` (``every=False``)."""
    allocs: list[tuple[int, PtxLine]] = field(default_factory=list)
    deallocs: list[tuple[int, PtxLine]] = field(default_factory=list)
    cta_group: tuple[int, int] | None = None
    """The first .cta_group seen, and its line."""
