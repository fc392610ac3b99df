"""Figures of an instruction descriptor: none; it is a table of fields, as the shared-memory descriptor is."""

from __future__ import annotations

from tmemviz.catalog import Catalog


def gallery_entries(catalog: Catalog) -> list[object]:
    """No gallery entries: a descriptor is a table of fields."""
    return []
