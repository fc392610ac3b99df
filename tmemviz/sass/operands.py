"""A SASS instruction's source operand read once: a register, a constant, or something not read.
Shared by what an instruction writes (:mod:`tmemviz.sass.writes`) and what registers then hold
(:mod:`tmemviz.sass.facts`). Pure: no I/O.
"""

from __future__ import annotations

import functools
import re

from tmemviz.ptx import constants as c

REGISTER = re.compile(r"^(U?R)(\d+)$")
"""A uniform or general register: its file (``UR``, ``R``) and number."""
_IMMEDIATE = re.compile(r"^-?(?:0x[0-9a-fA-F]+|\d+)$")


@functools.lru_cache(maxsize=8192)
def source(text: str) -> tuple[str | None, c.Value | None, bool, bool] | None:
    """A source operand read once: (register, or None; its value when it is a constant; negated;
    inverted). ``URZ``/``RZ`` is 0; ``-x`` negated, ``~x`` inverted; None for an operand not read (a
    predicate, a constant bank)."""
    negate, invert = text.startswith("-"), text.startswith("~")
    name = text.lstrip("-~")
    if name in ("URZ", "RZ"):
        return None, c.const(0), negate, invert
    if REGISTER.match(name):
        return name, None, negate, invert
    if _IMMEDIATE.match(text):
        digits = text.lstrip("-")
        number = int(digits, 16) if digits.startswith("0x") else int(digits)
        return None, c.const(-number if negate else number), False, False
    return None
