"""Documents and dumps in and out of the memory."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...io.documents import from_document, to_document
from ...io.dump import dump_lines, read_dump
from ..arguments import id_list
from ..errors import InvalidInput
from ..records import (
    MemoryEdge,
    MemoryNode,
)
from ..requests import MAX_NODE_IDS
from ..retrieval import (
    MAX_LIMIT,
)
from .reading import Reading
from .state import (
    _unknown,
)
from .writing import Writing, _same_node

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)


class Exchange(Writing, Reading):
    """Documents and dumps in and out of the memory.."""

    def export_document(self, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The memory (or ``node_ids``, or what ``query`` retrieves) as a Bendscope document."""
        args = args or {}
        if args.get("node_ids") is not None and args.get("query") is not None:
            raise InvalidInput("give node_ids or query, not both")
        query = None
        if args.get("query") is not None:
            query = self.retrieve_context(
                {"query": args["query"], "limit": args.get("limit", MAX_LIMIT)}, record=False, gather=True
            )
        with self.store.reading():
            if args.get("node_ids") is not None:
                ids = id_list(MAX_NODE_IDS)(args["node_ids"], "node_ids")
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
            return self._put_all(nodes, edges, existing, replace)

    def import_dump(self, lines: Iterable[bytes], *, replace: bool = False) -> dict[str, Any]:
        """Store every node and edge of a dump (``memory.dump``: any size, every field kept),
        all or nothing, as ``import_document`` does. O(size)."""
        nodes, edges = read_dump(lines, self.clock())
        with self.store.transaction():
            existing = self.store.get_nodes(self.store.node_ids())
            known = {n.id for n in nodes} | (set() if replace else set(existing))
            loose = [e.id for e in edges if e.source_id not in known or e.target_id not in known]
            if loose:
                raise InvalidInput(f"edge {loose[0]!r} joins a node the dump and the store lack; nothing was stored")
            return self._put_all(nodes, edges, existing, replace)

    def dump_lines(self) -> Iterator[str]:
        """The whole memory as a dump's lines (``memory.dump``), read in one snapshot."""
        with self.store.reading():
            nodes = self.store.get_nodes(self.store.node_ids())
            edges = self.store.all_edges()
        return dump_lines([nodes[i] for i in sorted(nodes)], edges)

    def _put_all(
        self, nodes: list[MemoryNode], edges: list[MemoryEdge], existing: dict[str, MemoryNode], replace: bool
    ) -> dict[str, Any]:
        """Upsert ``nodes`` and ``edges`` (in the open transaction); ``replace``: delete the rest."""
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
        self.loops.rebuild()
        self._embed([n for n in nodes if n.id not in existing or existing[n.id].content != n.content])
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
