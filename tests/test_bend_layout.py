"""Layout: deterministic, comes to rest, respects pinned and dragged nodes."""

from __future__ import annotations

import math

import pytest
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


def test_inline_markup_becomes_styled_runs_never_literal_markers():
    """Issue 9, bug 7: `**bold**` showed literally on the card."""
    from bend.textlayout import approx_measure, layout_card, run_font

    card = layout_card("Price **drives** *demand* via `f(x)` see [the doc](https://example.org/x)", approx_measure)
    shown = "".join(r.text for ln in card.lines for r in ln.runs)
    assert "**" not in shown and "`" not in shown and "](" not in shown and "https" not in shown
    kinds = {r.text.strip(): r.kind for ln in card.lines for r in ln.runs if r.text.strip()}
    assert kinds["drives"] == "b" and kinds["demand"] == "i" and kinds["f(x)"] == "code"
    assert kinds.get("the") == "link" and kinds.get("doc") == "link"
    for ln in card.lines:  # runs sit side by side, each measured in its own font
        for a, b in zip(ln.runs, ln.runs[1:], strict=False):
            assert b.dx == pytest.approx(a.dx + approx_measure(a.text, run_font(ln.style, a.kind)), abs=0.02)
    plain = layout_card("no markup, 2 * 3 = 6", approx_measure)
    assert plain.lines[0].runs == () and plain.lines[0].text == "no markup, 2 * 3 = 6"
