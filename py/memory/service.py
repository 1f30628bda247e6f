"""``Memory``: the operations the MCP tools and the CLI share, over one store.

Each operation validates its arguments first and runs in one store transaction, so a
call is all or nothing: bad arguments raise :class:`~memory.errors.InvalidInput` (or
:class:`~memory.errors.NotFound`) with a message for the caller and change nothing.
Results are plain JSON-ready dicts whose bytes depend only on the store and the call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kappa import DEFAULT_EXACT_LIMIT, recommendation

from .errors import InvalidInput, NotFound
from .interop import from_document, to_document
from .records import MAX_SOURCE, NODE_TYPES, MemoryNode, check_id, check_text, new_edge, new_node, utc_now
from .retrieval import DEFAULT_LIMIT, MAX_HOPS, MAX_LIMIT, Embedder, retrieve_context
from .store import Store
from .telemetry import Aggregator, Telemetry
from .topology import analyze_nodes

#: the most node ids one call may name
MAX_NODE_IDS = 100_000
MAX_QUERY = 2_000
MAX_PAGE = 1_000
MAX_POOL = 20_000  # the most lexical matches looked at to fill a filtered page


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _int(args: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{key} must be a whole number from {low} to {high}, got {_kind(value)}")
    if not low <= value <= high:
        raise InvalidInput(f"{key} must be from {low} to {high}, got {value}")
    return value


def _query(value: Any, what: str = "query") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be a non-empty string")
    if len(value) > MAX_QUERY:
        raise InvalidInput(f"{what} is longer than {MAX_QUERY:,} characters")
    return check_text(value, what, MAX_QUERY)


def _id_list(value: Any, what: str = "node_ids") -> list[str]:
    if not isinstance(value, list):
        raise InvalidInput(f"{what} must be a list of node ids, got {_kind(value)}")
    if len(value) > MAX_NODE_IDS:
        raise InvalidInput(f"{what} has {len(value):,} ids; the limit is {MAX_NODE_IDS:,}")
    return list(dict.fromkeys(check_id(v, f"{what}[{i}]") for i, v in enumerate(value)))


def _node_types(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(v in NODE_TYPES for v in value):
        raise InvalidInput(f"node_types must be a list of {', '.join(NODE_TYPES)}")
    return list(value)


def _unknown(ids: Sequence[str], found: Mapping[str, Any]) -> None:
    missing = [i for i in ids if i not in found]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise NotFound(f"no node with id {shown}{more}")


class Memory:
    """A knowledge-graph memory: store, retrieval with topology, κ router, telemetry."""

    def __init__(
        self,
        store: Store,
        *,
        telemetry: Telemetry | None = None,
        clock: Callable[[], str] = utc_now,
        embedder: Embedder | None = None,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
    ) -> None:
        self.store = store
        self.telemetry = telemetry or Telemetry()
        self.metrics = Aggregator(self.telemetry)
        self.clock = clock
        self.embedder = embedder
        self.exact_limit = exact_limit

    # ------------------------------------------------------------ writing
    def store_node(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Create a node, or update the node with the given ``id`` (fields not given stay).
        Returns ``{"status": "created" | "updated" | "unchanged", "node": {...}}``."""
        with self.store.transaction():
            old = self.store.get_node(check_id(args["id"])) if args.get("id") is not None else None
            merged = dict(args)
            if old is not None and merged.get("content") is None:
                merged["content"] = old.content
            node = new_node(merged, now=self.clock(), existing=old)
            if old is None:
                old = self.store.get_node(node.id)  # an id derived from the content may exist already
                if old is not None:
                    node = new_node({**merged, "id": node.id}, now=self.clock(), existing=old)
            if old is not None and _same_node(old, node):
                return {"status": "unchanged", "node": old.to_dict()}
            self.store.put_node(node)
        return {"status": "created" if old is None else "updated", "node": node.to_dict()}

    def store_edge(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Create an edge between existing nodes, or update the edge with the given ``id``."""
        with self.store.transaction():
            edge = new_edge(args, now=self.clock())
            _unknown([edge.source_id, edge.target_id], self.store.get_nodes([edge.source_id, edge.target_id]))
            old = self.store.get_edge(edge.id)
            if old is not None:  # update that edge: its id stays, even one derived from another type
                edge = new_edge({**args, "id": edge.id}, now=self.clock(), existing=old)
                if edge == old:
                    return {"status": "unchanged", "edge": old.to_dict()}
            self.store.put_edge(edge)
        return {"status": "created" if old is None else "updated", "edge": edge.to_dict()}

    def delete_node(self, node_id: Any) -> dict[str, Any]:
        node_id = check_id(node_id)
        with self.store.transaction():
            if self.store.get_node(node_id) is None:
                raise NotFound(f"no node with id {node_id!r}")
            edges = self.store.delete_node(node_id)
        return {"status": "deleted", "id": node_id, "deleted_edges": edges}

    def delete_edge(self, edge_id: Any) -> dict[str, Any]:
        edge_id = check_id(edge_id)
        with self.store.transaction():
            if not self.store.delete_edge(edge_id):
                raise NotFound(f"no edge with id {edge_id!r}")
        return {"status": "deleted", "id": edge_id}

    # ------------------------------------------------------------ reading
    def query_graph(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Nodes by ids, by type and/or source, or by text (BM25), with the edges among them."""
        limit = _int(args, "limit", 50, 1, MAX_PAGE)
        offset = _int(args, "offset", 0, 0, 10**9)
        include_edges = args.get("include_edges", True)
        if not isinstance(include_edges, bool):
            raise InvalidInput("include_edges must be true or false")
        node_type = args.get("node_type")
        if node_type is not None and node_type not in NODE_TYPES:
            raise InvalidInput(f"node_type must be one of {', '.join(NODE_TYPES)}")
        source = args.get("source")
        if source is not None:
            source = check_text(source, "source", MAX_SOURCE)
        with self.store.reading():
            if args.get("node_ids") is not None:
                ids = _id_list(args["node_ids"])
                found = self.store.get_nodes(ids)
                _unknown(ids, found)
                nodes = [found[i] for i in sorted(found)]
                nodes = [n for n in nodes if _matches(n, node_type, source)][offset : offset + limit]
            elif args.get("text") is not None:
                nodes = self._search_filtered(_query(args["text"], "text"), node_type, source, offset + limit)
                nodes = nodes[offset : offset + limit]
            else:
                nodes = self.store.list_nodes(node_type=node_type, source=source, limit=limit, offset=offset)
            edges = self.store.list_edges_between([n.id for n in nodes]) if include_edges else []
            total_nodes, total_edges = self.store.counts()
        return {
            "count": len(nodes),
            "nodes": [n.to_dict() for n in nodes],
            "edges": [e.to_dict() for e in edges],
            "store": {"nodes": total_nodes, "edges": total_edges},
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
        self, args: Mapping[str, Any], trigger: str = "retrieve_context", record: bool = True
    ) -> dict[str, Any]:
        query = _query(args.get("query"))
        limit = _int(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        top_k = _int(args, "top_k", limit, 1, MAX_LIMIT)
        hops = _int(args, "expand_hops", 1, 0, MAX_HOPS)
        node_types = _node_types(args.get("node_types"))
        return retrieve_context(
            self.store,
            query,
            telemetry=self.telemetry,
            now=self.clock,
            limit=limit,
            top_k=top_k,
            expand_hops=hops,
            node_types=node_types,
            embedder=self.embedder,
            trigger=trigger,
            record=record,
            exact_limit=self.exact_limit,
        )

    def analyze_topology(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The canonical topology of ``node_ids``, of what ``query`` retrieves, or of the whole
        graph, plus the ``recommendation`` sentence."""
        has_ids, has_query = args.get("node_ids") is not None, args.get("query") is not None
        if has_ids and has_query:
            raise InvalidInput("give node_ids or query, not both")
        if has_query:  # retrieval that only looks: no access counted
            response = self.retrieve_context({"query": args["query"]}, trigger="analyze_topology", record=False)
            topology = response["topology"]
        else:
            with self.store.reading():
                if has_ids:
                    ids = _id_list(args["node_ids"])
                    _unknown(ids, self.store.get_nodes(ids))
                    edges = self.store.list_edges_between(ids)
                else:
                    ids = self.store.node_ids()
                    edges = self.store.all_edges()
            topology = analyze_nodes(
                ids, edges, telemetry=self.telemetry, trigger="analyze_topology", exact_limit=self.exact_limit
            )
        return {**topology, "recommendation": recommendation(topology)}

    def get_metrics(self) -> dict[str, Any]:
        nodes, edges = self.store.counts()
        return {**self.metrics.snapshot(), "store": {"kind": self.store.kind, "nodes": nodes, "edges": edges}}

    # ------------------------------------------------------------ the editor
    def export_document(self, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The memory (or ``node_ids``, or what ``query`` retrieves) as a Bendscope document."""
        args = args or {}
        if args.get("node_ids") is not None and args.get("query") is not None:
            raise InvalidInput("give node_ids or query, not both")
        query = None
        if args.get("query") is not None:
            query = self.retrieve_context({"query": args["query"], "limit": args.get("limit", MAX_LIMIT)}, record=False)
        with self.store.reading():
            if args.get("node_ids") is not None:
                ids = _id_list(args["node_ids"])
                found = self.store.get_nodes(ids)
                _unknown(ids, found)
                nodes = list(found.values())
            elif query is not None:
                nodes = list(self.store.get_nodes(r["id"] for r in query["results"]).values())
            else:
                nodes = list(self.store.get_nodes(self.store.node_ids()).values())
            edges = self.store.list_edges_between([n.id for n in nodes])
        return to_document(nodes, edges)

    def import_document(self, text: str | bytes, *, replace: bool = False) -> dict[str, Any]:
        """Store every node and edge of a Bendscope document (upsert by id), all or nothing.
        With ``replace`` the store becomes the document: what it does not hold is deleted
        (so deletions made in the editor come back too)."""
        with self.store.transaction():
            now = self.clock()
            existing = self.store.get_nodes(self.store.node_ids())
            nodes, edges = from_document(text, now=now, existing=existing)
            created = updated = 0
            for node in nodes:
                old = existing.get(node.id)
                if old is None:
                    created += 1
                elif not _same_node(old, node):
                    updated += 1
                else:
                    continue
                self.store.put_node(node)
            deleted_nodes = deleted_edges = 0
            if replace:
                keep_edges = {e.id for e in edges}
                for old_edge in self.store.all_edges():
                    if old_edge.id not in keep_edges:
                        deleted_edges += self.store.delete_edge(old_edge.id)
                keep_nodes = {n.id for n in nodes}
                for node_id in existing:
                    if node_id not in keep_nodes:
                        self.store.delete_node(node_id)
                        deleted_nodes += 1
            edges_created = 0
            for edge in edges:
                if self.store.get_edge(edge.id) is None:
                    edges_created += 1
                self.store.put_edge(edge)
        return {
            "status": "imported",
            "nodes": len(nodes),
            "edges": len(edges),
            "nodes_created": created,
            "nodes_updated": updated,
            "edges_created": edges_created,
            "nodes_deleted": deleted_nodes,
            "edges_deleted": deleted_edges,
        }


def _matches(node: MemoryNode, node_type: str | None, source: str | None) -> bool:
    return (node_type is None or node.node_type == node_type) and (source is None or node.source == source)


def _same_node(old: MemoryNode, new: MemoryNode) -> bool:
    """Equal apart from ``updated_at`` (a store of the same facts changes nothing)."""
    return old.to_dict() | {"updated_at": ""} == new.to_dict() | {"updated_at": ""}
