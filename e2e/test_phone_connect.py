"""A connection dragged by a finger on a phone (390×844, CDP touch) and let go over nothing
makes a card there, as the mouse's does (the hand's friction was tested with a mouse only)."""

from __future__ import annotations

import json

from harness import PHONE, Finger


def test_a_connection_a_finger_drops_on_empty_canvas_makes_a_card_to_type_in(app_factory):
    """Dropping a drag-to-connect on empty canvas did nothing; a finger's drop now makes a card
    there, joined by the edge, its text editor open."""
    phone = app_factory("seed=1&still=1", context_args=PHONE)
    page = phone.page
    cards, edges = phone.stats()["nodes"], phone.stats()["edges"]
    x, y, w, h = phone.api("window.bendscope.card_box('company')")
    page.touchscreen.tap(x + w / 2, y + h / 2)  # selected: its handle shows
    assert json.loads(phone.api("window.bendscope.interaction()"))["handle"] == "company"
    finger = Finger(phone)
    drop = (x + w + 40, y + h / 2 + 150)
    finger.drag_to((x + w, y + h / 2), drop)
    assert json.loads(phone.api("window.bendscope.interaction()"))["state"] == "connecting"
    assert phone.api("([x, y]) => document.elementFromPoint(x, y).id", list(drop)) == "canvas"
    finger.touch("touchEnd", 0, 0)
    page.locator("#text-editor").wait_for(state="visible")
    page.keyboard.type("Hiring")
    page.keyboard.press("Control+Enter")
    plane = json.loads(phone.api("window.bendscope.export()"))["planes"][0]
    (card,) = [n for n in plane["nodes"] if n["text"] == "Hiring"]
    assert phone.stats()["nodes"] == cards + 1 and phone.stats()["edges"] == edges + 1
    assert [e for e in plane["edges"] if e["a"] == "company" and e["b"] == card["id"]]
