"""Find (Ctrl/Cmd+F) and type-to-filter in Connect-to and Merge-with."""

from __future__ import annotations

from playwright.sync_api import expect


def test_ctrl_f_finds_and_steps_through_nodes(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    page.mouse.click(640, 760)
    page.keyboard.press("Control+f")
    field = page.locator("#find-input")
    expect(field).to_be_focused()
    page.keyboard.type("share")
    expect(page.locator("#find-status")).to_have_text("2 matches")
    page.keyboard.press("Enter")
    expect(page.locator("#find-status")).to_have_text("1 of 2 matches")
    first = app.api("JSON.parse(window.bendscope.interaction()).selection")
    page.keyboard.press("Enter")
    second = app.api("JSON.parse(window.bendscope.interaction()).selection")
    assert sorted(first + second) == ["market-share", "revenue"]
    x, y = app.node_xy(second[0])
    assert abs(x - 640) < 2 and abs(y - 400) < 2  # centred
    page.keyboard.press("Escape")
    expect(page.locator("#find-bar")).to_be_hidden()
    assert app.stats()["nodes"] == 10  # typing in the field ran no shortcut
    # zoomed out so far that card text is drawn as bars: the match found is shown where it can be read
    while app.stats()["zoom"] >= 0.2:
        page.keyboard.press("-")
    page.keyboard.press("Control+f")
    expect(page.locator("#find-status")).to_have_text("2 matches")
    page.keyboard.press("Enter")
    assert app.stats()["zoom"] == 0.6
    node = app.api("JSON.parse(window.bendscope.interaction()).selection")[0]
    x, y = app.node_xy(node)
    assert abs(x - 640) < 2 and abs(y - 400) < 2
    page.keyboard.press("Escape")


def test_typing_in_connect_to_filters_the_whole_plane(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    app.right_click("founded-2020")
    page.keyboard.press("ArrowRight")  # into Connect to…
    page.locator("#menu-1").wait_for(state="visible")
    page.keyboard.type("qual")
    expect(page.locator("#menu-1 [data-item='filter']")).to_have_text("Filter: qual")
    items = page.locator("#menu-1 [data-item^='connect-']:not([data-item='connect-kind'])")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("→ Product quality")
    page.keyboard.press("Backspace")
    expect(page.locator("#menu-1 [data-item='filter']")).to_have_text("Filter: qua")
    page.keyboard.press("Enter")
    assert app.stats()["edges"] == 11
