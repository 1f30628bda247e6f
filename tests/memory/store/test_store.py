"""The store contract, run against every backend (one parametrised suite), plus what is
particular to the SQLite file: WAL, foreign keys, schema version, refusing foreign or
newer files, and two processes writing one store at once."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.memory import Memory
from bendscope.memory.core.errors import NotFound, StoreUnavailable
from bendscope.memory.core.records import MemoryEdge, MemoryNode
from bendscope.memory.core.text import fold, query_terms, terms, tokenize
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.opening import open_store, resolved_from
from bendscope.memory.store.sqlite import SCHEMA_VERSION, SQLiteStore

ROOT = Path(__file__).resolve().parents[3]
T = "2026-11-30T10:00:00.000Z"


def node(node_id: str, content: str = "", **kw) -> MemoryNode:
    return MemoryNode(node_id, content or f"content of {node_id}", created_at=T, updated_at=T, **kw)


def edge(edge_id: str, a: str, b: str, edge_type: str = "causal", **kw) -> MemoryEdge:
    return MemoryEdge(edge_id, a, b, edge_type, created_at=T, **kw)


def fill(store: Store, n: int, pairs: list[tuple[int, int]]) -> None:
    with store.transaction():
        for i in range(n):
            store.put_node(node(f"n{i}"))
        for k, (a, b) in enumerate(pairs):
            store.put_edge(edge(f"e{k}", f"n{a}", f"n{b}"))


def test_nodes_put_get_replace_list(store: Store):
    store.put_node(node("b", metadata={"k": [1, 2]}, node_type="episodic", confidence=0.9, source="s1"))
    store.put_node(node("a"))
    assert store.get_node("b") == node("b", metadata={"k": [1, 2]}, node_type="episodic", confidence=0.9, source="s1")
    store.put_node(node("b", "changed"))
    assert store.get_node("b").content == "changed"
    assert store.get_node("missing") is None
    assert store.node_ids() == ["a", "b"]
    assert [n.id for n in store.list_nodes(limit=1, offset=1)] == ["b"]
    store.put_node(node("c", source="s1", node_type="procedural"))
    assert [n.id for n in store.list_nodes(source="s1")] == ["c"]
    assert [n.id for n in store.list_nodes(node_type="procedural")] == ["c"]
    assert store.counts() == (3, 0)


def test_returned_records_are_copies(store: Store):
    store.put_node(node("a", metadata={"list": [1]}))
    got = store.get_node("a")
    got.metadata["list"].append(2)
    assert store.get_node("a").metadata == {"list": [1]}


def test_edges_and_cascading_delete(store: Store):
    fill(store, 4, [(0, 1), (1, 2), (2, 0), (2, 3)])
    assert store.get_edge("e1") == edge("e1", "n1", "n2")
    assert [e.id for e in store.edges_touching(["n3"])] == ["e3"]
    assert [e.id for e in store.edges_touching(["n0", "n3"])] == ["e0", "e2", "e3"]
    assert store.delete_node("n2") == ["e1", "e2", "e3"]
    assert [e.id for e in store.all_edges()] == ["e0"]
    assert store.delete_edge("e0") is True and store.delete_edge("e0") is False
    assert store.counts() == (3, 0)


def test_the_whole_graph_is_every_node_and_the_edges_among_them(store: Store):
    fill(store, 5, [(0, 1), (1, 2), (2, 0), (2, 3), (4, 4)])
    store.put_node(node("n1", "changed", metadata={"k": 1}))
    store.delete_node("n3")
    nodes, edges = store.whole_graph()
    assert nodes == list(store.get_nodes(store.node_ids()).values())
    assert edges == store.list_edges_between(store.node_ids())
    assert [n.id for n in nodes] == ["n0", "n1", "n2", "n4"] and [e.id for e in edges] == ["e0", "e1", "e2", "e4"]
    nodes[1].metadata["k"] = 2  # (copies, as every reading returns)
    assert store.whole_graph()[0][1].metadata == {"k": 1}


def test_an_edge_needs_both_nodes(store: Store):
    store.put_node(node("a"))
    with pytest.raises(NotFound):
        store.put_edge(edge("e", "a", "ghost"))
    assert store.counts() == (1, 0)


def test_list_edges_between_any_number_of_ids(store: Store):
    """50,000 ids: more than SQLite's variable limit (32,766), so no IN (?, ?, …) list."""
    rng = random.Random(7)
    n = 60_000
    pairs = [(rng.randrange(n), rng.randrange(n)) for _ in range(30_000)]
    fill(store, n, pairs)
    chosen = {f"n{i}" for i in rng.sample(range(n), 50_000)}
    got = store.list_edges_between(sorted(chosen))
    expected = sorted(f"e{k}" for k, (a, b) in enumerate(pairs) if f"n{a}" in chosen and f"n{b}" in chosen)
    assert [e.id for e in got] == expected and len(expected) > 10_000
    assert len(store.get_nodes(sorted(chosen))) == 50_000


def test_a_failed_transaction_changes_nothing(store: Store):
    fill(store, 3, [(0, 1)])
    with pytest.raises(RuntimeError), store.transaction():
        store.put_node(node("new"))
        store.delete_node("n0")
        with store.transaction():  # nested: joins the outer one
            store.put_edge(edge("e9", "n1", "n2"))
        raise RuntimeError("boom")
    assert store.node_ids() == ["n0", "n1", "n2"] and [e.id for e in store.all_edges()] == ["e0"]
    assert [i for i, _ in store.search("new", 5)] == []


def test_reads_inside_a_transaction_see_its_writes(store: Store):
    fill(store, 2, [(0, 1)])
    with store.transaction():
        store.put_node(node("fresh", "fresh words here"))
        store.put_edge(edge("e9", "fresh", "n0"))
        store.delete_edge("e0")
        assert store.counts() == (3, 1)
        assert [i for i, _ in store.search("fresh", 5)] == ["fresh"]
        store.put_node(node("fresh", "other words now"))  # and again after a search
        assert store.search("fresh", 5) == [] and [i for i, _ in store.search("words", 5)] == ["fresh"]
    assert store.counts() == (3, 1) and [i for i, _ in store.search("words", 5)] == ["fresh"]


def test_access_and_activation_are_recorded(store: Store):
    fill(store, 2, [(0, 1)])
    store.record_access(["n0", "n0", "missing"], "2026-12-01T00:00:00.000Z")
    assert store.get_node("n0").access_count == 1
    assert store.get_node("n0").last_accessed_at == "2026-12-01T00:00:00.000Z"
    store.record_activation(["e0"], "2026-12-02T00:00:00.000Z")
    assert store.get_edge("e0").last_activated_at == "2026-12-02T00:00:00.000Z"


def test_search_ranks_by_bm25(store: Store):
    store.put_node(node("quality", "Product quality is what R&D buys"))
    store.put_node(node("share", "Market share drives revenue; revenue funds R&D; revenue revenue"))
    store.put_node(node("other", "Unrelated: the office has a garden"))
    store.put_node(node("accent", "Café prices"))
    ranked = store.search("revenue", 10)
    assert [i for i, _ in ranked] == ["share"]
    ranked = store.search("R&D quality", 10)
    assert ranked[0][0] == "quality" and {i for i, _ in ranked} == {"quality", "share"}
    assert all(score > 0 for _, score in ranked)
    assert [i for i, _ in store.search("cafe", 10)] == ["accent"]  # diacritics folded
    assert store.search('"NEAR( OR AND * :x', 10) == []  # FTS syntax is only text
    assert store.search("", 10) == []
    store.put_node(node("quality", "now about gardens"))  # re-indexed on change
    assert [i for i, _ in store.search("quality", 10)] == []
    store.delete_node("share")
    assert store.search("revenue", 10) == []


WORDS = ["Straße", "Fuß", "λόγος", "ﬁnance", "Ｒｅｖｅｎｕｅ", "Ünïcode", "東京"]


def test_search_finds_words_of_every_script(store: Store):
    """A query is folded the way the store indexes: case folded (ß is ss), compatibility
    forms unfolded (ﬁ, fullwidth letters), accents off."""
    for i, word in enumerate(WORDS):
        store.put_node(node(f"w{i}", f"about {word} today"))
    for i, word in enumerate(WORDS):
        assert [n for n, _ in store.search(word, 5)] == [f"w{i}"], word
    assert [n for n, _ in store.search("STRASSE", 5)] == ["w0"]  # (an adversarial run: not found before)
    assert [n for n, _ in store.search("finance revenue", 5)] == ["w3", "w4"]
    assert [n for n, _ in store.search("ünicode", 5)] == ["w5"]


@given(st.text(max_size=12))
@settings(max_examples=400, deadline=None)
def test_the_ascii_shortcut_of_fold_is_the_full_folding(word):
    def full(w: str) -> str:  # the folding, written out without the shortcut
        decomposed = unicodedata.normalize("NFKD", w.casefold())
        return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))

    ascii_word = word.encode("ascii", "ignore").decode()
    assert fold(word) == full(word) and fold(ascii_word) == full(ascii_word)


def test_every_backend_ranks_alike(tmp_path, postgres_url):
    texts = [
        "Market share: the share of the segment we win",
        "Revenue follows market share and customer retention",
        "R&D is funded from revenue",
        "Product quality is what R&D buys; it wins market share",
        "Customer retention: churn and renewals, driven by market share",
        "The company was founded in 2020",
    ]
    from bendscope.memory.store.postgres import PostgresStore

    stores: list[Store] = [SQLiteStore(tmp_path / "r.sqlite3"), InMemoryStore(), PostgresStore(postgres_url)]
    results, exact = [], []
    for store in stores:
        for i, text in enumerate(texts):
            store.put_node(node(f"t{i}", text))
        exact.append(store.search("market share revenue R&D", 10))
        results.append([(i, round(score, 6)) for i, score in exact[-1]])
        store.close()
    assert results[0] == results[1] == results[2] and len(results[0]) == 5
    assert exact[1] == exact[2]  # PostgreSQL computes BM25 in the in-memory store's order: the same doubles


def test_words_terms_and_query_terms():
    assert tokenize("Ünïcode_words, R&D 2026!") == ["unicode", "words", "r", "d", "2026"]
    assert terms("The Cells were studied, cell by cell") == ["cell", "studi", "cell", "cell"]
    assert query_terms("a A b the cells Cell") == ["b", "cell"]
    assert query_terms("why does the") == []


def test_search_stems_and_leaves_stop_words_out(store: Store):
    """(Once "cells" did not match "cell", and "the" seeded most of the store.)"""
    store.put_node(node("cell", "The cell divides"))
    store.put_node(node("lake", "Nutrients feed the algae bloom in the lake"))
    store.put_node(node("other", "The weather was fine"))
    assert [i for i, _ in store.search("cells dividing", 5)] == ["cell"]
    assert [i for i, _ in store.search("blooming algae", 5)] == ["lake"]
    assert store.search("the", 5) == [] and store.search("why does it", 5) == []


def test_a_busy_store_says_so_instead_of_waiting_forever(tmp_path, monkeypatch):
    import bendscope.memory.store.sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "BUSY_GIVE_UP_S", 0.3)
    path = tmp_path / "busy.sqlite3"
    holder = sqlite3.connect(path, timeout=0.1)
    SQLiteStore(path).close()
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    store = SQLiteStore.__new__(SQLiteStore)
    try:
        store = SQLiteStore(path)
    except StoreUnavailable as exc:  # even opening may find it busy (the migration check writes)
        assert "busy" in str(exc)
    else:
        with pytest.raises(StoreUnavailable, match="busy"):
            store.put_node(node("x"))
        store.close()
    holder.rollback()
    holder.close()


# ---------------------------------------------------------------- SQLite only
def test_sqlite_file_settings_and_reopen(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SQLiteStore(path) as store:
        fill(store, 2, [(0, 1)])
    with SQLiteStore(path) as store:
        assert store.counts() == (2, 1) and store.schema_version == SCHEMA_VERSION
        conn = store._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_sqlite_refuses_foreign_and_newer_files(tmp_path):
    foreign = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreUnavailable, match="not a memory store"):
        SQLiteStore(foreign)
    newer = tmp_path / "newer.sqlite3"
    SQLiteStore(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreUnavailable, match="newer version"):
        SQLiteStore(newer)
    with pytest.raises(StoreUnavailable, match="newer version"):  # (read-only said "not a memory store")
        SQLiteStore(newer, read_only=True)
    not_sqlite = tmp_path / "text.sqlite3"
    not_sqlite.write_text("hello " * 1000)
    with pytest.raises(StoreUnavailable):
        SQLiteStore(not_sqlite)


def test_store_urls(tmp_path, postgres_url, monkeypatch):
    from pg_cluster import free_port

    from bendscope.memory.core.errors import InvalidInput
    from bendscope.memory.store.postgres import PostgresStore

    assert isinstance(open_store(":memory:"), InMemoryStore)
    with open_store(f"sqlite:///{tmp_path}/u.sqlite3") as store:  # sqlite:////abs: an absolute path
        assert isinstance(store, SQLiteStore) and store.path == f"{tmp_path}/u.sqlite3"
        assert store.location == f"{tmp_path}/u.sqlite3" and resolved_from(f"sqlite:///{tmp_path}/u.sqlite3", store)
    # sqlite:///name is the relative path name (it made /name at the filesystem root), and says so
    monkeypatch.chdir(tmp_path)
    with open_store("sqlite:///relative.sqlite3") as store:
        assert store.location == str(tmp_path / "relative.sqlite3") and (tmp_path / "relative.sqlite3").is_file()
        said = resolved_from("sqlite:///relative.sqlite3", store)
        assert said == f"the store is {store.location} ('relative.sqlite3' is relative: resolved against {tmp_path})"
    assert not Path("/relative.sqlite3").exists()
    with open_store("plain.sqlite3") as store:
        assert "is relative: resolved against" in resolved_from("plain.sqlite3", store)
        assert Memory(store).get_metrics()["store"]["location"] == str(tmp_path / "plain.sqlite3")
    with open_store(postgres_url + "?pool_size=3") as store:
        assert isinstance(store, PostgresStore) and store.pool_size == store.parallel_calls == 3
        assert resolved_from(postgres_url, store) == f"the store is {postgres_url}?pool_size=3"
    with open_store(postgres_url.replace("postgresql://", "postgres://"), pool_size=5) as store:
        assert isinstance(store, PostgresStore) and store.pool_size == 5
    monkeypatch.setenv("BENDSCOPE_MEMORY_STORE", postgres_url)
    with open_store(None) as store:  # the environment variable names any store
        assert isinstance(store, PostgresStore)
    with pytest.raises(InvalidInput, match="not supported"):
        open_store("mysql://localhost/db")
    with pytest.raises(InvalidInput, match="sqlite:///relative/path or sqlite:////absolute/path"):
        open_store("sqlite://relative.db")
    for half in ("sqlite:/abs/x.db", "sqlite:x.db", "SQLite:/x.db", "postgresql:/db"):  # (no folder "sqlite:")
        with pytest.raises(InvalidInput, match="is neither a path nor a store URL"):
            open_store(half)
    assert not list(tmp_path.glob("*:*"))
    with pytest.raises(InvalidInput, match="pool_size must be from 1"):
        open_store(postgres_url + "?pool_size=0")
    with pytest.raises(InvalidInput, match="whole number"):
        open_store(postgres_url + "?pool_size=many")
    with pytest.raises(InvalidInput, match="PostgreSQL store"):
        open_store(f"{tmp_path}/x.sqlite3", pool_size=2)
    # nobody listens there: a clear message, and never the password
    with pytest.raises(StoreUnavailable, match="cannot open the memory store") as refused:
        open_store(f"postgresql://me:secret@127.0.0.1:{free_port()}/db")
    assert "secret" not in str(refused.value) and "postgresql://me@127.0.0.1" in str(refused.value)
    with pytest.raises(StoreUnavailable, match="does not exist"):
        open_store(postgres_url.rsplit("/", 1)[0] + "/no_such_database")


def test_store_paths_a_newcomer_writes(tmp_path, monkeypatch):
    """``~`` is the home folder, missing folders are made, and a place a store cannot be
    is named with the path and what to do."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with open_store("~/notes/agent/memory.sqlite3") as store:
        assert store.path == str(tmp_path / "home" / "notes" / "agent" / "memory.sqlite3")
    assert (tmp_path / "home" / "notes" / "agent" / "memory.sqlite3").is_file()
    with open_store("sqlite://~/other/m.sqlite3") as store:  # (sqlite:// + ~ reads as that path)
        assert store.path == str(tmp_path / "home" / "other" / "m.sqlite3")
    with open_store(tmp_path / "a" / "b" / "c.sqlite3") as store:
        assert store.counts() == (0, 0)
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder")
    with pytest.raises(StoreUnavailable, match=f"cannot make the folder {blocker}"):
        open_store(blocker / "m.sqlite3")
    with pytest.raises(StoreUnavailable, match="is a folder; name a file in it"):
        open_store(tmp_path / "a")


def test_a_read_only_store_says_which_and_what_to_do(tmp_path, monkeypatch):
    """(As root every file is writable, so the test makes SQLite fail the way it does on a
    read-only file and folder, and checks what the message says.)"""
    from bendscope.memory.store import sqlite as sqlite_store

    path = tmp_path / "m.sqlite3"
    SQLiteStore(path).close()

    def refuse(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite_store.sqlite3, "connect", refuse)
    monkeypatch.setattr(sqlite_store.os, "access", lambda p, mode: False)
    with pytest.raises(StoreUnavailable) as caught:
        SQLiteStore(path)
    message = str(caught.value)
    assert str(path) in message and "the file is read-only" in message and "copy it to a folder" in message
    with pytest.raises(StoreUnavailable, match="is read-only, and SQLite writes its journal beside"):
        SQLiteStore(tmp_path / "new.sqlite3")


WRITER = ROOT / "tests" / "support" / "store_writer.py"


def test_two_processes_writing_one_store_lose_nothing(tmp_path):
    path = tmp_path / "shared.sqlite3"
    with SQLiteStore(path) as store:
        store.put_node(node("shared"))
    procs = [subprocess.Popen([sys.executable, str(WRITER), str(path), tag, "300"]) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with SQLiteStore(path) as store:
        assert store.counts() == (601, 598)
        assert store.get_node("shared").access_count == 600  # every increment of both writers
        assert json.loads(json.dumps(store.get_node("a-299").to_dict()))["content"] == "text a 299"


def test_concurrent_reader_sees_committed_state_only(tmp_path):
    path = tmp_path / "wal.sqlite3"
    writer, reader = SQLiteStore(path), SQLiteStore(path)
    with writer.transaction():
        writer.put_node(node("x"))
        assert reader.get_node("x") is None  # not committed yet: WAL readers are not blocked
    assert reader.get_node("x") is not None
    writer.close()
    reader.close()


def test_sqlite_search_leaves_out_common_terms_when_rarer_ones_exist(tmp_path):
    with SQLiteStore(tmp_path / "c.sqlite3") as store:
        store.common_df = 3
        with store.transaction():
            for i in range(6):
                store.put_node(node(f"c{i}", f"common filler words {i}"))
            store.put_node(node("r1", "common and rare"))
            store.put_node(node("r2", "rare only"))
        exact = InMemoryStore()
        for n in [store.get_node(i) for i in store.node_ids()]:
            exact.put_node(n)
        # candidates from the rare word (+ the common words' BM25 terms), topped up from all words:
        # the same scores as plain BM25 over every word
        for query, limit in (("common rare", 10), ("common rare", 2), ("common filler", 3), ("common and", 10)):
            got = [(i, round(score, 9)) for i, score in store.search(query, limit)]
            want = [(i, round(score, 9)) for i, score in exact.search(query, limit)]
            assert got == want, query
        assert store.search("zzz", 10) == []


def test_sqlite_migrates_an_older_store(tmp_path, monkeypatch, capsys):
    from bendscope.memory.store.sqlite import MIGRATIONS, _statements

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for statement in _statements(MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        f"INSERT INTO nodes VALUES ('a', 'kept across the upgrade', 'semantic', 0.5, '{{}}', '', 0, '{T}', '{T}', NULL)"
    )
    conn.execute(f"INSERT INTO nodes VALUES ('b', 'in a loop', 'semantic', 0.5, '{{}}', '', 0, '{T}', '{T}', NULL)")
    conn.execute(f"INSERT INTO edges VALUES ('ab', 'a', 'b', 'causal', 1.0, '{{}}', '{T}', NULL)")
    conn.execute(f"INSERT INTO edges VALUES ('ba', 'b', 'a', 'causal', 1.0, '{{}}', '{T}', NULL)")
    conn.commit()
    conn.close()
    import bendscope.memory.store.sqlite as module

    monkeypatch.setattr(module, "PROGRESS_FROM", 2)
    with SQLiteStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        assert [i for i, _ in store.search("upgrading the", 5)] == ["a"]  # (re-indexed: stems, stop words)
        said = capsys.readouterr().err
        assert "re-indexing 2 nodes (stems, stop words): 100%" in said
        assert "recording 2 nodes as versions: 100%" in said and "recording 2 edges as versions: 100%" in said
        assert store.get_node("a").recorded_at == T and store.get_edge("ab").recorded_at == T
        assert store.arc_versions() == (0, -1) and store.all_loops() == []
        answer = Memory(store).delete_edge("ab")  # (the first write makes the loop index, then updates it)
        assert answer["topology"]["description"] == "breaks feedback loop"
        assert store.arc_versions() == (1, 1) and store.all_loops() == []


def test_sqlite_keeps_document_frequencies_exact(tmp_path):
    """The document frequency of every term, kept beside the full-text index, equals a recount
    after random writes, rewrites, deletions and a rolled-back transaction."""
    from collections import Counter

    rng = random.Random(7)
    words = ["rain", "rains", "flood", "the", "crops", "prices", "cell", "cells", "sun"]
    store = SQLiteStore(tmp_path / "df.sqlite3")
    for _ in range(300):
        node_id = f"n{rng.randrange(40)}"
        if rng.random() < 0.2:
            store.delete_node(node_id)
        elif rng.random() < 0.05:
            with pytest.raises(RuntimeError), store.transaction():
                store.put_node(node(node_id, "rolled back words"))
                raise RuntimeError
        else:
            store.put_node(node(node_id, " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))))
    expected: Counter[str] = Counter()
    for n in store.get_nodes(store.node_ids()).values():
        expected.update(set(terms(n.content)))
    kept = dict(store._query("SELECT term, df FROM term_df"))
    assert kept == dict(expected) and len(kept) > 3
    store.close()
