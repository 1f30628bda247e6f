"""The memory as it was known at a past time: a read-only store over another (``PastView``).

At ``known_at`` the memory held, of each node and edge, the version recorded at or before
then and not yet replaced or ended: the current version if it was recorded by then, else the
past version that was current then (``Store.versions_known_at``), else none (recorded later,
or ended by then). A ``PastView`` answers every reading retrieval, ``analyze_topology``,
``query_graph``, ``list_edges`` and exports make with those versions, so each of them reads the
past by the same code that reads the present.

Search finds a node by the text it had then: the current versions recorded by then are found
by the store's own search; the past versions are scored by the same BM25, with the weights
of the store's terms as they are now (document frequencies, average length) — the one
ranking every backend computes alike. A past view has no loop index (its loops are searched
for) and no stored vectors for versions whose text changed since (those are embedded for the
call). Open it inside a reading of the store (``Store.reading``): it reads the versions
once. O(the versions replaced since ``known_at``) to open.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import NoReturn

from ..core.errors import ReadOnly
from ..core.records import LoopRecord, MemoryEdge, MemoryNode, OutcomeRecord, RetrievalRecord
from ..core.text import query_terms, terms
from .base import K1, B, Store

MIN_IDF = 1e-6  # FTS5 clamps the IDF of terms in more than half the rows to this
#: the most current matches looked at for those recorded by then
MAX_POOL = 20_000


def bm25(counts: Mapping[str, int], words: list[str], weights: tuple[int, int, Mapping[str, int]]) -> float:
    """BM25 of a text whose term counts are ``counts`` for the query terms ``words``, summed in
    their order as every store sums it, with a corpus of ``weights`` (nodes, terms in all,
    document frequencies; an empty corpus weighs every term alike).

    >>> round(bm25({"ice": 2, "melt": 1}, ["ice"], (10, 30, {"ice": 2})), 6)
    1.682691
    """
    rows, tokens, frequency = weights
    average = tokens / rows if rows and tokens else 1.0
    length = sum(counts.values())
    score = 0.0
    for word in words:
        tf = counts.get(word, 0)
        if not tf:
            continue
        df = frequency.get(word, 0)
        idf = math.log((rows - df + 0.5) / (df + 0.5))
        idf = idf if idf > 0 else MIN_IDF
        score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
    return score


class PastView(Store):
    """``store`` as the memory knew it at ``known_at`` (read-only)."""

    read_only = True

    def __init__(self, store: Store, known_at: str) -> None:
        self.store = store
        self.known_at = known_at
        self.kind = store.kind
        self.location = store.location
        self._past_nodes, self._past_edges = store.versions_known_at(known_at)
        self._ends: dict[str, set[str]] = {}  # node id → the past edge versions touching it
        for edge in self._past_edges.values():
            for end in (edge.source_id, edge.target_id):
                self._ends.setdefault(end, set()).add(edge.id)
        self._terms: dict[str, Counter[str]] = {}
        self._all: dict[str, MemoryNode] | None = None

    def _known(self, record: MemoryNode | MemoryEdge) -> bool:
        """Whether a current version was recorded by then."""
        return record.recorded_at <= self.known_at

    def _refuse(self) -> NoReturn:
        raise ReadOnly("a reading of the past writes nothing")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self._refuse()
        yield  # pragma: no cover - never reached

    def reading(self) -> contextlib.AbstractContextManager[None]:
        return self.store.reading()

    # ------------------------------------------------------------ nodes
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        ids = list(dict.fromkeys(node_ids))
        found = {i: n for i, n in self.store.get_nodes(ids).items() if self._known(n)}
        found.update({i: self._past_nodes[i] for i in ids if i in self._past_nodes})
        return {i: found[i] for i in sorted(found)}

    def _every_node(self) -> dict[str, MemoryNode]:
        if self._all is None:
            current = self.store.get_nodes(self.store.node_ids())
            known = {i: n for i, n in current.items() if self._known(n)} | self._past_nodes
            self._all = {i: known[i] for i in sorted(known)}
        return self._all

    def node_ids(self) -> list[str]:
        return list(self._every_node())

    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        chosen = [
            n
            for n in self._every_node().values()
            if (node_type is None or n.node_type == node_type) and (source is None or n.source == source)
        ]
        return chosen[offset : offset + limit]

    def put_node(self, node: MemoryNode) -> None:
        self._refuse()

    def _drop_node(self, node_id: str) -> list[str]:
        self._refuse()

    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        self._refuse()

    # ------------------------------------------------------------ edges
    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        ids = list(dict.fromkeys(edge_ids))
        found = {i: e for i, e in self.store.get_edges(ids).items() if self._known(e)}
        found.update({i: self._past_edges[i] for i in ids if i in self._past_edges})
        return {i: found[i] for i in sorted(found)}

    def _merged(self, current: list[MemoryEdge], past: Iterable[str]) -> list[MemoryEdge]:
        found = {e.id: e for e in current if self._known(e)}
        found.update({i: self._past_edges[i] for i in past})
        return [found[i] for i in sorted(found)]

    def list_edges_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = set(node_ids)
        near = {i for n in ids for i in self._ends.get(n, ())}
        past = [i for i in near if {self._past_edges[i].source_id, self._past_edges[i].target_id} <= ids]
        return self._merged(self.store.list_edges_between(ids), past)

    def edges_touching(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = set(node_ids)
        return self._merged(self.store.edges_touching(ids), {i for n in ids for i in self._ends.get(n, ())})

    def all_edges(self) -> list[MemoryEdge]:
        return self._merged(self.store.all_edges(), self._past_edges)

    def put_edge(self, edge: MemoryEdge) -> None:
        self._refuse()

    def _drop_edge(self, edge_id: str) -> bool:
        self._refuse()

    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        self._refuse()

    # ------------------------------------------------------------ versions
    def put_versions(self, nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge]) -> None:
        self._refuse()

    def _erase(self, node_ids: Iterable[str], edge_ids: Iterable[str]) -> bool:
        self._refuse()

    def versions_known_at(self, at: str) -> tuple[dict[str, MemoryNode], dict[str, MemoryEdge]]:
        return self.store.versions_known_at(min(at, self.known_at))

    def history(
        self, node_ids: Iterable[str], edge_ids: Iterable[str]
    ) -> tuple[dict[str, list[MemoryNode]], dict[str, list[MemoryEdge]]]:
        return self.store.history(node_ids, edge_ids)

    def edge_versions_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        return self.store.edge_versions_between(node_ids)

    def all_versions(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        return self.store.all_versions()

    def recorded_moments(self) -> list[tuple[str, int]]:
        return [(t, n) for t, n in self.store.recorded_moments() if t <= self.known_at]

    def put_forwards(self, merged: Mapping[str, str], at: str) -> None:
        self._refuse()

    def forwards(self, node_ids: Iterable[str] | None = None) -> dict[str, tuple[str, str]]:
        return {k: v for k, v in self.store.forwards(node_ids).items() if v[1] <= self.known_at}

    def term_weights(self, words: list[str]) -> tuple[int, int, dict[str, int]]:
        return self.store.term_weights(words)

    # ------------------------------------------------------------ search and size
    def _counts(self, node: MemoryNode) -> Counter[str]:
        if node.id not in self._terms:
            self._terms[node.id] = Counter(terms(node.content))
        return self._terms[node.id]

    def _past_scores(self, query: str, nodes: Iterable[MemoryNode]) -> dict[str, float]:
        words = query_terms(query)
        chosen = [n for n in nodes if any(w in self._counts(n) for w in words)]
        if not chosen:
            return {}
        weights = self.store.term_weights(words)
        return {n.id: bm25(self._counts(n), words, weights) for n in chosen}

    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """The current versions recorded by then that match (the store's search, a larger
        pool while later ones are left out), and the past versions that match (BM25 with the
        store's weights), best first; ties by id."""
        if limit <= 0 or not query_terms(query):
            return []
        pool = limit
        while True:
            found = self.store.search(query, pool)
            current = self.store.get_nodes(i for i, _ in found)
            kept = [(i, s) for i, s in found if self._known(current[i])]
            if len(kept) >= limit or len(found) < pool or pool >= MAX_POOL:
                break
            pool = min(pool * 4, MAX_POOL)
        hits = kept + [(i, s) for i, s in self._past_scores(query, self._past_nodes.values()).items() if s > 0]
        return sorted(hits, key=lambda h: (-round(h[1], 12), h[0]))[:limit]

    def score(self, query: str, node_ids: Iterable[str]) -> dict[str, float]:
        ids = set(node_ids)
        past = [self._past_nodes[i] for i in ids if i in self._past_nodes]
        current = [i for i, n in self.store.get_nodes(ids - self._past_nodes.keys()).items() if self._known(n)]
        scores = self.store.score(query, current) if current else {}
        scores.update({i: s for i, s in self._past_scores(query, past).items() if s > 0})
        return scores

    def counts(self) -> tuple[int, int]:
        return len(self._every_node()), len(self.all_edges())

    # ------------------------------------------------------------ no vectors, no loop index
    def put_vectors(self, model: str, vectors: Mapping[str, bytes]) -> None:
        self._refuse()

    def get_vectors(self, model: str, node_ids: Iterable[str]) -> dict[str, bytes]:
        ids = set(node_ids) - self._past_nodes.keys()  # (a past version's text may not be the vector's)
        return self.store.get_vectors(model, [i for i, n in self.store.get_nodes(ids).items() if self._known(n)])

    def all_vectors(self, model: str) -> list[tuple[str, bytes]]:
        return []

    def missing_vectors(self, model: str, limit: int) -> list[str]:
        return []

    def vectors_version(self) -> int:
        return -2  # (never a store's: a vector cache keeps no past view's)

    def arc_versions(self) -> tuple[int, int]:
        return 0, -1

    def set_loops_version(self, version: int) -> None:
        self._refuse()

    def node_loops(self, node_ids: Iterable[str]) -> dict[str, str]:
        return {}

    def get_loops(self, loop_ids: Iterable[str]) -> dict[str, LoopRecord]:
        return {}

    def loop_sizes(self, loop_ids: Iterable[str]) -> dict[str, tuple[int, int, bool]]:
        return {}

    def all_loops(self) -> list[LoopRecord]:
        return []

    def replace_loops(self, remove: Iterable[str], add: Iterable[LoopRecord]) -> None:
        self._refuse()

    # ------------------------------------------------------------ the agent's reports: the store's
    def log_retrieval(self, record: RetrievalRecord) -> None:
        self._refuse()

    def get_retrievals(self, retrieval_ids: Iterable[str]) -> dict[str, RetrievalRecord]:
        return self.store.get_retrievals(retrieval_ids)

    def forget_retrievals(self, before: str) -> int:
        self._refuse()

    def add_outcome(self, record: OutcomeRecord) -> int:
        self._refuse()

    def outcome_groups(self) -> list[tuple[str, str, int, bool, str, int | None, int, int]]:
        return self.store.outcome_groups()

    def get_state(self, key: str) -> str | None:
        return self.store.get_state(key)

    def set_state(self, key: str, value: str) -> None:
        self._refuse()
