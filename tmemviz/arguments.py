"""The Python API's arguments checked at the boundary, against each function's own type hints.

Every :mod:`tmemviz.api` function is wrapped by :func:`checked`: before the function runs,
each argument given is held against its annotation, and a value of the wrong type is one
:class:`TmemvizError` naming the command-line option it stands for (``--split-offset`` for
``split_offset``), never an ``AttributeError`` or ``TypeError`` from deep inside. The rules
are the command line's:

- a whole number is an ``int`` (never a ``bool``, a ``float`` or a ``str`` that is no number);
  where the annotation takes only ``int``, a string is read as the CLI reads it
  (``"0x10"`` is 16), with the CLI's sentence when it is not a number;
- a flag is a ``bool``: ``pack="false"`` is refused, not taken as true;
- text is a ``str``; paths are ``str`` or ``os.PathLike``; sequences are lists or tuples.

Ranges (a lane past 127, a negative m) are the families' to check: they know the limits.
"""

from __future__ import annotations

import functools
import os
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional, TypeVar, Union

from tmemviz.errors import TmemvizError
from tmemviz.values import kind_of, parse_int

F = TypeVar("F", bound=Callable[..., Any])

POSITIONAL = {
    "shape": "SHAPE",
    "instruction": "INSTRUCTION",
    "letter": "LETTER",
    "value": "VALUE",
    "fmt": "FORMAT",
    "files": "FILES",
    "operand": "OPERAND",
}
"""Parameters that are command-line arguments, named as the usage line names them."""


def flag(name: str) -> str:
    """How the CLI spells a parameter: ``split_offset`` -> ``--split-offset``, ``shape`` -> ``SHAPE``."""
    return POSITIONAL.get(name) or "--" + name.replace("_", "-")


def checked(func: F) -> F:
    """``func`` with its arguments checked (and CLI-spelled numbers read) before it runs."""
    code = func.__code__
    names = code.co_varnames[: code.co_argcount]

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(names):
            raise TmemvizError(f"{func.__name__}() takes at most {len(names)} arguments, got {len(args)}")
        given = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names:
                raise TmemvizError(f"{func.__name__}() has no argument '{name}'; it takes {', '.join(names)}")
            if name in given:
                raise TmemvizError(f"{func.__name__}() got '{name}' twice")
            given[name] = value
        hints = _hints(func)
        for name, value in given.items():
            given[name] = check(value, hints.get(name, Any), name)
        return func(**given)

    return call  # type: ignore[return-value]


@functools.cache
def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    namespace = dict(func.__globals__)  # the annotations are strings (postponed evaluation)
    namespace.setdefault("Document", Any)
    namespace.setdefault("Catalog", Any)
    return typing.get_type_hints(func, globalns=namespace)


def check(value: Any, hint: Any, name: str) -> Any:
    """``value`` if ``hint`` allows it (a CLI-spelled number read to an int); else one sentence."""
    allowed = _alternatives(hint)
    if any(_accepts(value, kind) for kind in allowed):
        return value
    if int in allowed and str not in allowed and isinstance(value, str):
        return parse_int(value, flag(name))
    raise TmemvizError(f"{flag(name)} must be {_wanted(allowed)}, got {kind_of(value)}")


def _alternatives(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) is Union:
        return tuple(a for arg in typing.get_args(hint) for a in _alternatives(arg))
    return (hint,)


def _accepts(value: Any, kind: Any) -> bool:
    origin = typing.get_origin(kind)
    if kind is Any:
        return True
    if kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is str:
        return isinstance(value, str)
    if origin is os.PathLike or kind is os.PathLike:
        return isinstance(value, os.PathLike)
    if origin is tuple:
        items = typing.get_args(kind)
        return isinstance(value, tuple) and len(value) == len(items) and all(map(_accepts, value, items))
    if origin in (Sequence, list):
        (item,) = typing.get_args(kind) or (Any,)
        return isinstance(value, (list, tuple)) and all(
            any(_accepts(v, k) for k in _alternatives(item)) for v in value
        )
    if isinstance(kind, type):
        return isinstance(value, kind)
    return True  # a hint this checker does not know: the function itself decides


def _wanted(allowed: tuple[Any, ...]) -> str:
    """The allowed kinds in words: ``a whole number or text``."""
    words = []
    for kind in allowed:
        origin = typing.get_origin(kind)
        word = {bool: "True or False", int: "a whole number", str: "text", type(None): "None"}.get(kind)
        if word is None and (origin is os.PathLike or kind is os.PathLike):
            word = "a path"
        if word is None and origin is tuple:
            word = f"a tuple of {len(typing.get_args(kind))} whole numbers"
        if word is None and origin in (Sequence, list):
            word = "a list"
        if word is not None and word not in words:
            words.append(word)
    if "None" in words:
        words.remove("None")
        words.append("None")
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]


def cli_text(value: Any) -> Optional[str]:
    """An option value as the CLI would have read it (None stays None).

    >>> cli_text(4), cli_text("x4"), cli_text(None), cli_text((32, 8))
    ('4', 'x4', None, '32,8')
    """
    if value is None:
        return None
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, Path):
        return str(value)
    return str(value.value if hasattr(value, "value") else value)
