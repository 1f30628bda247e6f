"""What the two SQL stores (SQLite, PostgreSQL) share, written once: the columns of a node and
an edge, a row read back as a record, and the readings whose SQL is the same in both but for the
dialect's placeholder (``P``) and its test of a column against a list of ids (``_in``).

>>> edge_of(("e1", "a", "b", "causal", 1.0, '{"polarity": "+"}', "2026", None, None, None)).metadata
{'polarity': '+'}
"""

from __future__ import annotations

import abc
import json
from collections.abc import Iterable
from typing import Any, ClassVar

from ..core.records import LoopRecord, MemoryEdge, MemoryNode, RetrievalRecord
from ..core.text import load_metadata
from .base import Store

NODE_COLUMNS = (
    "id, content, node_type, confidence, metadata, source, access_count, created_at, updated_at, last_accessed_at, "
    "valid_from, valid_until"
)
EDGE_COLUMNS = (
    "id, source_id, target_id, edge_type, weight, metadata, created_at, last_activated_at, valid_from, valid_until"
)


def node_of(row: tuple[Any, ...]) -> MemoryNode:
    """A node from a row of NODE_COLUMNS."""
    return MemoryNode(
        row[0], row[1], row[2], row[3], load_metadata(row[4]), row[5], row[6], row[7], row[8], row[9], *row[10:12]
    )


def edge_of(row: tuple[Any, ...]) -> MemoryEdge:
    """An edge from a row of EDGE_COLUMNS."""
    return MemoryEdge(row[0], row[1], row[2], row[3], row[4], load_metadata(row[5]), row[6], row[7], *row[8:10])


def canonical_json(value: Any) -> str:
    """JSON text as the stores keep it: keys sorted, no spaces, text unescaped."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class SQLStore(Store):
    """A store over SQL: the readings both dialects write alike."""

    #: the dialect's placeholder for one parameter
    P: ClassVar[str] = "?"

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

    # ------------------------------------------------------------ nodes and edges
    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        rows = self._query(
            f"SELECT {NODE_COLUMNS} FROM nodes WHERE {self._in('id')} ORDER BY id", (self._ids(node_ids),)
        )
        return {row[0]: node_of(row) for row in rows}

    def node_ids(self) -> list[str]:
        return [row[0] for row in self._query("SELECT id FROM nodes ORDER BY id")]

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

    def arcs_between(self, node_ids: Iterable[str]) -> list[MemoryEdge]:
        ids = self._ids(node_ids)
        rows = self._query(
            f"SELECT id, source_id, target_id, edge_type FROM edges WHERE {self._in('source_id')} "
            f"AND {self._in('target_id')} AND edge_type IN ('causal', 'temporal') ORDER BY id",
            (ids, ids),
        )
        return [MemoryEdge(row[0], row[1], row[2], row[3]) for row in rows]

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
        ids = self._ids(loop_ids)
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
            "SELECT id, at, query, routing, max_kappa, max_iterations, node_ids, count FROM retrievals "
            f"WHERE {self._in('id')} ORDER BY id",
            (self._ids(retrieval_ids),),
        )
        return {
            row[0]: RetrievalRecord(
                row[0], row[1], row[2], row[3], row[4], row[5], tuple(self._id_list(row[6])), int(row[7])
            )
            for row in rows
        }

    def outcome_groups(self) -> list[tuple[str, str, int, bool, str, int | None, int, int]]:
        rows = self._query(
            "SELECT decision, routing, max_kappa, deliberated, outcome, iterations, max_iterations, count(*) "
            "FROM outcomes GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, coalesce(iterations, -1), 7"
        )
        return [(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6], int(r[7])) for r in rows]
