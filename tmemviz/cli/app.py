"""The ``tmemviz`` entry point: which module holds each command, and how failures exit.

Each family's commands live in their own module and are imported only when
invoked. A well-formed one-shot query is answered without Typer
(:mod:`tmemviz.cli.fast`); help, completion and usage errors go through Typer.
Core errors arrive as :class:`TmemvizError` and become one sentence on stderr
with exit status 2 in :func:`main`, the only place that knows about exits.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Optional

from tmemviz.cli.params import Option
from tmemviz.errors import TmemvizError, one_line

if TYPE_CHECKING:
    import typer

APP_SETTINGS: dict[str, Any] = {
    "name": "tmemviz",
    "help": (
        "Exact data layouts of Blackwell Tensor Memory: tcgen05.ld/st/cp/shift, shared-memory operands, "
        "whole accumulators and their tcgen05.mma data-path layouts, block-scale factors, and whole PTX "
        "modules explained. Commands that show a result write -o FILE.png/.svg/.html/.json/.csv/.txt (the "
        "forms the result has; shapes: .json/.txt); which, where and ptx answer on stdout."
    ),
    "no_args_is_help": True,
    "add_completion": True,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}

COMMANDS: dict[str, str] = {
    "shapes": "tmemviz.cli.shapes",
    "layout": "tmemviz.cli.ldst",
    "which": "tmemviz.cli.ldst",
    "where": "tmemviz.cli.ldst",
    "cp": "tmemviz.cli.cp",
    "decompress": "tmemviz.cli.cp",
    "smem": "tmemviz.cli.smem",
    "desc": "tmemviz.cli.smem",
    "idesc": "tmemviz.cli.mma",
    "explain": "tmemviz.cli.explain",
    "check": "tmemviz.cli.check",
    "ptx": "tmemviz.cli.code",
    "tile": "tmemviz.cli.tile",
    "datapath": "tmemviz.cli.datapath",
    "shift": "tmemviz.cli.shift",
    "scales": "tmemviz.cli.scales",
    "figure": "tmemviz.cli.figure",
    "gallery": "tmemviz.cli.gallery",
}
"""Command name -> the module defining it (in its ``COMMANDS``), in the order ``--help`` lists them."""


def _command(name: str) -> Callable[..., Any]:
    module = importlib.import_module(COMMANDS[name])
    return module.COMMANDS[name]  # type: ignore[no-any-return]


def build_app(names: list[str]) -> typer.Typer:
    """An app holding only the commands ``names``.

    Typer builds the parser of every registered command on each run, and each
    family's module imports its own code; a one-shot query should pay only for
    its own command. The callback keeps a single-command app a group, so
    ``tmemviz which ...`` parses and reports usage exactly as the full app does.
    """
    import typer

    from tmemviz.cli.params import typer_command

    app = typer.Typer(**APP_SETTINGS)
    app.callback()(typer_command(_root))
    for name in names:
        app.command(name=name)(typer_command(_command(name)))
    return app


def version() -> str:
    """The installed package's version (its metadata), or the source tree's when not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("tmemviz")
    except PackageNotFoundError:
        from tmemviz import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        import typer

        sys.stdout.write(f"tmemviz {version()}\n")
        raise typer.Exit()


def _root(
    show_version: Annotated[
        bool,
        Option("--version", "-V", help="Print the version and exit.", is_eager=True, callback=_print_version),
    ] = False,
) -> None:
    """Exact data layouts of Blackwell Tensor Memory instructions."""


def _app_for(argv: list[str]) -> typer.Typer:
    """The app for ``argv``: only the named command, or every command (help, typos)."""
    if argv and argv[0] in COMMANDS and not any(a in ("--help", "-h") for a in argv[1:2]):
        return build_app([argv[0]])
    return build_app(list(COMMANDS))


def main(argv: Optional[list[str]] = None) -> int:
    """Run the CLI; bad input becomes one line on stderr and exit status 2."""
    args = list(sys.argv[1:] if argv is None else argv)
    completing = f"_{APP_SETTINGS['name'].upper()}_COMPLETE" in os.environ
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"tmemviz {version()}\n")
        return 0
    if not args and not completing:
        args = ["--help"]  # a bare `tmemviz` shows the same help as `tmemviz --help`
    try:
        if args[:1] == ["figure"] and not completing:
            from tmemviz.cli.figure import forward

            args = forward(args) or args  # older figure spellings belong to the command that shows it
        from tmemviz.cli.fast import read

        run = None if completing else read(args, COMMANDS)
        if run is not None:
            result = run()
            return result if isinstance(result, int) else 0
        return _typer_main(args)
    except TmemvizError as exc:
        sys.stderr.write(f"tmemviz: {exc}\n")
        return 2
    except BrokenPipeError:
        # `tmemviz layout ... | head` closes the pipe early; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        # Ctrl-C: the user knows why; exit as a shell reports SIGINT (128 + 2), without a trace.
        return INTERRUPTED


INTERRUPTED = 130
"""The exit status after Ctrl-C: 128 + SIGINT, what shells report for an interrupted program."""


SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")


def _named_shell(args: list[str]) -> bool:
    """Whether ``--show-completion`` / ``--install-completion`` name their shell (``zsh``, ``--x=fish``).

    Typer reads the shell from the environment unless told not to, and then takes a
    following ``zsh`` for a stray word: ``--show-completion zsh`` printed the bash script
    in a bash session. A named shell must win.
    """
    for i, arg in enumerate(args):
        flag, _, value = arg.partition("=")
        if flag in ("--show-completion", "--install-completion"):
            return (value or (args[i + 1] if i + 1 < len(args) else "")) in SHELLS
    return False


def _typer_main(args: list[str]) -> int:
    """The full CLI: help, usage errors and every command, parsed by Typer."""
    if _named_shell(args):
        switch = "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"  # Typer's own: take the shell given
        os.environ[switch] = "1"
        try:
            return _typer_run(args)
        finally:
            del os.environ[switch]
    return _typer_run(args)


def _typer_run(args: list[str]) -> int:
    import typer

    command = typer.main.get_command(_app_for(args))
    _plain_metavars(command)
    try:
        result = command.main(args=args, prog_name="tmemviz", standalone_mode=False)
    except typer.TyperException as exc:
        # Typer's own usage errors (unknown option, bad choice, not a number).
        sys.stderr.write(f"tmemviz: {one_line(_other_command(args, exc) or exc.format_message())}\n")
        return 2
    except typer.Abort:
        return INTERRUPTED  # Click's name for Ctrl-C while it parses: as quiet as main's
    except SystemExit as exc:  # --show-completion ends with sys.exit(0); main() returns statuses
        return exc.code if isinstance(exc.code, int) else 0
    return result if isinstance(result, int) else 0


_ASKS = {"which": ("--lane", "--col"), "where": ("-t", "--thread", "-r", "--reg")}
"""The options that say which cell (``which``) or which register (``where``) is asked about."""


def _other_command(args: list[str], exc: Exception) -> str | None:
    """An option of ``which`` given to ``where`` (or the reverse): say so, instead of Click's nearest
    spelling (``--lane`` -> ``--nan``)."""
    name = (getattr(exc, "option_name", None) or "").split("=")[0]
    command = next((a for a in args if not a.startswith("-")), None)
    if command not in _ASKS:
        return None
    other = "where" if command == "which" else "which"
    if name not in _ASKS[other]:
        return None
    own = "--lane L --col C" if command == "which" else "-t THREAD -r REG"
    asks = "which thread and register hold a cell" if other == "which" else "where a register's data sits"
    return f"{name} belongs to `tmemviz {other}` ({asks}); `tmemviz {command}` takes {own}"


def _plain_metavars(command: Any) -> None:
    """Usage lines in Click's convention: ``SHAPE`` for a required argument, ``[DIRECTORY]`` else.

    Typer writes required arguments in braces (``{shape}``); every other Click
    program, and the help of most CLIs, writes them in capitals.
    """
    for sub in getattr(command, "commands", {}).values():
        _plain_metavars(sub)
    for param in command.params:
        if param.param_type_name != "argument":
            continue

        def metavar(ctx: Any, *, usage: bool = False, _p: Any = param) -> str:
            var = (_p.metavar or _p.name or "").upper() + ("..." if _p.nargs != 1 else "")
            return var if _p.required or not usage else f"[{var}]"

        param.make_metavar = metavar
