"""Documents and dumps in and out of the memory."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ...io.documents import Reuse, from_document, to_document
from ...io.dump import Dump, dump_lines, read_dump
from ..arguments import id_list
from ..errors import InvalidInput
from ..records import RECORDING, MemoryEdge, MemoryNode, moment, same_fact
from ..requests import MAX_NODE_IDS
from ..retrieval import (
    MAX_LIMIT,
)
from .reading import Reading
from .state import _in_graph
from .writing import Writing

logger = logging.getLogger(__name__)


def _upsert(put: Callable[[Any], None], old: Any, new: Any) -> str:
    """Write ``new`` over ``old`` (a node or an edge, or None): "created", "updated" (a new
    version), or "same" (the same fact: only statistics that differ are written, in place)."""
    if old is None or not same_fact(old, new):
        put(new)
        return "created" if old is None else "updated"
    blank = dict.fromkeys(RECORDING, "")
    if old.to_dict() | blank != new.to_dict() | blank:
        kept = {"updated_at": old.updated_at} if isinstance(old, MemoryNode) else {}
        put(dataclasses.replace(new, recorded_at=old.recorded_at, **kept))
    return "same"


class Exchange(Writing, Reading):
    """Documents and dumps in and out of the memory."""

    def export_document(self, args: Mapping[str, Any] | None = None, *, reuse: Reuse | None = None) -> dict[str, Any]:
        """The memory (or ``node_ids``, or what ``query`` retrieves) as a Bendscope document:
        as the memory knew it at ``known_at`` (now by default); ``as_of``: only the nodes and
        edges that held then. ``reuse``: the records made last time (``to_document``)."""
        args = args or {}
        if args.get("node_ids") is not None and args.get("query") is not None:
            raise InvalidInput("give node_ids or query, not both")
        known_at = None if args.get("known_at") is None else moment(args["known_at"], "known_at")
        as_of = None if args.get("as_of") is None else moment(args["as_of"], "as_of")
        query = None
        if args.get("query") is not None:
            asked = {
                "query": args["query"],
                "limit": args.get("limit", MAX_LIMIT),
                "known_at": known_at,
                "as_of": as_of,
            }
            query = self.retrieve_context(asked, record=False, gather=True)
        edges: list[MemoryEdge] | None = None  # (read with the nodes when they are all of them)
        with self._known(known_at) as store, store.reading():
            if args.get("node_ids") is not None:
                ids = id_list(MAX_NODE_IDS)(args["node_ids"], "node_ids")
                found = store.get_nodes(ids)
                ids, _ = self._named(store, ids, found)
                nodes = [found[i] for i in ids]
            elif query is not None:
                nodes = list(store.get_nodes(r["id"] for r in query["results"]).values())
            else:
                nodes, edges = store.whole_graph()
            if as_of is not None:
                nodes = [n for n in nodes if n.valid_at(as_of)]
            if edges is None or as_of is not None:
                edges = store.list_edges_between([n.id for n in nodes])
        if as_of is not None:
            ends = {n.id: n for n in nodes}
            edges = [e for e in edges if _in_graph(e, ends, as_of)]
        return to_document(nodes, edges, reuse=reuse)

    def import_document(self, text: str | bytes, *, replace: bool = False) -> dict[str, Any]:
        """Store every node and edge of a Bendscope document (upsert by id: a changed one is a
        new version), all or nothing. With ``replace`` the store becomes the document: what it
        does not hold is ended (so deletions made in the editor come back too; its versions
        stay)."""
        with self.store.transaction():
            now = self.clock()
            existing = self.store.get_nodes(self.store.node_ids())
            nodes, edges = from_document(text, now=now, existing=existing)
            return self._put_all(Dump(nodes, edges), existing, replace, erase=False)

    def import_dump(self, lines: Iterable[bytes], *, replace: bool = False) -> dict[str, Any]:
        """Store every node and edge of a dump (``memory.dump``: any size, every field and
        version kept), all or nothing, as ``import_document`` does; with ``replace`` the store
        becomes the dump, its versions and merges included (what it does not hold is erased).
        O(size)."""
        dump = read_dump(lines, self.clock())
        with self.store.transaction():
            existing = self.store.get_nodes(self.store.node_ids())
            known = {n.id for n in dump.nodes} | (set() if replace else set(existing))
            loose = [e.id for e in dump.edges if e.source_id not in known or e.target_id not in known]
            if loose:
                raise InvalidInput(f"edge {loose[0]!r} joins a node the dump and the store lack; nothing was stored")
            return self._put_all(dump, existing, replace, erase=True)

    def dump_lines(self) -> Iterator[str]:
        """The whole memory as a dump's lines (``memory.dump``), read in one snapshot."""
        with self.store.reading():
            nodes = self.store.get_nodes(self.store.node_ids())
            edges = self.store.all_edges()
            node_versions, edge_versions = self.store.all_versions()
            merges = self.store.forwards()
        return dump_lines(Dump([nodes[i] for i in sorted(nodes)], edges, node_versions, edge_versions, merges))

    def _put_all(self, dump: Dump, existing: dict[str, MemoryNode], replace: bool, erase: bool) -> dict[str, Any]:
        """Upsert the dump's nodes and edges (in the open transaction); ``replace``: end the
        rest (``erase``: erase it, versions and merges included); its past versions and merges
        are kept, those the store holds already once."""
        nodes, edges = dump.nodes, dump.edges
        deleted_nodes = deleted_edges = 0
        if replace:
            keep_edges = {e.id for e in edges}
            gone_edges = [e.id for e in self.store.all_edges() if e.id not in keep_edges]
            gone_nodes = [i for i in existing if i not in {n.id for n in nodes}]
            if erase:
                for edge_id in gone_edges:
                    self.store.delete_edge(edge_id)
                for node_id in gone_nodes:
                    self.store.delete_node(node_id)
            else:
                now = self.clock()
                self.store.retract([], gone_edges, now)
                self.store.retract(gone_nodes, [], now)
            deleted_nodes, deleted_edges = len(gone_nodes), len(gone_edges)
        created = updated = 0
        for node in nodes:
            done = _upsert(self.store.put_node, existing.get(node.id), node)
            created, updated = created + (done == "created"), updated + (done == "updated")
        edges_created = 0
        found_edges = self.store.get_edges(e.id for e in edges)
        for edge in edges:
            edges_created += _upsert(self.store.put_edge, found_edges.get(edge.id), edge) == "created"
        if replace and erase:  # (the store's own history too: it becomes the dump's)
            past_nodes, past_edges = self.store.all_versions()
            merged = set(self.store.forwards())
            self.store.erase_versions({v.id for v in past_nodes} | merged, {v.id for v in past_edges})
        self._put_history(dump)
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

    def _put_history(self, dump: Dump) -> None:
        """Keep a dump's past versions the store does not hold yet, and its merges."""
        if dump.node_versions or dump.edge_versions:
            held_nodes, held_edges = self.store.history({v.id for v in dump.node_versions},
                                                        {v.id for v in dump.edge_versions})  # fmt: skip

            def new(versions: list[Any], held: Mapping[str, list[Any]]) -> list[Any]:
                kept = {(v.recorded_at, v.recorded_until) for vs in held.values() for v in vs}
                return [v for v in versions if (v.recorded_at, v.recorded_until) not in kept or v.id not in held]

            self.store.put_versions(new(dump.node_versions, held_nodes), new(dump.edge_versions, held_edges))
        if dump.merges:
            for into, at in sorted(set(dump.merges.values())):
                self.store.put_forwards({k: v[0] for k, v in dump.merges.items() if v == (into, at)}, at)
