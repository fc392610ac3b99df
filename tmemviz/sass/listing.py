"""A SASS listing streamed as events: the target, each function, each source line note, each instruction.

The listing is the text ``nvdisasm -c`` (``-g`` adds ``//## File "k.py", line 14`` notes),
``cuobjdump -sass`` (``code for sm_100a``, ``Function : name``) or Nsight Compute's source view prints.
Pure: takes an iterable of lines and yields; a million-line listing costs one pass and flat memory.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tmemviz.sass.line import parse_sass

_TARGET = re.compile(r"^\s*(?:\.target\s+|code for\s+)(sm_\w+)")
_NVDISASM_FUNCTION = re.compile(r"^\s*\.text\.([\w$.]+):\s*$")
_CUOBJDUMP_FUNCTION = re.compile(r"^\s*Function\s*:\s*([\w$.]+)\s*$")
_ENCODING = re.compile(r"^/\*\s*0x([0-9a-fA-F]{16})\s*\*/$")
_SOURCE = re.compile(r'^\s*//##\s*File\s+"([^"]*)",\s*line\s+(\d+)')
_OFFSET = re.compile(r"/\*[0-9a-fA-F]{4,}\*/")
_PTX = re.compile(r"^\s*(?:\.version\b|\.(?:visible\s+|extern\s+|weak\s+)*\.?(?:entry|func)\b|tcgen05\.)")
_TCGEN05_SASS = re.compile(r"\b(?:LDTM|STTM|UTC[A-Z]+)\b")
SNIFF_LINES = 400
"""Lines read before deciding whether a text is PTX or SASS (a decisive line usually comes first)."""


@dataclass(frozen=True)
class Event:
    """One thing of the listing: ``kind`` is target, function, label, code (a line that may hold an
    instruction) or encoding (the high 64 bits of the instruction before, a line of their own in
    ``nvdisasm -hex`` and ``cuobjdump -sass``: its control bits, :mod:`tmemviz.sass.control`).

    ``source`` is the (file, line) of the last ``//## File`` note of the function, for code.
    """

    kind: str
    line: int
    value: str
    source: tuple[str, int] | None = None


def sniff(lines: Iterable[str]) -> tuple[str, Iterable[str]]:
    """Whether ``lines`` are ``"ptx"`` or ``"sass"`` (by content), and the same lines, none lost (a
    file's blocks too, :class:`tmemviz.files.TextLines`, for a reader that passes over many at once).

    >>> sniff(["\\t.target\\tsm_100a", "        /*0000*/  LDC R1, c[0x0][0x37c] ;"])[0]
    'sass'
    >>> sniff([".version 9.0", ".target sm_100a"])[0], sniff(["code for sm_100a"])[0]
    ('ptx', 'sass')
    """
    blocks = getattr(lines, "blocks", None)
    if blocks is not None:
        from tmemviz.files import Replayed, lines_of

        it = blocks()
        read: list[str] = []
        seen, kind = 0, None
        for block in it:
            read.append(block)
            first = lines_of(block, SNIFF_LINES - seen)
            kind = _kind(first)
            seen += len(first)
            if kind is not None or seen >= SNIFF_LINES:
                break
        return kind or "ptx", Replayed(read, it)
    it = iter(lines)
    seen_lines: list[str] = []
    found = _kind(_noted(itertools.islice(it, SNIFF_LINES), seen_lines))
    return found or "ptx", itertools.chain(seen_lines, it)


def _noted(lines: Iterable[str], seen: list[str]) -> Iterator[str]:
    """``lines``, each noted in ``seen`` as it is given (so none taken to sniff is lost)."""
    for text in lines:
        seen.append(text)
        yield text


def _kind(lines: Iterable[str]) -> str | None:
    """The language the first telling line of ``lines`` is in (``ptx``, ``sass``); None if none tells."""
    for text in lines:
        if _PTX.match(text):
            return "ptx"
        if (
            _OFFSET.search(text)
            or _CUOBJDUMP_FUNCTION.match(text)
            or _NVDISASM_FUNCTION.match(text)
            or text.lstrip().startswith(("code for sm_", ".elftype", ".headerflags"))
        ):
            return "sass"
        if _TCGEN05_SASS.search(text) and parse_sass(text) is not None:
            return "sass"
    return None


def events(lines: Iterable[str]) -> Iterator[Event]:
    """The listing's events in order; line numbers are 1-based lines of the text. Code lines are not
    parsed here (most are not tcgen05): :func:`tmemviz.sass.line.parse_sass` reads the ones wanted.

    >>> text = ['code for sm_100a', '  Function : k', '//## File "k.py", line 7',
    ...         '  /*0030*/   LDTM.x8 R4, tmem[UR4] ;   /* 0x0000000004047fee */',
    ...         '  /* 0x000e2200081c0000 */']
    >>> [(e.kind, e.line, e.source or e.value) for e in events(text)]  # doctest: +NORMALIZE_WHITESPACE
    [('target', 1, 'sm_100a'), ('function', 2, 'k'), ('code', 4, ('k.py', 7)),
     ('encoding', 5, '000e2200081c0000')]
    """
    source: tuple[str, int] | None = None
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text:
            continue
        head = text[0]
        if head == "/":
            if text.startswith("/* "):
                m = _ENCODING.match(text)
                if m:
                    yield Event("encoding", number, m.group(1))
                continue
            if text.startswith("//-"):
                continue  # a section ruler
            if text.startswith("//##"):
                m = _SOURCE.match(text)
                if m:
                    source = (m.group(1), int(m.group(2)))
                continue
            if text.startswith("/*"):
                yield Event("code", number, raw, source)
            continue
        if head == "." or text.endswith(":"):
            m = _NVDISASM_FUNCTION.match(text)
            if m:
                source = None
                yield Event("function", number, m.group(1))
                continue
            m = _TARGET.match(text)
            if m:
                yield Event("target", number, m.group(1))
            elif text.endswith(":"):
                yield Event("label", number, text[:-1])
            continue
        if text.startswith(("code for", "Function")):
            m = _TARGET.match(text) or _CUOBJDUMP_FUNCTION.match(text)
            if m:
                kind = "target" if text.startswith("code") else "function"
                if kind == "function":
                    source = None
                yield Event(kind, number, m.group(1))
                continue
        yield Event("code", number, raw, source)
