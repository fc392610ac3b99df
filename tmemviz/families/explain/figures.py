"""Figures of an explained kernel: none yet; each instruction's own command draws it (layout, cp, tile)."""

from __future__ import annotations

from tmemviz.catalog import Catalog


def gallery_entries(catalog: Catalog) -> list[object]:
    """No gallery entries: an explained module is a table and JSON."""
    return []
