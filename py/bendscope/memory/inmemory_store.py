"""A store in plain dicts, for tests and ``--store :memory:``. Same contract as the
SQLite store: transactions (a failed one is undone), cascading node deletion, BM25
search with FTS5's tokenization and formula (so both rank plain text alike)."""

from __future__ import annotations

import contextlib
import copy
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace

from .errors import NotFound
from .records import MemoryEdge, MemoryNode
from .store import Store
from .text import fold, query_words, tokenize

K1 = 1.2  # BM25 parameters, as FTS5's bm25()
B = 0.75
MIN_IDF = 1e-6  # FTS5 clamps the IDF of terms in more than half the rows to this


class InMemoryStore(Store):
    kind = "memory"

    def __init__(self, *, read_only: bool = False) -> None:
        self.read_only = read_only
        self.nodes: dict[str, MemoryNode] = {}
        self.edges: dict[str, MemoryEdge] = {}
        self._terms: dict[str, Counter[str]] = {}  # node id → term frequencies
        self._postings: dict[str, set[str]] = {}  # term → node ids
        self._depth = 0
        self._saved: tuple[dict[str, MemoryNode], dict[str, MemoryEdge]] | None = None

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        yield  # one thread, no concurrent writer: every read is consistent

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self._depth:
            yield from self._joined()
            return
        self._refuse_writes()
        self._saved = (dict(self.nodes), dict(self.edges))
        self._depth = 1
        try:
            yield
        except BaseException:
            self.nodes, self.edges = self._saved
            self._reindex()
            raise
        finally:
            self._depth = 0
            self._saved = None

    # ------------------------------------------------------------ index
    def _index(self, node: MemoryNode) -> None:
        self._unindex(node.id)
        terms = Counter(tokenize(node.content))
        self._terms[node.id] = terms
        for term in terms:
            self._postings.setdefault(term, set()).add(node.id)

    def _unindex(self, node_id: str) -> None:
        for term in self._terms.pop(node_id, ()):
            ids = self._postings.get(term)
            if ids is not None:
                ids.discard(node_id)
                if not ids:
                    del self._postings[term]

    def _reindex(self) -> None:
        self._terms.clear()
        self._postings.clear()
        for node in self.nodes.values():
            self._index(node)

    # ------------------------------------------------------------ nodes
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        found = {i: self.nodes[i] for i in set(node_ids) if i in self.nodes}
        return {i: copy.deepcopy(found[i]) for i in sorted(found)}

    def put_node(self, node: MemoryNode) -> None:
        with self.transaction():
            old = self.nodes.get(node.id)
            self.nodes[node.id] = copy.deepcopy(node)
            if old is None or old.content != node.content:
                self._index(node)

    def delete_node(self, node_id: str) -> list[str]:
        with self.transaction():
            doomed = sorted(e.id for e in self.edges.values() if node_id in (e.source_id, e.target_id))
            for edge_id in doomed:
                del self.edges[edge_id]
            if self.nodes.pop(node_id, None) is not None:
                self._unindex(node_id)
        return doomed

    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        chosen = [
            n
            for _, n in sorted(self.nodes.items())
            if (node_type is None or n.node_type == node_type) and (source is None or n.source == source)
        ]
        return [copy.deepcopy(n) for n in chosen[offset : offset + limit]]

    def node_ids(self) -> list[str]:
        return sorted(self.nodes)

    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        with self.transaction():
            for node_id in set(node_ids):
                node = self.nodes.get(node_id)
                if node is not None:
                    self.nodes[node_id] = replace(node, access_count=node.access_count + 1, last_accessed_at=when)

    # ------------------------------------------------------------ edges
    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        found = {i: self.edges[i] for i in set(edge_ids) if i in self.edges}
        return {i: copy.deepcopy(found[i]) for i in sorted(found)}

    def put_edge(self, edge: MemoryEdge) -> None:
        if edge.source_id not in self.nodes or edge.target_id not in self.nodes:
            raise NotFound(f"edge {edge.id!r}: its source or target node does not exist")
        with self.transaction():
            self.edges[edge.id] = copy.deepcopy(edge)

    def delete_edge(self, edge_id: str) -> bool:
        with self.transaction():
            return self.edges.pop(edge_id, None) is not None

    def list_edges_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = set(node_ids)
        return [copy.deepcopy(e) for _, e in sorted(self.edges.items()) if e.source_id in ids and e.target_id in ids]

    def edges_touching(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = set(node_ids)
        return [copy.deepcopy(e) for _, e in sorted(self.edges.items()) if e.source_id in ids or e.target_id in ids]

    def all_edges(self) -> list[MemoryEdge]:
        return [copy.deepcopy(e) for _, e in sorted(self.edges.items())]

    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        with self.transaction():
            for edge_id in set(edge_ids):
                edge = self.edges.get(edge_id)
                if edge is not None:
                    self.edges[edge_id] = replace(edge, last_activated_at=when)

    # ------------------------------------------------------------ search and size
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over the node contents, as FTS5 computes it: O(postings of the words)."""
        terms = [fold(word) for word in query_words(query)]
        n = len(self._terms)
        if not terms or limit <= 0 or n == 0:
            return []
        average = sum(sum(t.values()) for t in self._terms.values()) / n
        scores: dict[str, float] = {}
        for term in terms:
            ids = self._postings.get(term)
            if not ids:
                continue
            idf = math.log((n - len(ids) + 0.5) / (len(ids) + 0.5))
            idf = idf if idf > 0 else MIN_IDF
            for node_id in ids:
                tf = self._terms[node_id][term]
                length = sum(self._terms[node_id].values())
                scores[node_id] = scores.get(node_id, 0.0) + idf * tf * (K1 + 1) / (
                    tf + K1 * (1 - B + B * length / average)
                )
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(node_id, score) for node_id, score in ranked[:limit] if score > 0]

    def counts(self) -> tuple[int, int]:
        return len(self.nodes), len(self.edges)
