"""κ at every size: the work budget replaces the size limit; past it, bounds that bracket
κ (never the region's size), the same in slices, the same from the cache."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest
from graphs import two_dense_halves
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kappa_helpers import edges_of, nodes_of, quartets

from bendscope.kappa import DEFAULT_WORK_BUDGET, KappaCache, analyze
from bendscope.kappa.analyze import analyze_steps
from bendscope.kappa.mincut import arc_strong_connectivity, kappa_cut, kappa_cut_steps
from bendscope.kappa.steps import Meter, advance, finish
from tests.kappa.test_properties import check_fault_line, strong_digraphs


def adjacency(n: int, arcs) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n)]
    for u, v in arcs:
        out[u].append(v)
    return [sorted(s) for s in out]


def hard(n: int, degree: int, bridges: int, seed: int) -> tuple[list[str], list[dict[str, str]]]:
    names = [f"n{i:05d}" for i in range(n)]
    return names, edges_of([(names[u], names[v]) for u, v in two_dense_halves(n, degree, bridges, seed=seed)])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strong_digraphs(max_nodes=80), st.integers(0, 3000))
def test_bounds_bracket_kappa_when_the_budget_is_small(graph, budget):
    n, arcs = graph
    out = adjacency(n, arcs)
    exact, exact_arcs = arc_strong_connectivity(out)
    found = kappa_cut(out, work_budget=budget)
    assert 1 <= found.lower <= exact <= found.kappa
    assert len(found.arcs) == found.kappa  # a real cut: its arcs are all the arcs leaving one side
    names = [str(i) for i in range(n)]
    check_fault_line(names, {(str(u), str(v)) for u, v in arcs}, [{"source": str(u), "target": str(v)}
                                                                  for u, v in found.arcs])  # fmt: skip
    if found.exact:
        assert (found.kappa, found.arcs) == (exact, exact_arcs)  # the same cut as without a budget
    else:
        assert found.lower == 1 and found.kappa <= min(min(map(len, out)), min(sum(v == w for _, v in arcs)
                                                                            for w in range(n)))  # fmt: skip


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strong_digraphs(max_nodes=60), st.integers(0, 2000), st.integers(1, 300), st.integers(0, 10**6))
def test_a_budget_gives_the_same_answer_in_slices_and_again(graph, budget, quantum, seed):
    n, arcs = graph
    names = [f"n{i:02d}" for i in range(n)]
    edges = edges_of([(names[u], names[v]) for u, v in arcs])
    one_go = json.dumps(analyze(names, edges, work_budget=budget))
    assert json.dumps(analyze(names, edges, work_budget=budget)) == one_go
    rng = random.Random(seed)
    job = analyze_steps(names, edges, work_budget=budget, meter=Meter(quantum))
    while True:
        done, result = advance(job, lambda: rng.random() < 0.5)
        if done:
            break
    assert json.dumps(result) == one_go


def test_the_schema_gains_kappa_range_only_when_approximate():
    names, edges = hard(400, 4, 3, seed=1)
    exact = analyze(names, edges)
    (scc,) = exact["sccs"]
    assert scc["kappa"] == 3 and scc["approximate"] is False and "kappa_range" not in scc
    small = analyze(names, edges, work_budget=1000)
    (scc,) = small["sccs"]
    assert scc["approximate"] is True and scc["kappa_range"] == [1, scc["kappa"]]
    assert 3 <= scc["kappa"] <= 4 and len(scc["fault_line_edges"]) == scc["kappa"]
    assert small["max_kappa"] == scc["kappa"]
    assert list(scc) == ["id", "nodes", "kappa", "approximate", "kappa_range", "fault_line_edges", "routing",
                         "deliberation_budget"]  # fmt: skip


def test_a_3000_node_region_one_edge_splits_reads_kappa_1():
    """The old size limit (2,000 nodes) said κ = 3000 for this region; one arc each way joins
    its halves."""
    names, edges = hard(3000, 4, 1, seed=3)
    (scc,) = analyze(names, edges)["sccs"]
    assert (scc["kappa"], scc["approximate"], len(scc["nodes"])) == (1, False, 3000)
    g = nx.DiGraph([(e["source"], e["target"]) for e in edges])
    g.remove_edges_from((f["source"], f["target"]) for f in scc["fault_line_edges"])
    assert not nx.is_strongly_connected(g)


def test_10000_node_regions_are_exact_within_the_default_budget():
    """≈ 5n arcs with κ = 3, and ≈ 11n arcs with κ = 8 (≈ 32 M units: the default leaves room)."""
    names, edges = hard(10_000, 4, 3, seed=7)
    (scc,) = analyze(names, edges)["sccs"]
    assert (scc["kappa"], scc["approximate"]) == (3, False)
    out = adjacency(10_000, two_dense_halves(10_000, 10, 8, seed=10_000))
    meter = Meter()
    found = finish(kappa_cut_steps(out, meter, work_budget=DEFAULT_WORK_BUDGET))
    assert (found.kappa, found.exact) == (8, True) and meter.total < DEFAULT_WORK_BUDGET * 0.8


def test_exact_limit_means_no_cut_search_past_it():
    pairs = quartets()
    names = nodes_of(pairs)
    (scc,) = analyze(names, edges_of(pairs), exact_limit=7)["sccs"]
    assert scc["kappa_range"] == [1, 3]  # only the degrees: δ = 3, and κ ≥ 1
    (scc,) = analyze(names, edges_of(pairs), exact_limit=8)["sccs"]
    assert (scc["kappa"], scc["approximate"]) == (1, False)
    (scc,) = analyze(names, edges_of(pairs), exact_limit=7, work_budget=10**9)["sccs"]
    assert scc["approximate"] is True  # the limit wins over any budget


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strong_digraphs(max_nodes=50), st.lists(st.integers(0, 3000), min_size=2, max_size=5))
def test_the_cache_gives_what_each_budget_gives(graph, budgets):
    """An answer is reused for another budget only where the search would give it again."""
    n, arcs = graph
    names = [f"n{i:02d}" for i in range(n)]
    edges = edges_of([(names[u], names[v]) for u, v in arcs])
    cache = KappaCache()
    for budget in budgets:
        assert analyze(names, edges, work_budget=budget, cache=cache) == analyze(names, edges, work_budget=budget)


def test_bad_budgets_are_refused():
    for bad, error in ((-1, ValueError), (2.5, TypeError), (True, TypeError), ("9", TypeError)):
        with pytest.raises(error, match="work_budget"):
            analyze(["a"], [], work_budget=bad)


def test_a_dense_region_gets_its_exact_kappa_within_the_default_budget():
    """(A 300-node region with 20,000 arcs read κ 1–48 in the page: each augmenting path was
    charged the nodes it queued times the average degree, though a search on a dense graph
    stops after an arc or two; the meter now counts the arcs read.)"""
    import random

    from bendscope.kappa import analyze
    from bendscope.kappa.digraph import digraph_of_arcs
    from bendscope.kappa.mincut import arc_strong_connectivity

    rng = random.Random(1)
    n = 300
    arcs = {(i, (i + 1) % n) for i in range(n)}
    while len(arcs) < 20_000:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            arcs.add((a, b))
    names = [f"n{i:03d}" for i in range(n)]
    (scc,) = analyze(names, [{"source": names[a], "target": names[b]} for a, b in sorted(arcs)])["sccs"]
    graph = digraph_of_arcs(names, [(names[a], names[b]) for a, b in arcs])
    assert not scc["approximate"] and scc["kappa"] == arc_strong_connectivity(graph.out)[0] > 40
