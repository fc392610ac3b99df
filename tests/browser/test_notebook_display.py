"""What a notebook shows of a result, in a real headless Chromium: the packed page is unpacked into its
sandboxed frame by the output's script, offline, without console errors; without scripts (an
untrusted notebook) a line says how to see it (issue P21).

Debian's ``chromium`` driven by Playwright (never Playwright's own browser download); skipped, with the
reason, where either is missing, as tests/browser/test_pages.py is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser.chromium import MISSING

import tmemviz

KERNEL = Path(__file__).resolve().parents[1] / "kernels" / "triton_mma_epilogue.ptx"
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def output_page(tmp_path: Path, *shown: str) -> Path:
    """Notebook outputs on one page, as a notebook front end puts HTML outputs into its document."""
    path = tmp_path / "outputs.html"
    body = "".join(f'<div class="output">{html}</div>' for html in shown)
    path.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{body}</body></html>")
    return path


def open_page(browser: Any, path: Path, scripts: bool = True) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(java_script_enabled=scripts)
    page = context.new_page()
    problems: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(("file://", "about:")) else problems.append(r.url))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(path.as_uri())
    return context, page, problems


def test_two_results_unpack_into_their_frames(browser: Any, tmp_path: Path) -> None:
    layout = tmemviz.layout("16x256b", num=4)._repr_html_()
    checked = tmemviz.check(KERNEL)._repr_html_()
    context, page, problems = open_page(browser, output_page(tmp_path, layout, checked))
    try:
        frames = page.locator("iframe")
        assert frames.count() == 2
        page.wait_for_function("Array.from(document.querySelectorAll('iframe')).every(f => f.srcdoc)")
        assert page.locator("p.note[id$='-off']").count() == 0  # the "needs scripts" lines are gone
        inner = page.frames[1]
        inner.wait_for_selector('.cell[data-lane="9"][data-col="5"]')
        assert inner.locator(".cell").count() == 16 * 32
        tmap = page.frames[2]
        tmap.wait_for_selector("svg")
        # The findings table above the map, collapsible.
        assert page.locator("details summary").first.inner_text().endswith("2 notes")
        assert "alloc-columns" in page.locator("table").first.inner_text()
        assert problems == [], problems
    finally:
        context.close()


def test_without_scripts_the_tables_show_and_a_line_says_why_no_figure(browser: Any, tmp_path: Path) -> None:
    shown = tmemviz.explain(KERNEL)._repr_html_()
    context, page, problems = open_page(browser, output_page(tmp_path, shown), scripts=False)
    try:
        assert "needs the notebook's scripts to run" in page.locator("p.note[id$='-off']").inner_text()
        assert not page.locator("iframe").is_visible()
        assert "tcgen05.alloc" in page.locator("table").inner_text()
        assert problems == [], problems
    finally:
        context.close()
