"""The first-ten-minutes bugs, each through real mouse and keyboard input."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

RING = ["price", "demand", "sales", "profit", "budget"]


def pentagon() -> dict:
    """A 5-cycle of two-way arcs (κ = 2) and Marketing, fed by Price."""
    nodes = [{"id": n, "text": n.capitalize(), "x": 220.0 * i - 440, "y": -120.0 if i % 2 else 0.0}
             for i, n in enumerate(RING)]  # fmt: skip
    nodes.append({"id": "marketing", "text": "Marketing", "x": 0.0, "y": 220.0})
    edges = [{"source": RING[i], "target": RING[(i + d) % 5], "kind": "causal"} for i in range(5) for d in (1, 4)]
    edges.append({"source": "price", "target": "marketing", "kind": "causal"})
    return {"nodes": nodes, "edges": edges}


def load(app, doc: dict) -> None:
    assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.settle()")
    app.api("window.bendscope.action('fit-view')")


def menu_item(app, item_id: str, depth: int = 0):
    return app.page.locator(f"#menu-{depth} [data-item='{item_id}']")


def test_bend_previews_and_unbend_says_what_really_happens(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app, pentagon())
    assert app.pill("kappa") == "κ: 2"
    app.right_click("marketing")
    bend = menu_item(app, "bend")
    # Marketing joins the loop by one arc in and one out: κ drops, and the label says so first
    expect(bend.locator(".label")).to_have_text(re.compile(r"^Bend → \w+ \(κ: 2→1 — enlarges loop\)$"))
    bend.click()
    expect(app.page.locator("#hud-kappa")).to_have_text("κ: 1")
    app.right_click("marketing")
    menu_item(app, "unbend").click()
    expect(app.page.locator("#dialog-text")).to_have_text(
        re.compile(
            r"^Remove edge (Price→Marketing|Marketing→\w+)\? "
            r"Marketing leaves the feedback loop; the rest stays a loop of κ 2 \(the whole had κ 1\)\.$"
        )
    )
    app.page.locator("#dialog-ok").click()
    expect(app.page.locator("#hud-kappa")).to_have_text("κ: 2")


def test_a_dropped_node_stays_where_it_was_dropped(app_factory):
    app = app_factory("seed=1&fresh=1")  # the layout runs (not still)
    load(app, pentagon())
    page = app.page
    x, y = app.node_xy("marketing")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 160, y - 40, steps=8)
    page.mouse.up()
    dropped = app.node_xy("marketing")
    page.wait_for_timeout(2000)  # the layout had pulled it back ~100 px by now
    after = app.node_xy("marketing")
    assert abs(after[0] - dropped[0]) <= 1 and abs(after[1] - dropped[1]) <= 1, (dropped, after)
    node = next(n for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
                if n["id"] == "marketing")  # fmt: skip
    assert node["pinned"] is True
    app.right_click("marketing")
    expect(menu_item(app, "unpin")).to_be_visible()


def test_new_node_here_opens_the_text_editor_and_esc_takes_it_back(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app, pentagon())
    page = app.page
    editor = page.locator("#text-editor")
    page.mouse.click(1100, 700, button="right")
    menu_item(app, "new-node").click()
    editor.wait_for(state="visible")
    page.keyboard.type("Delta")  # the first line goes to the card, not to shortcuts
    page.keyboard.press("Control+Enter")
    editor.wait_for(state="hidden")
    texts = [n["text"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]]
    assert "Delta" in texts and app.stats()["nodes"] == 7
    page.mouse.click(1100, 600, button="right")
    menu_item(app, "new-node").click()
    editor.wait_for(state="visible")
    page.keyboard.press("Escape")
    editor.wait_for(state="hidden")
    assert app.stats()["nodes"] == 7  # no empty "node-N" card left behind
    page.keyboard.press(
        "Control+z"
    )  # the next undo takes back Delta's card with its text: nothing of the discarded one
    texts = [n["text"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]]
    assert "Delta" not in texts and app.stats()["nodes"] == 6
    expect(page.locator("#btn-redo")).to_be_enabled()


def test_connect_to_says_already_connected(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app, pentagon())
    app.right_click("price")
    menu_item(app, "connect").hover()
    sub = app.page.locator("#menu-1 [role='menuitem']")
    sub.first.wait_for(state="visible")
    done = app.page.locator("#menu-1 [role='menuitem']", has_text="Marketing — already connected")
    expect(done).to_have_attribute("aria-disabled", "true")


def test_submenu_stays_open_while_the_pointer_heads_for_it(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    load(app, pentagon())
    page = app.page
    app.right_click("marketing")
    connect = menu_item(app, "connect")
    connect.hover()
    page.locator("#menu-1").wait_for(state="visible")
    start = connect.bounding_box()
    target = page.locator("#menu-1 [role='menuitem']").nth(3).bounding_box()
    sx, sy = start["x"] + start["width"] - 30, start["y"] + start["height"] / 2
    tx, ty = target["x"] + 20, target["y"] + target["height"] / 2
    page.mouse.move(sx, sy)
    page.mouse.move(tx, ty, steps=12)  # diagonally down across the items below Connect to…
    expect(page.locator("#menu-1")).to_be_visible()
    expect(connect).to_have_attribute("aria-expanded", "true")
    # a plain move down to the next item (not toward the submenu) still switches
    page.mouse.move(start["x"] + 20, start["y"] + start["height"] / 2)
    below = menu_item(app, "bend") if menu_item(app, "bend").count() else menu_item(app, "edit-text")
    box = below.bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + box["height"] / 2, steps=3)
    expect(page.locator("#menu-1")).to_have_count(0, timeout=2000)


def test_page_chrome_is_not_selected_and_lets_clicks_through(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    page.mouse.click(640, 400)
    page.keyboard.press("Control+a")
    assert app.api("String(window.getSelection())") == ""
    legend = page.locator("#legend").bounding_box()
    # a card under the legend: a click on the legend reaches it
    lx, ly = legend["x"] + legend["width"] / 2, legend["y"] + legend["height"] / 2
    node_id = app.api("([x, y]) => window.bendscope.action('new-node', {x: x, y: y})", [0, 0])
    assert node_id
    app.api("window.bendscope.paint()")
    x, y = app.node_xy(node_id)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(lx, ly, steps=6)
    page.mouse.up()
    page.mouse.click(640, 300)  # deselect
    page.mouse.click(lx, ly)
    expect(page.locator("#inspector")).to_be_visible()


def test_narrow_window_keeps_the_inspector_off_the_toolbar(app_factory):
    app = app_factory("seed=1&still=1", context_args={"viewport": {"width": 800, "height": 600}})
    app.click_node("company")
    inspector = app.page.locator("#inspector")
    expect(inspector).to_be_visible()
    a, b = app.page.locator("#toolbar").bounding_box(), inspector.bounding_box()
    overlap_x = a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
    overlap_y = a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]
    assert not (overlap_x and overlap_y), (a, b)


def test_the_text_editor_sits_exactly_on_its_card(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    for _ in range(2):
        page.keyboard.press("+")  # at another zoom too
    node = next(n for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
                if n["id"] == "revenue")  # fmt: skip
    zoom = app.stats()["zoom"]
    x, y = app.node_xy("revenue")
    page.mouse.dblclick(x, y)
    box = page.locator("#text-editor")
    box.wait_for(state="visible")
    b = box.bounding_box()
    assert abs(b["x"] - (x - node["width"] / 2 * zoom)) <= 1.5 and abs(b["y"] - (y - node["height"] / 2 * zoom)) <= 1.5
    assert b["width"] == pytest.approx(max(node["width"], 180) * zoom, abs=1.5)
