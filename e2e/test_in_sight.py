"""What a person just made or works on stays in sight: a status message lets the pointer
through and lies where it covers no card, and on a phone the bottom sheets (inspector, Loops
panel) never hide the card just made or the card selected. Real mouse, keyboard and touch."""

from __future__ import annotations

import json
import time

from harness import PHONE, AppPage, Finger, card_box, edges, node_ids, overlaps


def covered_cards(app: AppPage) -> list[str]:
    """The cards the status message lies over now."""
    toast = edges(app.page.locator("#toast").bounding_box())
    return [n for n in node_ids(app) if overlaps(edges(card_box(app, n)), toast)]


def refuse_an_import(app: AppPage) -> None:
    """A status message (shown 8 s) through the Import button's file input."""
    app.page.set_input_files(
        "#file-input", files=[{"name": "bad.json", "mimeType": "application/json", "buffer": b"{ not json"}]
    )
    app.page.locator("#toast").wait_for(state="visible")


def test_a_status_message_covers_no_card_and_lets_the_pointer_through(app_factory):
    """A status message sat at the bottom middle over whatever card lay there, for seconds, and
    caught the pointer: a double-click on it made no card."""
    app = app_factory("seed=1&still=1")
    page = app.page
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    page.mouse.dblclick(width / 2, height - 76)  # (where a message used to show)
    page.locator("#text-editor").wait_for(state="visible")
    page.keyboard.type("Under the message")
    page.keyboard.press("Control+Enter")
    page.locator("#text-editor").wait_for(state="hidden")
    assert app.stats()["nodes"] == 11
    refuse_an_import(app)
    assert covered_cards(app) == []
    # the pointer goes through it: a double-click on it makes a card there, and it moves off that card
    toast = page.locator("#toast").bounding_box()
    page.mouse.dblclick(toast["x"] + toast["width"] / 2, toast["y"] + toast["height"] / 2)
    page.locator("#text-editor").wait_for(state="visible")
    assert app.stats()["nodes"] == 12
    page.wait_for_function(
        """() => {
            const t = document.getElementById('toast').getBoundingClientRect();
            const ids = JSON.parse(window.bendscope.export()).planes[0].nodes.map(n => n.id);
            return !document.getElementById('toast').hidden && ids.every(id => {
                const [x, y, w, h] = window.bendscope.card_box(id);
                return x + w <= t.left + 0.5 || t.right <= x + 0.5 || y + h <= t.top + 0.5 || t.bottom <= y + 0.5;
            });
        }""",
        timeout=6000,
    )
    page.keyboard.press("Escape")


def test_on_a_phone_a_card_made_or_chosen_low_is_brought_above_the_sheets(app_factory):
    """On a phone the inspector's sheet opened over a card just made near the bottom (its text
    editor floated on the sheet), and over a card tapped there; the Loops panel's sheet too."""
    phone = app_factory("seed=1&still=1", context_args=PHONE)
    page = phone.page
    before = set(node_ids(phone))
    page.touchscreen.tap(200, 715)
    page.touchscreen.tap(200, 715)  # a double tap on the background makes a card there
    editor = page.locator("#text-editor")
    editor.wait_for(state="visible")
    (made,) = set(node_ids(phone)) - before
    inspector = page.locator("#inspector")
    inspector.wait_for(state="visible")
    time.sleep(0.3)  # (a frame after the sheet's)
    box = edges(card_box(phone, made))
    assert not overlaps(box, edges(inspector.bounding_box())), (box, inspector.bounding_box())
    assert box[1] >= 0 and box[3] <= page.viewport_size["height"]
    assert abs(editor.bounding_box()["y"] - box[1]) <= 1, "the text editor lies on its card"
    page.keyboard.type("New")
    page.keyboard.press("Control+Enter")
    editor.wait_for(state="hidden")
    # a card dragged low by panning, then tapped: the sheet opens above it, not over it
    page.touchscreen.tap(200, 200)  # (a tap on the background clears the selection: its sheet goes)
    inspector.wait_for(state="hidden")
    finger = Finger(phone)
    x, y, w, h = card_box(phone, "company")
    finger.drag_to((200, 200), (200, 200 + (700 - y)))
    finger.touch("touchEnd", 0, 0)
    x, y, w, h = card_box(phone, "company")
    assert y > 650, (x, y, w, h)
    page.touchscreen.tap(x + w / 2, y + h / 2)
    page.wait_for_function("JSON.parse(window.bendscope.export()).planes[0].nodes.length > 0")
    time.sleep(0.3)
    assert not overlaps(edges(card_box(phone, "company")), edges(inspector.bounding_box()))
    # the Loops panel's sheet, opened, leaves the selected card in sight too
    page.touchscreen.tap(*centre(page.locator("#btn-loops")))
    panel = page.locator("#loops-panel")
    panel.wait_for(state="visible")
    page.locator("#loops-body button.loop").first.wait_for(state="visible")
    time.sleep(0.3)
    company = edges(card_box(phone, "company"))
    for sheet in (inspector, panel):
        assert not overlaps(company, edges(sheet.bounding_box())), (company, sheet.bounding_box())
    assert company[1] >= 0
    # moved under a sheet by the person, it stays there (the view does not pull it back)
    sheet_top = panel.bounding_box()["y"]
    middle = ((company[0] + company[2]) / 2, (company[1] + company[3]) / 2)
    finger.drag_to(middle, (middle[0], sheet_top + 60))
    finger.touch("touchEnd", 0, 0)
    time.sleep(0.3)
    assert json.loads(phone.api("window.bendscope.interaction()"))["selection"] == ["company"]
    assert edges(card_box(phone, "company"))[1] > sheet_top + 30


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_the_phones_help_names_a_fingers_ways(app_factory):
    """The phone's help said of the Loops panel "hover or choose one" (a finger cannot hover)
    and "Show them (K)" (no K key); a desktop keeps those words."""
    phone = app_factory("seed=1&still=1", context_args=PHONE)
    button = phone.page.locator("#btn-help")
    button.scroll_into_view_if_needed()  # (the phone's toolbar scrolls sideways)
    phone.page.touchscreen.tap(*centre(button))
    phone.page.locator("#help-backdrop").wait_for(state="visible")
    text = phone.page.locator("#help-body").inner_text()
    assert "tap one to see it on the canvas" in text and "hover" not in text and "(K)" not in text
    desk = app_factory("seed=1&still=1")
    desk.page.keyboard.press("?")
    desk.page.locator("#help-backdrop").wait_for(state="visible")
    assert "hover or choose one" in desk.page.locator("#help-body").inner_text()
