"""Editing with mouse and keyboard: nodes, pan and zoom, undo/redo, planes."""

from __future__ import annotations

import json

from playwright.sync_api import expect

SMALL = {
    "nodes": [{"id": "a", "text": "Alpha"}, {"id": "b", "text": "Beta"}],
    "edges": [{"source": "a", "target": "b"}],
}


def load(app, doc) -> None:
    assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.settle()")


def doc(app) -> dict:
    return json.loads(app.api("window.bendscope.export()"))


def texts(app) -> list[str]:
    return [n["text"] for n in doc(app)["planes"][0]["nodes"]]


def test_create_edit_delete_node_with_mouse_and_keyboard(app_factory):
    app = app_factory("seed=2&still=1")
    load(app, SMALL)
    page = app.page
    # double-click the background: a new node, with the text editor open on it
    page.mouse.dblclick(200, 650)
    editor = page.locator("#text-editor")
    editor.wait_for(state="visible")
    page.keyboard.type("Gamma <b>bold</b>")
    page.keyboard.press("Backspace")  # typing in the field never deletes the node
    page.keyboard.press("Control+Enter")
    editor.wait_for(state="hidden")
    assert app.stats()["nodes"] == 3
    assert "Gamma <b>bold</b" in texts(app)
    assert page.locator("b").count() == 0  # shown as text, never parsed
    # double-click an existing node edits it; Escape cancels
    x, y = app.node_xy("a")
    page.mouse.dblclick(x, y)
    editor.wait_for(state="visible")
    page.keyboard.type(" changed")
    page.keyboard.press("Escape")
    assert "Alpha" in texts(app)
    page.mouse.dblclick(x, y)
    editor.wait_for(state="visible")
    page.keyboard.press("End")
    page.keyboard.type(" one")
    page.mouse.click(640, 40)  # blur commits
    assert "Alpha one" in texts(app)
    # click selects, Delete removes it and its edges
    page.mouse.click(x, y)
    page.keyboard.press("Delete")
    assert app.stats() == {"nodes": 2, "edges": 0, "depth": 0, "zoom": 1}
    page.keyboard.press("Control+z")
    assert app.stats()["nodes"] == 3 and app.stats()["edges"] == 1
    # a right-to-left text is edited right to left: the field takes its direction from the text
    page.mouse.dblclick(*app.node_xy("a"))
    editor.wait_for(state="visible")
    assert editor.evaluate("e => getComputedStyle(e).direction") == "ltr"
    page.keyboard.press("Control+a")
    page.keyboard.type("مطر غزير")
    assert editor.evaluate("e => getComputedStyle(e).direction") == "rtl"
    page.keyboard.press("Escape")
    assert "Alpha one" in texts(app)


def test_drag_moves_a_node_and_undo_returns_it(app_factory):
    app = app_factory("seed=2&still=1")
    load(app, SMALL)
    page = app.page
    x, y = app.node_xy("b")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=5)
    page.mouse.up()
    nx, ny = app.node_xy("b")
    assert abs(nx - (x + 60)) < 2 and abs(ny - (y + 40)) < 2
    page.keyboard.press("Control+z")
    assert app.node_xy("b") == (x, y)


def test_pan_and_zoom(app_factory):
    app = app_factory("seed=2&still=1")
    load(app, SMALL)
    page = app.page
    x, y = app.node_xy("a")
    page.mouse.move(200, 650)
    page.mouse.down()
    page.mouse.move(300, 700, steps=4)
    page.mouse.up()
    px, py = app.node_xy("a")
    assert abs(px - (x + 100)) < 0.5 and abs(py - (y + 50)) < 0.5
    # wheel zooms around the cursor: the point under it stays put
    page.mouse.move(px, py)
    page.mouse.wheel(0, -300)
    assert app.stats()["zoom"] > 1.3
    zx, zy = app.node_xy("a")
    assert abs(zx - px) < 1 and abs(zy - py) < 1
    for _ in range(30):
        page.mouse.wheel(0, 400)
    assert app.stats()["zoom"] == 2e-05  # MIN_ZOOM: far enough out to fit any document
    assert app.pill("zoom") == "zoom: 0.000020"
    page.locator("#canvas").focus()
    page.keyboard.press("0")
    assert app.stats()["zoom"] == 1
    page.keyboard.press("+")
    assert app.stats()["zoom"] == 1.2
    page.keyboard.press("-")
    assert app.stats()["zoom"] == 1


def test_undo_redo_keys_and_buttons(app_factory):
    app = app_factory("seed=2&still=1")
    load(app, SMALL)
    page = app.page
    undo, redo = page.locator("#btn-undo"), page.locator("#btn-redo")
    expect(undo).to_be_disabled()
    expect(redo).to_be_disabled()
    page.mouse.dblclick(200, 650)
    page.keyboard.type("new")
    page.keyboard.press("Control+Enter")
    assert app.stats()["nodes"] == 3
    expect(undo).to_be_enabled()
    page.keyboard.press("Control+z")  # the node and its text: one step
    assert app.stats()["nodes"] == 2
    expect(undo).to_be_disabled()
    expect(redo).to_be_enabled()
    page.keyboard.press("Control+Shift+z")
    assert app.stats()["nodes"] == 3 and "new" in texts(app)
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+y")
    assert "new" in texts(app)
    undo.click()
    assert app.stats()["nodes"] == 2
    redo.click()
    assert app.stats()["nodes"] == 3 and "new" in texts(app)


def test_stargate_and_back(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    app.dblclick_node("research-notes")
    assert app.stats() == {"nodes": 0, "edges": 0, "depth": 1, "zoom": 1}
    assert app.pill("depth") == "depth: 1"
    crumbs = page.locator("#breadcrumbs button")
    assert crumbs.count() == 2 and crumbs.nth(1).inner_text() == "Research notes"
    page.mouse.dblclick(640, 400)
    page.keyboard.type("inside")
    page.keyboard.press("Control+Enter")
    assert app.stats()["nodes"] == 1
    crumbs.nth(0).click()
    assert app.stats()["depth"] == 0 and app.stats()["nodes"] == 10
    app.dblclick_node("research-notes")  # the root plane kept its camera
    assert app.stats()["nodes"] == 1  # the child plane kept its node


def test_hostile_text_is_shown_as_text(app_factory):
    app = app_factory("seed=1&still=1")
    hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    load(app, {"nodes": [{"id": "h", "text": hostile}], "edges": []})
    page = app.page
    app.click_node("h")
    app.next_frame()  # (the frame after the click writes the inspector)
    inspector = page.locator("#inspector .title")
    assert inspector.inner_text() and hostile.startswith(inspector.inner_text()[:20])
    assert page.evaluate("window.pwned") is None
    assert page.locator("#inspector img, #inspector script").count() == 0


def _pointer(app, kind: str, pointer_id: int, x: float, y: float, pointer_type: str = "touch") -> None:
    """Dispatch a real DOM PointerEvent on the canvas (touch pointers for pinch tests)."""
    app.api(
        """([kind, id, x, y, type]) => document.getElementById('canvas').dispatchEvent(new PointerEvent(kind, {
            pointerId: id, clientX: x, clientY: y, pointerType: type, isPrimary: id === 1,
            button: 0, buttons: kind === 'pointerup' ? 0 : 1, bubbles: true, cancelable: true}))""",
        [kind, pointer_id, x, y, pointer_type],
    )


def test_pinch_zoom_with_two_touch_pointers(app_factory):
    app = app_factory("seed=2&still=1")
    load(app, SMALL)
    ax, ay = app.node_xy("a")
    # two fingers 200 px apart around node a, spread to 400 px: zoom ×2 and a stays under them
    _pointer(app, "pointerdown", 1, ax - 100, ay)
    _pointer(app, "pointerdown", 2, ax + 100, ay)
    for step in range(1, 11):
        _pointer(app, "pointermove", 1, ax - 100 - 10 * step, ay)
        _pointer(app, "pointermove", 2, ax + 100 + 10 * step, ay)
    _pointer(app, "pointerup", 2, ax + 200, ay)
    _pointer(app, "pointerup", 1, ax - 200, ay)
    zoom = app.stats()["zoom"]
    assert abs(zoom - 2.0) < 0.02
    nx, ny = app.node_xy("a")
    assert abs(nx - ax) < 1 and abs(ny - ay) < 1
    assert app.stats()["nodes"] == 2
    expect(app.page.locator("#btn-undo")).to_be_disabled()  # navigation is not an edit


def test_cancelled_drag_puts_the_node_back(app_factory):
    app = app_factory("seed=2&still=1")
    load(app, SMALL)
    x, y = app.node_xy("a")
    page = app.page
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 60, steps=4)
    assert app.node_xy("a") != (x, y)
    _pointer(app, "pointercancel", 1, x + 60, y + 60, pointer_type="mouse")
    page.mouse.up()
    nx, ny = app.node_xy("a")
    assert abs(nx - x) < 0.5 and abs(ny - y) < 0.5
    expect(page.locator("#btn-undo")).to_be_disabled()  # nothing was recorded
