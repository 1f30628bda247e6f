"""Copy / cut / paste / duplicate through the system clipboard, between tabs."""

from __future__ import annotations

import json

from harness import new_context, open_page


def nodes(app) -> list[dict]:
    return json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]


def test_copy_in_one_tab_paste_in_another_then_cut_and_duplicate(browser, base_url):
    context = new_context(browser, permissions=["clipboard-read", "clipboard-write"])
    try:
        _copy_paste(context, base_url)
    finally:
        context.close()


def _copy_paste(context, base_url) -> None:
    first = open_page(context, base_url, "seed=1&still=1&fresh=1")
    first.click_node("revenue")
    first.page.keyboard.down("Shift")
    first.click_node("r-and-d")
    first.page.keyboard.up("Shift")
    first.page.keyboard.press("Control+c")
    copied = first.api("navigator.clipboard.readText()")
    assert json.loads(copied)["format"] == "bendscope-fragment"
    second = open_page(context, base_url, "seed=2&still=1&fresh=1")
    assert second.api("t => window.bendscope.load(t)", json.dumps({"nodes": [], "edges": []})) is None
    second.page.mouse.move(640, 400)
    second.page.keyboard.press("Control+v")
    texts = sorted(n["text"].split("\n")[0] for n in nodes(second))
    assert texts == ["# R&D", "# Revenue"] and second.stats()["edges"] == 1
    second.page.keyboard.press("Control+z")
    assert second.stats()["nodes"] == 0
    # cut removes (one undo step), duplicate copies beside
    first.page.keyboard.press("Control+x")
    assert first.stats()["nodes"] == 8
    first.page.keyboard.press("Control+z")
    assert first.stats()["nodes"] == 10
    first.click_node("company")
    first.page.keyboard.press("Control+d")
    assert first.stats()["nodes"] == 11
    assert sum(1 for n in nodes(first) if n["text"].startswith("# Company")) == 2
    for app in (first, second):
        app.guard.check(app.page)
