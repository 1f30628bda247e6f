"""The fewest edges that break every loop (bend.kappa_view.loop_cuts) in the editor: per loop region of
the plane or the selection, against a brute-force oracle on small graphs, the same however
the search is sliced, a range of bounds past the page's budget, every parallel copy of an
arc, said in the inspector and the Loops panel and drawn on request (K); and κ past the
engine's work budget written as a range of bounds on every surface, never a region's size."""

from __future__ import annotations

import itertools
import random

from bend_helpers import editor_with
from kappa_helpers import quartets
from oracle import brute_force_feedback_arc_set, is_acyclic

from bendscope.bend.actions import commands
from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.kappa_view.inspector import inspector_rows
from bendscope.bend.kappa_view.loop_cuts import CutFinder
from bendscope.bend.kappa_view.loops_panel import panel_view
from bendscope.bend.kappa_view.outline import outline_of
from bendscope.bend.menus import catalog
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.render.scene import build_scene

POPULATION = [("births", "population"), ("population", "births"), ("population", "deaths"),
              ("deaths", "population"), ("food", "births")]  # fmt: skip


def _rows(editor: Editor) -> list[str]:
    return [
        text
        for text, _ in inspector_rows(editor, editor.topology(), editor.loops(wait=True), editor.loop_cuts(wait=True))[
            1
        ]
    ]


def test_the_population_diagram_takes_two_edges_where_kappa_is_one():
    editor = editor_with(POPULATION)
    (scc,) = editor.topology().result["sccs"]
    assert scc["kappa"] == 1
    report = editor.loop_cuts(wait=True)
    assert (report.lower, report.size, report.exact) == (2, 2, True)
    plane = editor.plane
    left = {(e.a, e.b) for e in plane.edges.values() if e.id not in report.edges}
    assert is_acyclic(list(plane.nodes), left)
    editor.select(["population"])
    rows = _rows(editor)
    assert "2 edges break every loop here (the fewest)" in rows and "Show them (K)" in rows
    view = panel_view(editor, editor.loops(wait=True), cuts=report)
    assert view.summary.endswith("2 edges break every loop of the plane (the fewest)")


def _ticking():
    """A clock that moves 1 ms at every reading: each slice ends at its first pause."""
    ticks = itertools.count()
    return lambda: next(ticks) * 1e-3


def test_the_search_matches_brute_force_and_is_the_same_however_sliced():
    rng = random.Random(11)
    for trial in range(40):
        n = rng.randint(2, 6)
        names = [f"v{i}" for i in range(n)]
        pairs = sorted({(rng.choice(names), rng.choice(names)) for _ in range(rng.randint(2, 12))})
        pairs = [(a, b) for a, b in pairs if a != b]
        if not pairs:
            continue
        editor = editor_with(pairs)
        at_once = editor.loop_cuts(wait=True)
        assert at_once is not None and at_once.exact
        arcs = {(e.a, e.b) for e in editor.plane.edges.values()}
        assert at_once.size == brute_force_feedback_arc_set(list(editor.plane.nodes), arcs), pairs
        sliced = CutFinder(clock=_ticking())
        topology = editor.topology()
        report = sliced.report(editor.plane, topology, None, budget_ms=0.5)
        while report is None:
            assert sliced.pending
            sliced.advance(0.5)
            report = sliced.report(editor.plane, topology, None)
        assert report == at_once, trial


def test_every_parallel_copy_of_an_arc_is_cut_and_other_kinds_are_not():
    editor = editor_with([("a", "b"), ("b", "a")])
    with editor.transaction("copies"):
        editor.plane.add_edge(Edge("twin", "a", "b", EdgeProps(kind="temporal")))
        editor.plane.add_edge(Edge("ctx", "b", "a", EdgeProps(kind="context")))
    report = editor.loop_cuts(wait=True)
    (region,) = report.regions
    assert region.size == 1
    drawn = {editor.plane.edges[e].a + editor.plane.edges[e].b for e in region.edges}
    assert len(drawn) == 1 and "ctx" not in region.edges
    if region.arcs == (("a", "b"),):
        assert set(region.edges) == {"e0", "twin"}


def test_a_region_past_the_budget_gets_a_range_said_as_bounds():
    rng = random.Random(3)
    n = 120
    pairs = [(f"n{i}", f"n{(i + 1) % n}") for i in range(n)]
    pairs += [(f"n{rng.randrange(n)}", f"n{rng.randrange(n)}") for _ in range(3 * n)]
    editor = editor_with([(a, b) for a, b in pairs if a != b])
    editor.cut_finder = CutFinder(budget=50_000)
    report = editor.loop_cuts(wait=True)
    (region,) = report.regions
    assert region.lower < region.size  # not settled within the budget
    plane = editor.plane
    left = {(e.a, e.b) for e in plane.edges.values() if e.id not in region.edges}
    assert is_acyclic(list(plane.nodes), left)  # the set found does break every loop
    editor.select(["n0"])
    rows = _rows(editor)
    said = f"{region.lower}–{region.size} edges break every loop here (bounds: the exact fewest is past"
    assert any(row.startswith(said) for row in rows), rows


def test_show_them_draws_the_region_s_edges_or_the_scope_s():
    pairs = [*POPULATION, ("x", "y"), ("y", "x")]
    editor = editor_with(pairs)
    report = editor.loop_cuts(wait=True)
    assert editor.shown_cuts(report) == ()
    assert commands.run(editor, "show-cuts") is True
    assert sorted(editor.shown_cuts(report)) == sorted(report.edges) and len(report.edges) == 3
    editor.select(["x"])
    (xy,) = [r for r in report.regions if "x" in {a for arc in r.arcs for a in arc}]
    assert editor.shown_cuts(report) == xy.edges
    editor.select(["births"])
    assert "Hide them (K)" in _rows(editor)
    scene = build_scene(editor.plane, editor.card, viewport=(4000.0, 4000.0), cut_edges=editor.shown_cuts(report))
    assert any(b.keep and b.width >= 3.0 for b in scene.edges)
    assert commands.run(editor, "show-cuts") is False and editor.shown_cuts(report) == ()


def test_an_edit_drops_a_search_in_progress():
    editor = editor_with(POPULATION)
    editor.cut_finder = CutFinder(clock=_ticking())
    assert editor.loop_cuts(budget_ms=0.5) is None
    editor.delete_edge("e0")
    assert not editor.cut_finder.pending
    fresh = editor.loop_cuts(wait=True)
    assert "e0" not in fresh.edges and fresh.size == 1


def _bounded() -> Editor:
    """Two complete quartets joined both ways (κ = 1), cut search off: κ in [1, 3]."""
    editor = editor_with(quartets())
    editor.exact_limit_override = 3
    return editor


def test_kappa_past_the_budget_is_a_range_everywhere_never_the_size():
    editor = _bounded()
    (scc,) = editor.topology().result["sccs"]
    assert scc["approximate"] and scc["kappa_range"] == [1, 3] and len(scc["nodes"]) == 8
    first = scc["nodes"][0]
    editor.select([first])
    rows = _rows(editor)
    assert any(r.startswith("κ 1–3 (bounds: the exact κ is past the work budget)") for r in rows), rows
    scene = build_scene(editor.plane, editor.card, viewport=(4000.0, 4000.0), topology=editor.topology())
    assert [h.badge.text for h in scene.halos] == ["κ=1–3"]
    view = panel_view(editor, editor.loops(wait=True))
    assert " · κ 1–3 · 8 cards" in view.groups[0].title
    assert "κ 1–3: 1 feedback loop" in outline_of(editor).summary
    editor.select(list(editor.plane.nodes)[:8])
    rows = _rows(editor)
    assert any(r.startswith("κ of the selection 1–3 (bounds)") for r in rows), rows
    everything = " ".join(rows) + view.summary + " ".join(g.title for g in view.groups)
    assert "κ = 8" not in everything and "κ≈8" not in everything


def test_connect_to_rows_give_the_bounds_of_a_loop_past_the_budget():
    editor = _bounded()
    (scc,) = editor.topology().result["sccs"]
    node = scc["nodes"][0]
    editor.select([node])
    with editor.transaction("a card nearby"):
        editor.plane.add_node(Node("loose", "Loose", x=editor.plane.nodes[node].x + 40.0, y=0.0))
    labels = [p.label for p in kappa_ui.connect_previews(editor, node)]
    previews = [label for label in labels if "(κ: " in label]
    assert previews and all("κ: 1–3→" in label for label in previews), labels
    assert all("8" not in label.split("(κ: ")[1] for label in previews)  # (never the region's size)
    items = [item.label for item in catalog.connect_submenu(editor, node)]
    assert any("1–3→" in label for label in items)


def test_kappa_of_a_large_region_is_exact_in_the_editor():
    """3,000 cards in one region: exact κ with the editor's default budget (no size limit)."""
    rng = random.Random(5)
    n = 3000
    plane = Plane("p", "P")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"card {i}", x=float(i), y=0.0))
    arcs = {(i, (i + 1) % n) for i in range(n)} | {(rng.randrange(n), rng.randrange(n)) for _ in range(2 * n)}
    for k, (a, b) in enumerate(sorted((a, b) for a, b in arcs if a != b)):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}", EdgeProps(kind="causal")))
    editor = Editor(Document([plane], "p"))
    (scc,) = editor.topology().result["sccs"]
    assert len(scc["nodes"]) == n and not scc["approximate"] and "kappa_range" not in scc
    assert scc["kappa"] == len(scc["fault_line_edges"]) >= 1
