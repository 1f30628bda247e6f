"""What is wrong with a damaged SQLite file, said in words: its header's size, pages that cannot
be read, broken indexes, a file that is not a memory store, a folder that cannot be written."""

from __future__ import annotations

import errno
import os
import sqlite3
import urllib.parse

from ..core.records import EDGE_TYPES
from .sqlite_schema import SCHEMA_VERSION
from .sqlite_wal import wal_damage

#: how long one statement waits for another process's write lock
BUSY_TIMEOUT_S = 2.0


def _varints(blob: bytes) -> list[int]:
    """SQLite varints (big-endian groups of 7 bits; the high bit says more follow)."""
    out: list[int] = []
    value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def _writable(path: str) -> bool:
    """Whether the file can be opened for writing (``os.access`` says yes to root for an
    immutable file, which every write then fails on)."""
    try:
        os.close(os.open(path, os.O_RDWR))
    except OSError as exc:
        return exc.errno not in (errno.EPERM, errno.EACCES, errno.EROFS)
    return True


def _why(path: str, detail: str) -> str:
    """What SQLite's terse reason ("unable to open database file", "attempt to write a
    readonly database") means for this path, and what to do."""
    file = os.path.abspath(path)
    folder = os.path.dirname(file)
    if not os.path.isdir(folder):
        return f"{detail} (the folder {folder} does not exist)"
    if os.path.exists(file) and not os.access(file, os.W_OK):
        return f"{detail} (the file is read-only; make it writable, or copy it to a folder you can write to)"
    if not os.access(folder, os.W_OK):
        return (
            f"{detail} (the folder {folder} is read-only, and SQLite writes its journal beside the store; "
            "copy the store to a folder you can write to)"
        )
    return detail


def header_size(path: str) -> int | None:
    """The size in bytes an SQLite file's header says it has (page size × page count), or
    None when the header is not an SQLite one or its page count is not valid (its change
    counter and version-valid-for number differ). Reads 100 bytes."""
    with open(path, "rb") as file:
        header = file.read(100)
    if len(header) < 100 or not header.startswith(b"SQLite format 3\0") or header[24:28] != header[92:96]:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    return (65536 if page_size == 1 else page_size) * int.from_bytes(header[28:32], "big")


def damage_of(path: str) -> str | None:
    """What is wrong with the store file at ``path``, or None (also when there is no file):
    shorter than its header says (truncated; judged only when no write-ahead log holds
    pages the file lacks), a write-ahead log SQLite would cut short (``sqlite_wal``), what
    SQLite's quick_check finds, or rows missing from the id index (quick_check does not
    look: a garbled id would let a second fact take an id) — on a read-only connection of
    its own, which reads a consistent snapshot while other processes write (WAL) and writes
    nothing to the store. O(size of the file and its log): about 10 ms per 10 MB of file, and
    65 ms per MB of log (there is one after a crash, or while another process has the store open)."""
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return None
    size = os.path.getsize(path)
    wal = path + "-wal"
    logged = os.path.exists(wal) and os.path.getsize(wal) > 0
    if logged:
        broken_log = wal_damage(wal)
        if broken_log is not None:
            return broken_log
    expected = None if logged else header_size(path)
    if expected is not None and size < expected:
        return f"truncated: {size:,} bytes of the {expected:,} its header counts"
    uri = "file:" + urllib.parse.quote(os.path.abspath(path))
    try:
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            if "malformed" in str(exc) or "not a database" in str(exc):
                raise
            conn.close()  # (a read-only medium, where the shared-memory file cannot be made)
            conn = sqlite3.connect(uri + "?immutable=1", uri=True)
    except sqlite3.DatabaseError as exc:
        return str(exc)
    try:
        found = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if found == ["ok"]:
            return _index_damage(conn)
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()
    return "; ".join(" ".join(line.split()) for line in found)[:300]


def _index_damage(conn: sqlite3.Connection) -> str | None:
    """Rows of ``nodes`` or ``edges`` whose id their primary-key index does not find (a
    damaged id: the store would then take a second fact on an id). O(rows · log rows)."""
    for table in ("nodes", "edges"):
        index = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'sqlite_autoindex_%'",
            (table,),
        ).fetchone()
        if index is None:
            continue
        missing = conn.execute(
            f"SELECT count(*) FROM {table} AS t NOT INDEXED "
            f'WHERE NOT EXISTS (SELECT 1 FROM {table} INDEXED BY "{index[0]}" WHERE id = t.id)'
        ).fetchone()[0]
        if missing:
            return f"{missing:,} {table} rows are missing from their id index (a damaged id)"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"nodes", "edges"} <= tables:
        return None  # (another program's file: refused by foreign_of, by name)
    # values the schema's constraints allow only (damaged bytes bypass them): a backup of such
    # a store would not load back
    kinds = ", ".join(f"'{kind}'" for kind in EDGE_TYPES)
    checks = (
        ("edges whose end is not a node", "SELECT count(*) FROM pragma_foreign_key_check('edges')"),
        (
            "nodes of no known type",
            "SELECT count(*) FROM nodes WHERE node_type NOT IN ('episodic', 'semantic', 'procedural')",
        ),
        (
            "nodes whose confidence is not in [0, 1]",
            "SELECT count(*) FROM nodes WHERE NOT (confidence BETWEEN 0 AND 1)",
        ),
        ("edges of no known kind", f"SELECT count(*) FROM edges WHERE edge_type NOT IN ({kinds})"),
    )
    for what, sql in checks:
        count = conn.execute(sql).fetchone()[0]
        if count:
            return f"{count:,} {what} (damaged rows)"
    return None


def foreign_of(path: str) -> str | None:
    """Why the SQLite file at ``path`` is not a memory store this version may write (another
    program's file, a newer schema), or None (also for a missing or empty file). Reads on a
    read-only connection, before anything is written: the file is left exactly as it was."""
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return None
    uri = "file:" + urllib.parse.quote(os.path.abspath(path))
    conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()
    if version > SCHEMA_VERSION:
        return f"it was written by a newer version (schema {version}; this one reads {SCHEMA_VERSION})"
    if version < 0 or (version == 0 and tables) or (version > 0 and not {"nodes", "edges"} <= tables):
        return "it is an SQLite file but not a memory store"
    return None
