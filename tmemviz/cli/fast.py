"""Answering a well-formed one-shot command without loading Typer.

``tmemviz which 16x256b --num x4 --lane 9 --col 5`` should cost little more than
starting Python. Typer (and its bundled Click) alone costs more than that, so for
a command whose module imports without Typer, this module reads argv from the
same :class:`~tmemviz.cli.params.Option` / ``Argument`` declarations Typer gets,
converts values the way Click does, and calls the command function itself.

Anything it is not sure of — ``--help``, an unknown or repeated option, a value
that does not convert, a missing required value, a command whose module needs
Typer — it leaves to Typer (:func:`read` returns None), so help text and usage
errors are exactly Typer's. A test runs a corpus through both paths and
compares the results.
"""

from __future__ import annotations

import enum
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tmemviz.cli.params import Argument, Option, markers, parameters


class NotFast(Exception):
    """This argv is for Typer: help, a usage error, or something this reader does not handle."""


class Slot(typing.NamedTuple):
    """One parameter of a command: where its value goes and how to convert it."""

    name: str
    kind: Any
    """The base type: int, str, bool, Path, an Enum, or list[...] of one of them."""
    flags: tuple[str, ...]
    required: bool


def read(argv: list[str], commands: dict[str, str]) -> Callable[[], Any] | None:
    """A call that runs ``argv``'s command, or None when Typer should handle it."""
    if not argv or argv[0] not in commands:
        return None
    typer_loaded = "typer" in sys.modules
    try:
        import importlib

        module = importlib.import_module(commands[argv[0]])
    except ImportError:
        return None
    if not typer_loaded and "typer" in sys.modules:
        return None  # this command's module needs Typer anyway: let Typer parse it too
    func = module.COMMANDS[argv[0]]
    try:
        options, arguments = _slots(func)
        values = _parse(argv[1:], options, arguments)
    except NotFast:
        return None
    return lambda: func(**values)


def _slots(func: Callable[..., Any]) -> tuple[dict[str, Slot], list[Slot]]:
    options: dict[str, Slot] = {}
    arguments: list[Slot] = []
    for p in parameters(func):
        base, marker = markers(p.annotation)
        if marker is None:
            raise NotFast
        slot = Slot(p.name, _unoptional(base), marker.decls, p.required)
        if isinstance(marker, Argument):
            arguments.append(slot)
        elif isinstance(marker, Option):
            for flag in marker.decls:
                if "/" in flag or not flag.startswith("-"):
                    raise NotFast  # secondary (--x/--no-x) or odd declarations: Typer knows them
                options[flag] = slot
    return options, arguments


def _unoptional(kind: Any) -> Any:
    """``Optional[X]`` -> ``X``."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(args) != 1:
            raise NotFast
        return args[0]
    return kind


def _parse(args: list[str], options: dict[str, Slot], arguments: list[Slot]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token in ("--help", "-h", "--"):
            raise NotFast
        if token.startswith("-") and len(token) > 1 and not _is_number(token):
            flag, eq, attached = token.partition("=")
            slot = options.get(flag)
            if slot is None:
                raise NotFast
            if slot.kind is bool:
                if eq:
                    raise NotFast
                values[slot.name] = True
                continue
            if eq:
                raw = attached
            elif i < len(args):
                raw, i = args[i], i + 1
            else:
                raise NotFast
            if typing.get_origin(slot.kind) is list:
                (item,) = typing.get_args(slot.kind)
                values.setdefault(slot.name, []).append(_convert(item, raw))
            elif slot.name in values:
                raise NotFast  # a repeated option: Click's rule (the last wins) is Typer's to apply
            else:
                values[slot.name] = _convert(slot.kind, raw)
        else:
            positional.append(token)
    fixed = arguments
    if arguments and typing.get_origin(arguments[-1].kind) is list:
        # FILE...: the last argument takes every positional left (Click's nargs=-1).
        *fixed, many = arguments
        if len(positional) > len(fixed):
            (item,) = typing.get_args(many.kind)
            values[many.name] = [_convert(item, raw) for raw in positional[len(fixed) :]]
    elif len(positional) > len(arguments):
        raise NotFast
    for slot, raw in zip(fixed, positional, strict=False):
        values[slot.name] = _convert(slot.kind, raw)
    for slot in [*arguments, *options.values()]:
        if slot.required and slot.name not in values:
            raise NotFast
    return values


def _is_number(token: str) -> bool:
    """``-1`` is a value (Click reads it as one after an option), not an option."""
    return token[1:].isdigit()


def _convert(kind: Any, raw: str) -> Any:
    """What Click would pass for ``raw``; anything it would refuse is Typer's to report."""
    if kind is str:
        return raw
    if kind is int:
        try:
            return int(raw)
        except ValueError:
            raise NotFast from None
    if kind is Path:
        return Path(raw)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        for member in kind:
            if member.value == raw:
                return member
        raise NotFast
    raise NotFast
