"""Editor integrity: every change is recorded, failed edits leave nothing behind, and
no edit produces a document the loader refuses. Each test names the bug it guards."""

from __future__ import annotations

import json
import math

import pytest
from bend_helpers import editor_with
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.layout.simulation import Simulation
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import parse_document
from bendscope.bend.model.elements import COORD_LIMIT, MAX_TEXT, Document, Node, Plane, UntrackedChange
from bendscope.bend.render.textlayout import MAX_LINES, approx_measure, layout_card


def reloads(editor: Editor) -> None:
    text = editor.export()
    assert Editor(parse_document(text)).export() == text


def test_undo_of_a_new_stargate_leaves_no_orphan_plane():
    """Add a node, convert it, enter it, go back, undo twice: the save must still load."""
    editor = Editor(demo_document())
    node = editor.add_node(0, 0, "gate")
    editor.set_type(node, "stargate")
    child = editor.enter_stargate(node)
    editor.go_to_plane("plane-root")
    assert editor.undo() and editor.undo()  # the plane, then the conversion
    reloads(editor)
    assert child not in editor.doc.planes
    assert editor.undo()  # the node
    reloads(editor)
    assert node not in editor.plane.nodes


def test_redo_recreates_a_stargate_with_its_plane():
    editor = Editor(demo_document())
    child = editor.enter_stargate("research-notes")
    inner = editor.add_node(5, 5, "inside")
    editor.go_to_plane("plane-root")
    editor.delete_nodes(["research-notes"])
    editor.undo()
    editor.redo()
    editor.undo()
    assert editor.plane.nodes["research-notes"].portal_plane_id == child
    assert inner in editor.doc.planes[child].nodes
    reloads(editor)


def test_stargate_rename_is_undone_with_the_text():
    editor = Editor(demo_document())
    child = editor.enter_stargate("research-notes")
    editor.go_to_plane("plane-root")
    editor.set_text("research-notes", "# Archive")
    assert editor.doc.planes[child].name == "Archive"
    editor.undo()
    assert editor.doc.planes[child].name == "Research notes"


def test_changes_outside_a_transaction_raise_and_change_nothing():
    editor = Editor(demo_document())
    before = editor.export()
    with pytest.raises(UntrackedChange):
        editor.plane.update_node("company", text="sneaky")
    with pytest.raises(UntrackedChange):
        editor.plane.remove_edge("edge-0")
    with pytest.raises(UntrackedChange):
        editor.doc.add_plane(Plane("p2", "x", "plane-root", "research-notes"))
    with pytest.raises(AttributeError):
        editor.plane.nodes["company"].text = "sneaky"  # type: ignore[misc]
    with pytest.raises(TypeError):
        editor.plane.nodes["x"] = Node("x")  # type: ignore[index]
    assert editor.export() == before
    # an unowned document (being built) is free to change
    doc = Document([Plane("p")], "p")
    doc.root.add_node(Node("a"))


def test_a_failing_edit_is_rolled_back_and_not_recorded():
    editor = Editor(demo_document())
    before = editor.export()
    undo_depth = len(editor.history.undo_stack)
    with pytest.raises(RuntimeError), editor.transaction("Half an edit"):
        editor.plane.remove_edge("edge-0")
        editor.plane.update_node("company", text="changed")
        raise RuntimeError("boom")
    assert editor.export() == before
    assert len(editor.history.undo_stack) == undo_depth


def test_import_is_one_undoable_step():
    editor = Editor(demo_document())
    editor.add_node(1, 2, "mine")
    before = editor.export()
    assert editor.load(json.dumps({"nodes": ["x", "y"], "edges": [{"source": "x", "target": "y"}]})) is None
    assert set(editor.plane.nodes) == {"x", "y"}
    assert editor.undo()
    assert editor.export() == before
    assert editor.redo() and set(editor.plane.nodes) == {"x", "y"}


def test_merging_past_the_text_limit_is_refused_unchanged():
    editor = editor_with([("a", "b")])
    editor.set_text("a", "x" * 60_000)
    editor.set_text("b", "y" * 60_000)
    before = editor.export()
    with pytest.raises(ValueError, match="limit"):
        editor.merge("a", "b")
    assert editor.export() == before
    with pytest.raises(ValueError, match="limit"):
        editor.set_text("a", "z" * (MAX_TEXT + 1))


def test_deleting_a_deeply_nested_stargate_chain():
    """~1,000 nested planes: deleted without recursion, undone whole, and savable."""
    editor = Editor(demo_document())
    top = editor.add_node(0, 0, "gate")
    editor.set_type(top, "stargate")
    current = top
    for depth in range(1000):
        editor.enter_stargate(current)
        current = editor.add_node(0, 0, f"level {depth}", "stargate")
    editor.go_to_plane("plane-root")
    assert len(editor.doc.planes) == 1001
    before = editor.export()
    editor.delete_nodes([top])
    assert len(editor.doc.planes) == 1
    reloads(editor)
    editor.undo()
    assert editor.export() == before


def test_long_unbroken_text_lays_out_in_bounded_work():
    """40,000 characters without a space: measured a bounded number of times, never whole."""
    calls: list[int] = []

    def measure(text: str, font: str) -> float:
        calls.append(len(text))
        return approx_measure(text, font)

    for text in ("x" * 40_000, "字" * 40_000, "line\n" * 20_000, "w " * 40_000):
        calls.clear()
        card = layout_card(text, measure)
        assert len(card.lines) == MAX_LINES and card.lines[-1].text.endswith("…")
        assert len(calls) < 400 and max(calls) < 300, (len(calls), max(calls))


@settings(max_examples=60, deadline=None)
@given(
    coords=st.lists(
        st.tuples(
            st.floats(-COORD_LIMIT, COORD_LIMIT, allow_nan=False),
            st.floats(-COORD_LIMIT, COORD_LIMIT, allow_nan=False),
        ),
        min_size=2,
        max_size=12,
    ),
    edges=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=20),
    steps=st.integers(1, 40),
)
def test_layout_never_produces_non_finite_or_out_of_range_positions(coords, edges, steps):
    plane = Plane("p")
    for i, (x, y) in enumerate(coords):
        plane.add_node(Node(f"n{i}", "", "normal", x, y))
    from bendscope.bend.model.elements import Edge

    for k, (a, b) in enumerate(edges):
        if a < len(coords) and b < len(coords) and a != b:
            plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}"))
    sim = Simulation(plane, seed=1)
    for _ in range(steps):
        sim.step()
    for node in plane.nodes.values():
        for value in (node.x, node.y, node.vx, node.vy):
            assert math.isfinite(value)
        assert abs(node.x) <= COORD_LIMIT and abs(node.y) <= COORD_LIMIT


def test_extreme_coordinates_are_refused_on_load_and_bounded_in_edits():
    data = json.loads(Editor(demo_document()).export())
    data["planes"][0]["nodes"][0]["x"] = 1e308
    editor = Editor(demo_document())
    before = editor.export()
    assert "must be a number between" in editor.load(json.dumps(data))
    assert editor.export() == before
    editor.move_node("company", 1e300, -1e300)
    editor.pan_by(-1e300, 1e300)
    reloads(editor)


def test_documents_stay_within_what_the_loader_accepts():
    """106 nodes of 100,000 characters made an 10.6 MB save the loader refused."""
    editor = Editor()
    with pytest.raises(ValueError, match="at most 10 MB"):
        for i in range(120):
            editor.add_node(i * 10.0, 0, "x" * 100_000)
    reloads(editor)
    assert len(editor.export(indent=None)) <= 10 * 1024 * 1024


def test_the_node_count_limit_holds_while_editing():
    nodes = [{"id": f"n{i}", "x": float(i), "y": 0.0} for i in range(20_000)]
    editor = Editor()
    assert editor.load(json.dumps({"nodes": nodes, "edges": []})) is None
    before = len(editor.plane.nodes)
    with pytest.raises(ValueError, match="at most 20,000 nodes"):
        editor.add_node(0, 0, "one too many")
    assert len(editor.plane.nodes) == before
    editor.delete_nodes(["n0"])
    editor.add_node(0, 0, "fits again")


def test_text_that_is_not_unicode_and_fractional_strengths_are_refused():
    editor = editor_with([("a", "b")])
    with pytest.raises(ValueError, match="not valid Unicode"):
        editor.add_node(0, 0, "bad \ud800")
    with pytest.raises(ValueError, match="not valid Unicode"):
        editor.set_text("a", "x\udc00")
    with pytest.raises(ValueError, match="not valid Unicode"):
        editor.add_edge("a", "b", kind="context", label="\udfff")
    with pytest.raises(ValueError, match="whole number"):
        editor.add_edge("a", "b", kind="user", strength=2.0)  # type: ignore[arg-type]
    reloads(editor)


def test_planes_must_be_reached_through_their_stargate():
    """Loosely linked planes were accepted, and deleting their node left dangling references."""
    no_portal = {
        "format": "bendscope",
        "version": 1,
        "rootPlaneId": "r",
        "planes": [
            {"id": "r", "parentPlaneId": None, "nodes": [{"id": "n", "x": 0, "y": 0}]},
            {"id": "c", "parentPlaneId": "r", "parentNodeId": "n", "nodes": []},
        ],
    }
    no_node = {
        "format": "bendscope",
        "version": 1,
        "rootPlaneId": "r",
        "planes": [
            {"id": "r", "nodes": [{"id": "s", "type": "stargate", "portalPlaneId": "c", "x": 0, "y": 0}]},
            {"id": "c", "parentPlaneId": "r", "parentNodeId": "s", "nodes": []},
            {"id": "g", "parentPlaneId": "c", "parentNodeId": None, "nodes": []},
        ],
    }
    editor = Editor()
    assert "portalPlaneId does not lead to this plane" in editor.load(json.dumps(no_portal))
    assert "must name the stargate" in editor.load(json.dumps(no_node))


def test_a_normal_node_with_a_plane_still_leads_there():
    doc = {
        "format": "bendscope",
        "version": 1,
        "rootPlaneId": "r",
        "planes": [
            {"id": "r", "nodes": [{"id": "s", "type": "normal", "portalPlaneId": "c", "x": 0, "y": 0}]},
            {"id": "c", "parentPlaneId": "r", "parentNodeId": "s", "nodes": [{"id": "inner", "x": 0, "y": 0}]},
        ],
    }
    editor = Editor()
    assert editor.load(json.dumps(doc)) is None
    assert editor.enter_stargate("s") == "c" and "inner" in editor.plane.nodes


def test_inline_markup_is_bounded_work_too():
    """Hostile markup (unclosed markers, thousands of spans, a 40,000-character bold word)
    lays out with a bounded number of bounded measurements (the markup itself is parsed in
    the first SHOWN_CHARS characters of a line, with bounded spans)."""
    calls: list[int] = []

    def measure(text: str, font: str) -> float:
        calls.append(len(text))
        return approx_measure(text, font)

    texts = ("**" + "x" * 40_000 + "**", "**a " * 10_000, "*w* " * 20_000, "`" * 40_000, "[a](b) " * 10_000,
             "_" * 40_000, "**" * 20_000)  # fmt: skip
    for text in texts:
        calls.clear()
        card = layout_card(text, measure)
        assert len(calls) < 2000 and max(calls, default=0) < 300, (text[:10], len(calls))
        assert len(card.lines) <= MAX_LINES  # (a line of backticks opens a code fence: nothing to show)
