"""One PTX instruction as compilers print it: guard, opcode, operands, address, register vector.

Shared by every family that reads PTX text. Pure: no I/O. Accepts what Triton,
nvcc and hand-written inline asm produce (PTX ISA 4 "Syntax"):

* a guard predicate ``@%p2`` or ``@!%p2`` (PTX 9.3 "Predicated execution");
* an address ``[%r2]``, ``[%r2+16]``, ``[%r2 + 1048576]``, ``[ %r149 + 0 ]``, ``[%r2+-4]``
  or a bare immediate ``[0x10]`` (PTX 6.4 "Addresses as operands");
* integer immediates in decimal, hex ``0x..``, binary ``0b..``, octal ``0..`` with an optional
  ``U`` suffix (PTX 4.5.1 "Integer constants");
* register vectors ``{%r1, %r2, ...}`` that may span lines;
* a trailing ``// comment`` or ``/* comment */`` and any extra whitespace.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from tmemviz.errors import TmemvizError
from tmemviz.ptx.text import GUARD as _GUARD
from tmemviz.ptx.text import is_instruction as is_instruction  # re-exported: families import it here
from tmemviz.ptx.text import strip_comment as strip_comment
from tmemviz.tmem import lane_col

_OPCODE = re.compile(r"[^\s{\[]+")
MAX_DIGITS = 40
"""An integer constant of PTX is at most 64 bits (PTX 4.5.1): 22 octal digits, 64 binary digits; longer
digit strings are refused before Python converts them (it will not convert over 4,300 digits)."""
_INT = re.compile(r"^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?$")
_GUARD_TOKEN = re.compile(r"@!?\s*%?[\w$.]+\s+")
_OPERAND_START = re.compile(r"[\s{\[(]")
_PLUS = re.compile(r"\s*\+\s*")
_NAME = re.compile(r"%?[A-Za-z_$][\w$]*")


@dataclass(frozen=True)
class Address:
    """``[base + offset]``: a base register (or None for an absolute immediate) and a byte/cell offset."""

    base: str | None
    offset: int

    @property
    def lane_col(self) -> tuple[int, int]:
        """The offset read as a TMEM address: lane in bits 31:16, column in bits 15:0 (PTX 9.7.16.2).

        A negative immediate is refused here: added to the base register as a 32-bit sum it borrows
        from the lane, so where it lands depends on the base's value (:meth:`lane_col_from` adds it).

        >>> Address("%r2", 1048576).lane_col, Address("%r2", 128).lane_col
        ((16, 0), (0, 128))
        """
        self._check()
        if self.offset < 0:
            raise TmemvizError(
                f"the address immediate {self.offset} is negative: where [{self.base or ''} + {self.offset}] "
                "lands depends on the base register's value (a 32-bit add borrows from its lane); "
                "give that value with --taddr"
            )
        return lane_col(self.offset)

    def lane_col_from(self, taddr: tuple[int, int]) -> tuple[int, int]:
        """The offset from ``taddr`` (the base register's lane, column) to where the address lands, as
        ptxas adds them: one 32-bit add (PTX 9.7.16.2).

        >>> Address("%r2", -4).lane_col_from((1, 2))
        (-1, 65532)
        """
        self._check()
        lane, col = lane_col(((taddr[0] << 16) | taddr[1]) + self.offset)
        return lane - taddr[0], col - taddr[1]

    def lane_col_at(self, taddr: tuple[int, int] | None) -> tuple[int, int]:
        """:attr:`lane_col` without a base value; :meth:`lane_col_from` the given one (``--taddr``)."""
        return self.lane_col if taddr is None else self.lane_col_from(taddr)

    def _check(self) -> None:
        if not -(1 << 31) <= self.offset < 1 << 32:
            raise TmemvizError(
                f"the address immediate {self.offset} does not fit a 32-bit TMEM address "
                "(lane in bits 31:16, column in bits 15:0, PTX 9.7.16.2)"
            )


@dataclass(frozen=True)
class PtxLine:
    """One instruction statement, split but not interpreted."""

    text: str
    """The statement as given, whitespace collapsed, comments removed, without the ``;``."""
    guard: str | None
    """The guard predicate as written, ``%p2`` or ``!%p2``; None when unguarded."""
    opcode: str
    """``tcgen05.st.sync.aligned.16x64b.x8.b32``."""
    operands: tuple[str, ...]
    """Operands split at top-level commas, each stripped: ``("[%r2 + 0]", "{%r3, %r4}")``."""
    comment: str | None = None
    """A trailing ``// comment`` without the slashes, when there was one."""

    @functools.cached_property
    def qualifiers(self) -> tuple[str, ...]:
        """The opcode split at dots: ``("tcgen05", "st", "sync", ...)`` (kept: a line is immutable and
        :func:`parse_statement` gives the same one for the same text)."""
        return tuple(t for t in self.opcode.split(".") if t)

    def address(self) -> Address | None:
        """The first ``[...]`` operand, parsed; None when there is none."""
        for operand in self.operands:
            if operand.startswith("["):
                return parse_address(operand)
        return None

    def vectors(self) -> tuple[tuple[str, ...], ...]:
        """Every ``{...}`` operand as a tuple of register names, in order."""
        return self._vectors

    @functools.cached_property
    def _vectors(self) -> tuple[tuple[str, ...], ...]:
        return tuple(parse_vector(o) for o in self.operands if o.startswith("{"))

    def immediates(self) -> tuple[int, ...]:
        """Every operand that is an integer immediate, in order."""
        return tuple(v for v in (parse_immediate(o) for o in self.operands) if v is not None)


def parse_line(text: str) -> PtxLine:
    """Split one PTX statement (possibly spanning lines) into guard, opcode and operands.

    >>> line = parse_line("@%p2 tcgen05.st.sync.aligned.16x64b.x2.b32 [%r2 + 1048576], {%r3,\\n %r4};")
    >>> line.guard, line.opcode, line.operands
    ('%p2', 'tcgen05.st.sync.aligned.16x64b.x2.b32', ('[%r2 + 1048576]', '{%r3, %r4}'))
    >>> line.address(), line.vectors()
    (Address(base='%r2', offset=1048576), (('%r3', '%r4'),))
    >>> parse_line("  @!%p1  tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd5]; // c").guard
    '!%p1'
    """
    code, comment = strip_comment(text)
    code = " ".join(code.split()).strip()
    code = code[:-1].rstrip() if code.endswith(";") else code
    return _split(code, comment)


def parse_collapsed(text: str) -> PtxLine:
    """:func:`parse_line` of a statement whose whitespace is collapsed already (one space between words,
    none at its ends: a function body's instruction, :class:`tmemviz.ptx.body.Instruction`): the same
    line, without looking again for what such a text has not.

    >>> parse_collapsed("@!%p1 mov.b32 %r1, %r2") == parse_line("@!%p1 mov.b32 %r1, %r2;")
    True
    """
    if "/" in text or text.endswith(";"):  # a comment, or the statement's end: the general way
        return parse_line(text)
    return _split(text, None)


def _split(code: str, comment: str | None) -> PtxLine:
    """The line of one statement's code (its whitespace collapsed, no comment, no final ``;``)."""
    if ";" in code:
        raise TmemvizError(f"'{code}' holds more than one PTX statement; give one")
    if not code:
        raise TmemvizError(
            "the PTX line is empty; give one instruction such as tcgen05.wait::ld.sync.aligned;"
        )
    guard = None
    if code[0] == "@":  # (the guard's pattern starts with one)
        m = _GUARD.match(code)
        if m is None:
            raise TmemvizError(
                f"'{code}' has a guard but no instruction after it; write @%p1 opcode operands"
            )
        guard = m.group(1) + m.group(2)
        code = code[m.end() :]
    m = _OPCODE.match(code)
    if m is None:
        raise TmemvizError(f"'{code[:80]}' does not start with a PTX opcode such as tcgen05.ld.sync.aligned")
    # nvcc prints inline asm as written: `...b32{%r1, %r2},[%r3]` needs no space after the opcode.
    opcode, rest = m.group(0), code[m.end() :]
    return PtxLine(code, guard, opcode, split_operands(rest), comment)


@functools.lru_cache(maxsize=4096)
def parse_statement(text: str) -> PtxLine:
    """:func:`parse_line`, remembered for the last few thousand distinct texts: a module repeats the same
    statement (``tcgen05.wait::ld.sync.aligned``, a commit to the same mbarrier register) many times and
    a :class:`PtxLine` is immutable. Errors are raised again each time (not remembered)."""
    return parse_line(text)


def opcode_of(text: str) -> tuple[str, str]:
    """(opcode, the rest) of an instruction's text, guard skipped, without parsing its operands.

    >>> opcode_of("@!%p1 bra.uni $L__BB0_2"), opcode_of("tcgen05.ld.sync.aligned.32x32b.x1.b32{%r1},[%r2]")
    (('bra.uni', '$L__BB0_2'), ('tcgen05.ld.sync.aligned.32x32b.x1.b32', '{%r1},[%r2]'))
    """
    if text[:1] == "@":
        m = _GUARD_TOKEN.match(text)
        if m:
            text = text[m.end() :]
    m = _OPERAND_START.search(text)
    if m is None:
        return text, ""
    return text[: m.start()], text[m.start() :].strip()


def opcode_head_rest(text: str, first: str | None = None) -> tuple[str, str, str]:
    """(opcode, its head before the first dot, the rest) of an instruction's text, guard skipped: what
    :func:`opcode_of` gives, without its regex in the common case (``op.type  operands``). ``first``:
    the text's first word, where the caller split a text already collapsed (one space between words).

    >>> opcode_head_rest("@%p1 mov.b32 %r1, 5"), opcode_head_rest("ret")
    (('mov.b32', 'mov', '%r1, 5'), ('ret', 'ret', ''))
    >>> opcode_head_rest("bar.sync 0", "bar.sync"), opcode_head_rest("@%p bra L", "@%p")
    (('bar.sync', 'bar', '0'), ('bra', 'bra', 'L'))
    """
    if first is None:
        parts = text.split(None, 1)
        opcode, rest = parts[0], parts[1] if len(parts) > 1 else ""
    else:
        opcode, rest = first, text[len(first) + 1 :]
    if opcode[:1] == "@" or "{" in opcode or "[" in opcode:
        opcode, rest = opcode_of(text)
    dot = opcode.find(".")
    return opcode, (opcode[:dot] if dot > 0 else opcode), rest


@functools.lru_cache(maxsize=1024)
def opcode_types(opcode: str) -> tuple[tuple[str, ...], int, bool, bool]:
    """An opcode's dot-separated parts, the width and signedness of its last integer type (32 bits when
    it names none), and whether it names a floating-point type; remembered per opcode (a module has a
    few hundred).

    >>> opcode_types("mad.wide.s32")[1:], opcode_types("setp.lt.f32")[1:], opcode_types("mov.pred")[1:]
    ((32, True, False), (32, False, True), (32, False, False))
    """
    parts = tuple(opcode.split("."))
    types = [p for p in parts[1:] if p[:1] in "bsu" and p[1:].isdigit()]
    floating = any(p[:1] == "f" and p[1:].isdigit() for p in parts[1:])
    return parts, int(types[-1][1:]) if types else 32, bool(types) and types[-1][0] == "s", floating


def split_operands(text: str) -> tuple[str, ...]:
    """Split at commas outside ``{}``/``[]``/``()``; each operand has its inner spaces normalised.

    >>> split_operands("{%r1, %r2}, [ %r3 + 0 ], 16")
    ('{%r1, %r2}', '[%r3 + 0]', '16')
    """
    simple = "{" not in text and "(" not in text and "]" not in text.split("[", 1)[0]
    if simple and text.count("[") == text.count("]"):
        # No vector, no parenthesis: an address holds no comma, so the commas split (the common case;
        # without an address, each operand is only stripped).
        parts = text.split(",")
        out = tuple(_tidy(p) for p in parts) if "[" in text else tuple(map(str.strip, parts))
        if out == ("",):
            return ()
        if "" in out:
            raise TmemvizError(f"'{text}' has an empty operand between commas")
        return out
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth < 0:
                raise TmemvizError(f"'{text}' closes a bracket it never opened")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise TmemvizError(f"'{text}' opens a bracket it never closes")
    parts.append(text[start:])
    out = tuple(_tidy(p) for p in parts)
    if out == ("",):
        return ()
    if "" in out:
        raise TmemvizError(f"'{text}' has an empty operand between commas")
    return out


def _tidy(operand: str) -> str:
    """``[ %r3+0 ]`` -> ``[%r3 + 0]``; ``{ %r1 ,%r2 }`` -> ``{%r1, %r2}``; others stripped."""
    operand = operand.strip()
    if operand.startswith("[") and operand.endswith("]"):
        inner = _PLUS.sub(" + ", operand[1:-1].strip())
        return f"[{inner}]"
    if operand.startswith("{") and operand.endswith("}"):
        return "{" + ", ".join(x.strip() for x in operand[1:-1].split(",")) + "}"
    return operand


def parse_immediate(text: str) -> int | None:
    """A PTX integer constant's value, or None when ``text`` is not one.

    >>> parse_immediate("0x10"), parse_immediate("136314896"), parse_immediate("%r2"), parse_immediate("8U")
    (16, 136314896, None, 8)
    """
    m = _INT.match(text.strip())
    if not m:
        return None
    digits = m.group(2)
    if len(digits) > MAX_DIGITS + 2:
        raise TmemvizError(
            f"the integer constant {digits[:12]}... has {len(digits)} digits; PTX integer constants are "
            "64-bit (PTX 4.5.1)"
        )
    if digits[:2].lower() == "0x":
        value = int(digits, 16)
    elif digits[:2].lower() == "0b":
        value = int(digits[2:], 2)
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits, 8)
    else:
        value = int(digits)
    return -value if m.group(1) == "-" else value


def parse_address(text: str) -> Address:
    """``[%r2]``, ``[%r2+16]``, ``[%r2 + 0x100000]``, ``[%r2+-4]``, ``[64]``.

    >>> parse_address("[ %r149 + 0 ]"), parse_address("[%r2+0x10]"), parse_address("[32]")
    (Address(base='%r149', offset=0), Address(base='%r2', offset=16), Address(base=None, offset=32))
    """
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise TmemvizError(f"'{text}' is not an address; write it as [%r2] or [%r2 + 16]")
    terms = [t.strip() for t in inner[1:-1].split("+")]
    base: str | None = None
    offset = 0
    for term in terms:
        value = parse_immediate(term)
        if value is not None:
            offset += value
        elif _NAME.fullmatch(term) and base is None:
            base = term
        else:
            raise TmemvizError(f"'{text}' is not an address PTX allows: use [reg], [reg + imm] or [imm]")
    return Address(base, offset)


def parse_vector(text: str) -> tuple[str, ...]:
    """``{%r1, %r2}`` -> ``("%r1", "%r2")``; ``{}`` is refused.

    >>> parse_vector("{ %r1 ,%r2 }")
    ('%r1', '%r2')
    """
    inner = text.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        raise TmemvizError(f"'{text}' is not a register vector; write it as {{%r1, %r2}}")
    items = tuple(x.strip() for x in inner[1:-1].split(","))
    if not any(items) or "" in items:
        raise TmemvizError(f"'{text}' has an empty register in its vector")
    return items
