"""A damaged store is never written, a read-only store serves every reading tool, and a
full disk does not stop retrieval (issue 17, F6/F7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_memory_service import memory_on

from bendscope.memory import Memory
from bendscope.memory.errors import ReadOnly, StoreUnavailable
from bendscope.memory.opening import open_store
from bendscope.memory.server import tool_list
from bendscope.memory.sqlite_store import SQLiteStore
from bendscope.memory.tools import TOOLS, call

ROOT = Path(__file__).resolve().parents[1]


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
        assert found["count"] > 0 and found["stats"]["recorded"] is False
        assert call(memory, "analyze_topology", {})["scc_count"] == 0
        assert call(memory, "query_graph", {"limit": 5})["nodes"]
        with pytest.raises(ReadOnly, match="read-only"):
            call(memory, "store_node", {"content": "a new fact"})
        with pytest.raises(ReadOnly):
            call(memory, "delete_node", {"id": "n00001"})
        listed = {t.name for t in tool_list(store.read_only)}
        assert listed == {t.name for t in TOOLS if t.read_only} and "store_node" not in listed
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
    assert answer["count"] == 1 and answer["stats"]["recorded"] is False
    monkeypatch.undo()
    assert call(memory, "retrieve_context", {"query": "revenue"})["stats"]["recorded"] is True


def test_postgresql_read_only(postgres_url):
    with open_store(postgres_url) as store:
        memory_on(store).store_node({"content": "Revenue follows market share"})
    with open_store(postgres_url, read_only=True) as store:
        memory = Memory(store)
        answer = call(memory, "retrieve_context", {"query": "revenue"})
        assert answer["count"] == 1 and answer["stats"]["recorded"] is False
        with pytest.raises(ReadOnly):
            call(memory, "store_node", {"content": "another"})
        assert store.get_nodes(store.node_ids())[answer["results"][0]["id"]].access_count == 0
