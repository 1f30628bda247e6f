"""A menu row says all it has to say: Connect to…'s previews of a merge ("merges 2 loop
regions, … into one of κ 1") are long, and the κ they end on is what a person reads them for —
a row too long for the menu wraps instead of being cut with an ellipsis. One page for the module."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from harness import AppPage, open_app
from playwright.sync_api import Browser

#: two loop regions, the first feeding the second, with long card texts: an arc from the second
#: back to the first merges them (the preview a person reads in Connect to…)
LONG = "a card whose text runs well past the menu's width"
TWO_REGIONS = {
    "nodes": [
        {"id": f"{r}{k}", "text": f"{LONG} {r}{k}", "x": 260.0 * k - 260.0, "y": 200.0 * (r == "b") - 100.0}
        for r in "ab"
        for k in range(3)
    ],
    "edges": [
        *({"a": f"{r}{k}", "b": f"{r}{(k + 1) % 3}", "props": {"kind": "causal"}} for r in "ab" for k in range(3)),
        {"a": "a0", "b": "b0", "props": {"kind": "causal"}},
    ],
}


@pytest.fixture(scope="module")
def page_app(browser: Browser, base_url: str) -> Iterator[AppPage]:
    app = open_app(browser, base_url, "still=1&fresh=1")
    assert app.api("t => window.bendscope.load(t)", json.dumps(TWO_REGIONS)) is None
    app.page.wait_for_function("!window.bendscope.topology_state().pending")
    yield app
    app.guard.check(app.page)
    app.page.context.close()


def test_connect_to_rows_are_not_cut(page_app: AppPage) -> None:
    page = page_app.page
    page_app.right_click("b1")
    page.keyboard.press("ArrowRight")  # into Connect to…
    menu = page.locator("#menu-1")
    menu.wait_for(state="visible")
    rows = menu.locator("[data-item^='connect-'] .label")
    said = rows.all_inner_texts()
    assert any("merges 2 loop regions" in s and s.endswith("into one of κ 1)") for s in said), said
    cut = page.evaluate(
        """() => [...document.querySelectorAll("#menu-1 [data-item^='connect-'] .label")]
                 .filter(l => l.scrollWidth > l.clientWidth + 1).map(l => l.textContent)"""
    )
    assert cut == []  # (each row's whole text is on the screen)
    box = menu.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
