"""By keyboard alone, and for a screen reader: Tab reaches every
control, the arrow keys move between cards inside the canvas, every edge action has a
key, an outline of the graph follows the edits, and axe-core finds no serious violation
on the editor, its menus, the help sheet and the dialogs, in both themes and on a phone."""

from __future__ import annotations

import json

import pytest
from harness import ROOT, AppPage
from playwright.sync_api import expect

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def violations(app: AppPage) -> list[dict]:
    """axe-core's violations of the page as it is now (axe injected from node_modules: no request)."""
    if not app.api("typeof window.axe !== 'undefined'"):
        app.page.add_script_tag(path=str(AXE))
    return app.api(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, targets: v.nodes.map(n => n.target.join(' '))}))"
    )


def serious(app: AppPage) -> list[dict]:
    return [v for v in violations(app) if v["impact"] in SERIOUS]


def focused(app: AppPage) -> str:
    return app.api("document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ''")


def selected(app: AppPage) -> dict:
    return json.loads(app.api("window.bendscope.interaction()"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_the_main_views(app_factory, theme):
    app = app_factory("seed=1&still=1")
    page = app.page
    if theme == "dark":
        page.locator("#btn-theme").click()
    assert serious(app) == [], "the editor"
    app.click_node("company")
    page.keyboard.down("Shift")
    app.click_node("founded-2020")
    page.keyboard.up("Shift")
    expect(page.locator("#hud-selection")).to_be_visible()
    assert serious(app) == [], "the selection's pill"  # (a review found its text the colour of its fill)
    page.keyboard.press("Escape")
    app.right_click("revenue")
    page.locator("#menu-0 [data-item='connect']").click()
    expect(page.locator("#menu-1")).to_be_visible()
    page.locator("#menu-1 [data-item='connect-kind']").click()
    expect(page.locator("#menu-2")).to_be_visible()
    assert serious(app) == [], "a node menu, Connect to… and its kinds"
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.locator("#btn-png").click()
    expect(page.locator("#menu-0 [data-item='export-png']")).to_be_visible()
    assert serious(app) == [], "the Export PNG menu"
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    assert serious(app) == [], "the help sheet"
    page.keyboard.press("Escape")
    page.locator("#btn-new").click()
    expect(page.locator("#dialog")).to_be_visible()
    assert serious(app) == [], "a dialog"
    page.locator("#dialog-cancel").click()
    page.keyboard.press("Control+f")
    expect(page.locator("#find-bar")).to_be_visible()
    assert serious(app) == [], "the find bar"


def test_axe_on_a_phone(app_factory):
    app = app_factory("seed=1&still=1", context_args={"viewport": {"width": 390, "height": 844}, "has_touch": True})
    assert serious(app) == []


def test_tab_reaches_every_toolbar_button_and_then_the_canvas(app):
    page = app.page
    page.evaluate("document.activeElement && document.activeElement.blur()")
    wanted = page.evaluate(
        "[...document.querySelectorAll('#toolbar button')].filter(b => !b.disabled && !b.hidden).map(b => b.id)"
    )
    seen = []
    for _ in range(40):
        page.keyboard.press("Tab")
        seen.append(focused(app))
        if seen[-1] == "canvas":
            break
    assert seen[-1] == "canvas", seen
    assert [i for i in seen if i in wanted] == wanted  # every control, in the order it is drawn
    assert seen.index(wanted[-1]) < seen.index("canvas")
    page.keyboard.press("Shift+Tab")
    assert focused(app) != "canvas"  # Tab and Shift+Tab leave the canvas (they no longer step through cards)
    expect(page.locator("#canvas")).to_have_attribute("aria-describedby", "outline-summary")


def test_arrow_keys_move_between_cards_and_e_through_a_cards_edges(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    page.locator("#canvas").focus()
    page.keyboard.press("ArrowRight")
    first = selected(app)["selection"]
    assert len(first) == 1
    x0 = app.node_xy(first[0])[0]
    page.keyboard.press("ArrowRight")
    second = selected(app)["selection"][0]
    assert second != first[0] and app.node_xy(second)[0] > x0
    page.keyboard.press("ArrowLeft")
    assert selected(app)["selection"][0] != second
    # E: the card's edges one by one; Shift+F10: the edge's menu; its kind changed by keyboard
    doc = json.loads(app.api("window.bendscope.export()"))
    node = selected(app)["selection"][0]
    mine = [e["id"] for e in doc["planes"][0]["edges"] if node in (e["a"], e["b"])]
    page.keyboard.press("e")
    edge = selected(app)["selected_edge"]
    assert edge == mine[0]
    if len(mine) > 1:
        page.keyboard.press("e")
        assert selected(app)["selected_edge"] == mine[1]
        page.keyboard.press("Shift+E")
        assert selected(app)["selected_edge"] == mine[0]
    page.keyboard.press("Shift+F10")
    expect(page.locator("#menu-0 [data-item='kind']")).to_be_visible()
    page.locator("#menu-0 [data-item='kind']").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#menu-1")).to_be_visible()
    page.locator("#menu-1 [data-item='kind-temporal']").focus()
    page.keyboard.press("Enter")
    kinds = {
        e["id"]: e["props"]["kind"] for e in json.loads(app.api("window.bendscope.export()"))["planes"][0]["edges"]
    }
    assert kinds[edge] == "temporal"
    page.locator("#canvas").focus()
    edges = app.stats()["edges"]
    page.keyboard.press("Delete")
    assert app.stats()["edges"] == edges - 1


def world(app: AppPage, node_id: str) -> dict:
    """A card as the document has it (world position, pin)."""
    nodes = json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
    return next(n for n in nodes if n["id"] == node_id)


@pytest.mark.parametrize("params", ["seed=1&still=1", "seed=1"])
def test_shift_and_the_arrow_keys_move_the_selected_card(app_factory, params):
    """No key moved a card: a keyboard user could not place one. Shift+arrow moves the selected
    cards 24 screen px, pins them there (the layout, running or not, leaves them), one undo
    step per press."""
    app = app_factory(params)
    page = app.page
    app.api("window.bendscope.settle()")
    page.locator("#canvas").focus()
    page.keyboard.press("ArrowRight")
    (node,) = selected(app)["selection"]
    before = world(app, node)
    step = 24 / app.stats()["zoom"]
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.wait_for_timeout(300)  # (frames pass: a running layout would have moved it back)
    after = world(app, node)
    assert after["pinned"] is True and selected(app)["selection"] == [node]
    assert abs(after["x"] - (before["x"] + 2 * step)) < 0.01, (before, after)
    assert abs(after["y"] - (before["y"] + step)) < 0.01, (before, after)
    page.keyboard.press("Control+z")
    undone = world(app, node)
    assert abs(undone["x"] - after["x"]) < 0.01 and abs(undone["y"] - before["y"]) < 0.01, (before, undone)


def test_the_outline_reads_the_graph_and_follows_edits(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    cards = page.locator("#outline-cards li")
    expect(cards).to_have_count(app.stats()["nodes"])
    expect(page.locator("#outline-summary")).to_contain_text("10 cards, 10 edges. κ 1: 1 feedback loop.")
    expect(page.locator("#outline-loops li")).to_have_count(1)
    expect(page.locator("#outline-cards")).to_contain_text("Revenue. In loop region 1.")
    app.click_node("revenue")
    page.keyboard.press("Delete")
    expect(cards).to_have_count(9, timeout=5_000)
    expect(page.locator("#outline-summary")).to_contain_text("9 cards")
    expect(page.locator("#outline-loops")).to_contain_text("No feedback loop.")


def test_the_hud_says_when_it_shows_the_selection_and_one_click_shows_the_plane(app_factory):
    app = app_factory("seed=1&still=1")
    page = app.page
    app.click_node("company")
    page.keyboard.down("Shift")
    app.click_node("founded-2020")
    page.keyboard.up("Shift")
    pill = page.locator("#hud-selection")
    expect(pill).to_be_visible()
    expect(pill).to_contain_text("showing the selection: 2 nodes")
    expect(page.locator("#hud-kappa")).to_have_text("κ: 0")
    pill.click()
    expect(pill).to_be_hidden()
    expect(page.locator("#hud-kappa")).to_have_text("κ: 1")
    assert selected(app)["selection"] == []


def test_new_node_here_from_the_keyboard_again_and_again_keeps_each_card_in_sight(app_factory):
    """Shift+F10 → New node here, asked five times, stacked the cards down the screen, under
    the HUD and then below the window, while the view stayed where it was: each card now lies
    in sight, clear of the HUD, and its text editor on it."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.mouse.click(1000, 560)
    width = page.viewport_size["width"]
    hud_top = min(b["y"] for b in (page.locator(s).bounding_box() for s in ("#hud-mode", "#hud-kappa")) if b)
    seen = {n["id"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]}
    boxes = []
    for k in range(5):
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+F10")
        page.locator("#menu-0").wait_for(state="visible")
        page.keyboard.press("Enter")
        editor = page.locator("#text-editor")
        editor.wait_for(state="visible")
        page.keyboard.type(f"K{k}")
        box = editor.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= hud_top, (k, box, hud_top)
        page.keyboard.press("Control+Enter")
        nodes = json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
        (made,) = [n for n in nodes if n["id"] not in seen]
        seen.add(made["id"])
        assert made["text"] == f"K{k}"
        x, y, w, h = app.api(f"window.bendscope.card_box({made['id']!r})")
        assert x >= 0 and x + w <= width and y >= 0 and y + h <= hud_top, (k, [x, y, w, h], hud_top)
        boxes.append((x, y, w, h))
    for i, (x, y, w, h) in enumerate(boxes):  # (and none covers another)
        for bx, by, bw, bh in boxes[i + 1 :]:
            assert x + w <= bx or bx + bw <= x or y + h <= by or by + bh <= y
