"""The embedded default store: one SQLite file (standard library ``sqlite3``).

WAL journal (readers never wait for the writer), foreign keys on (deleting a node
deletes its edges), a busy timeout and ``BEGIN IMMEDIATE`` with retries so that several
processes can write the same file without losing anything, a schema version
(``PRAGMA user_version``) with migrations applied on open, and an FTS5 index over node
content for BM25 ranking. Sets of ids of any size are passed as one JSON parameter
(``json_each``), never spliced into the SQL and never limited by SQLite's variable count.
Durable by default (``synchronous = FULL``): a write acknowledged is on disk, and survives
a power loss, not only a crash of the process (bench/bench_durability.py measures the cost).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Any

from ..core.errors import NotFound, StoreUnavailable
from ..core.records import LoopRecord, MemoryEdge, MemoryNode, OutcomeRecord, RetrievalRecord
from ..core.text import load_metadata, query_terms, terms
from .base import K1, B
from .sql import EDGE_COLUMNS as _EDGE_COLUMNS
from .sql import NODE_COLUMNS as _NODE_COLUMNS
from .sql import SQLStore, _edge_row, _node_row
from .sql import canonical_json as _json
from .sql import edge_of as _edge
from .sql import node_of as _node
from .sqlite_damage import BUSY_TIMEOUT_S, _varints, _why, _writable, damage_of, foreign_of, header_size
from .sqlite_schema import MIGRATIONS, SCHEMA_VERSION, _statements
from .sqlite_wal import rechain, wal_damage

#: rows read at once by SQLiteStore.rescue, and the runs in a row without rows that end a table
#: whose size cannot be read
RESCUE_RUN = 256
RESCUE_EMPTY_RUNS = 64

#: what a migration does in Python after its statements (by the version it makes)
REINDEX_AT = 4
RECORD_AT = 7
#: a re-index or a migration says how far it is on stderr for stores of at least this many rows
PROGRESS_FROM = 10_000
#: rows a migration updates at once
MIGRATION_BATCH = 10_000
#: how long a transaction keeps trying in all before it says the store is busy (each statement waits
#: BUSY_TIMEOUT_S for another process's write lock)
BUSY_GIVE_UP_S = 20.0
#: a search term found in more nodes than this is "common": left out of the match when the
#: query has rarer terms (its BM25 weight is small anyway, and matching it means scoring
#: most of the store); a query of common terms only asks for all of them first
COMMON_DF = 2_000

_IDS = "(SELECT value FROM json_each(?))"
#: the causal and temporal arcs of ``edges e`` valid at :at, with both ends valid then
_VALID_ARC = (
    "e.edge_type IN ('causal', 'temporal') AND e.source_id != e.target_id "
    "AND (e.valid_from IS NULL OR e.valid_from <= :at) AND (e.valid_until IS NULL OR e.valid_until > :at) "
    "AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.source_id AND (n.valid_from IS NULL OR n.valid_from <= :at) "
    "AND (n.valid_until IS NULL OR n.valid_until > :at)) "
    "AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.target_id AND (n.valid_from IS NULL OR n.valid_from <= :at) "
    "AND (n.valid_until IS NULL OR n.valid_until > :at))"
)


def _ids(ids: Iterable[str]) -> str:
    return json.dumps(list(dict.fromkeys(ids)), ensure_ascii=False)


def _locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SQLiteStore(SQLStore):
    """A store in one SQLite file (created when missing)."""

    kind = "sqlite"

    def __init__(self, path: str | PathLike[str], *, durable: bool = True, read_only: bool = False) -> None:
        self.path = str(path)
        self.location = os.path.abspath(self.path)
        #: synchronous=FULL (durable): a write acknowledged survives a power loss or an OS
        #: crash, one fsync per transaction; NORMAL survives a crash of the process only
        self.durable = durable
        self.read_only = read_only
        #: why the store is damaged (opened read-only to rescue what can be read), or None
        self.damage: str | None = None
        self._rescue_folder: str | None = None
        self.common_df = COMMON_DF
        self._lock = threading.RLock()
        self._depth = 0
        try:
            self.damage = damage_of(self.path)
            if self.damage is not None and not read_only:
                raise StoreUnavailable(
                    f"the file is damaged ({self.damage}); nothing was written to it. Rescue what can be read: "
                    f"bendscope-memory export --read-only --store {self.path} > rescued.json, then "
                    "bendscope-memory import rescued.json --store NEW_STORE (and keep the damaged file)"
                )
            if not read_only and self.damage is None:
                foreign = foreign_of(self.path)  # (refused before WAL mode or anything else is written)
                if foreign is not None:
                    raise StoreUnavailable(foreign)
                if os.path.isfile(self.path) and not _writable(self.path):
                    raise StoreUnavailable(
                        "the file cannot be written (read-only, immutable, or on read-only media): serve it with "
                        "--read-only, or copy it to a folder you can write to"
                    )
            self._conn = self._connect()
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if read_only:
                try:
                    self._check_schema()
                except sqlite3.DatabaseError:
                    if self.damage is None:
                        raise  # (a damaged file may fail this: rescue() reads what it can)
            else:
                self._retry(lambda: self._conn.execute("PRAGMA journal_mode = WAL"))
                self._conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
                self._migrate()
        except (sqlite3.DatabaseError, StoreUnavailable, OSError) as exc:
            self._drop_rescue_copy()
            detail = str(exc).removeprefix(f"{self.path}: ")
            raise StoreUnavailable(f"cannot open the memory store {self.path}: {_why(self.path, detail)}") from None

    def _connect(self) -> sqlite3.Connection:
        """The connection: read-write (the file made when missing), or read-only — and on a
        read-only medium, where SQLite cannot make its shared-memory file, immutable."""

        def connect(target: str, uri: bool = False) -> sqlite3.Connection:
            return sqlite3.connect(
                target, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False, uri=uri
            )

        if not self.read_only:
            return connect(self.path)
        if not os.path.isfile(self.path):
            raise StoreUnavailable(f"there is no store at {self.path} (a read-only store must exist)")
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path))
        if self.damage is not None:  # a copy, with its write-ahead log: the original is never touched
            return connect(self._rescue_copy())
        conn = connect(uri + "?mode=ro", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            return connect(uri + "?immutable=1", uri=True)

    def _check_schema(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version > SCHEMA_VERSION:  # (said as a read-write open says it)
            raise StoreUnavailable(
                f"it was written by a newer version (schema {version}; this one reads {SCHEMA_VERSION})"
            )
        if not {"nodes", "edges"} <= tables:
            raise StoreUnavailable("it is not a memory store")
        if version != SCHEMA_VERSION:
            raise StoreUnavailable(
                f"it has schema {version} and this version reads {SCHEMA_VERSION}; open it once without --read-only "
                "(it is migrated then), or with the version that wrote it"
            )

    # ------------------------------------------------------------ schema
    def _migrate(self) -> None:
        with self.transaction():
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreUnavailable(
                    f"it was written by a newer version (schema {version}; this one reads {SCHEMA_VERSION})"
                )
            if version == 0:
                tables = [r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                if tables:
                    raise StoreUnavailable("it is an SQLite file but not a memory store")
            for step in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[step]):
                    self._conn.execute(statement)
                if step + 1 == REINDEX_AT:
                    self._reindex_terms()
                if step + 1 == RECORD_AT:
                    self._record_rows()
                self._conn.execute(f"PRAGMA user_version = {step + 1}")

    def _record_rows(self) -> None:
        """Migration 7: each node and edge of the store is its current version, recorded when
        it was last written (a node's updated_at, an edge's created_at: the release before kept
        no earlier versions), in batches by row id, saying how far it is on stderr for a large
        store. O(rows)."""
        for table, stamp in (("nodes", "updated_at"), ("edges", "created_at")):
            low, high, total = self._conn.execute(f"SELECT min(rowid), max(rowid), count(*) FROM {table}").fetchone()
            if not total:
                continue
            said = 0
            for start in range(low, high + 1, MIGRATION_BATCH):
                self._conn.execute(
                    f"UPDATE {table} SET recorded_at = {stamp} WHERE rowid BETWEEN ? AND ?",
                    (start, start + MIGRATION_BATCH - 1),
                )
                done = min(high, start + MIGRATION_BATCH - 1) - low + 1
                share = done * 10 // (high - low + 1)
                if total >= PROGRESS_FROM and share > said:
                    said = share
                    print(f"memory: recording {total:,} {table} as versions: {said * 10}%", file=sys.stderr)

    def _reindex_terms(self) -> None:
        """Index every node's terms afresh (migration 4), saying how far it is on stderr for
        a large store. O(total content)."""
        rows = self._conn.execute("SELECT rowid, content FROM nodes ORDER BY rowid").fetchall()
        total = len(rows)
        said = 0
        for done, (rowid, content) in enumerate(rows, 1):
            self._index_terms(rowid, None, " ".join(terms(content)))
            if total >= PROGRESS_FROM and done * 10 // total > said:
                said = done * 10 // total
                print(f"memory: re-indexing {total:,} nodes (stems, stop words): {said * 10}%", file=sys.stderr)

    def rescue(self) -> tuple[list[MemoryNode], list[MemoryEdge], int]:
        """What can still be read of a damaged file: its nodes, the edges whose two ends are
        among them, and how many row ids could not be read. Reads in runs of rows by rowid,
        and a run that fails row by row, so one bad page costs its own rows only. O(rows)."""
        lost = 0
        found: dict[str, list[tuple[Any, ...]]] = {}
        for table, wanted in (("nodes", _NODE_COLUMNS), ("edges", _EDGE_COLUMNS)):
            try:  # (a store of an earlier schema lacks the later columns: they read as null)
                present = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            except sqlite3.DatabaseError:
                present = set()
            columns = ", ".join(c if not present or c in present else "NULL" for c in wanted.split(", "))
            rows: list[tuple[Any, ...]] = []
            sql = f"SELECT {columns} FROM {table} WHERE rowid BETWEEN ? AND ?"
            try:
                high: int | None = int(self._conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0)
            except sqlite3.DatabaseError:
                high = None  # unknown: read on until RESCUE_EMPTY_RUNS runs in a row hold nothing
            start, empty = 1, 0
            while (start <= high) if high is not None else (empty < RESCUE_EMPTY_RUNS):
                before = len(rows)
                try:
                    rows += self._conn.execute(sql, (start, start + RESCUE_RUN - 1)).fetchall()
                except sqlite3.DatabaseError:
                    for rowid in range(start, start + RESCUE_RUN):
                        try:
                            rows += self._conn.execute(sql, (rowid, rowid)).fetchall()
                        except sqlite3.DatabaseError:
                            lost += 1
                empty = 0 if len(rows) > before else empty + 1
                start += RESCUE_RUN
            found[table] = rows
        nodes: dict[str, MemoryNode] = {}
        for row in found["nodes"]:
            try:
                nodes[row[0]] = _node(row)
            except (ValueError, TypeError):  # (a row whose text is damaged)
                lost += 1
        edges: list[MemoryEdge] = []
        for row in found["edges"]:
            try:
                edge = _edge(row)
            except (ValueError, TypeError):
                lost += 1
                continue
            if edge.source_id in nodes and edge.target_id in nodes:
                edges.append(edge)
        return sorted(nodes.values(), key=lambda n: n.id), sorted(edges, key=lambda e: e.id), lost

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    # ------------------------------------------------------------ transactions
    def _retry(self, work: Any) -> Any:
        """Run ``work`` again while another process holds the write lock, up to
        BUSY_GIVE_UP_S in all; then (or on any other database error) StoreUnavailable."""
        deadline = time.monotonic() + BUSY_GIVE_UP_S
        pause = 0.05
        while True:
            try:
                return work()
            except sqlite3.OperationalError as exc:
                if not _locked(exc):
                    raise StoreUnavailable(f"{self.path}: {exc}") from None
                if time.monotonic() >= deadline:
                    raise StoreUnavailable(
                        f"{self.path} is busy: another process has held its write lock for over "
                        f"{BUSY_GIVE_UP_S:g} s; try again"
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 1.0)
            except sqlite3.IntegrityError:
                raise  # a broken constraint: the caller says which
            except sqlite3.DatabaseError as exc:
                raise StoreUnavailable(f"{self.path}: {exc}") from None

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """A deferred transaction: under WAL its reads see one snapshot and block no writer."""
        with self._lock:
            if self._depth:
                yield from self._joined()
                return
            self._retry(lambda: self._conn.execute("BEGIN DEFERRED"))
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("COMMIT")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._depth:
                yield from self._joined()
                return
            self._refuse_writes()
            self._retry(lambda: self._conn.execute("BEGIN IMMEDIATE"))
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                with contextlib.suppress(sqlite3.Error):  # (SQLite rolls back by itself on a full disk)
                    self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            try:
                self._retry(lambda: self._conn.execute("COMMIT"))
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise

    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._retry(lambda: self._conn.execute(sql, params).fetchall()))

    def _in(self, column: str) -> str:
        return f"{column} IN {_IDS}"

    def _ids(self, ids: Iterable[str]) -> str:
        return _ids(ids)

    def _id_list(self, value: Any) -> list[str]:
        return list(json.loads(value))

    def _exec(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        """One statement inside the open transaction, its errors said as _retry says them."""
        cursor: sqlite3.Cursor = self._retry(lambda: self._conn.execute(sql, params))
        return cursor

    def _exec_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self._retry(lambda: self._conn.executemany(sql, rows))

    def _run(self, sql: str, params: Any = ()) -> int:
        return int(self._exec(sql, params).rowcount)

    def _run_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self._exec_many(sql, rows)

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self.transaction():
            cursor: sqlite3.Cursor = self._retry(lambda: self._conn.execute(sql, params))
            return cursor

    # ------------------------------------------------------------ nodes

    def put_node(self, node: MemoryNode) -> None:
        with self.transaction():
            old = self._exec("SELECT rowid, content, recorded_at FROM nodes WHERE id = ?", (node.id,)).fetchone()
            if old is not None and old[2] != node.recorded_at:
                self._keep_current("nodes", node.id, node.recorded_at)
            row = self._exec(
                f"INSERT INTO nodes ({_NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET content = excluded.content, node_type = excluded.node_type, "
                "confidence = excluded.confidence, metadata = excluded.metadata, source = excluded.source, "
                "access_count = excluded.access_count, created_at = excluded.created_at, "
                "updated_at = excluded.updated_at, last_accessed_at = excluded.last_accessed_at, "
                "valid_from = excluded.valid_from, valid_until = excluded.valid_until, "
                "recorded_at = excluded.recorded_at RETURNING rowid",
                _node_row(node),
            ).fetchone()
            if old is None or old[1] != node.content:  # (the index holds the content's terms)
                before = None
                if old is not None:
                    before = self._exec("SELECT terms FROM nodes_fts WHERE rowid = ?", (old[0],)).fetchone()
                    self._exec("DELETE FROM vectors WHERE node_id = ?", (node.id,))  # (of the old content)
                self._index_terms(row[0], before[0] if before else None, " ".join(terms(node.content)))

    def _index_terms(self, rowid: int, old: str | None, new: str | None) -> None:
        """Replace a node's row of the full-text index (``old`` and ``new``: its indexed terms,
        None for none) and keep each term's document frequency in step."""
        if old is not None:
            self._exec("DELETE FROM nodes_fts WHERE rowid = ?", (rowid,))
            gone = sorted(set(old.split()))
            self._exec_many("UPDATE term_df SET df = df - 1 WHERE term = ?", [(t,) for t in gone])
            self._exec(f"DELETE FROM term_df WHERE term IN {_IDS} AND df <= 0", (_ids(gone),))
        if new is not None:
            self._exec("INSERT INTO nodes_fts (rowid, terms) VALUES (?, ?)", (rowid, new))
            self._exec_many(
                "INSERT INTO term_df (term, df) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET df = df + 1",
                [(t,) for t in sorted(set(new.split()))],
            )

    def _drop_node(self, node_id: str) -> list[str]:
        with self.transaction():
            edges = [
                r[0]
                for r in self._conn.execute(
                    "SELECT id FROM edges WHERE source_id = ? OR target_id = ? ORDER BY id", (node_id, node_id)
                )
            ]
            found = self._exec(
                "SELECT rowid, terms FROM nodes_fts WHERE rowid = (SELECT rowid FROM nodes WHERE id = ?)", (node_id,)
            ).fetchone()
            if found is not None:
                self._index_terms(found[0], found[1], None)
            self._conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))  # edges go by ON DELETE CASCADE
        return edges

    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        where, params = [], []
        if node_type is not None:
            where.append("node_type = ?")
            params.append(node_type)
        if source is not None:
            where.append("source = ?")
            params.append(source)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._query(
            f"SELECT {_NODE_COLUMNS} FROM nodes {clause} ORDER BY id LIMIT ? OFFSET ?", (*params, limit, offset)
        )
        return [_node(row) for row in rows]

    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        self._write(
            f"UPDATE nodes SET access_count = access_count + 1, last_accessed_at = ? WHERE id IN {_IDS}",
            (when, _ids(node_ids)),
        )

    # ------------------------------------------------------------ edges

    def put_edge(self, edge: MemoryEdge) -> None:
        try:
            with self.transaction():
                self._keep_current("edges", edge.id, edge.recorded_at)
                self._exec(
                    f"INSERT INTO edges ({_EDGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (id) DO UPDATE SET source_id = excluded.source_id, target_id = excluded.target_id, "
                    "edge_type = excluded.edge_type, weight = excluded.weight, metadata = excluded.metadata, "
                    "created_at = excluded.created_at, last_activated_at = excluded.last_activated_at, "
                    "valid_from = excluded.valid_from, valid_until = excluded.valid_until, source = excluded.source, "
                    "recorded_at = excluded.recorded_at",
                    _edge_row(edge),
                )
        except sqlite3.IntegrityError:
            raise NotFound(f"edge {edge.id!r}: its source or target node does not exist") from None

    def _drop_edge(self, edge_id: str) -> bool:
        return self._write("DELETE FROM edges WHERE id = ?", (edge_id,)).rowcount > 0

    def arcs_from(self, node_ids: Iterable[str], forward: bool = True, at: str | None = None) -> list[tuple[str, str]]:
        side = "source_id" if forward else "target_id"
        if at is None:
            rows = self._query(
                f"SELECT source_id, target_id FROM edges WHERE {side} IN {_IDS} "
                "AND edge_type IN ('causal', 'temporal') AND source_id != target_id",
                (_ids(node_ids),),
            )
        else:
            rows = self._query(
                f"SELECT e.source_id, e.target_id FROM edges e WHERE e.{side} IN (SELECT value FROM json_each(:ids)) "
                f"AND {_VALID_ARC}",
                {"ids": _ids(node_ids), "at": at},
            )
        return [(row[0], row[1]) for row in rows]

    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        self._write(f"UPDATE edges SET last_activated_at = ? WHERE id IN {_IDS}", (when, _ids(edge_ids)))

    # ------------------------------------------------------------ search and size
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over FTS5, with every word of ``query`` a quoted phrase (FTS syntax is only text).

        A word in more than ``common_df`` nodes is "common": matching it means scoring much of
        the store. When the query also has rarer words, the candidates are the nodes matching
        those (3·limit of them) and each gets, on top of FTS5's BM25 for the rarer words, the
        BM25 terms of the common words (BM25 is a sum over words; see ``_bm25``); a
        query of common words only takes first the nodes holding all of them. Too few
        candidates: the nodes matching any word fill up (FTS5's BM25 over all words, which is
        the same sum). So scores are BM25 over every word, comparable across candidates. A
        node holding only common words can be left out when enough others match (its BM25 is
        small: common words weigh little)."""
        words = query_terms(query)
        if not words or limit <= 0:
            return []
        frequency = self._frequencies(words)
        common = [w for w in words if frequency.get(w, 0) > self.common_df]  # unknown words count as rare
        rare = [w for w in words if w not in common]
        full = " OR ".join(map(_phrase, words))
        if not common:
            hits = self._match(full, limit)  # plain BM25, exactly
        elif rare:
            found = self._match(" OR ".join(map(_phrase, rare)), limit * 3)
            extra = self._bm25([rowid for rowid, _, _ in found], common, frequency)
            hits = [(rowid, node_id, score + extra.get(rowid, 0.0)) for rowid, node_id, score in found]
        else:
            hits = self._match(" AND ".join(map(_phrase, words)), limit * 3)
        if len(hits) < limit:
            seen = {rowid for rowid, _, _ in hits}
            hits += [hit for hit in self._match(full, limit) if hit[0] not in seen]
        ranked = sorted(((node_id, score) for _, node_id, score in hits), key=lambda h: (-h[1], h[0]))
        return ranked[:limit]

    def score(self, query: str, node_ids: Iterable[str]) -> dict[str, float]:
        words = query_terms(query)
        ids = _ids(node_ids)
        if not words:
            return {}
        with self.reading():
            frequency = self._frequencies(words)
            rows = dict(self._query(f"SELECT rowid, id FROM nodes WHERE id IN {_IDS}", (ids,)))
            scores = self._bm25(list(rows), words, frequency)
        return {rows[rowid]: value for rowid, value in scores.items() if value > 0}

    def term_weights(self, words: list[str]) -> tuple[int, int, dict[str, int]]:
        with self.reading():
            averages = self._query("SELECT block FROM nodes_fts_data WHERE id = 1")
            counts = _varints(averages[0][0]) if averages else []
            frequency = self._frequencies(words)
        rows, total = (counts[0], counts[1]) if len(counts) >= 2 else (0, 0)
        return rows, total, {w: frequency.get(w, 0) for w in words}

    def _frequencies(self, words: list[str]) -> dict[str, int]:
        """The document frequency of each of the terms (those in no node left out)."""
        return dict(self._query(f"SELECT term, df FROM term_df WHERE term IN {_IDS}", (_ids(words),)))

    def _bm25(self, rowids: list[int], common: list[str], frequency: dict[str, int]) -> dict[int, float]:
        """The BM25 terms of the ``common`` terms for these rows, as FTS5's bm25() computes them
        (the sum in the order of ``common``): row count and total tokens from the index's
        averages record, row lengths from its docsize table, term counts from the terms the
        index holds. O(rows · their length)."""
        if not rowids or not common:
            return {}
        averages = self._query("SELECT block FROM nodes_fts_data WHERE id = 1")
        counts = _varints(averages[0][0]) if averages else []
        if len(counts) < 2 or counts[0] == 0:
            return {}
        rows, total = counts[0], counts[1]
        average = total / rows
        ids = json.dumps(rowids)
        sizes = {
            r[0]: _varints(r[1])[0]
            for r in self._query(f"SELECT id, sz FROM nodes_fts_docsize WHERE id IN {_IDS}", (ids,))
        }
        texts = self._query(f"SELECT rowid, terms FROM nodes_fts WHERE rowid IN {_IDS}", (ids,))
        weights = {}
        for term in common:
            df = frequency.get(term, 0)
            idf = math.log((rows - df + 0.5) / (df + 0.5))
            weights[term] = idf if idf > 0 else 1e-6  # FTS5's clamp
        parts: dict[int, float] = {}
        for rowid, indexed in texts:
            tokens = indexed.split()
            length = sizes.get(rowid, len(tokens))
            score = 0.0
            for term, weight in weights.items():
                tf = tokens.count(term)
                if tf:
                    score += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
            parts[rowid] = score
        return parts

    def _match(self, expression: str, limit: int) -> list[tuple[int, str, float]]:
        rows = self._query(
            "SELECT nodes.rowid, nodes.id, bm25(nodes_fts) AS rank FROM nodes_fts "
            "JOIN nodes ON nodes.rowid = nodes_fts.rowid WHERE nodes_fts MATCH ? ORDER BY rank, nodes.id LIMIT ?",
            (expression, limit),
        )
        return [(row[0], row[1], -float(row[2])) for row in rows if row[2] < 0]

    def counts(self) -> tuple[int, int]:
        (nodes,) = self._query("SELECT count(*) FROM nodes")[0]
        (edges,) = self._query("SELECT count(*) FROM edges")[0]
        return int(nodes), int(edges)

    def set_confidences(self, values: Mapping[str, float]) -> None:
        with self.transaction():
            self._exec_many("UPDATE nodes SET confidence = ? WHERE id = ?", [(v, k) for k, v in values.items()])

    def set_weights(self, values: Mapping[str, float]) -> None:
        with self.transaction():
            self._exec_many("UPDATE edges SET weight = ? WHERE id = ?", [(v, k) for k, v in values.items()])

    def all_arcs(self, at: str | None = None) -> list[tuple[str, str]]:
        if at is None:
            rows = self._query(
                "SELECT source_id, target_id FROM edges WHERE edge_type IN ('causal', 'temporal') "
                "AND source_id != target_id"
            )
        else:
            rows = self._query(f"SELECT e.source_id, e.target_id FROM edges e WHERE {_VALID_ARC}", {"at": at})
        return [(row[0], row[1]) for row in rows]

    def neighbours(
        self, node_ids: Iterable[str], forward: bool = True, at: str | None = None
    ) -> list[tuple[str, str | None]]:
        near, far = ("source_id", "target_id") if forward else ("target_id", "source_id")
        valid = _VALID_ARC if at is not None else "e.edge_type IN ('causal', 'temporal') AND e.source_id != e.target_id"
        rows = self._query(
            f"SELECT DISTINCT e.{far}, m.loop_id FROM edges e LEFT JOIN loop_members m ON m.node_id = e.{far} "
            f"WHERE e.{near} IN (SELECT value FROM json_each(:ids)) AND {valid}",
            {"ids": _ids(node_ids), "at": at},
        )
        return [(row[0], row[1]) for row in rows]

    def next_change(self, after: str) -> str | None:
        row = self._query(
            "SELECT min(t) FROM (SELECT valid_from AS t FROM edges WHERE edge_type IN ('causal', 'temporal') "
            "AND valid_from > :after UNION ALL SELECT valid_until FROM edges WHERE edge_type IN "
            "('causal', 'temporal') AND valid_until > :after UNION ALL SELECT valid_from FROM nodes WHERE "
            "valid_from > :after UNION ALL SELECT valid_until FROM nodes WHERE valid_until > :after)",
            {"after": after},
        )
        return row[0][0] if row else None

    # ------------------------------------------------------------ vectors
    def put_vectors(self, model: str, vectors: Mapping[str, bytes]) -> None:
        with self.transaction():
            self._exec_many(
                "INSERT INTO vectors (node_id, model, vector) SELECT ?, ?, ? WHERE EXISTS "
                "(SELECT 1 FROM nodes WHERE id = ?) "
                "ON CONFLICT (node_id, model) DO UPDATE SET vector = excluded.vector",
                [(node_id, model, blob, node_id) for node_id, blob in vectors.items()],
            )

    def vectors_version(self) -> int:
        return int(self._query("SELECT value FROM counters WHERE key = 'vectors_version'")[0][0])

    # ------------------------------------------------------------ the loop index
    def arc_versions(self) -> tuple[int, int]:
        found = dict(self._query("SELECT key, value FROM counters"))
        return int(found["arc_version"]), int(found["loops_version"])

    def namespace_ids(self, namespace: str) -> list[str]:
        """(the index ``nodes_by_namespace``, and the few nodes whose metadata SQLite's JSON
        functions refuse — NaN, an infinity —, read apart by ``nodes_not_json``)"""
        found = set(super().namespace_ids(namespace))
        rows = self._query("SELECT id, metadata FROM nodes WHERE NOT json_valid(metadata)")
        found.update(row[0] for row in rows if load_metadata(row[1]).get("namespace") == namespace)
        return sorted(found)

    def keep_deletions(self, count: int) -> None:
        super().keep_deletions(count)
        self._write("UPDATE counters SET value = ? WHERE key = 'removed_keep'", (count,))

    def set_loops_version(self, version: int) -> None:
        self._write("UPDATE counters SET value = ? WHERE key = 'loops_version'", (version,))

    def replace_loops(self, remove: Iterable[str], add: Iterable[LoopRecord]) -> None:
        added = list(add)
        with self.transaction():
            self._exec(f"DELETE FROM loops WHERE id IN {_IDS}", (_ids(remove),))  # (members by cascade)
            self._exec_many(
                "INSERT INTO loops (id, kappa, approximate, node_count) VALUES (?, ?, ?, ?)",
                [(loop.id, loop.kappa, int(loop.approximate), len(loop.nodes)) for loop in added],
            )
            self._exec_many(
                "INSERT INTO loop_members (node_id, loop_id) VALUES (?, ?)",
                [(node_id, loop.id) for loop in added for node_id in loop.nodes],
            )

    # ------------------------------------------------------------ what the agent reported
    def log_retrieval(self, record: RetrievalRecord) -> None:
        self._write(
            "INSERT INTO retrievals (id, at, count, query, routing, max_kappa, max_iterations, node_ids, results) "
            "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, count = count + 1",
            (
                record.id,
                record.at,
                record.query,
                record.routing,
                record.max_kappa,
                record.max_iterations,
                _json(list(record.node_ids)),
                record.results,
            ),
        )

    def forget_retrievals(self, before: str) -> int:
        return self._write("DELETE FROM retrievals WHERE at < ?", (before,)).rowcount

    def add_outcome(self, record: OutcomeRecord) -> int:
        cursor = self._write(
            "INSERT INTO outcomes (at, retrieval_id, outcome, decision, routing, deliberated, iterations, max_kappa, "
            "max_iterations, node_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.at,
                record.retrieval_id,
                record.outcome,
                record.decision,
                record.routing,
                int(record.deliberated),
                record.iterations,
                record.max_kappa,
                record.max_iterations,
                record.node_count,
            ),
        )
        return int(cursor.lastrowid or 0)

    def get_state(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM state WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_state(self, key: str, value: str) -> None:
        self._write(
            "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _rescue_copy(self) -> str:
        """A copy of a damaged file and of its write-ahead log (the writes acknowledged since
        the last checkpoint), in a temporary folder; a truncated copy is extended with zeros
        to the size its header counts — SQLite refuses the whole of a file shorter than its
        header says, but reads every page of the padded copy except the lost ones. Removed
        by close(). O(size)."""
        self._rescue_folder = tempfile.mkdtemp(prefix="bendscope-rescue-")
        copy = os.path.join(self._rescue_folder, "rescued.sqlite3")
        shutil.copyfile(self.path, copy)
        if os.path.exists(self.path + "-wal"):
            shutil.copyfile(self.path + "-wal", copy + "-wal")
            if wal_damage(self.path + "-wal", looks=1) is not None:
                rechain(copy + "-wal")  # (the copy's frames are read past the damaged one, not dropped)
        expected = header_size(copy)
        if expected is not None and os.path.getsize(copy) < expected:
            os.truncate(copy, expected)  # (zeros, sparse where the file system allows)
        return copy

    def close(self) -> None:
        with self._lock:
            if getattr(self, "_conn", None) is not None:
                self._conn.close()
            self._drop_rescue_copy()

    def _drop_rescue_copy(self) -> None:
        if self._rescue_folder is not None:
            shutil.rmtree(self._rescue_folder, ignore_errors=True)
            self._rescue_folder = None


def _phrase(term: str) -> str:
    """A search term as an FTS5 string (so no term is ever read as FTS syntax)."""
    return '"' + term.replace('"', '""') + '"'
