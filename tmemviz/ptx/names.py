"""Register names as PTX writes them: ``%r1`` or any identifier (PTX ISA 4.4 "Identifiers"; 5.1.1
"Register state space": a ``.reg`` declaration may name a register ``idesc`` or ``tmem_acc`` as well
as ``%r1``, and ``.reg .b32 %r<100>;`` or ``.reg .b32 acc<4>;`` declares ``%r0``..``%r99`` or
``acc0``..``acc3``).

Two questions, two answers:

* which names an operand holds (:data:`NAME`, :func:`names`): a ``%`` name or an identifier. An
  identifier in an operand is a register or the name of a variable, a label or a function; only a
  register can be an instruction's destination and only a register is a tcgen05.ld's, so a reader that
  follows what is *written* (constant values, pending loads) needs no declaration to be exact;
* which identifiers a function declares as registers (:class:`Declared`), for a reader that must tell a
  register from a variable's address (``check``'s data flow, :mod:`tmemviz.ptx.body`).

Pure: no I/O.
"""

from __future__ import annotations

import functools
import re

PERCENT = re.compile(r"%[A-Za-z_$][\w$]*")
"""A ``%`` name (``%tid.x``'s ``%tid`` too)."""
NAME = re.compile(r"(?<![\w$.%])%?[A-Za-z_$][\w$]*")
"""A ``%`` name or an identifier standing alone in operand text: not the digits and letters of a number
(``0x10``, ``0f3F800000``), not the ``.x`` of ``%tid.x``. The sink ``_`` (PTX 9.7: results discarded)
matches too; :func:`names` leaves it out."""
_DECLARATION = re.compile(r"^\s*\.reg\s+(?:\.v\d+\s+)?(?:\.align\s+\d+\s+)?\.\w+\s+(.*?)\s*;?\s*$", re.S)
_PARAMETERIZED = re.compile(r"^(%?[A-Za-z_$][\w$]*)\s*<\s*(\d+)\s*>$")


def names(text: str) -> list[str]:
    """Every register name in operand text: ``%`` names and identifiers, the sink ``_`` left out.

    >>> names("[tmem_acc + 16]"), names("{acc0, %r2, _}"), names("0x10, 0f3F800000, %tid.x, !p")
    (['tmem_acc'], ['acc0', '%r2'], ['%tid', 'p'])
    """
    found = NAME.findall(text)
    return [n for n in found if n != "_"] if "_" in found else found


@functools.lru_cache(maxsize=1024)
def whole(name: str) -> re.Pattern[str]:
    """``name`` as a whole register name: not the start of a longer one (``%r3`` in ``%r35``) nor, for a
    name without ``%``, the end of one (``idesc`` in ``my_idesc`` or ``%idesc``).

    >>> [bool(whole(n).search("add.s32 my_idesc, %r35, 1")) for n in ("%r3", "idesc", "my_idesc")]
    [False, False, True]
    """
    before = "" if name[:1] == "%" else r"(?<![\w$.%])"
    return re.compile(before + re.escape(name) + r"(?![\w$])")


def is_name(operand: str) -> bool:
    """Whether an operand is one register (or variable) name, not an immediate or an expression.

    >>> is_name("idesc"), is_name("%r6"), is_name("0x10"), is_name("[%r1]"), is_name("_")
    (True, True, False, False, False)
    """
    m = NAME.fullmatch(operand)
    return m is not None and operand != "_"


@functools.lru_cache(maxsize=1024)
def declared(text: str) -> tuple[tuple[str, int | None], ...]:
    """The names a ``.reg`` declaration gives: (name, None) for one register, (prefix, count) for
    ``prefix<count>`` (registers prefix0 .. prefix{count-1}); () for any other directive. Remembered:
    inline asm declares the same few names again and again (CUTLASS: ``{.reg .f32 low,high;`` a thousand
    times in one module).

    >>> declared(".reg .b32 idesc, acc<4>, %r<100>;")
    (('idesc', None), ('acc', 4), ('%r', 100))
    >>> declared(".reg .v4 .b32 v;"), declared(".shared .b32 s;")
    ((('v', None),), ())
    """
    m = _DECLARATION.match(text)
    if m is None:
        return ()
    out: list[tuple[str, int | None]] = []
    for item in m.group(1).split(","):
        item = item.strip().split("[", 1)[0].split("=", 1)[0].strip()
        p = _PARAMETERIZED.match(item)
        if p:
            out.append((p.group(1), int(p.group(2))))
        elif item:
            out.append((item, None))
    return tuple(out)


class Declared:
    """The bare (no ``%``) register names of one function's ``.reg`` declarations: ``name in declared``
    is true for a declared name and for ``acc2`` when ``acc<4>`` was declared.

    >>> d = Declared(); _ = d.declare(".reg .b32 idesc, acc<4>, %r<9>;")
    >>> "idesc" in d, "acc3" in d, "acc4" in d, "acc03" in d, "%r1" in d, bool(Declared())
    (True, True, False, False, False, False)
    >>> d.declare(".reg .pred r1<4>;") and ("r13" in d, "r14" in d, "r1" in d)
    (True, False, False)
    """

    __slots__ = ("_pattern", "exact", "ranges")

    def __init__(self) -> None:
        self.exact: set[str] = set()
        self.ranges: dict[str, int] = {}
        self._pattern: tuple[int, re.Pattern[str]] | None = None

    def declare(self, text: str) -> bool:
        """Note a directive's declarations; whether it was a ``.reg`` declaration."""
        found = declared(text)
        for name, count in found:
            if name.startswith("%"):
                continue
            if count is None:
                self.exact.add(name)
            else:
                self.ranges[name] = max(count, self.ranges.get(name, 0))
        return bool(found)

    def add(self, name: str) -> None:
        self.exact.add(name)

    def __bool__(self) -> bool:
        return bool(self.exact or self.ranges)

    def __contains__(self, name: object) -> bool:
        if name in self.exact:
            return True
        if not self.ranges or not isinstance(name, str):
            return False
        end = len(name)
        start = end
        while start > 0 and name[start - 1].isdigit():
            start -= 1
        for cut in range(start, end):  # r1<4> declares r10..r13: every split of the trailing digits
            digits = name[cut:]
            if (digits == "0" or digits[0] != "0") and int(digits) < self.ranges.get(name[:cut], 0):
                return True
        return False

    def registers(self, text: str) -> list[str]:
        """The registers named in operand text: ``%`` names, and the identifiers declared here.

        >>> d = Declared(); _ = d.declare(".reg .pred P1, p;")
        >>> d.registers("P1, %p1, p.x, P10, !p"), d.registers("%r1")
        (['%p1', 'P1', 'p', 'p'], ['%r1'])
        """
        one = text.strip()
        if one[:1] == "%" and one[1:2].isalpha() and one.isascii() and one[1:].isalnum():
            return [one]  # one register, as most destinations are: what the patterns find, found faster
        found = PERCENT.findall(text)
        if self.ranges:
            found += [w for w in NAME.findall(text) if w[:1] != "%" and w in self]
        elif self.exact:  # the declared names alone, as NAME stands them alone (inline asm's P1, p)
            found += self._exact().findall(text)
        return found

    def _exact(self) -> re.Pattern[str]:
        """The declared names as one pattern (made again when one is added: names are only added)."""
        p = self._pattern
        if p is None or p[0] != len(self.exact):
            alternatives = "|".join(map(re.escape, sorted(self.exact, key=len, reverse=True)))
            p = self._pattern = (len(self.exact), re.compile(rf"(?<![\w$.%])(?:{alternatives})(?![\w$])"))
        return p[1]
