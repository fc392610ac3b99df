"""A function's kept lines joined into searchable text (:mod:`tmemviz.ptx.lazy` searches it backwards).

Pure: no I/O.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import accumulate


class Segment:
    """Kept lines joined into one searchable text: its first line (an index from ``base``), the text,
    how many lines it holds (each ends with its newline but the file's last at most)."""

    __slots__ = ("count", "first", "starts", "text")

    WALK = 64
    """Lines walked from the nearer end to find where one starts; past that, every line's start is
    worked out once (a search is mostly asked near an end: where the last one stopped)."""

    def __init__(self, first: int, text: str, count: int) -> None:
        self.first, self.text, self.count = first, text, count
        self.starts: array[int] | None = None  # lengths before each line, without the newlines

    def line_start(self, k: int) -> int:
        """Where line ``k`` of the segment starts in its text.

        >>> [Segment(0, "ab\\n\\nc\\n", 3).line_start(k) for k in range(4)]
        [0, 3, 4, 6]
        """
        text, count = self.text, self.count
        if self.starts is None and min(k, count - k) > self.WALK:
            self.starts = array("q", accumulate(map(len, text.split("\n")), initial=0))
        if self.starts is not None:
            return min(self.starts[k] + k, len(text))  # k newlines before line k
        if k <= count - k:
            at = 0
            for _ in range(k):
                at = text.find("\n", at) + 1
            return at
        at, m = len(text), count
        if text[-1:] != "\n" and count:  # the last line has no newline: it starts after the last one
            at, m = text.rfind("\n") + 1, count - 1
        while m > k:
            at = text.rfind("\n", 0, at - 1) + 1
            m -= 1
        return at


def line_starts(text: str) -> Iterator[int]:
    """Where each line of ``text`` starts."""
    at = 0
    while at < len(text):
        yield at
        at = text.find("\n", at) + 1 or len(text)


def finds(text: str, word: str) -> Iterator[int]:
    """Where ``word`` is in ``text``, each time."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)
