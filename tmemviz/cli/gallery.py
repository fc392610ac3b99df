"""The ``gallery`` command: every family's figures and their index, for a documentation site."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

from tmemviz.cli.options import LayoutsOpt, catalog
from tmemviz.cli.params import Argument, Option
from tmemviz.errors import TmemvizError


def gallery(
    directory: Annotated[
        Optional[Path],
        Argument(metavar="DIRECTORY", help="Where to write the figures and README.md [default: gallery]."),
    ] = None,
    output: Annotated[
        Optional[Path],
        Option("--output", "-o", metavar="DIR", help="The same as DIRECTORY, as figure takes it."),
    ] = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Regenerate the documentation gallery: every figure as SVG, PNG and an HTML page, and index.html."""
    if directory is not None and output is not None and directory != output:
        raise TmemvizError(f"give the directory once: '{directory}' and -o '{output}' differ")
    directory = output or directory or Path("gallery")
    from rich.console import Console
    from rich.progress import Progress

    from tmemviz import gallery as gallery_index
    from tmemviz.writing import write_atomic

    items = gallery_index.entries(catalog(layouts))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TmemvizError(f"cannot create {directory}: {exc.strerror or exc}") from None
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("drawing the gallery", total=len(items))
        for i in range(len(items)):
            for name, data in gallery_index.files(items, i).items():
                write_atomic(directory / name, data)
            progress.advance(task)
    write_atomic(directory / "README.md", gallery_index.index_markdown(items).encode())
    write_atomic(directory / "index.html", gallery_index.index_html(items))
    sys.stdout.write(
        f"wrote {2 * len(items)} figures, {len(items)} pages, README.md and index.html to {directory}\n"
    )


COMMANDS = {"gallery": gallery}
