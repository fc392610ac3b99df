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


def dropped(guard: str | None, registers: Sequence[str]) -> tuple[str, ...]:
    """What a dialect other than PTX does not carry over from a PTX line given as input.

    >>> for note in dropped("%p1", ["%r3", "%r4"]):
    ...     print(note)
    the guard @%p1 is not part of the call: put the call under that predicate
    the line's registers (%r3, %r4) are the call's arguments here
    """
    notes = []
    if guard:
        notes.append(f"the guard @{guard} is not part of the call: put the call under that predicate")
    if registers:
        notes.append(f"the line's registers ({', '.join(registers)}) are the call's arguments here")
    return tuple(notes)


def as_written(
    codes: Sequence[Code], line: str | None, guard: str | None, registers: Sequence[str]
) -> list[Code]:
    """``codes`` for a PTX line given as input: the PTX dialect is ``line`` (its guard and register
    names kept, as the line wrote them); every other dialect says what it does not carry over."""
    lost = dropped(guard, registers)
    out = []
    for code in codes:
        if code.dialect == "ptx" and code.code is not None:
            code = code._replace(code=(f"@{guard} " if guard else "") + (line or code.code))
        elif code.dialect != "ptx":
            code = code._replace(notes=(*code.notes, *lost))
        out.append(code)
    return out
