"""Multi-select with κ of the selection, drag-to-connect with a live κ preview,
touch long-press menus; real mouse, keyboard and (synthetic) touch pointers."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import expect

# a 3-loop a→b→c→a with d hanging off c, spread out so the cards are easy to hit
SQUARE = {
    "nodes": [
        {"id": "a", "text": "Alpha", "x": -250, "y": -150, "pinned": True},
        {"id": "b", "text": "Beta", "x": 250, "y": -150, "pinned": True},
        {"id": "c", "text": "Gamma", "x": 250, "y": 150, "pinned": True},
        {"id": "d", "text": "Delta", "x": -250, "y": 150, "pinned": True},
    ],
    "edges": [
        {"source": "a", "target": "b", "kind": "causal"},
        {"source": "b", "target": "c", "kind": "causal"},
        {"source": "c", "target": "a", "kind": "causal"},
        {"source": "c", "target": "d", "kind": "causal"},
    ],
}


def load(app, doc=SQUARE) -> None:
    assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.settle()")
    app.api("window.bendscope.action('zoom-reset')")


def interaction(app) -> dict:
    return json.loads(app.api("window.bendscope.interaction()"))


def test_shift_click_band_select_all_and_the_kappa_of_the_selection(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app)
    page = app.page
    app.click_node("a")
    page.keyboard.down("Shift")
    app.click_node("b")
    page.keyboard.up("Shift")
    assert interaction(app)["selection"] == ["a", "b"]
    expect(page.locator("#hud-selection")).to_contain_text("showing the selection: 2 nodes")
    expect(page.locator("#hud-kappa")).to_have_text("κ: 0")  # a→b alone is no loop
    expect(page.locator("#hud-mode")).to_have_text("mode: RETRIEVAL")
    page.keyboard.down("Shift")
    app.click_node("c")
    page.keyboard.up("Shift")
    expect(page.locator("#hud-kappa")).to_have_text("κ: 1")  # a, b, c close the loop
    expect(page.locator("#inspector .title")).to_have_text("3 nodes selected")
    # Export topology writes the selection's topology
    with page.expect_download() as download:
        page.locator("#btn-topology").click()
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported["sccs"][0]["nodes"] == ["a", "b", "c"] and exported["dag_nodes"] == []
    # Esc clears; Shift+drag on the background selects the band's nodes (the bottom two)
    page.keyboard.press("Escape")
    expect(page.locator("#hud-selection")).to_be_hidden()
    expect(page.locator("#hud-kappa")).to_have_text("κ: 1")
    (cx, cy), (dx, dy) = app.node_xy("c"), app.node_xy("d")
    page.keyboard.down("Shift")
    page.mouse.move(dx - 120, dy - 60)
    page.mouse.down()
    page.mouse.move(cx + 120, cy + 60, steps=6)
    page.mouse.up()
    page.keyboard.up("Shift")
    assert interaction(app)["selection"] == ["c", "d"]
    page.keyboard.press("Control+a")
    assert interaction(app)["selection"] == ["a", "b", "c", "d"]
    assert app.api("String(window.getSelection())") == ""
    # Delete removes the whole selection; one undo brings it all back
    page.keyboard.press("Delete")
    assert app.stats()["nodes"] == 0
    page.keyboard.press("Control+z")
    assert app.stats()["nodes"] == 4 and app.stats()["edges"] == 4


def test_group_drag_moves_the_selection_as_one_step(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app)
    page = app.page
    page.keyboard.press("Control+a")
    before = {n: app.node_xy(n) for n in "abcd"}
    x, y = before["a"]
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=5)
    page.mouse.up()
    for n in "abcd":
        nx, ny = app.node_xy(n)
        assert abs(nx - before[n][0] - 60) < 1 and abs(ny - before[n][1] - 40) < 1
    page.keyboard.press("Control+z")
    for n in "abcd":
        assert app.node_xy(n) == before[n]


def test_drag_from_the_handle_to_connect_with_a_live_preview(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app)
    page = app.page
    dx, dy = app.node_xy("d")
    page.mouse.move(dx, dy)
    assert interaction(app)["handle"] == "d"
    width = next(n["width"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
                 if n["id"] == "d")  # fmt: skip
    hx = dx + width / 2  # zoom 1: the handle sits on the right edge's middle
    page.mouse.move(hx, dy)
    page.mouse.down()
    ax, ay = app.node_xy("a")
    page.mouse.move(ax, ay, steps=8)
    state = interaction(app)
    assert state["state"] == "connecting"
    assert state["link"] == {"source": "d", "target": "a", "label": "→ Alpha (κ: 1→1 — enlarges loop)"}
    page.mouse.up()
    assert app.stats()["edges"] == 5
    expect(page.locator("#hud-sccs")).to_have_text("SCCs: 1")
    page.keyboard.press("Control+z")
    assert app.stats()["edges"] == 4


def _pointer(app, kind: str, pointer_id: int, x: float, y: float) -> None:
    app.api(
        """([kind, id, x, y]) => document.getElementById('canvas').dispatchEvent(new PointerEvent(kind, {
            pointerId: id, clientX: x, clientY: y, pointerType: 'touch', isPrimary: true,
            button: 0, buttons: kind === 'pointerup' ? 0 : 1, bubbles: true, cancelable: true}))""",
        [kind, pointer_id, x, y],
    )


def test_touch_long_press_opens_the_menu_and_a_tap_on_the_handle_drags_an_edge(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app)
    page = app.page
    x, y = app.node_xy("b")
    _pointer(app, "pointerdown", 1, x, y)
    page.locator("#menu-0").wait_for(state="visible", timeout=3000)
    _pointer(app, "pointerup", 1, x, y)
    expect(page.locator("#menu-0 [data-item='connect']")).to_be_visible()
    page.keyboard.press("Escape")
    # touch: the selected node shows its handle; a finger drags an edge from it
    assert interaction(app)["handle"] == "b" and interaction(app)["selection"] == ["b"]
    width = next(n["width"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
                 if n["id"] == "b")  # fmt: skip
    dx, dy = app.node_xy("d")
    _pointer(app, "pointerdown", 1, x + width / 2, y)
    for k in range(1, 9):
        _pointer(app, "pointermove", 1, x + width / 2 + (dx - x - width / 2) * k / 8, y + (dy - y) * k / 8)
    assert interaction(app)["link"]["target"] == "d"
    _pointer(app, "pointerup", 1, dx, dy)
    assert app.stats()["edges"] == 5


def test_an_empty_card_is_named_in_words_in_the_inspector_connect_to_and_the_outline(app_factory):
    """A new card (double-click), committed empty, and a card whose text was cleared are
    "(empty card)" wherever a card is named — never their internal ids; Connect to… tells
    them apart by the card they sit beside."""
    app = app_factory("seed=1&still=1")
    app.api("t => window.bendscope.load(t)", json.dumps(SQUARE))
    page = app.page
    ax, ay = app.node_xy("a")
    page.mouse.dblclick(ax, ay + 110)  # (empty canvas below Alpha)
    expect(page.locator("#inspector")).to_contain_text("(empty card)")
    page.keyboard.press("Control+Enter")
    made = [n for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"] if not n["text"]]
    assert len(made) == 1
    app.dblclick_node("b")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.press("Control+Enter")
    app.click_node("b")
    expect(page.locator("#inspector")).to_contain_text("(empty card)")
    app.click_node("d")
    page.keyboard.press("c")
    menu = page.locator("[role=menu]").last
    expect(menu).to_contain_text("→ (empty card below Alpha)")
    page.keyboard.press("Escape")
    page.wait_for_timeout(1_200)  # (the outline is built again at most once a second)
    words = (
        " ".join(page.locator(s).inner_text() for s in ("#inspector", "#outline-cards") if page.locator(s).count())
        + menu.inner_text()
    )
    for internal in (made[0]["id"], "node-"):
        assert internal not in words
    assert "(empty card)" in page.locator("#outline-cards").inner_text()
