"""What the agent reported to a PostgreSQL store: its retrievals' log and their outcomes
(``PostgresStore``'s part that writes them)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.types.json import Jsonb

from ..core.records import OutcomeRecord, RetrievalRecord

__all__ = ["AgentReports"]


class AgentReports:
    """``log_retrieval``, ``forget_retrievals`` and ``add_outcome`` of ``PostgresStore``."""

    if TYPE_CHECKING:

        def transaction(self) -> contextlib.AbstractContextManager[None]: ...

        def _counting(self) -> contextlib.AbstractContextManager[None]: ...

        @property
        def _conn(self) -> psycopg.Connection[tuple[Any, ...]]: ...

    def log_retrieval(self, record: RetrievalRecord) -> None:
        with self._counting():
            self._conn.execute(
                "INSERT INTO retrievals (id, at, count, query, routing, max_kappa, max_iterations, node_ids, results) "
                "VALUES (%s, %s, 1, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET at = excluded.at, count = retrievals.count + 1",
                (
                    record.id,
                    record.at,
                    record.query,
                    record.routing,
                    record.max_kappa,
                    record.max_iterations,
                    Jsonb(list(record.node_ids)),
                    record.results,
                ),
            )

    def forget_retrievals(self, before: str) -> int:
        with self.transaction():
            return int(self._conn.execute("DELETE FROM retrievals WHERE at < %s", (before,)).rowcount)

    def add_outcome(self, record: OutcomeRecord) -> int:
        with self.transaction():
            row = self._conn.execute(
                "INSERT INTO outcomes (at, retrieval_id, outcome, decision, routing, deliberated, iterations, "
                "max_kappa, max_iterations, node_count) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq",
                (
                    record.at,
                    record.retrieval_id,
                    record.outcome,
                    record.decision,
                    record.routing,
                    record.deliberated,
                    record.iterations,
                    record.max_kappa,
                    record.max_iterations,
                    record.node_count,
                ),
            ).fetchone()
        assert row is not None
        return int(row[0])
