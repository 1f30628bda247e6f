"""Input validation and the compact directed graph the algorithms run on.

The node universe is sorted (Python string order) and numbered 0..n-1, so every
later step that iterates in index order is independent of the caller's order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .steps import Meter, Steps, finish

__all__ = [
    "DIRECTED_KINDS",
    "Digraph",
    "build_digraph",
    "build_digraph_steps",
    "digraph_of_arcs",
    "predecessors",
    "reaching",
]

#: Edge kinds that take part in κ. A hard rule of the spec (§4.3): no toggle.
DIRECTED_KINDS: frozenset[str] = frozenset({"causal", "temporal"})


@dataclass(frozen=True, slots=True)
class Digraph:
    """A simple digraph on nodes 0..n-1 (no self-loops, no parallel arcs).

    ``ids[i]`` is the id of node i (sorted); ``out[i]`` its sorted successors.
    """

    ids: list[str]
    index: dict[str, int]
    out: list[list[int]]
    edge_count: int
    self_loops_filtered: int

    @property
    def arc_count(self) -> int:
        """Number of distinct arcs."""
        return sum(len(s) for s in self.out)


def _check_nodes(nodes: Iterable[str]) -> list[str]:
    if isinstance(nodes, (str, bytes, Mapping)) or not isinstance(nodes, Iterable):
        raise TypeError(f"nodes must be an iterable of node-id strings, got {type(nodes).__name__}")
    ids = list(nodes)
    for i, node in enumerate(ids):
        if not isinstance(node, str):
            raise TypeError(f"node ids must be strings: nodes[{i}] is {type(node).__name__} {node!r}")
    return sorted(set(ids))


def _endpoint(edge: Mapping[str, Any], key: str, i: int) -> str:
    try:
        value = edge[key]
    except KeyError:
        raise ValueError(f"edges[{i}] has no {key!r} key") from None
    if not isinstance(value, str):
        raise TypeError(f"edges[{i}][{key!r}] must be a node-id string, got {type(value).__name__}")
    return value


def build_digraph(nodes: Iterable[str], edges: Iterable[Mapping[str, Any]]) -> Digraph:
    """Validate ``nodes`` / ``edges`` and build the κ digraph.

    Rules: edges whose endpoint is outside the node universe are ignored; an edge
    with a ``kind`` takes part only if the kind is in DIRECTED_KINDS; self-loops are
    ignored (and counted); parallel edges collapse to one arc.
    Raises TypeError / ValueError naming the first bad item. O(n log n + m log m).

    >>> build_digraph(["b", "a"], [{"source": "a", "target": "b"}, {"source": "b", "target": "b"}]).out
    [[1], []]
    """
    return finish(build_digraph_steps(nodes, edges, Meter()))


def build_digraph_steps(
    nodes: Iterable[str], edges: Iterable[Mapping[str, Any]], meter: Meter, *, trusted: bool = False
) -> Steps[Digraph]:
    """:func:`build_digraph` in steps (see ``kappa.steps``); a unit of work is an edge.

    ``trusted``: the caller guarantees unique string node ids and edges that are dicts with
    string ``source``/``target`` and a string or missing ``kind`` (an editor's own data), so
    nothing is checked. Wrong input then gives wrong answers or a bare error.
    """
    ids = sorted(nodes) if trusted else _check_nodes(nodes)
    index = {node: i for i, node in enumerate(ids)}
    if not trusted and (isinstance(edges, (str, bytes, Mapping)) or not isinstance(edges, Iterable)):
        raise TypeError(f"edges must be an iterable of mappings, got {type(edges).__name__}")
    succ: list[set[int]] = [set() for _ in ids]
    edge_count = 0
    loops = 0
    for i, edge in enumerate(edges):
        if i and not i & 1023 and meter.spend(1024):
            yield
        if trusted:
            edge_count += 1
            kind = edge.get("kind")
            if kind is not None and kind not in DIRECTED_KINDS:
                continue
            u = index.get(edge["source"])
            v = index.get(edge["target"])
            if u is None or v is None:
                continue
            if u == v:
                loops += 1
            else:
                succ[u].add(v)
            continue
        if not isinstance(edge, Mapping):
            raise TypeError(f"edges[{i}] must be a mapping with 'source' and 'target', got {type(edge).__name__}")
        edge_count += 1
        source = _endpoint(edge, "source", i)
        target = _endpoint(edge, "target", i)
        kind = edge.get("kind")
        if kind is not None and not isinstance(kind, str):
            raise TypeError(f"edges[{i}]['kind'] must be a string, got {type(kind).__name__}")
        if kind is not None and kind not in DIRECTED_KINDS:  # None: a plain directed edge
            continue
        u = index.get(source)
        v = index.get(target)
        if u is None or v is None:
            continue
        if u == v:
            loops += 1
            continue
        succ[u].add(v)
    out: list[list[int]] = []
    pending = 0
    for s in succ:
        out.append(sorted(s))
        pending += len(s) + 1
        if pending > 1024:
            if meter.spend(pending):
                yield
            pending = 0
    return Digraph(ids, index, out, edge_count, loops)


def digraph_of_arcs(nodes: Iterable[str], arcs: Iterable[tuple[str, str]]) -> Digraph:
    """The κ digraph of trusted input: unique string ids and (source, target) pairs of
    directed arcs (a store's own data); arcs leaving the universe and self-loops are left
    out, parallel arcs collapse. The same graph as ``build_digraph`` of those arcs, without
    its checks. O(n log n + m log m).

    >>> digraph_of_arcs(["b", "a"], [("a", "b"), ("b", "b"), ("a", "b"), ("a", "z")]).out
    [[1], []]
    """
    ids = sorted(nodes)
    index = {node: i for i, node in enumerate(ids)}
    succ: list[set[int]] = [set() for _ in ids]
    count = loops = 0
    for source, target in arcs:
        count += 1
        u, v = index.get(source), index.get(target)
        if u is None or v is None:
            continue
        if u == v:
            loops += 1
        else:
            succ[u].add(v)
    return Digraph(ids, index, [sorted(s) for s in succ], count, loops)


def predecessors(graph: Digraph) -> list[list[int]]:
    """Each node's predecessors (ascending): the arcs of ``graph`` turned around. O(n + m).

    >>> predecessors(digraph_of_arcs(["a", "b", "c"], [("a", "c"), ("b", "c"), ("c", "a")]))
    [[2], [], [0, 1]]
    """
    pred: list[list[int]] = [[] for _ in graph.out]
    for a, succ in enumerate(graph.out):
        for b in succ:
            pred[b].append(a)
    return pred


def reaching(pred: list[list[int]], u: int) -> bytearray:
    """Which nodes reach ``u`` along arcs (``u`` itself included), as flags by node index,
    from ``pred`` (:func:`predecessors`). O(what reaches u and its arcs).

    >>> list(reaching(predecessors(digraph_of_arcs(["a", "b", "c"], [("a", "b"), ("c", "a")])), 1))
    [1, 1, 1]
    """
    seen = bytearray(len(pred))
    seen[u] = 1
    stack = [u]
    while stack:
        for a in pred[stack.pop()]:
            if not seen[a]:
                seen[a] = 1
                stack.append(a)
    return seen
