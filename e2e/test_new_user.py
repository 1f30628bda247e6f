"""What a person new to the editor met in a first session, with real input (mouse, keyboard,
touch): the names of the files it downloads, the connection handle after a drag-to-connect, the
view kept over a reload, the phone's first view, the HUD's explanations, the Loops panel's
words and place, the inspector's lines."""

from __future__ import annotations

import json
import time

from harness import PHONE, Finger, card_box
from test_selection_and_connect import SQUARE, interaction, load

CSV = b"source,target,kind\nrain,river,causal\nriver,sea,causal\nsea,rain,causal\n"


def _download(app, button: str, item: str) -> str:
    app.page.locator(button).click()
    with app.page.expect_download() as info:
        app.page.locator(f"#menu-0 [data-item='{item}']").click()
    return info.value.suggested_filename


def test_exports_are_named_after_the_graph_and_a_drag_to_connect_leaves_no_stale_handle(app_factory):
    """Every export was called bendscope.* whatever the graph; an imported file's name now names
    them (made safe), a graph without a name keeps bendscope. And after a drag-to-connect the
    source card's connection dot stayed drawn until the mouse moved again."""
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    assert _download(app, "#btn-export", "export-json") == "bendscope.json"
    page.set_input_files("#file-input", files=[{"name": "Water cycle.csv", "mimeType": "text/csv", "buffer": CSV}])
    page.wait_for_function("window.bendscope.stats().nodes === 3")
    assert _download(app, "#btn-export", "export-json") == "Water cycle.json"
    assert _download(app, "#btn-export", "export-mermaid") == "Water cycle.mmd"
    assert _download(app, "#btn-png", "export-svg") == "Water cycle.svg"
    with page.expect_download() as info:
        page.locator("#btn-topology").click()
    assert info.value.suggested_filename == "Water cycle-topology.json"

    load(app, SQUARE)
    dx, dy = app.node_xy("d")
    page.mouse.move(dx, dy)
    assert interaction(app)["handle"] == "d"
    _x, _y, width, _h = card_box(app, "d")
    page.mouse.move(dx + width / 2, dy)
    page.mouse.down()
    ax, ay = app.node_xy("a")
    page.mouse.move(ax, ay, steps=8)
    assert interaction(app)["link"]["target"] == "a"
    page.mouse.up()
    assert app.stats()["edges"] == 5
    state = interaction(app)
    assert state["state"] == "idle" and state["handle"] == "a", state  # (the card under the mouse)


def _camera(app) -> dict:
    doc = json.loads(app.api("window.bendscope.export()"))
    return next(p for p in doc["planes"] if p["id"] == doc["activePlaneId"])["camera"]


def _box(page, selector: str) -> list[float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return [box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]]


def _cards(app) -> dict[str, list[float]]:
    nodes = json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
    return {n["id"]: [v for v in card_box(app, n["id"])] for n in nodes}


def _on_one_line(page, selector: str, words: str) -> int:
    """How many lines the words take in the element (a Range over them)."""
    return page.evaluate(
        """([selector, words]) => {
            const root = document.querySelector(selector);
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const at = node.data.replace(/\\u00a0/g, ' ').indexOf(words);
                if (at < 0) continue;
                const range = document.createRange();
                range.setStart(node, at);
                range.setEnd(node, at + words.length);
                return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
            }
            return -1;
        }""",
        [selector, words],
    )


def test_the_view_a_person_left_comes_back_after_a_reload(app_factory):
    """The document was saved on reload, the camera only with an edit: an edit, then a pan and a
    zoom (real mouse and wheel), then a reload showed the view of the edit."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.mouse.dblclick(640, 700)  # a new card: the graph is this session's now
    page.keyboard.type("Kept")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("!JSON.parse(window.bendscope.save_status()).dirty", timeout=20_000)
    page.mouse.move(900, 600)
    page.mouse.down()
    page.mouse.move(760, 520, steps=6)  # a pan on empty canvas
    page.mouse.up()
    page.mouse.wheel(0, 240)  # zoom out
    page.wait_for_function("window.bendscope.stats().zoom < 1", timeout=5_000)
    moved = _camera(app)
    assert moved["zoom"] < 1
    page.wait_for_function("!JSON.parse(window.bendscope.save_status()).dirty", timeout=20_000)
    app.reload()
    assert _camera(app) == moved
    assert app.stats()["nodes"] == 11


def test_a_new_edge_s_layout_keeps_what_was_in_view_off_the_toolbar(app_factory):
    """Connecting "Founded 2020" to the loop set the layout moving and slid a card under the
    toolbar, out of reach: the view now follows the cards that were in view."""
    app = app_factory("seed=1")
    page = app.page
    page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    toolbar, hud = _box(page, "#toolbar"), _box(page, "#hud")
    before = _cards(app)
    shown = [
        n for n, (x, y, w, h) in before.items() if y >= toolbar[3] and y + h <= hud[1] and x >= 0 and x + w <= 1280
    ]
    x, y, w, h = before["founded-2020"]
    tx, ty = app.node_xy("customer-retention")
    page.mouse.move(x + w / 2, y + h / 2)
    page.mouse.move(x + w, y + h / 2)
    page.mouse.down()
    page.mouse.move(tx, ty, steps=8)
    page.mouse.up()
    assert app.stats()["edges"] == 11
    time.sleep(0.3)
    page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    after = _cards(app)
    under = [n for n in shown if after[n][1] < toolbar[3] or after[n][1] + after[n][3] > hud[1]]
    assert under == [], (under, {n: (before[n], after[n]) for n in under})


def test_on_a_desktop_the_loops_panel_words_the_hud_and_the_inspector(app_factory):
    """The Loops panel said "2 ?" and marked its loops "?1", "?2", and opened over a card when
    nothing was selected; the HUD's explanations showed only on a mouse's hover; the inspector
    broke "loop regions: 0" across two lines."""
    app = app_factory("seed=1&still=1")
    page = app.page
    page.locator("#btn-loops").click()
    page.locator("#loops-body button.loop").first.wait_for(state="visible")
    summary = page.locator("#loops-summary").inner_text()
    assert "?" not in summary and "2 without polarity (L: an edge on it has no + or −)" in summary, summary
    marks = page.locator("#loops-body .loop-class")
    assert [marks.nth(k).inner_text() for k in range(marks.count())] == ["L1", "L2"]
    time.sleep(0.3)  # (a frame with the panel drawn)
    panel = _box(page, "#loops-panel")
    covered = [n for n, (x, y, w, h) in _cards(app).items() if _overlaps([x, y, x + w, y + h], panel)]
    assert covered == [], covered
    page.keyboard.press("Escape")
    # the HUD's κ pill explains itself to the keyboard
    tip = page.locator("#hud-kappa-tip")
    assert tip.is_hidden()
    page.locator("#hud-zoom").evaluate("e => e.blur()")
    page.locator("#hud-kappa").focus()  # (as Tab reaches it)
    tip.wait_for(state="visible")
    assert "fewest edges whose removal splits" in tip.inner_text()
    assert page.locator("#hud-kappa").get_attribute("aria-describedby") == "hud-kappa-tip"
    assert _inside(_box(page, "#hud-kappa-tip"), [0, 0, 1280, 800])
    page.keyboard.press("Escape")
    tip.wait_for(state="hidden")
    # two cards of no loop, Shift+clicked: the inspector keeps "loop regions: 0" on one line
    page.mouse.click(*app.node_xy("company"))
    page.keyboard.down("Shift")
    page.mouse.click(*app.node_xy("hq-austin"))
    page.keyboard.up("Shift")
    inspector = page.locator("#inspector")
    inspector.wait_for(state="visible")
    page.wait_for_function("document.getElementById('inspector').textContent.includes('2 nodes selected')")
    assert _on_one_line(page, "#inspector", "loop regions: 0") == 1, inspector.inner_text()


def _overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _inside(a: list[float], b: list[float]) -> bool:
    return a[0] >= b[0] - 0.5 and a[1] >= b[1] - 0.5 and a[2] <= b[2] + 0.5 and a[3] <= b[3] + 0.5


def test_on_a_phone_the_first_view_shows_the_whole_demo_and_a_tap_explains_a_pill(app_factory):
    """On a phone the demo opened at zoom 0.6 around its middle, cut at both sides; it opens whole
    now, clear of the toolbar and the two-row HUD, its card text drawn as text. A tap on a HUD
    pill shows what it means (there is no hover); the inspector keeps its figures with their words."""
    app = app_factory("seed=1", context_args=PHONE)
    page = app.page
    page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    time.sleep(0.3)
    toolbar, dock = _box(page, "#toolbar"), _box(page, "#hud")
    zoom = app.stats()["zoom"]
    assert zoom >= 0.45, zoom  # (GREEK_ZOOM: below it card text is drawn as bars)
    for node, (x, y, w, h) in _cards(app).items():
        assert x >= 0 and x + w <= 390 and y >= toolbar[3] and y + h <= dock[1], (node, [x, y, w, h], zoom)
    Finger(app).tap(*_centre(_box(page, "#hud-sccs")))
    tip = page.locator("#hud-sccs-tip")
    tip.wait_for(state="visible")
    assert "strongly connected" in tip.inner_text()
    assert _inside(_box(page, "#hud-sccs-tip"), [0, 0, 390, 844])
    x, y, w, h = card_box(app, "company")
    Finger(app).tap(x + w / 2, y + h / 2)
    tip.wait_for(state="hidden")
    app.api("window.bendscope.select(['company', 'hq-austin'])")
    page.locator("#inspector").wait_for(state="visible")
    page.wait_for_function("document.getElementById('inspector').textContent.includes('2 nodes selected')")
    assert _on_one_line(page, "#inspector", "loop regions: 0") == 1, page.locator("#inspector").inner_text()


def _centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
