"""The one-arc previews (``kappa.preview``) against κ by brute force (networkx's arc
connectivity) on families the engine's own tests do not draw: dense regions, two-way pairs,
parallel edges, self-loops, edges of kinds κ does not follow, several regions and arcs
between them, regions past the exact bound and cut searches out of work budget. Exact
previews equal the true κ; approximate ones bound it from above."""

from __future__ import annotations

import sys

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.kappa import analyze, preview_edge_impacts, preview_edge_removal

KINDS = ["causal", "causal", "causal", "temporal", "associative", None]


def arcs_of(edges: list[dict[str, str]]) -> set[tuple[str, str]]:
    return {
        (e["source"], e["target"])
        for e in edges
        if e.get("kind", "causal") in ("causal", "temporal") and e["source"] != e["target"]
    }


def regions(arcs: set[tuple[str, str]], nodes: list[str]) -> dict[frozenset[str], int]:
    """Each loop region and its true κ."""
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(arcs)
    return {
        frozenset(part): int(nx.edge_connectivity(graph.subgraph(part)))
        for part in nx.strongly_connected_components(graph)
        if len(part) > 1
    }


def holds_max(p: dict, when: str, true: int) -> None:
    """The graph's max κ ``when`` ("before", "after") the preview says is the true one, or, past
    the budget, an upper bound marked as one with bounds that hold it."""
    said, bounds = p[f"kappa_{when}"], p.get(f"kappa_range_{when}")
    if bounds is None:
        assert said == true, (when, true, p)
    else:
        assert p.get("approximate") is True and bounds[0] <= true <= bounds[1] == said and bounds[0] < said, (when, p)


@st.composite
def families(draw: st.DrawFn) -> tuple[list[str], list[dict[str, str]], int, int]:
    n = draw(st.integers(2, 11))
    names = [f"n{i:02d}" for i in range(n)]
    node = st.sampled_from(names)
    edges: list[dict[str, str]] = []
    shape = draw(st.sampled_from(["dense", "groups", "pairs", "any"]))
    if shape == "dense":
        for a in names:
            edges += [{"source": a, "target": b} for b in draw(st.lists(node, max_size=n))]
    elif shape == "groups":
        k = draw(st.integers(1, 3))
        for g in range(k):
            group = names[g::k]
            edges += [{"source": a, "target": b} for a in group for b in group if a != b and draw(st.booleans())]
    elif shape == "pairs":
        for a, b in draw(st.lists(st.tuples(node, node), max_size=2 * n)):
            edges += [{"source": a, "target": b}, {"source": b, "target": a}]
    for a, b, kind in draw(st.lists(st.tuples(node, node, st.sampled_from(KINDS)), max_size=2 * n)):
        edges.append({"source": a, "target": b} if kind is None else {"source": a, "target": b, "kind": kind})
    if edges and draw(st.booleans()):
        edges.append(dict(edges[0]))  # a parallel copy
    limit = draw(st.sampled_from([sys.maxsize, sys.maxsize, 3, 5]))
    budget = draw(st.sampled_from([50_000_000, 50_000_000, 0, 30, 300]))
    return names, edges, limit, budget


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families(), st.data())
def test_adding_an_arc_is_previewed_as_brute_force_finds_it(case, data):
    names, edges, limit, budget = case
    source = data.draw(st.sampled_from(names))
    base = analyze(names, edges, exact_limit=limit, work_budget=budget)
    impacts = preview_edge_impacts(names, edges, source, names, exact_limit=limit, work_budget=budget, base=base)
    for target, p in impacts.items():
        after = regions(arcs_of(edges) | ({(source, target)} if source != target else set()), names)
        own = next(((part, k) for part, k in after.items() if source in part), (frozenset(), 0))
        before = regions(arcs_of(edges), names)
        holds_max(p, "before", max(before.values(), default=0))
        holds_max(p, "after", max(after.values(), default=0))
        touched = [k for part, k in before.items() if part & (own[0] or {source})]
        assert p.get("approximate", False) >= p.get("scc_approximate", False)
        if p.get("scc_approximate"):
            assert p["scc_kappa_after"] >= own[1] and p["scc_kappa_before"] >= max(touched, default=0), (target, p)
        else:  # (exact: both sides are the true κ; before, the largest of the regions the arc joins)
            assert p["scc_kappa_after"] == own[1] and p["scc_kappa_before"] == max(touched, default=0), (target, p)
        if p["merged_scc_nodes"]:
            assert set(p["merged_scc_nodes"]) == own[0], (target, p)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families(), st.data())
def test_removing_an_arc_is_previewed_as_brute_force_finds_it(case, data):
    names, edges, limit, budget = case
    arcs = sorted(arcs_of(edges))
    if not arcs:
        return
    source, target = data.draw(st.sampled_from(arcs))
    base = analyze(names, edges, exact_limit=limit, work_budget=budget)
    p = preview_edge_removal(names, edges, source, target, exact_limit=limit, work_budget=budget, base=base)
    whole_before, whole_after = regions(set(arcs), names), regions(set(arcs) - {(source, target)}, names)
    holds_max(p, "before", max(whole_before.values(), default=0))
    holds_max(p, "after", max(whole_after.values(), default=0))
    region = next((part for part in whole_before if {source, target} <= part), None)
    if region is None:
        assert p["description"] == "no topological change" and p["remaining_scc_nodes"] == []
        return
    left = {part: k for part, k in whole_after.items() if part <= region}
    assert p["remaining_scc_nodes"] == sorted((sorted(part) for part in left), key=lambda x: (-len(x), x))
    true_after = max(left.values(), default=0)
    assert p["scc_kappa_after"] >= true_after if p.get("scc_approximate") else p["scc_kappa_after"] == true_after
    each = [left[frozenset(nodes)] for nodes in p["remaining_scc_nodes"]]  # each loop left: its κ, or bounds
    ranges = p.get("remaining_scc_kappa_ranges") or [[k, k] for k in p["remaining_scc_kappas"]]
    assert [hi for _, hi in ranges] == p["remaining_scc_kappas"] and len(ranges) == len(each)
    assert all(lo <= true <= hi for (lo, hi), true in zip(ranges, each, strict=True)), (each, p)


def test_a_merge_with_a_region_past_the_exact_bound_is_marked_approximate():
    """Two triangles joined one arc each way (κ 1; past the bound, only the bounds 1–2 known)
    merged with a two-way pair: κ before is the region's upper bound, so the impact says so."""
    pairs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    pairs += [("c", "x"), ("z", "a"), ("p", "q"), ("q", "p"), ("q", "a")]
    edges = [{"source": a, "target": b} for a, b in pairs]
    names = sorted({n for pair in pairs for n in pair})
    p = preview_edge_impacts(names, edges, "a", ["p"], exact_limit=3)["p"]
    assert p["description"] == "merges feedback loops" and p["scc_kappa_after"] == 1
    assert p["scc_kappa_before"] == 2 and p.get("approximate") is True  # (true κ before: 1)


def test_the_graphs_max_kappa_from_another_region_past_the_exact_bound_is_marked_a_bound():
    """A region past the exact bound (two triangles joined one arc each way: κ 1, bounds 1–2)
    and a small exact one (a 3-cycle): an edge previewed in the small one left the graph's max κ
    said as 2, exact-looking (no ``approximate``: only the region's values were marked). It is
    marked, with its bounds; the small region's own κ stays exact."""
    pairs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    pairs += [("c", "x"), ("z", "a"), ("p", "q"), ("q", "r"), ("r", "p")]
    edges = [{"source": a, "target": b} for a, b in pairs]
    names = sorted({n for pair in pairs for n in pair})
    assert max(regions(arcs_of(edges), names).values()) == 1
    for p in (
        preview_edge_impacts(names, edges, "p", ["r"], exact_limit=3)["r"],
        preview_edge_removal(names, edges, "p", "q", exact_limit=3),
    ):
        assert p["kappa_before"] == p["kappa_after"] == 2 and p["approximate"] is True
        assert p["kappa_range_before"] == p["kappa_range_after"] == [1, 2] and "scc_approximate" not in p
    exact = preview_edge_impacts(names, edges, "p", ["r"])["r"]  # (no exact bound: nothing to mark)
    assert exact["kappa_before"] == 1 and not {"approximate", "kappa_range_before", "scc_approximate"} & set(exact)
