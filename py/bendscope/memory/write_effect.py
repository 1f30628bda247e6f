"""The topological effect of one write: κ before → after on the loops it touches.

``store_edge``, ``delete_edge`` and ``delete_node`` answer with what they did to the
feedback loops (strongly connected components with κ > 0) around the nodes they touch,
worded as the editor's previews are (``bendscope.kappa.preview``): "creates feedback loop",
"enlarges loop", "merges feedback loops", "strengthens loop", "weakens loop", "shrinks loop",
"splits loop", "breaks feedback loop" or "no topological change".

How: the loops around the nodes T a write touches are found in the store itself, not by a
whole-store analysis. The SCC of t is the set of nodes t reaches that also reach t, so a
forward and a backward search from each t along causal and temporal edges (one
``edges_touching`` query per level, all searches together) gives it (:func:`own_sccs`). With
R0 those SCCs before the write and R1 after it, R = R0 ∪ R1 is a union of whole SCCs both
before and after (a new cycle runs through the written edge, so through T; a loop the write
does not touch keeps all its arcs), so analysing the edges among R as they were and as they
are (:func:`loops_of`) gives exactly the loops the write changed, κ included — the same as two
analyses of the whole store, restricted to those loops (a property test checks it). Cost:
O(nodes and edges reachable from or reaching T) — the component the write touches, never the
rest of the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bendscope.kappa import DEFAULT_EXACT_LIMIT
from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph

from .records import MemoryEdge
from .store import Store

#: the most node ids listed per SCC in an answer (the count is always given)
LISTED = 100


def loops_of(
    nodes: Iterable[str], edges: Iterable[MemoryEdge], exact_limit: int = DEFAULT_EXACT_LIMIT
) -> list[dict[str, Any]]:
    """The nontrivial SCCs of ``nodes`` with the causal and temporal ones of ``edges`` among
    them, each ``{"nodes": sorted ids, "kappa": κ, "approximate": bool}``, by first node."""
    region = sorted(set(nodes))
    if not region:
        return []
    arcs = [e for e in edges if e.directed]
    result = analyze_digraph(build_digraph(region, _arcs(arcs)), exact_limit=exact_limit)
    return [{"nodes": s["nodes"], "kappa": s["kappa"], "approximate": s["approximate"]} for s in result["sccs"]]


def own_sccs(store: Store, touched: Iterable[str]) -> set[str]:
    """The union of the nontrivial SCCs of the ``touched`` nodes that exist (see :func:`own_scc`)."""
    region: set[str] = set()
    for t in sorted(store.get_nodes(list(set(touched)))):
        if t not in region:
            own = own_scc(store, t)
            if len(own) > 1:
                region |= own
    return region


def own_scc(store: Store, start: str) -> set[str]:
    """The SCC of ``start`` (causal and temporal arcs): the nodes it reaches that reach it.
    The forward and the backward search run level by level side by side; when one of them
    ends, the SCC is what the other direction reaches of the finished one's nodes, so the
    cost is about twice the smaller of "what it reaches" and "what reaches it" (one
    ``arcs_from`` query per level), however large the other side is."""
    reached = {True: {start}, False: {start}}
    front = {True: {start}, False: {start}}
    while front[True] and front[False]:
        for forward in (True, False):
            ahead = set()
            for a, b in store.arcs_from(front[forward], forward):
                there = b if forward else a
                if there not in reached[forward]:
                    reached[forward].add(there)
                    ahead.add(there)
            front[forward] = ahead
    done = not front[True]  # the direction whose search ended (True: forward)
    within = reached[done]
    other = not done
    seen = {start}
    frontier = {start}
    while frontier:
        ahead = set()
        for a, b in store.arcs_from(frontier, other):
            there = b if other else a
            if there in within and there not in seen:
                seen.add(there)
                ahead.add(there)
        frontier = ahead
    return seen


def _arcs(edges: Iterable[MemoryEdge]) -> list[dict[str, str]]:
    return [{"source": e.source_id, "target": e.target_id, "kind": e.edge_type} for e in edges]


def describe(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The editor's words for the change from the loops ``before`` to those ``after`` (both
    from :func:`loops_of` on the same region, before and after a write).

    >>> loop = {"nodes": ["a", "b"], "kappa": 1, "approximate": False}
    >>> describe([], [loop]), describe([loop], []), describe([loop], [loop])
    ('creates feedback loop', 'breaks feedback loop', 'no topological change')
    >>> describe([loop, {"nodes": ["c", "d"], "kappa": 1, "approximate": False}],
    ...          [{"nodes": ["a", "b", "c", "d"], "kappa": 1, "approximate": False}])
    'merges feedback loops'
    """
    b_sets = [frozenset(s["nodes"]) for s in before]
    a_sets = [frozenset(s["nodes"]) for s in after]
    if sorted(map(sorted, b_sets)) == sorted(map(sorted, a_sets)):
        kb = sorted((sorted(s["nodes"]), s["kappa"]) for s in before)
        ka = sorted((sorted(s["nodes"]), s["kappa"]) for s in after)
        if kb == ka:
            return "no topological change"
        return "strengthens loop" if sum(k for _, k in ka) > sum(k for _, k in kb) else "weakens loop"
    if not b_sets:
        return "creates feedback loop"
    if not a_sets:
        return "breaks feedback loop"
    old = frozenset().union(*b_sets)
    new = frozenset().union(*a_sets)
    if len(a_sets) < len(b_sets) and any(sum(1 for s in b_sets if s <= n) > 1 for n in a_sets):
        return "merges feedback loops"
    if len(a_sets) > len(b_sets):
        return "splits loop"
    if new > old:
        return "enlarges loop"
    if new < old:
        return "shrinks loop"
    return "changes loops"


def effect(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``topology`` part of a write's answer: κ before → after (the largest κ among the
    touched loops, 0 without any), the description, and the loops on each side (at most
    ``LISTED`` ids each, with their count)."""

    def listed(sccs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for s in sccs:
            item: dict[str, Any] = {"kappa": s["kappa"], "approximate": s["approximate"], "node_count": len(s["nodes"])}
            item["nodes"] = s["nodes"][:LISTED]
            if len(s["nodes"]) > LISTED:
                item["nodes_omitted"] = len(s["nodes"]) - LISTED
            out.append(item)
        return out

    kappa_before = max((s["kappa"] for s in before), default=0)
    kappa_after = max((s["kappa"] for s in after), default=0)
    description = describe(before, after)
    return {
        "description": description,
        "changed": description != "no topological change",
        "kappa_before": kappa_before,
        "kappa_after": kappa_after,
        "loops_before": listed(before),
        "loops_after": listed(after),
    }
