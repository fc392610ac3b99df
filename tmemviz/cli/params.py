"""Command parameters declared without importing Typer: ``Option`` and ``Argument`` markers.

Commands are written the way Typer's own examples write them
(``num: Annotated[Optional[str], Option("--num", "-n", help=...)] = None``), but
with these markers, so a module of commands imports without Typer. The markers
serve twice, from one declaration: :func:`typer_command` turns them into Typer's
``typer.Option`` / ``typer.Argument`` when the full CLI (help, completion, usage
errors) is built, and :mod:`tmemviz.cli.fast` reads the same flags to answer a
well-formed one-shot query without loading Typer at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, NamedTuple, get_args, get_origin, get_type_hints


class Param:
    """What Typer's ``Option``/``Argument`` would be told: declarations and keyword settings."""

    def __init__(self, *decls: str, **settings: Any) -> None:
        self.decls = decls
        self.settings = settings

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self.decls}"


class Option(Param):
    """An option: ``Option("--num", "-n", help="...")``."""


class Argument(Param):
    """A positional argument: ``Argument(help="...", metavar="FORMAT")``."""


def markers(annotation: Any) -> tuple[Any, Param | None]:
    """The base type of an ``Annotated[...]`` parameter and its marker (None where it has none)."""
    if get_origin(annotation) is not Annotated:
        return annotation, None
    base, *extra = get_args(annotation)
    found = [m for m in extra if isinstance(m, Param)]
    return base, (found[0] if found else None)


class Parameter(NamedTuple):
    name: str
    annotation: Any
    required: bool


def parameters(func: Callable[..., Any]) -> list[Parameter]:
    """The command's parameters in order, annotations evaluated, without ``inspect`` (slow to import).

    Commands take plain named parameters (no ``*args``), as Typer requires.
    """
    code = func.__code__  # type: ignore[attr-defined]
    names = code.co_varnames[: code.co_argcount]
    hints = get_type_hints(func, include_extras=True)
    first_default = len(names) - len(func.__defaults__ or ())  # type: ignore[attr-defined]
    return [Parameter(n, hints.get(n), i < first_default) for i, n in enumerate(names)]


def typer_command(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as Typer wants it: every marker replaced by the matching ``typer.Option``/``Argument``.

    Parameters already annotated with Typer's own objects are left as they are.
    """
    import functools
    import inspect

    import typer

    params = []
    for p in inspect.signature(func, eval_str=True).parameters.values():
        base, marker = markers(p.annotation)
        if marker is not None:
            make = typer.Option if isinstance(marker, Option) else typer.Argument
            kept = tuple(m for m in get_args(p.annotation)[1:] if not isinstance(m, Param))
            p = p.replace(annotation=Annotated[(base, make(*marker.decls, **marker.settings), *kept)])
        params.append(p)

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    del command.__wrapped__  # Typer must read the signature below, not the marker-annotated one
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command
