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

How adding is answered without cutting again:

* **Inside one SCC** (κ = k, exact): κ becomes k + 1 or stays k, and it rises iff the arc
  leaves every minimum cut (``kappa.mincut.raising_targets``: one structure per SCC and
  source, then O(1) per target). First a filter needing no flow: the fault line's side X
  is a minimum cut, so an arc that does not leave X (u ∉ X or v ∈ X) changes nothing.
* **Merging** (the arc joins nodes of different SCCs, or nodes in none): the new SCC M
  has κ = 1 exactly. Within M every node is reached from v (M = what v reaches that
  reaches u), so the part C_v of M that was v's own SCC (or v alone) had no arc in
  from the rest of M; after the edit only u → v enters it: M ∖ C_v is left by that
  one arc, and M is strongly connected, so κ(M) = 1. No cut search at all.

Approximate SCCs (κ out of the work budget: ``kappa_range`` in the topology) give
bounds: an impact any of whose κ values is an upper bound (real cuts: adding an arc raises a
cut by at most 1), as the topology's ``kappa`` is, carries ``"approximate": true``. Which
ones: ``"scc_approximate": true`` when the SCC's (``scc_kappa_before`` / ``_after``: the
description compares those), and ``kappa_range_before`` / ``kappa_range_after`` = [lower,
upper] for the graph's max κ where it is a bound — which it can be from another SCC, past the
budget, while the edge's own SCC is exact. A removal also lists each remaining loop's κ
(``remaining_scc_kappas``, upper bounds; ``remaining_scc_kappa_ranges`` when one is not
exact). Exact impacts have none of these keys but ``remaining_scc_kappas``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .analyze import (
    DEFAULT_EXACT_LIMIT,
    DEFAULT_WORK_BUDGET,
    KappaCache,
    _check_budget,
    _check_limit,
    analyze_digraph,
)
from .digraph import Digraph, build_digraph, predecessors, reaching
from .mincut import kappa_cut, raising_targets
from .scc import strongly_connected_components

__all__ = ["preview_edge_impact", "preview_edge_impacts", "preview_edge_impacts_in", "preview_edge_removal"]


def _node(graph: Digraph, node_id: object, what: str) -> int:
    if not isinstance(node_id, str):
        raise TypeError(f"{what} must be a node-id string, got {type(node_id).__name__}")
    try:
        return graph.index[node_id]
    except KeyError:
        raise ValueError(f"{what} {node_id!r} is not in the node universe") from None


class _Base:
    """The base topology by node index: each node's SCC number (-1: none), each SCC's
    members, κ (or upper bound), lower bound and fault-line arcs."""

    def __init__(
        self, graph: Digraph, base: Mapping[str, Any] | None, exact_limit: int, cache: KappaCache | None, budget: int
    ) -> None:
        if base is None:
            base = analyze_digraph(graph, exact_limit=exact_limit, cache=cache, work_budget=budget)
        self.comp = [-1] * len(graph.ids)
        self.members: list[list[int]] = []
        self.kappas: list[int] = []
        self.lowers: list[int] = []
        self.faults: list[list[tuple[int, int]]] = []
        index = graph.index
        for number, scc in enumerate(base["sccs"]):
            self.kappas.append(scc["kappa"])
            self.lowers.append(scc.get("kappa_range", [scc["kappa"]])[0])
            self.faults.append([(index[f["source"]], index[f["target"]]) for f in scc["fault_line_edges"]])
            members = sorted(index[node] for node in scc["nodes"])
            self.members.append(members)
            for w in members:
                self.comp[w] = number
        self.max_kappa: int = base["max_kappa"]
        self.max_lower = max(self.lowers, default=0)  # (the graph's max κ is exact iff it meets max_kappa)

    def plane_after(self, old: set[int], scc_after: tuple[int, int]) -> tuple[int, int]:
        """Bounds (lower, upper) of the graph's max κ when the SCCs ``old`` become one of
        κ in ``scc_after`` (lower, upper). O(SCCs)."""
        lower, upper = scc_after
        for c, kappa in enumerate(self.kappas):
            if c not in old:
                lower, upper = max(lower, self.lowers[c]), max(upper, kappa)
        return lower, upper


def _local(out: list[list[int]], members: list[int]) -> tuple[dict[int, int], list[list[int]]]:
    """``members`` (sorted) numbered 0..k-1 and the arcs among them. O(n + m) of the part."""
    local = {v: i for i, v in enumerate(members)}
    return local, [[local[w] for w in out[v] if w in local] for v in members]


def _cut_side(out: list[list[int]], members: list[int], faults: list[tuple[int, int]]) -> set[int] | None:
    """The side X of the fault line (the arcs leaving X are exactly the fault arcs): the
    tails and what they reach by other arcs inside ``members``. O(n + m) of the SCC."""
    if not faults:
        return None
    inside = set(members)
    fault = set(faults)
    side = {u for u, _ in faults}
    stack = list(side)
    while stack:
        x = stack.pop()
        for y in out[x]:
            if y in inside and y not in side and (x, y) not in fault:
                side.add(y)
                stack.append(y)
    return side


def _result(
    source: str,
    target: str,
    known: _Base,
    after: tuple[int, int],
    scc_before: int,
    scc_after: int,
    approximate: bool,
    **flags: Any,
) -> dict[str, Any]:
    """The impact: the graph's max κ before (``known``) and ``after`` (lower, upper), the SCC's
    κ (upper bounds where ``approximate``) and the flags; every bound marked (module doc)."""
    before = (known.max_lower, known.max_kappa)
    result = {
        "source": source,
        "target": target,
        **flags,
        "kappa_before": before[1],
        "kappa_after": after[1],
        "kappa_delta": after[1] - before[1],
        "scc_kappa_before": scc_before,
        "scc_kappa_after": scc_after,
    }
    if approximate or before[0] < before[1] or after[0] < after[1]:
        result["approximate"] = True
    if approximate:
        result["scc_approximate"] = True
    for key, (lower, upper) in (("kappa_range_before", before), ("kappa_range_after", after)):
        if lower < upper:
            result[key] = [lower, upper]
    return result


def preview_edge_impacts(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    source: str,
    targets: Iterable[str],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    base: Mapping[str, Any] | None = None,
    cache: KappaCache | None = None,
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> dict[str, dict[str, Any]]:
    """Preview adding ``source → t`` (a directed, e.g. causal, edge) for every t.

    One backward reachability pass from ``source`` tells which targets close a
    cycle. Targets inside the source's SCC share one minimum-cut structure (module doc;
    at most ``work_budget`` units, none above ``exact_limit`` nodes); a merge has κ = 1.
    ``base`` may be the ``analyze`` result of the same graph (with the same
    ``exact_limit`` and ``work_budget``), to skip the base analysis. Returns
    {target: impact}, see module doc; the impacts of targets inside the source's SCC share one
    ``merged_scc_nodes`` list (read it, never change it). O(n + m) + the structure once + O(1)
    per target inside the SCC, O(n + m) per merging target (its merged node list).
    """
    return preview_edge_impacts_in(
        build_digraph(nodes, edges),
        source,
        targets,
        exact_limit=exact_limit,
        base=base,
        cache=cache,
        work_budget=work_budget,
    )


def preview_edge_impacts_in(
    graph: Digraph,
    source: str,
    targets: Iterable[str],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    base: Mapping[str, Any] | None = None,
    cache: KappaCache | None = None,
    work_budget: int = DEFAULT_WORK_BUDGET,
    pred: list[list[int]] | None = None,
) -> dict[str, dict[str, Any]]:
    """:func:`preview_edge_impacts` on a digraph already built (``build_digraph``) — a caller
    that previews many sources on one graph builds it once, and may give ``pred``, which must
    be ``digraph.predecessors(graph)`` (not checked), too. O(n + m) + the structure once +
    O(1) per target inside the SCC (the impacts of those targets share one list of the SCC's
    node ids: read them, never change them), O(n + m) per merging target.

    >>> g = build_digraph(["a", "b", "c"], [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}])
    >>> preview_edge_impacts_in(g, "c", ["a"])["a"]["description"]
    'creates feedback loop'
    """
    _check_limit(exact_limit)
    _check_budget(work_budget)
    u = _node(graph, source, "source")
    target_list = list(targets) if not isinstance(targets, str) else None
    if target_list is None:
        raise TypeError("targets must be an iterable of node-id strings, not a string")
    indices = [_node(graph, t, "target") for t in target_list]
    known = _Base(graph, base, exact_limit, cache, work_budget)
    comp, kappas, max_kappa = known.comp, known.kappas, known.max_kappa
    out = graph.out
    reaches_u = reaching(predecessors(graph) if pred is None else pred, u)

    own = comp[u]
    own_ids: list[str] | None = None  # u's SCC's node ids, one list for every target inside it
    side: set[int] | None = None  # the fault line's side in u's SCC (computed once)
    rising: frozenset[int] | None = None  # the targets that raise its κ (computed once)
    rising_known = False

    def inside(v: int) -> tuple[int, bool]:
        """κ of u's SCC with u → v added (v in it, not a successor of u), and whether approximate
        (then it is at least the SCC's lower bound before: adding an arc lowers no cut)."""
        nonlocal side, rising, rising_known
        members = known.members[own]
        kappa = kappas[own]
        if side is None:
            side = _cut_side(out, members, known.faults[own]) or set()
        crosses = u in side and v not in side  # (an empty side: no fault line known, nothing ruled out)
        exact = known.lowers[own] == kappa
        if not exact:
            return kappa + crosses, True  # the fault line's cut is still a cut
        if side and not crosses:
            return kappa, False  # a minimum cut the arc does not leave
        if not rising_known:
            local, sub = _local(out, members)
            budget = 0 if len(members) > exact_limit else work_budget
            rising = raising_targets(sub, kappa, local[u], work_budget=budget)
            rising_known = True
            if rising is not None:
                rising = frozenset(members[w] for w in rising)
        if rising is None:
            return kappa + 1, True  # out of budget: κ or κ + 1
        return kappa + (v in rising), False

    results: dict[str, dict[str, Any]] = {}
    for target, v in zip(target_list, indices, strict=True):
        own_kappa = kappas[own] if own >= 0 else 0
        approximate = own >= 0 and known.lowers[own] < own_kappa
        own_lower = known.lowers[own] if own >= 0 else 0
        if v == u or not reaches_u[v]:
            results[target] = _result(
                source, target, known, (known.max_lower, max_kappa), own_kappa, own_kappa, approximate,
                creates_new_scc=False, enlarges_existing_scc=False, merged_scc_nodes=[],
                description="no topological change",
            )  # fmt: skip
            continue
        if own >= 0 and comp[v] == own:  # inside u's SCC: it stays the same set of nodes
            old = {own}
            members = known.members[own]
            scc_before = own_kappa
            if v in out[u]:  # the arc exists: nothing changes
                scc_after = scc_before
            else:
                scc_after, approximate = inside(v)
            scc_lower = own_lower if approximate else scc_after
            same = True
            if own_ids is None:
                own_ids = [graph.ids[w] for w in members]
            merged_ids = own_ids
        else:  # a merge: κ = 1 (module doc)
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
            scc_after, scc_lower, same = 1, 1, False
            approximate = any(known.lowers[c] < kappas[c] for c in old)  # (the κ before: an upper bound)
            merged_ids = [graph.ids[w] for w in members]
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
            source, target, known, known.plane_after(old, (scc_lower, scc_after)), scc_before, scc_after, approximate,
            creates_new_scc=not old, enlarges_existing_scc=bool(old) and not same,
            merged_scc_nodes=merged_ids, description=description,
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
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> dict[str, Any]:
    """Preview adding the directed edge ``source → target``.

    Returns ``creates_new_scc``, ``enlarges_existing_scc``, ``kappa_before``,
    ``kappa_after``, ``kappa_delta``, ``description`` (and the SCC-level fields of
    the module doc). The graph itself is not changed.

    >>> p = preview_edge_impact(["a", "b"], [{"source": "a", "target": "b"}], "b", "a")
    >>> p["creates_new_scc"], p["kappa_before"], p["kappa_after"], p["description"]
    (True, 0, 1, 'creates feedback loop')
    """
    results = preview_edge_impacts(
        nodes, edges, source, [target], exact_limit=exact_limit, base=base, cache=cache, work_budget=work_budget
    )
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
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> dict[str, Any]:
    """Preview removing the arc ``source → target`` (all parallel copies of it).

    Only the SCC holding the arc is re-analysed (each remaining part's cut search with at
    most ``work_budget`` units). Returns ``removes_arc`` (whether the arc takes part in κ
    at all), ``breaks_scc`` (its SCC stops being strongly connected), κ before/after, a
    description (module doc) and ``remaining_scc_nodes``: the node lists (sorted) of the
    loops left of the arc's SCC, largest first (its whole node list when the arc changes
    nothing, ``[]`` when no loop remains).

    >>> p = preview_edge_removal(["a", "b"], [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}], "a", "b")
    >>> p["kappa_before"], p["kappa_after"], p["description"]
    (1, 0, 'breaks feedback loop')
    """
    _check_limit(exact_limit)
    _check_budget(work_budget)
    graph = build_digraph(nodes, edges)
    u = _node(graph, source, "source")
    v = _node(graph, target, "target")
    known = _Base(graph, base, exact_limit, cache, work_budget)
    comp, kappas = known.comp, known.kappas
    own = kappas[comp[u]] if comp[u] >= 0 else 0
    own_lower = known.lowers[comp[u]] if comp[u] >= 0 else 0
    approximate = comp[u] >= 0 and own_lower < own
    present = v in graph.out[u]
    if not present or comp[u] < 0 or comp[u] != comp[v]:
        same = [graph.ids[w] for w in known.members[comp[u]]] if comp[u] >= 0 else []
        stays = bool(same) and comp[u] == comp[v]
        flags: dict[str, Any] = {"remaining_scc_kappas": [own] if stays else []}
        if stays and approximate:
            flags["remaining_scc_kappa_ranges"] = [[own_lower, own]]
        return _result(
            source, target, known, (known.max_lower, known.max_kappa), own, own, approximate, removes_arc=present,
            breaks_scc=False, remaining_scc_nodes=[same] if stays else [], **flags,
            description="no topological change",
        )  # fmt: skip
    members = known.members[comp[u]]
    local = {w: i for i, w in enumerate(members)}
    sub = [[local[w] for w in graph.out[x] if w in local and not (x == u and w == v)] for x in members]
    parts = [p for p in strongly_connected_components(sub) if len(p) > 1]
    found = []
    for part in parts:
        _, inner = _local(sub, part)
        found.append(kappa_cut(inner, work_budget=0 if len(part) > exact_limit else work_budget))
    scc_after = max((f.kappa for f in found), default=0)
    scc_lower = max((f.lower for f in found), default=0)
    approximate = approximate or any(not f.exact for f in found)  # (before, or after, an upper bound)
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
    remaining = sorted(
        ((sorted(graph.ids[members[i]] for i in part), f) for part, f in zip(parts, found, strict=True)),
        key=lambda pf: (-len(pf[0]), pf[0]),
    )
    flags = {"remaining_scc_kappas": [f.kappa for _, f in remaining]}
    if any(not f.exact for _, f in remaining):
        flags["remaining_scc_kappa_ranges"] = [[f.lower, f.kappa] for _, f in remaining]
    return _result(
        source, target, known, known.plane_after({comp[u]}, (scc_lower, scc_after)), own, scc_after, approximate,
        removes_arc=True, breaks_scc=len(parts) != 1 or len(parts[0]) < len(members),
        remaining_scc_nodes=[nodes for nodes, _ in remaining], **flags, description=description,
    )  # fmt: skip
