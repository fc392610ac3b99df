"""The TMEM map's page in a real headless Chromium: the budget panel and the A operand's band are drawn,
their text inside the panel, nothing requested from the network (Debian's ``chromium`` driven by
Playwright; skipped, with the reason, where either is missing, as the other browser tests are)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser.chromium import MISSING
from check.test_catalogue import CAPACITY, FREE_FIRST

import tmemviz
from tmemviz.families.explain.mapbands import KINDS
from tmemviz.families.explain.mapbudget import OVER

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
KERNELS = Path(__file__).resolve().parents[1] / "kernels"

OUTSIDE_JS = """svg => {
  const box = svg.getBoundingClientRect();
  return Array.from(svg.querySelectorAll('text')).filter(t => t.textContent).map(t => {
    const r = t.getBoundingClientRect();
    const inside = r.left >= box.left - 0.5 && r.right <= box.right + 0.5
      && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    return inside ? null : t.textContent;
  }).filter(x => x);
}"""


@pytest.mark.parametrize("which", ["over", "a-operand"])
def test_the_budget_and_bands_are_drawn_with_their_text_inside(
    browser: Any, tmp_path: Path, which: str
) -> None:
    if which == "over":
        doc = tmemviz.check(text=CAPACITY.format(free="", later=FREE_FIRST))
    else:
        doc = tmemviz.check(KERNELS / "check_a_in_tmem.ptx")
    path = doc.save(tmp_path / "map.html")
    context = browser.new_context()
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "request",
        lambda r: None if r.url.startswith(("file://", "about:", "data:")) else problems.append(r.url),
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(path.as_uri())
        budget = page.locator("svg[aria-label*='Tensor Memory budget']")
        assert budget.count() == 1
        assert "columns held at once" in budget.text_content()
        if which == "over":
            assert budget.locator(f"rect[fill='{OVER}']").count() == 1
        else:
            assert page.locator(f"rect[fill='{KINDS['A'][1]}']").count() >= 1
        for i in range(page.locator("svg[role='group']").count()):
            outside = page.locator("svg[role='group']").nth(i).evaluate(OUTSIDE_JS)
            assert outside == [], outside
        assert problems == [], problems
    finally:
        context.close()
