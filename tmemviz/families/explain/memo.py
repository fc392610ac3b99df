"""Each distinct tcgen05 statement answered once per run, every repeat given a copy of that answer.

A kernel repeats its statements (unrolled loops, inlined helpers, the same epilogue in kernel after
kernel). What a record holds after its ``line``, ``ptx`` and ``function`` depends only on the parsed
statement (text, guard, opcode, operands), the module's ``.target``, whether cells are lazy, and the
constant value of the one register it reads (an mma's idesc, an alloc's column count): the explainer
keys a :class:`Made` by exactly that. Each occurrence gets a fresh copy of the record as first made (its
dicts and lists new, its strings, numbers and tuples shared: no two records share a mutable value) and
the same warnings at its own line; the JSON text after the record's first three fields is written once
(:meth:`Made.text`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

CACHED_CHARS = 1 << 25
"""About how many characters of records and their JSON text are remembered (32 Mi): past that, all is
forgotten and remembered anew, so memory stays bounded whatever the module."""
HEAD = ["line", "ptx", "function"]
"""The fields every record starts with, in this order (set per occurrence)."""
MARK = "\x00cells\x00"
MARK_JSON = json.dumps(MARK)
_ATOMS = (str, int, float, bool, type(None))


class LazyCells(NamedTuple):
    """An ld/st's cells, not yet written out: its layout's key and its register names."""

    key: tuple[Any, ...]
    names: tuple[str, ...] | None


class CellSet:
    """One layout's cells, and what is worked out from them once: the JSON template of their records,
    the (lane, column) pairs they touch."""

    __slots__ = ("cells", "spots", "template")

    def __init__(self, cells: tuple[Any, ...]) -> None:
        self.cells = cells
        self.template: str | None = None
        self.spots: frozenset[tuple[int, int]] | None = None


class Known:
    """What one statement needs before its register constant is looked up (its lowercased qualifiers,
    None for no tcgen05 instruction; the operand; an mma's reading), and what it made per value."""

    __slots__ = ("bases", "lazy", "made", "mma", "operand", "target", "tokens")

    def __init__(self, parsed: Any, target: str | None, lazy: bool) -> None:
        from tmemviz.errors import TmemvizError

        self.target, self.lazy = target, lazy
        tokens: list[str] | None = [t.lower() for t in parsed.qualifiers]
        assert tokens is not None
        self.operand: str | None = None
        """The register (or immediate) whose constant value the record depends on."""
        self.mma: Any = None
        self.bases: tuple[str | None, ...] = ()
        """A block-scaled MMA's scale-factor address registers (None: an immediate address): the byte
        their values put in bits 31:30 is in the record too, so made records are keyed by them as well."""
        self.made: dict[Any, Made] = {}
        head = tokens[1].split("::")[0] if len(tokens) > 1 else None
        if len(tokens) < 2 or tokens[0] != "tcgen05":
            tokens = None
        elif head == "mma":
            from tmemviz.families.mma.spelling import parse_mma

            try:
                self.mma = parse_mma(parsed)
                self.operand = self.mma.idesc
                if self.mma.scale_a is not None and self.mma.scale_b is not None:
                    self.bases = (self.mma.scale_a.base, self.mma.scale_b.base)
            except TmemvizError:
                pass  # said when the record is made
        elif head in ("alloc", "dealloc") and tokens[1] != "relinquish_alloc_permit" and parsed.operands:
            self.operand = parsed.operands[-1]  # nCols
        self.tokens = tokens


class Memo:
    """The statements of one run: by parsed line (its text, guard, opcode, operands), module target and
    lazy cells; ``lines`` finds them by the parsed line itself (the reader shares one per text)."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[Any, ...], Known] = {}
        self.lines: dict[int, tuple[Any, Known]] = {}
        """id(parsed line) -> (that line, kept alive here so the id stays its own, what it is)."""
        self.footprints: dict[int, tuple[Any, Any]] = {}
        """id(parsed ld/st line) -> (that line, its footprint), once it is known (ops.Explainer.footprint)."""
        self.size = 0
        self.function: str | None = None
        self.function_json = ""
        """The last function written, and its JSON string."""

    def known(self, parsed: Any, target: str | None, lazy: bool) -> Known:
        if self.size > CACHED_CHARS:
            self.forget()
        key = (parsed.text, parsed.guard, parsed.opcode, parsed.operands, target, lazy)
        known = self.by_key.get(key)
        if known is None:
            known = self.by_key[key] = Known(parsed, target, lazy)
        self.lines[id(parsed)] = (parsed, known)
        self.size += 2 * len(parsed.text) + 200  # a line kept, or a Known made
        return known

    def forget(self) -> None:
        self.by_key.clear()
        self.lines.clear()
        self.footprints.clear()
        self.size = 0

    def footprint(self, line: Any, where: Any) -> None:
        if self.size > CACHED_CHARS:
            self.forget()
        self.footprints[id(line)] = (line, where)
        self.size += 2 * len(line.text) + 100

    def add(self, known: Known, value: Any, made: Made) -> None:
        known.made[value] = made
        self.size += made.size

    def tail(self, made: Made, cells_json: Callable[[Any], str]) -> bytes | None:
        """The JSON text of ``made``'s record after its head (lazy cells written by ``cells_json``),
        written once, as the UTF-8 bytes written out (a repeat is not encoded again); None for a record
        with nothing after its head."""
        body = dict(zip(made.keys[3:], made.values, strict=True))
        if not body:
            return None
        if made.cells is not None:
            body["cells"] = MARK
            tail = json.dumps(body).replace(MARK_JSON, cells_json(made.cells), 1)
        else:
            tail = json.dumps(body)
        made.tail = text = tail[1:].encode()
        self.size += len(text)
        return text


class Made:
    """One statement's record as first made, the messages of the warnings it gave, and the JSON text
    after ``function`` once written (:meth:`Memo.tail`); :meth:`Explainer.text_of` checks a copy is
    unchanged (``keys``, ``values``) before it writes it so."""

    __slots__ = ("base", "cells", "keys", "messages", "parts", "ptx", "ptx_json", "scratch", "size", "tail",
                 "values")  # fmt: skip

    def __init__(self, record: dict[str, Any], messages: tuple[str, ...]) -> None:
        """``record``: as made, its head first (:func:`remember` checks); raises ValueError for a value
        that is not a dict, list, tuple, string, number, bool or None."""
        sizes = [0]
        parts = []
        base = {}
        for key, value in record.items():
            make, pristine = _copier(value, sizes)
            base[key] = pristine
            if type(value) in (dict, list):
                parts.append((key, make))
        self.base = base
        """The record as made, its dicts and lists private ones that are never handed out: a copy is
        ``base.copy()`` with fresh ones put in (``parts``), and is compared with these in :meth:`text`."""
        self.parts = tuple(parts)
        self.messages = messages
        self.cells = record.get("cells") if type(record.get("cells")) is LazyCells else None
        self.keys = list(base)
        self.values = list(base.values())[3:]
        """What an unchanged copy holds after its head (checked before :meth:`text` answers for one)."""
        self.tail: bytes | None = None
        self.scratch: dict[str, Any] | None = None
        """The one copy handed out again and again while records are shared (ops.Explainer.shared)."""
        self.ptx: str | None = None
        self.ptx_json = ""
        """The statement text last written with this record, and its JSON string."""
        self.size = sizes[0] + sum(map(len, messages)) + 64 * len(record)

    def record(self, line: Any, statement: Any, function: Any) -> dict[str, Any]:
        """A fresh copy: nothing mutable in it is shared with another record."""
        out = self.base.copy()
        out["line"], out["ptx"], out["function"] = line, statement, function
        for key, make in self.parts:
            out[key] = make()
        return out


def remember(record: dict[str, Any], messages: tuple[str, ...]) -> Made | None:
    """The :class:`Made` of a record just made, or None when it cannot be remembered (its head is not
    line, ptx, function; a value is not a plain dict, list, tuple, string, number, bool or None)."""
    if list(record)[:3] != HEAD:
        return None
    try:
        return Made(record, messages)
    except ValueError:
        return None


def _copier(value: Any, sizes: list[int]) -> tuple[Callable[[], Any], Any]:
    """A function that returns a fresh copy of ``value`` (new dicts and lists, the same atoms and tuples
    of atoms), and the private copy it copies from; ``sizes[0]`` grows by about the characters it holds.
    Raises ValueError for another kind of value."""
    kind = type(value)
    if kind in _ATOMS:
        sizes[0] += len(value) if kind is str else 8
        return (lambda: value), value
    if kind is tuple or kind is LazyCells:
        for v in value:
            _copier(v, sizes)
            if type(v) in (dict, list):
                raise ValueError("a tuple holding a dict or a list")
        return (lambda: value), value
    if kind is dict:
        pristine: Any = {}
        subs = []
        for k, v in value.items():
            make, pristine[k] = _copier(v, sizes)
            if type(v) in (dict, list):
                subs.append((k, make))
        sizes[0] += 16 * len(value) + sum(len(k) for k in value if type(k) is str)
        if not subs:
            return pristine.copy, pristine

        def dict_copy() -> dict[Any, Any]:
            out = pristine.copy()
            for k, make in subs:
                out[k] = make()
            return out

        return dict_copy, pristine
    if kind is list:
        made = [_copier(v, sizes) for v in value]
        pristine = [p for _, p in made]
        sizes[0] += 8 * len(value)
        if all(type(v) not in (dict, list) for v in value):
            return pristine.copy, pristine
        makes = [m for m, _ in made]
        return (lambda: [make() for make in makes]), pristine
    raise ValueError(f"a value of type {kind.__name__}")
