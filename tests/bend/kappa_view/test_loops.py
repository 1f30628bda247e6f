"""The editor's loop list (bend.kappa_view.loop_list): the plane's or the selection's loops
as kappa.loops finds them, with their edges; counts through a card or an edge; searched in
slices, never twice for the same graph, dropped when the plane changes under a search."""

from __future__ import annotations

import random

from bend_helpers import K22, editor_with
from kappa_helpers import BUSINESS

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view import explain
from bendscope.bend.kappa_view.loop_list import LoopFinder
from bendscope.bend.kappa_view.topology_cache import plane_graph
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.kappa.loops import find_loops


def _reference(editor: Editor, nodes: list[str] | None = None) -> dict:
    plane = editor.plane
    ids, _ = plane_graph(plane)
    keep = set(nodes) if nodes is not None else set(ids)
    edges = [
        {"source": e.a, "target": e.b, "kind": e.props.kind, "polarity": e.props.polarity}
        for e in plane.edges.values()
        if e.a in keep and e.b in keep
    ]
    return find_loops(sorted(keep), edges, max_loops=100, max_length=12)


def _as_lists(report) -> list:
    return [[(list(loop.nodes), loop.polarity, loop.fault_lines) for loop in group.loops] for group in report.groups]


def _expected(result: dict) -> list:
    return [
        [(loop["nodes"], loop["polarity"], len(loop["fault_lines"])) for loop in s["loops"]] for s in result["sccs"]
    ]


def test_the_plane_report_is_what_the_engine_finds():
    for pairs in (BUSINESS, K22):
        editor = editor_with(pairs)
        report = editor.loops(wait=True)
        assert report is not None and report.selection is None
        assert _as_lists(report) == _expected(_reference(editor))
        topology = editor.topology().result
        assert [(g.scc_id, g.kappa, g.size) for g in report.groups] == [
            (s["id"], s["kappa"], len(s["nodes"])) for s in topology["sccs"]
        ]


def test_each_loop_names_its_edges_parallel_ones_included():
    editor = editor_with([("a", "b"), ("b", "a"), ("a", "b")])
    report = editor.loops(wait=True)
    (group,) = report.groups
    (loop,) = group.loops
    assert loop.nodes == ("a", "b") and sorted(loop.edges) == ["e0", "e1", "e2"]
    assert report.through_edge("e2") == (1, {"R": 0, "B": 0, "?": 1})
    assert report.through_node("a")[0] == 1 and report.through_node("zz") == (0, {"R": 0, "B": 0, "?": 0})


def test_the_selection_scope_lists_only_the_loops_inside_it():
    editor = editor_with(BUSINESS)
    chosen = ["market-share", "revenue", "r-and-d", "product-quality"]
    editor.select(chosen)
    report = editor.loops(wait=True)
    assert report.selection == frozenset(chosen)
    assert _as_lists(report) == _expected(_reference(editor, chosen))
    assert all(set(loop.nodes) <= set(chosen) for g in report.groups for loop in g.loops)
    editor.select(list(editor.plane.nodes))  # every node: the plane's own
    assert editor.loops(wait=True).selection is None


def test_polarity_changes_the_classes_and_moves_search_nothing():
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a")])
    assert [loop.polarity for loop in editor.loops(wait=True).groups[0].loops] == ["?"]
    searches = editor.loop_finder.searches
    node = editor.plane.nodes["a"]
    editor.move_node("a", node.x + 50, node.y)
    assert editor.loops() is not None and editor.loop_finder.searches == searches  # (a move changes no loop)
    for edge_id in ("e0", "e1", "e2"):
        editor.set_edge(edge_id, polarity="+")
    assert [loop.polarity for loop in editor.loops(wait=True).groups[0].loops] == ["R"]
    editor.set_edge("e1", polarity="-")
    assert [loop.polarity for loop in editor.loops(wait=True).groups[0].loops] == ["B"]
    editor.undo()
    assert [loop.polarity for loop in editor.loops(wait=True).groups[0].loops] == ["R"]


def _ring_editor(n: int, seed: int = 3) -> Editor:
    rng = random.Random(seed)
    plane = Plane("p", "P")
    for i in range(n):
        plane.add_node(Node(f"n{i:04d}", f"node {i}", x=rng.uniform(-900, 900), y=rng.uniform(-900, 900)))
    k = 0
    for i in range(n):
        for j in (i + 1, i + 3):
            plane.add_edge(Edge(f"e{k}", f"n{i:04d}", f"n{j % n:04d}", EdgeProps(kind="causal")))
            k += 1
    plane.add_edge(Edge(f"e{k}", "n0005", "n0000", EdgeProps(kind="causal")))
    return Editor(Document([plane], "p"))


def test_a_search_in_slices_equals_one_in_one_go_and_a_change_drops_it():
    whole = _ring_editor(1000).loops(wait=True)
    editor = _ring_editor(1000)
    editor.topology()
    ticks = iter(range(10**9))
    editor.loop_finder = LoopFinder(clock=lambda: next(ticks) * 1e-3)  # each look at the clock: 1 ms
    assert editor.loops(budget_ms=0.5) is None and editor.loop_finder.pending
    slices = 1
    while editor.compute_loops(0.5):
        slices += 1
    report = editor.loops()
    assert slices > 5 and report is not None and _as_lists(report) == _as_lists(whole)
    assert not report.complete and report.loop_count == 4  # (longer loops than the length bound remain)
    # an edit while a search runs: it is dropped, and the next ask searches the new graph
    editor.loop_finder = LoopFinder(clock=lambda: next(ticks) * 1e-3)
    assert editor.loops(budget_ms=0.5) is None
    editor.delete_edge("e0")
    assert not editor.loop_finder.pending
    editor.topology()
    fresh = editor.loops(wait=True)
    assert all("e0" not in loop.edges for g in fresh.groups for loop in g.loops)


def test_no_report_while_the_plane_topology_is_pending():
    editor = editor_with(BUSINESS)
    editor.topology()
    editor.add_edge("revenue", "market-share")
    assert editor.topology_cache.pending(editor.plane)
    assert editor.loops() is None
    assert editor.loops(wait=True) is not None


def test_the_sentences_a_newcomer_reads():
    assert explain.kappa_sentence(2, False) == (
        "κ = 2: removing 2 edges (the fault lines) splits this region; the loops inside each part remain"
    )
    assert explain.loops_sentence(2, {"R": 1, "B": 0, "?": 1}, True) == "on 2 loops: 1 reinforcing, 1 without polarity"
    terms = [term for term, _ in explain.MEANING]
    assert terms[:3] == ["Feedback loop", "Loop region (SCC, halo)", "κ (kappa)"]
    assert set(explain.HUD_TITLES["mode"]) == {"RETRIEVAL", "DELIBERATION", "…"}
