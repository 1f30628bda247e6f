"""What Connect to… says of each candidate, read back from its label, against κ computed by
brute force (networkx) on graphs with loop regions past the exact bound: every κ it names,
exact or a range of bounds, holds the true κ."""

from __future__ import annotations

import re

import networkx as nx
from bend_helpers import editor_with
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.kappa_view import kappa_ui

SPAN = re.compile(r"κ: (\d+)(?:–(\d+))?→(\d+)(?:–(\d+))?")


def region(arcs: list[tuple[str, str]], node: str) -> set[str]:
    """``node``'s loop region (empty outside one)."""
    graph = nx.DiGraph((a, b) for a, b in arcs if a != b)
    part = next((p for p in nx.strongly_connected_components(graph) if node in p), set())
    return set(part) if len(part) > 1 else set()


def true_kappa(arcs: list[tuple[str, str]], node: str) -> int:
    """κ of ``node``'s loop region (0 outside one), from networkx's arc connectivity."""
    part = region(arcs, node)
    graph = nx.DiGraph((a, b) for a, b in arcs if a in part and b in part and a != b)
    return int(nx.edge_connectivity(graph)) if part else 0


#: a κ said alone: the loop's before a removal ("(κ 1) into", "the whole had κ 1"), or the loops' after it ("of κ 2")
ALONE = re.compile(r"(?:\(κ |had κ |of κ )(\d+)(?:–(\d+))?")
#: the merged loop's κ after an added arc merges loops ("into one of κ 1")
MERGE = re.compile(r", into one of κ (\d+)\)")


def spans(label: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The κ before and after a label names: "κ: 1→2", or in words (a removal that leaves loops
    more tightly tied than the loop was: the loop's κ, then the largest of the loops left; an
    added arc that merges loops: the largest of theirs, then the merged loop's)."""
    found = SPAN.search(label)
    merged = MERGE.search(label)
    if merged is not None:  # "merges 2 loop regions, of κ 2 each, into one of κ 1": the largest merged, then 1
        said = [(int(m.group(1)), int(m.group(2) or m.group(1))) for m in ALONE.finditer(label[: merged.start()])]
        assert said, label
        return (max(lo for lo, _ in said), max(hi for _, hi in said)), (int(merged.group(1)), int(merged.group(1)))
    if found is None:
        alone = [(m.group(0), int(m.group(1)), int(m.group(2) or m.group(1))) for m in ALONE.finditer(label)]
        before = [(lo, hi) for said, lo, hi in alone if not said.startswith("of")]
        after = [(lo, hi) for said, lo, hi in alone if said.startswith("of")]
        assert len(before) == 1 and after, label
        return before[0], (max(lo for lo, _ in after), max(hi for _, hi in after))
    lo, hi, lo2, hi2 = found.groups()
    return (int(lo), int(hi or lo)), (int(lo2), int(hi2 or lo2))


@st.composite
def regions(draw: st.DrawFn) -> tuple[list[tuple[str, str]], str, int]:
    """Two to four dense regions (two triangles joined one arc each way make a κ the degree
    bounds cannot settle), arcs between them, and an exact bound below their sizes."""
    arcs: list[tuple[str, str]] = []
    count = draw(st.integers(2, 4))
    for r in range(count):
        names = [f"r{r}{c}" for c in "abcxyz"[: draw(st.integers(3, 6))]]
        arcs += [(a, b) for a in names[:3] for b in names[:3] if a != b]
        arcs += [(a, b) for a in names[3:] for b in names[3:] if a != b]
        if len(names) > 3:
            arcs += [(names[2], names[3]), (names[-1], names[0])]
    nodes = sorted({n for arc in arcs for n in arc})
    extra = st.tuples(st.sampled_from(nodes), st.sampled_from(nodes))
    arcs += draw(st.lists(extra, max_size=6))
    return arcs, draw(st.sampled_from(nodes)), draw(st.sampled_from([3, 4, 6]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regions())
def test_every_kappa_a_connect_label_names_holds_the_true_kappa(case):
    arcs, source, limit = case
    editor = editor_with(arcs)
    editor.exact_limit_override = limit
    targets = sorted(n for n in editor.plane.nodes if n != source)
    for preview in kappa_ui.previews_for(editor, source, targets):
        if preview.connected:
            continue
        (lo, hi), (lo2, hi2) = spans(preview.label)
        after = true_kappa([*arcs, (source, preview.target)], source)
        assert lo2 <= after <= hi2, (preview.label, after)
        if preview.description in ("merges feedback loops", "enlarges loop"):  # the largest κ merged
            merged = max(true_kappa(arcs, n) for n in region([*arcs, (source, preview.target)], source))
            assert lo <= merged <= hi, (preview.label, merged)
        else:
            before = true_kappa(arcs, source)
            assert lo <= before <= hi, (preview.label, before)
            if "— strengthens loop" in preview.label:  # (said plainly only when it is so)
                assert after > before, (preview.label, before, after)


def test_a_merge_with_a_region_past_the_exact_bound_names_its_bounds():
    """Two triangles joined one arc each way (κ 1, bounds 1–2 past the bound) merged with a
    two-way pair: the label names the region's bounds, not its upper bound as if exact."""
    arcs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    arcs += [("c", "x"), ("z", "a"), ("p", "q"), ("q", "p"), ("q", "a")]
    editor = editor_with(arcs)
    editor.exact_limit_override = 3
    merge, inside = kappa_ui.previews_for(editor, "a", ["p", "y"])
    assert merge.label == "→ p (merges 2 loop regions, 1 of κ 1–2 and 1 of κ 1, into one of κ 1)"
    # a → y raises the single-card cut found (a's two arcs out), not κ: c → x alone is still a cut
    assert inside.label == "→ y (κ: 1–2→1–3 — may strengthen loop)"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regions())
def test_every_kappa_unbends_question_names_holds_the_true_kappa(case):
    arcs, node, limit = case
    editor = editor_with(arcs)
    editor.exact_limit_override = limit
    choice = kappa_ui.unbend_choice(editor, node)
    if choice is None:
        return
    (lo, hi), (lo2, hi2) = spans(choice.question)
    before = true_kappa(arcs, node)
    gone = [arc for arc in arcs if arc != (choice.source, choice.target)]
    after = max((true_kappa(gone, n) for n in region(arcs, node)), default=0)
    assert lo <= before <= hi and lo2 <= after <= hi2, (choice.question, before, after)
    if "weakens" in choice.question:
        assert after < before, (choice.question, before, after)


def test_unbend_past_the_exact_bound_names_bounds_and_claims_no_weakening_it_cannot_tell():
    """Two triangles joined one arc each way: κ 1, bounds 1–2 past the bound; the fault line found
    is the single card a's two arcs out. Removing one leaves κ 1: it was 1 already."""
    arcs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    editor = editor_with([*arcs, ("c", "x"), ("z", "a")])
    editor.exact_limit_override = 3
    choice = kappa_ui.unbend_choice(editor, "a")
    assert choice is not None
    assert choice.question == "Remove edge a→b? This may weaken the feedback loop; a loop remains (κ: 1–2→1)."


NAMES = [f"n{i}" for i in range(9)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spots=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=9, max_size=9),
    arcs=st.lists(
        st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(["causal", "temporal", "context"])),
        max_size=16,
    ),
    more=st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=4),
)
def test_bend_target_is_the_nearest_card_that_reaches_it_before_and_after_edits(spots, arcs, more):
    """Bend's target, asked on the plane's digraph built once per structure, against networkx on
    the plane as it is: the nearest card within the radius (ties by id) that reaches the card
    along causal or temporal edges and that it has no such edge to yet — on the graph drawn,
    then after each arc added (the digraph built again) and after a move (the same digraph)."""
    positions = {name: (120.0 * x, 90.0 * y) for name, (x, y) in zip(NAMES, spots, strict=True)}
    editor = editor_with([], positions=positions)
    for name in NAMES:
        if name not in editor.plane.nodes:
            editor.add_node(*positions[name], name)
    ids = {editor.plane.nodes[n].text or n: n for n in editor.plane.nodes}
    for a, b, kind in arcs:
        editor.add_edge(ids[a], ids[b], kind=kind)

    def expected(node_id: str) -> str | None:
        graph = nx.DiGraph()
        graph.add_nodes_from(editor.plane.nodes)
        graph.add_edges_from((e.a, e.b) for e in editor.plane.edges.values() if e.props.kind in ("causal", "temporal"))
        reaches = nx.ancestors(graph, node_id)
        near = editor.nodes_near(node_id, kappa_ui.RADIUS)
        return next((n.id for n in near if n.id in reaches and not graph.has_edge(node_id, n.id)), None)

    def check() -> None:
        for node_id in editor.plane.nodes:
            assert kappa_ui.bend_target(editor, node_id) == expected(node_id), node_id

    check()
    for a, b in more:
        editor.add_edge(ids[a], ids[b])
        check()
    editor.plane.nodes[ids["n0"]].x += 300.0  # (a move: nearness changes, the digraph stays)
    check()
