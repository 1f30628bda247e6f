"""A graph sent as a link. Copy link puts the document in the URL's fragment
(never sent to a server); opening the link shows that graph without losing the visitor's
own (Undo, and a saved copy once saved); a damaged link says so; a graph too large for a
link offers Export instead."""

from __future__ import annotations

import json

from harness import new_context, open_page
from playwright.sync_api import expect
from test_loops import CLD


def _copy_link(app) -> str:
    app.page.locator("#btn-link").click()
    expect(app.page.locator("#toast")).to_contain_text("Link copied")
    return app.api("navigator.clipboard.readText()")


def test_a_link_carries_the_graph_and_keeps_the_visitors_own(browser, base_url):
    context = new_context(browser, permissions=["clipboard-read", "clipboard-write"])
    try:
        sender = open_page(context, base_url, "seed=1&still=1&fresh=1")
        assert sender.api("t => window.bendscope.load(t)", json.dumps(CLD)) is None
        link = _copy_link(sender)
        assert link.startswith(base_url) and "#graph=1." in link and "Births" not in link
        sent = json.loads(sender.api("window.bendscope.export()"))
        sender.guard.check(sender.page)
    finally:
        context.close()

    visitor_context = new_context(browser)
    try:
        visitor = open_page(visitor_context, base_url, "seed=1&still=1")
        assert visitor.api("window.bendscope.action('new-node', {x: 40, y: 40})") is not None
        assert visitor.api("window.bendscope.save_now()") is True
        own = json.loads(visitor.api("window.bendscope.export()"))
        # the link opened in the visitor's browser: the sent graph, the fragment taken off the address
        visitor.page.goto(link)
        visitor.wait_ready()
        got = json.loads(visitor.api("window.bendscope.export()"))
        assert [(p["nodes"], p["edges"]) for p in got["planes"]] == [(p["nodes"], p["edges"]) for p in sent["planes"]]
        expect(visitor.page.locator("#toast")).to_contain_text("Your own graph is kept")
        assert "#" not in visitor.page.url
        assert visitor.api("window.bendscope.save_now()") is True
        copies = json.loads(visitor.api("window.bendscope.saved_copies()"))
        assert [c["reason"] for c in copies] == ["shared-link"]
        # Undo brings the visitor's graph back
        visitor.api("window.bendscope.undo()")
        back = json.loads(visitor.api("window.bendscope.export()"))
        assert [p["nodes"] for p in back["planes"]] == [p["nodes"] for p in own["planes"]]
        visitor.guard.check(visitor.page)
    finally:
        visitor_context.close()


def test_a_damaged_link_changes_nothing_and_says_why(app_factory, base_url):
    app = app_factory("seed=1&still=1")
    before = app.api("window.bendscope.export()")
    app.page.goto(f"{base_url}index.html?seed=1&still=1#graph=1.bm90IGEgZ3JhcGg@@")
    app.wait_ready()
    expect(app.page.locator("#toast")).to_contain_text("This link's graph cannot be opened: the link is damaged")
    assert json.loads(app.api("window.bendscope.export()"))["planes"] == json.loads(before)["planes"]


def test_a_graph_too_large_for_a_link_offers_export(app_factory):
    import random

    app = app_factory("seed=1&still=1&fresh=1")
    rng = random.Random(2)
    nodes = [{"id": f"n{i}", "text": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(240))}
             for i in range(600)]  # fmt: skip
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": nodes, "edges": []})) is None
    app.page.locator("#btn-link").click()
    dialog = app.page.locator("#dialog")
    expect(dialog).to_contain_text("too large for a link")
    with app.page.expect_download() as info:
        app.page.locator("#dialog-ok").click()
    assert info.value.suggested_filename == "bendscope.json"


def test_without_a_clipboard_the_link_is_shown_to_copy(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")  # (no clipboard permission in this context)
    app.api("Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true})")
    app.page.locator("#btn-link").click()
    field = app.page.locator("#dialog-input")
    expect(field).to_be_visible()
    assert "#graph=1." in field.input_value()
    app.page.locator("#dialog-ok").click()


def test_a_link_of_an_unknown_version_or_with_nothing_in_it_says_so(app_factory, base_url):
    app = app_factory("seed=1&still=1")
    before = json.loads(app.api("window.bendscope.export()"))["planes"]
    toast = app.page.locator("#toast")
    for fragment, said in (("graph=9.eJyrVkrLz1eyUlAqS8wpTgUAH", "was made by a newer Bendscope"),
                           ("graph=", "holds no graph")):  # fmt: skip
        app.page.goto(f"{base_url}index.html?seed=1&still=1#{fragment}")
        app.wait_ready()
        expect(toast).to_contain_text(f"This link's graph cannot be opened: the link {said}")
        assert "#" not in app.page.url
        assert json.loads(app.api("window.bendscope.export()"))["planes"] == before
    app.page.goto(f"{base_url}index.html?seed=1&still=1#graph=1.bm90IGEgZ3JhcGg")
    app.wait_ready()
    expect(toast).to_contain_text("cut short?")
    assert not toast.inner_text().strip().endswith("?.")
