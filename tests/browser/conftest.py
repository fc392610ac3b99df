"""The one headless Chromium the browser tests of a process share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser.chromium import ARGS, CHROMIUM, MISSING


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Chromium launched once (Playwright's driver and the browser cost about two CPU seconds a launch);
    every test opens a context of its own, so no page, cookie or storage passes from one to the next."""
    if MISSING is not None:
        pytest.skip(MISSING)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()
