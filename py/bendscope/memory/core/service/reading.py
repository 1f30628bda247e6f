"""Readings: pages of nodes and edges, retrieval with its route, topology and the metrics."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bendscope.kappa import recommendation

from ..analysis import analyze_nodes
from ..learning import outcome_metrics
from ..records import (
    MemoryNode,
)
from ..requests import MAX_PAGE, AnalyzeTopology, ListEdges, QueryGraph, RetrieveContext
from ..retrieval import (
    DEFAULT_LIMIT,
    loop_names,
    retrieve_context,
)
from .state import ANALYZE_LOOP_LIMIT, MAX_POOL, MemoryState, _held, _unknown

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)


def _matches(node: MemoryNode, node_type: str | None, source: str | None) -> bool:
    return (node_type is None or node.node_type == node_type) and (source is None or node.source == source)


class Reading(MemoryState):
    """Readings: each takes its typed request (``requests``), or the arguments as a mapping,
    parsed by that request."""

    def query_graph(self, request: QueryGraph | Mapping[str, Any]) -> dict[str, Any]:
        """Nodes by ids, by type and/or source, or by text (BM25), with the edges among them."""
        asked = QueryGraph.parse(request)
        budget = asked.budget()
        limit, offset, node_type, source = asked.limit, asked.offset, asked.node_type, asked.source
        with self.store.reading():
            if asked.node_ids is not None:
                found = self.store.get_nodes(asked.node_ids)
                _unknown(asked.node_ids, found)
                nodes = [found[i] for i in sorted(found)]
                nodes = [n for n in nodes if _matches(n, node_type, source)][offset : offset + limit]
            elif asked.text is not None:
                nodes = self._search_filtered(asked.text, node_type, source, offset + limit)[offset : offset + limit]
            else:
                nodes = self.store.list_nodes(node_type=node_type, source=source, limit=limit, offset=offset)
            edges = self.store.list_edges_between([n.id for n in nodes]) if asked.include_edges else []
            total_nodes, total_edges = self.store.counts()
        return {
            "count": len(nodes),
            "nodes": budget.nodes([n.to_dict() for n in nodes]),
            "edges": budget.edges([e.to_dict() for e in edges[:MAX_PAGE]]),
            "edges_total": len(edges),
            "store": {"nodes": total_nodes, "edges": total_edges},
            "truncated": budget.cut,
        }

    def list_edges(self, request: ListEdges | Mapping[str, Any]) -> dict[str, Any]:
        """Every edge a page at a time (sorted by id), or those touching ``node_ids``, of
        ``edge_type``; ``next_offset`` is where the next page starts (None: the last). O(E)."""
        asked = ListEdges.parse(request)
        budget = asked.budget()
        with self.store.reading():
            if asked.node_ids is not None:
                _unknown(asked.node_ids, self.store.get_nodes(asked.node_ids))
                edges = self.store.edges_touching(asked.node_ids)
            else:
                edges = self.store.all_edges()
        if asked.edge_type is not None:
            edges = [e for e in edges if e.edge_type == asked.edge_type]
        end = asked.offset + asked.limit
        page = edges[asked.offset : end]
        return {
            "count": len(page),
            "total": len(edges),
            "next_offset": end if end < len(edges) else None,
            "edges": budget.edges([e.to_dict() for e in page]),
            "truncated": budget.cut,
        }

    def _search_filtered(self, text: str, node_type: str | None, source: str | None, wanted: int) -> list[MemoryNode]:
        """The ``wanted`` best lexical matches passing the filters (a larger pool as needed)."""
        pool = wanted
        while True:
            hits = self.store.search(text, pool)
            found = self.store.get_nodes(i for i, _ in hits)
            nodes = [found[i] for i, _ in hits if _matches(found[i], node_type, source)]
            if len(nodes) >= wanted or len(hits) < pool or pool >= MAX_POOL:
                return nodes
            pool = min(pool * 4, MAX_POOL)

    def retrieve_context(
        self,
        request: RetrieveContext | Mapping[str, Any],
        trigger: str = "retrieve_context",
        record: bool = True,
        loop_limit: int | None = None,
        gather: bool = False,
    ) -> dict[str, Any]:
        """The retrieval answer (``retrieval``); ``loop_limit``: a caller's own bound on the
        loop members brought in (analyze_topology's), above what a client may ask; ``gather``:
        a node set for a caller (the matches, their neighbours and every loop they touch)."""
        asked = RetrieveContext.parse(request)
        budget = asked.budget()
        current = self._current_loops()
        response = retrieve_context(
            self.store,
            asked.query,
            telemetry=self.telemetry,
            now=self.clock,
            limit=asked.limit,
            top_k=asked.limit if asked.top_k is None else asked.top_k,
            expand_hops=asked.expand_hops,
            node_types=asked.node_types,
            semantic=self.semantic,
            trigger=trigger,
            record=record,
            exact_limit=self.exact_limit,
            loop_limit=asked.loop_limit if loop_limit is None else loop_limit,
            expand_limit=asked.limit if asked.expand_limit is None else asked.expand_limit,
            as_of=asked.as_of,
            index_current=current,
            gather=gather,
            detail=asked.detail,
        )
        response["results"] = budget.nodes(response["results"])
        if budget.cut:
            response["truncated"] = budget.cut
        return response

    def analyze_topology(self, request: AnalyzeTopology | Mapping[str, Any]) -> dict[str, Any]:
        """The canonical topology of ``node_ids``, of what ``query`` retrieves, or of the whole
        graph, plus the ``recommendation`` sentence: of the facts valid now, or ``as_of`` a
        past time of those the memory held then (valid then and recorded by then; the whole
        graph then has the nodes held then)."""
        asked = AnalyzeTopology.parse(request)
        as_of = asked.as_of
        cut: list[dict[str, Any]] = []
        if asked.query is not None:  # retrieval that only looks: no access counted
            retrieval = RetrieveContext(
                query=asked.query, limit=DEFAULT_LIMIT if asked.limit is None else asked.limit, as_of=as_of
            )
            response = self.retrieve_context(
                retrieval, trigger="analyze_topology", record=False, loop_limit=ANALYZE_LOOP_LIMIT, gather=True
            )  # (the loops it touches analysed whole, up to the size κ is exact for)
            topology = response["topology"]
            cut = [
                {
                    "loop": loop["id"],
                    "node_count": loop["node_count"],
                    "kappa": loop["kappa"],
                    "approximate": loop["approximate"],
                    "returned": sorted(r["id"] for r in response["results"] if r.get("loop") == loop["id"]),
                }
                for loop in response["loops"]
                if loop.get("whole") is False
            ]
        else:
            when = as_of if as_of is not None else self.clock()
            with self.store.reading():
                if asked.node_ids is not None:
                    found = self.store.get_nodes(asked.node_ids)
                    _unknown(asked.node_ids, found)
                    ids = [i for i in asked.node_ids if _held(found[i], when, as_of is not None)]  # (as the graph)
                    edges = self.store.list_edges_between(ids)
                else:
                    found = self.store.get_nodes(self.store.node_ids())
                    ids = sorted(i for i, n in found.items() if _held(n, when, as_of is not None))
                    edges = self.store.all_edges()
            ends = {i: found[i] for i in ids}
            edges = [
                e
                for e in edges
                if e.source_id in ends
                and e.target_id in ends
                and all(_held(r, when, as_of is not None) for r in (e, ends[e.source_id], ends[e.target_id]))
            ]
            topology = analyze_nodes(
                ids,
                edges,
                telemetry=self.telemetry,
                trigger="analyze_topology",
                exact_limit=self.exact_limit,
                feedback_arc_set=True,
            )
        members = [n for scc in topology["sccs"] for n in scc["nodes"]]
        names = loop_names(topology, self.store.get_nodes(members)) if members else {}
        answer = {**topology, "recommendation": recommendation(topology, names)}
        if asked.query is not None:
            answer["loops_cut"] = cut
            if cut:
                largest = max(cut, key=lambda loop: (loop["kappa"], loop["node_count"]))
                said = (
                    f"Deliberate: the retrieved nodes are part of a feedback loop of {largest['node_count']:,} nodes "
                    f"(κ = {largest['kappa']}), too large to analyse here whole (loops_cut); the topology is of the "
                    "retrieved nodes alone"
                )
                answer["recommendation"] = (
                    f"{said}, which form no loop by themselves." if not topology["sccs"]
                    else f"{said}. {answer['recommendation']}"
                )  # fmt: skip
        return answer

    def get_metrics(self) -> dict[str, Any]:
        """This process's topology telemetry, the outcomes kept in the store (every process's,
        across restarts: ``learning.outcome_metrics``) and the store's size."""
        with self.store.reading():
            nodes, edges = self.store.counts()
            groups = self.store.outcome_groups()
        return {
            **self.metrics.snapshot(),
            "outcomes": outcome_metrics(groups),
            "store": {"kind": self.store.kind, "location": self.store.location, "nodes": nodes, "edges": edges},
        }
