"""What the reader keeps while inside one function: its constants, the tcgen05.ld whose destination
registers have not all been read, the tcgen05.st not yet waited for, its allocs and deallocs
(:func:`tmemviz.ptx.stream.events` makes one per ``.entry``/``.func`` and says what each rule is).

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tmemviz.ptx.line import PtxLine
from tmemviz.ptx.registers import Constants, run_reads

MAX_PASSED_CHARS = 1 << 16
"""Text of runs passed while a load is pending (:attr:`FunctionState.passed`) past which their reads are
applied at once: memory stays bounded in a long pending window."""


@dataclass
class PendingLd:
    line: int
    registers: tuple[str, ...]
    unread: set[str]
    base: str | None = None


@dataclass
class PendingSt:
    line: int
    base: str | None
    cells: frozenset[tuple[int, int]]


@dataclass
class Hazard:
    """An access that may overtake an unfinished tcgen05.ld (``kind`` "ld") or st ("st")."""

    line: int
    what: str
    """The instruction that comes too early: ``tcgen05.st``, ``bar.sync``, ``tcgen05.ld`` ..."""
    kind: str
    source: int
    """The line of the unfinished ld/st."""
    unread: tuple[str, ...] = ()
    """ld: its destination registers not read before ``what``."""


@dataclass
class FunctionState:
    """What the checks keep while inside one .entry/.func (a new one per function)."""

    name: str | None
    constants: Any = field(default_factory=Constants)
    """:class:`~tmemviz.ptx.registers.Constants`, or :class:`~tmemviz.ptx.lazy.Lazy` (``every=False``)."""
    pending_ld: list[PendingLd] = field(default_factory=list)
    pending_st: list[PendingSt] = field(default_factory=list)
    allocs: list[tuple[int, PtxLine]] = field(default_factory=list)
    deallocs: list[tuple[int, PtxLine]] = field(default_factory=list)
    cta_group: tuple[int, int] | None = None
    """The first .cta_group seen, and its line."""

    passed: list[str] = field(default_factory=list)
    """Runs of plain lines passed while a tcgen05.ld was pending (``every=False``): their reads are
    applied where the pending loads are looked at (:meth:`settle`: a release, a tcgen05 instruction), or
    where they grow long; not at all where the window ends unread (a wait::ld, a label, a branch)."""
    passed_chars: int = 0

    def drop_pending(self) -> None:
        self.loads_waited()
        self.pending_st.clear()

    def loads_waited(self) -> None:
        """Every pending load complete (``tcgen05.wait::ld``): what read them, passed or not, no longer
        counts."""
        self.pending_ld.clear()
        self.passed.clear()
        self.passed_chars = 0

    def settle(self) -> None:
        """Apply the reads of the runs passed, in order, until no load is pending (a read completes a load
        whatever came between, so applying them later gives what applying them line by line gave)."""
        if not self.passed:
            return
        text = "".join(self.passed)
        self.passed.clear()
        self.passed_chars = 0
        # Piece by piece, each twice the last: loads are mostly all read well before the window ends,
        # and once none is pending the rest reads nothing that counts.
        at, size = 0, 256
        bare = any(r[:1] != "%" for p in self.pending_ld for r in p.unread)  # a load into `acc0`...
        while at < len(text) and self.pending_ld:
            end = text.find("\n", at + size) + 1 or len(text)  # whole lines
            self.read(run_reads(text[at:end], bare))
            at, size = end, 2 * size

    def passed_run(self, text: str) -> None:
        """A run of plain lines passed while a load is pending: its reads wait for :meth:`settle`."""
        self.passed.append(text)
        self.passed_chars += len(text)
        if self.passed_chars > MAX_PASSED_CHARS:
            self.settle()

    def read(self, names: list[str]) -> None:
        """Registers read: a pending ld whose destinations have all been read is complete."""
        if not names:
            return
        done = False
        for p in self.pending_ld:
            p.unread.difference_update(names)
            done = done or not p.unread
        if done:
            self.pending_ld = [p for p in self.pending_ld if p.unread]
