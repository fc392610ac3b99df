"""Code in one dialect: what every family's ``dialects`` module returns, and C++ asm helpers.

A kernel engineer writes the same instruction as a PTX line, a CUDA inline-asm
wrapper, a CCCL ``cuda::ptx`` call, a CUTLASS atom, a CuTe DSL op or a Triton
Gluon layout request. Each family spells its instructions in every dialect it
can; where a dialect cannot express one, ``code`` is None and the notes say why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

DIALECTS = ("ptx", "cuda", "cccl", "cutlass", "cute-dsl", "gluon")
"""Every dialect, in the order ``--emit all`` lists them."""

PER_LINE = 6
"""Operands per line in generated inline asm: long vectors stay readable."""


class Code(NamedTuple):
    """One instruction in one dialect; ``code`` is None where the dialect cannot express it."""

    dialect: str
    code: str | None
    notes: tuple[str, ...] = ()


def braced(names: Sequence[str]) -> str:
    """``{a, b, c}``: a PTX vector operand.

    >>> braced(["%r1", "%r2"])
    '{%r1, %r2}'
    """
    return "{" + ", ".join(names) + "}"


def asm_operands(items: Sequence[str], indent: str) -> str:
    """``"=r"(out[0]), ...`` wrapped :data:`PER_LINE` to a line, each line after the first indented.

    >>> print(asm_operands(['"r"(a)', '"r"(b)', '"r"(c)'], "  "))
    "r"(a), "r"(b), "r"(c)
    """
    lines = [", ".join(items[i : i + PER_LINE]) for i in range(0, len(items), PER_LINE)]
    return (",\n" + indent).join(lines)


def asm_string(text: str, indent: str, width: int = 96) -> str:
    """A C string literal of ``text``, split into adjacent literals at spaces to stay near ``width``.

    >>> asm_string("a b", "  ")
    '"a b"'
    """
    pieces: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if line and len(candidate) > width:
            pieces.append(line + " ")
            line = word
        else:
            line = candidate
    pieces.append(line)
    return ("\n" + indent).join(f'"{p}"' for p in pieces)
