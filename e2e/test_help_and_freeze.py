"""The shortcut sheet, the empty-plane hint, Freeze layout (remembered)."""

from __future__ import annotations

import json

from playwright.sync_api import expect


def test_question_mark_opens_the_shortcut_sheet(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    page.mouse.click(640, 420)
    page.keyboard.press("?")
    sheet = page.locator("#help")
    expect(sheet).to_be_visible()
    expect(sheet.locator("th", has_text="Ctrl/⌘+A")).to_be_visible()
    expect(sheet.locator("td", has_text="connect to the node you release on")).to_be_visible()
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    page.locator("#btn-help").click()
    expect(sheet).to_be_visible()
    page.locator("#help-close").click()
    expect(sheet).to_be_hidden()
    assert app.stats()["nodes"] == 10  # the keys typed meanwhile changed nothing


def test_an_empty_plane_says_how_to_start(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    hint = app.page.locator("#empty-hint")
    expect(hint).to_be_hidden()
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": [], "edges": []})) is None
    app.api("window.bendscope.paint()")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("Double-click to add a node")
    app.page.mouse.dblclick(640, 400)  # the hint lets the double-click through
    app.page.locator("#text-editor").wait_for(state="visible")
    app.page.keyboard.type("First")
    app.page.keyboard.press("Control+Enter")
    expect(hint).to_be_hidden()


def test_freeze_layout_stops_the_layout_and_is_remembered(app_factory):
    app = app_factory("seed=1&fresh=1")
    page = app.page
    nodes = [{"id": f"n{i}", "text": f"N{i}"} for i in range(40)]
    edges = [{"source": f"n{i}", "target": f"n{(i * 7 + 1) % 40}", "kind": "causal"} for i in range(40)]
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": nodes, "edges": edges})) is None
    freeze = page.locator("#btn-freeze")
    freeze.click()
    expect(freeze).to_have_attribute("aria-pressed", "true")
    before = app.node_xy("n3")
    page.wait_for_timeout(700)
    assert app.node_xy("n3") == before
    assert app.api("window.bendscope.layout_state()")["active"] is False
    app.reload()
    expect(page.locator("#btn-freeze")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("l")
    expect(page.locator("#btn-freeze")).to_have_attribute("aria-pressed", "false")


def test_the_theme_switch_is_remembered(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    assert app.api("document.documentElement.dataset.theme") == "light"
    page.locator("#btn-theme").click()
    assert app.api("document.documentElement.dataset.theme") == "dark"
    expect(page.locator("#btn-theme")).to_have_attribute("aria-pressed", "true")
    app.reload()
    assert app.api("document.documentElement.dataset.theme") == "dark"
    page.locator("#btn-theme").click()
    assert app.api("document.documentElement.dataset.theme") == "light"
