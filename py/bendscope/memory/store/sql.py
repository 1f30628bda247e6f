"""What the two SQL stores (SQLite, PostgreSQL) share, written once: the columns of a node and
an edge, a row read back as a record, and the readings whose SQL is the same in both but for the
dialect's placeholder (``P``) and its test of a column against a list of ids (``_in``).

>>> edge_of(("e1", "a", "b", "causal", 1.0, '{"polarity": "+"}', "2026", None, None, None, "", "2026")).metadata
{'polarity': '+'}

Past versions are kept in ``node_versions`` and ``edge_versions`` (the columns of a node or an
edge, ``recorded_until``, and ``seq``: the order they were kept in), merges in ``merges``.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from ..core.records import LoopRecord, MemoryEdge, MemoryNode, RetrievalRecord
from ..core.text import load_metadata
from .base import Store

NODE_COLUMNS = (
    "id, content, node_type, confidence, metadata, source, access_count, created_at, updated_at, last_accessed_at, "
    "valid_from, valid_until, recorded_at"
)
EDGE_COLUMNS = (
    "id, source_id, target_id, edge_type, weight, metadata, created_at, last_activated_at, valid_from, valid_until, "
    "source, recorded_at"
)
#: a past version's row: the record's columns, then when it stopped being the current one
NODE_VERSION_COLUMNS = NODE_COLUMNS + ", recorded_until"
EDGE_VERSION_COLUMNS = EDGE_COLUMNS + ", recorded_until"


def node_of(row: tuple[Any, ...]) -> MemoryNode:
    """A node from a row of NODE_COLUMNS (+ recorded_until: a past version). A row that lacks
    when it was recorded (rescued from an earlier schema) was recorded when last updated."""
    recorded = row[12] if len(row) > 12 and row[12] is not None else row[8]
    until = row[13] if len(row) > 13 else None
    return MemoryNode(
        row[0], row[1], row[2], row[3], load_metadata(row[4]), row[5], row[6], row[7], row[8], row[9], row[10], row[11],
        recorded_at=recorded, recorded_until=until,
    )  # fmt: skip


def edge_of(row: tuple[Any, ...]) -> MemoryEdge:
    """An edge from a row of EDGE_COLUMNS (+ recorded_until); without a recording time, its
    creation time."""
    source = row[10] if len(row) > 10 and row[10] is not None else ""
    recorded = row[11] if len(row) > 11 and row[11] is not None else row[6]
    until = row[12] if len(row) > 12 else None
    return MemoryEdge(
        row[0], row[1], row[2], row[3], row[4], load_metadata(row[5]), row[6], row[7], row[8], row[9],
        source=source, recorded_at=recorded, recorded_until=until,
    )  # fmt: skip


def canonical_json(value: Any) -> str:
    """JSON text as the stores keep it: keys sorted, no spaces, text unescaped."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _node_row(node: MemoryNode) -> tuple[Any, ...]:
    """A node's values in the order of NODE_COLUMNS."""
    return (
        node.id, node.content, node.node_type, node.confidence, canonical_json(node.metadata), node.source,
        node.access_count, node.created_at, node.updated_at, node.last_accessed_at, node.valid_from, node.valid_until,
        node.recorded_at,
    )  # fmt: skip


def _edge_row(edge: MemoryEdge) -> tuple[Any, ...]:
    """An edge's values in the order of EDGE_COLUMNS."""
    return (
        edge.id, edge.source_id, edge.target_id, edge.edge_type, edge.weight, canonical_json(edge.metadata),
        edge.created_at, edge.last_activated_at, edge.valid_from, edge.valid_until, edge.source, edge.recorded_at,
    )  # fmt: skip


class SQLStore(Store):
    """A store over SQL: the readings both dialects write alike."""

    #: the dialect's placeholder for one parameter
    P: ClassVar[str] = "?"
    #: a node's namespace (its metadata's, when a string; else NULL), as its index reads it
    NAMESPACE: ClassVar[str] = (
        "CASE WHEN json_valid(metadata) AND json_type(metadata, '$.namespace') = 'text' "
        "THEN json_extract(metadata, '$.namespace') END"
    )

    @abc.abstractmethod
    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """The rows of one reading (in the open transaction, if any)."""

    @abc.abstractmethod
    def _in(self, column: str) -> str:
        """SQL testing ``column`` against the list of ids passed as one parameter (``_ids``)."""

    @abc.abstractmethod
    def _ids(self, ids: Iterable[str]) -> Any:
        """A list of ids as the one parameter ``_in`` takes (each id once, in order)."""

    @abc.abstractmethod
    def _id_list(self, value: Any) -> list[str]:
        """A list of ids as a JSON column holds it, read back."""

    @abc.abstractmethod
    def _run(self, sql: str, params: Any = ()) -> int:
        """One write in the open transaction; returns the rows it changed."""

    @abc.abstractmethod
    def _run_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """One write for each of ``rows`` in the open transaction."""

    # ------------------------------------------------------------ nodes and edges
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        rows = self._query(
            f"SELECT {NODE_COLUMNS} FROM nodes WHERE {self._in('id')} ORDER BY id", (self._ids(node_ids),)
        )
        return {row[0]: node_of(row) for row in rows}

    def node_ids(self) -> list[str]:
        return [row[0] for row in self._query("SELECT id FROM nodes ORDER BY id")]

    def namespace_ids(self, namespace: str) -> list[str]:
        """(the index ``nodes_by_namespace``)"""
        rows = self._query(f"SELECT id FROM nodes WHERE {self.NAMESPACE} = {self.P} ORDER BY id", (namespace,))
        return [row[0] for row in rows]

    def whole_graph(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        with self.reading():  # (an edge's ends are nodes of the same snapshot: no list of ids to test)
            nodes = [node_of(row) for row in self._query(f"SELECT {NODE_COLUMNS} FROM nodes ORDER BY id")]
            edges = [edge_of(row) for row in self._query(f"SELECT {EDGE_COLUMNS} FROM edges ORDER BY id")]
        ids = {n.id for n in nodes}
        return nodes, [e for e in edges if e.source_id in ids and e.target_id in ids]

    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        rows = self._query(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE {self._in('id')} ORDER BY id", (self._ids(edge_ids),)
        )
        return {row[0]: edge_of(row) for row in rows}

    def all_edges(self) -> list[MemoryEdge]:
        return [edge_of(row) for row in self._query(f"SELECT {EDGE_COLUMNS} FROM edges ORDER BY id")]

    def list_edges_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = self._ids(node_ids)
        rows = self._query(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE {self._in('source_id')} AND {self._in('target_id')} ORDER BY id",
            (ids, ids),
        )
        return [edge_of(row) for row in rows]

    def edges_touching(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = self._ids(node_ids)
        rows = self._query(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE {self._in('source_id')} "
            f"UNION SELECT {EDGE_COLUMNS} FROM edges WHERE {self._in('target_id')} ORDER BY id",
            (ids, ids),
        )
        return [edge_of(row) for row in rows]

    # ------------------------------------------------------------ change numbers
    #: the store's last change number (the triggers of schema 10 / 9 keep it)
    CHANGES: ClassVar[str] = "SELECT value FROM counters WHERE key = 'changes'"
    #: the deletions' horizon (``changed_since``)
    HORIZON: ClassVar[str] = "SELECT value FROM counters WHERE key = 'removed_horizon'"
    #: the (kind, id) of the nodes and edges changed or deleted after a number (the triggers keep
    #: them: SQLite schema 11, PostgreSQL 9 and 10)
    CHANGED: ClassVar[tuple[str, ...]] = ("SELECT kind, id FROM changes WHERE changed > ?",)
    #: how validity times are compared: as text, by code point (as Python compares them)
    BY_CODE: ClassVar[str] = ""

    def change_number(self) -> int | None:
        rows = self._query(self.CHANGES)
        return int(rows[0][0]) if rows else None

    def changed_since(self, number: int) -> tuple[list[str], list[str]] | None:
        """(the changes' indexes: ``CHANGED``) The horizon is read after the changes: it only
        rises, and a change is dropped in the transaction that raises it past the change's
        number, so changes read without a snapshot and missing one read a horizon above
        ``number`` (None)."""
        nodes: list[str] = []
        edges: list[str] = []
        for query in self.CHANGED:
            for kind, found in self._query(query, (number,)):
                (nodes if kind == "node" else edges).append(found)
        horizon = self._query(self.HORIZON)
        if horizon and number < int(horizon[0][0]):
            return None
        return nodes, edges

    def bounds_between(self, after: str, until: str) -> tuple[list[str], list[str]]:
        c, p = self.BY_CODE, self.P
        test = " OR ".join(f"({b}{c} > {p} AND {b}{c} <= {p})" for b in ("valid_from", "valid_until"))
        times = (after, until, after, until)
        found = [[r[0] for r in self._query(f"SELECT id FROM {t} WHERE {test}", times)] for t in ("nodes", "edges")]
        return found[0], found[1]

    def arcs_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = self._ids(node_ids)
        rows = self._query(
            f"SELECT id, source_id, target_id, edge_type FROM edges WHERE {self._in('source_id')} "
            f"AND {self._in('target_id')} AND edge_type IN ('causal', 'temporal') ORDER BY id",
            (ids, ids),
        )
        return [MemoryEdge(row[0], row[1], row[2], row[3]) for row in rows]

    # ------------------------------------------------------------ versions
    def _keep_current(self, table: str, record_id: str, until: str) -> None:
        """Keep the current version of node or edge ``record_id`` as a past one, recorded
        until ``until`` (or its own recording time, if later), unless it was recorded then."""
        columns = NODE_COLUMNS if table == "nodes" else EDGE_COLUMNS
        kind = table[:-1]
        p = self.P
        self._run(
            f"INSERT INTO {kind}_versions ({columns}, recorded_until) SELECT {columns}, "
            f"CASE WHEN recorded_at > {p} THEN recorded_at ELSE {p} END FROM {table} "
            f"WHERE id = {p} AND recorded_at <> {p}",
            (until, until, record_id, until),
        )

    def put_versions(self, nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge]) -> None:
        node_rows = [(*_node_row(n), n.recorded_until or n.recorded_at) for n in nodes]
        edge_rows = [(*_edge_row(e), e.recorded_until or e.recorded_at) for e in edges]
        with self.transaction():
            if node_rows:
                marks = ", ".join([self.P] * len(node_rows[0]))
                self._run_many(f"INSERT INTO node_versions ({NODE_VERSION_COLUMNS}) VALUES ({marks})", node_rows)
            if edge_rows:
                marks = ", ".join([self.P] * len(edge_rows[0]))
                self._run_many(f"INSERT INTO edge_versions ({EDGE_VERSION_COLUMNS}) VALUES ({marks})", edge_rows)

    def _erase(self, node_ids: Iterable[str], edge_ids: Iterable[str]) -> bool:
        nodes, edges = self._ids(node_ids), self._ids(edge_ids)
        with self.transaction():
            found = self._run(f"DELETE FROM node_versions WHERE {self._in('id')}", (nodes,))
            found += self._run(
                f"DELETE FROM edge_versions WHERE {self._in('id')} OR {self._in('source_id')} "
                f"OR {self._in('target_id')}",
                (edges, nodes, nodes),
            )
            found += self._run(f"DELETE FROM merges WHERE {self._in('into_id')}", (nodes,))
        return found > 0

    def versions_known_at(self, at: str) -> tuple[dict[str, MemoryNode], dict[str, MemoryEdge]]:
        p = self.P
        with self.reading():
            nodes = self._query(
                f"SELECT {NODE_VERSION_COLUMNS} FROM node_versions WHERE recorded_until > {p} AND recorded_at <= {p} "
                "ORDER BY id, recorded_at, seq",
                (at, at),
            )
            edges = self._query(
                f"SELECT {EDGE_VERSION_COLUMNS} FROM edge_versions WHERE recorded_until > {p} AND recorded_at <= {p} "
                "ORDER BY id, recorded_at, seq",
                (at, at),
            )
        return {row[0]: node_of(row) for row in nodes}, {row[0]: edge_of(row) for row in edges}

    def history(
        self, node_ids: Iterable[str], edge_ids: Iterable[str]
    ) -> tuple[dict[str, list[MemoryNode]], dict[str, list[MemoryEdge]]]:
        node_list, edge_list = list(node_ids), list(edge_ids)
        nodes, edges = self._ids(node_list), self._ids(edge_list)
        found_nodes: dict[str, list[MemoryNode]] = {}
        found_edges: dict[str, list[MemoryEdge]] = {}
        with self.reading():
            order = "ORDER BY id, recorded_at, seq"
            for row in self._query(
                f"SELECT {NODE_VERSION_COLUMNS} FROM node_versions WHERE {self._in('id')} {order}", (nodes,)
            ):
                found_nodes.setdefault(row[0], []).append(node_of(row))
            for row in self._query(
                f"SELECT {EDGE_VERSION_COLUMNS} FROM edge_versions WHERE {self._in('id')} {order}", (edges,)
            ):
                found_edges.setdefault(row[0], []).append(edge_of(row))
            for node in self.get_nodes(node_list).values():
                found_nodes.setdefault(node.id, []).append(node)
            for edge in self.get_edges(edge_list).values():
                found_edges.setdefault(edge.id, []).append(edge)
        return {i: found_nodes[i] for i in sorted(found_nodes)}, {i: found_edges[i] for i in sorted(found_edges)}

    def edge_versions_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = self._ids(node_ids)
        rows = self._query(
            f"SELECT {EDGE_VERSION_COLUMNS} FROM edge_versions WHERE {self._in('source_id')} AND "
            f"{self._in('target_id')} ORDER BY id, recorded_at, seq",
            (ids, ids),
        )
        return [edge_of(row) for row in rows]

    def all_versions(self) -> tuple[list[MemoryNode], list[MemoryEdge]]:
        with self.reading():
            nodes = self._query(f"SELECT {NODE_VERSION_COLUMNS} FROM node_versions ORDER BY id, recorded_at, seq")
            edges = self._query(f"SELECT {EDGE_VERSION_COLUMNS} FROM edge_versions ORDER BY id, recorded_at, seq")
        return [node_of(row) for row in nodes], [edge_of(row) for row in edges]

    def recorded_moments(self) -> list[tuple[str, int]]:
        rows = self._query(
            "SELECT t, count(*) FROM (SELECT recorded_at AS t FROM nodes UNION ALL SELECT recorded_at FROM edges "
            "UNION ALL SELECT recorded_at FROM node_versions UNION ALL SELECT recorded_until FROM node_versions "
            "UNION ALL SELECT recorded_at FROM edge_versions UNION ALL SELECT recorded_until FROM edge_versions) "
            "AS moments GROUP BY t ORDER BY t"
        )
        return [(str(row[0]), int(row[1])) for row in rows]

    def put_forwards(self, merged: Mapping[str, str], at: str) -> None:
        p = self.P
        with self.transaction():
            self._run_many(
                f"INSERT INTO merges (id, into_id, at) VALUES ({p}, {p}, {p}) "
                "ON CONFLICT (id) DO UPDATE SET into_id = excluded.into_id, at = excluded.at",
                [(k, v, at) for k, v in merged.items()],
            )

    def forwards(self, node_ids: Iterable[str] | None = None) -> dict[str, tuple[str, str]]:
        if node_ids is None:
            rows = self._query("SELECT id, into_id, at FROM merges ORDER BY id")
        else:
            rows = self._query(f"SELECT id, into_id, at FROM merges WHERE {self._in('id')} ORDER BY id", (
                self._ids(node_ids),))  # fmt: skip
        return {row[0]: (row[1], row[2]) for row in rows}

    # ------------------------------------------------------------ vectors
    def get_vectors(self, model: str, node_ids: Iterable[str]) -> dict[str, bytes]:
        rows = self._query(
            f"SELECT node_id, vector FROM vectors WHERE model = {self.P} AND {self._in('node_id')}",
            (model, self._ids(node_ids)),
        )
        return {row[0]: bytes(row[1]) for row in rows}

    def all_vectors(self, model: str) -> list[tuple[str, bytes]]:
        rows = self._query(f"SELECT node_id, vector FROM vectors WHERE model = {self.P} ORDER BY node_id", (model,))
        return [(row[0], bytes(row[1])) for row in rows]

    def missing_vectors(self, model: str, limit: int) -> list[str]:
        rows = self._query(
            "SELECT id FROM nodes WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.node_id = nodes.id "
            f"AND v.model = {self.P}) ORDER BY id LIMIT {self.P}",
            (model, limit),
        )
        return [row[0] for row in rows]

    # ------------------------------------------------------------ loops, retrievals, outcomes
    def node_loops(self, node_ids: Iterable[str]) -> dict[str, str]:
        rows = self._query(
            f"SELECT node_id, loop_id FROM loop_members WHERE {self._in('node_id')}", (self._ids(node_ids),)
        )
        return {row[0]: row[1] for row in rows}

    def loop_sizes(self, loop_ids: Iterable[str]) -> dict[str, tuple[int, int, bool]]:
        rows = self._query(
            f"SELECT id, node_count, kappa, approximate FROM loops WHERE {self._in('id')}", (self._ids(loop_ids),)
        )
        return {row[0]: (int(row[1]), int(row[2]), bool(row[3])) for row in rows}

    def get_loops(self, loop_ids: Iterable[str]) -> dict[str, LoopRecord]:
        wanted = list(loop_ids)
        if not wanted:  # (a write touching no loop: no round trip)
            return {}
        ids = self._ids(wanted)
        with self.reading():
            loops = self._query(f"SELECT id, kappa, approximate FROM loops WHERE {self._in('id')} ORDER BY id", (ids,))
            members: dict[str, list[str]] = {}
            for loop_id, node_id in self._query(
                f"SELECT loop_id, node_id FROM loop_members WHERE {self._in('loop_id')} ORDER BY node_id", (ids,)
            ):
                members.setdefault(loop_id, []).append(node_id)
        return {row[0]: LoopRecord(row[0], tuple(members.get(row[0], ())), row[1], bool(row[2])) for row in loops}

    def all_loops(self) -> list[LoopRecord]:
        with self.reading():
            loops = self._query("SELECT id, kappa, approximate FROM loops ORDER BY id")
            members: dict[str, list[str]] = {}
            for loop_id, node_id in self._query("SELECT loop_id, node_id FROM loop_members ORDER BY node_id"):
                members.setdefault(loop_id, []).append(node_id)
        return [LoopRecord(row[0], tuple(members.get(row[0], ())), row[1], bool(row[2])) for row in loops]

    def get_retrievals(self, retrieval_ids: Iterable[str]) -> dict[str, RetrievalRecord]:
        rows = self._query(
            "SELECT id, at, query, routing, max_kappa, max_iterations, node_ids, count, results FROM retrievals "
            f"WHERE {self._in('id')} ORDER BY id",
            (self._ids(retrieval_ids),),
        )
        return {
            row[0]: RetrievalRecord(
                row[0], row[1], row[2], row[3], row[4], row[5], tuple(self._id_list(row[6])), int(row[7]), row[8]
            )
            for row in rows
        }

    def outcome_groups(self) -> list[tuple[str, str, int, bool, str, int | None, int, int]]:
        rows = self._query(
            "SELECT decision, routing, max_kappa, deliberated, outcome, iterations, max_iterations, count(*) "
            "FROM outcomes GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, coalesce(iterations, -1), 7"
        )
        return [(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6], int(r[7])) for r in rows]
