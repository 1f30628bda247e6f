"""The shared store: PostgreSQL through psycopg 3, with a psycopg_pool connection pool.

For many agents on several machines: one database that many server processes (and the
threads of each) use at once.

* **Concurrency.** Write transactions take one transaction-scoped advisory lock in
  exclusive mode before their first statement, so they run one after another across
  every process (as SQLite's ``BEGIN IMMEDIATE`` does): a read-modify-write such as
  ``store_node`` merging fields into an existing node never loses a concurrent update.
  Reads run in ``REPEATABLE READ READ ONLY`` snapshots and never wait for a writer. The access
  counters retrieval updates take the same lock in shared mode and lock their rows in id
  order, so retrievals count in parallel with each other, never deadlock, and never
  interleave with a writer. Each thread has its own connection from the pool while a
  transaction is open, so one process can serve ``pool_size`` calls at once.
* **Search.** PostgreSQL's own text search finds the candidates: each node keeps a
  ``tsvector`` of its index terms (GIN index) matched with a ``tsquery``. Terms are the
  memory's own (``text.terms``: folded words, stop words out, Snowball stems), and the nodes are
  ranked by BM25 computed in SQL from per-node term counts, document lengths and the
  document frequencies kept in ``terms`` — the same formula, in the same floating-point
  order, as the in-memory store (and SQLite's FTS5 to 6 decimals). Frequencies and
  the corpus totals are updated once per transaction (not per row), so a bulk import
  does not rewrite one counter row per node.
* **Schema.** A version in ``bendscope_meta``, migrations applied on open under the lock,
  in the first schema of the search path (the lock is that schema's); a database not in
  UTF8, a schema holding other tables, a newer version, or tables found in another schema
  than the first, is refused.

Sets of ids of any size go as one array parameter (``= ANY(%s)``), never spliced into SQL.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import psycopg
import psycopg.conninfo
import psycopg_pool
from psycopg.types.json import Jsonb

from ..core.errors import InvalidInput, NotFound, StoreUnavailable
from ..core.records import DIRECTED_KINDS, LoopRecord, MemoryEdge, MemoryNode, RetrievalRecord
from ..core.text import load_metadata, terms
from .postgres_known import Delta as _Delta
from .postgres_known import Known as _Known
from .postgres_known import RememberingStore
from .postgres_reports import AgentReports
from .postgres_schema import (
    CHANGED_SQL,
    LOCK_TIMEOUT_MS,
    PUT_EDGE,
    PUT_NODE,
    VALID_ARC,
    WITH_NUL,
    bounded_waits,
    distinct_ends,
    migrate,
    neighbours_sql,
)
from .postgres_schema import NAMESPACE as NAMESPACE_SQL
from .postgres_search import _Scorer, lexeme, scorer_for, tsquery, weights_of
from .postgres_url import (
    display_url,
    parse_url,
    pool_size_from,
    split_url,
    without_password,
)
from .sql import NODE_COLUMNS as _NODE_COLUMNS
from .sql import canonical_json as _json
from .sql import edge_of as _edge
from .sql import node_of as _node

CONNECT_TIMEOUT_S = 10
#: a transaction adding or removing this many nodes and edges refreshes the planner's
#: statistics at once (ANALYZE), rather than when autovacuum next looks
BULK_ROWS = 5_000
#: as in the SQLite store: a query word in more nodes than this is "common" (see ``search``)
COMMON_DF = 2_000

_READ, _COUNT, _WRITE = 0, 1, 2  # what a transaction may do


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


class PostgresStore(AgentReports, RememberingStore):
    """A store in a PostgreSQL database (the schema named by the connection's search_path)."""

    kind = "postgresql"

    def __init__(self, url: str, *, pool_size: int | None = None, read_only: bool = False) -> None:
        self.read_only = read_only
        self.location = without_password(url)
        conninfo, own = split_url(url)
        self._conninfo = conninfo
        params = parse_url(conninfo)
        self.url = display_url(params)
        self._secret = params.get("password", "")
        self.pool_size = pool_size_from(pool_size if pool_size is not None else own.get("pool_size"))
        self.parallel_calls = self.pool_size
        self.common_df = COMMON_DF
        self._local = threading.local()
        options: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S, "client_encoding": "UTF8"}
        try:
            with psycopg.connect(conninfo, autocommit=True, **options) as conn:
                encoding = conn.execute("SHOW server_encoding").fetchone()
                if encoding is None or encoding[0] != "UTF8":
                    raise StoreUnavailable(
                        f"the database's encoding is {encoding[0] if encoding else '?'}, not UTF8 "
                        "(create it with ENCODING 'UTF8')"
                    )
                schema = conn.execute("SELECT current_schema()").fetchone()
                if schema is None or schema[0] is None:
                    raise StoreUnavailable("its search_path names no schema that exists")
                self.schema = str(schema[0])
                digest = hashlib.sha256(f"bendscope-memory:{self.schema}".encode()).digest()
                self._lock_key = int.from_bytes(digest[:8], "big", signed=True)
                #: where every write transaction NOTIFYs (``changes``: the live editor LISTENs)
                self.channel = f"bendscope_{digest[:8].hex()}"
                self._migrate(conn)
            self._pool: psycopg_pool.ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = psycopg_pool.ConnectionPool(
                conninfo,
                min_size=1,
                max_size=self.pool_size,
                kwargs={"autocommit": True, **options},
                open=False,
                timeout=LOCK_TIMEOUT_MS / 1000 + 10,
                name="bendscope-memory",
                configure=bounded_waits,
            )
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except StoreUnavailable as exc:
            raise StoreUnavailable(f"cannot open the memory store {self.url}: {exc}") from None
        except psycopg.errors.LockNotAvailable:
            raise StoreUnavailable(
                f"cannot open the memory store {self.url}: it is busy: another writer has held its write "
                f"lock for over {LOCK_TIMEOUT_MS / 1000:g} s; try again"
            ) from None
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise StoreUnavailable(f"cannot open the memory store {self.url}: {self._message(exc)}") from None

    # ------------------------------------------------------------ per-thread state
    @property
    def _depth(self) -> int:
        return int(getattr(self._local, "depth", 0))

    @_depth.setter
    def _depth(self, value: int) -> None:
        self._local.depth = value

    @property
    def _conn(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The open transaction's connection, for a statement that may write anything: what
        the transaction remembers of its rows is forgotten (``_Known``)."""
        known: _Known | None = getattr(self._local, "known", None)
        if known is not None:
            known.forget()
        return self._raw

    @property
    def _raw(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The open transaction's connection, for a read or a write whose rows are told to ``_Known``."""
        conn: psycopg.Connection[tuple[Any, ...]] | None = getattr(self._local, "conn", None)
        if conn is None:
            raise RuntimeError("no transaction is open on this thread")
        return conn

    # ------------------------------------------------------------ schema
    def _migrate(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        migrate(conn, self._lock_key, self.schema, self.read_only)

    @property
    def schema_version(self) -> int:
        row = self._query("SELECT value FROM bendscope_meta WHERE key = 'schema_version'")
        return int(row[0][0])

    # ------------------------------------------------------------ transactions
    @contextlib.contextmanager
    def _open(self, mode: int, begin: str, lock: str | None, then: str = "") -> Iterator[None]:
        """Open a transaction on a pooled connection for this thread (``lock``: the
        advisory lock function to take first; ``then``: a statement after it), commit it at the
        end, roll it back on error.
        Nested calls join the open one; ``mode`` (READ < COUNT < WRITE) says what the
        body may do, and a nested call may not do more than the transaction it joins."""
        if self._depth:
            if mode > self._local.mode:
                raise RuntimeError("a write cannot join a read-only transaction: finish the reading first")
            yield from self._joined()
            return
        if mode > _READ:
            self._refuse_writes()
        with self._errors(), self._pool.connection() as conn:
            self._local.conn = conn
            self._local.mode = mode
            self._local.delta = _Delta()
            self._local.graph_changed = False
            self._local.known = _Known() if mode == _WRITE else None
            self._depth = 1
            try:
                if lock is None:  # (a lock another session holds, e.g. a LOCK TABLE, is waited for 20 s at most)
                    conn.execute(f"{begin}; SET LOCAL lock_timeout = {int(LOCK_TIMEOUT_MS)}")
                else:  # one round trip: no parameters, so the simple protocol takes all three
                    conn.execute(
                        f"{begin}; SET LOCAL lock_timeout = {int(LOCK_TIMEOUT_MS)}; "
                        f"SELECT {lock}({int(self._lock_key)})" + (f"; {then}" if then else "")
                    )
                yield
                delta = self._local.delta
                self._apply(delta)
                # (one round trip: a NOTIFY is delivered to listeners only if the commit succeeds)
                notify = f"NOTIFY {self.channel}; " if self._local.graph_changed else ""
                try:
                    conn.execute(f"{notify}COMMIT")
                except psycopg.OperationalError as exc:
                    if mode != _WRITE or not conn.broken:
                        raise  # (the server refused the commit, e.g. a deadlock: nothing was stored)
                    with contextlib.suppress(psycopg.Error, psycopg_pool.PoolTimeout):
                        self._pool.check()
                    raise StoreUnavailable(
                        f"{self.url}: the connection was lost while the write was committing "
                        f"({self._message(exc)}): it may or may not be stored. Look before repeating it "
                        "(query_graph with its id): storing the same node or edge again is safe, "
                        "append_observation twice adds the observation twice"
                    ) from None
                if delta.rows >= BULK_ROWS:  # fresh planner statistics
                    with contextlib.suppress(psycopg.Error):  # committed already: only an optimisation
                        conn.execute("ANALYZE nodes; ANALYZE edges")
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._depth = 0
                self._local.conn = None
                self._local.delta = None
                self._local.known = None

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Database errors as StoreUnavailable with a message for the caller."""
        try:
            yield
        except psycopg.errors.LockNotAvailable:
            raise StoreUnavailable(
                f"{self.url} is busy: another writer (or a lock another session took) has kept this call "
                f"waiting for over {LOCK_TIMEOUT_MS / 1000:g} s; try again"
            ) from None
        except psycopg_pool.PoolTimeout:
            raise StoreUnavailable(f"{self.url} is busy: no free connection in the pool; try again") from None
        except psycopg.DataError as exc:  # a value the database cannot hold: the caller's input
            raise InvalidInput(f"the store refused a value: {self._message(exc)}") from None
        except psycopg.Error as exc:
            if isinstance(exc, psycopg.OperationalError):  # maybe a lost server: drop every dead connection
                with contextlib.suppress(psycopg.Error, psycopg_pool.PoolTimeout):
                    self._pool.check()
            raise StoreUnavailable(f"{self.url}: {self._message(exc)}") from None

    def _message(self, exc: BaseException) -> str:
        """A database error as one line, never with the password."""
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        text = re.sub(r"password=\S+", "password=…", text)
        return text.replace(self._secret, "…") if self._secret else text

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """A write transaction: exclusive across every process using this store."""
        return self._open(_WRITE, "BEGIN ISOLATION LEVEL READ COMMITTED", "pg_advisory_xact_lock")

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """A snapshot: every read inside sees one committed state, and waits for no writer."""
        return self._open(_READ, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", None)

    def _counting(self) -> contextlib.AbstractContextManager[None]:
        """A transaction that only increments counters: shared with other counting ones."""
        return self._open(
            _COUNT,
            "BEGIN ISOLATION LEVEL READ COMMITTED",
            "pg_advisory_xact_lock_shared",
            "SELECT FROM corpus FOR UPDATE; SET LOCAL bendscope.counting = 'on'",
        )

    def _apply(self, delta: _Delta, then: str = "") -> list[tuple[Any, ...]]:
        """Write a transaction's statistics changes: one statement per table (``terms`` and
        ``corpus``, which ``_Known`` holds nothing of but the versions, kept up to date), sent
        together (one round trip), with the read ``then`` after them (its rows returned). A
        term's count can reach 0 only by a removal: without one, no row is looked for to delete."""
        conn = self._raw
        if not delta:
            return conn.execute(then).fetchall() if then else []
        changed = sorted((term, count) for term, count in delta.df.items() if count)
        with conn.pipeline():
            if changed:
                terms = [term for term, _ in changed]
                conn.execute(
                    "INSERT INTO terms (term, df) SELECT * FROM unnest(%s::text[], %s::bigint[]) "
                    "ON CONFLICT (term) DO UPDATE SET df = terms.df + excluded.df",
                    (terms, [count for _, count in changed]),
                )
                gone = [term for term, count in changed if count < 0]
                if gone:
                    conn.execute("DELETE FROM terms WHERE term = ANY(%s::text[]) AND df <= 0", (gone,))
            loops = [] if delta.loops_version is None else [delta.loops_version]
            conn.execute(
                "UPDATE corpus SET nodes = nodes + %s, tokens = tokens + %s, edges = edges + %s"
                + (", arc_version = arc_version + %s" if delta.arcs else "")
                + (", vectors_version = vectors_version + %s" if delta.vectors else "")
                + (", loops_version = %s" if loops else ""),
                (
                    delta.nodes,
                    delta.tokens,
                    delta.edges,
                    *([delta.arcs] if delta.arcs else []),
                    *([delta.vectors] if delta.vectors else []),
                    *loops,
                ),
            )
            read = conn.execute(then) if then else None
        known = self._known
        if known is not None and known.versions is not None:  # (the versions as applied: see arc_versions)
            version = known.versions[1] if delta.loops_version is None else delta.loops_version
            known.versions = (known.versions[0] + delta.arcs, version)
        return [] if read is None else read.fetchall()

    def _flush(self, then: str = "") -> list[tuple[Any, ...]]:
        """Apply the open write transaction's statistics changes now, so that a search or a
        count inside it sees its own writes (as SQLite's and the in-memory store's do); the
        read ``then`` (its rows returned) in the same round trip."""
        if self._depth and self._local.mode == _WRITE and self._local.delta:
            done: _Delta = self._local.delta
            rows = self._apply(done, then)
            fresh = _Delta()
            fresh.applied_rows = done.rows
            self._local.delta = fresh
            return rows
        return self._query(then) if then else []

    @property
    def _delta(self) -> _Delta:
        delta: _Delta = self._local.delta
        return delta

    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """One read: in the open transaction, or else one statement on a pooled connection
        (a single statement sees one snapshot by itself: one round trip, not three)."""
        if self._depth:
            return self._raw.execute(sql, params).fetchall()
        with self._errors(), self._pool.connection() as conn:
            return conn.execute(sql, params).fetchall()

    P = "%s"
    NAMESPACE = NAMESPACE_SQL
    CHANGES = "SELECT changes FROM corpus"
    HORIZON = "SELECT removed_horizon FROM corpus"
    CHANGED = CHANGED_SQL
    BY_CODE = ' COLLATE "C"'

    def namespace_ids(self, namespace: str) -> list[str]:
        """(the index ``nodes_by_namespace``, and the few nodes whose metadata holds an escaped
        NUL, read apart by ``nodes_with_nul``)"""
        found = set(super().namespace_ids(namespace))
        rows = self._query(f"SELECT id, metadata FROM nodes WHERE {WITH_NUL}")
        found.update(row[0] for row in rows if load_metadata(row[1]).get("namespace") == namespace)
        return sorted(found)

    def _in(self, column: str) -> str:
        return f"{column} = ANY(%s::text[])"

    def _ids(self, ids: Iterable[str]) -> list[str]:
        return _unique(ids)

    def _id_list(self, value: Any) -> list[str]:
        return list(value)

    def _run(self, sql: str, params: Any = ()) -> int:
        return int(self._conn.execute(sql, params).rowcount)

    def _run_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self._conn.cursor() as cursor:
            cursor.executemany(sql, rows)

    @property
    def _known(self) -> _Known | None:
        known: _Known | None = getattr(self._local, "known", None) if self._depth else None
        return known

    # ------------------------------------------------------------ nodes

    def put_node(self, node: MemoryNode) -> None:
        tokens = [lexeme(t) for t in terms(node.content)]
        counts = dict(Counter(tokens))
        with self.transaction():
            self._local.graph_changed = True  # (the commit NOTIFYs: see changes)
            row = self._raw.execute(  # (changes nodes and node_versions alone: the node is told to _known)
                PUT_NODE,
                {
                    "id": node.id,
                    "content": node.content,
                    "node_type": node.node_type,
                    "confidence": node.confidence,
                    "metadata": _json(node.metadata),
                    "source": node.source,
                    "access_count": node.access_count,
                    "created_at": node.created_at,
                    "updated_at": node.updated_at,
                    "last_accessed_at": node.last_accessed_at,
                    "valid_from": node.valid_from,
                    "valid_until": node.valid_until,
                    "recorded_at": node.recorded_at,
                    "terms": sorted(counts),
                    "counts": Jsonb(counts),
                    "total": len(tokens),
                },
            ).fetchone()
            assert row is not None
            known = self._known
            if known is not None:
                known.nodes[node.id] = _node(row[5:])
            if row[0] is not None:
                self._delta.add(row[0], int(row[1]), -1)
                if row[2] != node.content:  # (the old content's vectors)
                    gone = self._raw.execute("DELETE FROM vectors WHERE node_id = %s", (node.id,)).rowcount
                    self._delta.vectors += gone
                if (row[3], row[4]) != (node.valid_from, node.valid_until):
                    self._delta.arcs += 1  # (which arcs hold may change)
            self._delta.add(counts, len(tokens), +1)

    def _drop_node(self, node_id: str) -> list[str]:
        with self.transaction():
            self._local.graph_changed = True  # (the commit NOTIFYs: see changes)
            found = self._conn.execute(
                "SELECT id, edge_type FROM edges WHERE source_id = %s "
                "UNION SELECT id, edge_type FROM edges WHERE target_id = %s ORDER BY id",
                (node_id, node_id),
            ).fetchall()
            edges = [r[0] for r in found]
            row = self._conn.execute(
                "DELETE FROM nodes WHERE id = %s RETURNING term_counts, term_total", (node_id,)
            ).fetchone()  # edges go by ON DELETE CASCADE
            if row is not None:
                self._delta.add(row[0], int(row[1]), -1)
                self._delta.edges -= len(edges)
                self._delta.arcs += sum(r[1] in DIRECTED_KINDS for r in found)
                self._delta.vectors += 1  # (its vectors went by cascade, if it had any)
        return edges if row is not None else []

    def list_nodes(
        self, *, node_type: str | None = None, source: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryNode]:
        rows = self._query(
            f"SELECT {_NODE_COLUMNS} FROM nodes WHERE (%(type)s::text IS NULL OR node_type = %(type)s) "
            "AND (%(source)s::text IS NULL OR source = %(source)s) ORDER BY id LIMIT %(limit)s OFFSET %(offset)s",
            {"type": node_type, "source": source, "limit": limit, "offset": offset},
        )
        return [_node(row) for row in rows]

    def record_access(self, node_ids: Iterable[str], when: str) -> None:
        self.record_retrieval(node_ids, (), when)

    def record_retrieval(
        self, node_ids: Iterable[str], edge_ids: Iterable[str], when: str, log: RetrievalRecord | None = None
    ) -> None:
        """Both counters in one statement, and the retrieval's log, in a transaction that
        runs beside other retrievals (shared lock; rows locked in id order, so never a
        deadlock)."""
        with self._counting():
            self._conn.execute(
                "WITH locked_nodes AS (SELECT id FROM nodes WHERE id = ANY(%(nodes)s::text[]) ORDER BY id FOR UPDATE), "
                "touched AS (UPDATE nodes SET access_count = access_count + 1, last_accessed_at = %(when)s "
                "FROM locked_nodes WHERE nodes.id = locked_nodes.id), "
                "locked_edges AS (SELECT id FROM edges WHERE id = ANY(%(edges)s::text[]) ORDER BY id FOR UPDATE) "
                "UPDATE edges SET last_activated_at = %(when)s FROM locked_edges WHERE edges.id = locked_edges.id",
                {"nodes": _unique(node_ids), "edges": _unique(edge_ids), "when": when},
            )
            if log is not None:
                self.log_retrieval(log)

    # ------------------------------------------------------------ edges

    def put_edge(self, edge: MemoryEdge) -> None:
        with self.transaction():
            self._local.graph_changed = True  # (the commit NOTIFYs: see changes)
            row = self._raw.execute(  # (changes edges and edge_versions alone: the edge is told to _known)
                PUT_EDGE,
                {
                    "id": edge.id,
                    "source": edge.source_id,
                    "target": edge.target_id,
                    "type": edge.edge_type,
                    "weight": edge.weight,
                    "metadata": _json(edge.metadata),
                    "created_at": edge.created_at,
                    "last_activated_at": edge.last_activated_at,
                    "valid_from": edge.valid_from,
                    "valid_until": edge.valid_until,
                    "provenance": edge.source,
                    "recorded_at": edge.recorded_at,
                },
            ).fetchone()  # (xmax = 0): the row was inserted, not updated
            if row is None:
                raise NotFound(f"edge {edge.id!r}: its source or target node does not exist")
            known = self._known
            if known is not None:
                known.edges[edge.id] = _edge(row[6:])
            row = row[:6]
            self._delta.edges += bool(row[0])
            if row[0]:
                self._delta.arcs += edge.directed
            elif (row[3] in DIRECTED_KINDS or edge.directed) and tuple(row[1:]) != (
                edge.source_id,
                edge.target_id,
                edge.edge_type,
                edge.valid_from,
                edge.valid_until,
            ):
                self._delta.arcs += 1

    def _drop_edge(self, edge_id: str) -> bool:
        with self.transaction():
            self._local.graph_changed = True  # (the commit NOTIFYs: see changes)
            found = self._conn.execute("DELETE FROM edges WHERE id = %s RETURNING edge_type", (edge_id,)).fetchone()
            self._delta.edges -= found is not None
            self._delta.arcs += found is not None and found[0] in DIRECTED_KINDS
        return found is not None

    def arcs_from(self, node_ids: Iterable[str], forward: bool = True, at: str | None = None) -> list[tuple[str, str]]:
        side = "source_id" if forward else "target_id"
        valid = VALID_ARC if at is not None else "e.edge_type IN ('causal', 'temporal') AND e.source_id <> e.target_id"
        rows = self._query(
            f"SELECT e.source_id, e.target_id FROM edges e WHERE e.{side} = ANY(%(ids)s::text[]) AND {valid}",
            {"ids": _unique(node_ids), "at": at},
        )
        return [(row[0], row[1]) for row in rows]

    def record_activation(self, edge_ids: Iterable[str], when: str) -> None:
        self.record_retrieval((), edge_ids, when)

    # ------------------------------------------------------------ search and size
    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over the nodes PostgreSQL's text search matches, as the other stores rank.

        The query's words become a ``tsquery`` over the ``terms`` GIN index; each matching
        node is scored in SQL with FTS5's bm25() formula (IDF from ``terms``, length from
        ``corpus``). As in the SQLite store, a word in more than ``common_df`` nodes is
        "common": with rarer words in the query, the candidates are the nodes matching
        those (scored over every word); a query of common words only takes the nodes
        holding all of them; too few candidates are topped up from the nodes matching any
        word. Without common words the ranking is exactly BM25 over every match."""
        if limit <= 0:
            return []
        with self.reading():
            prepared = self._scorer(query)
            if prepared is None:
                return []
            score, known, frequency = prepared
            common = [t for t in known if frequency[t] > self.common_df]
            rare = [t for t in known if t not in common]
            if not common:
                hits = score(tsquery(known, "|"), limit)
            elif rare:
                hits = score(tsquery(rare, "|"), limit)
            else:
                hits = score(tsquery(known, "&"), limit)
            if len(hits) < limit and common:
                seen = {node_id for node_id, _ in hits}
                hits += [hit for hit in score(tsquery(known, "|"), limit) if hit[0] not in seen]
        ranked = sorted(hits, key=lambda h: (-h[1], h[0]))
        return [hit for hit in ranked[:limit] if hit[1] > 0]

    def score(self, query: str, node_ids: Iterable[str]) -> dict[str, float]:
        ids = _unique(node_ids)
        if not ids:
            return {}
        with self.reading():
            prepared = self._scorer(query)
            if prepared is None:
                return {}
            score, known, _ = prepared
            return {i: value for i, value in score.within(tsquery(known, "|"), ids) if value > 0}

    def _scorer(self, query: str) -> tuple[_Scorer, list[str], dict[str, int]] | None:
        """The scorer of a query's known terms (``postgres_search.scorer_for``), inside an open reading."""
        self._flush()
        return scorer_for(self._conn, query)

    def term_weights(self, words: list[str]) -> tuple[int, int, dict[str, int]]:
        with self.reading():
            self._flush()
            return weights_of(self._conn, words)

    def counts(self) -> tuple[int, int]:
        self._flush()
        row = self._query("SELECT nodes, edges FROM corpus")[0]
        return int(row[0]), int(row[1])

    def set_confidences(self, values: Mapping[str, float]) -> None:
        with self.transaction():
            self._local.graph_changed = self._local.graph_changed or bool(values)  # (the editor shows it)
            self._conn.execute(
                "UPDATE nodes SET confidence = v.value FROM unnest(%s::text[], %s::float8[]) AS v (id, value) "
                "WHERE nodes.id = v.id",
                (list(values), list(values.values())),
            )

    def set_weights(self, values: Mapping[str, float]) -> None:
        with self.transaction():
            self._local.graph_changed = self._local.graph_changed or bool(values)  # (the editor shows it)
            self._conn.execute(
                "UPDATE edges SET weight = v.value FROM unnest(%s::text[], %s::float8[]) AS v (id, value) "
                "WHERE edges.id = v.id",
                (list(values), list(values.values())),
            )

    def all_arcs(self, at: str | None = None) -> list[tuple[str, str]]:
        valid = VALID_ARC if at is not None else "e.edge_type IN ('causal', 'temporal') AND e.source_id <> e.target_id"
        rows = self._query(f"SELECT e.source_id, e.target_id FROM edges e WHERE {valid}", {"at": at})
        return [(row[0], row[1]) for row in rows]

    def neighbours(
        self, node_ids: Iterable[str], forward: bool = True, at: str | None = None
    ) -> list[tuple[str, str | None]]:
        return distinct_ends(self._query(*neighbours_sql(node_ids, forward, at)))

    def neighbours_both(
        self, ahead: Iterable[str], behind: Iterable[str], at: str | None = None
    ) -> tuple[list[tuple[str, str | None]], list[tuple[str, str | None]]]:
        if not self._depth:  # (outside a transaction: two statements, each its own snapshot)
            return super().neighbours_both(ahead, behind, at)
        with self._raw.pipeline():  # (both statements in one round trip)
            forth, back = (
                self._raw.execute(*neighbours_sql(ids, way, at)) for ids, way in ((ahead, True), (behind, False))
            )
        return distinct_ends(forth.fetchall()), distinct_ends(back.fetchall())

    def next_change(self, after: str) -> str | None:
        row = self._query(
            "SELECT min(t) FROM (SELECT valid_from AS t FROM edges WHERE edge_type IN ('causal', 'temporal') "
            "AND valid_from > %(after)s UNION ALL SELECT valid_until FROM edges WHERE edge_type IN "
            "('causal', 'temporal') AND valid_until > %(after)s UNION ALL SELECT valid_from FROM nodes WHERE "
            "valid_from > %(after)s UNION ALL SELECT valid_until FROM nodes WHERE valid_until > %(after)s) AS m",
            {"after": after},
        )
        return row[0][0] if row else None

    # ------------------------------------------------------------ vectors
    def put_vectors(self, model: str, vectors: Mapping[str, bytes]) -> None:
        ids = list(vectors)
        with self.transaction():
            done = self._conn.execute(
                "INSERT INTO vectors (node_id, model, vector) SELECT v.id, %s, v.vector "
                "FROM unnest(%s::text[], %s::bytea[]) AS v (id, vector) WHERE EXISTS (SELECT 1 FROM nodes n "
                "WHERE n.id = v.id) ON CONFLICT (node_id, model) DO UPDATE SET vector = excluded.vector",
                (model, ids, [vectors[i] for i in ids]),
            ).rowcount
            self._delta.vectors += max(done, 0)

    def vectors_version(self) -> int:
        self._flush()
        return int(self._query("SELECT vectors_version FROM corpus")[0][0])

    # ------------------------------------------------------------ the loop index
    def arc_versions(self) -> tuple[int, int]:
        """(in a write transaction: the versions read once, its changes not yet applied added:
        no round trip after the first, and its statistics wait for the commit's one statement)"""
        known = self._known
        if known is None:
            row = self._flush("SELECT arc_version, loops_version FROM corpus")[0]  # (one round trip)
            return int(row[0]), int(row[1])
        if known.versions is None:  # (as applied: ``_apply`` adds what it applies)
            read = self._raw.execute("SELECT arc_version, loops_version FROM corpus").fetchone()
            assert read is not None
            known.versions = int(read[0]), int(read[1])
        pending = self._delta
        loops = known.versions[1] if pending.loops_version is None else pending.loops_version
        return known.versions[0] + pending.arcs, loops

    def keep_deletions(self, count: int) -> None:
        super().keep_deletions(count)
        with self.transaction():
            self._conn.execute("UPDATE corpus SET removed_keep = %s", (count,))

    def set_loops_version(self, version: int) -> None:
        with self.transaction():  # (written with the statistics: at the commit, or a read of the versions)
            self._delta.loops_version = version
            known = self._known
            if known is not None and known.versions is not None:
                known.versions = (known.versions[0], version)

    def get_loops(self, loop_ids: Iterable[str]) -> dict[str, LoopRecord]:
        wanted = _unique(loop_ids)
        if not wanted:  # (a write touching no loop: no round trip)
            return {}
        rows = self._query(
            "SELECT l.id, l.kappa, l.approximate, coalesce((SELECT array_agg(m.node_id ORDER BY m.node_id) "
            "FROM loop_members m WHERE m.loop_id = l.id), '{}') FROM loops l WHERE l.id = ANY(%s::text[]) "
            "ORDER BY l.id",
            (wanted,),
        )
        return {row[0]: LoopRecord(row[0], tuple(row[3]), row[1], bool(row[2])) for row in rows}

    def all_loops(self) -> list[LoopRecord]:
        rows = self._query(
            "SELECT l.id, l.kappa, l.approximate, coalesce((SELECT array_agg(m.node_id ORDER BY m.node_id) "
            "FROM loop_members m WHERE m.loop_id = l.id), '{}') FROM loops l ORDER BY l.id"
        )
        return [LoopRecord(row[0], tuple(row[3]), row[1], bool(row[2])) for row in rows]

    def replace_loops(self, remove: Iterable[str], add: Iterable[LoopRecord]) -> None:
        added = list(add)
        with self.transaction():
            conn = self._conn  # (forgets what the transaction knew of the loops' members)
            with conn.pipeline():  # (the statements in one round trip)
                conn.execute("DELETE FROM loops WHERE id = ANY(%s::text[])", (_unique(remove),))
                if added:
                    conn.execute(
                        "INSERT INTO loops (id, kappa, approximate, node_count) "
                        "SELECT * FROM unnest(%s::text[], %s::integer[], %s::boolean[], %s::integer[])",
                        (
                            [loop.id for loop in added],
                            [loop.kappa for loop in added],
                            [loop.approximate for loop in added],
                            [len(loop.nodes) for loop in added],
                        ),
                    )
                    conn.execute(
                        "INSERT INTO loop_members (node_id, loop_id) SELECT * FROM unnest(%s::text[], %s::text[])",
                        ([n for loop in added for n in loop.nodes], [loop.id for loop in added for _ in loop.nodes]),
                    )

    def get_state(self, key: str) -> str | None:
        known = self._known
        if known is not None and key in known.state:
            return known.state[key]
        rows = self._query("SELECT value FROM bendscope_meta WHERE key = %s", ("state:" + key,))
        value = str(rows[0][0]) if rows else None
        if known is not None:
            known.state[key] = value
        return value

    def set_state(self, key: str, value: str) -> None:
        with self.transaction():
            self._raw.execute(
                "INSERT INTO bendscope_meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                ("state:" + key, value),
            )
            known = self._known
            if known is not None:
                known.state[key] = value

    def change_channel(self) -> tuple[str, str]:
        """How to hear this store's writes: (connection string, channel to LISTEN on)."""
        return self._conninfo, self.channel

    def close(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.close()
