"""Layout: deterministic, comes to rest, respects pinned and dragged nodes."""

from __future__ import annotations

import math

from bend_helpers import K22, editor_with

from bend.demo import demo_document
from bend.editor import Editor
from bend.layout import Simulation


def positions(editor: Editor) -> list[tuple[str, float, float]]:
    return [(n.id, n.x, n.y) for n in editor.plane.nodes.values()]


def test_same_graph_same_seed_same_layout():
    a, b = Editor(demo_document(), seed=5), Editor(demo_document(), seed=5)
    a.settle()
    b.settle()
    assert positions(a) == positions(b)
    assert a.export() == b.export()


def test_layout_comes_to_rest():
    editor = Editor(demo_document())
    steps = editor.settle()
    assert 50 < steps < 2000
    assert not editor.animating
    assert all(n.vx == 0 and n.vy == 0 for n in editor.plane.nodes.values())
    assert editor.tick() is False  # nothing moves any more


def test_settled_layout_separates_cards_and_keeps_edges_short():
    editor = Editor(demo_document())
    editor.settle()
    nodes = list(editor.plane.nodes.values())
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            overlap_x = (a.width + b.width) / 2 - abs(a.x - b.x)
            overlap_y = (a.height + b.height) / 2 - abs(a.y - b.y)
            assert min(overlap_x, overlap_y) < 0, f"{a.id} overlaps {b.id}"
    for edge in editor.plane.edges.values():
        a, b = editor.plane.nodes[edge.a], editor.plane.nodes[edge.b]
        assert math.hypot(a.x - b.x, a.y - b.y) < 700


def test_pinned_and_dragged_nodes_stay_fixed():
    editor = editor_with(K22)
    editor.set_pinned("a1", True)
    sim = editor.sim()
    sim.fixed.add("b1")
    fixed = {n: (editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in ("a1", "b1")}
    free_start = {n: (editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in ("a2", "b2")}
    sim.settle()
    assert {n: (editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in ("a1", "b1")} == fixed
    for n, start in free_start.items():  # the free nodes did move: the layout ran
        assert math.dist(start, (editor.plane.nodes[n].x, editor.plane.nodes[n].y)) > 1.0


def test_coincident_nodes_are_separated_deterministically():
    def run(seed):
        editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (0, 0)})
        Simulation(editor.plane, seed=seed).settle()
        return positions(editor)

    assert run(3) == run(3)
    (_, ax, ay), (_, bx, by) = run(3)
    assert math.hypot(ax - bx, ay - by) > 100


def test_reheat_after_edit():
    editor = Editor(demo_document())
    editor.settle()
    assert not editor.animating
    editor.add_node(0, 0, "new")
    assert editor.animating
