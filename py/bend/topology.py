"""The κ topology of a plane, cached under the plane's dirty flag.

Only structural edits raise ``plane.topology_dirty`` (see model.Plane); moves
never do, and nothing here runs per frame. Each plane keeps a KappaCache, so
SCCs whose arcs did not change are not cut again on recompute.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from kappa import DEFAULT_EXACT_LIMIT, KappaCache, analyze

from .model import Plane


def plane_graph(plane: Plane) -> tuple[list[str], list[dict[str, str]]]:
    """The plane as κ engine input: a → source, b → target, props.kind → kind."""
    edges = [{"source": e.a, "target": e.b, "kind": e.props.kind} for e in plane.edges.values()]
    return list(plane.nodes), edges


@dataclass
class Topology:
    """One plane's canonical topology plus lookups the views need."""

    result: dict[str, Any]
    duration_ms: float
    scc_of: dict[str, int] = field(default_factory=dict)  # node id → index in result["sccs"]
    fault_edges: set[str] = field(default_factory=set)  # edge ids on a fault line

    @property
    def max_kappa(self) -> int:
        return int(self.result["max_kappa"])

    @property
    def scc_count(self) -> int:
        return int(self.result["scc_count"])

    def scc(self, node_id: str) -> dict[str, Any] | None:
        i = self.scc_of.get(node_id)
        return None if i is None else self.result["sccs"][i]

    def json(self) -> str:
        return json.dumps(self.result, ensure_ascii=False)

    def log_line(self) -> str:
        """The console.debug line of the spec's §7."""
        return f"[κ] topology: {self.duration_ms:.1f}ms, maxκ={self.max_kappa}, sccs={self.scc_count}"


class TopologyCache:
    """Per-plane cached topology; recomputes only when the plane is dirty."""

    def __init__(self) -> None:
        self._topology: dict[str, Topology] = {}
        self._kappa_caches: dict[str, KappaCache] = {}
        self.recomputes = 0
        self.on_recompute = None  # optional callback(plane, topology), e.g. console.debug

    def get(self, plane: Plane, exact_limit: int | None = None) -> Topology:
        cached = self._topology.get(plane.id)
        if cached is not None and not plane.topology_dirty:
            return cached
        start = time.perf_counter()
        nodes, edges = plane_graph(plane)
        limit = DEFAULT_EXACT_LIMIT if exact_limit is None else exact_limit
        result = analyze(nodes, edges, exact_limit=limit, cache=self._kappa_caches.setdefault(plane.id, KappaCache()))
        topology = Topology(result, (time.perf_counter() - start) * 1000.0)
        faults: set[tuple[str, str]] = set()
        for i, scc in enumerate(result["sccs"]):
            for node in scc["nodes"]:
                topology.scc_of[node] = i
            faults.update((f["source"], f["target"]) for f in scc["fault_line_edges"])
        topology.fault_edges = {
            e.id for e in plane.edges.values() if (e.a, e.b) in faults and e.props.kind in ("causal", "temporal")
        }
        plane.topology_dirty = False
        self._topology[plane.id] = topology
        self.recomputes += 1
        if self.on_recompute is not None:
            self.on_recompute(plane, topology)
        return topology

    def invalidate(self, exact_limit_changed: bool = False) -> None:
        self._topology.clear()
        if exact_limit_changed:
            self._kappa_caches.clear()
