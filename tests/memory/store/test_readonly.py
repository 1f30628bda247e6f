"""A damaged store is never written, a read-only store serves every reading tool, and a
full disk does not stop retrieval."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bendscope.memory import Memory
from bendscope.memory.core.errors import ReadOnly, StoreUnavailable
from bendscope.memory.mcp.server import tool_list
from bendscope.memory.mcp.tools import TOOLS, call
from bendscope.memory.store.opening import open_store
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.core.test_service import memory_on

ROOT = Path(__file__).resolve().parents[3]


def cli(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(store))
    return subprocess.run(
        [sys.executable, "-m", "bendscope.memory", *args], capture_output=True, text=True, env=env, timeout=120
    )


def filled(path: Path, n: int = 3000) -> Path:
    with SQLiteStore(path, durable=False) as store:  # (no fsync per write: a fast fill)
        memory = memory_on(store)
        for i in range(n):
            memory.store_node({"id": f"n{i:05d}", "content": f"fact {i} about revenue " + "x" * 200})
        for i in range(n - 1):
            memory.store_edge({"source_id": f"n{i:05d}", "target_id": f"n{i + 1:05d}", "edge_type": "causal"})
    return path


def test_a_truncated_store_is_refused_and_left_as_it_was(tmp_path):
    path = filled(tmp_path / "m.sqlite3")
    os.truncate(path, path.stat().st_size - 1234)  # the report's `truncate -s -1234`
    before = path.read_bytes()
    with pytest.raises(StoreUnavailable) as caught:
        SQLiteStore(path)
    message = str(caught.value)
    assert "damaged" in message and "truncated" in message and "export --read-only" in message
    assert path.read_bytes() == before and not Path(f"{path}-wal").exists()
    proc = cli("serve", store=path)  # the server says so too, and does not start
    assert proc.returncode == 2 and "damaged" in proc.stderr and "Traceback" not in proc.stderr


def test_what_a_damaged_store_still_holds_is_rescued_read_only(tmp_path):
    path = filled(tmp_path / "m.sqlite3")
    size = path.stat().st_size
    os.truncate(path, size - 3 * 4096 - 100)
    before = path.read_bytes()
    proc = cli("export", "--read-only", store=path)
    assert proc.returncode == 0, proc.stderr
    assert "rescued" in proc.stderr and "damaged" in proc.stderr
    doc = json.loads(proc.stdout)
    nodes = doc["planes"][0]["nodes"]
    assert 2000 < len(nodes) <= 3000 and all(n["text"].startswith("fact ") for n in nodes)
    assert path.read_bytes() == before  # read-only: not one byte written
    rescued = tmp_path / "rescued.json"
    rescued.write_text(proc.stdout)
    fresh = tmp_path / "new.sqlite3"
    done = cli("import", str(rescued), store=fresh)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["nodes"] == len(nodes)


def test_read_only_serves_reading_tools_and_writes_nothing(tmp_path):
    path = filled(tmp_path / "m.sqlite3", 50)
    before = path.read_bytes()
    with open_store(path, read_only=True) as store:
        memory = Memory(store)
        found = call(memory, "retrieve_context", {"query": "revenue"})
        assert found["count"] > 0 and found["retrieval_id"] is None  # (nothing recorded: nothing to learn from)
        assert call(memory, "analyze_topology", {})["scc_count"] == 0
        assert call(memory, "query_graph", {"limit": 5})["nodes"]
        with pytest.raises(ReadOnly, match="read-only"):
            call(memory, "store_node", {"content": "a new fact"})
        with pytest.raises(ReadOnly):
            call(memory, "delete_node", {"id": "n00001"})
        listed = {t.name for t in tool_list(store.read_only)}
        assert listed == {t.name for t in TOOLS if t.read_only} and {"retrieve_context", "query_graph"} <= listed
        assert "store_node" not in listed
    assert path.read_bytes() == before
    proc = cli("import", "-", "--read-only", store=path)
    assert proc.returncode == 2 and "leave out --read-only" in proc.stderr
    proc = cli("analyze", "--read-only", store=tmp_path / "missing.sqlite3")
    assert proc.returncode == 2 and "no store at" in proc.stderr
    assert not (tmp_path / "missing.sqlite3").exists()


def test_a_full_disk_does_not_stop_retrieval(store, monkeypatch):
    memory = memory_on(store)
    memory.store_node({"content": "Revenue follows market share"})

    def full(*args, **kwargs):
        raise StoreUnavailable("database or disk is full")

    monkeypatch.setattr(store, "record_retrieval", full)
    answer = call(memory, "retrieve_context", {"query": "revenue"})
    assert answer["count"] == 1 and answer["retrieval_id"] is None
    monkeypatch.undo()
    assert call(memory, "retrieve_context", {"query": "revenue"})["retrieval_id"].startswith("retrieval-")


def test_postgresql_read_only(postgres_url):
    with open_store(postgres_url) as store:
        memory_on(store).store_node({"content": "Revenue follows market share"})
    with open_store(postgres_url, read_only=True) as store:
        memory = Memory(store)
        answer = call(memory, "retrieve_context", {"query": "revenue"})
        assert answer["count"] == 1 and answer["retrieval_id"] is None
        with pytest.raises(ReadOnly):
            call(memory, "store_node", {"content": "another"})
        assert store.get_nodes(store.node_ids())[answer["results"][0]["id"]].access_count == 0


def test_a_store_other_processes_write_is_never_judged_damaged(tmp_path):
    """(Review finding: an immutable check read half-copied pages during a checkpoint.)"""
    import time

    from bendscope.memory.store.sqlite import damage_of

    path = filled(tmp_path / "m.sqlite3", 200)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], env=dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    )
    try:
        time.sleep(0.5)
        verdicts = [damage_of(str(path)) for _ in range(150)]
        opened = 0
        for _ in range(10):
            with SQLiteStore(path) as store:
                opened += store.counts()[0] > 0
    finally:
        writer.kill()
        writer.wait(timeout=30)
    assert verdicts == [None] * 150 and opened == 10


WRITER = """
import sys
from bendscope.memory import Memory
from bendscope.memory.store.sqlite import SQLiteStore
store = SQLiteStore(sys.argv[1])
memory = Memory(store)
for k in range(100000):
    memory.store_many({"nodes": [{"content": f"written {k} {i} " + "y" * 300} for i in range(40)]})
"""

KILLED = """
import os, sys
from bendscope.memory.store.sqlite import SQLiteStore
from bendscope.memory import Memory
store = SQLiteStore(sys.argv[1])
memory = Memory(store)
memory.store_many({"nodes": [{"id": f"old{i:03d}", "content": f"old fact {i} " + "x" * 200} for i in range(300)]})
store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
memory.store_many({"nodes": [{"id": f"new{i:03d}", "content": f"new fact {i}"} for i in range(50)]})
os._exit(0)  # as kill -9: the last writes are in the write-ahead log only
"""


def test_a_rescue_keeps_the_writes_in_the_write_ahead_log(tmp_path):
    """(Review finding: the rescue read the main file alone and lost acknowledged writes.)"""
    path = tmp_path / "m.sqlite3"
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(path)], env=dict(os.environ, PYTHONPATH=str(ROOT / "py")), timeout=60
    )
    assert done.returncode == 0 and Path(f"{path}-wal").stat().st_size > 0
    os.truncate(path, path.stat().st_size - 1234)
    proc = cli("export", "--read-only", store=path)
    assert proc.returncode == 0, proc.stderr
    ids = {n["id"] for n in json.loads(proc.stdout)["planes"][0]["nodes"]}
    assert {f"new{i:03d}" for i in range(50)} <= ids and len(ids) >= 340


def test_a_full_disk_is_a_clear_error_and_nothing_is_stored(tmp_path):
    """(Review finding: SQLite had rolled back already, and the ROLLBACK's own error hid the reason.)"""
    with SQLiteStore(tmp_path / "m.sqlite3") as store:
        memory = memory_on(store)
        memory.store_node({"content": "the first fact"})
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        with pytest.raises(StoreUnavailable, match="full"):
            memory.store_many({"nodes": [{"content": f"fact {i} " + "z" * 2000} for i in range(200)]})
        assert store.counts() == (1, 0)


def test_a_failed_rescue_leaves_no_copy_behind(tmp_path, monkeypatch):
    import sqlite3
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("row " * 50,) for _ in range(2000)])
    conn.commit()
    conn.close()
    os.truncate(path, path.stat().st_size - 5000)
    with pytest.raises(StoreUnavailable):
        SQLiteStore(path, read_only=True)
    assert list((tmp_path / "tmp").iterdir()) == []
    damaged = filled(tmp_path / "m.sqlite3", 100)
    os.truncate(damaged, damaged.stat().st_size - 1234)
    store = SQLiteStore(damaged, read_only=True)
    assert list((tmp_path / "tmp").iterdir())  # the copy, while open
    store.close()
    assert list((tmp_path / "tmp").iterdir()) == []


# ---------------------------------------------------------------- the adversarial run's damaged and foreign files
KILLED_MANY = """
import os, sys
from bendscope.memory.store.sqlite import SQLiteStore
from bendscope.memory import Memory
store = SQLiteStore(sys.argv[1])
store._conn.execute("PRAGMA wal_autocheckpoint = 0")
memory = Memory(store)
for i in range(120):  # 120 acknowledged writes, each its own transaction (the report's F3)
    memory.store_node({"id": f"w{i:03d}", "content": f"acknowledged write {i} " + "z" * 300})
os._exit(0)  # as kill -9: every write is in the write-ahead log only
"""


def _killed_with_a_log(path: Path) -> bytes:
    """A store whose last 120 writes (120 transactions) are in its write-ahead log only."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED_MANY, str(path)], env=dict(os.environ, PYTHONPATH=str(ROOT / "py")), timeout=60
    )
    assert done.returncode == 0
    return Path(f"{path}-wal").read_bytes()


def test_a_damaged_write_ahead_log_is_refused_not_silently_cut(tmp_path):
    """Adversarial run F3: one flipped byte in the middle of the log, and SQLite dropped
    every frame after it silently (73 of 120 acknowledged writes), served the store, and
    erased the log at close. Now the store is refused as damaged and left as it was."""
    path = tmp_path / "m.sqlite3"
    log = bytearray(_killed_with_a_log(path))
    log[32 + (len(log) - 32) * 2 // 5] ^= 0x55
    Path(f"{path}-wal").write_bytes(log)
    before = (path.read_bytes(), bytes(log))
    with pytest.raises(StoreUnavailable, match="write-ahead log is damaged at frame"):
        SQLiteStore(path)
    assert (path.read_bytes(), Path(f"{path}-wal").read_bytes()) == before
    Path(f"{path}-wal").write_bytes(os.urandom(100_000))  # a log of garbage: everything in it would go
    with pytest.raises(StoreUnavailable, match="write-ahead log is not one"):
        SQLiteStore(path)


def test_a_log_torn_at_its_end_is_what_a_crash_leaves_and_opens(tmp_path):
    path = tmp_path / "m.sqlite3"
    log = _killed_with_a_log(path)
    Path(f"{path}-wal").write_bytes(log[:-1000])  # the last frame half written
    with SQLiteStore(path) as store:
        assert store.counts()[0] > 0


def test_a_damaged_id_is_found_before_a_second_fact_takes_it(tmp_path):
    """Adversarial run F4: bytes garbled in a node's id passed quick_check; the server wrote
    to the file, and store_node on the garbled id answered `created`: two rows, one key."""
    path = filled(tmp_path / "m.sqlite3", n=300)
    data = path.read_bytes()
    found = None
    at = data.find(b"n00150")
    while at != -1 and found is None:
        garbled = bytearray(data)
        garbled[at + 5 : at + 6] = b"X"  # same length: the record stays well formed
        trial = tmp_path / "trial.sqlite3"
        trial.write_bytes(garbled)
        import sqlite3

        with sqlite3.connect(trial) as conn:
            quick = conn.execute("PRAGMA quick_check").fetchone()[0]
            full = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if quick == "ok" and "missing from index sqlite_autoindex_nodes_1" in full:
            found = garbled
        at = data.find(b"n00150", at + 1)
    assert found is not None, "no copy of the id in the table's page"
    path.write_bytes(found)
    with pytest.raises(StoreUnavailable, match="missing from their id index"):
        SQLiteStore(path)
    assert path.read_bytes() == found


def test_a_foreign_sqlite_file_is_refused_and_not_touched(tmp_path):
    """Adversarial run F5: another program's SQLite file was put in WAL mode before being
    refused, and one with user_version 2 and tables of its own was served."""
    import sqlite3

    for version in (0, 2, -5, -1):  # (-5 and -1: a traceback, and WAL mode written; second adversarial run)
        path = tmp_path / f"foreign{version}.sqlite3"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE foo (x)")
            conn.execute("INSERT INTO foo VALUES (1)")
            conn.execute(f"PRAGMA user_version = {version}")
        conn.close()
        before = path.read_bytes()
        with pytest.raises(StoreUnavailable, match="not a memory store"):
            SQLiteStore(path)
        with pytest.raises(StoreUnavailable, match="not a memory store"):
            SQLiteStore(path, read_only=True)
        assert path.read_bytes() == before and not Path(f"{path}-wal").exists()


def test_a_store_past_what_a_document_holds_is_dumped_and_rescued_whole(tmp_path):
    """Adversarial run F7: a damaged store of 22,000 nodes could not be rescued (a document
    holds 20,000), and a healthy store of 120 nodes of ~100,000 characters exported to 11.9 MB,
    which import refused (10 MB). `export --dump` writes any store as JSON Lines, every field
    kept, and `import` reads it back; a damaged store is rescued the same way."""
    path = tmp_path / "big.sqlite3"
    with SQLiteStore(path, durable=False) as store:
        memory = memory_on(store)
        for start in range(0, 22_000, 2_000):
            memory.store_many(
                {"nodes": [{"id": f"n{i:05d}", "content": f"fact {i}"} for i in range(start, start + 2_000)]}
            )
        memory.store_many(
            {"nodes": [{"id": f"long{i}", "content": "y" * 99_000, "metadata": {"k": i}} for i in range(120)]}
        )
        memory.store_many(
            {
                "edges": [
                    {"source_id": f"n{i:05d}", "target_id": f"n{i + 1:05d}", "edge_type": "causal"}
                    for i in range(1_999)
                ]
            }
        )
        memory.retrieve_context({"query": "fact 7"})  # access counts, which a dump keeps
    assert cli("export", store=path).returncode == 2  # (a document: past what the editor opens)
    dumped = cli("export", "--dump", store=path)
    assert dumped.returncode == 0, dumped.stderr[-500:]
    lines = dumped.stdout.splitlines()
    assert len(lines) == 1 + 22_120 + 1_999 and json.loads(lines[0])["nodes"] == 22_120
    assert len(dumped.stdout.encode()) > 12_000_000
    backup = tmp_path / "backup.jsonl"
    backup.write_text(dumped.stdout)
    fresh = tmp_path / "fresh.sqlite3"
    done = cli("import", str(backup), store=fresh)
    assert done.returncode == 0, done.stderr[-500:]
    with SQLiteStore(path, read_only=True) as a, SQLiteStore(fresh, read_only=True) as b:
        assert a.counts() == b.counts() == (22_120, 1_999)
        ids = a.node_ids()
        assert a.get_nodes(ids) == b.get_nodes(ids) and a.all_edges() == b.all_edges()
    # damaged: rescued whole, as a dump
    os.truncate(path, path.stat().st_size - 3 * 4096 - 100)
    plain = cli("export", "--read-only", store=path)
    assert plain.returncode == 2 and "export --dump --read-only" in plain.stderr
    rescued = cli("export", "--dump", "--read-only", store=path)
    assert rescued.returncode == 0 and "rescued" in rescued.stderr
    assert json.loads(rescued.stdout.splitlines()[0])["nodes"] > 20_000


def test_a_bad_dump_changes_nothing_and_says_which_line(tmp_path):
    path = filled(tmp_path / "m.sqlite3", n=20)
    dumped = cli("export", "--dump", store=path).stdout.splitlines()
    before = cli("export", "--dump", store=path).stdout
    for broken, message in (
        ([*dumped[:5], '{"node": {"id": "x"}}', *dumped[5:]], "line 6: content is required"),
        (dumped[:-1], "the dump is incomplete"),
        ([dumped[0], "not json", *dumped[1:]], "line 2"),
    ):
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(broken) + "\n")
        proc = cli("import", str(bad), "--replace", store=path)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert cli("export", "--dump", store=path).stdout == before


def test_a_file_that_cannot_be_written_is_refused_at_open_not_at_each_write(tmp_path, monkeypatch):
    """Adversarial run F15: an immutable file (chattr +i) was served without --read-only;
    then every write failed with "attempt to write a readonly database" (root's os.access
    says yes to an immutable file)."""
    import errno

    path = filled(tmp_path / "m.sqlite3", n=5)
    real_open = os.open

    def immutable(target, flags, *args, **kwargs):
        if os.fspath(target) == str(path) and flags & (os.O_RDWR | os.O_WRONLY):
            raise PermissionError(errno.EPERM, "Operation not permitted", str(target))
        return real_open(target, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", immutable)
    with pytest.raises(StoreUnavailable, match=r"cannot be written.*--read-only"):
        SQLiteStore(path)
    with SQLiteStore(path, read_only=True) as store:
        assert store.counts()[0] == 5


def test_a_dump_with_a_repeated_id_or_an_endless_line_is_refused(tmp_path):
    """(Review findings: two nodes with one id imported as two creations, the last winning;
    a line of any length was read whole before its length was checked.)"""
    path = filled(tmp_path / "m.sqlite3", n=3)
    lines = cli("export", "--dump", store=path).stdout.splitlines()
    header = json.loads(lines[0])
    twice = [json.dumps({**header, "nodes": header["nodes"] + 1}), lines[1], lines[1], *lines[2:]]
    bad = tmp_path / "twice.jsonl"
    bad.write_text("\n".join(twice) + "\n")
    proc = cli("import", str(bad), store=tmp_path / "new.sqlite3")
    assert proc.returncode == 2 and "line 3: a second node with id 'n00000'" in proc.stderr, proc.stderr
    endless = tmp_path / "endless.jsonl"
    with endless.open("wb") as handle:
        handle.write(lines[0].encode() + b"\n" + b'{"node": {"content": "' + b"x" * (3 * 1024 * 1024))
    proc = cli("import", str(endless), store=tmp_path / "new2.sqlite3")
    assert proc.returncode == 2 and "line 2 is longer than" in proc.stderr, proc.stderr


def test_a_torn_last_transaction_is_not_taken_for_damage(tmp_path):
    """(Review finding: a transaction's frames reach the disk in any order until its commit
    is synced, so a power loss can leave the last one's commit frame on disk and an earlier
    frame of it torn; SQLite rightly drops that transaction, which was never acknowledged.)"""
    from bendscope.memory.store.sqlite_wal import wal_damage

    path = tmp_path / "m.sqlite3"
    log = bytearray(_killed_with_a_log(path))
    page = int.from_bytes(log[8:12], "big")
    frames = (len(log) - 32) // (24 + page)
    commits = [
        k for k in range(frames) if int.from_bytes(log[32 + k * (24 + page) + 4 : 32 + k * (24 + page) + 8], "big")
    ]
    last_start = commits[-2] + 1  # the first frame of the last transaction
    assert commits[-1] > last_start  # (it has frames before its commit frame)
    log[32 + last_start * (24 + page) + 24 + 100] ^= 0x55
    wal = Path(f"{path}-wal")
    wal.write_bytes(log)
    assert wal_damage(str(wal)) is None
    # the same flip one transaction earlier: a later transaction followed its commit
    log[32 + last_start * (24 + page) + 24 + 100] ^= 0x55
    earlier = commits[-3] + 1 if len(commits) > 2 else 0
    log[32 + earlier * (24 + page) + 24 + 100] ^= 0x55
    wal.write_bytes(log)
    assert wal_damage(str(wal)) is not None


def test_a_dump_header_counts_whole_numbers_only(tmp_path):
    path = filled(tmp_path / "m.sqlite3", n=1)
    lines = cli("export", "--dump", store=path).stdout.splitlines()
    header = json.loads(lines[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps({**header, "nodes": True}), *lines[1:]]) + "\n")
    proc = cli("import", str(bad), store=tmp_path / "new.sqlite3")
    assert proc.returncode == 2 and "incomplete" in proc.stderr


def test_a_rescue_reads_past_a_damaged_frame_of_the_log(tmp_path):
    """Second adversarial run: `export --dump --read-only` of a store whose log was damaged
    at one frame rescued 47 of 120 acknowledged writes (SQLite stopped at the frame). The
    rescue copy's log is rechained: every write but the damaged page's comes back."""
    path = tmp_path / "m.sqlite3"
    log = bytearray(_killed_with_a_log(path))
    before_damage = len(log)
    log[32 + (len(log) - 32) * 2 // 5] ^= 0x55
    Path(f"{path}-wal").write_bytes(log)
    proc = cli("export", "--dump", "--read-only", store=path)
    assert proc.returncode == 0, proc.stderr
    ids = {json.loads(line)["node"]["id"] for line in proc.stdout.splitlines()[1:] if '"node"' in line}
    written = {f"w{i:03d}" for i in range(120)}
    assert len(ids & written) >= 115, len(ids & written)  # (before: 47)
    assert Path(f"{path}-wal").read_bytes() == bytes(log) and len(log) == before_damage  # the store's own log untouched


def test_rows_whose_values_the_schema_forbids_are_found(tmp_path):
    """Second adversarial run: a node_type garbled to 'semantiq', or an edge's source_id
    garbled, passed every check; the store opened, and its own dump would not load back."""
    import sqlite3

    path = filled(tmp_path / "m.sqlite3", n=50)
    data = path.read_bytes()

    def garbled(old: bytes, new: bytes, query: str) -> bytes:
        at = data.find(old)
        while at != -1:
            trial = bytearray(data)
            trial[at : at + len(old)] = new
            probe = tmp_path / "probe.sqlite3"
            probe.write_bytes(trial)
            try:
                with sqlite3.connect(probe) as conn:
                    ok = conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
                    hit = ok and conn.execute(query).fetchone()[0] > 0
                conn.close()
            except sqlite3.DatabaseError:
                hit = False
            if hit:
                return bytes(trial)
            at = data.find(old, at + 1)
        raise AssertionError(f"no row to garble for {old!r}")

    cases = (
        (b"semantic", b"semantiq", "SELECT count(*) FROM nodes WHERE node_type = 'semantiq'", "nodes of no known type"),
        (
            b"n00017",
            b"n0001X",
            "SELECT count(*) FROM pragma_foreign_key_check('edges')",
            "edges whose end|id index",  # (an edge end, or the node id itself)
        ),
    )
    for old, new, query, message in cases:
        broken = garbled(old, new, query)
        path.write_bytes(broken)
        with pytest.raises(StoreUnavailable, match=message):
            SQLiteStore(path)
        assert path.read_bytes() == broken
        path.write_bytes(data)
