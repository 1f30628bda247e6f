"""Visual regression: the same document and seed give the same pixels."""

from __future__ import annotations

import json

from demo_docs import BUSINESS, EDGE_KINDS, K22, THREE_LOOPS, bare
from harness import AppPage


def show(app: AppPage, doc: dict | None = None) -> None:
    """Load ``doc`` (if any), settle, fit it in view, clear selection and overlays."""
    page = app.page
    page.keyboard.press("Escape")
    page.evaluate("document.getElementById('toast').hidden = true")
    if doc is not None:
        assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.settle()")
    app.api("window.bendscope.action('fit-view')")
    app.api("window.bendscope.action('clear-selection')")
    page.mouse.move(1, 1)


FRESH = "seed=1&still=1&fresh=1"


def test_demo_graph(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    show(app)
    assert app.pill("mode") == "mode: DELIBERATION"
    assert_snapshot(app, "demo")


def test_empty_graph(visual_app, assert_snapshot):
    show(visual_app, {"nodes": [], "edges": []})
    assert visual_app.pill("nodes") == "nodes: 0"
    assert_snapshot(visual_app, "empty")


def test_business_example(visual_app, assert_snapshot):
    show(visual_app, bare(BUSINESS))
    assert visual_app.pill("kappa") == "κ: 1"
    assert_snapshot(visual_app, "business")


def test_k22_both_directions(visual_app, assert_snapshot):
    show(visual_app, bare(K22))
    assert visual_app.pill("kappa") == "κ: 2"
    assert_snapshot(visual_app, "k22")


def test_three_halo_levels(visual_app, assert_snapshot):
    show(visual_app, bare(THREE_LOOPS))
    assert visual_app.pill("sccs") == "SCCs: 3" and visual_app.pill("kappa") == "κ: 3"
    assert_snapshot(visual_app, "three-loops")


def test_every_edge_kind(visual_app, assert_snapshot):
    show(visual_app, EDGE_KINDS)
    assert_snapshot(visual_app, "edge-kinds")


#: the three loops, the quartet q joined both ways to a second one: κ = 1, but past
#: ?exact_limit=3 no cut search runs and only its degrees bound it (κ ≤ 3); the smaller loops'
#: degrees settle their κ exactly
JOINED_QUARTETS = [*THREE_LOOPS, *((f"r{i}", f"r{j}") for i in range(4) for j in range(4) if i != j), ("q3", "r0"),
                   ("r3", "q0")]  # fmt: skip


def test_approximate_scc(app_factory, assert_snapshot):
    app = app_factory(FRESH + "&exact_limit=3")
    show(app, bare(JOINED_QUARTETS))
    topology = json.loads(app.api("window.bendscope.topology()"))
    assert [s["approximate"] for s in topology["sccs"]] == [False, False, True]
    assert topology["sccs"][2]["kappa_range"] == [1, 3]
    assert app.pill("kappa") == "κ: 2–3"  # the largest κ is 2 or 3: an exact 2, and a region in [1, 3]
    assert_snapshot(app, "approximate")


def test_demo_overlays(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    show(app)
    app.click_node("company")
    assert_snapshot(app, "selected-node")
    app.page.keyboard.press("Escape")
    app.right_click("founded-2020")
    app.page.locator("#menu-0 [data-item='connect']").hover()
    app.page.locator("#menu-1").wait_for(state="visible")
    assert_snapshot(app, "connect-submenu")
    app.page.keyboard.press("Escape")
    app.page.keyboard.press("Escape")
    app.page.mouse.click(5, 300)
    app.right_click("revenue")
    app.page.locator("#menu-0 [data-item='unbend']").click()
    app.page.locator("#dialog").wait_for(state="visible")
    assert_snapshot(app, "unbend-confirmation")
    app.page.locator("#dialog-cancel").click()


def test_stargate_and_child_plane(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    show(app)
    app.dblclick_node("research-notes")
    assert app.pill("depth") == "depth: 1"
    first = None
    for text, (px, py) in (("# Sources\n- paper A\n- paper B", (-160, -60)), ("Open questions", (200, 80))):
        node_id = app.api("([x, y]) => window.bendscope.action('new-node', {x: x, y: y})", [px, py])
        app.api("([n, t]) => window.bendscope.action('edit-text', {node_id: n}, {text: t})", [node_id, text])
        if first:
            app.api("([a, b]) => window.bendscope.action('connect', {node_id: a}, {to: b})", [first, node_id])
        first = node_id
    show(app)
    assert_snapshot(app, "stargate-child-plane")
    app.page.locator("#breadcrumbs button").first.click()
    show(app)
    assert_snapshot(app, "stargate-parent-plane")


def test_multi_selection_with_its_kappa(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    show(app)
    app.click_node("revenue")
    app.page.keyboard.down("Shift")
    for node in ("r-and-d", "product-quality", "market-share", "company"):
        app.click_node(node)
    app.page.keyboard.up("Shift")
    assert app.pill("selection") == "showing the selection: 5 nodes · ✕ whole plane"
    assert app.pill("kappa") == "κ: 1"  # the loop revenue → R&D → quality → share → revenue
    app.page.mouse.move(1, 1)
    assert_snapshot(app, "multi-selection")


def test_drag_to_connect_preview(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    show(app)
    page = app.page
    x, y = app.node_xy("founded-2020")
    page.mouse.move(x, y)
    width = next(n["width"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]
                 if n["id"] == "founded-2020")  # fmt: skip
    zoom = app.stats()["zoom"]
    page.mouse.move(x + width / 2 * zoom, y)
    page.mouse.down()
    tx, ty = app.node_xy("company")
    page.mouse.move(tx, ty, steps=6)
    link = json.loads(app.api("window.bendscope.interaction()"))["link"]
    assert link["target"] == "company" and "creates feedback loop" in link["label"]
    assert_snapshot(app, "drag-to-connect")
    page.mouse.up()


def test_shortcut_sheet(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    show(app)
    app.page.keyboard.press("?")
    app.page.locator("#help").wait_for(state="visible")
    assert_snapshot(app, "shortcut-sheet")


def test_markdown_in_cards(app_factory, assert_snapshot):
    app = app_factory(FRESH)
    text = (
        "# Pricing\nA **bold** claim, an *aside*, `p = c + m`\n- see [the memo](https://example.org/m)\n<b>no html</b>"
    )
    nodes = [{"id": "m", "text": text, "x": 0, "y": 0}, {"id": "n", "text": "**Demand** _falls_", "x": 300, "y": 0}]
    doc = {"nodes": nodes, "edges": [{"source": "m", "target": "n", "kind": "causal"}]}
    show(app, doc)
    app.api("window.bendscope.action('zoom-reset')")
    assert app.page.locator("b").count() == 0
    assert_snapshot(app, "markdown-cards")


def test_dark_theme(app_factory, assert_snapshot):
    app = app_factory(FRESH, context_args={"color_scheme": "dark"})  # follows prefers-color-scheme
    show(app)
    assert app.api("document.documentElement.dataset.theme") == "dark"
    assert_snapshot(app, "dark-demo")
    show(app, bare(THREE_LOOPS))
    assert_snapshot(app, "dark-three-loops")


def test_loops_panel_with_polarity_marks(app_factory, assert_snapshot):
    """+ and − beside the arrowheads, the Loops panel with R/B/? classes, one loop
    chosen (the other cards faded); then the same in the dark theme."""
    from test_loops import CLD

    app = app_factory(FRESH)
    show(app, CLD)
    app.page.locator("#btn-loops").click()
    app.page.locator("#loops-panel button.loop").nth(2).click()
    app.page.mouse.move(1, 1)
    assert app.page.locator("#loops-panel button.loop[aria-pressed='true']").count() == 1
    assert_snapshot(app, "loops-panel")
    app.page.locator("#btn-theme").click()
    app.page.mouse.move(1, 1)
    assert_snapshot(app, "dark-loops-panel")


def test_loop_markers(app_factory, assert_snapshot):
    """Each listed loop marked at its centre as causal loop diagrams mark loops: a circular arrow
    turning the loop's way round its mark (R1, B1, B2, ?1), the panel shut."""
    from test_loops import CLD

    app = app_factory(FRESH)
    show(app, CLD)
    app.page.locator("#btn-loops").click()
    app.page.locator("#loops-markers").click()
    app.page.locator("#loops-close").click()
    app.page.mouse.move(1, 1)
    assert len(json.loads(app.api("window.bendscope.loops_state()"))["drawn_markers"]) == 4
    assert_snapshot(app, "loop-markers")
