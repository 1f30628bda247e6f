"""The κ router (integration spec §3.1): what an agent answers in one pass and what it
must deliberate on.

``retrieval_context`` holds the DAG nodes in topological order along the causal and
temporal edges (causes before effects; ties broken by id, so the order is
deterministic); ``deliberation_tasks`` holds one task per strongly connected component
with its κ, fault lines and deliberation budget.

>>> from bendscope.kappa import analyze
>>> edges = [{"source": "a", "target": "b", "kind": "causal"}, {"source": "c", "target": "a", "kind": "causal"},
...          {"source": "x", "target": "y", "kind": "causal"}, {"source": "y", "target": "x", "kind": "causal"}]
>>> plan = kappa_route(analyze(["a", "b", "c", "x", "y"], edges), [(e["source"], e["target"]) for e in edges])
>>> plan["retrieval_context"], plan["routing"], plan["deliberation_tasks"][0]["nodes"]
(['c', 'a', 'b'], 'deliberate', ['x', 'y'])
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Any


def topological_order(nodes: Iterable[str], arcs: Iterable[tuple[str, str]]) -> list[str]:
    """Kahn's algorithm on the arcs among ``nodes`` (other arcs and self-loops ignored),
    smallest id first among the ready nodes. Raises ValueError on a cycle. O((n + m) log n)."""
    members = sorted(set(nodes))
    inside = set(members)
    successors: dict[str, set[str]] = {n: set() for n in members}
    indegree = dict.fromkeys(members, 0)
    for source, target in arcs:
        if source in inside and target in inside and source != target and target not in successors[source]:
            successors[source].add(target)
            indegree[target] += 1
    ready = [n for n in members if indegree[n] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for nxt in successors[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
    if len(order) != len(members):
        raise ValueError("the arcs among these nodes form a cycle")
    return order


def kappa_route(
    topology: Mapping[str, Any], arcs: Iterable[tuple[str, str]], names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The routing plan for a canonical ``topology`` and the directed (causal/temporal)
    ``arcs`` of its graph. DAG nodes induce an acyclic subgraph by definition, so the
    order always exists. ``names``: a short form of each node's content, by id, given in
    each task beside its members' ids."""
    tasks = [
        {
            "nodes": list(scc["nodes"]),
            "names": {n: names[n] for n in scc["nodes"] if n in names} if names else {},
            "kappa": scc["kappa"],
            "approximate": scc["approximate"],
            "fault_lines": [dict(f) for f in scc["fault_line_edges"]],
            "budget": dict(scc["deliberation_budget"]),
        }
        for scc in topology["sccs"]
    ]
    return {
        "retrieval_context": topological_order(topology["dag_nodes"], arcs),
        "deliberation_tasks": tasks,
        "routing": "fast" if not tasks else "deliberate",
    }
