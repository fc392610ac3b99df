"""Machine-readable text: JSON documents with one record per line, and CSV.

Families build the records (plain dicts and tuples); this module only writes
them, the same way for every family, so every JSON export stays greppable and
diffable (one cell per line) and every CSV has a header row.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def document(
    header: Mapping[str, Any], lists: Sequence[tuple[str, Iterable[Any]]], nested: str | None = None
) -> str:
    """``header``'s fields one per line, then each named list with one item per line.

    ``nested`` names a list inside each item (a file's ``instructions``) that is written one
    element per line too, so a document of big items stays greppable.

    >>> print(document({"a": 1}, [("cells", [{"x": 0}, {"x": 1}])]), end="")
    {
     "a": 1,
     "cells": [
      {"x": 0},
      {"x": 1}
     ]
    }
    >>> print(document({}, [("files", [{"p": "k", "ins": [1, 2], "n": 0}])], nested="ins"), end="")
    {
     "files": [
      {"p": "k", "ins": [
       1,
       2
      ], "n": 0}
     ]
    }
    """
    import json  # imported on use: a one-line text answer should not pay for it

    def item_text(item: Any) -> str:
        if nested is None or not isinstance(item, Mapping) or nested not in item:
            return f"  {json.dumps(item)}"
        fields = []
        for k, v in item.items():
            if k == nested:
                inner = ",\n".join(f"   {json.dumps(x)}" for x in v)
                fields.append(f"{json.dumps(k)}: [\n{inner}\n  ]" if v else f"{json.dumps(k)}: []")
            else:
                fields.append(f"{json.dumps(k)}: {json.dumps(v)}")
        return "  {" + ", ".join(fields) + "}"

    parts = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in header.items()]
    for key, items in lists:
        body = ",\n".join(item_text(item) for item in items)
        parts.append(f" {json.dumps(key)}: [\n" + body + "\n ]")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def line(record: Any) -> str:
    """One JSON document on one line (the answer to a single question)."""
    import json

    return json.dumps(record) + "\n"


def pretty(record: Any) -> str:
    """A small JSON document, indented one space per level."""
    import json

    return json.dumps(record, indent=1) + "\n"


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV with a header row and ``\\n`` line ends.

    >>> csv_text(("a", "b"), [(1, ""), (2, 3)])
    'a,b\\n1,\\n2,3\\n'
    """
    import csv  # only CSV output pays for it

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()
