"""One namespace of a store: a store over another that holds only the nodes of that namespace
(``ScopedView``), so that memories kept apart on one store never meet.

A node's namespace is its ``metadata.namespace`` (none: the store's unscoped part). A scoped
view reads only the nodes of its namespace and the edges whose two ends are among them —
search, retrieval's expansion, topology, exports and pages all read through it — and writes
through to the store: a node it writes is put in its namespace, an id held by a node of
another namespace is refused (ids are one space per store), and an edge must join two nodes
of the namespace. The loop index, vectors, retrievals and outcomes are the store's (edges
never cross namespaces, so a loop lies inside one). Reading a whole namespace is O(its nodes):
each store keeps the nodes of a namespace indexed (``Store.namespace_ids``).

>>> from bendscope.memory.store.inmemory import InMemoryStore
>>> from bendscope.memory.core.records import MemoryNode
>>> base = InMemoryStore()
>>> ScopedView(base, "alice").put_node(MemoryNode("a1", "Alice likes tea"))
>>> base.put_node(MemoryNode("b1", "Bob likes tea"))
>>> [i for i, _ in ScopedView(base, "alice").search("tea", 10)], sorted(base.node_ids())
(['a1'], ['a1', 'b1'])
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..core.errors import Conflict, InvalidInput
from ..core.records import LoopRecord, MemoryEdge, MemoryNode, OutcomeRecord, RetrievalRecord
from .base import Store

#: the most lexical matches looked at to fill a search of one namespace
MAX_POOL = 20_000
#: the longest namespace name
MAX_NAMESPACE = 200


def namespace_of(node: MemoryNode) -> str | None:
    """The namespace a node is in (None: unscoped)."""
    value = node.metadata.get("namespace")
    return value if isinstance(value, str) else None


def check_namespace(value: Any) -> str:
    """A namespace name: a non-empty string of at most MAX_NAMESPACE characters, one line.

    >>> check_namespace(" alice ")
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: namespace must not begin or end with spaces
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("namespace must be a non-empty string")
    if len(value) > MAX_NAMESPACE or any(c in value for c in "\n\r\t\x00"):
        raise InvalidInput(f"namespace must be one line of at most {MAX_NAMESPACE} characters")
    if value != value.strip():
        raise InvalidInput("namespace must not begin or end with spaces")
    return value


class ScopedView(Store):
    """``store``, as the nodes of ``namespace`` (and the edges among them) alone."""

    def __init__(self, store: Store, namespace: str, *, sealed: bool = False) -> None:
        self.store = store
        self.namespace = check_namespace(namespace)
        #: a view its reader may not see past (a server for one namespace): nothing it answers
        #: tells another namespace's ids from free ones, save that an id is taken
        self.sealed = sealed
        self.kind = store.kind
        self.location = store.location
        self.parallel_calls = store.parallel_calls
        self.read_only = store.read_only

    def __getattr__(self, name: str) -> Any:  # (a backend's own attributes: schema_version, …)
        if name == "store":
            raise AttributeError(name)
        return getattr(self.store, name)

    def _in(self, node: MemoryNode) -> bool:
        return namespace_of(node) == self.namespace

    def _scoped_edges(self, edges: list[MemoryEdge]) -> list[MemoryEdge]:
        ends = self.get_nodes({n for e in edges for n in (e.source_id, e.target_id)})
        return [e for e in edges if e.source_id in ends and e.target_id in ends]

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        return self.store.transaction()

    def reading(self) -> contextlib.AbstractContextManager[None]:
        return self.store.reading()

    # -- nodes
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        return {i: n for i, n in self.store.get_nodes(node_ids).items() if self._in(n)}

    def put_node(self, node: MemoryNode) -> None:
        given = namespace_of(node)
        if given is not None and given != self.namespace:
            raise InvalidInput(f"metadata.namespace is {given!r}, not the namespace written to ({self.namespace!r})")
        old = self.store.get_node(node.id)
        if old is not None and not self._in(old):
            if self.sealed:
                raise Conflict(
                    f"the id {node.id!r} is taken: ids are one space per store; give this node another id (or a "
                    "key); nothing was stored"
                )
            raise Conflict(
                f"the id {node.id!r} is held by a node of another namespace; ids are shared by the whole "
                "store: give this node another id; nothing was stored"
            )
        if given is None:
            node = replace(node, metadata={**node.metadata, "namespace": self.namespace})
        self.store.put_node(node)

    def _drop_node(self, node_id: str) -> list[str]:
        if not self.get_nodes([node_id]):
            return []
        return self.store._drop_node(node_id)

    def _every(self) -> dict[str, MemoryNode]:
        return self.get_nodes(self.store.namespace_ids(self.namespace))

    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        chosen = [
            n
            for n in self._every().values()
            if (node_type is None or n.node_type == node_type) and (source is None or n.source == source)
        ]
        return sorted(chosen, key=lambda n: n.id)[offset : offset + limit]

    def node_ids(self) -> list[str]:
        return sorted(self._every())

    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        self.store.record_access(node_ids, when)

    def record_retrieval(
        self, node_ids: Iterable[str], edge_ids: Iterable[str], when: str, log: RetrievalRecord | None = None
    ) -> None:
        self.store.record_retrieval(node_ids, edge_ids, when, log)

    # -- edges
    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        found = self.store.get_edges(edge_ids)
        kept = {e.id for e in self._scoped_edges(list(found.values()))}
        return {i: e for i, e in found.items() if i in kept}

    def put_edge(self, edge: MemoryEdge) -> None:
        if len(self.get_nodes([edge.source_id, edge.target_id])) < len({edge.source_id, edge.target_id}):
            raise InvalidInput(f"an edge in namespace {self.namespace!r} joins two of its nodes; nothing was stored")
        self.store.put_edge(edge)

    def _drop_edge(self, edge_id: str) -> bool:
        return bool(self.get_edges([edge_id])) and self.store._drop_edge(edge_id)

    def list_edges_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        return self.store.list_edges_between(self.get_nodes(node_ids))

    def edges_touching(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        return self._scoped_edges(self.store.edges_touching(self.get_nodes(node_ids)))

    def all_edges(self) -> list[MemoryEdge]:
        return self.store.list_edges_between(self.node_ids())

    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        self.store.record_activation(edge_ids, when)

    # -- change numbers (the store's: its ids, then read through this view, are this namespace's)
    def change_number(self) -> int | None:
        return self.store.change_number()

    def changed_since(self, number: int) -> tuple[list[str], list[str]] | None:
        return self.store.changed_since(number)

    def bounds_between(self, after: str, until: str) -> tuple[list[str], list[str]]:
        return self.store.bounds_between(after, until)

    # -- versions
    def put_versions(self, nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge]) -> None:
        self.store.put_versions(nodes, edges)

    def _erase(self, node_ids: Iterable[str], edge_ids: Iterable[str]) -> bool:
        return self.store._erase(node_ids, edge_ids)

    def versions_known_at(self, at: str) -> tuple[dict[str, MemoryNode], dict[str, MemoryEdge]]:
        nodes, edges = self.store.versions_known_at(at)
        kept = {i: n for i, n in nodes.items() if self._in(n)}
        return kept, edges

    def history(
        self, node_ids: Iterable[str], edge_ids: Iterable[str]
    ) -> tuple[dict[str, list[MemoryNode]], dict[str, list[MemoryEdge]]]:
        nodes, edges = self.store.history(node_ids, edge_ids)
        ends = self.get_nodes({n for vs in edges.values() for n in (vs[-1].source_id, vs[-1].target_id)})
        kept = {i: vs for i, vs in edges.items() if vs[-1].source_id in ends and vs[-1].target_id in ends}
        return {i: vs for i, vs in nodes.items() if self._in(vs[-1])}, kept

    def edge_versions_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        return self.store.edge_versions_between(node_ids)

    def all_versions(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        nodes, edges = self.store.all_versions()
        kept = [n for n in nodes if self._in(n)]
        ids = {n.id for n in kept} | set(self.node_ids())
        return kept, [e for e in edges if e.source_id in ids and e.target_id in ids]

    def recorded_moments(self) -> list[tuple[str, int]]:
        """This namespace's moments alone: those of its nodes' and edges' versions, now and past
        (as the store counts them). O(the store's versions)."""
        nodes, edges = self.all_versions()
        current: list[MemoryNode | MemoryEdge] = [*self.get_nodes(self.node_ids()).values(), *self.all_edges()]
        times: Counter[str] = Counter(r.recorded_at for r in current)
        past: list[MemoryNode | MemoryEdge] = [*nodes, *edges]
        for v in past:
            times.update([v.recorded_at, v.recorded_until or v.recorded_at])
        return sorted(times.items())

    def put_forwards(self, merged: Mapping[str, str], at: str) -> None:
        self.store.put_forwards(merged, at)

    def forwards(self, node_ids: Iterable[str] | None = None) -> dict[str, tuple[str, str]]:
        found = self.store.forwards(node_ids)
        if not self.sealed or not found:
            return found
        targets = {into for into, _ in found.values()}
        ours = set(self.get_nodes(targets)) | set(self.history(targets, [])[0])
        return {i: f for i, f in found.items() if f[0] in ours}

    def term_weights(self, words: list[str]) -> tuple[int, int, dict[str, int]]:
        return self.store.term_weights(words)

    # -- vectors (the store's: a nearest vector of another namespace is left out by get_nodes)
    def put_vectors(self, model: str, vectors: Mapping[str, bytes]) -> None:
        self.store.put_vectors(model, vectors)

    def get_vectors(self, model: str, node_ids: Iterable[str]) -> dict[str, bytes]:
        return self.store.get_vectors(model, node_ids)

    def all_vectors(self, model: str) -> list[tuple[str, bytes]]:
        return self.store.all_vectors(model)

    def missing_vectors(self, model: str, limit: int) -> list[str]:
        return self.store.missing_vectors(model, limit)

    def vectors_version(self) -> int:
        return self.store.vectors_version()

    # -- the loop index (loops lie inside a namespace)
    def arc_versions(self) -> tuple[int, int]:
        return self.store.arc_versions()

    def set_loops_version(self, version: int) -> None:
        self.store.set_loops_version(version)

    def node_loops(self, node_ids: Iterable[str]) -> dict[str, str]:
        return self.store.node_loops(node_ids)

    def get_loops(self, loop_ids: Iterable[str]) -> dict[str, LoopRecord]:
        return self.store.get_loops(loop_ids)

    def loop_sizes(self, loop_ids: Iterable[str]) -> dict[str, tuple[int, int, bool]]:
        return self.store.loop_sizes(loop_ids)

    def all_loops(self) -> list[LoopRecord]:
        return self.store.all_loops()

    def replace_loops(self, remove: Iterable[str], add: Iterable[LoopRecord]) -> None:
        self.store.replace_loops(remove, add)

    # -- what the agent reported, and the memory's state
    def log_retrieval(self, record: RetrievalRecord) -> None:
        self.store.log_retrieval(record)

    def get_retrievals(self, retrieval_ids: Iterable[str]) -> dict[str, RetrievalRecord]:
        return self.store.get_retrievals(retrieval_ids)

    def forget_retrievals(self, before: str) -> int:
        return self.store.forget_retrievals(before)

    def add_outcome(self, record: OutcomeRecord) -> int:
        return self.store.add_outcome(record)

    def outcome_groups(self) -> list[tuple[str, str, int, bool, str, int | None, int, int]]:
        return self.store.outcome_groups()

    def get_state(self, key: str) -> str | None:
        return self.store.get_state(key)

    def set_state(self, key: str, value: str) -> None:
        self.store.set_state(key, value)

    # -- search and size
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        pool = limit
        while True:
            found = self.store.search(query, pool)
            inside = self.get_nodes(i for i, _ in found)
            kept = [(i, s) for i, s in found if i in inside]
            if len(kept) >= limit or len(found) < pool or pool >= MAX_POOL:
                return kept[:limit]
            pool = min(pool * 4, MAX_POOL)

    def score(self, query: str, node_ids: Iterable[str]) -> dict[str, float]:
        return self.store.score(query, self.get_nodes(node_ids))

    def counts(self) -> tuple[int, int]:
        ids = self.node_ids()
        return len(ids), len(self.store.list_edges_between(ids))

    def close(self) -> None:
        """The store stays open: it is its owner's to close."""
