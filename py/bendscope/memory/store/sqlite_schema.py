"""The SQLite store's schema: its migrations, one per version (``MIGRATIONS[i]`` takes a store
from version i to i + 1)."""

from __future__ import annotations

import sqlite3

from .base import KEEP_DELETIONS


def _change_triggers(table: str, kind: str) -> str:
    """Migration 11's triggers on ``table``: each insert, update and deletion takes the next
    change number into ``changes`` (the row itself is not written again); a deletion also
    raises the horizon to ``removed_keep`` numbers before its own and drops the changes at or
    below it. O(log n) a row, and each dropped change once."""
    number = "(SELECT value FROM counters WHERE key = 'changes')"
    keep = "(SELECT value FROM counters WHERE key = 'removed_keep')"
    count = "UPDATE counters SET value = value + 1 WHERE key = 'changes';"
    # (an upsert, not OR REPLACE: a statement's own conflict clause would override a trigger's)
    upsert = "ON CONFLICT (kind, id) DO UPDATE SET changed = excluded.changed"
    return f"""CREATE TRIGGER {table}_changed_insert AFTER INSERT ON {table} BEGIN
        {count}
        INSERT INTO changes (kind, id, changed) VALUES ('{kind}', new.id, {number}) {upsert};
    END;
    CREATE TRIGGER {table}_changed_update AFTER UPDATE ON {table} BEGIN
        {count}
        INSERT INTO changes (kind, id, changed) VALUES ('{kind}', new.id, {number}) {upsert};
        INSERT INTO changes (kind, id, changed) SELECT '{kind}', old.id, {number} WHERE old.id IS NOT new.id {upsert};
    END;
    CREATE TRIGGER {table}_changed_delete AFTER DELETE ON {table} BEGIN
        {count}
        INSERT INTO changes (kind, id, changed) VALUES ('{kind}', old.id, {number}) {upsert};
        UPDATE counters SET value = {number} - {keep} WHERE key = 'removed_horizon' AND value < {number} - {keep};
        DELETE FROM changes WHERE changed <= (SELECT value FROM counters WHERE key = 'removed_horizon');
    END;"""


#: schema migrations: MIGRATIONS[i] takes a store from version i to i + 1
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE nodes (
        id TEXT PRIMARY KEY NOT NULL,
        content TEXT NOT NULL,
        node_type TEXT NOT NULL CHECK (node_type IN ('episodic', 'semantic', 'procedural')),
        confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        metadata TEXT NOT NULL DEFAULT '{}',
        source TEXT NOT NULL DEFAULT '',
        access_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_accessed_at TEXT
    );
    CREATE INDEX nodes_by_type ON nodes (node_type, id);
    CREATE INDEX nodes_by_source ON nodes (source, id);
    CREATE TABLE edges (
        id TEXT PRIMARY KEY NOT NULL,
        source_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        target_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        edge_type TEXT NOT NULL,
        weight REAL NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        last_activated_at TEXT
    );
    CREATE INDEX edges_by_source ON edges (source_id);
    CREATE INDEX edges_by_target ON edges (target_id);
    CREATE VIRTUAL TABLE nodes_fts USING fts5 (
        content, content = 'nodes', content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
        INSERT INTO nodes_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
        INSERT INTO nodes_fts (nodes_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    END;
    CREATE TRIGGER nodes_fts_update AFTER UPDATE OF content ON nodes BEGIN
        INSERT INTO nodes_fts (nodes_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
        INSERT INTO nodes_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    """,
    # 2: term document frequencies, so a search can leave out terms most nodes contain
    """
    CREATE VIRTUAL TABLE nodes_fts_vocab USING fts5vocab (nodes_fts, 'row');
    """,
    # 3: the loop index (memory.loop_index) with the count of changes to the causal and
    # temporal edges it follows, the retrievals and outcomes an agent reports, and state
    """
    CREATE TABLE counters (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
    INSERT INTO counters (key, value) VALUES ('arc_version', 0), ('loops_version', -1);
    CREATE TRIGGER arcs_insert AFTER INSERT ON edges WHEN new.edge_type IN ('causal', 'temporal') BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'arc_version';
    END;
    CREATE TRIGGER arcs_delete AFTER DELETE ON edges WHEN old.edge_type IN ('causal', 'temporal') BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'arc_version';
    END;
    CREATE TRIGGER arcs_update AFTER UPDATE ON edges
    WHEN (old.edge_type IN ('causal', 'temporal') OR new.edge_type IN ('causal', 'temporal'))
        AND (old.source_id IS NOT new.source_id OR old.target_id IS NOT new.target_id
             OR old.edge_type IS NOT new.edge_type) BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'arc_version';
    END;
    CREATE TABLE loops (
        id TEXT PRIMARY KEY NOT NULL,
        kappa INTEGER NOT NULL,
        approximate INTEGER NOT NULL,
        node_count INTEGER NOT NULL
    );
    CREATE TABLE loop_members (
        node_id TEXT PRIMARY KEY NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        loop_id TEXT NOT NULL REFERENCES loops (id) ON DELETE CASCADE
    );
    CREATE INDEX loop_members_by_loop ON loop_members (loop_id);
    CREATE TABLE retrievals (
        id TEXT PRIMARY KEY NOT NULL,
        at TEXT NOT NULL,
        count INTEGER NOT NULL,
        query TEXT NOT NULL,
        routing TEXT NOT NULL,
        max_kappa INTEGER NOT NULL,
        max_iterations INTEGER NOT NULL,
        node_ids TEXT NOT NULL
    );
    CREATE INDEX retrievals_by_time ON retrievals (at);
    CREATE TABLE outcomes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        retrieval_id TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN ('success', 'partial', 'failure', 'timeout')),
        decision TEXT NOT NULL CHECK (decision IN ('fast', 'deliberate')),
        routing TEXT NOT NULL CHECK (routing IN ('fast', 'deliberate')),
        deliberated INTEGER NOT NULL,
        iterations INTEGER,
        max_kappa INTEGER NOT NULL,
        max_iterations INTEGER NOT NULL,
        node_count INTEGER NOT NULL
    );
    CREATE TABLE state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
    """,
    # 4: the index holds terms (text.terms: stop words out, Snowball stems), given ready-made:
    # FTS5's 'ascii' tokenizer keeps each one whole (they hold no ASCII punctuation) and folds
    # nothing more; every node is re-indexed (reindex_terms). The document frequency of each
    # term is kept beside it (fts5vocab counted it by walking the term's whole posting list:
    # a millisecond for a common word, on every search)
    """
    DROP TRIGGER nodes_fts_insert;
    DROP TRIGGER nodes_fts_delete;
    DROP TRIGGER nodes_fts_update;
    DROP TABLE nodes_fts_vocab;
    DROP TABLE nodes_fts;
    CREATE VIRTUAL TABLE nodes_fts USING fts5 (terms, tokenize = 'ascii');
    CREATE TABLE term_df (term TEXT PRIMARY KEY NOT NULL, df INTEGER NOT NULL) WITHOUT ROWID;
    """,
    # 5: time-valid facts (a change to an edge's or a node's validity changes which arcs hold:
    # counted as the loop index's arc version), and stored vectors (one per node and model)
    """
    ALTER TABLE nodes ADD COLUMN valid_from TEXT;
    ALTER TABLE nodes ADD COLUMN valid_until TEXT;
    ALTER TABLE edges ADD COLUMN valid_from TEXT;
    ALTER TABLE edges ADD COLUMN valid_until TEXT;
    DROP TRIGGER arcs_update;
    CREATE TRIGGER arcs_update AFTER UPDATE ON edges
    WHEN (old.edge_type IN ('causal', 'temporal') OR new.edge_type IN ('causal', 'temporal'))
        AND (old.source_id IS NOT new.source_id OR old.target_id IS NOT new.target_id
             OR old.edge_type IS NOT new.edge_type OR old.valid_from IS NOT new.valid_from
             OR old.valid_until IS NOT new.valid_until) BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'arc_version';
    END;
    CREATE TRIGGER node_validity AFTER UPDATE ON nodes
    WHEN old.valid_from IS NOT new.valid_from OR old.valid_until IS NOT new.valid_until BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'arc_version';
    END;
    CREATE TABLE vectors (
        node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (node_id, model)
    );
    CREATE INDEX vectors_by_model ON vectors (model, node_id);
    INSERT INTO counters (key, value) VALUES ('vectors_version', 0);
    CREATE TRIGGER vectors_insert AFTER INSERT ON vectors BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'vectors_version';
    END;
    CREATE TRIGGER vectors_update AFTER UPDATE ON vectors BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'vectors_version';
    END;
    CREATE TRIGGER vectors_delete AFTER DELETE ON vectors BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'vectors_version';
    END;
    """,
    # 6: a count of changes to what the editor shows of the graph (nodes and edges: not the
    # access counts and activation times retrieval writes), read by the live editor's
    # change source (memory.changes) when PRAGMA data_version says another connection committed
    """
    INSERT INTO counters (key, value) VALUES ('graph_version', 0);
    CREATE TRIGGER graph_node_insert AFTER INSERT ON nodes BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    CREATE TRIGGER graph_node_delete AFTER DELETE ON nodes BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    CREATE TRIGGER graph_node_update
    AFTER UPDATE OF content, node_type, confidence, metadata, source, valid_from, valid_until ON nodes BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    CREATE TRIGGER graph_edge_insert AFTER INSERT ON edges BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    CREATE TRIGGER graph_edge_delete AFTER DELETE ON edges BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    CREATE TRIGGER graph_edge_update
    AFTER UPDATE OF source_id, target_id, edge_type, weight, metadata, valid_from, valid_until ON edges BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    """,
    # 7: versions (recorded time: when the memory held each version of a node or an edge; the
    # current one in nodes and edges, the past ones in node_versions and edge_versions), who or
    # what wrote an edge (its source), consolidation's merges, and which of a retrieval's nodes
    # were its results. The store's own rows are recorded when they were last written
    # (SQLiteStore._record_rows: a node's updated_at, an edge's created_at)
    """
    ALTER TABLE nodes ADD COLUMN recorded_at TEXT NOT NULL DEFAULT '';
    ALTER TABLE edges ADD COLUMN source TEXT NOT NULL DEFAULT '';
    ALTER TABLE edges ADD COLUMN recorded_at TEXT NOT NULL DEFAULT '';
    CREATE TABLE node_versions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        node_type TEXT NOT NULL,
        confidence REAL NOT NULL,
        metadata TEXT NOT NULL,
        source TEXT NOT NULL,
        access_count INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_accessed_at TEXT,
        valid_from TEXT,
        valid_until TEXT,
        recorded_at TEXT NOT NULL,
        recorded_until TEXT NOT NULL
    );
    CREATE INDEX node_versions_by_id ON node_versions (id, recorded_at);
    CREATE INDEX node_versions_by_end ON node_versions (recorded_until);
    CREATE TABLE edge_versions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        source_id TEXT NOT NULL,
        target_id TEXT NOT NULL,
        edge_type TEXT NOT NULL,
        weight REAL NOT NULL,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_activated_at TEXT,
        valid_from TEXT,
        valid_until TEXT,
        source TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        recorded_until TEXT NOT NULL
    );
    CREATE INDEX edge_versions_by_id ON edge_versions (id, recorded_at);
    CREATE INDEX edge_versions_by_end ON edge_versions (recorded_until);
    CREATE INDEX edge_versions_by_source ON edge_versions (source_id);
    CREATE INDEX edge_versions_by_target ON edge_versions (target_id);
    CREATE TABLE merges (id TEXT PRIMARY KEY NOT NULL, into_id TEXT NOT NULL, at TEXT NOT NULL);
    CREATE INDEX merges_by_into ON merges (into_id);
    ALTER TABLE retrievals ADD COLUMN results INTEGER;
    DROP TRIGGER graph_edge_update;
    CREATE TRIGGER graph_edge_update
    AFTER UPDATE OF source_id, target_id, edge_type, weight, metadata, valid_from, valid_until, source ON edges BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'graph_version';
    END;
    """,
    # 8: the merges a store of the release before kept only in the surviving node's metadata
    # (merged_ids) are merges too — a merged id reads, links and credits the node it became —,
    # dated when that node was last written (the first survivor by id, if two name one id)
    """
    INSERT OR IGNORE INTO merges (id, into_id, at)
    SELECT j.value, n.id, n.updated_at FROM nodes AS n, json_each(n.metadata, '$.merged_ids') AS j
    WHERE json_valid(n.metadata) AND json_type(n.metadata, '$.merged_ids') = 'array' AND j.type = 'text'
      AND NOT EXISTS (SELECT 1 FROM nodes AS m WHERE m.id = j.value)
    ORDER BY n.id;
    """,
    # 9: the nodes of a namespace, indexed (a namespace is read without reading the whole store)
    """
    CREATE INDEX nodes_by_namespace ON nodes ((CASE WHEN json_valid(metadata) AND json_type(metadata, '$.namespace')
        = 'text' THEN json_extract(metadata, '$.namespace') END), id);
    """,
    # 10: change numbers (the live editor's deltas, store.changes): every write to a node or an
    # edge (any column) takes the next number of the counter 'changes' into its row's
    # ``changed``; a deletion leaves its id in ``removed`` with its number. Rows written before
    # have 0 (the editor's first read is a whole one)
    """
    ALTER TABLE nodes ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE edges ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX nodes_by_change ON nodes (changed);
    CREATE INDEX edges_by_change ON edges (changed);
    CREATE TABLE removed (kind TEXT NOT NULL, id TEXT NOT NULL, changed INTEGER NOT NULL, PRIMARY KEY (kind, id))
        WITHOUT ROWID;
    CREATE INDEX removed_by_change ON removed (changed);
    INSERT INTO counters (key, value) VALUES ('changes', 0);
    CREATE TRIGGER nodes_changed_insert AFTER INSERT ON nodes BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'changes';
        UPDATE nodes SET changed = (SELECT value FROM counters WHERE key = 'changes') WHERE rowid = new.rowid;
    END;
    CREATE TRIGGER nodes_changed_update AFTER UPDATE ON nodes WHEN new.changed IS old.changed BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'changes';
        UPDATE nodes SET changed = (SELECT value FROM counters WHERE key = 'changes') WHERE rowid = new.rowid;
    END;
    CREATE TRIGGER nodes_changed_delete AFTER DELETE ON nodes BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'changes';
        INSERT OR REPLACE INTO removed (kind, id, changed)
        VALUES ('node', old.id, (SELECT value FROM counters WHERE key = 'changes'));
    END;
    CREATE TRIGGER edges_changed_insert AFTER INSERT ON edges BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'changes';
        UPDATE edges SET changed = (SELECT value FROM counters WHERE key = 'changes') WHERE rowid = new.rowid;
    END;
    CREATE TRIGGER edges_changed_update AFTER UPDATE ON edges WHEN new.changed IS old.changed BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'changes';
        UPDATE edges SET changed = (SELECT value FROM counters WHERE key = 'changes') WHERE rowid = new.rowid;
    END;
    CREATE TRIGGER edges_changed_delete AFTER DELETE ON edges BEGIN
        UPDATE counters SET value = value + 1 WHERE key = 'changes';
        INSERT OR REPLACE INTO removed (kind, id, changed)
        VALUES ('edge', old.id, (SELECT value FROM counters WHERE key = 'changes'));
    END;
    """,
    # 11: the change numbers move out of the rows into ``changes`` (kind, id, its last number:
    # a write, an access count or a deletion), so that numbering a row no longer writes it
    # again and every change, not only a deletion, is dropped at the horizon; ``removed`` and
    # the rows' numbers are copied in (the later of the two for an id deleted and written
    # again). Changes are kept for the last
    # ``removed_keep`` change numbers only: each deletion moves the horizon ('removed_horizon',
    # never back) to that many numbers before its own and drops the changes at or below it; the
    # changes since a number below the horizon are not told (store.changed_since: None, the
    # editor reads the whole view). And the few nodes whose metadata SQLite's JSON functions
    # refuse (NaN, an infinity: Python's json writes them) are indexed apart, so that a
    # namespace's reading finds them (SQLiteStore.namespace_ids)
    f"""
    CREATE INDEX nodes_not_json ON nodes (id) WHERE NOT json_valid(metadata);
    INSERT INTO counters (key, value) VALUES ('removed_keep', {KEEP_DELETIONS}), ('removed_horizon', 0);
    DROP TRIGGER nodes_changed_insert;
    DROP TRIGGER nodes_changed_update;
    DROP TRIGGER nodes_changed_delete;
    DROP TRIGGER edges_changed_insert;
    DROP TRIGGER edges_changed_update;
    DROP TRIGGER edges_changed_delete;
    CREATE TABLE changes (kind TEXT NOT NULL, id TEXT NOT NULL, changed INTEGER NOT NULL, PRIMARY KEY (kind, id))
        WITHOUT ROWID;
    INSERT INTO changes (kind, id, changed)
    SELECT kind, id, max(changed) FROM (
        SELECT 'node' AS kind, id, changed FROM nodes WHERE changed > 0
        UNION ALL SELECT 'edge', id, changed FROM edges WHERE changed > 0
        UNION ALL SELECT kind, id, changed FROM removed
    ) GROUP BY kind, id;
    CREATE INDEX changes_by_number ON changes (changed);
    DROP TABLE removed;
    DROP INDEX nodes_by_change;
    DROP INDEX edges_by_change;
    {_change_triggers("nodes", "node")}
    {_change_triggers("edges", "edge")}
    """,
)


SCHEMA_VERSION = len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """Split a migration into statements (triggers keep their inner semicolons)."""
    out: list[str] = []
    current = ""
    for line in script.strip().splitlines():
        current += line + "\n"
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out
