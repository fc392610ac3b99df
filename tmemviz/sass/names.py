"""Validation of the SASS spellings the shape files of ``layouts/`` record (their ``sass`` fields).

A spelling is what nvdisasm prints before the operands: an opcode and dot-separated modifiers,
``LDTM.16dp32bit_t0_t15`` or ``UTCCP.T.S.2x64dp128bit_lw02_lw13``. A modifier word alone (``PACK16BIT``)
follows the same rule without dots.
"""

from __future__ import annotations

import re
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.files import describe

_SPELLING = re.compile(r"^[A-Z][A-Z0-9_]*(?:\.[0-9A-Za-z_]+)*$")
_WORD = re.compile(r"^[0-9A-Za-z_]*$")


def spelling(value: Any, source: str, field: str, opcode: str | None = None) -> str:
    """A checked ``OPCODE.modifier...`` spelling (starting with ``opcode`` when given).

    >>> spelling("LDTM.16dp64bit", "f.yaml", "sass.ld[0]", "LDTM")
    'LDTM.16dp64bit'
    >>> spelling("ldtm", "f.yaml", "sass.ld[0]")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: f.yaml: field 'sass.ld[0]': expected a SASS opcode and modifiers ...
    """
    if not isinstance(value, str) or not _SPELLING.match(value):
        raise TmemvizError(
            f"{source}: field '{field}': expected a SASS opcode and modifiers such as 'LDTM.16dp64bit', "
            f"got {describe(value)}"
        )
    if opcode is not None and value.split(".")[0] != opcode:
        raise TmemvizError(
            f"{source}: field '{field}': expected a spelling that starts with {opcode}, got '{value}'"
        )
    return value


def word(value: Any, source: str, field: str) -> str:
    """A checked modifier word (letters, digits, _; '' for one nvdisasm leaves unprinted)."""
    if not isinstance(value, str) or not _WORD.match(value):
        raise TmemvizError(
            f"{source}: field '{field}': expected a SASS modifier word such as 'PACK16BIT', "
            f"got {describe(value)}"
        )
    return value


def words(doc: Any, source: str, field: str, keys: tuple[str, ...]) -> dict[str, str]:
    """A mapping with exactly ``keys``, each a modifier word."""
    if not isinstance(doc, dict) or set(doc) != set(keys):
        raise TmemvizError(
            f"{source}: field '{field}': expected a mapping with exactly {', '.join(keys)}, "
            f"got {describe(doc)}"
        )
    return {k: word(doc[k], source, f"{field}.{k}") for k in keys}
