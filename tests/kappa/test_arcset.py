"""The minimum feedback arc set (kappa.arcset): against brute force and an independent
ordering programme, its bounds around the optimum, acyclicity, determinism, slices."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kappa_helpers import BUSINESS, edges_of, nodes_of, quartets
from oracle import brute_force_feedback_arc_set, is_acyclic, ordering_feedback_arc_set

from bendscope.kappa import analyze
from bendscope.kappa.arcset import (
    DP_NODES,
    feedback_arc_set_field,
    minimum_feedback_arc_set,
    minimum_feedback_arc_set_steps,
)
from bendscope.kappa.digraph import digraph_of_arcs
from bendscope.kappa.steps import Meter, advance, finish

POPULATION = [("births", "population"), ("population", "births"), ("population", "deaths"), ("deaths", "population")]


def adjacency(n: int, arcs) -> list[list[int]]:
    return [sorted({v for u, v in arcs if u == w and v != w}) for w in range(n)]


@st.composite
def digraphs(draw, max_nodes: int = 7, max_arcs: int = 14):
    n = draw(st.integers(1, max_nodes))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    arcs = {(u, v) for u, v in draw(st.lists(pairs, max_size=max_arcs)) if u != v}
    return n, sorted(arcs)


@st.composite
def loopy(draw, low: int = DP_NODES + 1, high: int = 15):
    """Strongly connected-ish digraphs past the dynamic programme's size (the branch and
    bound's territory): a Hamiltonian cycle plus random arcs."""
    n = draw(st.integers(low, high))
    rnd = draw(st.randoms(use_true_random=False))
    perm = list(range(n))
    rnd.shuffle(perm)
    arcs = {(perm[i], perm[(i + 1) % n]) for i in range(n)}
    for _ in range(draw(st.integers(0, 2 * n))):
        u, v = rnd.randrange(n), rnd.randrange(n)
        if u != v:
            arcs.add((u, v))
    return n, sorted(arcs)


def names_of(n: int) -> list[str]:
    return [f"v{i:02d}" for i in range(n)]


def named(arcs) -> set[tuple[str, str]]:
    return {(f"v{u:02d}", f"v{v:02d}") for u, v in arcs}


@settings(max_examples=300, deadline=None)
@given(digraphs())
def test_optimum_equals_brute_force(graph):
    """Every subset of arcs in increasing size: the first that leaves no cycle has the size found."""
    n, arcs = graph
    found = minimum_feedback_arc_set(adjacency(n, arcs), work_budget=None)
    assert found.exact and found.lower == found.size
    assert found.size == brute_force_feedback_arc_set(names_of(n), named(arcs))
    assert set(found.arcs) <= set(arcs) and found.arcs == sorted(found.arcs)
    assert is_acyclic(names_of(n), named(set(arcs) - set(found.arcs)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loopy())
def test_branch_and_bound_equals_the_ordering_programme(graph):
    """Past DP_NODES nodes the branch and bound decides (parts of it: the programme)."""
    n, arcs = graph
    found = minimum_feedback_arc_set(adjacency(n, arcs), work_budget=None)
    assert found.exact and found.size == ordering_feedback_arc_set(names_of(n), named(arcs))
    assert is_acyclic(names_of(n), named(set(arcs) - set(found.arcs)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(digraphs(max_nodes=9, max_arcs=30), loopy(low=9, high=13)), st.integers(0, 20_000))
def test_bounds_bracket_the_optimum_at_any_budget(graph, budget):
    n, arcs = graph
    found = minimum_feedback_arc_set(adjacency(n, arcs), work_budget=budget)
    best = ordering_feedback_arc_set(names_of(n), named(arcs))
    assert found.lower <= best <= found.size
    assert found.exact == (found.lower == found.size)
    rest = nx.DiGraph(list(set(arcs) - set(found.arcs)))
    rest.add_nodes_from(range(n))
    assert nx.is_directed_acyclic_graph(rest)  # networkx agrees: no cycle left
    if found.exact:
        assert found.size == best


def test_population_needs_two_arcs_where_kappa_is_one():
    result = analyze(nodes_of(POPULATION), edges_of(POPULATION), feedback_arc_set=True)
    (scc,) = result["sccs"]
    assert scc["kappa"] == 1
    field = scc["feedback_arc_set"]
    assert (field["size"], field["exact"], field["lower_bound"]) == (2, True, 2)
    assert field["edges"] == [{"source": "population", "target": "births"},
                              {"source": "population", "target": "deaths"}]  # fmt: skip
    assert list(field) == ["size", "exact", "lower_bound", "edges"]


def test_the_field_is_added_only_when_asked():
    plain = analyze(nodes_of(BUSINESS), edges_of(BUSINESS))
    asked = analyze(nodes_of(BUSINESS), edges_of(BUSINESS), feedback_arc_set=True)
    assert "feedback_arc_set" not in plain["sccs"][0]
    field = asked["sccs"][0].pop("feedback_arc_set")
    assert asked == plain
    assert field["exact"] and field["size"] == 1  # one arc breaks both loops of the business example
    (edge,) = field["edges"]  # an arc on both loops: revenue → r-and-d → product-quality → market-share
    assert (edge["source"], edge["target"]) in {("revenue", "r-and-d"), ("r-and-d", "product-quality"),
                                                ("product-quality", "market-share")}  # fmt: skip


def test_parallel_edges_count_once_and_self_loops_not_at_all():
    edges = [*edges_of(POPULATION), *edges_of(POPULATION), {"source": "births", "target": "births"}]
    (scc,) = analyze(nodes_of(POPULATION), edges, feedback_arc_set=True)["sccs"]
    assert scc["feedback_arc_set"]["size"] == 2


def test_every_scc_gets_its_own_set():
    pairs = [*POPULATION, *quartets()]
    result = analyze(nodes_of(pairs), edges_of(pairs), feedback_arc_set=True)
    sizes = [s["feedback_arc_set"]["size"] for s in result["sccs"]]
    # two complete quartets: one arc of each 2-cycle (6 each); ordering each so that the arc joining
    # them back lands before the one leaving closes no cycle through both; the population: 2
    assert sizes == [6 + 6, 2]
    assert all(s["feedback_arc_set"]["exact"] for s in result["sccs"])


@settings(max_examples=100, deadline=None)
@given(digraphs(max_nodes=8, max_arcs=20), st.randoms(use_true_random=False))
def test_the_ids_decide_not_the_input_order(graph, rnd):
    n, arcs = graph
    nodes = names_of(n)
    edges = edges_of(sorted(named(arcs)))
    expected = json.dumps(analyze(nodes, edges, feedback_arc_set=True))
    rnd.shuffle(nodes)
    rnd.shuffle(edges)
    assert json.dumps(analyze(nodes, edges, feedback_arc_set=True)) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loopy(low=8, high=14), st.integers(1, 200), st.integers(0, 10**6), st.integers(0, 50_000))
def test_slices_end_where_one_go_ends(graph, quantum, seed, budget):
    n, arcs = graph
    out = adjacency(n, arcs)
    one_go = minimum_feedback_arc_set(out, work_budget=budget)
    rng = random.Random(seed)
    job = minimum_feedback_arc_set_steps(out, Meter(quantum), work_budget=budget)
    while True:
        done, result = advance(job, lambda: rng.random() < 0.5)
        if done:
            break
    assert result == one_go


def test_a_large_region_gets_a_real_set_and_a_range():
    """3,000 nodes, ≈ 3n arcs: no exact answer within the default budget, but a set that
    leaves no cycle, and a lower bound of more than the degree bound."""
    rng = random.Random(4)
    n = 3000
    arcs = {(i, (i + 1) % n) for i in range(n)}
    while len(arcs) < 3 * n:
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            arcs.add((u, v))
    graph = digraph_of_arcs([f"n{i:04d}" for i in range(n)], [(f"n{u:04d}", f"n{v:04d}") for u, v in arcs])
    field = feedback_arc_set_field(graph, list(range(n)))
    assert field["exact"] is False and 2 < field["lower_bound"] < field["size"] == len(field["edges"])
    left = nx.DiGraph(sorted(arcs))
    left.remove_edges_from((int(e["source"][1:]), int(e["target"][1:])) for e in field["edges"])
    assert nx.is_directed_acyclic_graph(left)


def test_budget_zero_still_gives_a_set():
    pairs = quartets()
    graph = digraph_of_arcs(nodes_of(pairs), pairs)
    field = feedback_arc_set_field(graph, list(range(8)), work_budget=0)
    assert field["lower_bound"] <= 12 <= field["size"]
    assert field["lower_bound"] >= 5  # the degree bound: 3 arcs into a source + 3 out of a sink − 1
    kept = set(pairs) - {(e["source"], e["target"]) for e in field["edges"]}
    assert is_acyclic(nodes_of(pairs), kept)


def test_bad_budgets_are_refused():
    for bad, error in ((-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="arcset_budget"):
            analyze(["a"], [], feedback_arc_set=True, arcset_budget=bad)


def test_steps_pause():
    rng = random.Random(2)
    n = 40
    arcs = {(i, (i + 1) % n) for i in range(n)} | {(rng.randrange(n), rng.randrange(n)) for _ in range(80)}
    job = minimum_feedback_arc_set_steps(adjacency(n, arcs), Meter(quantum=100), work_budget=200_000)
    pauses = 0
    while not advance(job, lambda: True)[0]:
        pauses += 1
    assert pauses > 20
    assert finish(minimum_feedback_arc_set_steps(adjacency(n, arcs), Meter(), work_budget=200_000)).size > 0
