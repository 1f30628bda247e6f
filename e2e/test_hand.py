"""With the keyboard alone on the canvas: focus stays where keys work after a menu item is
chosen, and New node here asked again at the same point never stacks cards."""

from __future__ import annotations

import json

from playwright.sync_api import expect


def focused(app) -> str:
    return app.api("document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ''")


def test_after_choosing_a_menu_item_by_keyboard_focus_is_back_on_the_canvas(app_factory):
    """It dropped to the page's body: the next key did nothing."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.mouse.click(20, 780)  # empty canvas: focused, nothing selected
    page.keyboard.press("Shift+F10")
    expect(page.locator("#menu-0")).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#menu-0 [role='menuitem']:focus")).to_contain_text("Fit")
    page.keyboard.press("Enter")
    expect(page.locator("#menu-0")).to_have_count(0)
    assert focused(app) == "canvas"
    page.keyboard.press("Shift+F10")  # (so the next key works)
    expect(page.locator("#menu-0")).to_be_visible()
    page.keyboard.press("Escape")


def test_new_node_here_by_keyboard_twice_makes_two_cards_side_by_side(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    page.mouse.click(640, 400)
    for text in ("First card", "Second card"):
        page.keyboard.press("Escape")  # (nothing selected: Shift+F10 opens the canvas's menu)
        page.keyboard.press("Shift+F10")
        expect(page.locator("#menu-0 [role='menuitem']:focus")).to_contain_text("New node here")
        page.keyboard.press("Enter")
        page.keyboard.type(text)
        page.keyboard.press("Control+Enter")
    plane = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    by_text = {n["text"]: n for n in plane["nodes"]}
    a, b = by_text["First card"], by_text["Second card"]
    apart_x = abs(a["x"] - b["x"]) >= (a["width"] + b["width"]) / 2
    apart_y = abs(a["y"] - b["y"]) >= (a["height"] + b["height"]) / 2
    assert apart_x or apart_y, (a, b)
