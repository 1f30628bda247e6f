"""Cards and edges appended to a plane while a local reheat moves a few cards (an agent's
change on the live page): the kept layer of what does not move stays good when everything
appended is among the moving cards — the layer drawn before the change and the moving part
drawn after it hold exactly the whole frame after it — and is drawn again when an appended
card does not move or a new edge reaches a card the layer shows (static/scene.js,
static/damage.js, in node).

Needs node (it comes with npm, which `make vendor` needs too)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bendscope.bend.editor.editor import Editor
from bendscope.bend.layout.simulation import neighbourhood
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import Edge, Node
from bendscope.bend.render.sceneplan import ScenePlanner, positions
from tests.bend.render.test_damage_layer import prepare, run
from tests.bend.render.test_scene_geometry import plain, run_js
from tests.bend.render.test_scene_sides import pieces


def view_of(editor: Editor) -> dict[str, Any]:
    cam = editor.plane.camera
    w, h = editor.viewport
    return {"cx": cam.x, "cy": cam.y, "zoom": cam.zoom, "width": w, "height": h, "pulse": 0.8}


def update(planner: ScenePlanner, editor: Editor) -> list[tuple[str, Any]]:
    return planner.update(
        editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(), measure=editor.measure,
        viewport=editor.viewport,
    )  # fmt: skip


def grown(seed: int, outside: bool = False) -> dict[str, Any]:
    """The demo plane at rest, a local region around one card moving, then a chain of new cards
    appended from a card of that region (``outside``: the first new edge from a card the region
    leaves out): the plan's calls before and after, positions before and after, and the
    moving cards' indices before and after (the new cards among them)."""
    editor = Editor(demo_document())
    editor.settle()
    rng = random.Random(seed)
    ids = list(editor.plane.nodes)
    centre = rng.choice(ids)
    region = neighbourhood(editor.plane, [centre], 1)
    moving = sorted(ids.index(n) for n in region)
    planner = ScenePlanner()
    before = update(planner, editor)
    xy_before = plain(positions(editor.plane))
    start = rng.choice(sorted(set(ids) - region)) if outside else centre
    added = [f"w{k}" for k in range(rng.randint(1, 3))]
    with editor.remote_change():
        for k, node_id in enumerate(added):
            editor.plane.add_node(Node(node_id, f"Observation {k} from the agent"))
            editor.plane.update_node(node_id, x=100.0 * k, y=-80.0 * k)
            editor.plane.add_edge(Edge(f"e-{node_id}", start if k == 0 else added[k - 1], node_id))
    for node_id in ids:  # (a remote change's reheat moves nothing by itself; the layout would)
        assert plain(positions(editor.plane))[2 * ids.index(node_id)] == xy_before[2 * ids.index(node_id)]
    after = update(planner, editor)
    grown_moving = moving + [len(ids) + k for k in range(len(added))]
    return {
        "editor": editor,
        "before": plain(before),
        "after": plain(after),
        "xy_before": xy_before,
        "xy_after": plain(positions(editor.plane)),
        "moving": moving,
        "moving_after": grown_moving,
        "names": [name for name, _ in after],
    }


@pytest.mark.parametrize("seed", range(4))
def test_a_layer_drawn_before_cards_were_appended_and_the_moving_part_after_make_the_whole_frame(seed):
    g = grown(seed)
    assert "appendNodes" in g["names"] and "appendEdges" in g["names"]
    view = view_of(g["editor"])
    n0, n1 = len(g["xy_before"]) // 2, len(g["xy_after"]) // 2
    only0 = [1 if i in g["moving"] else 0 for i in range(n0)]
    only1 = [1 if i in g["moving_after"] else 0 for i in range(n1)]
    (layer,) = run_js({"calls": g["before"], "frames": [{"xy": g["xy_before"], "view": {**view, "only": only0}}]})
    frames = [{"xy": g["xy_after"], "view": view}, {"xy": g["xy_after"], "view": {**view, "only": only1, "side": 1}}]
    whole, moves = run_js({"calls": g["before"] + g["after"], "frames": frames})
    a, b, c = pieces(whole), pieces(layer), pieces(moves)
    for kind in a:
        assert b[kind] + c[kind] == a[kind], kind
    assert c["cards"]  # (the new cards are drawn, on the moving side)


@pytest.mark.parametrize("seed", range(3))
def test_appended_cards_among_the_moving_keep_the_layer_else_it_is_drawn_again(seed):
    g = grown(seed)
    steps = [{"call": c} for c in g["before"]]
    calls_after = [{"call": c} for c in g["after"]]
    first = [*steps, prepare(g["xy_before"], g["moving"])]
    kept = run([*first, *calls_after, prepare(g["xy_after"], g["moving_after"])])
    assert [r for r, _ in kept] == ["nothing kept", "kept"]
    assert kept[1][1] == g["moving_after"]  # (the layer leaves the new cards out)
    # a new card the layout does not move: the layer would have to show it
    still = run([*first, *calls_after, prepare(g["xy_after"], g["moving"])])
    assert [r for r, _ in still] == ["nothing kept", "cards"]
    # the first new edge from a card the layer shows
    h = grown(seed, outside=True)
    steps = [{"call": c} for c in h["before"]]
    out = run([
        *steps, prepare(h["xy_before"], h["moving"]),
        *[{"call": c} for c in h["after"]], prepare(h["xy_after"], h["moving_after"]),
    ])  # fmt: skip
    assert [r for r, _ in out] == ["nothing kept", "plan"]


def test_the_same_markers_again_keep_the_layer_and_others_do_not():
    g = grown(0)
    steps = [{"call": c} for c in g["before"]]
    marker = {"members": [0, 1], "label": "R1", "color": "#c00"}
    out = run([
        *steps, {"call": ["setMarkers", [[marker]]]}, prepare(g["xy_before"], g["moving"]),
        {"call": ["setMarkers", [[dict(marker)]]]}, prepare(g["xy_before"], g["moving"]),
        {"call": ["setMarkers", [[{**marker, "members": [0, 2]}]]]}, prepare(g["xy_before"], g["moving"]),
        {"call": ["setMarkers", [[]]]}, prepare(g["xy_before"], g["moving"]),
    ])  # fmt: skip
    assert [r for r, _ in out] == ["nothing kept", "kept", "plan", "plan"]
