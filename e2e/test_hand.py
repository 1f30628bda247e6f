"""The hand on the canvas: focus stays where keys work after a menu item is chosen, New node here
asked again never stacks cards, a connection dropped on empty canvas makes a card there, and the
loop searches wait while a card is dragged."""

from __future__ import annotations

import json

from harness import new_context, open_page, press_region_card
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


def test_the_loop_search_waits_while_a_card_is_dragged(app_factory):
    """Pressing a card in a large loop region asks for its loops and fewest cuts (the inspector);
    their slices ran between the drag's frames. They wait until the card is let go."""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    node, x, y = press_region_card(app, 1000)
    for k in range(1, 16):
        page.mouse.move(x + 6 * k, y)
        page.wait_for_timeout(60)
    during = json.loads(app.api("window.bendscope.loops_state()"))
    cuts = json.loads(app.api("window.bendscope.loop_cuts()"))
    page.mouse.up()
    assert json.loads(app.api("window.bendscope.interaction()"))["selection"] == [node]
    assert during["pending"] and cuts["pending"], (during["pending"], cuts["pending"])
    page.wait_for_function("!JSON.parse(window.bendscope.loops_state()).pending", timeout=60_000)
    page.wait_for_function("!JSON.parse(window.bendscope.loop_cuts()).pending", timeout=60_000)


def test_a_connection_dropped_on_empty_canvas_makes_a_card_to_type_in(app_factory):
    """Dragged from a card's handle and let go over nothing: a card there, joined by the edge, its
    text editor open (draw.io, Kumu and tldraw do this; it did nothing)."""
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    edges = app.stats()["edges"]
    x, y, w, h = app.api("window.bendscope.card_box('company')")
    page.mouse.move(x + w / 2, y + h / 2)  # hover: the handle shows at the middle of the right edge
    page.mouse.move(x + w, y + h / 2)
    page.mouse.down()
    page.mouse.move(x + w + 60, y + h / 2 + 200, steps=8)
    assert json.loads(app.api("window.bendscope.interaction()"))["state"] == "connecting"
    target = app.api("([x, y]) => document.elementFromPoint(x, y).id", [x + w + 60, y + h / 2 + 200])
    assert target == "canvas"
    page.mouse.up()
    page.keyboard.type("Hiring")  # (into the new card's text editor, open at once)
    page.keyboard.press("Control+Enter")
    plane = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    (card,) = [n for n in plane["nodes"] if n["text"] == "Hiring"]
    assert app.stats()["edges"] == edges + 1
    assert [e for e in plane["edges"] if e["a"] == "company" and e["b"] == card["id"]]


def test_the_digraph_menus_ask_on_is_made_ahead_at_rest_and_again_after_an_edit(app_factory):
    """Connect to…, Bend and their previews ask on the plane's digraph: it is made in idle
    periods once the page rests, so the menu's task builds none; an arc added makes it again
    at the next rest."""
    app = app_factory("seed=1&fresh=1")
    page = app.page
    ready = "window.bendscope.topology_state().digraph_ready"

    def made() -> int:
        return int(app.api("window.bendscope.topology_state().digraphs_made"))

    page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    page.wait_for_function(ready, timeout=10_000)
    before = made()
    assert before >= 1
    assert any(t[2] == "digraph" for t in json.loads(app.api("window.bendscope.task_log()")))
    app.click_node("company")
    page.keyboard.press("c")
    expect(page.locator("[data-item^='connect-0']")).to_be_visible()
    assert app.api(ready) and made() == before  # (the menu built none: it asked on the one made)
    page.keyboard.press("Enter")  # (the nearest card joined: the structure changed)
    expect(page.locator("#menu-0")).to_have_count(0)
    assert not app.api(ready)
    page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    page.wait_for_function(ready, timeout=10_000)
    assert made() == before + 1


def test_where_the_browser_has_no_idle_callbacks_the_digraph_is_made_by_a_timer(browser, base_url):
    """Safari has no ``requestIdleCallback``: the page made the digraph's first idle request
    through it and showed "Something went wrong" at every load; a timer asks instead."""
    context = new_context(browser)
    context.add_init_script("delete window.requestIdleCallback")
    try:
        app = open_page(context, base_url, "seed=1&still=1")
        app.page.wait_for_function("window.bendscope.topology_state().digraph_ready", timeout=10_000)
        assert app.api("typeof window.requestIdleCallback") == "undefined"
        assert not [m for m in app.guard.debug if "Bendscope:" in m], app.guard.debug
        app.guard.check(app.page)
    finally:
        context.close()


def test_c_with_the_mouse_resting_where_the_menu_opens_keeps_connect_to_open(app_factory):
    """C opens the card's menu with Connect to… open. With the mouse resting where the menu
    appeared (over another of its items) the submenu closed at once: the item that came under
    the resting pointer got a pointerover (Chromium's, as the layout changed), taken for a
    hover. A real move over another item still switches the submenu."""
    app = app_factory("seed=1&still=1")
    page = app.page
    app.click_node("company")
    x, y = app.node_xy("company")
    page.mouse.move(x + 60, y + 75)  # (the menu opens at the card: its third item will be here)
    page.keyboard.press("c")
    first = page.locator("[data-item='connect-0']")
    expect(first).to_be_visible()
    page.wait_for_timeout(600)  # (past the menu's hover delay)
    expect(first).to_be_visible()
    expect(page.locator("#mi-0-connect")).to_have_attribute("aria-expanded", "true")
    fork = page.locator("#mi-0-fork").bounding_box()
    assert fork is not None and not fork["y"] <= y + 75 <= fork["y"] + fork["height"]
    page.mouse.move(fork["x"] + 20, fork["y"] + fork["height"] / 2, steps=4)  # a real move to another item
    expect(first).to_have_count(0)
    page.keyboard.press("Escape")
