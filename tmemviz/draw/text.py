"""Text a figure shows, as typed: what both renderers (matplotlib, the HTML page) do to every string.

Titles, notes and labels may come from the user (``--title``, a user's shape names), so they are
literal: ``$5 and $6`` is not TeX (matplotlib is told ``parse_math=False``, and ``usetex`` is off),
and no character may make the SVG or the page invalid. XML 1.0 forbids the C0 controls other than
tab, newline and carriage return, lone surrogates (what Python makes of argv bytes that are not
UTF-8) and U+FFFE/U+FFFF; a figure's text is one line, so every control character is replaced.
"""

from __future__ import annotations

import re

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
SPACES = "\t\n\r\x0b\x0c"
"""Whitespace controls: shown as one space each (a figure's title, note or label is one line)."""


def _replace(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in SPACES:
        return " "
    if "\ud800" <= ch <= "\udfff" or ch in "\ufffe\uffff":
        return "\ufffd"  # not a character: the replacement character, as a decoder would show it
    return f"\\x{ord(ch):02x}"  # visible, as Python writes it, never silently dropped


def literal(text: str) -> str:
    """``text`` with every character XML forbids (and every other control) made visible and safe.

    >>> literal("cost $5 and $6"), literal("a\\tb\\nc"), literal("bell\\x07"), literal("bad\\udcff")
    ('cost $5 and $6', 'a b c', 'bell\\\\x07', 'bad\\ufffd')
    """
    return UNSAFE.sub(_replace, text) if UNSAFE.search(text) else text
