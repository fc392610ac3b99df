"""``tmemviz explain FILE...``: every tcgen05 instruction of whole PTX modules, SASS or cubins, explained."""

from __future__ import annotations

from typing import Annotated

from tmemviz.cli.options import FormatOpt, LayoutsOpt, OutputOpt, show
from tmemviz.cli.params import Argument


def explain(
    files: Annotated[
        list[str],
        Argument(
            metavar="FILE",
            help="PTX modules, SASS listings (nvdisasm, cuobjdump -sass) or cubins (needs nvdisasm), told by "
            "content; PTX then its SASS are paired; - reads standard input.",
        ),
    ],
    format: FormatOpt = None,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Explain every tcgen05 instruction of PTX or SASS: registers to lanes/columns, idesc, warnings."""
    from tmemviz import api

    fmt = format.value if format is not None else None
    suffix = output.lower().rsplit(".", 1)[-1] if output not in (None, "-") and "." in output else None
    if (fmt == "json" and suffix in (None, "json")) or (fmt is None and suffix == "json"):
        # Streamed: each record is written as it is made, whatever the module's length.
        from tmemviz.families.explain.source import stream_json

        stream_json(files, None, api.catalog(layouts), output)
        return
    if fmt in (None, "table", "text", "txt") and suffix in (None, "txt"):
        # The table: one row per instruction, not every cell of every ld/st.
        from tmemviz.families.explain.source import explain_sources

        show(explain_sources(files, None, api.catalog(layouts), table_only=True), format, output)
        return
    show(api.explain(files, layouts=layouts), format, output)


COMMANDS = {"explain": explain}
"""Command name -> function, in the order ``--help`` lists them."""
