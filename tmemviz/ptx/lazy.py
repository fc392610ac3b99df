"""Constant values of registers found when asked: what :class:`~tmemviz.ptx.registers.Constants` would
hold at a point of a function, without following every instruction before it.

``explain`` needs a register's value at a few tcgen05 instructions only (an MMA's instruction
descriptor, an alloc's column count). Following every ``mov`` and ``add`` of a 700,000-line module to
answer them costs most of its reading time, so the reader keeps the function's plain lines as text
(:class:`~tmemviz.ptx.statements.Gate`) and the statements it read one by one as a list, and this
module looks back from the asking instruction for the last statement that wrote the register, then
evaluates that one (its own sources asked the same way, at its place). The answer is the eager
tracker's, by construction: the same rules decide what a statement does to a register
(:func:`tmemviz.ptx.effect.effect`), and the same evaluation gives its value
(:func:`tmemviz.ptx.registers.evaluate`).
A chain of writes too long to follow back is followed forward instead (:func:`tmemviz.ptx.effect.replay`).

Over paths (:meth:`Lazy.complete`, once the whole function is read: explain asks then): the last write
before an instruction in the text is what reaches it on every path only when no label lies between the
two (a branch may enter there). Where one does, a register written once in the function still holds
that write's value; one written more than once holds one of the values of all its writes (two paths
that set it differently; a loop that steps it, whose value then depends on itself: unknown). Without
it, the text's order alone (what the eager tracker and ``check``'s deferred reading follow).

Pure: no I/O.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from tmemviz.errors import TmemvizError
from tmemviz.ptx.constants import Value, choice, const
from tmemviz.ptx.effect import Position, Sources, effect, plain_statement, replay
from tmemviz.ptx.gate import label_alone, nothing
from tmemviz.ptx.line import parse_immediate
from tmemviz.ptx.names import is_name, whole
from tmemviz.ptx.registers import (
    applied,
    destinations,
    evaluated,
    parse_constant_op,
    worth_evaluating,
)
from tmemviz.ptx.segments import Segment, finds, line_starts

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_LABEL_LINE = re.compile(r"\n[ \t]*[A-Za-z_$][\w$]*[ \t]*:(?!:)")
"""A kept line that starts with a label (PTX 4.3: an identifier and a colon), after its line's start
(a newline: a literal the search skips to quickly)."""
_END: Position = (1 << 62, 0)
_DEPTH = 200
"""Writes followed back before the chain is followed forward instead (Python's stack is not deep)."""


class _TooDeep(Exception):
    pass


class Lazy:
    """One function's constants, answered at :attr:`point` (what ``get`` reads).

    ``keep``: the function's lines from line ``base`` on, a line the reader skipped as its text (a plain
    line; or one that holds no statement, passed over in a run: :func:`~tmemviz.ptx.gate.runs`), any other
    as ``"\\n"``; :meth:`note` adds each statement read one by one, in order.
    """

    def __init__(self, keep: list[str] | None = None, base: int = 0) -> None:
        self.keep: list[str] = keep if keep is not None else []
        self.base = base
        self.point: Position = (0, 0)
        self.problems: list[tuple[int, str]] = []
        """(line, message) of statements asked about that could not be read; the reader takes them."""
        self._order = 0
        self._positions: list[Position] = []
        self._texts: list[str] = []
        self._segments: list[Segment] = []
        self._firsts: list[int] = []  # each segment's first line (from base), for a search's range
        self._joined = 0  # pieces of keep joined into segments
        self._dropped = 0  # pieces no longer in keep: all joined (seal)
        self._lines = 0  # lines (from base) joined into segments
        self._last: dict[str, tuple[Position, tuple[Position, str] | None]] = {}
        self._values: dict[tuple[str, Position], Value | None] = {}
        """By register and the position of the write that set it: what it holds after that write."""
        self._reported: set[Position] = set()
        self._depth = 0
        self._labels: list[int] = []
        """Lines that hold a label (read one by one, or found in the kept lines when joined)."""
        self.paths = False
        """The whole function is read (:meth:`complete`): values are those of every path."""
        self._reaching: dict[str, Value | None] = {}
        self._joining: set[str] = set()
        self._index: dict[str, list[int]] | None = None
        """Name -> the statements read one by one that may write it (made when first needed)."""
        self._asked: dict[str, tuple[Value | None, int, int]] = {}
        """By register: what :meth:`get` answered last, and how many pieces had been kept and statements
        read one by one then (an MMA's descriptor is asked again at each MMA of a loop)."""

    def note(self, first: int, text: str) -> None:
        """An instruction read one by one (``first``: its first line); it is the point asked at next."""
        self._order += 1
        self.point = (first, self._order)
        self._positions.append(self.point)
        self._texts.append(text)

    def label(self, line: int) -> None:
        """A label read one by one, on ``line``."""
        bisect.insort(self._labels, line)

    def complete(self) -> None:
        """The function is read whole: from now on values are looked for over its paths."""
        self._join()
        self.paths = True
        self._values.clear()
        self._last.clear()
        self._asked.clear()

    def get(self, operand: str) -> Value | None:
        """What ``operand`` (a register or an immediate) holds once the statement at :attr:`point` is
        done (a tcgen05.ld's own destinations are forgotten, as the eager tracker has them at its event)."""
        if is_name(operand):
            last = None if self.paths else self._asked.get(operand)
            if last is not None and not self._written_since(operand, last[1], last[2]):
                value = last[0]  # nothing since the last ask writes it: the same value
            else:
                after = (self.point[0], self.point[1] + 1)
                try:
                    value = self.value(operand, after)
                except _TooDeep:
                    # Too long a chain: followed forward in the text's order, or over paths not at all.
                    value = None if self.paths else replay(self, operand, after)
            if not self.paths:  # over paths every ask is looked for (where the answer was may differ)
                self._asked[operand] = (value, self._dropped + len(self.keep), len(self._texts))
            if value is not None:
                return value
        number = parse_immediate(operand)
        return const(number, 64) if number is not None else None

    def _written_since(self, name: str, kept: int, noted: int) -> bool:
        """Whether ``name`` may be written in the pieces kept from the ``kept``-th on or the statements read
        one by one from the ``noted``-th on (True for any plain line that names it, or when those pieces
        were let go since: the full search decides). The pieces are searched as kept, not joined."""
        if kept < self._dropped:
            return True
        found = whole(name)
        for piece in self.keep[kept - self._dropped :]:
            if found.search(piece):
                return True
        for text in self._texts[noted:]:
            if name in text:
                e = effect(text)
                if e is not None and name in e.names:
                    return True
        return False

    def value(self, name: str, where: Position) -> Value | None:
        """What register ``name`` holds just before ``where``."""
        while True:
            found = self._last_write(name, where)
            if found is None:
                return None
            if self.paths and self._crossed(found[0][0], where[0]):
                return self._every_write(name)
            # Inline, not through _after: each level of a chain of writes costs stack frames (_DEPTH).
            key = (name, found[0])
            if key in self._values:
                return self._values[key]
            self._depth += 1
            try:
                if self._depth > _DEPTH:
                    raise _TooDeep
                done, value = self._written(name, *found)
            finally:
                self._depth -= 1
            if done:
                self._values[key] = value
                return value
            where = found[0]  # the statement changed nothing: what came before it stands

    def _after(self, name: str, found: tuple[Position, str]) -> tuple[bool, Value | None]:
        """(whether the statement ``found`` set ``name``, what it holds after), remembered by the write."""
        key = (name, found[0])
        if key in self._values:
            return True, self._values[key]
        self._depth += 1
        try:
            if self._depth > _DEPTH:
                raise _TooDeep
            done, value = self._written(name, *found)
        finally:
            self._depth -= 1
        if done:
            self._values[key] = value
        return done, value

    def _crossed(self, line: int, before: int) -> bool:
        """Whether a label lies after ``line``, on or before line ``before``: a branch may enter there."""
        at = bisect.bisect_right(self._labels, line)
        return at < len(self._labels) and self._labels[at] <= before

    def _every_write(self, name: str) -> Value | None:
        """What ``name`` holds where a branch may bring any of its writes: one of their values (None when
        one is unknown, or depends on the register itself: a loop steps it)."""
        if name in self._reaching:
            return self._reaching[name]
        if name in self._joining:
            return None  # its own value around a loop
        self._joining.add(name)
        try:
            values: list[Value] = []
            for found in self._writes_of(name):
                done, value = self._after(name, found)
                if not done:
                    continue
                if value is None:
                    values = []
                    break
                values.append(value)
            result = choice(*values) if values else None
        finally:
            self._joining.discard(name)
        if not self._joining:  # not inside another register's loop: the answer is whole
            self._reaching[name] = result
        return result

    def _writes_of(self, name: str) -> list[tuple[Position, str]]:
        """Every statement of the function that may write ``name``: the statements read one by one from
        an index made once (by what each writes), the kept lines searched for the name."""
        if self._index is None:
            self._index = {}
            for i, text in enumerate(self._texts):
                e = effect(text)
                for n in e.names if e is not None else ():
                    self._index.setdefault(n, []).append(i)
        found = [(self._positions[i], self._texts[i]) for i in self._index.get(name, ())]
        before = _END[0]
        while (plain := self._plain_write(name, 0, before)) is not None:
            found.append(plain)
            before = plain[0][0]
        return sorted(found)  # in the text's order, however the lines were read

    def _written(self, name: str, where: Position, text: str) -> tuple[bool, Value | None]:
        """(whether ``text`` at ``where`` set ``name``, what it holds after) under the eager rules."""
        e = effect(text)
        if e is None or name not in e.names:
            return False, None
        if e.kind == "forget":
            return True, None
        sources = Sources(self, where)
        if e.opcode.endswith(".pred") or not worth_evaluating(e.head, e.rest, sources):
            return True, None
        try:
            line = parse_constant_op(text, e.opcode, e.rest)
            written = destinations(line)
            if name not in written:
                return False, None
            new = evaluated(line, written, sources.operand)
        except TmemvizError as exc:  # the statement is not read: the register keeps what it held
            if where not in self._reported:
                self._reported.add(where)
                self.problems.append((where[0], f"not read as PTX: {exc}"))
            return False, None
        old = sources.value(name) if line.guard and name in new else None
        return True, applied(line, name, new, old)

    # -- finding the last write ------------------------------------------------------------------

    def _last_write(self, name: str, where: Position) -> tuple[Position, str] | None:
        """The last statement before ``where`` that may write ``name`` (its position and text)."""
        memo = self._last.get(name)
        if memo is not None and memo[0] <= where:
            since, before = memo
        else:
            since, before = (0, 0), None
        found = self._search(name, since, where) or before
        if memo is None or where >= memo[0]:
            self._last[name] = (where, found)
        return found

    def _search(self, name: str, since: Position, where: Position) -> tuple[Position, str] | None:
        plain = self._plain_write(name, since[0], where[0])
        low = bisect.bisect_left(self._positions, plain[0] if plain else since)
        texts, positions = self._texts, self._positions
        for i in range(bisect.bisect_left(positions, where) - 1, low - 1, -1):
            text = texts[i]
            if name in text:
                e = effect(text)
                if e is not None and name in e.names:
                    return positions[i], text
        return plain

    def _plain_write(self, name: str, since: int, before: int) -> tuple[Position, str] | None:
        """The last plain line from line ``since`` up to (not with) ``before`` that may write ``name``."""
        self._join()
        stop = before - self.base  # line indices (from base) below this
        start = since - self.base
        size = len(name)
        bare = name[:1] != "%"
        segments = self._segments
        upto = bisect.bisect_left(self._firsts, stop)  # segments starting before ``stop``
        for k in range(upto - 1, -1, -1):
            segment = segments[k]
            first, text = segment.first, segment.text
            last = first + segment.count
            if last <= start:
                break
            if first >= stop:
                continue
            end = segment.line_start(stop - first) if stop < last else len(text)
            skipped = start - first if start > first else 0  # lines before ``low``
            low = segment.line_start(skipped) if skipped else 0
            at = text.rfind(name, low, end)
            while at >= 0:
                after = text[at + size : at + size + 1]
                before = text[at - 1 : at] if bare and at else ""
                if (after and after in _WORD) or (before and (before in _WORD or before in ".%")):
                    at = text.rfind(name, low, at)  # a longer name (%r35 for %r3): look on, this line too
                    continue
                line_start = text.rfind("\n", 0, at) + 1
                line_end = text.find("\n", at)
                code = plain_statement(text[line_start : line_end if line_end >= 0 else len(text)])
                if code is not None and name in code:  # the whole statement says whether it writes name
                    e = effect(code)
                    if e is not None and name in e.names:
                        index = first + skipped + text.count("\n", low, line_start)
                        return (self.base + index, 0), code
                at = text.rfind(name, low, line_start)
        return None

    def _join(self) -> None:
        """Join the kept lines not joined yet into one more searchable segment."""
        keep = self.keep
        end = self._dropped + len(keep)
        if self._joined < end:
            text = "".join(keep[self._joined - self._dropped :])
            count = text.count("\n")  # each piece kept is whole lines, each with its newline
            if ":" in text:
                line, seen = self.base + self._lines, 0
                for m in _LABEL_LINE.finditer("\n" + text):
                    at = m.start()  # where the label's line starts in ``text``
                    line += text.count("\n", seen, at)
                    seen = at
                    bisect.insort(self._labels, line)
            self._segments.append(Segment(self._lines, text, count))
            self._firsts.append(self._lines)
            self._lines += count
            self._joined = end

    def seal(self) -> None:
        """Join the kept lines and let them go: a long function costs its text, not a string per line."""
        self._join()
        self._dropped += len(self.keep)
        del self.keep[:]

    def plain_lines(self, word: str | None = None) -> Iterator[tuple[int, str]]:
        """(line number, text) of every plain line kept (that holds ``word``, when given: found in the
        joined text, not line by line), in order; not the lines kept that hold no statement (a comment,
        a ``.loc``, a label alone, a blank line, a scope's braces, passed over in a run: gate.runs)."""
        self._join()
        for segment in self._segments:
            text = segment.text
            if word is None:
                starts = line_starts(text)
            else:
                starts = (text.rfind("\n", 0, at) + 1 for at in finds(text, word))
            index, seen = 0, 0  # a line's index and where it starts, counted on from the last one
            for start in starts:
                if start < seen:
                    continue  # the word twice on one line
                index += text.count("\n", seen, start)
                seen = end = text.find("\n", start) + 1 or len(text)
                line = text[start:end]
                code = line.strip()
                if (
                    code
                    and index < segment.count
                    and code not in ("{", "}")
                    and not nothing(code)
                    and not label_alone(code)
                ):
                    yield self.base + segment.first + index, line
                index += 1
