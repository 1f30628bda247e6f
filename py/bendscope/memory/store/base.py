"""The store interface every backend implements.

A store holds nodes and edges (``records``) and answers the queries retrieval needs:
lexical search, the edges touching a set of nodes (expansion) and the edges between a
set of nodes (the topology's node universe). Writes happen inside ``transaction()``:
all of a transaction or none of it. Deleting a node deletes its edges.

**Versions.** A node or an edge has one current version and keeps the ones it had: writing a
version recorded at another time than the current one keeps that one as a past version,
recorded until the new one's ``recorded_at``; ``retract`` ends the current versions (the
memory no longer holds them; what it held stays readable: ``versions_known_at``,
``history``). Deleting erases: the current version, every past one and the merges into it
(for what must be erased). Consolidation's merges are kept as forwards (``forwards``).

Backends: ``SQLiteStore`` (the embedded default: one file), ``PostgresStore`` (one
database shared by many processes) and ``InMemoryStore`` (tests); ``opening.open_store``
opens the one a path or URL names. The backends import this module, never the other way
round. The contract suite in ``tests/memory/store/test_store.py`` runs against each.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace

from ..core.errors import ReadOnly
from ..core.records import LoopRecord, MemoryEdge, MemoryNode, OutcomeRecord, RetrievalRecord
from ..core.text import terms


def _holds(edge: MemoryEdge, ends: Mapping[str, MemoryNode], at: str) -> bool:
    """Whether an arc holds at ``at``: the edge valid then, and both its ends."""
    source, target = ends.get(edge.source_id), ends.get(edge.target_id)
    ends_hold = source is not None and target is not None and source.valid_at(at) and target.valid_at(at)
    return edge.valid_at(at) and ends_hold


#: BM25's parameters, as SQLite FTS5's bm25() has them: every store ranks alike
K1, B = 1.2, 0.75
#: for how many change numbers a store keeps its deletions (``Store.changed_since``): a reader
#: further behind reads the whole view
KEEP_DELETIONS = 10_000


class Store(abc.ABC):
    """What retrieval, the MCP tools and the CLI need from a knowledge-graph store."""

    #: a short name for messages and benchmarks
    kind = "store"
    #: how deep transaction()/reading() calls are nested (0: none open); implementations keep it
    _depth = 0
    #: how many calls the MCP server may run on this store at once (threads)
    parallel_calls = 1
    #: open read-only: every transaction() refuses (ReadOnly), retrieval records nothing
    read_only = False
    #: where the store is, as people read it: an absolute file path, a database URL without its
    #: password, or ":memory:"
    location = ":memory:"

    def _refuse_writes(self) -> None:
        """Raise ReadOnly when the store is read-only (each backend's transaction() calls it)."""
        if self.read_only:
            raise ReadOnly(
                "the store is open read-only (--read-only, or a read-only medium); nothing was written. "
                "Serve it without --read-only, from a folder you can write to, to change it"
            )

    def _joined(self) -> Iterator[None]:
        """The body of a transaction()/reading() opened inside another: it joins the outer
        one, counted, so only the outermost begins and ends it. Use as ``yield from``."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    @abc.abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside happen together or not at all (nested calls join the outer one)."""

    @abc.abstractmethod
    def reading(self) -> AbstractContextManager[None]:
        """Reads inside see one consistent state (a snapshot; nested calls join the outer one)."""

    # -- nodes
    @abc.abstractmethod
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        """The nodes among ``node_ids`` that exist, by id (any number of ids)."""

    def get_node(self, node_id: str) -> MemoryNode | None:
        return self.get_nodes([node_id]).get(node_id)

    def whole_graph(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        """Every node and the edges among them, each sorted by id: ``get_nodes(node_ids())``
        and ``list_edges_between`` of them (a backend may read both whole, without the ids)."""
        nodes = list(self.get_nodes(self.node_ids()).values())
        return nodes, self.list_edges_between([n.id for n in nodes])

    @abc.abstractmethod
    def put_node(self, node: MemoryNode) -> None:
        """Insert the node, or make it the current version of the node with its id: the
        version it replaces is kept as a past one, recorded until ``node.recorded_at`` —
        unless both were recorded at the same time (one write, or the statistics learning
        and retrieval keep), when it is replaced."""

    @abc.abstractmethod
    def _drop_node(self, node_id: str) -> list[str]:
        """Remove a node's current version and its current edges (their past versions stay);
        returns the ids of those edges (sorted)."""

    def delete_node(self, node_id: str) -> list[str]:
        """Erase a node: its current version, its past ones, its edges with all of theirs, and
        the merges into it (a merged-away id keeps its own); returns the ids of its current
        edges (sorted)."""
        with self.transaction():
            edges = self._drop_node(node_id)
            self._erase([node_id], edges)
        return edges

    @abc.abstractmethod
    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        """Nodes in id order, optionally of one type and/or one source."""

    @abc.abstractmethod
    def node_ids(self) -> list[str]:
        """Every node id, sorted."""

    def namespace_ids(self, namespace: str) -> list[str]:
        """The ids of the nodes of ``namespace`` (their ``metadata.namespace``), sorted. Here a
        reading of every node; the stores keep an index of it."""
        nodes = self.get_nodes(self.node_ids())
        return [i for i, n in nodes.items() if n.metadata.get("namespace") == namespace]

    @abc.abstractmethod
    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        """Count one access of each node and set its ``last_accessed_at``."""

    def record_retrieval(
        self, node_ids: Iterable[str], edge_ids: Iterable[str], when: str, log: RetrievalRecord | None = None
    ) -> None:
        """What one retrieval records, together: the access of the nodes it returned, the
        activation of the edges it walked and, given ``log``, the retrieval itself (a backend
        may let retrievals run side by side)."""
        nodes, edges = list(node_ids), list(edge_ids)
        with self.transaction():
            if nodes:
                self.record_access(nodes, when)
            if edges:
                self.record_activation(edges, when)
            if log is not None:
                self.log_retrieval(log)

    def set_confidences(self, values: Mapping[str, float]) -> None:
        """Set the confidence of existing nodes (nothing else of them: no re-indexing)."""
        with self.transaction():
            found = self.get_nodes(values)
            for node_id, node in found.items():
                self.put_node(replace(node, confidence=values[node_id]))

    # -- edges
    @abc.abstractmethod
    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        """The edges among ``edge_ids`` that exist, by id."""

    def get_edge(self, edge_id: str) -> MemoryEdge | None:
        return self.get_edges([edge_id]).get(edge_id)

    @abc.abstractmethod
    def put_edge(self, edge: MemoryEdge) -> None:
        """Insert the edge, or make it the current version of the edge with its id (both
        endpoints must exist), keeping the one it replaces as ``put_node`` does."""

    @abc.abstractmethod
    def _drop_edge(self, edge_id: str) -> bool:
        """Remove an edge's current version (its past ones stay); whether it had one."""

    def delete_edge(self, edge_id: str) -> bool:
        """Erase an edge with every version of it; returns whether it had any."""
        with self.transaction():
            had = self._drop_edge(edge_id)
            return self._erase([], [edge_id]) or had

    @abc.abstractmethod
    def list_edges_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        """Edges whose source and target are both in ``node_ids`` (any number of ids),
        sorted by id."""

    @abc.abstractmethod
    def edges_touching(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        """Edges with at least one endpoint in ``node_ids``, sorted by id."""

    # -- change numbers (the live editor's deltas: ``memory.web.since``)
    def change_number(self) -> int | None:
        """The number of the store's last change to a node or an edge (any field: a write, a
        deletion, an access count), read in the open snapshot; None: this store does not
        number its changes (a reader then reads everything). Every number up to it is of a
        committed change the snapshot sees."""
        return None

    def changed_since(self, number: int) -> tuple[list[str], list[str]] | None:
        """(the ids of the nodes, of the edges) changed or deleted after change ``number``
        — at least those: a few more do no harm —, or None when the store cannot tell: it
        numbers no changes, or ``number`` is below its deletions' horizon (it keeps deletions
        for the last ``keep_deletions`` change numbers only: those before are dropped)."""
        return None

    def keep_deletions(self, count: int) -> None:
        """Keep deletions for the last ``count`` change numbers from the next deletion on (at
        least 1; ``KEEP_DELETIONS`` by default). The horizon never moves back: a reader below
        it is told None, never changes missing a deletion. A store numbering no changes: nothing."""
        if count < 1:
            raise ValueError(f"keep at least one change number's deletions, got {count!r}")

    def bounds_between(self, after: str, until: str) -> tuple[list[str], list[str]]:
        """The ids of the nodes and of the edges with a validity bound (``valid_from`` or
        ``valid_until``) in (``after``, ``until``]: those whose holding may differ between the
        two moments. O(records) here; the SQL stores ask their database."""
        nodes, edges = self.whole_graph()

        def crossing(r: MemoryNode | MemoryEdge) -> bool:
            return any(b is not None and after < b <= until for b in (r.valid_from, r.valid_until))

        return [n.id for n in nodes if crossing(n)], [e.id for e in edges if crossing(e)]

    def arcs_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        """The causal and temporal edges among the nodes, sorted by id; a backend may leave
        their weight, metadata and times at the defaults (what a κ analysis reads)."""
        return [e for e in self.list_edges_between(node_ids) if e.directed]

    def arcs_from(self, node_ids: Iterable[str], forward: bool = True, at: str | None = None) -> list[tuple[str, str]]:
        """The causal and temporal arcs (source, target) leaving the nodes (``forward``) or
        entering them, self-loops left out, in no particular order: what a reachability
        search reads (backends answer from an index, without the edges' other fields).
        ``at``: only the arcs that hold then (the edge valid, and both its ends)."""
        ids = set(node_ids)
        found = [
            e
            for e in self.edges_touching(ids)
            if e.directed and e.source_id != e.target_id and (e.source_id if forward else e.target_id) in ids
        ]
        if at is not None:
            ends = self.get_nodes({n for e in found for n in (e.source_id, e.target_id)})
            found = [e for e in found if _holds(e, ends, at)]
        return [(e.source_id, e.target_id) for e in found]

    @abc.abstractmethod
    def all_edges(self) -> list[MemoryEdge]:
        """Every edge, sorted by id."""

    @abc.abstractmethod
    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        """Set ``last_activated_at`` of edges retrieval walked along."""

    def set_weights(self, values: Mapping[str, float]) -> None:
        """Set the weight of existing edges (nothing else of them)."""
        with self.transaction():
            found = self.get_edges(values)
            for edge_id, edge in found.items():
                self.put_edge(replace(edge, weight=values[edge_id]))

    def all_arcs(self, at: str | None = None) -> list[tuple[str, str]]:
        """Every causal and temporal arc (source, target), self-loops left out, in no
        particular order (a rebuild of the loop index reads them all at once); ``at``: only
        those that hold then."""
        found = [e for e in self.all_edges() if e.directed and e.source_id != e.target_id]
        if at is not None:
            ends = self.get_nodes({n for e in found for n in (e.source_id, e.target_id)})
            found = [e for e in found if _holds(e, ends, at)]
        return [(e.source_id, e.target_id) for e in found]

    def neighbours(
        self, node_ids: Iterable[str], forward: bool = True, at: str | None = None
    ) -> list[tuple[str, str | None]]:
        """The far ends of the causal and temporal arcs leaving the nodes (``forward``) or
        entering them (that hold ``at``, if given), each once, with the loop it belongs to in
        the loop index (None: none): one step of a reachability search that may jump a whole
        loop at once."""
        ends = {b if forward else a for a, b in self.arcs_from(node_ids, forward, at)}
        loops = self.node_loops(ends)
        return [(end, loops.get(end)) for end in ends]

    def neighbours_both(
        self, ahead: Iterable[str], behind: Iterable[str], at: str | None = None
    ) -> tuple[list[tuple[str, str | None]], list[tuple[str, str | None]]]:
        """:meth:`neighbours` forward of ``ahead`` and backward of ``behind`` at once: one level
        of a search run both ways (a backend may answer both in one round trip)."""
        return self.neighbours(ahead, True, at), self.neighbours(behind, False, at)

    def next_change(self, after: str) -> str | None:
        """The earliest validity bound (``valid_from`` or ``valid_until``) of a node or of a
        causal or temporal edge later than ``after``, or None: when the arcs that hold change
        next without a write. O(nodes + edges)."""
        moments = [
            t
            for e in self.all_edges()
            if e.directed
            for t in (e.valid_from, e.valid_until)
            if t is not None and t > after
        ]
        moments += [
            t
            for n in self.get_nodes(self.node_ids()).values()
            for t in (n.valid_from, n.valid_until)
            if t is not None and t > after
        ]
        return min(moments, default=None)

    # -- versions (recorded time)
    def retract(self, node_ids: Iterable[str], edge_ids: Iterable[str], at: str) -> list[str]:
        """End at ``at`` the current versions of the nodes, of every edge touching them and
        of the edges: the memory no longer holds them, and what it held stays (a reading
        known at an earlier time sees them). Returns the ids of the edges ended (sorted)."""
        with self.transaction():
            nodes = self.get_nodes(node_ids)
            edges = {e.id: e for e in self.edges_touching(nodes)} | self.get_edges(edge_ids)
            self.put_versions(
                [replace(n, recorded_until=max(at, n.recorded_at)) for n in nodes.values()],
                [replace(e, recorded_until=max(at, e.recorded_at)) for e in edges.values()],
            )
            for edge_id in sorted(edges):
                self._drop_edge(edge_id)
            for node_id in nodes:
                self._drop_node(node_id)
        return sorted(edges)

    @abc.abstractmethod
    def put_versions(self, nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge]) -> None:
        """Keep past versions as given (each with its ``recorded_until``)."""

    def erase_versions(self, node_ids: Iterable[str], edge_ids: Iterable[str]) -> bool:
        """Erase the past versions (and merges) of the nodes and edges (``_erase``)."""
        with self.transaction():
            return self._erase(node_ids, edge_ids)

    @abc.abstractmethod
    def _erase(self, node_ids: Iterable[str], edge_ids: Iterable[str]) -> bool:
        """Erase the past versions of the nodes and edges, those of edges that touched the
        nodes, and the merges into the nodes (nothing is left to forward to); whether there was
        any. A merged-away id keeps its own merge: it holds no content, and the id goes on
        naming the node it became."""

    @abc.abstractmethod
    def versions_known_at(self, at: str) -> tuple[dict[str, MemoryNode], dict[str, MemoryEdge]]:
        """The past versions the memory held at ``at`` (recorded at or before it, replaced or
        ended after it), by id: with the current versions recorded by then, what it held.
        O(the versions replaced since)."""

    @abc.abstractmethod
    def history(
        self, node_ids: Iterable[str], edge_ids: Iterable[str]
    ) -> tuple[dict[str, list[MemoryNode]], dict[str, list[MemoryEdge]]]:
        """Every version of the nodes and edges (past ones, then the current one), in the
        order they were recorded; ids without any are left out."""

    @abc.abstractmethod
    def edge_versions_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        """The past versions of edges whose two ends are among the nodes, by id and recorded
        time (how a region's edges changed)."""

    @abc.abstractmethod
    def all_versions(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        """Every past version, by id and recorded time (what a dump carries)."""

    @abc.abstractmethod
    def recorded_moments(self) -> list[tuple[str, int]]:
        """Each time at which a version was recorded or ended, with how many, in time order
        (the times the memory changed). O(versions)."""

    @abc.abstractmethod
    def put_forwards(self, merged: Mapping[str, str], at: str) -> None:
        """Keep that the nodes ``merged`` (keys) were merged into the values at ``at``."""

    @abc.abstractmethod
    def forwards(self, node_ids: Iterable[str] | None = None) -> dict[str, tuple[str, str]]:
        """The merges out of the nodes (all, for None): id → (the node it was merged into, when)."""

    def term_weights(self, words: list[str]) -> tuple[int, int, dict[str, int]]:
        """(nodes indexed, their terms in all, the document frequency of each of ``words``):
        what BM25 weighs a text's terms by. O(nodes) here; backends read their statistics."""
        nodes = self.get_nodes(self.node_ids())
        counts = [set(terms(n.content)) for n in nodes.values()]
        tokens = sum(len(terms(n.content)) for n in nodes.values())
        return len(nodes), tokens, {w: sum(w in c for c in counts) for w in words}

    # -- vectors (an embedder's, by model name; see ``embedders``)
    @abc.abstractmethod
    def put_vectors(self, model: str, vectors: Mapping[str, bytes]) -> None:
        """Keep the vectors of existing nodes (others are skipped); a node's vectors go when
        its content changes or it is deleted."""

    @abc.abstractmethod
    def get_vectors(self, model: str, node_ids: Iterable[str]) -> dict[str, bytes]:
        """The vectors kept for these nodes."""

    @abc.abstractmethod
    def all_vectors(self, model: str) -> list[tuple[str, bytes]]:
        """Every vector of the model, by node id."""

    @abc.abstractmethod
    def missing_vectors(self, model: str, limit: int) -> list[str]:
        """Up to ``limit`` ids of nodes without a vector of the model, in id order."""

    @abc.abstractmethod
    def vectors_version(self) -> int:
        """A number that changes whenever a vector is kept or goes (for caches of them)."""

    # -- the loop index (memory.loop_index keeps it; the store only holds it)
    @abc.abstractmethod
    def arc_versions(self) -> tuple[int, int]:
        """(arc version, loops version): the first counts every change the store made to its
        causal and temporal edges (the store counts it, whoever writes); the second is the arc
        version the loop index was made for (-1: never). Equal: the index is current."""

    @abc.abstractmethod
    def set_loops_version(self, version: int) -> None:
        """Say that the loop index is current for arc version ``version``."""

    @abc.abstractmethod
    def node_loops(self, node_ids: Iterable[str]) -> dict[str, str]:
        """The loop id of each of the nodes that the loop index has in a loop."""

    @abc.abstractmethod
    def get_loops(self, loop_ids: Iterable[str]) -> dict[str, LoopRecord]:
        """The loops among ``loop_ids`` that exist, with their members."""

    @abc.abstractmethod
    def loop_sizes(self, loop_ids: Iterable[str]) -> dict[str, tuple[int, int, bool]]:
        """(node count, κ, approximate) of the loops among ``loop_ids`` that exist, without
        their members (a 100,000-node loop is one row)."""

    @abc.abstractmethod
    def all_loops(self) -> list[LoopRecord]:
        """Every loop of the index, by id."""

    @abc.abstractmethod
    def replace_loops(self, remove: Iterable[str], add: Iterable[LoopRecord]) -> None:
        """Delete the loops ``remove`` (their members leave the index), then add ``add``."""

    # -- what the agent reported (learn_from_outcome, get_metrics)
    @abc.abstractmethod
    def log_retrieval(self, record: RetrievalRecord) -> None:
        """Keep a retrieval; one kept already under its id counts once more, at ``record.at``."""

    @abc.abstractmethod
    def get_retrievals(self, retrieval_ids: Iterable[str]) -> dict[str, RetrievalRecord]:
        """The retrievals kept among ``retrieval_ids``."""

    @abc.abstractmethod
    def forget_retrievals(self, before: str) -> int:
        """Drop the retrievals last made before the time ``before``; returns how many."""

    @abc.abstractmethod
    def add_outcome(self, record: OutcomeRecord) -> int:
        """Keep a reported outcome; returns its sequence number."""

    @abc.abstractmethod
    def outcome_groups(self) -> list[tuple[str, str, int, bool, str, int | None, int, int]]:
        """Every outcome kept, grouped: (decision, routing, max_kappa, deliberated, outcome,
        iterations, max_iterations, count), sorted (what get_metrics summarises)."""

    @abc.abstractmethod
    def get_state(self, key: str) -> str | None:
        """A value the memory keeps for itself (e.g. when it was last consolidated)."""

    @abc.abstractmethod
    def set_state(self, key: str, value: str) -> None:
        """Keep a value for the memory itself."""

    # -- search and size
    @abc.abstractmethod
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """Nodes matching any word of ``query`` (free text: any FTS syntax in it is only
        text), best first by BM25, as (id, score > 0); ties by id."""

    @abc.abstractmethod
    def score(self, query: str, node_ids: Iterable[str]) -> dict[str, float]:
        """The BM25 score of ``query`` for each of the nodes that matches any of its terms
        (the same score ``search`` gives it); the others are left out. O(the nodes' terms)."""

    @abc.abstractmethod
    def counts(self) -> tuple[int, int]:
        """(number of nodes, number of edges)."""

    def close(self) -> None:  # noqa: B027 - optional for stores without resources
        """Release the store's resources."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
