"""A store written by the release before versions were kept (tests/fixtures: an SQLite file, a
pg_dump of a PostgreSQL database, and that release's own dump of the memory, made by
tests/fixtures/release_store.py) is migrated on open, losing nothing: every node and edge with
every field, the loop index, the stored vectors, the retrieval and the outcome it logged, the
consolidation's state. Each node and edge becomes its current version, recorded when the release
last wrote it; the next edit keeps it as a past version. Over MCP too, and the release's dump
(version 1) is read by every backend."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from pathlib import Path

import psycopg
import pytest
from mcp import Client

from bendscope.memory import Memory
from bendscope.memory.io.dump import read_dump
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.postgres import PostgresStore
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.mcp.test_mcp import ok, over_stdio
from tests.memory.store.test_namespace_index import uses_the_index

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RELEASE_DUMP = FIXTURES / "release.dump.jsonl"
LOOP = ("albedo", "ice", "warming")


def release():
    """The memory as the release read it back (its own dump), as this version reads that dump."""
    return read_dump(line for line in RELEASE_DUMP.read_bytes().splitlines())


def sqlite_copy(tmp_path: Path) -> Path:
    path = tmp_path / "release.sqlite3"
    shutil.copyfile(FIXTURES / "release.sqlite3", path)
    return path


def restored(url: str) -> str:
    """The release's PostgreSQL database, restored from its pg_dump (psql's own commands left out)."""
    text = (FIXTURES / "release.postgres.sql").read_text(encoding="utf-8")
    script = "\n".join(line for line in text.splitlines() if not line.startswith("\\"))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(script)  # type: ignore[call-overload]
    return url


def namespaces_indexed(store: Store) -> None:
    """The migrated store reads a namespace by its index: the release's nodes are in none."""
    assert store.namespace_ids("alice") == [] and len(store.node_ids()) == 11
    store.put_node(dataclasses.replace(next(iter(store.get_nodes(store.node_ids()).values())), id="a1",
                                       metadata={"namespace": "alice"}))  # fmt: skip
    assert store.namespace_ids("alice") == ["a1"] and uses_the_index(store)
    if isinstance(store, SQLiteStore):  # (metadata SQLite's JSON functions refuse: read apart)
        store.put_node(dataclasses.replace(store.get_nodes(["a1"])["a1"], id="a2",
                                           metadata={"namespace": "alice", "score": float("nan")}))  # fmt: skip
        assert store.namespace_ids("alice") == ["a1", "a2"]


def changes_numbered(store: Store) -> None:
    """The migrated store numbers its changes: a write, an access count and a deletion are each
    read back as changed since the number before."""
    zero = store.change_number()
    assert zero is not None and store.changed_since(zero) == ([], [])
    first = store.all_edges()[0].source_id  # (a node with edges)
    store.put_node(dataclasses.replace(store.get_nodes([first])[first], content="Changed after the migration"))
    assert store.changed_since(zero) == ([first], [])
    one = store.change_number()
    assert one is not None and one > zero
    edge = store.edges_touching([first])[0]
    store.record_retrieval([], [edge.id], "2026-02-01T00:00:00.000Z")
    assert store.changed_since(one) == ([], [edge.id])
    two = store.change_number()
    assert two is not None and two > one
    gone = store.delete_node(first)
    nodes, edges = store.changed_since(two) or ([], [])
    assert nodes == [first] and sorted(edges) == sorted(gone)
    deletions_bounded(store, two)


def deletions_bounded(store: Store, before: int) -> None:
    """The migrated store keeps deletions for its last change numbers only (``removed_keep``):
    a reader further behind is told None; one within them, every deletion since. (A store
    numbering a transaction's changes alike keeps the last two deletions' edges too.)"""
    store.keep_deletions(2)
    ids = sorted(store.node_ids())[:4]
    deleted = [1 + len(store.delete_node(node_id)) for node_id in ids]
    assert store.changed_since(before) is None and 0 < kept_deletions(store) <= sum(deleted[-2:])
    last = store.change_number()
    assert last is not None
    assert store.changed_since(last - 1) is not None and ids[-1] in (store.changed_since(last - 1) or ([], []))[0]


def kept_deletions(store: Store) -> int:
    """How many deletions the store keeps (its ``removed`` table's rows)."""
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.path) as conn:  # (changes of ids no longer there)
            return int(conn.execute(
                "SELECT count(*) FROM changes c WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE c.kind = 'node' "
                "AND n.id = c.id) AND NOT EXISTS (SELECT 1 FROM edges e WHERE c.kind = 'edge' AND e.id = c.id)"
            ).fetchone()[0])  # fmt: skip
    if isinstance(store, PostgresStore):
        return int(store._query("SELECT count(*) FROM removed")[0][0])
    assert isinstance(store, InMemoryStore)
    kept = zip(store._changed, (store.nodes, store.edges), strict=True)
    return sum(i not in now for numbers, now in kept for i in numbers)


def retrieval_id_of(store: Store) -> str:
    """The id of the one retrieval the release logged."""
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.path) as conn:
            return str(conn.execute("SELECT id FROM retrievals").fetchone()[0])
    assert isinstance(store, PostgresStore)
    return str(store._query("SELECT id FROM retrievals")[0][0])


def lost_nothing(store: Store) -> None:
    """Everything the release kept is there, as it kept it."""
    memory = Memory(store)
    then = release()
    now = read_dump(line.encode() for line in memory.dump_lines())
    assert now.nodes == then.nodes and now.edges == then.edges  # (every field; recorded when last written)
    assert [n.recorded_at for n in now.nodes] == [n.updated_at for n in then.nodes]
    assert [e.recorded_at for e in now.edges] == [e.created_at for e in then.edges]
    assert (now.node_versions, now.edge_versions) == ([], [])
    # the release kept its merge in the survivor's metadata only: it is a merge now, dated when
    # the survivor was last written, so the merged id reads the node it became
    survivor = next(n for n in then.nodes if n.id == "def-albedo")
    assert survivor.metadata["merged_ids"] == ["dup-albedo"]
    assert now.merges == {"dup-albedo": ("def-albedo", survivor.updated_at)}
    read = memory.query_graph({"node_ids": ["def-albedo", "dup-albedo"]})
    assert [n["id"] for n in read["nodes"]] == ["def-albedo"] and read["merged_into"] == {"dup-albedo": "def-albedo"}
    assert [(loop.nodes, loop.kappa) for loop in store.all_loops()] == [(LOOP, 1)]
    assert len(store.all_vectors("fixture-hash-8")) == 11
    assert store.get_state("consolidated_at") == "2026-01-05T09:00:35.000Z"
    assert memory.get_metrics()["outcomes"]["count"] == 1
    retrieval_id = retrieval_id_of(store)
    (logged,) = store.get_retrievals([retrieval_id]).values()
    assert logged.results is None and logged.result_ids == logged.node_ids  # (logged before results were kept)
    learned = memory.learn_from_outcome({"retrieval_id": retrieval_id, "outcome": "partial"})
    assert {n["id"] for n in learned["nodes"]} == set(logged.node_ids)
    # the next edit keeps the release's version as a past one
    memory.store_node({"id": "revenue", "content": "Revenue grows every month"})
    old, new = memory.history({"id": "revenue"})["versions"]
    assert old["content"] == "Revenue grows every quarter" and old["recorded_at"] == "2026-01-05T09:00:24.000Z"
    assert old["recorded_until"] == new["recorded_at"] and new["content"] == "Revenue grows every month"
    # the release's back-dated end stays as it was kept: the release did not keep the version before it
    assert memory.history({"id": "share-rev"})["versions"][0]["valid_until"] == "2000-01-01T00:00:00.000Z"


def test_an_sqlite_store_of_the_release_is_migrated_losing_nothing(tmp_path, monkeypatch, capsys):
    import bendscope.memory.store.sqlite as module

    monkeypatch.setattr(module, "PROGRESS_FROM", 5)
    path = sqlite_copy(tmp_path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    with SQLiteStore(path) as store:
        assert store.schema_version == 11
        said = capsys.readouterr().err
        assert "recording 11 nodes as versions: 100%" in said and "recording 9 edges as versions: 100%" in said
        lost_nothing(store)
        namespaces_indexed(store)
        changes_numbered(store)


def test_a_postgresql_store_of_the_release_is_migrated_losing_nothing(postgres_url, monkeypatch, capsys):
    import bendscope.memory.store.postgres_schema as schema

    monkeypatch.setattr(schema, "PROGRESS_FROM", 5)
    monkeypatch.setattr(schema, "MIGRATION_BATCH", 4)  # (several batches: each row once)
    url = restored(postgres_url)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT value FROM bendscope_meta WHERE key = 'schema_version'").fetchone() == ("5",)
    with PostgresStore(url) as store:
        assert store.schema_version == 10
        said = capsys.readouterr().err
        assert "recording 11 nodes as versions: 100%" in said and "recording 9 edges as versions: 100%" in said
        lost_nothing(store)
        namespaces_indexed(store)
        changes_numbered(store)


@pytest.mark.parametrize("backend", ["sqlite", "memory", "postgresql"])
def test_the_releases_dump_is_read_by_every_backend(backend, tmp_path, request):
    stores = {
        "sqlite": lambda: SQLiteStore(tmp_path / "m.sqlite3"),
        "memory": InMemoryStore,
        "postgresql": lambda: PostgresStore(request.getfixturevalue("postgres_url")),
    }
    with stores[backend]() as store:
        memory = Memory(store)
        summary = memory.import_dump(RELEASE_DUMP.read_bytes().splitlines())
        assert (summary["nodes_created"], summary["edges_created"]) == (11, 9)
        then = release()
        now = read_dump(line.encode() for line in memory.dump_lines())
        assert (now.nodes, now.edges) == (then.nodes, then.edges)
        assert [(loop.nodes, loop.kappa) for loop in store.all_loops()] == [(LOOP, 1)]
        assert now.merges == {
            "dup-albedo": ("def-albedo", next(n for n in then.nodes if n.id == "def-albedo").updated_at)
        }


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A copy of the release's store, which the server migrates when it opens it."""
    if request.param == "sqlite":
        return sqlite_copy(tmp_path)
    return restored(request.getfixturevalue("postgres_url"))


def test_a_store_of_the_release_served_over_mcp(migrated):
    async def work(client: Client) -> None:
        listed = await ok(client, "query_graph", {"limit": 100})
        then = release()
        assert [n["id"] for n in listed["nodes"]] == [n.id for n in then.nodes]
        assert listed["nodes"] == [n.to_dict() for n in then.nodes]
        assert listed["edges"] == [e.to_dict() for e in then.edges]
        assert (await ok(client, "analyze_topology", {}))["sccs"][0]["nodes"] == list(LOOP)
        closed = await ok(client, "analyze_topology", {"known_at": "2026-01-05T09:00:26.000Z"})
        assert closed["max_kappa"] == 1  # (ice, edited at 09:00:25, is recorded from then: its loop too)
        assert (await ok(client, "analyze_topology", {"known_at": "2026-01-05T09:00:24.000Z"}))["max_kappa"] == 0
        before = await ok(client, "query_graph", {"known_at": "2026-01-05T09:00:05.000Z"})
        assert [n["id"] for n in before["nodes"]] == ["co2-now", "co2-pre"]  # (recorded when last written)
        edited = await ok(client, "store_node", {"id": "cafe", "content": "Café, edited after the migration"})
        assert edited["status"] == "updated"
        versions = (await ok(client, "history", {"id": "cafe"}))["versions"]
        assert [v["content"] for v in versions] == [then.nodes[1].content, "Café, edited after the migration"]
        merged = await ok(client, "history", {"id": "def-albedo"})  # (the release's merge, kept in its metadata)
        assert merged["versions"][-1]["metadata"] == {"merged_ids": ["dup-albedo"]} and "merged_into" not in merged
        forwarded = await ok(client, "history", {"id": "dup-albedo"})  # (and a merge since the migration)
        assert forwarded["merged_into"]["id"] == "def-albedo"

    over_stdio(migrated, work)
