"""Two-way edges on the real page: Population→Resources "+" and
Resources→Population "−" were one unreadable blob, the arcs ~6 px apart, so picking one
needed pixel precision. Now they are separated curves with their labels on their own sides,
and each is picked by a mouse click or a finger's tap on it, at the opening zoom."""

from __future__ import annotations

import json

from harness import AppPage
from test_devices import PHONE, Finger

GRAPH = {
    "nodes": ["Population", "Resources", "Births"],
    "edges": [
        {"source": "Population", "target": "Resources"},
        {"source": "Resources", "target": "Population"},
        {"source": "Births", "target": "Population"},
    ],
}
EXPORTED = "JSON.parse(window.bendscope.export()).planes[0].edges"


def two_way(app: AppPage) -> dict[str, dict]:
    """Load the graph, label the pair "+" and "−", and return each arc's screen points."""
    assert app.api("t => window.bendscope.load(t)", json.dumps(GRAPH)) is None
    app.api("window.bendscope.settle()")
    edges = app.api(f"{EXPORTED}.map(e => [e.id, e.a, e.b])")
    ids = {(a, b): i for i, a, b in edges}
    forward, back = ids[("Population", "Resources")], ids[("Resources", "Population")]
    for edge_id, text in ((forward, "+"), (back, "−")):
        app.api(f"window.bendscope.action('edit-label', {{edge_id: {edge_id!r}}}, {{text: {text!r}}})")
    return {edge_id: app.api(f"window.bendscope.edge_points({edge_id!r})") for edge_id in (forward, back)}


def selected_edge(app: AppPage) -> str | None:
    return json.loads(app.api("window.bendscope.interaction()"))["selected_edge"]


def test_a_click_on_either_arc_or_its_label_picks_that_arc(app_factory):
    app = app_factory("seed=1&still=1")
    points = two_way(app)
    pa, pb = points.values()
    ax, ay = pa["middle"]
    bx, by = pb["middle"]
    zoom = app.api("JSON.parse(window.bendscope.export()).planes[0].camera.zoom")
    assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 >= 30 * zoom  # 35 world px apart in the middle
    for edge_id, p in points.items():
        app.page.mouse.click(0, 0)  # (the canvas's empty corner: nothing selected)
        app.page.mouse.click(*p["middle"])
        assert selected_edge(app) == edge_id
        app.page.mouse.click(*p["label"])
        assert selected_edge(app) == edge_id
    # the labels' pills (16 px tall at zoom 1) do not overlap
    (lx0, ly0), (lx1, ly1) = pa["label"], pb["label"]
    assert abs(ly0 - ly1) >= 16 * zoom or abs(lx0 - lx1) >= 24 * zoom


def test_a_finger_picks_either_arc_at_the_phones_opening_zoom(app_factory):
    phone = app_factory("seed=1&still=1", context_args=PHONE)
    points = two_way(phone)
    finger = Finger(phone)
    for edge_id, p in points.items():
        x, y = p["middle"]
        finger.tap(x, y + 3)  # a finger lands a little off the line
        assert selected_edge(phone) == edge_id
