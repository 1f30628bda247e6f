"""Loops readable on the canvas, in the page: the Loops panel's Markers draw each listed loop's
mark (R1, B2 — its class and number in the panel) at the loop's centre as a circular arrow,
with the panel open or shut; choosing a loop on a large graph draws its own edges in its
class's colour among thousands of lines and brings it to a zoom where card text is text, with
no card of it under the Loops panel or the inspector."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from test_loops import CLD

#: the marks of CLD's loops in the panel's order, and their classes' colours (bend.render.theme, light)
MARKS = ["R1", "B1", "B2", "L1"]
COLOURS = {"R": (0x1A, 0x7F, 0x37), "B": (0xC6, 0x28, 0x28), "?": (0x5B, 0x64, 0x73)}


def _state(app) -> dict:
    return json.loads(app.api("window.bendscope.loops_state()"))


def _load(app, graph: dict) -> None:
    assert app.api("t => window.bendscope.load(t)", json.dumps(graph)) is None
    app.api("window.bendscope.paint()")


def _centre(app, nodes: list[str]) -> tuple[float, float]:
    boxes = [app.api(f"window.bendscope.world_box({n!r})") for n in nodes]
    return (sum(b[0] + b[2] / 2 for b in boxes) / len(boxes), sum(b[1] + b[3] / 2 for b in boxes) / len(boxes))


def _near(app, x: float, y: float, colour: tuple[int, int, int], reach: int = 3) -> bool:
    """Whether a pixel of the canvas within ``reach`` px of (x, y) has about ``colour``."""
    pixels = app.api(
        "([x, y, r]) => Array.from(document.getElementById('canvas').getContext('2d')"
        ".getImageData(Math.round(x) - r, Math.round(y) - r, 2 * r + 1, 2 * r + 1).data)",
        [x, y, reach],
    )
    return any(sum(abs(pixels[k + c] - colour[c]) for c in range(3)) < 60 for k in range(0, len(pixels), 4))


def test_markers_are_drawn_at_the_loops_centres_with_their_marks(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    _load(app, CLD)
    page.locator("#canvas").focus()
    page.keyboard.press("o")
    buttons = page.locator("#loops-panel button.loop")
    expect(buttons).to_have_count(4)
    assert [buttons.nth(k).locator(".loop-class").inner_text() for k in range(4)] == MARKS
    assert _state(app)["drawn_markers"] == []  # off at first
    toggle = page.locator("#loops-markers")
    toggle.focus()
    page.keyboard.press("Enter")  # (a button: keyboard reachable)
    expect(toggle).to_have_attribute("aria-pressed", "true")
    app.api("window.bendscope.paint()")
    state = _state(app)
    loops = state["groups"][0]["loops"]
    assert [loop["mark"] for loop in loops] == MARKS
    drawn = {m["label"]: m for m in state["drawn_markers"]}
    assert sorted(drawn) == sorted(MARKS)
    zoom = app.stats()["zoom"]
    for loop in loops:
        marker = drawn[loop["mark"]]
        x, y = _centre(app, loop["nodes"])
        assert abs(marker["x"] - x) < 1e-6 and abs(marker["y"] - y) < 1e-6, (marker, x, y)
        # the circular arrow in the class's colour on the canvas: left of the centre at its radius (13 px)
        sx, sy = marker["screen"]
        assert _near(app, sx - 13 * zoom, sy, COLOURS[loop["polarity"]]), loop["mark"]
    # shut the panel: the markers stay; Markers off: none
    page.locator("#loops-close").click()
    expect(page.locator("#loops-panel")).to_be_hidden()
    app.api("window.bendscope.paint()")
    assert sorted(m["label"] for m in _state(app)["drawn_markers"]) == sorted(MARKS)
    page.keyboard.press("o")
    toggle.click()
    app.api("window.bendscope.paint()")
    assert _state(app)["drawn_markers"] == [] and not _state(app)["markers"]


def test_a_list_that_moves_under_a_still_pointer_keeps_the_chosen_loop_shown(app_factory):
    """The list is rebuilt when a loop is chosen or when the fewest cuts arrive, and its rows can
    move (a summary line more or less): the loop shown stays the chosen one until the pointer
    itself moves, and the row that had the keyboard focus keeps it."""
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    _load(app, CLD)
    page.locator("#btn-loops").click()
    buttons = page.locator("#loops-panel button.loop")
    expect(buttons).to_have_count(4)
    expect(page.locator("#loops-summary")).to_contain_text("break every loop")  # (the list is whole)
    page.wait_for_function(
        "!JSON.parse(window.bendscope.loops_state()).pending && !JSON.parse(window.bendscope.loop_cuts()).pending"
    )
    # rows of one fixed height, text on one line: no font or wrapping moves them but the slide below
    page.add_style_tag(content="#loops-panel button.loop, #loops-summary, #loops-body h3 { height: 24px; "
                               "white-space: nowrap; overflow: hidden; box-sizing: border-box; }")  # fmt: skip
    page.wait_for_timeout(100)
    tops = "Array.from(document.querySelectorAll('#loops-panel button.loop')).map(b => b.getBoundingClientRect().top)"
    rows = page.evaluate(tops)
    box = page.evaluate("document.querySelector('#loops-panel button.loop').getBoundingClientRect().toJSON()")
    x, y = box["x"] + box["width"] / 2, box["y"] + 4
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.up()
    expect(buttons.first).to_have_attribute("aria-pressed", "true")
    chosen = _state(app)["chosen"]
    assert chosen == _state(app)["groups"][0]["loops"][0]["nodes"]
    # the rows slide up by one under the still pointer (as when the summary loses a line)
    step = rows[1] - rows[0]
    page.evaluate("s => { document.getElementById('loops-summary').style.marginTop = -s + 'px'; }", step)
    under = "([x, y]) => document.elementFromPoint(x, y).closest('button.loop').getAttribute('data-loop')"
    slid = page.evaluate(under, [x, y])
    assert slid != "0:0"  # (another row is under the pointer now)
    page.wait_for_timeout(300)  # (the browser updates what is hovered after a layout change)
    app.api("window.bendscope.paint()")
    state = _state(app)
    assert state["shown"] == chosen and state["hovered"] in (None, chosen), state
    # the pointer moving shows the loop of the row it is on
    page.mouse.move(x, y + 2)
    now = page.evaluate(under, [x, y + 2])
    app.api("window.bendscope.paint()")
    assert _state(app)["shown"] == _state(app)["groups"][0]["loops"][int(now.split(":")[1])]["nodes"]
    page.mouse.move(5, 5)  # (off the panel: the chosen loop again)
    app.api("window.bendscope.paint()")
    assert _state(app)["shown"] == chosen
    # by the keyboard: the row chosen with Enter keeps the focus in the rebuilt list
    buttons.nth(2).focus()
    page.keyboard.press("Enter")
    expect(buttons.nth(2)).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("document.activeElement.getAttribute('data-loop')") == "0:2"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('data-loop')") == "0:3"


def _large_graph(n: int = 2600) -> dict:
    """A grid of ``n`` cards, 60 across, with about 4,000 causal edges: a ring, chords and a few
    backward chords making short loops (i → … → i+4 → i)."""
    nodes = [{"id": f"n{i}", "text": f"card {i}", "x": (i % 60) * 200.0, "y": (i // 60) * 120.0} for i in range(n)]
    edges = [{"a": f"n{i}", "b": f"n{(i + 1) % n}", "props": {"kind": "causal", "polarity": "+"}} for i in range(n)]
    edges += [{"a": f"n{i}", "b": f"n{(i + 7) % n}", "props": {"kind": "causal"}} for i in range(0, n, 2)]
    edges += [
        {"a": f"n{(i + 4) % n}", "b": f"n{i}", "props": {"kind": "causal", "polarity": "-"}} for i in range(0, n, 30)
    ]
    return {"nodes": nodes, "edges": edges}


def _overlap(a: list[float], b: dict) -> bool:
    return a[0] < b["right"] and b["left"] < a[0] + a[2] and a[1] < b["bottom"] and b["top"] < a[1] + a[3]


def test_a_chosen_loop_on_a_large_graph_is_readable_with_its_own_edges_shown(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    graph = _large_graph()
    _load(app, graph)
    page.wait_for_function("!window.bendscope.topology_state().pending", timeout=120_000)
    app.api("window.bendscope.action('fit-view')")
    assert app.stats()["zoom"] < 0.45  # the whole graph: card names are bars
    app.api("window.bendscope.select('n1300')")  # the inspector shows too
    expect(page.locator("#inspector")).to_be_visible()
    page.locator("#btn-loops").click()
    page.wait_for_function(
        "(() => { const s = JSON.parse(window.bendscope.loops_state()); return s.groups.length && !s.pending; })()",
        timeout=120_000,
    )
    first = page.locator("#loops-panel button.loop").first
    first.click()
    expect(first).to_have_attribute("aria-pressed", "true")
    app.api("window.bendscope.paint()")
    state = _state(app)
    # the loop shown is the one chosen, the first listed (whatever row the list slid under the pointer)
    loop = state["groups"][0]["loops"][0]
    assert state["shown"] == state["chosen"] == loop["nodes"], state
    assert app.stats()["zoom"] >= 0.45  # card text drawn as text
    # its own edges drawn in its class's colour (not only its cards): every one of them, and no other
    assert sorted(state["shown_edges"]) == sorted(loop["edges"]) and len(loop["edges"]) == len(loop["nodes"])
    viewport = page.viewport_size
    panels = [page.locator(f"#{name}").evaluate("e => e.getBoundingClientRect().toJSON()")
              for name in ("loops-panel", "inspector")]  # fmt: skip
    for node_id in loop["nodes"]:
        box = app.api(f"window.bendscope.card_box({node_id!r})")
        assert box[0] >= 0 and box[0] + box[2] <= viewport["width"], (node_id, box)
        assert box[1] >= 0 and box[1] + box[3] <= viewport["height"], (node_id, box)
        assert not any(_overlap(box, panel) for panel in panels), (node_id, box, panels)
    # the loop's edges in its colour on the canvas: the middle of each line not under a card
    colour = COLOURS[loop["polarity"]]
    cards = [app.api(f"window.bendscope.card_box({n!r})") for n in loop["nodes"]]
    seen = 0
    for edge_id in loop["edges"]:
        x, y = app.api(f"window.bendscope.edge_points({edge_id!r})")["middle"]
        if any(b[0] <= x <= b[0] + b[2] and b[1] <= y <= b[1] + b[3] for b in cards):
            continue  # (a line drawn under a card of the loop)
        assert _near(app, x, y, colour), edge_id
        seen += 1
    assert seen >= len(loop["edges"]) - 1


def test_a_chosen_loop_too_long_to_read_whole_is_shown_whole(app_factory):
    """A chain of 400 cards with short back-edges: a loop of ten cards chosen in the Loops panel
    (keyboard O, a real click on its row) was centred at the readable zoom with seven of its
    cards off the screen and nothing saying where; now all of its cards are in view, clear of
    the panels. Zoomed out further, where text is bars, their names stay readable in tags."""
    import random

    rng = random.Random(7)
    size = 400
    edges = [{"source": f"n{i}", "target": f"n{i + 1}", "kind": "causal"} for i in range(size - 1)]
    for _ in range(25):
        a = rng.randrange(10, size)
        edges.append({"source": f"n{a}", "target": f"n{a - rng.randrange(2, 10)}",
                      "kind": rng.choice(["causal", "temporal"])})  # fmt: skip
    for _ in range(150):
        edges.append({"source": f"n{rng.randrange(size)}", "target": f"n{rng.randrange(size)}", "kind": "associative"})
    app = app_factory("seed=1&fresh=1")
    page = app.page
    nodes = [{"id": f"n{i}", "text": f"Card {i}"} for i in range(size)]
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": nodes, "edges": edges})) is None
    app.api("window.bendscope.settle()")
    app.api("window.bendscope.action('fit-view')")
    page.mouse.click(5, 400)
    page.keyboard.press("o")
    page.wait_for_function(
        "(() => { const s = JSON.parse(window.bendscope.loops_state()); return s.groups.length && !s.pending; })()",
        timeout=120_000,
    )
    rows = page.locator("#loops-body button.loop")
    longest = max(range(min(rows.count(), 12)), key=lambda k: (len(rows.nth(k).inner_text()), -k))
    row = rows.nth(longest)
    row.scroll_into_view_if_needed()
    box = row.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(row).to_have_attribute("aria-pressed", "true")
    app.api("window.bendscope.paint()")
    shown = _state(app)["shown"]
    assert len(shown) >= 8, shown
    viewport = page.viewport_size
    panels = [page.locator(f"#{name}").evaluate("e => e.getBoundingClientRect().toJSON()")
              for name in ("loops-panel", "inspector") if page.locator(f"#{name}").is_visible()]  # fmt: skip
    for node_id in shown:
        card = app.api(f"window.bendscope.card_box({node_id!r})")
        assert card[0] >= 0 and card[0] + card[2] <= viewport["width"], (node_id, card)
        assert card[1] >= 0 and card[1] + card[3] <= viewport["height"], (node_id, card)
        assert not any(_overlap(card, panel) for panel in panels), (node_id, card, panels)
    # zoomed out (keys), where card text is bars and then boxes: each card of the chosen loop
    # carries its name in a tag of one readable size on the screen, centred on the card
    names = sorted(f"Card {node_id[1:]}" for node_id in shown)
    for below in (0.45, 0.2):  # (the zoom under which text is bars, then boxes only)
        while app.stats()["zoom"] >= below:
            page.keyboard.press("-")
        app.api("window.bendscope.paint()")
        tags = _state(app)["drawn_tags"]
        assert sorted(t["text"] for t in tags) == names, (app.stats()["zoom"], tags)
        for k, tag in enumerate(tags):
            card = app.api(f"window.bendscope.card_box('n{tag['text'][5:]}')")
            (x, y), (w, h) = tag["screen"], tag["size"]
            assert x == pytest.approx(card[0] + card[2] / 2, abs=0.01), (tag, card)
            assert abs(y - (card[1] + card[3] / 2)) <= 4 * 22.01, (tag, card)  # (on it, or moved off another tag)
            assert h == pytest.approx(20.0) and w > 40, tag
            for other in tags[k + 1 :]:  # (none over another)
                (ox, oy), (ow, oh) = other["screen"], other["size"]
                assert abs(ox - x) >= (ow + w) / 2 or abs(oy - y) >= (oh + h) / 2, (tag, other)
    row.focus()
    page.keyboard.press("Escape")  # (the loop let go of: still shown while its row has the focus)
    page.keyboard.press("Escape")  # (the panel shut: no loop shown, no tag)
    page.wait_for_function("JSON.parse(window.bendscope.loops_state()).shown === null")
    app.api("window.bendscope.paint()")
    assert _state(app)["drawn_tags"] == []
