"""Readings: pages of nodes and edges, retrieval with its route, topology and the metrics."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from typing import Any

from bendscope.kappa import recommendation

from ...store.base import Store
from ..analysis import analyze_nodes
from ..answer_budget import Budget
from ..errors import NotFound
from ..learning import outcome_metrics
from ..records import (
    MemoryNode,
)
from ..requests import MAX_PAGE, AnalyzeTopology, History, ListEdges, QueryGraph, RetrieveContext
from ..retrieval import (
    DEFAULT_LIMIT,
    loop_names,
    retrieve_context,
)
from .state import ANALYZE_LOOP_LIMIT, MAX_POOL, MemoryState, _in_graph

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)


def _matches(node: MemoryNode, node_type: str | None, source: str | None) -> bool:
    return (node_type is None or node.node_type == node_type) and (source is None or node.source == source)


class Reading(MemoryState):
    """Readings: each takes its typed request (``requests``), or the arguments as a mapping,
    parsed by that request. Each reads the memory as it knew it at ``known_at`` (now by
    default: ``store.past``); ``as_of`` is the time the facts are read at (valid then)."""

    def query_graph(self, request: QueryGraph | Mapping[str, Any]) -> dict[str, Any]:
        """Nodes by ids, by type and/or source, or by text (BM25), with the edges among them;
        ``as_of``: only those valid then. Ids merged away by ``consolidate`` read as the node
        they were merged into (``merged_into``)."""
        asked = QueryGraph.parse(request)
        budget = asked.budget()
        limit, offset, node_type, source, as_of = asked.limit, asked.offset, asked.node_type, asked.source, asked.as_of

        def wanted(node: MemoryNode) -> bool:
            return _matches(node, node_type, source) and (as_of is None or node.valid_at(as_of))

        merged: dict[str, str] = {}
        with self._known(asked.known_at) as store, store.reading():
            if asked.node_ids is not None:
                found = store.get_nodes(asked.node_ids)
                ids, merged = self._named(store, asked.node_ids, found)
                nodes = [n for n in (found[i] for i in sorted(set(ids))) if wanted(n)][offset : offset + limit]
            elif asked.text is not None:
                nodes = self._search_filtered(store, asked.text, wanted, offset + limit)[offset : offset + limit]
            elif as_of is not None:
                every = store.get_nodes(store.node_ids())
                nodes = [n for n in every.values() if wanted(n)][offset : offset + limit]
            else:
                nodes = store.list_nodes(node_type=node_type, source=source, limit=limit, offset=offset)
            edges = store.list_edges_between([n.id for n in nodes]) if asked.include_edges else []
            if as_of is not None:
                edges = [e for e in edges if e.valid_at(as_of)]
            total_nodes, total_edges = store.counts()
        answer: dict[str, Any] = {
            "count": len(nodes),
            "nodes": budget.nodes([n.to_dict() for n in nodes]),
            "edges": budget.edges([e.to_dict() for e in edges[:MAX_PAGE]]),
            "edges_total": len(edges),
            "store": {"nodes": total_nodes, "edges": total_edges},
            "truncated": budget.cut,
        }
        if merged:
            answer["merged_into"] = merged
        return answer

    def list_edges(self, request: ListEdges | Mapping[str, Any]) -> dict[str, Any]:
        """Every edge a page at a time (sorted by id), or those touching ``node_ids``, of
        ``edge_type``; ``next_offset`` is where the next page starts (None: the last). O(E)."""
        asked = ListEdges.parse(request)
        budget = asked.budget()
        merged: dict[str, str] = {}
        with self._known(asked.known_at) as store, store.reading():
            if asked.node_ids is not None:
                found = store.get_nodes(asked.node_ids)
                ids, merged = self._named(store, asked.node_ids, found)
                edges = store.edges_touching(ids)
            else:
                edges = store.all_edges()
        if asked.edge_type is not None:
            edges = [e for e in edges if e.edge_type == asked.edge_type]
        end = asked.offset + asked.limit
        page = edges[asked.offset : end]
        answer: dict[str, Any] = {
            "count": len(page),
            "total": len(edges),
            "next_offset": end if end < len(edges) else None,
            "edges": budget.edges([e.to_dict() for e in page]),
            "truncated": budget.cut,
        }
        if merged:
            answer["merged_into"] = merged
        return answer

    def _search_filtered(
        self, store: Store, text: str, wanted: Callable[[MemoryNode], bool], count: int
    ) -> list[MemoryNode]:
        """The ``count`` best lexical matches that are ``wanted`` (a larger pool as needed)."""
        pool = count
        while True:
            hits = store.search(text, pool)
            found = store.get_nodes(i for i, _ in hits)
            nodes = [found[i] for i, _ in hits if wanted(found[i])]
            if len(nodes) >= count or len(hits) < pool or pool >= MAX_POOL:
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
        a node set for a caller (the matches, their neighbours and every loop they touch).
        A reading of the past (``known_at``) records nothing (``retrieval_id`` null)."""
        asked = RetrieveContext.parse(request)
        budget = asked.budget()
        current = self._current_loops()
        with self._known(asked.known_at) as store:
            past = store is not self.store
            as_of = asked.as_of if asked.as_of is not None or not past else asked.known_at
            semantic = self.semantic
            if past and semantic is not None:  # (stored vectors are of the current texts)
                semantic = dataclasses.replace(semantic, dense=0)
            response = retrieve_context(
                store,
                asked.query,
                telemetry=self.telemetry,
                now=self.clock,
                limit=asked.limit,
                top_k=asked.limit if asked.top_k is None else asked.top_k,
                expand_hops=asked.expand_hops,
                node_types=asked.node_types,
                semantic=semantic,
                trigger=trigger,
                record=record,
                exact_limit=self.exact_limit,
                loop_limit=asked.loop_limit if loop_limit is None else loop_limit,
                expand_limit=asked.limit if asked.expand_limit is None else asked.expand_limit,
                as_of=as_of,
                index_current=current and not past,
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
        time (valid then, as the memory knows them now), as the memory knew them at
        ``known_at`` (``as_of`` then defaults to it)."""
        asked = AnalyzeTopology.parse(request)
        as_of = asked.as_of if asked.as_of is not None else asked.known_at
        cut: list[dict[str, Any]] = []
        merged: dict[str, str] = {}
        if asked.query is not None:  # retrieval that only looks: no access counted
            retrieval = RetrieveContext(
                query=asked.query,
                limit=DEFAULT_LIMIT if asked.limit is None else asked.limit,
                as_of=asked.as_of,
                known_at=asked.known_at,
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
            members = [n for scc in topology["sccs"] for n in scc["nodes"]]
            with self._known(asked.known_at) as store, store.reading():
                names = loop_names(topology, store.get_nodes(members)) if members else {}
        else:
            when = as_of if as_of is not None else self.clock()
            with self._known(asked.known_at) as store, store.reading():
                if asked.node_ids is not None:
                    found = store.get_nodes(asked.node_ids)
                    asked_ids, merged = self._named(store, asked.node_ids, found)
                    ids = [i for i in asked_ids if found[i].valid_at(when)]  # (as the graph)
                    edges = store.list_edges_between(ids)
                else:
                    found = store.get_nodes(store.node_ids())
                    ids = sorted(i for i, n in found.items() if n.valid_at(when))
                    edges = store.all_edges()
                ends = {i: found[i] for i in ids}
                edges = [e for e in edges if _in_graph(e, ends, when)]
                topology = analyze_nodes(
                    ids,
                    edges,
                    telemetry=self.telemetry,
                    trigger="analyze_topology",
                    exact_limit=self.exact_limit,
                    feedback_arc_set=True,
                )
                members = [n for scc in topology["sccs"] for n in scc["nodes"]]
                names = loop_names(topology, {i: found[i] for i in members}) if members else {}
        answer = {**topology, "recommendation": recommendation(topology, names)}
        if merged:
            answer["merged_into"] = merged
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

    def history(self, request: History | Mapping[str, Any]) -> dict[str, Any]:
        """Every version of node or edge ``id``, the first recorded first: each with its valid
        time (``valid_from`` / ``valid_until``) and its recorded time (``recorded_at`` /
        ``recorded_until``: when the memory held it; null: it holds it now). A node merged
        away by ``consolidate`` says into which node and when (``merged_into``). Content and
        metadata are cut as in query_graph's default answer."""
        asked = History.parse(request)
        with self.store.reading():
            nodes, edges = self.store.history([asked.id], [asked.id])
            forward = self.store.forwards([asked.id]).get(asked.id)
        if not nodes and not edges and forward is not None:  # (a merge an older store kept no version of)
            return {"id": asked.id, "kind": "node", "count": 0, "versions": [],
                    "merged_into": {"id": forward[0], "at": forward[1]}}  # fmt: skip
        if not nodes and not edges:
            raise NotFound(f"no node or edge with id {asked.id!r} (nor any version of one: deleted ones are erased)")
        budget = Budget()
        kind = "node" if nodes else "edge"
        if nodes:
            versions = budget.nodes([v.to_dict() for v in nodes[asked.id]])
        else:
            versions = budget.edges([v.to_dict() for v in edges[asked.id]])
        answer: dict[str, Any] = {"id": asked.id, "kind": kind, "count": len(versions), "versions": versions}
        if nodes and edges:  # (an edge with the id of a node: its versions too)
            answer["edge_versions"] = budget.edges([v.to_dict() for v in edges[asked.id]])
        if forward is not None:
            answer["merged_into"] = {"id": forward[0], "at": forward[1]}
        if budget.cut:
            answer["truncated"] = budget.cut
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
