"""The κ router (integration spec §3.1): what an agent answers in one pass and what it
must deliberate on.

The region is read in the order of its condensation (each strongly connected component
shrunk to one block): causes before effects, ties broken by the smallest id of a block, so
the order is deterministic. ``reading_order`` lists the whole region so, one block after
another: a DAG node (``{"block": "fact", "node": id}``) or a loop (``{"block": "loop",
"task": k, ...}`` with its members, κ and budget) — an agent reads it once, top to bottom,
answering the facts as it goes and deliberating on each loop where it stands.
``retrieval_context`` holds the DAG nodes in that order; ``deliberation_tasks`` one task per
loop with its κ, fault lines, deliberation budget and ``position`` in ``reading_order``.

>>> from bendscope.kappa import analyze
>>> edges = [{"source": "a", "target": "b", "kind": "causal"}, {"source": "c", "target": "a", "kind": "causal"},
...          {"source": "x", "target": "y", "kind": "causal"}, {"source": "y", "target": "x", "kind": "causal"},
...          {"source": "b", "target": "x", "kind": "causal"}, {"source": "y", "target": "z", "kind": "causal"}]
>>> plan = kappa_route(analyze(["a", "b", "c", "x", "y", "z"], edges), [(e["source"], e["target"]) for e in edges])
>>> plan["retrieval_context"], plan["routing"], plan["deliberation_tasks"][0]["nodes"]
(['c', 'a', 'b', 'z'], 'deliberate', ['x', 'y'])
>>> [b.get("node", b.get("nodes")) for b in plan["reading_order"]]
['c', 'a', 'b', ['x', 'y'], 'z']
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


def condensation_order(topology: Mapping[str, Any], arcs: Iterable[tuple[str, str]]) -> list[str | int]:
    """The blocks of the condensation in topological order: a DAG node's id, or the index
    of an SCC in ``topology["sccs"]``; among the ready blocks the one with the smallest id
    first (an SCC by its smallest member). O((n + m) log n).

    >>> condensation_order({"sccs": [{"nodes": ["b", "c"]}], "dag_nodes": ["a", "d"]},
    ...                    [("b", "c"), ("c", "b"), ("c", "a"), ("d", "b")])
    ['d', 0, 'a']
    """
    block: dict[str, str | int] = {n: n for n in topology["dag_nodes"]}
    first: dict[str | int, str] = {n: n for n in topology["dag_nodes"]}
    for k, scc in enumerate(topology["sccs"]):
        block.update(dict.fromkeys(scc["nodes"], k))
        first[k] = min(scc["nodes"])
    successors: dict[str | int, set[str | int]] = {b: set() for b in first}
    indegree = dict.fromkeys(first, 0)
    for source, target in arcs:
        a, b = block.get(source), block.get(target)
        if a is not None and b is not None and a != b and b not in successors[a]:
            successors[a].add(b)
            indegree[b] += 1
    ready = [(first[b], b) for b in first if indegree[b] == 0]
    heapq.heapify(ready)
    order: list[str | int] = []
    while ready:
        _, b = heapq.heappop(ready)
        order.append(b)
        for nxt in successors[b]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, (first[nxt], nxt))
    if len(order) != len(first):
        raise ValueError("the topology's DAG nodes and SCCs do not form a condensation of these arcs")
    return order


def kappa_route(
    topology: Mapping[str, Any], arcs: Iterable[tuple[str, str]], names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The routing plan for a canonical ``topology`` and the directed (causal/temporal)
    ``arcs`` of its graph. The condensation of a graph is acyclic, so the order always
    exists. ``names``: a short form of each node's content, by id, given in each task
    beside its members' ids."""
    order = condensation_order(topology, arcs)
    position = {b: i for i, b in enumerate(order)}
    tasks = [
        {
            "nodes": list(scc["nodes"]),
            "names": {n: names[n] for n in scc["nodes"] if n in names} if names else {},
            "kappa": scc["kappa"],
            "approximate": scc["approximate"],
            "fault_lines": [dict(f) for f in scc["fault_line_edges"]],
            "budget": dict(scc["deliberation_budget"]),
            "scc_id": scc["id"],
            "position": position[k],
        }
        for k, scc in enumerate(topology["sccs"])
    ]
    reading: list[dict[str, Any]] = []
    for b in order:
        if isinstance(b, int):
            task = tasks[b]
            reading.append(
                {"block": "loop", "task": b, "nodes": task["nodes"], "kappa": task["kappa"], "budget": task["budget"]}
            )
        else:
            reading.append({"block": "fact", "node": b})
    return {
        "retrieval_context": [b for b in order if isinstance(b, str)],
        "deliberation_tasks": tasks,
        "reading_order": reading,
        "routing": "fast" if not tasks else "deliberate",
    }
