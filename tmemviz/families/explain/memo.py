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
from json.encoder import encode_basestring_ascii
from typing import Any, NamedTuple

HEAD = ["line", "ptx", "function"]
"""The fields every record starts with, in this order (set per occurrence)."""
MARK = "\x00cells\x00"
MARK_JSON = json.dumps(MARK)
_ATOMS = (str, int, float, bool, type(None))


class LazyCells(NamedTuple):
    """An ld/st's cells, not yet written out: its layout's key and its register names."""

    key: tuple[Any, ...]
    names: tuple[str, ...] | None


class Made:
    """One statement's record as first made, the messages of the warnings it gave, and the JSON text
    after ``function`` once written."""

    __slots__ = ("base", "cells", "keys", "messages", "parts", "size", "tail", "values")

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
        self.tail: str | None = None
        self.size = sizes[0] + sum(map(len, messages)) + 64 * len(record)

    def record(self, line: Any, statement: Any, function: Any) -> dict[str, Any]:
        """A fresh copy: nothing mutable in it is shared with another record."""
        out = self.base.copy()
        out["line"], out["ptx"], out["function"] = line, statement, function
        for key, make in self.parts:
            out[key] = make()
        return out

    def text(
        self, record: dict[str, Any], heads: Heads, cells_json: Callable[[Any], str]
    ) -> tuple[str, str] | None:
        """``json.dumps(record)`` (lazy cells written by ``cells_json``) in two pieces, its head
        (``{"line": .., "ptx": .., "function": .., ``) and the text after it, written once, for a copy
        this made; None when the record was changed since it was made (the caller writes it the slow way)."""
        if list(record) != self.keys or list(record.values())[3:] != self.values:
            return None
        tail = self.tail
        if tail is None:
            body = dict(zip(self.keys[3:], self.values, strict=True))
            if not body:
                return None
            if self.cells is not None:
                body["cells"] = MARK
                tail = json.dumps(body).replace(MARK_JSON, cells_json(self.cells), 1)
            else:
                tail = json.dumps(body)
            tail = self.tail = tail[1:]
            self.size += len(tail)
        line, ptx, function = record["line"], record["ptx"], record["function"]
        if type(line) is not int or type(ptx) is not str or type(function) is not str:
            return None
        if ptx != heads.ptx:
            heads.ptx, heads.ptx_json = ptx, encode_basestring_ascii(ptx)
        if function != heads.function:
            heads.function, heads.function_json = function, encode_basestring_ascii(function)
        ptx_json, function_json = heads.ptx_json, heads.function_json
        return f'{{"line": {int.__repr__(line)}, "ptx": {ptx_json}, "function": {function_json}, ', tail


class Heads:
    """The last statement and function written, and their JSON strings: a statement's and a function's
    text are encoded once while they repeat."""

    def __init__(self) -> None:
        self.ptx = self.function = ""
        self.ptx_json = self.function_json = '""'


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
