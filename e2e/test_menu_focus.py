"""A menu item chosen with the mouse leaves the focus where keys work (the hand's friction was
tested with a keyboard choice only)."""

from __future__ import annotations

from playwright.sync_api import expect


def test_after_choosing_a_menu_item_with_the_mouse_the_next_key_works(app_factory):
    """Focus dropped to the page's body once a chosen item's menu was gone: the next key did
    nothing. Right-click on the canvas of a page just opened (nothing focused), a click on Fit
    view: the canvas has the focus, and Shift+F10 opens its menu."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.mouse.click(1100, 700, button="right")
    menu = page.locator("#menu-0")
    expect(menu).to_be_visible()
    menu.locator("[role='menuitem']", has_text="Fit view").click()
    expect(menu).to_have_count(0)
    assert app.api("document.activeElement && document.activeElement.id") == "canvas"
    page.keyboard.press("Shift+F10")
    expect(page.locator("#menu-0")).to_be_visible()
    page.keyboard.press("Escape")
