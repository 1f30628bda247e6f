"""Large inputs: iterative Tarjan, the exact limit default, big SCCs."""

from __future__ import annotations

from graphs import two_dense_halves

from bendscope.kappa import DEFAULT_EXACT_LIMIT, analyze


def test_chain_of_100k_nodes():
    n = 100_000
    names = [f"n{i}" for i in range(n)]
    result = analyze(names, [{"source": names[i], "target": names[i + 1]} for i in range(n - 1)])
    assert result["scc_count"] == 0 and len(result["dag_nodes"]) == n


def test_cycle_of_100k_nodes():
    n = 100_000
    names = [f"n{i}" for i in range(n)]
    edges = [{"source": names[i], "target": names[(i + 1) % n]} for i in range(n)]
    result = analyze(names, edges, exact_limit=n)
    (scc,) = result["sccs"]
    assert len(scc["nodes"]) == n and scc["kappa"] == 1 and scc["approximate"] is False


def test_default_limit_is_at_least_1000():
    assert DEFAULT_EXACT_LIMIT >= 1000


def test_thousand_node_hard_case_is_exact():
    arcs = two_dense_halves(1000, degree=4, bridges=3, seed=5)
    names = [f"n{i:04d}" for i in range(1000)]
    result = analyze(names, [{"source": names[u], "target": names[v]} for u, v in arcs])
    (scc,) = result["sccs"]
    assert scc["kappa"] == 3 and scc["approximate"] is False
    assert len(scc["fault_line_edges"]) == 3
