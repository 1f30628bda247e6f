"""Bad input raises TypeError / ValueError with a message naming the problem."""

from __future__ import annotations

import pytest

from bendscope.kappa import analyze, deliberation_budget, preview_edge_impact, preview_edge_removal


@pytest.mark.parametrize(
    ("nodes", "edges", "error", "match"),
    [
        ([1, 2], [], TypeError, r"nodes\[0\] is int"),
        (["a", None], [], TypeError, r"nodes\[1\]"),
        ("abc", [], TypeError, "iterable of node-id strings"),
        ({"a": 1}, [], TypeError, "iterable of node-id strings"),
        (None, [], TypeError, "nodes must be"),
        (["a"], None, TypeError, "edges must be"),
        (["a"], {"source": "a", "target": "a"}, TypeError, "edges must be"),
        (["a"], ["a->b"], TypeError, r"edges\[0\] must be a mapping"),
        (["a"], [{"target": "a"}], ValueError, r"edges\[0\] has no 'source'"),
        (["a"], [{"source": "a"}], ValueError, r"edges\[0\] has no 'target'"),
        (["a"], [{"source": 1, "target": "a"}], TypeError, r"edges\[0\]\['source'\]"),
        (["a"], [{"source": "a", "target": "a", "kind": 3}], TypeError, r"\['kind'\]"),
    ],
)
def test_bad_input(nodes, edges, error, match):
    with pytest.raises(error, match=match):
        analyze(nodes, edges)


@pytest.mark.parametrize(("limit", "error"), [(-1, ValueError), ("20", TypeError), (2.5, TypeError), (True, TypeError)])
def test_bad_exact_limit(limit, error):
    with pytest.raises(error, match="exact_limit"):
        analyze([], [], exact_limit=limit)


def test_kind_none_is_a_plain_edge():
    assert (
        analyze(["a", "b"], [{"source": "a", "target": "b", "kind": None}, {"source": "b", "target": "a"}])["max_kappa"]
        == 1
    )


def test_budget_rejects_bad_kappa():
    with pytest.raises(TypeError):
        deliberation_budget(1.5)
    with pytest.raises(ValueError):
        deliberation_budget(-1)


def test_preview_rejects_unknown_nodes():
    with pytest.raises(ValueError, match="'zz' is not in the node universe"):
        preview_edge_impact(["a"], [], "a", "zz")
    with pytest.raises(TypeError, match="source must be"):
        preview_edge_removal(["a"], [], 3, "a")
