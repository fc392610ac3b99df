"""The ``tmemviz`` command: :mod:`~tmemviz.cli.app` (entry point, exit codes, lazy loading)
and one thin module of Typer commands per family."""

from tmemviz.cli.app import main

__all__ = ["main"]
