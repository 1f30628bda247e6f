"""The loops of a graph (``kappa.loops``): every elementary cycle up to the length
limit, each once, shortest first, against networkx.simple_cycles on random graphs; the
bounds; polarity classes; fault lines; the same answer however the search is sliced."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.kappa.loops import find_loops, find_loops_steps, polarity_class
from bendscope.kappa.steps import Meter, advance, finish

graphs = st.integers(1, 9).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from(["+", "-", None])),
            max_size=3 * n,
        ),
    )
)


def as_edges(n: int, arcs: list) -> tuple[list[str], list[dict]]:
    nodes = [f"v{i}" for i in range(n)]
    return nodes, [{"source": f"v{a}", "target": f"v{b}", "kind": "causal", "polarity": p} for a, b, p in arcs]


def canonical(cycle: list[str]) -> tuple[str, ...]:
    k = cycle.index(min(cycle))
    return tuple(cycle[k:] + cycle[:k])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.integers(2, 6))
def test_every_loop_up_to_the_length_limit_once_shortest_first(graph, max_length):
    n, arcs = graph
    nodes, edges = as_edges(n, arcs)
    result = find_loops(nodes, edges, max_loops=10_000, max_length=max_length)
    listed = [loop["nodes"] for scc in result["sccs"] for loop in scc["loops"]]
    digraph = nx.DiGraph((e["source"], e["target"]) for e in edges if e["source"] != e["target"])
    expected = {canonical(c) for c in nx.simple_cycles(digraph, length_bound=max_length) if len(c) > 1}
    assert {canonical(c) for c in listed} == expected and len(listed) == len(expected)
    for scc in result["sccs"]:
        lengths = [loop["length"] for loop in scc["loops"]]
        assert lengths == sorted(lengths)  # shortest first
        for loop in scc["loops"]:
            assert loop["nodes"][0] == min(loop["nodes"]) and set(loop["nodes"]) <= set(scc["nodes"])
        assert scc["complete"] == (len(scc["nodes"]) <= max_length)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.integers(1, 5))
def test_the_count_bound_keeps_the_shortest_and_says_there_are_more(graph, max_loops):
    n, arcs = graph
    nodes, edges = as_edges(n, arcs)
    every = find_loops(nodes, edges, max_loops=10_000, max_length=9)
    some = find_loops(nodes, edges, max_loops=max_loops, max_length=9)
    for all_of, part in zip(every["sccs"], some["sccs"], strict=True):
        assert part["loops"] == all_of["loops"][:max_loops]
        assert part["complete"] == (len(all_of["loops"]) <= max_loops)
    sliced = find_loops_steps(nodes, edges, max_loops=max_loops, max_length=9, meter=Meter(quantum=3))
    while not (done := advance(sliced, lambda: True))[0]:
        pass
    assert done[1] == some  # (slicing changes nothing)


def test_polarity_classes_and_fault_lines():
    # a reinforcing population loop and a balancing resource loop through one node
    edges = [
        {"source": "births", "target": "population", "polarity": "+"},
        {"source": "population", "target": "births", "polarity": "+"},
        {"source": "population", "target": "resources", "polarity": "-"},
        {"source": "resources", "target": "population", "polarity": "+"},
        {"source": "population", "target": "pollution"},
        {"source": "pollution", "target": "population", "polarity": "-"},
    ]
    result = find_loops(["births", "population", "resources", "pollution"], edges)
    (scc,) = result["sccs"]
    classes = {tuple(loop["nodes"]): loop["polarity"] for loop in scc["loops"]}
    assert classes == {
        ("births", "population"): "R",
        ("population", "resources"): "B",
        ("pollution", "population"): "?",
    }
    assert scc["counts"] == {"R": 1, "B": 1, "?": 1} and scc["complete"] and result["complete"]
    assert scc["kappa"] == 1  # (births has one arc in: cutting it breaks its loop)
    from bendscope.kappa import analyze

    nodes = ["births", "population", "resources", "pollution"]
    faults = {(f["source"], f["target"]) for f in analyze(nodes, edges)["sccs"][0]["fault_line_edges"]}
    cut = {(f["source"], f["target"]) for loop in scc["loops"] for f in loop["fault_lines"]}
    assert cut == faults, "the loops through the fault line name exactly its arcs"
    assert polarity_class([]) == "R"
    disagreeing = find_loops(["a", "b"], [
        {"source": "a", "target": "b", "polarity": "+"}, {"source": "a", "target": "b", "kind": "temporal",
                                                          "polarity": "-"},
        {"source": "b", "target": "a", "polarity": "+"}])  # fmt: skip
    assert disagreeing["sccs"][0]["loops"][0]["polarity"] == "?"  # (parallel edges that disagree)


def test_the_work_bound_ends_a_dense_search_quickly():
    n = 60
    nodes = [f"v{i:02d}" for i in range(n)]
    edges = [{"source": a, "target": b} for a in nodes for b in nodes if a != b]
    result = find_loops(nodes, edges, max_loops=50, max_length=12, max_work=20_000)
    (scc,) = result["sccs"]
    assert len(scc["loops"]) == 50 and not scc["complete"]
    assert all(loop["length"] == 2 for loop in scc["loops"])  # (shortest first: 1,770 two-node loops)
    with pytest.raises(ValueError):
        finish(find_loops_steps(nodes, [{"source": "v00"}]))


def test_a_giant_scc_does_not_starve_the_others():
    """Lengths are taken in turn over every SCC: with a work bound a giant SCC reaches, the
    small SCCs' loops are still all found (and said complete), the giant's shortest first."""
    n = 3_000
    ring = [f"g{i:04d}" for i in range(n)]
    edges = [{"source": ring[i], "target": ring[(i + 1) % n]} for i in range(n)]
    edges += [{"source": ring[i], "target": ring[(i + 7) % n]} for i in range(0, n, 3)]
    edges += [{"source": ring[(i + 5) % n], "target": ring[i]} for i in range(0, n, 5)]
    small = ["s1", "s2", "s3"]  # two loops: s1→s2→s1 and s1→s2→s3→s1
    edges += [{"source": "s1", "target": "s2"}, {"source": "s2", "target": "s1"}, {"source": "s2", "target": "s3"},
              {"source": "s3", "target": "s1"}]  # fmt: skip
    result = find_loops(ring + small, edges, max_loops=40, max_length=12, max_work=60_000)
    giant, little = sorted(result["sccs"], key=lambda scc: -len(scc["nodes"]))
    assert little["complete"] and [loop["nodes"] for loop in little["loops"]] == [["s1", "s2"], ["s1", "s2", "s3"]]
    assert not giant["complete"] and giant["loops"]
    lengths = [loop["length"] for loop in giant["loops"]]
    assert lengths == sorted(lengths)
    assert not result["complete"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs)
def test_loops_from_a_known_topology_equal_a_fresh_search(graph):
    from bendscope.kappa import analyze
    from bendscope.kappa.loops import topology_loops_steps

    n, arcs = graph
    nodes, edges = as_edges(n, arcs)
    topology = analyze(nodes, edges)
    sliced = topology_loops_steps(nodes, edges, topology, max_loops=5, meter=Meter(quantum=2), trusted=True)
    while not (done := advance(sliced, lambda: True))[0]:
        pass
    assert done[1] == find_loops(nodes, edges, max_loops=5)


def test_every_unit_the_work_bound_counts_is_spent_on_the_meter():
    """The backward distance searches (most of the work on a large region) were counted by the
    work bound but never spent on the meter, so a slice of the page's loop list ran ~10× its
    quantum between pauses."""
    from bendscope.kappa.digraph import digraph_of_arcs
    from bendscope.kappa.loops import loops_steps

    n = 400
    names = [f"n{i:03d}" for i in range(n)]
    arcs = [(names[i], names[(i + d) % n]) for i in range(n) for d in (1, 7, n - 3)]
    graph = digraph_of_arcs(names, arcs)
    meter = Meter(quantum=256)
    steps = loops_steps(graph, [list(range(n))], max_loops=10_000, max_length=12, max_work=20_000, meter=meter)
    pauses = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            found = done.value
            break
        pauses += 1
    ((_, complete),) = found
    assert not complete and meter.total >= 20_000 and pauses >= 20_000 // 256 - 1
    again = finish(loops_steps(graph, [list(range(n))], max_loops=10_000, max_length=12, max_work=20_000))
    assert again == found  # (pauses never change what is found)
