"""The PostgreSQL store's schema: its migrations, one per version (``MIGRATIONS[i]`` takes a
database from version i to i + 1)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import psycopg
import psycopg.sql

from ..core.errors import StoreUnavailable
from .base import KEEP_DELETIONS
from .postgres_search import _reindex_terms
from .sql import EDGE_COLUMNS, NODE_COLUMNS

#: how long a transaction waits for the write lock before it says the store is busy
LOCK_TIMEOUT_MS = 20_000
REINDEX_AT = 4
RECORD_AT = 6
#: a migration says how far it is on stderr for stores of at least this many rows
PROGRESS_FROM = 10_000
#: rows a migration updates at once
MIGRATION_BATCH = 10_000

#: metadata holding an escaped NUL, which jsonb refuses (read apart: ``nodes_with_nul``)
WITH_NUL = r"strpos(metadata, '\u0000') > 0"
#: a node's namespace (its metadata's, when a string; else NULL), as its index reads it
NAMESPACE = (
    f"CASE WHEN {WITH_NUL} THEN NULL WHEN jsonb_typeof(metadata::jsonb -> 'namespace') = 'string' "
    "THEN metadata::jsonb ->> 'namespace' END"
)
#: schema migrations: MIGRATIONS[i] takes a store from version i to i + 1 (one transaction)
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        'CREATE TABLE bendscope_meta (key text COLLATE "C" PRIMARY KEY, value text NOT NULL)',
        """CREATE TABLE nodes (
            id text COLLATE "C" PRIMARY KEY,
            content text NOT NULL,
            node_type text COLLATE "C" NOT NULL CHECK (node_type IN ('episodic', 'semantic', 'procedural')),
            confidence double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
            metadata text NOT NULL DEFAULT '{}',
            source text COLLATE "C" NOT NULL DEFAULT '',
            access_count bigint NOT NULL DEFAULT 0,
            created_at text NOT NULL,
            updated_at text NOT NULL,
            last_accessed_at text,
            terms tsvector NOT NULL,
            term_counts jsonb NOT NULL,
            term_total integer NOT NULL
        )""",
        "CREATE INDEX nodes_by_type ON nodes (node_type, id)",
        "CREATE INDEX nodes_by_source ON nodes (source, id)",
        "CREATE INDEX nodes_by_terms ON nodes USING gin (terms) WITH (fastupdate = off)",
        """CREATE TABLE edges (
            id text COLLATE "C" PRIMARY KEY,
            source_id text COLLATE "C" NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
            target_id text COLLATE "C" NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
            edge_type text COLLATE "C" NOT NULL,
            weight double precision NOT NULL,
            metadata text NOT NULL DEFAULT '{}',
            created_at text NOT NULL,
            last_activated_at text
        )""",
        "CREATE INDEX edges_by_source ON edges (source_id, target_id)",
        "CREATE INDEX edges_by_target ON edges (target_id, source_id)",
        'CREATE TABLE terms (term text COLLATE "C" PRIMARY KEY, df bigint NOT NULL)',
        """CREATE TABLE corpus (
            one boolean PRIMARY KEY DEFAULT true CHECK (one),
            nodes bigint NOT NULL, tokens bigint NOT NULL, edges bigint NOT NULL
        )""",
        "INSERT INTO corpus (nodes, tokens, edges) VALUES (0, 0, 0)",
    ),
    # 2: room on each page, so that the counters retrieval updates (access_count,
    # last_accessed_at, last_activated_at) are heap-only updates: no new GIN and B-tree
    # entries for every node a retrieval returns (pages written before keep their room)
    (
        "ALTER TABLE nodes SET (fillfactor = 80)",
        "ALTER TABLE edges SET (fillfactor = 80)",
    ),
    # 3: the loop index (memory.loop_index) with the count of changes to the causal and
    # temporal edges it follows, the retrievals and outcomes an agent reports
    (
        "ALTER TABLE corpus ADD COLUMN arc_version bigint NOT NULL DEFAULT 0, "
        "ADD COLUMN loops_version bigint NOT NULL DEFAULT -1",
        """CREATE TABLE loops (
            id text COLLATE "C" PRIMARY KEY,
            kappa integer NOT NULL,
            approximate boolean NOT NULL,
            node_count integer NOT NULL
        )""",
        """CREATE TABLE loop_members (
            node_id text COLLATE "C" PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
            loop_id text COLLATE "C" NOT NULL REFERENCES loops (id) ON DELETE CASCADE
        )""",
        "CREATE INDEX loop_members_by_loop ON loop_members (loop_id)",
        """CREATE TABLE retrievals (
            id text COLLATE "C" PRIMARY KEY,
            at text NOT NULL,
            count bigint NOT NULL,
            query text NOT NULL,
            routing text COLLATE "C" NOT NULL,
            max_kappa integer NOT NULL,
            max_iterations integer NOT NULL,
            node_ids jsonb NOT NULL
        )""",
        "CREATE INDEX retrievals_by_time ON retrievals (at)",
        """CREATE TABLE outcomes (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at text NOT NULL,
            retrieval_id text COLLATE "C",
            outcome text COLLATE "C" NOT NULL CHECK (outcome IN ('success', 'partial', 'failure', 'timeout')),
            decision text COLLATE "C" NOT NULL CHECK (decision IN ('fast', 'deliberate')),
            routing text COLLATE "C" NOT NULL CHECK (routing IN ('fast', 'deliberate')),
            deliberated boolean NOT NULL,
            iterations integer,
            max_kappa integer NOT NULL,
            max_iterations integer NOT NULL,
            node_count integer NOT NULL
        )""",
    ),
    # 4: the index holds terms (text.terms: stop words out, Snowball stems): every node's
    # terms, term counts and length are computed afresh, then the document frequencies and
    # the corpus total from them (PostgresStore._reindex_terms)
    (),
    # 5: time-valid facts, and stored vectors (one per node and model)
    (
        "ALTER TABLE nodes ADD COLUMN valid_from text, ADD COLUMN valid_until text",
        "ALTER TABLE edges ADD COLUMN valid_from text, ADD COLUMN valid_until text",
        "ALTER TABLE corpus ADD COLUMN vectors_version bigint NOT NULL DEFAULT 0",
        """CREATE TABLE vectors (
            node_id text COLLATE "C" NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
            model text COLLATE "C" NOT NULL,
            vector bytea NOT NULL,
            PRIMARY KEY (node_id, model)
        )""",
        "CREATE INDEX vectors_by_model ON vectors (model, node_id)",
    ),
    # 6: versions (recorded time: the current version of a node or an edge in nodes and edges,
    # the past ones in node_versions and edge_versions), who or what wrote an edge, the merges
    # consolidation made, and which of a retrieval's nodes were its results; the store's own rows
    # are recorded when they were last written (record_rows: a node's updated_at, an edge's
    # created_at)
    (
        "ALTER TABLE nodes ADD COLUMN recorded_at text NOT NULL DEFAULT ''",
        "ALTER TABLE edges ADD COLUMN source text NOT NULL DEFAULT '', ADD COLUMN recorded_at text NOT NULL DEFAULT ''",
        """CREATE TABLE node_versions (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text COLLATE "C" NOT NULL,
            content text NOT NULL,
            node_type text COLLATE "C" NOT NULL,
            confidence double precision NOT NULL,
            metadata text NOT NULL,
            source text COLLATE "C" NOT NULL,
            access_count bigint NOT NULL,
            created_at text NOT NULL,
            updated_at text NOT NULL,
            last_accessed_at text,
            valid_from text,
            valid_until text,
            recorded_at text COLLATE "C" NOT NULL,
            recorded_until text COLLATE "C" NOT NULL
        )""",
        "CREATE INDEX node_versions_by_id ON node_versions (id, recorded_at)",
        "CREATE INDEX node_versions_by_end ON node_versions (recorded_until)",
        """CREATE TABLE edge_versions (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text COLLATE "C" NOT NULL,
            source_id text COLLATE "C" NOT NULL,
            target_id text COLLATE "C" NOT NULL,
            edge_type text COLLATE "C" NOT NULL,
            weight double precision NOT NULL,
            metadata text NOT NULL,
            created_at text NOT NULL,
            last_activated_at text,
            valid_from text,
            valid_until text,
            source text COLLATE "C" NOT NULL,
            recorded_at text COLLATE "C" NOT NULL,
            recorded_until text COLLATE "C" NOT NULL
        )""",
        "CREATE INDEX edge_versions_by_id ON edge_versions (id, recorded_at)",
        "CREATE INDEX edge_versions_by_end ON edge_versions (recorded_until)",
        "CREATE INDEX edge_versions_by_source ON edge_versions (source_id)",
        "CREATE INDEX edge_versions_by_target ON edge_versions (target_id)",
        """CREATE TABLE merges (
            id text COLLATE "C" PRIMARY KEY, into_id text COLLATE "C" NOT NULL, at text NOT NULL
        )""",
        "CREATE INDEX merges_by_into ON merges (into_id)",
        "ALTER TABLE retrievals ADD COLUMN results integer",
    ),
    # 7: the merges a store of the release before kept only in the surviving node's metadata
    # (merged_ids) are merges too, dated when that node was last written (the first survivor
    # by id, if two name one id)
    (
        """INSERT INTO merges (id, into_id, at)
        SELECT DISTINCT ON (j.value) j.value, n.id, n.updated_at FROM nodes n
        CROSS JOIN LATERAL jsonb_array_elements_text(CASE
            WHEN jsonb_typeof(n.metadata::jsonb -> 'merged_ids') = 'array' THEN n.metadata::jsonb -> 'merged_ids'
            ELSE '[]'::jsonb END) AS j(value)
        WHERE NOT EXISTS (SELECT 1 FROM nodes m WHERE m.id = j.value)
        ORDER BY j.value, n.id
        ON CONFLICT (id) DO NOTHING""",
    ),
    # 8: the nodes of a namespace, indexed (a namespace is read without reading the whole store)
    (
        f"CREATE INDEX nodes_by_namespace ON nodes (({NAMESPACE}), id)",
        f"CREATE INDEX nodes_with_nul ON nodes (id) WHERE {WITH_NUL}",
    ),
    # 9: change numbers (the live editor's deltas, store.changes): every write to a node or an
    # edge (any column) takes its transaction's number (corpus.changes, counted once per
    # transaction: see change_function) into its row's ``changed``; a deletion leaves its id in
    # ``removed`` with its number. Rows written before have 0
    (
        "ALTER TABLE nodes ADD COLUMN changed bigint NOT NULL DEFAULT 0",
        "ALTER TABLE edges ADD COLUMN changed bigint NOT NULL DEFAULT 0",
        "ALTER TABLE corpus ADD COLUMN changes bigint NOT NULL DEFAULT 0",
        "CREATE INDEX nodes_by_change ON nodes (changed)",
        "CREATE INDEX edges_by_change ON edges (changed)",
        """CREATE TABLE removed (
            kind text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, changed bigint NOT NULL,
            PRIMARY KEY (kind, id)
        )""",
        "CREATE INDEX removed_by_change ON removed (changed)",
    ),
    # 10: deletions are kept for the last ``removed_keep`` change numbers only: a transaction's
    # first change moves the horizon (never back) to that many numbers before its own and drops
    # the deletions at or below it (change_function); the changes since a number below the
    # horizon are not told (store.changed_since: None, the editor reads the whole view). An
    # access count's number is kept in ``touched``, so the node's row keeps its indexed columns
    (
        f"ALTER TABLE corpus ADD COLUMN removed_keep bigint NOT NULL DEFAULT {KEEP_DELETIONS}, "
        "ADD COLUMN removed_horizon bigint NOT NULL DEFAULT 0",
        """CREATE TABLE touched (
            kind text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, changed bigint NOT NULL,
            PRIMARY KEY (kind, id)
        )""",
        "CREATE INDEX touched_by_change ON touched (changed)",
    ),
)
CHANGES_AT = 9
PRUNED_AT = 10
#: the (kind, id) of the nodes and edges changed or deleted after a number (``changed_since``):
#: written or deleted (their rows, ``removed``), or their access counters (``touched``)
CHANGED_SQL = (
    "SELECT 'node', id FROM nodes WHERE changed > %s",
    "SELECT 'edge', id FROM edges WHERE changed > %s",
    "SELECT kind, id FROM removed WHERE changed > %s",
    "SELECT kind, id FROM touched WHERE changed > %s",
)

#: ``CHANGED_SQL`` and the deletions' horizon in one statement (one snapshot, one round trip):
#: the horizon is the row of kind 'horizon'
CHANGED_AND_HORIZON = " UNION ALL ".join(
    [*(q.replace("%s", "%(number)s") for q in CHANGED_SQL), "SELECT 'horizon', removed_horizon::text FROM corpus"]
)
#: the nodes and edges whose validity begins or ends in a span of time, in one statement
_BOUND = '({0} COLLATE "C" > %(after)s AND {0} COLLATE "C" <= %(until)s)'
BOUNDS_BETWEEN = " UNION ALL ".join(
    f"SELECT '{kind}', id FROM {kind}s WHERE {_BOUND.format('valid_from')} OR {_BOUND.format('valid_until')}"
    for kind in ("node", "edge")
)

#: the causal and temporal arcs of ``edges e`` valid at %(at)s, with both ends valid then
VALID_ARC = (
    "e.edge_type IN ('causal', 'temporal') AND e.source_id <> e.target_id "
    "AND (e.valid_from IS NULL OR e.valid_from <= %(at)s) AND (e.valid_until IS NULL OR e.valid_until > %(at)s) "
    "AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.source_id AND (n.valid_from IS NULL OR n.valid_from <= %(at)s) "
    "AND (n.valid_until IS NULL OR n.valid_until > %(at)s)) "
    "AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.target_id AND (n.valid_from IS NULL OR n.valid_from <= %(at)s) "
    "AND (n.valid_until IS NULL OR n.valid_until > %(at)s))"
)


def neighbours_sql(node_ids: Iterable[str], forward: bool, at: str | None) -> tuple[str, dict[str, Any]]:
    """``PostgresStore.neighbours``' statement and its parameters: the far ends of the arcs
    leaving (``forward``) or entering the nodes, with their loops (an end once per arc: see
    ``distinct_ends``). The loop is a subquery on ``loop_members``' key, not a join, and the
    rows are not made distinct by the server, and one node is asked for by ``=``, not in an
    array: the server plans a prepared statement again at each run while its generic plan
    costs more than the plans made for the parameters, as for an array of unknown length
    (an edges' scan); for one id the generic plan is the index's, kept. The loop index runs
    it several times per write, one node at a time as a rule: planning it was most of a
    write's time in the server."""
    near, far = ("source_id", "target_id") if forward else ("target_id", "source_id")
    valid = VALID_ARC if at is not None else "e.edge_type IN ('causal', 'temporal') AND e.source_id <> e.target_id"
    ids = list(dict.fromkeys(node_ids))
    sql = (
        f"SELECT e.{far}, (SELECT m.loop_id FROM loop_members m WHERE m.node_id = e.{far}) FROM edges e "
        f"WHERE e.{near} {'= %(id)s' if len(ids) == 1 else '= ANY(%(ids)s::text[])'} AND {valid}"
    )
    return sql, {"ids": ids, "id": ids[0] if ids else None, "at": at}


def distinct_ends(rows: Iterable[tuple[Any, ...]]) -> list[tuple[str, str | None]]:
    """``neighbours_sql``'s rows, each end once, in the order the server's ``DISTINCT`` gave
    (by id, then loop, no loop last).

    >>> distinct_ends([("b", None), ("a", "L1"), ("b", None), ("a", "L1"), ("c", "L2")])
    [('a', 'L1'), ('b', None), ('c', 'L2')]
    """
    found = {(str(row[0]), None if row[1] is None else str(row[1])) for row in rows}
    return sorted(found, key=lambda end: (end[0], end[1] is None, end[1] or ""))


#: a written row's columns as the write's ``new`` returns them
_NEW_NODE = ", ".join(f"new.{c.strip()}" for c in NODE_COLUMNS.split(","))
_NEW_EDGE = ", ".join(f"new.{c.strip()}" for c in EDGE_COLUMNS.split(","))
#: ``put_node``'s one statement: the current version kept as a past one (if recorded at another
#: time), the row written; returns the old row's term counts, length, content and validity
#: (NULL: a new node), then the row as written
PUT_NODE = (
    "WITH old AS (SELECT term_counts, term_total, content, valid_from, valid_until FROM nodes "
    "WHERE id = %(id)s), "
    f"kept AS (INSERT INTO node_versions ({NODE_COLUMNS}, recorded_until) SELECT {NODE_COLUMNS}, "
    "greatest(recorded_at, %(recorded_at)s) FROM nodes "
    "WHERE id = %(id)s AND recorded_at <> %(recorded_at)s), "
    f"new AS (INSERT INTO nodes ({NODE_COLUMNS}, terms, term_counts, term_total) VALUES "
    "(%(id)s, %(content)s, %(node_type)s, %(confidence)s, %(metadata)s, %(source)s, %(access_count)s, "
    "%(created_at)s, %(updated_at)s, %(last_accessed_at)s, %(valid_from)s, %(valid_until)s, "
    "%(recorded_at)s, array_to_tsvector(%(terms)s::text[]), %(counts)s, %(total)s) "
    "ON CONFLICT (id) DO UPDATE SET content = excluded.content, node_type = excluded.node_type, "
    "confidence = excluded.confidence, metadata = excluded.metadata, source = excluded.source, "
    "access_count = excluded.access_count, created_at = excluded.created_at, "
    "updated_at = excluded.updated_at, last_accessed_at = excluded.last_accessed_at, "
    "valid_from = excluded.valid_from, valid_until = excluded.valid_until, "
    "recorded_at = excluded.recorded_at, "
    "terms = excluded.terms, term_counts = excluded.term_counts, term_total = excluded.term_total "
    f"RETURNING {NODE_COLUMNS}) "
    "SELECT old.term_counts, old.term_total, old.content, old.valid_from, old.valid_until, "
    f"{_NEW_NODE} FROM new LEFT JOIN old ON true"
)
#: ``put_edge``'s one statement (its ends must exist: no row otherwise): returns whether it was
#: inserted, the old row's ends, type and validity, then the row as written
PUT_EDGE = (
    "WITH old AS (SELECT source_id, target_id, edge_type, valid_from, valid_until FROM edges "
    "WHERE id = %(id)s), "
    f"kept AS (INSERT INTO edge_versions ({EDGE_COLUMNS}, recorded_until) SELECT {EDGE_COLUMNS}, "
    "greatest(recorded_at, %(recorded_at)s) FROM edges "
    "WHERE id = %(id)s AND recorded_at <> %(recorded_at)s "
    "AND EXISTS (SELECT 1 FROM nodes WHERE id = %(source)s) "
    "AND EXISTS (SELECT 1 FROM nodes WHERE id = %(target)s)), "
    f"new AS (INSERT INTO edges ({EDGE_COLUMNS}) SELECT %(id)s, %(source)s, %(target)s, %(type)s, "
    "%(weight)s, %(metadata)s, %(created_at)s, %(last_activated_at)s, %(valid_from)s, %(valid_until)s, "
    "%(provenance)s, %(recorded_at)s "
    "WHERE EXISTS (SELECT 1 FROM nodes WHERE id = %(source)s) "
    "AND EXISTS (SELECT 1 FROM nodes WHERE id = %(target)s) "
    "ON CONFLICT (id) DO UPDATE SET source_id = excluded.source_id, target_id = excluded.target_id, "
    "edge_type = excluded.edge_type, weight = excluded.weight, metadata = excluded.metadata, "
    "created_at = excluded.created_at, last_activated_at = excluded.last_activated_at, "
    "valid_from = excluded.valid_from, valid_until = excluded.valid_until, source = excluded.source, "
    "recorded_at = excluded.recorded_at "
    f"RETURNING (xmax = 0) AS inserted, {EDGE_COLUMNS}) "
    "SELECT new.inserted, old.source_id, old.target_id, old.edge_type, old.valid_from, old.valid_until, "
    f"{_NEW_EDGE} FROM new LEFT JOIN old ON true"
)

SCHEMA_VERSION = len(MIGRATIONS)


def bounded_waits(conn: psycopg.Connection[Any]) -> None:
    """Every statement of a pooled connection waits at most LOCK_TIMEOUT_MS for a lock
    another session holds (a LOCK TABLE in psql made get_metrics wait for good, and four
    such calls took every connection of the pool)."""
    conn.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_MS)}")


def record_rows(conn: psycopg.Connection[tuple[Any, ...]]) -> None:
    """Migration 6: each node and edge is its current version, recorded when it was last
    written (a node's updated_at, an edge's created_at: the release before kept no earlier
    versions), in batches in id order, saying how far it is on stderr for a large store. O(rows)."""
    for table, stamp in (("nodes", "updated_at"), ("edges", "created_at")):
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        total = int(row[0]) if row else 0
        done = said = 0
        after = ""
        while done < total:
            batch = conn.execute(
                f"WITH chosen AS (SELECT id FROM {table} WHERE id > %s ORDER BY id LIMIT %s) "
                f"UPDATE {table} t SET recorded_at = t.{stamp} FROM chosen WHERE t.id = chosen.id RETURNING t.id",
                (after, MIGRATION_BATCH),
            ).fetchall()
            if not batch:
                break
            done += len(batch)
            after = max(r[0] for r in batch)
            if total >= PROGRESS_FROM and done * 10 // total > said:
                said = done * 10 // total
                print(f"memory: recording {total:,} {table} as versions: {said * 10}%", file=sys.stderr)


def change_function(conn: psycopg.Connection[tuple[Any, ...]], schema: str, pruned: bool) -> None:
    """Migration 9's trigger function (10's: ``pruned``). A transaction's first change to
    a node or an edge counts ``corpus.changes`` up by one and keeps the number (a
    transaction-local setting) for its other rows. The counter's row stays locked until the
    commit, so transactions that change rows take their numbers in the order they commit: a
    reader's snapshot that sees number N sees every change numbered up to N (the writers hold
    the store's lock anyway; the access counters' transactions lock that row first,
    ``PostgresStore._counting``).

    ``pruned``: that first change also raises the deletions' horizon to ``removed_keep``
    numbers before its own and drops the deletions and touches at or below it, under the same
    lock (one index probe a transaction; a dropped row, once). And an access counters'
    transaction (``bendscope.counting`` set) leaves its number in ``touched``, not in the row:
    the row's indexed columns stay as they were, so PostgreSQL can update it in place (HOT)."""
    s = psycopg.sql.Identifier(schema).as_string(conn)
    take = (
        f"""UPDATE {s}.corpus SET changes = changes + 1,
                    removed_horizon = greatest(removed_horizon, changes + 1 - removed_keep)
                    RETURNING changes, removed_horizon INTO number, horizon;
                DELETE FROM {s}.removed WHERE changed <= horizon;
                DELETE FROM {s}.touched WHERE changed <= horizon;"""
        if pruned
        else f"UPDATE {s}.corpus SET changes = changes + 1 RETURNING changes INTO number;"
    )
    counted = (
        f"""IF TG_OP = 'UPDATE' AND current_setting('bendscope.counting', true) = 'on' THEN
                INSERT INTO {s}.touched (kind, id, changed) VALUES (TG_ARGV[0], NEW.id, number)
                    ON CONFLICT (kind, id) DO UPDATE SET changed = excluded.changed;
                RETURN NEW;
            END IF;"""
        if pruned
        else ""
    )
    conn.execute(
        f"""CREATE OR REPLACE FUNCTION {s}.bendscope_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            number bigint := nullif(current_setting('bendscope.change', true), '')::bigint;
            horizon bigint;
        BEGIN
            IF number IS NULL THEN
                {take}
                PERFORM set_config('bendscope.change', number::text, true);
            END IF;
            IF TG_OP = 'DELETE' THEN
                INSERT INTO {s}.removed (kind, id, changed) VALUES (TG_ARGV[0], OLD.id, number)
                    ON CONFLICT (kind, id) DO UPDATE SET changed = excluded.changed;
                RETURN OLD;
            END IF;
            {counted}
            NEW.changed := number;
            RETURN NEW;
        END $$"""
    )


def change_triggers(conn: psycopg.Connection[tuple[Any, ...]], schema: str) -> None:
    """Migration 9's triggers: every write and deletion of a node or an edge runs ``change_function``."""
    change_function(conn, schema, pruned=False)
    s = psycopg.sql.Identifier(schema).as_string(conn)
    for table, kind in (("nodes", "node"), ("edges", "edge")):
        conn.execute(
            f"CREATE TRIGGER {table}_changed BEFORE INSERT OR UPDATE ON {s}.{table} "
            f"FOR EACH ROW EXECUTE FUNCTION {s}.bendscope_changed('{kind}')"
        )
        conn.execute(
            f"CREATE TRIGGER {table}_removed AFTER DELETE ON {s}.{table} "
            f"FOR EACH ROW EXECUTE FUNCTION {s}.bendscope_changed('{kind}')"
        )


def migrate(conn: psycopg.Connection[tuple[Any, ...]], lock_key: int, schema: str, read_only: bool) -> None:
    """Bring the memory's tables in ``schema`` to SCHEMA_VERSION, under the advisory lock
    ``lock_key`` (one process migrates; the others wait, then find it done); refuse a schema that
    holds other tables, a newer store, and a migration on a read-only connection."""
    with conn.transaction():
        conn.execute(f"SET LOCAL lock_timeout = {int(LOCK_TIMEOUT_MS)}")
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key,))
        found = conn.execute(
            "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.oid = to_regclass('bendscope_meta')"
        ).fetchone()
        if found is not None and found[0] != schema:  # the lock is the schema's: both must agree
            raise StoreUnavailable(
                f"its search_path finds the memory tables in schema {found[0]!r} but creates in "
                f"{schema!r}: name the memory's schema first"
            )
        if found is None:
            tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").fetchone()
            if tables and tables[0]:
                raise StoreUnavailable(
                    f"schema {schema!r} holds other tables: it is not a memory store "
                    "(choose another database or schema)"
                )
            version = 0
        else:
            row = conn.execute("SELECT value FROM bendscope_meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise StoreUnavailable(
                f"it was written by a newer version (schema {version}; this one reads {SCHEMA_VERSION})"
            )
        if read_only and version != SCHEMA_VERSION:
            raise StoreUnavailable(
                f"it has schema {version} and this version reads {SCHEMA_VERSION}; open it once without "
                "--read-only (it is migrated then)"
            )
        for step in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
            if step + 1 == REINDEX_AT:
                _reindex_terms(conn)
            if step + 1 == RECORD_AT:
                record_rows(conn)
            if step + 1 == CHANGES_AT:
                change_triggers(conn, schema)
            if step + 1 == PRUNED_AT:
                change_function(conn, schema, pruned=True)
            conn.execute(
                "INSERT INTO bendscope_meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(step + 1),),
            )
