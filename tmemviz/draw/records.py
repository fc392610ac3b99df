"""Machine-readable text: JSON documents with one record per line, and CSV.

Families build the records (plain dicts and tuples); this module only writes
them, the same way for every family, so every JSON export stays greppable and
diffable (one cell per line) and every CSV has a header row.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def document(header: Mapping[str, Any], lists: Sequence[tuple[str, Iterable[Any]]]) -> str:
    """``header``'s fields one per line, then each named list with one item per line.

    >>> print(document({"a": 1}, [("cells", [{"x": 0}, {"x": 1}])]), end="")
    {
     "a": 1,
     "cells": [
      {"x": 0},
      {"x": 1}
     ]
    }
    """
    import json  # imported on use: a one-line text answer should not pay for it

    parts = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in header.items()]
    for key, items in lists:
        body = ",\n".join(f"  {json.dumps(item)}" for item in items)
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
