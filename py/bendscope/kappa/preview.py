"""What adding or removing one edge would do to the topology, without doing it.

``kappa_before`` / ``kappa_after`` are the graph's max κ (what the HUD shows);
``scc_kappa_before`` / ``scc_kappa_after`` are the κ of the SCC the edge touches
(0 where there is none). Descriptions, by case:

adding u→v
  - "no topological change": v cannot reach u (no cycle closes), the arc
    exists already, it is a self-loop, or it lies inside an SCC whose κ stays;
  - "creates feedback loop": a new SCC forms from nodes in no SCC;
  - "strengthens loop": inside one SCC, its κ rises;
  - "enlarges loop": one SCC grows by nodes that were in no SCC;
  - "merges feedback loops": two or more SCCs become one.
removing u→v
  - "no topological change": the arc is absent (or excluded by kind), links two
    different SCCs, or its SCC keeps its nodes and κ;
  - "breaks feedback loop": no nontrivial SCC remains of its SCC;
  - "splits loop" / "shrinks loop": what remains is several / one smaller SCC;
  - "weakens loop": same nodes, lower κ.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .analyze import DEFAULT_EXACT_LIMIT, KappaCache, _check_limit, analyze_digraph
from .digraph import Digraph, build_digraph
from .mincut import arc_strong_connectivity, minimum_cut_sides
from .scc import strongly_connected_components

__all__ = ["preview_edge_impact", "preview_edge_impacts", "preview_edge_removal"]


def _node(graph: Digraph, node_id: object, what: str) -> int:
    if not isinstance(node_id, str):
        raise TypeError(f"{what} must be a node-id string, got {type(node_id).__name__}")
    try:
        return graph.index[node_id]
    except KeyError:
        raise ValueError(f"{what} {node_id!r} is not in the node universe") from None


def _base(
    graph: Digraph, base: Mapping[str, Any] | None, exact_limit: int, cache: KappaCache | None
) -> tuple[list[int], list[int], int]:
    if base is None:
        base = analyze_digraph(graph, exact_limit=exact_limit, cache=cache)
    comp = [-1] * len(graph.ids)
    kappas = []
    for number, scc in enumerate(base["sccs"]):
        kappas.append(scc["kappa"])
        for node in scc["nodes"]:
            comp[graph.index[node]] = number
    return comp, kappas, base["max_kappa"]


def _kappa_of(out: list[list[int]], members: list[int], exact_limit: int) -> int:
    """κ of the strongly connected set ``members`` (sorted) of digraph ``out``."""
    if len(members) > exact_limit:
        return len(members)
    local = {v: i for i, v in enumerate(members)}
    return arc_strong_connectivity([[local[w] for w in out[v] if w in local] for v in members])[0]


def _result(
    source: str, target: str, before: int, after: int, scc_before: int, scc_after: int, **flags: Any
) -> dict[str, Any]:
    return {
        "source": source,
        "target": target,
        **flags,
        "kappa_before": before,
        "kappa_after": after,
        "kappa_delta": after - before,
        "scc_kappa_before": scc_before,
        "scc_kappa_after": scc_after,
    }


def preview_edge_impacts(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    source: str,
    targets: Iterable[str],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    base: Mapping[str, Any] | None = None,
    cache: KappaCache | None = None,
) -> dict[str, dict[str, Any]]:
    """Preview adding ``source → t`` (a directed, e.g. causal, edge) for every t.

    One backward reachability pass from ``source`` tells which targets close a
    cycle; for those only the merged SCC (nodes reachable from t that reach
    ``source``) gets a new κ. ``base`` may be the ``analyze`` result of the same
    graph, to skip the base analysis. Returns {target: impact}, see module doc.
    O(n + m) + per closing target O(n + m) plus one κ of the merged SCC.
    """
    _check_limit(exact_limit)
    graph = build_digraph(nodes, edges)
    u = _node(graph, source, "source")
    target_list = list(targets) if not isinstance(targets, str) else None
    if target_list is None:
        raise TypeError("targets must be an iterable of node-id strings, not a string")
    indices = [_node(graph, t, "target") for t in target_list]
    comp, kappas, max_kappa = _base(graph, base, exact_limit, cache)
    out = graph.out
    pred: list[list[int]] = [[] for _ in out]
    for a, succ in enumerate(out):
        for b in succ:
            pred[b].append(a)
    reaches_u = bytearray(len(out))
    reaches_u[u] = 1
    stack = [u]
    while stack:
        for a in pred[stack.pop()]:
            if not reaches_u[a]:
                reaches_u[a] = 1
                stack.append(a)

    sides: dict[int, tuple[frozenset[int], frozenset[int], dict[int, int]]] = {}  # per SCC, computed once

    def crosses_every_minimum_cut(members: list[int], kappa: int, a: int, b: int) -> bool:
        """Whether a → b (inside one SCC) crosses every minimum cut: then κ rises by 1."""
        key = comp[a]
        if key not in sides:
            local = {w: i for i, w in enumerate(members)}
            every, some = minimum_cut_sides([[local[w] for w in out[x] if w in local] for x in members], kappa)
            sides[key] = (every, some, local)
        every, some, local = sides[key]
        return local[a] in every and local[b] not in some

    results: dict[str, dict[str, Any]] = {}
    for target, v in zip(target_list, indices, strict=True):
        own = kappas[comp[u]] if comp[u] >= 0 else 0
        if v == u or not reaches_u[v]:
            results[target] = _result(
                source, target, max_kappa, max_kappa, own, own,
                creates_new_scc=False, enlarges_existing_scc=False, merged_scc_nodes=[],
                description="no topological change",
            )  # fmt: skip
            continue
        merged = {v}
        stack = [v]
        while stack:
            for b in out[stack.pop()]:
                if reaches_u[b] and b not in merged:
                    merged.add(b)
                    stack.append(b)
        members = sorted(merged)
        old = {comp[w] for w in members if comp[w] >= 0}
        scc_before = max((kappas[c] for c in old), default=0)
        same = len(old) == 1 and all(comp[w] >= 0 for w in members)
        if v in out[u]:  # the arc exists: u and v share an SCC already and nothing changes
            scc_after = scc_before
        elif same and len(members) <= exact_limit:  # inside one SCC: κ rises by 1 or not at all
            scc_after = scc_before + crosses_every_minimum_cut(members, scc_before, u, v)
        else:
            out[u].append(v)
            try:
                scc_after = _kappa_of(out, members, exact_limit)
            finally:
                out[u].pop()
        after = max([scc_after] + [k for c, k in enumerate(kappas) if c not in old])
        if not old:
            description = "creates feedback loop"
        elif len(old) > 1:
            description = "merges feedback loops"
        elif not same:
            description = "enlarges loop"
        elif scc_after > scc_before:
            description = "strengthens loop"
        else:
            description = "no topological change"
        results[target] = _result(
            source, target, max_kappa, after, scc_before, scc_after,
            creates_new_scc=not old, enlarges_existing_scc=bool(old) and not same,
            merged_scc_nodes=[graph.ids[w] for w in members], description=description,
        )  # fmt: skip
    return results


def preview_edge_impact(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    source: str,
    target: str,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    base: Mapping[str, Any] | None = None,
    cache: KappaCache | None = None,
) -> dict[str, Any]:
    """Preview adding the directed edge ``source → target``.

    Returns ``creates_new_scc``, ``enlarges_existing_scc``, ``kappa_before``,
    ``kappa_after``, ``kappa_delta``, ``description`` (and the SCC-level fields of
    the module doc). The graph itself is not changed.

    >>> p = preview_edge_impact(["a", "b"], [{"source": "a", "target": "b"}], "b", "a")
    >>> p["creates_new_scc"], p["kappa_before"], p["kappa_after"], p["description"]
    (True, 0, 1, 'creates feedback loop')
    """
    results = preview_edge_impacts(nodes, edges, source, [target], exact_limit=exact_limit, base=base, cache=cache)
    return results[target]


def preview_edge_removal(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    source: str,
    target: str,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    base: Mapping[str, Any] | None = None,
    cache: KappaCache | None = None,
) -> dict[str, Any]:
    """Preview removing the arc ``source → target`` (all parallel copies of it).

    Only the SCC holding the arc is re-analysed. Returns ``removes_arc`` (whether
    the arc takes part in κ at all), ``breaks_scc`` (its SCC stops being strongly
    connected), κ before/after, a description (module doc) and ``remaining_scc_nodes``:
    the node lists (sorted) of the loops left of the arc's SCC, largest first (its
    whole node list when the arc changes nothing, ``[]`` when no loop remains).

    >>> p = preview_edge_removal(["a", "b"], [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}], "a", "b")
    >>> p["kappa_before"], p["kappa_after"], p["description"]
    (1, 0, 'breaks feedback loop')
    """
    _check_limit(exact_limit)
    graph = build_digraph(nodes, edges)
    u = _node(graph, source, "source")
    v = _node(graph, target, "target")
    comp, kappas, max_kappa = _base(graph, base, exact_limit, cache)
    own = kappas[comp[u]] if comp[u] >= 0 else 0
    present = v in graph.out[u]
    if not present or comp[u] < 0 or comp[u] != comp[v]:
        same = sorted(graph.ids[w] for w, c in enumerate(comp) if c == comp[u]) if comp[u] >= 0 else []
        return _result(
            source, target, max_kappa, max_kappa, own, own, removes_arc=present, breaks_scc=False,
            remaining_scc_nodes=[same] if same and comp[u] == comp[v] else [], description="no topological change",
        )  # fmt: skip
    members = [i for i, c in enumerate(comp) if c == comp[u]]
    local = {w: i for i, w in enumerate(members)}
    sub = [[local[w] for w in graph.out[x] if w in local and not (x == u and w == v)] for x in members]
    parts = [p for p in strongly_connected_components(sub) if len(p) > 1]
    part_kappas = [_kappa_of(sub, part, exact_limit) for part in parts]
    scc_after = max(part_kappas, default=0)
    after = max([scc_after] + [k for c, k in enumerate(kappas) if c != comp[u]])
    if not parts:
        description = "breaks feedback loop"
    elif len(parts) > 1:
        description = "splits loop"
    elif len(parts[0]) < len(members):
        description = "shrinks loop"
    elif scc_after < own:
        description = "weakens loop"
    else:
        description = "no topological change"
    return _result(
        source, target, max_kappa, after, own, scc_after,
        removes_arc=True, breaks_scc=len(parts) != 1 or len(parts[0]) < len(members),
        remaining_scc_nodes=sorted(
            (sorted(graph.ids[members[i]] for i in part) for part in parts), key=lambda p: (-len(p), p)
        ),
        description=description,
    )  # fmt: skip
