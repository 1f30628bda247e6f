"""Editor commands: every edit is one undo step; undo/redo restore exactly."""

from __future__ import annotations

import pytest
from bend_helpers import editor_with

from bendscope.bend.actions.commands import REGISTRY, Target, run
from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import MAX_ZOOM, MIN_ZOOM, Document, Node, Plane


def snapshot(editor: Editor) -> str:
    return editor.export()


def roundtrip(editor: Editor, command) -> None:
    """Run ``command``; undo must restore the export, redo must re-create the after state."""
    before = snapshot(editor)
    command()
    after = snapshot(editor)
    assert after != before
    assert editor.undo()
    assert snapshot(editor) == before
    assert editor.redo()
    assert snapshot(editor) == after


def test_each_command_undoes_and_redoes():
    editor = Editor(demo_document())
    roundtrip(editor, lambda: editor.add_node(10, 20, "new"))
    roundtrip(editor, lambda: editor.set_text("company", "# Renamed"))
    roundtrip(editor, lambda: editor.move_node("company", 500, 500))
    assert editor.plane.nodes["company"].pinned  # a moved node is pinned where it was put
    roundtrip(editor, lambda: editor.set_pinned("company", False))
    roundtrip(editor, lambda: editor.set_type("hq-austin", "stargate"))
    roundtrip(editor, lambda: editor.add_edge("ceo-alice", "company"))
    roundtrip(editor, lambda: editor.set_edge("edge-0", kind="temporal", label="x", strength=5))
    roundtrip(editor, lambda: editor.reverse_edge("edge-1"))
    roundtrip(editor, lambda: editor.delete_edge("edge-2"))
    roundtrip(editor, lambda: editor.fork("revenue"))
    roundtrip(editor, lambda: editor.merge("revenue", "r-and-d"))
    roundtrip(editor, lambda: editor.delete_nodes(["market-share"]))


def test_undo_of_text_edit_does_not_move_the_node():
    editor = editor_with([("a", "b")])
    editor.set_text("a", "hello")
    node = editor.plane.nodes["a"]
    node.x, node.y = 999.0, 888.0  # the layout moved it since
    editor.undo()
    assert node.text == "a" and (node.x, node.y) == (999.0, 888.0)


def test_move_records_drag_start():
    editor = editor_with([("a", "b")])
    node = editor.plane.nodes["a"]
    start = (node.x, node.y)
    node.x, node.y = 300.0, 300.0  # dragged live
    editor.move_node("a", 300.0, 300.0, from_xy=start)
    editor.undo()
    assert (node.x, node.y) == start


def test_delete_removes_edges_and_stargate_planes_and_undo_restores():
    editor = Editor(demo_document())
    child = editor.enter_stargate("research-notes")
    inner = editor.add_node(0, 0, "inside")
    editor.go_to_plane("plane-root")
    before = snapshot(editor)
    editor.delete_nodes(["research-notes", "company"])
    assert child not in editor.doc.planes
    assert all("company" not in (e.a, e.b) for e in editor.plane.edges.values())
    editor.undo()
    assert snapshot(editor) == before
    assert inner in editor.doc.planes[child].nodes


def test_undo_inside_deleted_plane_returns_to_root():
    editor = Editor(demo_document())
    child = editor.enter_stargate("research-notes")
    editor.go_to_plane("plane-root")
    editor.delete_nodes(["research-notes"])
    editor.undo()
    editor.go_to_plane(child)
    editor.add_node(1, 1, "x")
    editor.go_to_plane("plane-root")
    editor.redo()  # nothing to redo: the add_node cleared it
    assert editor.history.can_undo and not editor.history.can_redo


def test_history_buttons_state():
    editor = editor_with([("a", "b")])
    assert not editor.history.can_undo and not editor.history.can_redo
    editor.add_node(0, 0)
    assert editor.history.can_undo and not editor.history.can_redo
    editor.undo()
    assert not editor.history.can_undo and editor.history.can_redo


def test_add_edge_refuses_self_loops_and_duplicates():
    editor = editor_with([("a", "b")])
    assert editor.add_edge("a", "a") is None
    assert editor.add_edge("a", "b") is None
    assert editor.add_edge("a", "b", kind="context") is not None


def test_merge_repoints_edges_and_drops_loops():
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a")])
    editor.merge("a", "b")
    pairs = sorted((e.a, e.b) for e in editor.plane.edges.values())
    assert pairs == [("a", "c"), ("c", "a")]
    assert "b" not in editor.plane.nodes
    assert editor.plane.nodes["a"].text == "a\n\nb"


def test_stargate_planes_and_depth():
    editor = Editor(demo_document())
    assert editor.stats()["depth"] == 0
    child = editor.enter_stargate("research-notes")
    assert editor.stats() == {"nodes": 0, "edges": 0, "depth": 1, "zoom": 1.0}
    assert editor.doc.planes[child].name == "Research notes"
    editor.plane.camera.zoom = 2.0
    editor.go_to_plane("plane-root")
    assert editor.plane.camera.zoom == 1.0
    assert editor.enter_stargate("research-notes") == child  # created on first visit only
    assert editor.plane.camera.zoom == 2.0
    assert [p.id for p in editor.doc.path()] == ["plane-root", child]
    with pytest.raises(ValueError):
        editor.go_to_plane("nope")
    editor.go_to_plane("plane-root")
    with pytest.raises(ValueError, match="only stargate"):
        editor.enter_stargate("company")
    with pytest.raises(KeyError):
        editor.enter_stargate("nope")


def test_camera_zoom_around_point_and_clamp():
    editor = editor_with([("a", "b")])
    wx, wy = editor.screen_to_world(100, 200)
    editor.zoom_at(1.7, 100, 200)
    assert editor.screen_to_world(100, 200) == pytest.approx((wx, wy))
    for _ in range(30):
        editor.zoom_at(2.0)
    assert editor.plane.camera.zoom == MAX_ZOOM
    for _ in range(30):
        editor.zoom_at(0.5)
    assert editor.plane.camera.zoom == MIN_ZOOM
    editor.pan_by(50, -20)
    assert editor.screen_to_world(0, 0)[0] == pytest.approx(editor.screen_to_world(50, -20)[0] - 50 / MIN_ZOOM)


def test_hit_testing():
    editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (400, 0)})
    sx, sy = editor.world_to_screen(0, 0)
    assert editor.node_at(sx, sy).id == "a"
    assert editor.node_at(sx, sy + 300) is None
    mx, my = editor.world_to_screen(200, 0)
    assert editor.edge_at(mx, my).id == "e0"
    assert editor.edge_at(mx, my + 40) is None


def test_actions_registry_shape():
    scopes = {"node", "edge", "background", "global"}
    keys: dict[tuple[str, str], str] = {}
    for act in REGISTRY.values():
        assert act.scope in scopes
        for key in act.keys:
            owner = keys.setdefault((act.scope, key), act.id)
            # the same key may serve a toggle pair (pin/unpin) whose enabled states exclude each other
            pairs = ({"pin", "unpin"}, {"pin-selection", "unpin-selection"})
            assert owner == act.id or {owner, act.id} in pairs, (key, owner, act.id)


def test_delete_action_never_runs_without_selection():
    editor = editor_with([("a", "b")])
    assert run(editor, "delete-selection") is None
    editor.select(["a"])
    run(editor, "delete-selection")
    assert "a" not in editor.plane.nodes
    assert run(editor, "undo") is True
    run(editor, "to-stargate", Target(node_id="a"))
    assert editor.plane.nodes["a"].type == "stargate"
    assert run(editor, "to-stargate", Target(node_id="a")) is None  # disabled now: nothing runs


def test_fit_shows_every_card_of_20000_nodes_and_of_the_widest_document():
    """Fit could not show 500 nodes (the zoom stopped at 0.32). Now every card of any
    document the editor accepts fits: 20,000 cards of a spread layout, or cards at ±COORD_LIMIT."""
    import random

    from bendscope.bend.model.elements import COORD_LIMIT, Document, Node, Plane

    rng = random.Random(1)
    for spread, count in ((40_000.0, 20_000), (COORD_LIMIT, 50)):
        plane = Plane("p", "P")
        for i in range(count):
            plane.add_node(Node(f"n{i}", f"n{i}", x=rng.uniform(-spread, spread), y=rng.uniform(-spread, spread)))
        plane.add_node(Node("corner", "corner", x=spread, y=-spread))
        editor = Editor(Document([plane], "p"))
        editor.fit_view()
        w, h = editor.viewport
        for node in editor.plane.nodes.values():
            x0, y0 = editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
            x1, y1 = editor.world_to_screen(node.x + node.width / 2, node.y + node.height / 2)
            assert x0 >= 0 and x1 <= w and y0 >= 0 and y1 <= h, node
        assert editor.plane.camera.zoom >= MIN_ZOOM


def test_an_empty_card_names_the_gesture_that_edits_it():
    """On a phone an empty card said "Double-click to edit"; set to touch, the empty cards
    (and only they) are laid out again with the finger's words, and back."""
    plane = Plane("plane-root")
    plane.add_node(Node("empty", "", x=0.0, y=0.0))
    plane.add_node(Node("full", "Lead times", x=300.0, y=0.0))
    editor = Editor(Document([plane], "plane-root"))
    words = lambda node_id: [line.text for line in editor.card(plane.nodes[node_id]).lines]  # noqa: E731
    assert words("empty") == ["Double-click to edit"]
    full = editor.card(plane.nodes["full"])
    editor.set_touch(True)
    assert words("empty") == ["Double-tap to edit"]
    assert editor.card(plane.nodes["full"]) is full  # (not laid out again)
    later = editor.add_node(0.0, 200.0)
    assert words(later) == ["Double-tap to edit"]
    editor.set_touch(False)
    assert words("empty") == words(later) == ["Double-click to edit"]
