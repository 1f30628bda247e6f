"""Frictions a person meets in the editor, with real touch, mouse and keyboard: a pan keeps
what is selected, a status message stays off open menus, the view keeps a chosen loop clear
of the Loops panel, and a phone's sheet and the view it moves come in the same frame."""

from __future__ import annotations

import json
import time

from harness import PHONE, AppPage, Finger, card_box, edges, node_ids, overlaps


def empty_point(app: AppPage, low: float, high: float) -> tuple[float, float]:
    """A screen point between heights ``low`` and ``high`` with no card within 40 px."""
    boxes = [edges(card_box(app, n)) for n in node_ids(app)]
    width = app.page.viewport_size["width"]
    for y in range(int(low), int(high), 20):
        for x in range(30, width - 30, 20):
            near = [x - 40, y - 40, x + 40, y + 40]
            if not any(overlaps(near, b) for b in boxes):
                return float(x), float(y)
    raise AssertionError("no empty canvas in sight")


def selection(app: AppPage) -> list[str]:
    return json.loads(app.api("window.bendscope.interaction()"))["selection"]


def test_on_a_phone_a_pan_keeps_the_selection_and_its_inspector(app_factory):
    """On a phone a one-finger pan on the empty canvas cleared the selection the moment the
    finger went down, so the inspector closed; a tap on the empty canvas still clears it."""
    phone = app_factory("seed=1&still=1", context_args=PHONE)
    page = phone.page
    x, y, w, h = card_box(phone, "revenue")
    page.touchscreen.tap(x + w / 2, y + h / 2)
    inspector = page.locator("#inspector")
    inspector.wait_for(state="visible")
    time.sleep(0.3)  # (the sheet and the view it may move)
    sheet_top = inspector.bounding_box()["y"]
    start = empty_point(phone, 110, sheet_top - 120)
    before = card_box(phone, "revenue")
    finger = Finger(phone)
    finger.drag_to(start, (start[0], start[1] + 80))
    finger.touch("touchEnd", 0, 0)
    time.sleep(0.2)
    assert card_box(phone, "revenue")[1] > before[1] + 60, "the finger panned the view"
    assert selection(phone) == ["revenue"]
    assert inspector.is_visible()
    page.touchscreen.tap(*empty_point(phone, 110, sheet_top - 40))
    inspector.wait_for(state="hidden")
    assert selection(phone) == []


def test_a_status_message_moves_off_a_menu_opened_over_it(app_factory):
    """A status message lay over the cards' and the canvas's menus (it is drawn above them):
    a menu opened where it lay showed under it."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.set_input_files(
        "#file-input", files=[{"name": "bad.json", "mimeType": "application/json", "buffer": b"{ not json"}]
    )
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    at = edges(toast.bounding_box())
    # the message lets the pointer through: a right-click on it opens the menu of what lies below
    page.mouse.click(at[0] + 10, at[1] + 4, button="right")
    menu = page.locator("#menu-0")
    menu.wait_for(state="visible")
    assert overlaps(edges(menu.bounding_box()), at), "the menu opened over the message's spot"
    assert toast.is_visible()
    assert not overlaps(edges(menu.bounding_box()), edges(toast.bounding_box()))


def test_the_loops_panel_opens_clear_of_the_selected_card(app_factory):
    """On a wide window the Loops panel opened over the selected card and the view stayed
    (a phone's sheets moved it)."""
    app = app_factory("seed=1&still=1")
    page = app.page
    x, y, w, h = card_box(app, "customer-retention")
    page.mouse.click(x + w / 2, y + h / 2)
    page.locator("#inspector").wait_for(state="visible")
    panel = page.locator("#loops-panel")
    page.keyboard.press("o")
    panel.wait_for(state="visible")
    page.locator("#loops-body button.loop").first.wait_for(state="visible")
    time.sleep(0.3)  # (a frame with the panel's list)
    card = edges(card_box(app, "customer-retention"))
    assert not overlaps(card, edges(panel.bounding_box())), (card, panel.bounding_box())
    assert selection(app) == ["customer-retention"]
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert card[0] >= 0 and card[1] >= 0 and card[2] <= width and card[3] <= height


def test_on_a_phone_the_view_a_sheet_moves_is_drawn_in_the_frame_the_sheet_appears(app_factory):
    """On a phone a card tapped low had the inspector's sheet drawn over it for a frame, and
    the view moved it clear in the next frame (a jump); a slow tap showed the sheet over it as
    long as the finger was down."""
    phone = app_factory("seed=1&still=1", context_args=PHONE)
    page = phone.page
    finger = Finger(phone)
    start = empty_point(phone, 150, 400)
    x, y, w, h = card_box(phone, "company")
    finger.drag_to(start, (start[0], start[1] + (700 - y)))
    finger.touch("touchEnd", 0, 0)
    x, y, w, h = card_box(phone, "company")
    assert y > 650, (x, y, w, h)
    # the badge of the loop region as drawn, when the sheet first shows and two frames later
    page.evaluate(
        """() => {
            window.__drawn = [];
            const sheet = document.getElementById('inspector');
            new MutationObserver(() => {
                if (!sheet.hidden && window.__drawn.length === 0) {
                    window.__drawn.push(JSON.parse(window.bendscope.drawn_halos()).badges);
                    requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(
                        () => window.__drawn.push(JSON.parse(window.bendscope.drawn_halos()).badges))));
                }
            }).observe(sheet, {attributes: true, attributeFilter: ['hidden']});
        }"""
    )
    before = json.loads(phone.api("window.bendscope.drawn_halos()"))["badges"]
    # a slow tap: frames are drawn while the finger is down (the card selected), then it lifts
    finger.touch("touchStart", x + w / 2, y + h / 2)
    time.sleep(0.2)
    finger.touch("touchEnd", 0, 0)
    page.wait_for_function("window.__drawn.length === 2", timeout=5000)
    first, later = page.evaluate("window.__drawn")
    assert first == later, "the view moved after the frame the sheet appeared in"
    assert first != before, "the view moved the card clear of the sheet"
    assert not overlaps(edges(card_box(phone, "company")), edges(page.locator("#inspector").bounding_box()))


def test_a_space_in_the_connect_to_search_is_typed_not_chosen(app_factory):
    """Typing a card's name of two words in Connect to… ("Customer retention") connected the
    card to whatever was focused when the space was typed, and closed the menu."""
    app = app_factory("seed=1&still=1")
    page = app.page
    edges_before = app.stats()["edges"]
    x, y, w, h = card_box(app, "revenue")
    page.mouse.click(x + w / 2, y + h / 2)
    page.keyboard.press("c")
    submenu = page.locator("#menu-1")
    submenu.wait_for(state="visible")
    page.keyboard.type("Customer r")
    assert submenu.locator("[role^=menuitem]").first.inner_text(timeout=5000) == "Filter: Customer r"
    assert app.stats()["edges"] == edges_before
    focused = page.locator("#menu-1 [role^='menuitem']:focus")
    assert "Customer retention" in focused.inner_text()
    page.keyboard.press("Enter")
    page.locator("#menu-0").wait_for(state="detached")
    assert app.stats()["edges"] == edges_before + 1
    # before any query, Space still chooses the focused item
    page.keyboard.press("Shift+F10")
    page.locator("#menu-0").wait_for(state="visible")
    page.keyboard.press("ArrowRight")
    submenu.wait_for(state="visible")
    page.keyboard.press(" ")
    page.locator("#menu-0").wait_for(state="detached")
    assert app.stats()["edges"] == edges_before + 2


def test_a_chosen_loop_is_brought_clear_of_the_inspector_that_opens_over_it(app_factory):
    """On a wide window the inspector, opened by selecting a card, covered a card of the loop
    chosen in the Loops panel (one the person had panned to where it opens), and the view
    stayed."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.keyboard.press("o")
    rows = page.locator("#loops-body button.loop")
    rows.first.wait_for(state="visible")
    rows.last.click()
    time.sleep(0.3)
    members = json.loads(app.api("window.bendscope.loops_state()"))["chosen"]
    # the person pans a card of the loop to the top right corner, where the inspector opens
    top = max(members, key=lambda n: card_box(app, n)[0] - card_box(app, n)[1])  # (the top right one)
    x, y, w, h = card_box(app, top)
    start = empty_point(app, 320, 700)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + (1150 - x - w / 2), start[1] + (110 - y - h / 2), steps=8)
    page.mouse.up()
    time.sleep(0.3)
    assert json.loads(app.api("window.bendscope.loops_state()"))["chosen"] == members
    inspector = page.locator("#inspector")
    assert inspector.is_hidden()
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    # another card of the loop, selected: the inspector opens
    boxes = {n: edges(card_box(app, n)) for n in members if n != top}
    free = [n for n, b in boxes.items() if b[0] >= 380 and b[1] >= 0 and b[2] < 1020 and b[3] <= height - 80]
    assert free, (boxes, card_box(app, top))
    other = free[0]
    x, y, w, h = card_box(app, other)
    page.mouse.click(x + w / 2, y + h / 2)
    inspector.wait_for(state="visible")
    time.sleep(0.3)
    sheet = edges(inspector.bounding_box())
    under = [n for n in members if overlaps(edges(card_box(app, n)), sheet)]
    assert under == [], (under, sheet)
    assert json.loads(app.api("window.bendscope.loops_state()"))["chosen"] == members
    for n in members:
        box = edges(card_box(app, n))
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height, (n, box)
