"""Property tests: κ against independent oracles, fault lines, order invariance."""

from __future__ import annotations

import random

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import reference_topology

from bendscope.kappa import analyze
from bendscope.kappa.mincut import arc_strong_connectivity, raising_targets


@st.composite
def small_digraphs(draw, max_nodes: int = 10):
    n = draw(st.integers(min_value=0, max_value=max_nodes))
    names = [f"v{i}" for i in range(n)]
    pairs = st.tuples(st.sampled_from(names), st.sampled_from(names)) if n else st.nothing()
    arcs = draw(st.lists(pairs, max_size=4 * n)) if n else []
    return names, arcs


@st.composite
def strong_digraphs(draw, max_nodes: int = 200):
    """A random strongly connected digraph: a union of random Hamiltonian cycles plus chords."""
    n = draw(st.integers(min_value=2, max_value=max_nodes))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    cycles = draw(st.integers(min_value=1, max_value=4))
    chords = draw(st.integers(min_value=0, max_value=2 * n))
    rng = random.Random(seed)
    arcs: set[tuple[int, int]] = set()
    for _ in range(cycles):
        perm = list(range(n))
        rng.shuffle(perm)
        arcs |= {(perm[i], perm[(i + 1) % n]) for i in range(n)}
    for _ in range(chords):
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            arcs.add((u, v))
    return n, sorted(arcs)


def edges(arcs):
    return [{"source": u, "target": v, "kind": "causal"} for u, v in arcs]


def check_fault_line(scc_nodes: list[str], arcs: set[tuple[str, str]], faults: list[dict]) -> None:
    """The fault line is exactly the set of arcs leaving one side S of a cut."""
    fault = {(e["source"], e["target"]) for e in faults}
    assert fault <= arcs
    inner = {(u, v) for u, v in arcs if u in scc_nodes and v in scc_nodes}
    rest = inner - fault
    side = {u for u, _ in fault}
    stack = list(side)
    while stack:
        x = stack.pop()
        for u, v in rest:
            if u == x and v not in side:
                side.add(v)
                stack.append(v)
    assert side != set(scc_nodes), "removing the fault line must break strong connectivity"
    leaving = {(u, v) for u, v in inner if u in side and v not in side}
    assert leaving == fault


@settings(max_examples=400, deadline=None)
@given(small_digraphs())
def test_kappa_equals_brute_force(graph):
    names, arcs = graph
    result = analyze(names, edges(arcs))
    expected = reference_topology(names, set(arcs))
    assert [(s["nodes"], s["kappa"]) for s in result["sccs"]] == expected
    arc_set = {(u, v) for u, v in arcs if u != v}
    for scc in result["sccs"]:
        assert len(scc["fault_line_edges"]) == scc["kappa"]
        check_fault_line(scc["nodes"], arc_set, scc["fault_line_edges"])
    in_scc = {v for s in result["sccs"] for v in s["nodes"]}
    assert result["dag_nodes"] == sorted(set(names) - in_scc)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strong_digraphs())
def test_kappa_equals_networkx_edge_connectivity(graph):
    n, arcs = graph
    names = [f"n{i:03d}" for i in range(n)]
    named = [(names[u], names[v]) for u, v in arcs]
    result = analyze(names, edges(named))
    (scc,) = result["sccs"]
    g = nx.DiGraph()
    g.add_nodes_from(names)
    g.add_edges_from(named)
    assert scc["kappa"] == nx.edge_connectivity(g)
    assert len(scc["fault_line_edges"]) == scc["kappa"]
    check_fault_line(names, set(named), scc["fault_line_edges"])


@settings(max_examples=150, deadline=None)
@given(small_digraphs(max_nodes=12), st.randoms(use_true_random=False))
def test_input_order_does_not_matter(graph, rnd):
    names, arcs = graph
    expected = analyze(names, edges(arcs))
    shuffled_names = names + names[: len(names) // 2]
    rnd.shuffle(shuffled_names)
    shuffled_arcs = list(arcs) + list(arcs[: len(arcs) // 3])
    rnd.shuffle(shuffled_arcs)
    assert analyze(shuffled_names, edges(shuffled_arcs)) == expected


ids = st.text(min_size=0, max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(ids, min_size=1, max_size=8, unique=True), st.data())
def test_arbitrary_string_ids(names, data):
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)), max_size=20))
    result = analyze(names, edges(pairs))
    expected = reference_topology(sorted(names), set(pairs))
    assert [(s["nodes"], s["kappa"]) for s in result["sccs"]] == expected
    assert sorted(result["dag_nodes"] + [v for s in result["sccs"] for v in s["nodes"]]) == sorted(names)


def test_unicode_quotes_and_spaces():
    names = ['a "quoted" node', "naïve café", "with space", "<script>alert(1)</script>", "κ"]
    pairs = [(names[i], names[(i + 1) % len(names)]) for i in range(len(names))]
    result = analyze(names, edges(pairs))
    assert result["sccs"][0]["nodes"] == sorted(names)
    assert result["sccs"][0]["kappa"] == 1


@st.composite
def dense_digraphs(draw, max_nodes: int = 45):
    """Strongly connected digraphs of 2–45 (``max_nodes``) nodes with arc density 0.2–1 (degree
    bound territory)."""
    n = draw(st.integers(2, max_nodes))
    density = draw(st.floats(0.2, 1.0))
    rnd = draw(st.randoms(use_true_random=False))
    arcs = {(u, (u + 1) % n) for u in range(n)}  # a Hamiltonian cycle keeps it strongly connected
    arcs |= {(u, v) for u in range(n) for v in range(n) if u != v and rnd.random() < density}
    return n, sorted(arcs)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense_digraphs())
def test_the_degree_bound_changes_nothing_on_dense_digraphs(graph):
    """κ and the chosen fault line are those of the full search, and κ is networkx's."""
    n, arcs = graph
    out = [[v for u, v in arcs if u == w] for w in range(n)]
    fast = arc_strong_connectivity(out)
    full = arc_strong_connectivity(out, degree_bound=False)
    assert fast == full
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(arcs)
    assert fast[0] == nx.edge_connectivity(g)


def test_a_dense_component_of_100000_arcs_is_quick():
    """The complete digraph on 316 nodes (99,540 arcs; κ = 315) took 7.8 s: now no flow runs."""
    n = 316
    out = [[v for v in range(n) if v != u] for u in range(n)]
    calls = []
    import bendscope.kappa.mincut as mincut

    original = mincut._augment

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    mincut._augment = counting
    try:
        kappa, arcs = mincut.arc_strong_connectivity(out)
    finally:
        mincut._augment = original
    assert kappa == 315 and len(arcs) == 315
    assert len(calls) <= 2  # the fault-line preference only: no pass stages


@settings(max_examples=300, deadline=None)
@given(dense_digraphs(max_nodes=9), st.data())
def test_raising_targets_against_every_cut(graph, data):
    """The targets v for which u → v raises κ are those outside every minimum cut when u is
    inside every one: against enumerating all 2^n − 2 cuts."""
    n, arcs = graph
    out = [[v for u, v in arcs if u == w] for w in range(n)]
    kappa = arc_strong_connectivity(out)[0]
    cuts = []
    for mask in range(1, (1 << n) - 1):
        inside = {v for v in range(n) if mask >> v & 1}
        if sum(1 for u, v in arcs if u in inside and v not in inside) == kappa:
            cuts.append(inside)
    u = data.draw(st.integers(0, n - 1))
    expected = {v for v in range(n) if v != u and all(u in x and v not in x for x in cuts)}
    assert raising_targets(out, kappa, u) == expected


@settings(max_examples=200, deadline=None)
@given(strong_digraphs(max_nodes=40), st.data())
def test_raising_targets_against_recomputing_kappa(graph, data):
    """κ rises by one exactly for the targets listed (networkx-free: the engine's own κ of
    the digraph with the arc, which the other tests prove against the oracles)."""
    n, arcs = graph
    out = [[v for u, v in arcs if u == w] for w in range(n)]
    kappa = arc_strong_connectivity(out)[0]
    u = data.draw(st.integers(0, n - 1))
    rising = raising_targets(out, kappa, u)
    budget = data.draw(st.integers(0, 400))
    bounded = raising_targets(out, kappa, u, work_budget=budget)
    assert bounded is None or bounded == rising
    for v in range(n):
        if v == u or v in out[u]:
            continue
        more = [sorted([*succ, v]) if w == u else succ for w, succ in enumerate(out)]
        assert arc_strong_connectivity(more)[0] == kappa + (v in rising)


@st.composite
def joined_blocks(draw):
    """Two dense blocks (3–8 nodes each) joined by 1–3 arcs each way: minimum cuts that are
    whole blocks, on either side of any node (what single-node degrees do not reveal)."""
    rnd = draw(st.randoms(use_true_random=False))
    sizes = [draw(st.integers(3, 8)), draw(st.integers(3, 8))]
    density = draw(st.floats(0.4, 1.0))
    n = sum(sizes)
    blocks = [list(range(sizes[0])), list(range(sizes[0], n))]
    arcs: set[tuple[int, int]] = set()
    for block in blocks:
        arcs |= {(block[i], block[(i + 1) % len(block)]) for i in range(len(block))}
        arcs |= {(a, b) for a in block for b in block if a != b and rnd.random() < density}
    for a, b in ((0, 1), (1, 0)):
        for _ in range(draw(st.integers(1, 3))):
            arcs.add((rnd.choice(blocks[a]), rnd.choice(blocks[b])))
    return n, sorted(arcs)


@settings(max_examples=150, deadline=None)
@given(joined_blocks(), st.data())
def test_raising_targets_with_a_minimum_cut_on_either_side(graph, data):
    n, arcs = graph
    out = [[v for u, v in arcs if u == w] for w in range(n)]
    kappa = arc_strong_connectivity(out)[0]
    u = data.draw(st.integers(0, n - 1))
    rising = raising_targets(out, kappa, u)
    for v in range(n):
        if v != u and v not in out[u]:
            more = [sorted([*succ, v]) if w == u else succ for w, succ in enumerate(out)]
            assert arc_strong_connectivity(more)[0] == kappa + (v in rising), (u, v)


def test_a_minimum_cut_without_the_source_stops_every_rise():
    """Two complete quartets joined by 3 → 4 and 7 → 0: {4..7} is a minimum cut without node 1,
    so no arc from 1 raises κ — though {0..3} is the only minimum cut holding 1."""
    quartet = [(a, b) for a in range(4) for b in range(4) if a != b]
    arcs = sorted([*quartet, *((a + 4, b + 4) for a, b in quartet), (3, 4), (7, 0)])
    out = [[v for u, v in arcs if u == w] for w in range(8)]
    assert raising_targets(out, 1, 1) == frozenset()
    assert raising_targets(out, 1, 3) == frozenset()


def test_no_flow_at_all_when_no_cut_can_beat_the_minimum_degree(monkeypatch):
    """δ ≥ n/2 (n < 2δ + 2): κ = δ by counting, so the search passes run no stage (400 nodes,
    ≈ 100,000 arcs, κ = δ = 224 in the benchmark's graph)."""
    import bendscope.kappa.mincut as mincut

    rng = random.Random(5)
    n = 120
    arcs = {(u, (u + 1) % n) for u in range(n)} | {
        (u, v) for u in range(n) for v in range(n) if u != v and rng.random() < 0.7
    }
    out = [sorted(v for u, v in arcs if u == w) for w in range(n)]
    delta = min(min(len(o) for o in out), min(sum(1 for u, v in arcs if v == w) for w in range(n)))
    assert n < 2 * delta + 2
    stages: list[int] = []
    original = mincut._pass
    monkeypatch.setattr(mincut, "_pass", lambda *a: stages.append(1) or original(*a))
    assert mincut.arc_strong_connectivity(out)[0] == delta
    assert stages == []
