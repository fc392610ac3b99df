"""The ``figure`` command: PTX Figure 193 (pack/unpack), and a compatible spelling of every other figure.

Every command that shows something draws its own figure when ``-o`` names a ``.png``, ``.svg`` or
``.html`` file, with its own options (declared once, on that command). ``figure`` keeps its older
spellings working by forwarding them, unchanged, to the command that owns them:

* ``figure SHAPE ...`` -> ``layout SHAPE ...`` (or ``cp SHAPE ...`` for a tcgen05.cp spelling);
* ``figure cp SHAPE ...``, ``figure decompress FORMAT ...``, ``figure smem ...``,
  ``figure tile ...`` -> ``cp SHAPE ...``, ``decompress FORMAT ...``, ``smem ...``, ``tile ...``
  (and likewise ``figure shift``, ``figure datapath``, ``figure scales``, ``figure desc``, ``figure idesc``).

Only ``pack`` and ``unpack``, which no other command shows, are drawn here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

from tmemviz.cli.options import DpiOpt, FormatOpt, OutputOpt, show
from tmemviz.cli.params import Argument
from tmemviz.errors import TmemvizError

FAMILIES = ("cp", "decompress", "smem", "tile", "shift", "datapath", "scales", "desc", "idesc")
"""``figure WORD ...`` forwarded to the command of the same name."""
NEEDS_ARGUMENT = {"cp": "a cp shape, e.g. 'figure cp 64x128b'", "decompress": "b4x16_p64 or b6x16_p32"}
FIGURE_SUFFIXES = (".png", ".svg", ".html")


def forward(args: list[str]) -> Optional[list[str]]:
    """``figure ...`` as the command it spells, or None when ``figure`` itself handles it.

    >>> forward(["figure", "tile", "--n", "64", "--shape", "16x256b", "-o", "t.png"])[:2]
    ['tile', '--n']
    >>> forward(["figure", "pack", "-o", "p.png"]) is None
    True
    """
    rest = args[1:]
    if not rest or rest[0].startswith("-") or rest[0].lower() in ("pack", "unpack"):
        return None
    _check_output(rest)
    word = rest[0].lower()
    if word in FAMILIES:
        if word in NEEDS_ARGUMENT and (len(rest) < 2 or rest[1].startswith("-")):
            raise TmemvizError(f"'figure {word}' needs {NEEDS_ARGUMENT[word]}")
        return [word, *rest[1:]]
    from tmemviz.cli.options import catalog, names_copy

    return ["cp" if names_copy(catalog(None), rest[0]) else "layout", *rest]


def _check_output(rest: list[str]) -> None:
    """``figure`` draws: it needs ``-o`` naming a figure file (or ``-`` with ``--format``)."""
    target = None
    for i, arg in enumerate(rest):
        if arg in ("-o", "--output") and i + 1 < len(rest):
            target = rest[i + 1]
        elif arg.startswith("--output="):
            target = arg.split("=", 1)[1]
    if target is None:
        raise TmemvizError("figure writes a file: give -o FILE.png, FILE.svg or FILE.html")
    suffix = Path(target).suffix.lower()
    if target != "-" and suffix not in FIGURE_SUFFIXES:
        raise TmemvizError(
            f"unsupported output suffix '{Path(target).suffix or '(none)'}'; use .png, .svg or .html "
            "(other suffixes: give -o to the command itself, e.g. 'tmemviz layout 16x256b -o out.json')"
        )


def figure(
    kind: Annotated[
        str,
        Argument(
            metavar="SHAPE",
            help="'pack' or 'unpack' (PTX Figure 193). Any other figure: the command that shows it "
            "draws it with -o FILE.png/.svg/.html ('figure SHAPE ...' still works and is forwarded: "
            "to layout, cp, decompress, smem or tile).",
            show_default=False,
        ),
    ],
    output: OutputOpt = None,
    format: FormatOpt = None,
    dpi: DpiOpt = 100,
) -> None:
    """PTX Figure 193 (pack/unpack); other figures: COMMAND ... -o FILE.png/.svg/.html (forwarded here)."""
    from tmemviz import api

    word = kind.strip().lower()
    if word not in ("pack", "unpack"):
        raise TmemvizError(f"'figure {kind}': give the shape first, e.g. 'tmemviz figure 16x256b -o f.png'")
    if output is None:
        raise TmemvizError("figure writes a file: give -o FILE.png, FILE.svg or FILE.html")
    show(api.pack("ld" if word == "pack" else "st"), format, output, dpi=dpi)


COMMANDS = {"figure": figure}
