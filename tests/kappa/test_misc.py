"""Instrumentation, recommendation text, the per-SCC cache, purity of the package."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest
from kappa_helpers import BUSINESS, edges_of, k22, nodes_of, quartets

from bendscope.kappa import KappaCache, analyze, recommendation

FIELDS = ("duration_ms", "node_count", "edge_count", "self_loops_filtered", "scc_count", "max_kappa", "routing")


def test_debug_record_carries_structured_fields(caplog):
    with caplog.at_level(logging.DEBUG, logger="bendscope.kappa"):
        analyze(["a", "b", "c"], edges_of([("a", "b"), ("b", "a"), ("c", "c")]))
    (record,) = [r for r in caplog.records if r.name == "bendscope.kappa"]
    assert record.levelno == logging.DEBUG
    values = {f: getattr(record, f) for f in FIELDS}
    assert values["node_count"] == 3 and values["edge_count"] == 3 and values["self_loops_filtered"] == 1
    assert values["scc_count"] == 1 and values["max_kappa"] == 1 and values["routing"] == "deliberate"
    assert isinstance(values["duration_ms"], float) and values["duration_ms"] >= 0


def test_no_record_when_debug_is_off(caplog):
    with caplog.at_level(logging.INFO, logger="bendscope.kappa"):
        analyze(["a"], [])
    assert not [r for r in caplog.records if r.name == "bendscope.kappa"]


def test_recommendation_business_sentence():
    result = analyze(nodes_of(BUSINESS), edges_of(BUSINESS))
    text = recommendation(result)
    fault = result["sccs"][0]["fault_line_edges"][0]
    assert text == (
        "This knowledge region contains 1 strongly connected component with κ=1: removing 1 edge splits it, "
        "and no fewer would. The concepts "
        "[customer-retention, market-share, product-quality, r-and-d, revenue] are mutually dependent. "
        "Deliberate on the fault line before answering (the edges of the weakest cut: removing them splits the "
        f"component but need not break every loop in it): {fault['source']}→{fault['target']}."
    )


def test_recommendation_several_and_approximate():
    pairs = [*k22(), ("x", "y"), ("y", "x")]
    text = recommendation(analyze(nodes_of(pairs), edges_of(pairs)))
    assert text.startswith("This knowledge region contains 2 strongly connected components with max κ=2 ")
    assert "Deliberate on the fault lines before answering (" in text
    assert "(κ: the fewest edges whose removal splits a component)" in text
    assert "each component's weakest cut: removing them splits the component but need not break every loop" in text
    # two complete quartets joined by one arc each way: κ = 1, but no cut search (exact_limit) leaves [1, 3]
    pairs = quartets()
    approx = recommendation(analyze(nodes_of(pairs), edges_of(pairs), exact_limit=3))
    assert "with κ≤3: removing 3 edges splits it, and no fewer than 1 would" in approx
    assert "the smallest cut found" in approx and "weakest cut" not in approx
    both = [*pairs, ("x", "y"), ("y", "x")]
    text = recommendation(analyze(nodes_of(both), edges_of(both), exact_limit=7))
    assert "max κ≤3" in text and "Not exact for scc-0 between 1 and 3" in text
    assert "(the smallest found where κ is not exact)" in text


def test_recommendation_says_no_cut_breaks_every_loop():
    """Births ⇄ Population ⇄ Deaths: κ = 1 (one arc splits it) but every loop breaks only after 2."""
    pairs = [("births", "population"), ("population", "births"), ("population", "deaths"), ("deaths", "population")]
    result = analyze(nodes_of(pairs), edges_of(pairs), feedback_arc_set=True)
    (scc,) = result["sccs"]
    assert scc["kappa"] == 1 and scc["feedback_arc_set"]["size"] == 2
    text = recommendation(result)
    assert "removing 1 edge splits it" in text and "need not break every loop" in text


def test_cache_skips_unchanged_sccs_and_gives_identical_results():
    pairs = [*k22(), ("x", "y"), ("y", "x")]
    cache = KappaCache()
    first = analyze(nodes_of(pairs), edges_of(pairs), cache=cache)
    assert (cache.hits, cache.misses) == (0, 2)
    second = analyze(nodes_of(pairs, ["z"]), edges_of([*pairs, ("y", "z")]), cache=cache)
    assert (cache.hits, cache.misses) == (2, 2)
    assert second["sccs"] == first["sccs"]
    third = analyze(nodes_of(pairs), edges_of([*pairs, ("a1", "a2")]), cache=cache)
    assert (cache.hits, cache.misses) == (3, 3)
    assert third == analyze(nodes_of(pairs), edges_of([*pairs, ("a1", "a2")]))


def test_cache_refuses_a_useless_size():
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="max_entries"):
            KappaCache(bad)


def test_cache_hands_out_copies():
    """A caller changing a result must not change what later calls return."""
    cache = KappaCache()
    pairs = k22()
    first = analyze(nodes_of(pairs), edges_of(pairs), cache=cache)
    expected = [dict(f) for f in first["sccs"][0]["fault_line_edges"]]
    first["sccs"][0]["fault_line_edges"].append({"source": "evil", "target": "evil"})
    first["sccs"][0]["fault_line_edges"][0]["source"] = "changed"
    second = analyze(nodes_of(pairs), edges_of(pairs), cache=cache)
    assert cache.hits == 1
    assert second["sccs"][0]["fault_line_edges"] == expected


def test_cache_drops_the_least_recently_used():
    cache = KappaCache(2)
    rings = [[(f"{p}{i}", f"{p}{(i + 1) % 3}") for i in range(3)] for p in "abc"]
    for ring in rings[:2]:
        analyze(nodes_of(ring), edges_of(ring), cache=cache)
    analyze(nodes_of(rings[0]), edges_of(rings[0]), cache=cache)  # a is used again
    analyze(nodes_of(rings[2]), edges_of(rings[2]), cache=cache)  # evicts b, not a
    hits = cache.hits
    analyze(nodes_of(rings[0]), edges_of(rings[0]), cache=cache)
    assert cache.hits == hits + 1 and len(cache) == 2


def test_cache_grows_to_the_number_of_loops():
    """274 SCCs with the old fixed 256 entries gave 0 hits in 2,192 lookups (oldest-first eviction)."""
    rings = [(f"r{k}-{i}", f"r{k}-{(i + 1) % 3}") for k in range(274) for i in range(3)]
    cache = KappaCache()
    analyze(nodes_of(rings), edges_of(rings), cache=cache)
    extra = [*rings, ("r0-0", "lonely")]  # one edit elsewhere
    analyze(nodes_of(extra), edges_of(extra), cache=cache)
    assert cache.hits == 274 and cache.max_entries >= 548


def test_engine_is_pure_standard_library():
    allowed = {"__future__", "argparse", "bisect", "collections", "dataclasses", "heapq", "json", "logging", "os"}
    allowed |= {"sys", "time", "typing"}
    for path in (Path(__file__).resolve().parents[2] / "py" / "bendscope" / "kappa").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
