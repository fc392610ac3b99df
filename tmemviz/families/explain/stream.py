"""``explain -f json`` written as the scan goes: each instruction's record as soon as it is made, the
document's closing brackets last, so memory stays flat in the module's length.

The bytes are exactly those of :func:`tmemviz.draw.records.document` for the same files (one
instruction per line); a file is written beside the target and renamed into place at the end, so a
failure leaves no half-written file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

from tmemviz.families.explain.answers import file_tail
from tmemviz.families.explain.document import NOTES
from tmemviz.families.explain.ops import Explainer, LazyCells
from tmemviz.families.explain.scan import Module

_MARK = "\x00cells\x00"
_MARK_JSON = json.dumps(_MARK)


def write_json(
    scanned: Iterable[tuple[Module, Iterable[dict[str, Any]]]],
    explainer: Explainer,
    write: Callable[[bytes], Any],
    notes: Iterable[str] | None = None,
) -> int:
    """Write the JSON document (UTF-8) of each (module, its records as they are made) with ``write``;
    returns the instruction count. ``explainer`` is the one that makes the records (its cells are written
    lazily). Bytes, not text: a repeated record's text is kept encoded (memo.py) and written as it is."""
    explainer.lazy_cells = True
    # The caveats the table prints come first, as in the document's JSON.
    notes = list(NOTES if notes is None else notes)

    def say(text: str) -> None:  # the few pieces made as text
        write(text.encode())

    say("{\n" + (f' "notes": {json.dumps(notes)},\n' if notes else "") + ' "files": [\n')
    total = 0
    for index, (module, made) in enumerate(scanned):
        # A PTX module's records come here from scan.records unchanged and are dropped once written:
        # shared (ops.Explainer.shared). A SASS module's are rewritten on the way (sass_ops.py): copies.
        explainer.shared = getattr(module, "language", "ptx") == "ptx"
        opened = False
        for record in made:
            if not opened:
                before = ("" if index == 0 else ",\n") + "  {" + _head(module) + ', "instructions": [\n   '
                opened = True
            else:
                before = ",\n   "
            pieces = explainer.text_of(record)  # a repeat's text, written once per statement (memo.py)
            if pieces is not None:
                write(before.encode() + pieces[0])
                write(pieces[1])
            else:
                say(before)
                say(_record_text(record, explainer))
        if not opened:
            say(("" if index == 0 else ",\n") + "  {" + _head(module) + ', "instructions": []')
        else:
            say("\n  ]")
        warnings = [w.record() for w in sorted(module.warnings, key=lambda w: w.line)]
        tail = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in file_tail(module).items())  # SASS
        say(f', "warnings": {json.dumps(warnings)}{tail}}}')
        total += module.count
    say("\n ]\n}\n")
    explainer.shared = False
    return total


def _head(module: Module) -> str:
    return f'"path": {json.dumps(module.path)}, "target": {json.dumps(module.target)}'


def _record_text(record: dict[str, Any], explainer: Explainer) -> str:
    cells = record.get("cells")
    if not isinstance(cells, LazyCells):
        return json.dumps(record)
    record["cells"] = _MARK
    return json.dumps(record).replace(_MARK_JSON, explainer.cells_json(cells), 1)


def to_output(output: str | None, produce: Callable[[Callable[[bytes], Any]], Any]) -> None:
    """Run ``produce(write)`` (``write`` takes UTF-8 bytes) into stdout (``None`` or ``-``) or into
    ``output`` as every ``-o`` is written (:func:`tmemviz.writing.write_with`: atomic for a regular
    file, in place for a device)."""
    if output is None or output == "-":
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a stream of text only (stdout replaced in a notebook or a test)
            produce(lambda data: sys.stdout.write(data.decode()))
        else:
            produce(buffer.write)
            buffer.flush()
        return
    from tmemviz.writing import write_with

    write_with(output, produce)
