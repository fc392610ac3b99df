"""PTX text before it is parsed: its comments taken out, and whether a piece of text (a SHAPE argument,
say) is an instruction at all. Kept apart from :mod:`tmemviz.ptx.line` so that telling a name from an
instruction costs no more than these two regular expressions: a one-shot command given a name never
loads the parser.

Pure: no I/O.
"""

from __future__ import annotations

import re

GUARD = re.compile(r"^@(!?)\s*(%?[\w$.]+)\s+")
"""A guard predicate in front of an instruction (PTX 9.3 "Predicated execution")."""
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def strip_comment(text: str) -> tuple[str, str | None]:
    """Remove ``/* */`` comments and a trailing ``// comment``; return the code and the comment.

    >>> strip_comment("tcgen05.wait::ld.sync.aligned; // wait")
    ('tcgen05.wait::ld.sync.aligned; ', 'wait')
    """
    text = _BLOCK_COMMENT.sub(" ", text)
    code, slashes, comment = text.partition("//")
    return code, comment.strip() if slashes else None


def is_instruction(text: str, prefix: str = "tcgen05.") -> bool:
    """Whether ``text`` (a SHAPE argument, say) is a PTX statement starting with ``prefix``.

    >>> is_instruction("@%p2 tcgen05.st.sync.aligned.16x64b.x8.b32 [%r2], {%r3};"), is_instruction("16x64b")
    (True, False)
    """
    code = strip_comment(text)[0].lstrip()
    m = GUARD.match(code)
    if m:
        code = code[m.end() :]
    return code.lower().startswith(prefix)
