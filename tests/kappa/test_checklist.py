"""The spec's test checklist for the κ engine, item by item."""

from __future__ import annotations

import json

from kappa_helpers import BUSINESS, edges_of, k22, nodes_of, quartets

from bendscope.kappa import analyze, deliberation_budget, preview_edge_impact

TOP_KEYS = {"sccs", "dag_nodes", "routing", "max_kappa", "scc_count"}
SCC_KEYS = {"id", "nodes", "kappa", "approximate", "fault_line_edges", "routing", "deliberation_budget"}
BUDGET_KEYS = {"max_iterations", "agent_count", "timeout_multiplier", "confidence_threshold"}


def test_empty_graph():
    assert analyze([], []) == {"sccs": [], "dag_nodes": [], "routing": "fast", "max_kappa": 0, "scc_count": 0}


def test_linear_chain_is_all_dag():
    pairs = [("a", "b"), ("b", "c")]
    result = analyze(nodes_of(pairs), edges_of(pairs))
    assert result["sccs"] == []
    assert result["dag_nodes"] == ["a", "b", "c"]
    assert (result["routing"], result["max_kappa"], result["scc_count"]) == ("fast", 0, 0)


def test_simple_cycle_kappa_one():
    pairs = [("a", "b"), ("b", "c"), ("c", "a")]
    result = analyze(nodes_of(pairs), edges_of(pairs))
    (scc,) = result["sccs"]
    assert scc["nodes"] == ["a", "b", "c"]
    assert scc["kappa"] == 1 and scc["approximate"] is False
    assert scc["routing"] == "deliberate" and result["routing"] == "deliberate"
    assert len(scc["fault_line_edges"]) == 1


def test_two_independent_cycles():
    pairs = [("a", "b"), ("b", "a"), ("x", "y"), ("y", "z"), ("z", "x")]
    result = analyze(nodes_of(pairs), edges_of(pairs))
    assert [s["nodes"] for s in result["sccs"]] == [["a", "b"], ["x", "y", "z"]]
    assert [s["id"] for s in result["sccs"]] == ["scc-0", "scc-1"]
    assert all(s["kappa"] == 1 for s in result["sccs"])
    assert result["scc_count"] == 2


def test_mixed_dag_and_scc_lists_dag_nodes():
    pairs = [("root", "a"), ("a", "b"), ("b", "a"), ("b", "leaf")]
    result = analyze(nodes_of(pairs, extra=["alone"]), edges_of(pairs))
    assert result["dag_nodes"] == ["alone", "leaf", "root"]
    assert result["sccs"][0]["nodes"] == ["a", "b"]
    assert result["routing"] == "deliberate"


def test_business_example_kappa_one():
    extra = ["company", "founded-2020", "hq-austin", "ceo-alice"]
    edges = [
        *edges_of(BUSINESS),
        {"source": "company", "target": "founded-2020", "kind": "temporal"},
        {"source": "company", "target": "hq-austin", "kind": "associative"},
        {"source": "company", "target": "market-share", "kind": "associative"},
    ]
    result = analyze(nodes_of(BUSINESS, extra), edges)
    (scc,) = result["sccs"]
    assert scc["nodes"] == sorted(["market-share", "revenue", "r-and-d", "product-quality", "customer-retention"])
    assert scc["kappa"] == 1
    assert scc["deliberation_budget"] == {
        "max_iterations": 2,
        "agent_count": 1,
        "timeout_multiplier": 1.5,
        "confidence_threshold": 0.75,
    }
    assert result["dag_nodes"] == sorted(extra)


def test_single_node():
    assert analyze(["solo"], [])["dag_nodes"] == ["solo"]
    assert analyze(["solo"], [])["max_kappa"] == 0


def test_self_loop_only_is_fast():
    result = analyze(["a"], edges_of([("a", "a")]))
    assert result["sccs"] == [] and result["max_kappa"] == 0 and result["routing"] == "fast"


def test_k22_both_directions_kappa_two():
    result = analyze(nodes_of(k22()), edges_of(k22()))
    (scc,) = result["sccs"]
    assert scc["kappa"] == 2
    assert len(scc["fault_line_edges"]) == 2
    assert scc["deliberation_budget"]["max_iterations"] == 3


def test_scc_over_limit_gets_bounds_never_its_size():
    """Past ``exact_limit`` no cut search runs: κ is the best single-node cut (a real cut, an
    upper bound) with ``kappa_range`` [1, it]; the old fallback said κ = 8 (the size)."""
    pairs = quartets()
    result = analyze(nodes_of(pairs), edges_of(pairs), exact_limit=7)
    (scc,) = result["sccs"]
    assert scc["approximate"] is True and scc["kappa"] == 3 and scc["kappa_range"] == [1, 3]
    assert list(scc) == ["id", "nodes", "kappa", "approximate", "kappa_range", "fault_line_edges", "routing",
                         "deliberation_budget"]  # fmt: skip
    assert len(scc["fault_line_edges"]) == 3
    assert scc["deliberation_budget"] == deliberation_budget(3)
    assert result["max_kappa"] == 3
    exact = analyze(nodes_of(pairs), edges_of(pairs))["sccs"][0]
    assert exact["approximate"] is False and exact["kappa"] == 1 and "kappa_range" not in exact


def test_scc_over_limit_is_exact_when_the_bounds_meet():
    """A ring past the limit: its minimum degree is 1, so κ = 1 exactly without a search."""
    ring = [(f"n{i:02d}", f"n{(i + 1) % 25:02d}") for i in range(25)]
    (scc,) = analyze(nodes_of(ring), edges_of(ring), exact_limit=20)["sccs"]
    assert scc["approximate"] is False and scc["kappa"] == 1 and len(scc["fault_line_edges"]) == 1


def test_at_the_limit_is_exact():
    ring = [(f"n{i:02d}", f"n{(i + 1) % 20:02d}") for i in range(20)]
    assert analyze(nodes_of(ring), edges_of(ring), exact_limit=20)["sccs"][0]["approximate"] is False


def test_canonical_field_names_and_json_types():
    result = analyze(nodes_of(k22(), ["x"]), edges_of(k22()))
    assert set(result) == TOP_KEYS
    for scc in result["sccs"]:
        assert set(scc) == SCC_KEYS
        assert set(scc["deliberation_budget"]) == BUDGET_KEYS
        assert type(scc["kappa"]) is int and type(scc["approximate"]) is bool
        for edge in scc["fault_line_edges"]:
            assert set(edge) == {"source", "target"}
    assert json.loads(json.dumps(result)) == result
    assert type(result["max_kappa"]) is int and type(result["scc_count"]) is int


def test_only_causal_and_temporal_take_part():
    pairs = [("a", "b"), ("b", "a")]
    for kind in ("context", "associative", "user", "Causal", ""):
        assert analyze(["a", "b"], edges_of(pairs, kind))["scc_count"] == 0, kind
    for kind in ("causal", "temporal", None):
        assert analyze(["a", "b"], edges_of(pairs, kind))["scc_count"] == 1, kind
    mixed = [{"source": "a", "target": "b", "kind": "causal"}, {"source": "b", "target": "a", "kind": "temporal"}]
    assert analyze(["a", "b"], mixed)["max_kappa"] == 1


def test_edges_outside_universe_ignored():
    pairs = [("a", "b"), ("b", "a"), ("b", "ghost"), ("ghost", "a")]
    result = analyze(["a", "b"], edges_of(pairs))
    assert result["sccs"][0]["nodes"] == ["a", "b"]
    assert analyze(["a"], edges_of(pairs))["sccs"] == []


def test_parallel_edges_collapse():
    pairs = [("a", "b"), ("a", "b"), ("b", "a")]
    assert analyze(["a", "b"], edges_of(pairs))["sccs"][0]["kappa"] == 1


def test_preview_detects_new_scc():
    pairs = [("a", "b"), ("b", "c")]
    preview = preview_edge_impact(nodes_of(pairs), edges_of(pairs), "c", "a")
    assert preview["creates_new_scc"] is True
    assert (preview["kappa_before"], preview["kappa_after"], preview["kappa_delta"]) == (0, 1, 1)
    assert preview["description"] == "creates feedback loop"


def test_budget_caps_and_rounding():
    assert deliberation_budget(0) == {
        "max_iterations": 1,
        "agent_count": 0,
        "timeout_multiplier": 1.0,
        "confidence_threshold": 0.7,
    }
    assert deliberation_budget(2) == {
        "max_iterations": 3,
        "agent_count": 2,
        "timeout_multiplier": 2.0,
        "confidence_threshold": 0.8,
    }
    assert deliberation_budget(3)["confidence_threshold"] == 0.85
    assert deliberation_budget(1000) == {
        "max_iterations": 4,
        "agent_count": 3,
        "timeout_multiplier": 3.5,
        "confidence_threshold": 0.95,
    }


def test_business_fault_line_is_documented_choice_and_breaks_every_cycle():
    result = analyze(nodes_of(BUSINESS), edges_of(BUSINESS))
    assert result["sccs"][0]["fault_line_edges"] == [{"source": "product-quality", "target": "market-share"}]
    rest = [pair for pair in BUSINESS if pair != ("product-quality", "market-share")]
    assert analyze(nodes_of(BUSINESS), edges_of(rest))["scc_count"] == 0
