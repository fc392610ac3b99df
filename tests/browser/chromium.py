"""Debian's ``chromium`` for the browser tests, driven by Playwright for Python (``executable_path``;
Playwright's own browser download is never used), and why they skip where either is missing
(``.ci/run`` installs Chromium with apt-get first)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("TMEMVIZ_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "browser tests need Playwright for Python: pip install -e '.[test]'"
    if not CHROMIUM.is_file():
        return f"browser tests need Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does)"
    return None


MISSING = _missing()
"""Why the browser tests skip here, or None."""
