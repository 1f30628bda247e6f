"""A store in plain dicts, for tests and ``--store :memory:``. Same contract as the
SQLite store: transactions (a failed one is undone), cascading node deletion, BM25
search with FTS5's tokenization and formula (so both rank plain text alike)."""

from __future__ import annotations

import contextlib
import copy
import math
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from ..core.errors import NotFound
from ..core.records import LoopRecord, MemoryEdge, MemoryNode, OutcomeRecord, RetrievalRecord
from ..core.text import query_terms, terms
from .base import K1, KEEP_DELETIONS, B, Store

MIN_IDF = 1e-6  # FTS5 clamps the IDF of terms in more than half the rows to this


class InMemoryStore(Store):
    kind = "memory"

    def __init__(self, *, read_only: bool = False) -> None:
        self.read_only = read_only
        self.nodes: dict[str, MemoryNode] = {}
        self.edges: dict[str, MemoryEdge] = {}
        self._terms: dict[str, Counter[str]] = {}  # node id → term frequencies
        self._postings: dict[str, set[str]] = {}  # term → node ids
        self._spaces: dict[str, set[str]] = {}  # namespace → node ids
        self._depth = 0
        self.arc_version = 0
        self.loops_version = -1
        self.loops: dict[str, LoopRecord] = {}
        self.loop_of: dict[str, str] = {}  # node id → loop id
        self.retrievals: dict[str, RetrievalRecord] = {}
        self.outcomes: list[OutcomeRecord] = []
        self.state: dict[str, str] = {}
        self.vectors: dict[tuple[str, str], bytes] = {}  # (node id, model) → vector
        self.vector_version = 0
        self.node_versions: list[MemoryNode] = []  # past versions, in the order they were kept
        self.edge_versions: list[MemoryEdge] = []
        self.merges: dict[str, tuple[str, str]] = {}  # merged id → (the node it went into, when)
        self._saved: tuple[object, ...] | None = None
        #: transactions committed, and a condition notified at each (``changes``)
        self.commits = 0
        self.committed = threading.Condition()
        #: change numbers (``change_number``): the last one, and each node's and edge's last
        self.changes = 0
        self._changed: tuple[dict[str, int], dict[str, int]] = ({}, {})
        #: deletions are kept for the last ``removed_keep`` change numbers (``changed_since``)
        self.removed_keep = KEEP_DELETIONS
        self.removed_horizon = 0

    def _snapshot(self) -> tuple[object, ...]:
        return (
            dict(self.nodes),
            dict(self.edges),
            self.arc_version,
            self.loops_version,
            dict(self.loops),
            dict(self.loop_of),
            dict(self.retrievals),
            list(self.outcomes),
            dict(self.state),
            dict(self.vectors),
            self.vector_version,
            list(self.node_versions),
            list(self.edge_versions),
            dict(self.merges),
        )

    def _restore(self, saved: tuple[object, ...]) -> None:
        (self.nodes, self.edges, self.arc_version, self.loops_version, self.loops, self.loop_of,
         self.retrievals, self.outcomes, self.state, self.vectors,
         self.vector_version, self.node_versions, self.edge_versions,
         self.merges) = saved  # type: ignore[assignment]  # fmt: skip

    def _number(self, nodes: dict[str, MemoryNode], edges: dict[str, MemoryEdge]) -> None:
        """Number the nodes and edges a committed transaction wrote or deleted (those not the
        same objects as before it), raise the deletions' horizon and drop the deletions at or
        below it (as the PostgreSQL store does). O(nodes + edges), as the transaction's snapshot."""
        changed = False
        for before, now, numbers in ((nodes, self.nodes, self._changed[0]), (edges, self.edges, self._changed[1])):
            ids = [i for i, r in now.items() if before.get(i) is not r] + [i for i in before if i not in now]
            if ids and not changed:
                self.changes += 1
                self.removed_horizon = max(self.removed_horizon, self.changes - self.removed_keep)
                changed = True
            for i in ids:
                numbers[i] = self.changes
        if changed:
            for numbers, now in ((self._changed[0], self.nodes), (self._changed[1], self.edges)):
                for i in [i for i, k in numbers.items() if k <= self.removed_horizon and i not in now]:
                    del numbers[i]

    def change_number(self) -> int | None:
        return self.changes

    def changed_since(self, number: int) -> tuple[list[str], list[str]] | None:
        if number < self.removed_horizon:
            return None
        nodes, edges = (list(numbers.items()) for numbers in self._changed)  # (a copy made at once)
        return [i for i, k in nodes if k > number], [i for i, k in edges if k > number]

    def keep_deletions(self, count: int) -> None:
        super().keep_deletions(count)
        self._refuse_writes()
        self.removed_keep = count

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        yield  # one thread, no concurrent writer: every read is consistent

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self._depth:
            yield from self._joined()
            return
        self._refuse_writes()
        self._saved = saved = self._snapshot()
        self._depth = 1
        try:
            yield
        except BaseException:
            self._restore(saved)
            self._reindex()
            raise
        finally:
            self._depth = 0
            self._saved = None
        self._number(saved[0], saved[1])  # type: ignore[arg-type]
        with self.committed:
            self.commits += 1
            self.committed.notify_all()

    # ------------------------------------------------------------ index
    def _index(self, node: MemoryNode) -> None:
        self._unindex(node.id)
        counts = Counter(terms(node.content))
        self._terms[node.id] = counts
        for term in counts:
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
        self._spaces.clear()
        for node in self.nodes.values():
            self._index(node)
            self._place(None, node)

    def _place(self, old: MemoryNode | None, node: MemoryNode | None) -> None:
        """Keep the namespace index (namespace → ids) as a node is written or removed."""
        for record, add in ((old, False), (node, True)):
            space = record.metadata.get("namespace") if record is not None else None
            if record is None or not isinstance(space, str):
                continue
            ids = self._spaces.setdefault(space, set())
            if add:
                ids.add(record.id)
            else:
                ids.discard(record.id)
                if not ids:
                    del self._spaces[space]

    # ------------------------------------------------------------ nodes
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        found = {i: self.nodes[i] for i in set(node_ids) if i in self.nodes}
        return {i: copy.deepcopy(found[i]) for i in sorted(found)}

    def put_node(self, node: MemoryNode) -> None:
        with self.transaction():
            old = self.nodes.get(node.id)
            if old is not None and old.recorded_at != node.recorded_at:
                self.node_versions.append(replace(old, recorded_until=max(old.recorded_at, node.recorded_at)))
            self.nodes[node.id] = copy.deepcopy(replace(node, recorded_until=None))
            self._place(old, node)
            if old is None or old.content != node.content:
                self._index(node)
                self._drop_vectors(node.id)
            if old is not None and (old.valid_from, old.valid_until) != (node.valid_from, node.valid_until):
                self.arc_version += 1  # (which arcs hold may change)

    def _drop_node(self, node_id: str) -> list[str]:
        with self.transaction():
            doomed = sorted(e.id for e in self.edges.values() if node_id in (e.source_id, e.target_id))
            for edge_id in doomed:
                self.arc_version += self.edges.pop(edge_id).directed
            gone = self.nodes.pop(node_id, None)
            if gone is not None:
                self._place(gone, None)
                self._unindex(node_id)
                self._leave_loop(node_id)
                self._drop_vectors(node_id)
        return doomed

    def _drop_vectors(self, node_id: str) -> None:
        for key in [k for k in self.vectors if k[0] == node_id]:
            del self.vectors[key]
            self.vector_version += 1

    def _leave_loop(self, node_id: str) -> None:
        """A deleted node leaves the loop index (as the SQL stores' cascade does)."""
        loop_id = self.loop_of.pop(node_id, None)
        if loop_id is not None and loop_id in self.loops:
            loop = self.loops[loop_id]
            self.loops[loop_id] = replace(loop, nodes=tuple(n for n in loop.nodes if n != node_id))

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

    def namespace_ids(self, namespace: str) -> list[str]:
        return sorted(self._spaces.get(namespace, ()))

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
            old = self.edges.get(edge.id)
            if old is not None and old.recorded_at != edge.recorded_at:
                self.edge_versions.append(replace(old, recorded_until=max(old.recorded_at, edge.recorded_at)))
            self.edges[edge.id] = copy.deepcopy(replace(edge, recorded_until=None))
            if old is None:
                self.arc_version += edge.directed
            elif (old.directed or edge.directed) and (
                old.source_id,
                old.target_id,
                old.edge_type,
                old.valid_from,
                old.valid_until,
            ) != (edge.source_id, edge.target_id, edge.edge_type, edge.valid_from, edge.valid_until):
                self.arc_version += 1

    def _drop_edge(self, edge_id: str) -> bool:
        with self.transaction():
            old = self.edges.pop(edge_id, None)
            self.arc_version += old is not None and old.directed
            return old is not None

    # ------------------------------------------------------------ versions
    def put_versions(self, nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge]) -> None:
        with self.transaction():
            self.node_versions += [copy.deepcopy(n) for n in nodes]
            self.edge_versions += [copy.deepcopy(e) for e in edges]

    def _erase(self, node_ids: Iterable[str], edge_ids: Iterable[str]) -> bool:
        nodes, edges = set(node_ids), set(edge_ids)
        with self.transaction():
            kept_nodes = [v for v in self.node_versions if v.id not in nodes]
            kept_edges = [v for v in self.edge_versions if v.id not in edges and not {v.source_id, v.target_id} & nodes]
            kept_merges = {k: v for k, v in self.merges.items() if v[0] not in nodes}
            found = (len(kept_nodes), len(kept_edges), len(kept_merges)) != (
                len(self.node_versions),
                len(self.edge_versions),
                len(self.merges),
            )
            self.node_versions, self.edge_versions, self.merges = kept_nodes, kept_edges, kept_merges
        return found

    def versions_known_at(self, at: str) -> tuple[dict[str, MemoryNode], dict[str, MemoryEdge]]:
        def held(versions: list[Any]) -> dict[str, Any]:
            kept = (v for v in versions if v.recorded_at <= at < (v.recorded_until or ""))
            found = sorted(kept, key=lambda v: (v.id, v.recorded_at))
            return {v.id: copy.deepcopy(v) for v in found}

        return held(self.node_versions), held(self.edge_versions)

    def history(
        self, node_ids: Iterable[str], edge_ids: Iterable[str]
    ) -> tuple[dict[str, list[MemoryNode]], dict[str, list[MemoryEdge]]]:
        def of(ids: Iterable[str], versions: list[Any], current: Mapping[str, Any]) -> dict[str, list[Any]]:
            wanted = set(ids)
            found: dict[str, list[Any]] = {}
            for v in sorted((v for v in versions if v.id in wanted), key=lambda v: v.recorded_at):
                found.setdefault(v.id, []).append(copy.deepcopy(v))
            for i in wanted & current.keys():
                found.setdefault(i, []).append(copy.deepcopy(current[i]))
            return {i: found[i] for i in sorted(found)}

        return of(node_ids, self.node_versions, self.nodes), of(edge_ids, self.edge_versions, self.edges)

    def edge_versions_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = set(node_ids)
        found = [v for v in self.edge_versions if v.source_id in ids and v.target_id in ids]
        return [copy.deepcopy(v) for v in sorted(found, key=lambda v: (v.id, v.recorded_at))]

    def all_versions(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        def order(v: Any) -> tuple[str, str]:
            return v.id, v.recorded_at

        return sorted(self.node_versions, key=order), sorted(self.edge_versions, key=order)

    def recorded_moments(self) -> list[tuple[str, int]]:
        current: list[MemoryNode | MemoryEdge] = [*self.nodes.values(), *self.edges.values()]
        times: Counter[str] = Counter(r.recorded_at for r in current)
        past: list[MemoryNode | MemoryEdge] = [*self.node_versions, *self.edge_versions]
        for v in past:
            times.update([v.recorded_at, v.recorded_until or v.recorded_at])
        return sorted(times.items())

    def put_forwards(self, merged: Mapping[str, str], at: str) -> None:
        with self.transaction():
            self.merges.update({k: (v, at) for k, v in merged.items()})

    def forwards(self, node_ids: Iterable[str] | None = None) -> dict[str, tuple[str, str]]:
        wanted = self.merges.keys() if node_ids is None else set(node_ids) & self.merges.keys()
        return {k: self.merges[k] for k in sorted(wanted)}

    def term_weights(self, words: list[str]) -> tuple[int, int, dict[str, int]]:
        tokens = sum(sum(t.values()) for t in self._terms.values())
        return len(self._terms), tokens, {w: len(self._postings.get(w, ())) for w in words}

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
        if limit <= 0:
            return []
        scores = self._bm25(query, None)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(node_id, score) for node_id, score in ranked[:limit] if score > 0]

    def score(self, query: str, node_ids: Iterable[str]) -> dict[str, float]:
        return {i: s for i, s in self._bm25(query, set(node_ids)).items() if s > 0}

    def _bm25(self, query: str, within: set[str] | None) -> dict[str, float]:
        """BM25 of every node matching the query (of those ``within``, if given)."""
        words = query_terms(query)
        n = len(self._terms)
        if not words or n == 0:
            return {}
        average = sum(sum(t.values()) for t in self._terms.values()) / n
        scores: dict[str, float] = {}
        for term in words:
            ids = self._postings.get(term)
            if not ids:
                continue
            idf = math.log((n - len(ids) + 0.5) / (len(ids) + 0.5))
            idf = idf if idf > 0 else MIN_IDF
            for node_id in ids if within is None else ids & within:
                tf = self._terms[node_id][term]
                length = sum(self._terms[node_id].values())
                scores[node_id] = scores.get(node_id, 0.0) + idf * tf * (K1 + 1) / (
                    tf + K1 * (1 - B + B * length / average)
                )
        return scores

    def counts(self) -> tuple[int, int]:
        return len(self.nodes), len(self.edges)

    def set_confidences(self, values: Mapping[str, float]) -> None:
        with self.transaction():
            for node_id, value in values.items():
                if node_id in self.nodes:
                    self.nodes[node_id] = replace(self.nodes[node_id], confidence=value)

    def set_weights(self, values: Mapping[str, float]) -> None:
        with self.transaction():
            for edge_id, value in values.items():
                if edge_id in self.edges:
                    self.edges[edge_id] = replace(self.edges[edge_id], weight=value)

    # ------------------------------------------------------------ vectors
    def put_vectors(self, model: str, vectors: Mapping[str, bytes]) -> None:
        with self.transaction():
            for node_id, blob in vectors.items():
                if node_id in self.nodes:
                    self.vectors[(node_id, model)] = bytes(blob)
                    self.vector_version += 1

    def get_vectors(self, model: str, node_ids: Iterable[str]) -> dict[str, bytes]:
        return {i: self.vectors[(i, model)] for i in set(node_ids) if (i, model) in self.vectors}

    def all_vectors(self, model: str) -> list[tuple[str, bytes]]:
        return sorted((i, blob) for (i, m), blob in self.vectors.items() if m == model)

    def missing_vectors(self, model: str, limit: int) -> list[str]:
        return [i for i in sorted(self.nodes) if (i, model) not in self.vectors][:limit]

    def vectors_version(self) -> int:
        return self.vector_version

    # ------------------------------------------------------------ the loop index
    def arc_versions(self) -> tuple[int, int]:
        return self.arc_version, self.loops_version

    def set_loops_version(self, version: int) -> None:
        with self.transaction():
            self.loops_version = version

    def node_loops(self, node_ids: Iterable[str]) -> dict[str, str]:
        return {n: self.loop_of[n] for n in set(node_ids) if n in self.loop_of}

    def get_loops(self, loop_ids: Iterable[str]) -> dict[str, LoopRecord]:
        return {i: self.loops[i] for i in sorted(set(loop_ids)) if i in self.loops}

    def loop_sizes(self, loop_ids: Iterable[str]) -> dict[str, tuple[int, int, bool]]:
        found = {i: self.loops[i] for i in set(loop_ids) if i in self.loops}
        return {i: (len(loop.nodes), loop.kappa, loop.approximate) for i, loop in found.items()}

    def all_loops(self) -> list[LoopRecord]:
        return [self.loops[i] for i in sorted(self.loops)]

    def replace_loops(self, remove: Iterable[str], add: Iterable[LoopRecord]) -> None:
        with self.transaction():
            for loop_id in set(remove):
                loop = self.loops.pop(loop_id, None)
                for node_id in loop.nodes if loop is not None else ():
                    if self.loop_of.get(node_id) == loop_id:
                        del self.loop_of[node_id]
            for loop in add:
                if loop.id in self.loops:
                    raise ValueError(f"loop {loop.id!r} is in the index already")
                taken = [n for n in loop.nodes if n in self.loop_of]
                if taken:
                    raise ValueError(f"node {taken[0]!r} is in loop {self.loop_of[taken[0]]!r} already")
                self.loops[loop.id] = loop
                for node_id in loop.nodes:
                    self.loop_of[node_id] = loop.id

    # ------------------------------------------------------------ what the agent reported
    def log_retrieval(self, record: RetrievalRecord) -> None:
        with self.transaction():
            old = self.retrievals.get(record.id)
            count = old.count + 1 if old is not None else 1
            self.retrievals[record.id] = replace(record, count=count)

    def get_retrievals(self, retrieval_ids: Iterable[str]) -> dict[str, RetrievalRecord]:
        return {i: self.retrievals[i] for i in sorted(set(retrieval_ids)) if i in self.retrievals}

    def forget_retrievals(self, before: str) -> int:
        with self.transaction():
            old = [s for s, r in self.retrievals.items() if r.at < before]
            for seq in old:
                del self.retrievals[seq]
            return len(old)

    def add_outcome(self, record: OutcomeRecord) -> int:
        with self.transaction():
            seq = len(self.outcomes) + 1
            self.outcomes.append(replace(record, seq=seq))
            return seq

    def outcome_groups(self) -> list[tuple[str, str, int, bool, str, int | None, int, int]]:
        groups: Counter[tuple[str, str, int, bool, str, int | None, int]] = Counter(
            (o.decision, o.routing, o.max_kappa, o.deliberated, o.outcome, o.iterations, o.max_iterations)
            for o in self.outcomes
        )
        return sorted(((*key, count) for key, count in groups.items()), key=_group_order)

    def get_state(self, key: str) -> str | None:
        return self.state.get(key)

    def set_state(self, key: str, value: str) -> None:
        with self.transaction():
            self.state[key] = value


def _group_order(group: tuple[str, str, int, bool, str, int | None, int, int]) -> tuple[object, ...]:
    """Outcome groups sorted as the SQL stores sort them (no iterations first)."""
    return (*group[:5], -1 if group[5] is None else group[5], group[6])
