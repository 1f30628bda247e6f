"""The topology of a set of memory nodes: the κ engine on the node universe, with
telemetry.

The node universe rule (Graphonomous ``build_adjacency``): every given node is in the
graph, isolated ones included; edges with an endpoint outside the universe are
dropped, and so are self-loops; only causal and temporal edges take part.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from bendscope.kappa import DEFAULT_EXACT_LIMIT
from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph

from .records import MemoryEdge
from .telemetry import ANALYZE, ROUTE, Telemetry

TRIGGERS = ("retrieve_context", "analyze_topology")


def analyze_nodes(
    node_ids: Iterable[str],
    edges: Iterable[MemoryEdge],
    *,
    telemetry: Telemetry,
    trigger: str,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    route: bool = True,
    feedback_arc_set: bool = False,
) -> dict[str, Any]:
    """The canonical topology (spec §A.1) of ``node_ids`` with ``edges``; emits
    ``topology.analyze`` and (unless ``route`` is false: a caller that decides the route
    itself emits it) ``topology.route``; ``feedback_arc_set``: each SCC also says the fewest
    edges whose removal breaks every loop in it (``kappa.arcset``: exact within its work
    budget, else a range). O(n + m) plus κ (and the arc set) per nontrivial SCC."""
    if trigger not in TRIGGERS:
        raise ValueError(f"unknown trigger {trigger!r}")
    start = time.perf_counter()
    graph = build_digraph(
        node_ids, [{"source": e.source_id, "target": e.target_id, "kind": e.edge_type} for e in edges]
    )
    result = analyze_digraph(graph, exact_limit=exact_limit, feedback_arc_set=feedback_arc_set)
    duration_ms = (time.perf_counter() - start) * 1000.0
    telemetry.execute(
        ANALYZE,
        {"duration_ms": duration_ms, "node_count": len(graph.ids), "edge_count": graph.edge_count},
        {
            "scc_count": result["scc_count"],
            "max_kappa": result["max_kappa"],
            "routing": result["routing"],
            "self_loops_filtered": graph.self_loops_filtered,
        },
    )
    if route:
        decision = {"decision": result["routing"], "max_kappa": result["max_kappa"], "trigger": trigger}
        telemetry.execute(ROUTE, {}, decision)
    return result
