"""The editor on a touch phone (390×844): what is drawn and shown stays on the screen and
clear of the graph, and the words name the finger's gestures. Real touch input through the
browser's own touch events (CDP)."""

from __future__ import annotations

import json
import time

import pytest
from harness import PHONE, AppPage, Finger
from playwright.sync_api import expect


@pytest.fixture
def phone(app_factory) -> AppPage:
    return app_factory("seed=1&still=1", context_args=PHONE)


def card_box(app: AppPage, node_id: str) -> list[float]:
    return app.api(f"window.bendscope.card_box({node_id!r})")


def interaction(app: AppPage) -> dict:
    return json.loads(app.api("window.bendscope.interaction()"))


def test_the_kappa_pill_of_a_dragged_connection_stays_on_the_screen(phone):
    """Dragging a connection to a card at the screen's right edge drew its κ pill centred on
    that card, half of it past the edge."""
    width = phone.page.viewport_size["width"]
    doc = json.loads(phone.api("window.bendscope.export()"))  # (the demo opens whole: a view at 0.6 cuts it)
    hq = next(n for n in doc["planes"][0]["nodes"] if n["id"] == "hq-austin")
    doc["planes"][0]["camera"] = {"x": hq["x"] - (width / 2) / 0.6, "y": hq["y"], "zoom": 0.6}  # (hq on the edge)
    assert phone.api("d => window.bendscope.load(d)", json.dumps(doc)) is None
    x, y, w, h = card_box(phone, "company")
    phone.page.touchscreen.tap(x + w / 2, y + h / 2)  # selected: its handle shows
    assert interaction(phone)["handle"] == "company"
    tx, ty, tw, th = card_box(phone, "hq-austin")
    assert tx < width - 12 < tx + tw, "the target card reaches past the right edge"
    finger = Finger(phone)
    finger.drag_to((x + w, y + h / 2), (width - 8, ty + th / 2))
    state = interaction(phone)
    assert state["link"]["target"] == "hq-austin" and state["link"]["label"]
    left, top, pw, ph = state["pill"]
    assert left >= 0 and left + pw <= width, state["pill"]
    assert top >= 0 and top + ph <= phone.page.viewport_size["height"], state["pill"]
    finger.touch("touchEnd", 0, 0)
    assert phone.stats()["edges"] == 11


def test_the_text_editor_lies_on_its_card_at_any_zoom(phone):
    """At zoom 0.73 the text editor of a narrow card stuck out past its right edge and far
    below it (it was at least 180×96 before the zoom)."""
    doc = json.loads(phone.api("window.bendscope.export()"))
    doc["planes"][0]["camera"]["zoom"] = 0.73
    assert phone.api("d => window.bendscope.load(d)", json.dumps(doc)) is None
    assert phone.stats()["zoom"] == 0.73
    x, y, w, h = card_box(phone, "company")
    phone.page.touchscreen.tap(x + w / 2, y + h / 2)
    phone.page.touchscreen.tap(x + w / 2, y + h / 2)  # a double tap edits the text
    area = phone.page.locator("#text-editor")
    area.wait_for(state="visible")
    box = area.bounding_box()
    assert abs(box["x"] - x) <= 1 and abs(box["y"] - y) <= 1, (box, [x, y, w, h])
    assert abs(box["width"] - w) <= 1 and abs(box["height"] - h) <= 1, (box, [x, y, w, h])
    # more lines than the card holds: it grows downwards, still on the card's left, top and width
    phone.page.keyboard.press("End")
    for line in ("one", "two", "three"):
        phone.page.keyboard.press("Enter")
        phone.page.keyboard.type(line)
    grown = area.bounding_box()
    assert grown["height"] > h + 10
    assert abs(grown["x"] - x) <= 1 and abs(grown["y"] - y) <= 1 and abs(grown["width"] - w) <= 1


def test_dialog_buttons_are_a_fingers_size_on_a_touch_screen(phone, app_factory):
    """A dialog's buttons were 27 px tall on a phone (44 px is the least a finger hits
    reliably); with a mouse they keep their size."""
    phone.page.touchscreen.tap(*centre(phone.page.locator("#btn-new")))
    buttons = phone.page.locator("#dialog .dialog-buttons button")
    buttons.first.wait_for(state="visible")
    assert buttons.count() == 2
    for k in range(buttons.count()):
        box = buttons.nth(k).bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, (buttons.nth(k).inner_text(), box)
    phone.page.touchscreen.tap(*centre(phone.page.locator("#dialog-cancel")))
    phone.page.locator("#dialog-backdrop").wait_for(state="hidden")
    assert phone.stats()["nodes"] == 10
    desk = app_factory("seed=1&still=1")
    desk.page.locator("#btn-new").click()
    desk.page.locator("#dialog-ok").wait_for(state="visible")
    assert desk.page.locator("#dialog-ok").bounding_box()["height"] < 44


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_phone_names_the_finger_gestures_not_keys_or_double_clicks(phone, app_factory):
    """On a phone the inspector said "(S sets it)" of an edge's polarity and the demo's
    stargate said "double-click to enter"; a desktop keeps those words."""
    middle = phone.api("window.bendscope.edge_points('edge-0')")["middle"]
    phone.page.touchscreen.tap(*middle)
    inspector = phone.page.locator("#inspector")
    inspector.wait_for(state="visible")
    text = inspector.inner_text()
    assert "long-press the edge, then Polarity" in text and "(S" not in text, text
    notes = json.loads(phone.api("window.bendscope.export()"))["planes"][0]["nodes"]
    stargate = next(n["text"] for n in notes if n["id"] == "research-notes")
    assert "double-tap to enter" in stargate, stargate
    desk = app_factory("seed=1&still=1")
    middle = desk.api("window.bendscope.edge_points('edge-0')")["middle"]
    desk.page.mouse.click(*middle)
    expect(desk.page.locator("#inspector")).to_contain_text("(S or the edge's menu sets it)")  # (by the next frame)
    notes = json.loads(desk.api("window.bendscope.export()"))["planes"][0]["nodes"]
    assert "double-click to enter" in next(n["text"] for n in notes if n["id"] == "research-notes")


def overlaps(a: list[float], b: list[float]) -> bool:
    """Whether two boxes (left, top, right, bottom) share more than a hair."""
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def test_the_inspector_and_the_loops_panel_leave_the_badge_and_the_top_cards_in_sight(phone):
    """On a phone the inspector and the Loops panel opened under the toolbar, over the loop
    region's κ badge and the graph's top cards."""
    page = phone.page
    x, y, w, h = card_box(phone, "revenue")
    page.touchscreen.tap(x + w / 2, y + h / 2)
    page.locator("#inspector").wait_for(state="visible")
    page.touchscreen.tap(*centre(page.locator("#btn-loops")))
    page.locator("#loops-panel").wait_for(state="visible")
    page.locator("#loops-body button.loop").first.wait_for(state="visible")
    time.sleep(0.3)  # a frame with both panels shown
    panels = []
    for name in ("inspector", "loops-panel"):
        box = page.locator(f"#{name}").bounding_box()
        panels.append([box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]])
    assert not overlaps(*panels), panels
    halos = json.loads(phone.api("window.bendscope.drawn_halos()"))
    (badge,) = halos["badges"]
    shown = [[badge[0], badge[1], badge[0] + badge[2], badge[1] + badge[3]]]
    nodes = json.loads(phone.api("window.bendscope.export()"))["planes"][0]["nodes"]
    boxes = {n["id"]: card_box(phone, n["id"]) for n in nodes}
    top = sorted(boxes, key=lambda n: boxes[n][1])[:3]  # the three top-most cards
    shown += [[bx, by, bx + bw, by + bh] for bx, by, bw, bh in (boxes[n] for n in top)]
    covered = [(item, panel) for item in shown for panel in panels if overlaps(item, panel)]
    assert covered == [], (top, covered)
    # the panels stay clear of the HUD and the legend, and inside the window
    for name in ("hud", "legend-box"):
        box = page.locator(f"#{name}").bounding_box()
        below = [box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]]
        assert [panel for panel in panels if overlaps(panel, below)] == [], (name, panels, below)
    assert all(panel[0] >= 0 and panel[2] <= 390 and panel[1] >= 0 and panel[3] <= 844 for panel in panels)


def empty_card_and_plane(app: AppPage) -> tuple[list[str], str]:
    """The words of a card without text, then the empty plane's hint."""
    doc = json.loads(app.api("window.bendscope.export()"))
    root = doc["planes"][0]
    doc["planes"] = [root]
    root["nodes"] = [{**root["nodes"][0], "id": "blank", "text": "", "type": "normal"}]
    root["edges"] = []
    assert app.api("d => window.bendscope.load(d)", json.dumps(doc)) is None
    words = app.api("window.bendscope.card_words('blank')")
    root["nodes"] = []
    assert app.api("d => window.bendscope.load(d)", json.dumps(doc)) is None
    hint = app.page.locator("#empty-hint")
    hint.wait_for(state="visible")
    return words, hint.inner_text()


def test_an_empty_card_and_an_empty_plane_name_the_finger_gestures(phone, app_factory):
    """On a phone an empty card said "Double-click to edit" and the empty plane "Double-click
    to add a node · right-click for more · ? for shortcuts"; a desktop keeps those words."""
    words, hint = empty_card_and_plane(phone)
    assert words == ["Double-tap to edit"], words
    assert hint.startswith("Double-tap to add a node") and "long-press" in hint, hint
    assert "click" not in hint.lower(), hint
    words, hint = empty_card_and_plane(app_factory("seed=1&still=1"))
    assert words == ["Double-click to edit"], words
    assert hint.startswith("Double-click to add a node") and "right-click" in hint, hint


def test_a_long_press_menu_has_rows_a_finger_hits_and_no_key_letters(phone, app_factory):
    """The context menu's rows were 38 px tall on a phone and showed the desktop's key letters
    (C, U, P); with a mouse the rows keep their size and their letters."""
    x, y, w, h = card_box(phone, "revenue")
    Finger(phone).long_press(x + w / 2, y + h / 2)
    menu = phone.page.locator("#menu-0")
    menu.wait_for(state="visible", timeout=3000)
    rows = menu.locator("[role^=menuitem]")
    assert rows.count() >= 4
    for k in range(rows.count()):
        box = rows.nth(k).bounding_box()
        assert box["height"] >= 44, (rows.nth(k).inner_text(), box)
    hints = menu.locator(".hint")
    assert hints.count() >= 1  # (the rows have key letters; a phone does not show them)
    assert all(not hints.nth(k).is_visible() for k in range(hints.count()))
    desk = app_factory("seed=1&still=1")
    desk.right_click("revenue")
    desk_menu = desk.page.locator("#menu-0")
    desk_menu.wait_for(state="visible", timeout=3000)
    expect_hint = desk_menu.locator(".hint").first
    assert expect_hint.is_visible() and desk_menu.locator("[role^=menuitem]").first.bounding_box()["height"] < 44


def test_after_an_import_the_toolbar_shows_undo_again(phone):
    """A phone's toolbar scrolls sideways: Import… tapped at its end left it scrolled there after
    the import, with Undo (which the toast names to bring the old graph back) and Fit off the
    screen."""
    page = phone.page
    button = page.locator("#btn-import")
    button.scroll_into_view_if_needed()
    assert page.locator("#toolbar").evaluate("e => e.scrollLeft") > 0
    box = button.bounding_box()
    with page.expect_file_chooser() as chooser:
        Finger(phone).tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    csv = b"source,target\na,b\nb,a\n"
    chooser.value.set_files(files=[{"name": "loop.csv", "mimeType": "text/csv", "buffer": csv}])
    expect(page.locator("#toast")).to_contain_text("Imported loop.csv")
    width = page.viewport_size["width"]
    for name in ("undo", "fit"):
        control = page.locator(f"#btn-{name}")
        expect(control).to_be_enabled()
        at = control.bounding_box()
        assert at["x"] >= 0 and at["x"] + at["width"] <= width, (name, at)
