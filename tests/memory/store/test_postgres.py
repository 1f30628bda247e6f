"""What is particular to the PostgreSQL store (the shared contract is in
tests/memory/store/test_store.py and test_service.py, run on every backend): its schema and
migrations, search statistics kept exact, BM25 equal to the in-memory store's, the write
lock across processes and threads, counters beside writers, and clear errors."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest

from bendscope.memory import Memory
from bendscope.memory.core.errors import InvalidInput, NotFound, StoreUnavailable
from bendscope.memory.core.records import MemoryEdge, MemoryNode, edge_id_for
from bendscope.memory.core.text import tokenize
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.postgres import PostgresStore
from bendscope.memory.store.postgres_schema import SCHEMA_VERSION
from bendscope.memory.store.postgres_search import lexeme
from bendscope.memory.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[3]
T = "2026-11-30T10:00:00.000Z"


def node(node_id: str, content: str = "", **kw) -> MemoryNode:
    return MemoryNode(node_id, content or f"content of {node_id}", created_at=T, updated_at=T, **kw)


def edge(edge_id: str, a: str, b: str, edge_type: str = "causal") -> MemoryEdge:
    return MemoryEdge(edge_id, a, b, edge_type, created_at=T)


def statistics_match(url: str) -> None:
    """The kept term frequencies and totals equal those recomputed from the nodes."""
    with psycopg.connect(url) as conn:
        kept = dict(conn.execute("SELECT term, df FROM terms").fetchall())
        fresh = dict(
            conn.execute("SELECT k, count(*) FROM nodes, jsonb_object_keys(term_counts) AS k GROUP BY k").fetchall()
        )
        assert kept == fresh
        totals = conn.execute("SELECT nodes, tokens, edges FROM corpus").fetchone()
        counted = conn.execute(
            "SELECT (SELECT count(*) FROM nodes), (SELECT coalesce(sum(term_total), 0) FROM nodes), "
            "(SELECT count(*) FROM edges)"
        ).fetchone()
        assert totals == counted


def test_schema_version_reopen_and_refusals(postgres, postgres_url):
    with PostgresStore(postgres_url) as store:
        store.put_node(node("a", "kept across reopening"))
        assert store.schema_version == SCHEMA_VERSION
    with PostgresStore(postgres_url) as store:
        assert [i for i, _ in store.search("reopening", 5)] == ["a"]
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE bendscope_meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StoreUnavailable, match="newer version"):
        PostgresStore(postgres_url)
    foreign = postgres.create_database("foreign_tables")
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (x int)")
    with pytest.raises(StoreUnavailable, match="not a memory store"):
        PostgresStore(foreign)


def test_a_version_1_store_is_migrated_and_keeps_its_contents(postgres_url, monkeypatch):
    import bendscope.memory.store.postgres_schema as schema

    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 1)
    with PostgresStore(postgres_url) as old:
        assert old.schema_version == 1
    monkeypatch.undo()
    with psycopg.connect(postgres_url) as conn:  # rows as version 1 wrote them (its own words as terms)
        for node_id, text in (("a", "written by version one"), ("b", "content of b")):
            words = text.split()
            conn.execute(
                "INSERT INTO nodes (id, content, node_type, confidence, metadata, source, access_count, created_at, "
                "updated_at, terms, term_counts, term_total) VALUES (%s, %s, 'semantic', 0.5, '{}', '', 0, %s, %s, "
                "array_to_tsvector(%s::text[]), %s, %s)",
                (node_id, text, T, T, sorted(set(words)), json.dumps(dict.fromkeys(words, 1)), len(words)),
            )
        conn.execute(
            "INSERT INTO edges (id, source_id, target_id, edge_type, weight, metadata, created_at) "
            "VALUES ('e', 'a', 'b', 'causal', 1.0, '{}', %s)",
            (T,),
        )
        conn.execute("UPDATE corpus SET nodes = 2, edges = 1, tokens = 7")
    with PostgresStore(postgres_url) as store:
        assert store.schema_version == SCHEMA_VERSION == 10
        assert [i for i, _ in store.search("versions one", 5)] == ["a"] and store.get_edge("e") is not None
        assert store.arc_versions() == (0, -1) and store.all_loops() == []  # (the index: made at the first write)
        with psycopg.connect(postgres_url) as conn:
            options = dict(conn.execute("SELECT relname, reloptions FROM pg_class WHERE relname IN ('nodes', 'edges')"))
        assert options == {"nodes": ["fillfactor=80"], "edges": ["fillfactor=80"]}
    statistics_match(postgres_url)


def test_a_schema_per_store_through_the_search_path(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA team_a")
        conn.execute("CREATE SCHEMA team_b")
    a = PostgresStore(postgres_url + "?options=-csearch_path%3Dteam_a")
    b = PostgresStore(postgres_url + "?options=-csearch_path%3Dteam_b")
    a.put_node(node("x", "only in team a"))
    assert b.counts() == (0, 0) and a.counts() == (1, 0) and a.schema == "team_a"
    a.close()
    b.close()
    with pytest.raises(StoreUnavailable, match="no schema"):
        PostgresStore(postgres_url + "?options=-csearch_path%3Dmissing")


def test_search_statistics_stay_exact_through_every_change(postgres_url):
    rng = random.Random(3)
    vocabulary = [f"w{i}" for i in range(40)] + ["Café", "naïve", "东京"]
    with PostgresStore(postgres_url) as store:
        for step in range(300):
            action = rng.random()
            ids = [f"n{i}" for i in range(30)]
            if action < 0.5:
                text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 12))) or "-"
                store.put_node(node(rng.choice(ids), text))
            elif action < 0.7:
                a, b = rng.choice(ids), rng.choice(ids)
                with contextlib.suppress(NotFound):  # an end deleted earlier: refused, nothing changes
                    store.put_edge(edge(f"e{rng.randrange(40)}", a, b))
            elif action < 0.8:
                store.delete_node(rng.choice(ids))
            elif action < 0.9:
                store.delete_edge(f"e{rng.randrange(40)}")
            else:  # a failed transaction leaves the statistics as they were
                with pytest.raises(RuntimeError), store.transaction():
                    store.put_node(node(rng.choice(ids), "rolled back words"))
                    raise RuntimeError
            if step % 50 == 0:
                statistics_match(postgres_url)
        statistics_match(postgres_url)
        assert store.counts()[1] == len(store.all_edges())


def test_bm25_is_the_in_memory_stores_to_the_last_bit(postgres_url):
    """Without common words (every word in at most common_df nodes) the ranking is plain BM25:
    the same ids and the very same doubles as the in-memory store."""
    rng = random.Random(5)
    words = [f"t{i}" for i in range(300)]
    exact = InMemoryStore()
    with PostgresStore(postgres_url) as store, store.transaction():
        for i in range(1_500):
            text = " ".join(rng.choice(words[: rng.randint(5, 300)]) for _ in range(rng.randint(1, 30)))
            store.put_node(node(f"n{i:04d}", text))
            exact.put_node(node(f"n{i:04d}", text))
    with PostgresStore(postgres_url) as store:
        store.common_df = 10**9
        for _ in range(60):
            query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
            limit = rng.choice([1, 5, 20, 200])
            assert store.search(query, limit) == exact.search(query, limit), query


def test_common_words_are_pruned_as_in_sqlite(tmp_path, postgres_url):
    # 'common' is in 6 of 32 nodes (over common_df = 3), 'rare' in 3: with 'rare' in the query,
    # only nodes holding it are candidates, so the short all-'common' node that exact BM25
    # ranks first is left out — by both stores alike, with the same scores
    pad = " ".join(f"pad{i}" for i in range(30))
    contents = [f"filler words number {i}" for i in range(24)] + [f"common filler {i}" for i in range(4)]
    contents += ["common common common", f"rare {pad} more", f"common and rare {pad}", f"rare other text {pad}"]
    exact = InMemoryStore()
    with PostgresStore(postgres_url) as store, SQLiteStore(tmp_path / "s.sqlite3") as lite:
        for s in (store, lite):
            s.common_df = 3
            with s.transaction():
                for i, text in enumerate(contents):
                    s.put_node(node(f"n{i:02d}", text))
        for i, text in enumerate(contents):
            exact.put_node(node(f"n{i:02d}", text))
        pruned = store.search("common rare", 3)
        assert exact.search("common rare", 3)[0][0] == "n28" and "n28" not in dict(pruned)
        holding_rare = {f"n{i:02d}" for i, text in enumerate(contents) if "rare" in text.split()}
        everything = dict(exact.search("common rare", 100))
        assert set(dict(pruned)) <= holding_rare
        assert pruned == sorted(((i, everything[i]) for i in holding_rare), key=lambda h: (-h[1], h[0]))[:3]
        for query, limit in (("common rare", 3), ("common rare", 20), ("common filler", 3), ("common", 5)):
            ours, theirs = store.search(query, limit), lite.search(query, limit)
            assert [h[0] for h in ours] == [h[0] for h in theirs], query
            assert [round(h[1], 6) for h in ours] == [round(h[1], 6) for h in theirs], query
        assert store.search("zzz", 10) == [] and store.search("", 10) == []


def test_very_long_words_and_quotes_are_searchable(postgres_url):
    long_word = "z" * 3_000  # longer than PostgreSQL's 2,046-byte lexemes
    with PostgresStore(postgres_url) as store:
        store.put_node(node("long", f"a {long_word} b"))
        store.put_node(node("quote", "it's Bob's \\ backslash"))
        assert [i for i, _ in store.search(long_word, 5)] == ["long"]
        assert lexeme(tokenize(long_word)[0]).startswith("~")
        assert [i for i, _ in store.search("Bob's", 5)] == ["quote"]  # ("it's" is stop words only)
        assert store.search("' | & ! <-> :* \\", 5) == []


def test_nul_characters_are_refused_before_the_store(postgres_url):
    with PostgresStore(postgres_url) as store:
        memory = Memory(store)
        with pytest.raises(InvalidInput, match="NUL"):
            memory.store_node({"content": "a\x00b"})
        memory.store_node({"content": "fine", "metadata": {"k": "a\x00b"}})  # JSON escapes it
        assert store.counts() == (1, 0)
        (stored,) = store.get_nodes(store.node_ids()).values()
        assert stored.metadata == {"k": "a\x00b"}


def test_a_write_cannot_join_a_reading(postgres_url):
    with PostgresStore(postgres_url) as store:
        with pytest.raises(RuntimeError, match="read-only"), store.reading():
            store.put_node(node("x"))
        with store.transaction():  # a reading inside a write sees the write
            store.put_node(node("y"))
            with store.reading():
                assert store.get_node("y") is not None
        assert store.node_ids() == ["y"]


def test_a_held_write_lock_makes_a_clear_busy_error(postgres_url, monkeypatch):
    import bendscope.memory.store.postgres as module

    monkeypatch.setattr(module, "LOCK_TIMEOUT_MS", 300)
    import bendscope.memory.store.postgres_schema as schema

    monkeypatch.setattr(schema, "LOCK_TIMEOUT_MS", 300)  # (opening: the migration's lock)
    with PostgresStore(postgres_url) as store, PostgresStore(postgres_url) as other:
        entered, release = threading.Event(), threading.Event()

        def hold() -> None:
            with other.transaction():
                entered.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        entered.wait(10)
        try:
            with pytest.raises(StoreUnavailable, match="busy"):
                store.put_node(node("x"))
            assert store.search("anything", 5) == []  # reads never wait for the writer
            with pytest.raises(StoreUnavailable, match="busy"):  # nor does opening wait forever
                PostgresStore(postgres_url)
        finally:
            release.set()
            holder.join()
        store.put_node(node("x"))
        assert store.node_ids() == ["x"]


def test_threads_of_one_process_merge_updates_without_losing_any(postgres_url):
    """Eight threads each add their own key to the metadata of the same nodes — read the
    node, merge, store_node, in one transaction — while retrieving: no update is lost."""
    with PostgresStore(postgres_url, pool_size=8) as store:
        memory = Memory(store)
        for i in range(10):
            memory.store_node({"id": f"n{i}", "content": f"shared node {i} words"})

        def work(worker: int) -> None:
            for i in range(10):
                with store.transaction():
                    memory.store_node({"id": f"n{i}", "metadata": {**_meta(memory, f"n{i}"), f"w{worker}": i}})
                memory.retrieve_context({"query": "shared words", "limit": 5})

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(work, range(8)))
        for i in range(10):
            assert _meta(memory, f"n{i}") == {f"w{w}": i for w in range(8)}
        assert sum(n.access_count for n in store.get_nodes(store.node_ids()).values()) == 8 * 10 * 5


def _meta(memory: Memory, node_id: str) -> dict[str, int]:
    return dict(memory.query_graph({"node_ids": [node_id]})["nodes"][0]["metadata"])


WRITER = ROOT / "tests" / "support" / "store_writer.py"


def test_four_processes_writing_one_database_lose_nothing(postgres_url):
    with PostgresStore(postgres_url) as store:
        store.put_node(node("shared", "shared"))
    procs = [subprocess.Popen([sys.executable, str(WRITER), postgres_url, tag, "150", "--retrieve"]) for tag in "abcd"]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    with PostgresStore(postgres_url) as store:
        assert store.counts() == (601, 596)
        # every increment of every writer: 150 direct ones each, and one per retrieval that returned it
        assert store.get_node("shared").access_count == 4 * 150 + 4 * 150
        assert store.get_node("c-149").content == "text c 149"
    statistics_match(postgres_url)


#: moments (minute, second of the test's clock) read back: while nodes, then edges are written,
#: after the edits, after the ends, after consolidation's merges and prunes
MOMENTS = ((1, 0), (2, 50), (14, 45), (15, 21), (15, 28))


def test_every_backend_answers_with_the_same_bytes(tmp_path, postgres_url):
    """The same calls on SQLite, in memory and PostgreSQL give byte-identical responses."""
    from bendscope.memory.mcp.tools import call, encode
    from tests.memory.core.test_service import BUSINESS_TEXT, business, memory_on

    rng = random.Random(11)
    words = ["market", "share", "revenue", "churn", "R&D", "quality", "café", "loop", "cost", "team"]
    calls: list[tuple[str, dict]] = []
    for i in range(120):
        content = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))
        calls.append(("store_node", {"id": f"x{i}", "content": content, "confidence": rng.choice([0.3, 0.6, 0.9])}))
    for _ in range(200):
        a, b = rng.sample(range(120), 2)  # (a causal self-loop is refused: no loop runs through one node)
        kind = rng.choice(["causal", "related", "temporal", "supports"])
        calls.append(("store_edge", {"source_id": f"x{a}", "target_id": f"x{b}", "edge_type": kind}))
    for _ in range(40):
        query = " ".join(rng.sample(words, rng.randint(1, 3)))
        calls.append(("retrieve_context", {"query": query, "limit": rng.choice([5, 20]), "expand_hops": 2}))
        asked = {"query": f"why does {query} keep rising", "limit": rng.choice([3, 10]), "detail": "full"}
        calls.append(("retrieve_context", asked))
        calls.append(("query_graph", {"text": query, "limit": 7}))
    calls.append(("analyze_topology", {}))
    calls.append(("analyze_topology", {"node_ids": list(BUSINESS_TEXT)}))
    calls.append(("learn_from_outcome", {"node_ids": ["x1", "x2", "x3", "x4"], "outcome": "partial", "iterations": 2}))
    # both times: edits (versions), back-dated ends, readings of the past and histories; then
    # consolidation's merges and prunes (ended in recorded time) read back
    moments = [f"2026-11-30T10:{minute:02d}:{second:02d}.000Z" for minute, second in MOMENTS]
    causal = [args for name, args in calls if name == "store_edge" and args["edge_type"] == "causal"]
    for i in range(0, 120, 7):
        calls.append(("store_node", {"id": f"x{i}", "content": f"rewritten {rng.choice(words)} {i}", "source": "b"}))
    for args in rng.sample(causal, 12):
        calls.append(("invalidate_edge", {"id": edge_id_for(args["source_id"], args["target_id"], "causal"),
                                          "at": rng.choice(["2000-01-01", "2026-11-30T10:20:00Z"])}))  # fmt: skip
    calls.append(("invalidate_node", {"id": "x5", "at": "2024-01-01"}))
    calls.append(("consolidate", {"dry_run": True, "idle_days": 0, "half_life_days": 0.001}))
    calls.append(("consolidate", {"idle_days": 0, "half_life_days": 0.0001, "prune_below": 0.2}))
    calls.append(("analyze_topology", {}))
    for when in moments:
        query = " ".join(rng.sample(words, 2))
        calls.append(("analyze_topology", {"known_at": when}))
        calls.append(("analyze_topology", {"as_of": "2010-01-01", "known_at": when}))
        calls.append(("retrieve_context", {"query": f"why does {query} keep rising", "known_at": when, "limit": 8}))
        calls.append(("retrieve_context", {"query": query, "as_of": "1999-01-01", "detail": "full"}))
        calls.append(("query_graph", {"text": query, "known_at": when, "limit": 9}))
        calls.append(("query_graph", {"known_at": when, "as_of": "2025-01-01", "limit": 30}))
        calls.append(("list_edges", {"known_at": when, "limit": 40}))
    calls += [("history", {"id": f"x{i}"}) for i in range(0, 120, 5)]
    calls.append(("query_graph", {"node_ids": [f"x{i}" for i in range(0, 120, 7)], "known_at": moments[2]}))
    calls.append(("query_graph", {"node_ids": [f"x{i}" for i in range(0, 120, 7)], "limit": 1000}))
    calls.append(("learn_from_outcome", {"node_ids": [f"x{i}" for i in range(0, 120, 14)], "outcome": "success"}))
    calls.append(("delete_node", {"id": "x7"}))
    calls.append(("analyze_topology", {"known_at": moments[1]}))
    answers = []
    for store in (SQLiteStore(tmp_path / "s.sqlite3"), InMemoryStore(), PostgresStore(postgres_url)):
        memory = memory_on(store)
        business(memory)
        said = []
        for name, arguments in calls:
            try:
                said.append(encode(call(memory, name, dict(arguments))))
            except (InvalidInput, NotFound) as error:  # (an id consolidation merged away, a loop edge never made)
                said.append(f"{type(error).__name__}: {error}")
        said.append("\n".join(memory.dump_lines()))
        said.append(encode(memory.export_document({"known_at": moments[2], "as_of": "2020-01-01"})))
        answers.append(said)
        store.close()
    assert answers[0] == answers[1] == answers[2]
    assert sum("recorded_until" in answer for answer in answers[0]) > 20  # (the past was read)


def test_a_dropped_connection_is_one_clear_error_then_the_store_recovers(postgres_url):
    with PostgresStore(postgres_url, pool_size=4) as store:
        memory = Memory(store)
        memory.store_node({"id": "a", "content": "before the drop"})
        ready = threading.Barrier(4)

        def hold_a_connection() -> None:  # four readings at once: four idle connections after
            with store.reading():
                ready.wait(timeout=30)

        threads = [threading.Thread(target=hold_a_connection) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with psycopg.connect(postgres_url, autocommit=True) as admin:  # the server ends every session
            ended = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert ended == (4,)
        outcomes = []
        for attempt in range(6):
            try:
                memory.store_node({"id": "b", "content": f"after the drop {attempt}"})
                outcomes.append("ok")
            except StoreUnavailable as exc:
                outcomes.append(str(exc))
        assert outcomes[0].startswith(store.url) and outcomes[1:] == ["ok"] * 5, outcomes
        assert store.get_node("b").content == "after the drop 5" and store.get_node("a").content == "before the drop"


def test_the_password_is_never_shown_even_with_odd_characters(postgres, postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE ROLE agent LOGIN PASSWORD 'Tr0ub#dor?x/y'")
        conn.execute("GRANT ALL ON SCHEMA public TO agent")
    url = f"postgresql://agent:Tr0ub#dor?x/y@127.0.0.1:{postgres.port}/{postgres_url.rsplit('/', 1)[1]}"
    url = url.replace("?x/y", "%3Fx%2Fy")  # '?' and '/' must be escaped in a URL; '#' need not be
    with PostgresStore(url) as store:
        assert store.url == f"postgresql://agent@127.0.0.1:{postgres.port}/{postgres_url.rsplit('/', 1)[1]}"
        store.put_node(node("a"))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'agent'")
        with pytest.raises(StoreUnavailable) as lost:
            store.put_node(node("b"))
        assert "Tr0ub" not in str(lost.value) and "agent@127.0.0.1" in str(lost.value)


@pytest.mark.parametrize(
    "credentials",
    ["agent:Zk3/q+Wm9xY=", "agent:pa@s3cr3t", "agent:x/y@q9", "ag@ent:s3cr3t", "agent:s3cr3t@db/x"],
)
def test_a_url_libpq_would_misread_is_refused_without_showing_the_password(postgres, credentials):
    # an unescaped '/' or '@' would make part of the password a host, port or database name,
    # which connection errors repeat: refused before anything is shown or used
    url = f"postgresql://{credentials}@127.0.0.1:{postgres.port}/memory"
    with pytest.raises(InvalidInput, match="ambiguous") as refused:
        PostgresStore(url)
    for secret in ("Zk3", "q+Wm", "s3cr3t", "x/y", "q9"):
        assert secret not in str(refused.value)


def test_a_store_url_of_undecodable_bytes_is_one_clear_error_from_the_cli(tmp_path):
    env = {**os.environb, b"PYTHONPATH": str(ROOT / "py").encode()}
    env[b"BENDSCOPE_MEMORY_STORE"] = b"postgresql://agent:p\xe9w@127.0.0.1:1/memory"
    proc = subprocess.run(
        [sys.executable, "-m", "bendscope.memory", "analyze"], capture_output=True, env=env, timeout=60
    )
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count(b"\n") == 1 and b"not a PostgreSQL URL" in proc.stderr and b"p\xe9w" not in proc.stderr


def test_a_question_mark_in_a_password_and_an_at_sign_in_the_query_read_as_libpq_reads_them(postgres, postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE ROLE quiz LOGIN PASSWORD 'why?not'")
        conn.execute("GRANT ALL ON SCHEMA public TO quiz")
    database = postgres_url.rsplit("/", 1)[1]
    url = f"postgresql://quiz:why?not@127.0.0.1:{postgres.port}/{database}?application_name=a@b&pool_size=%33"
    with PostgresStore(url) as store:
        assert store.pool_size == 3 and store.url == f"postgresql://quiz@127.0.0.1:{postgres.port}/{database}"
        store.put_node(node("a"))
        assert store.get_node("a") is not None


def test_the_url_reaches_libpq_unchanged_but_for_pool_size(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA team_c")
    with PostgresStore(postgres_url + "?pool_size=2&options=-c%20search_path%3Dteam_c&application_name=a%20b") as s:
        assert s.schema == "team_c" and s.pool_size == 2


def test_only_utf8_databases(postgres):
    url = postgres.url("latin")
    with psycopg.connect(postgres.url(), autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS latin")
        conn.execute("CREATE DATABASE latin TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'")
        conn.execute("DROP DATABASE IF EXISTS ascii")
        conn.execute("CREATE DATABASE ascii TEMPLATE template0 ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'")
    for name in ("latin", "ascii"):
        with pytest.raises(StoreUnavailable, match="not UTF8"):
            PostgresStore(url.rsplit("/", 1)[0] + f"/{name}")


def test_tables_found_outside_the_lock_schema_are_refused(postgres_url):
    """The write lock belongs to the first schema of the search_path: a path that would find
    the tables in another schema (so two stores would lock differently) is refused."""
    with PostgresStore(postgres_url) as store:
        store.put_node(node("a"))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA empty_first")
    with pytest.raises(StoreUnavailable, match="name the memory's schema first"):
        PostgresStore(postgres_url + "?options=-csearch_path%3Dempty_first,public")


def test_a_connection_lost_while_committing_says_the_write_may_be_stored(postgres_url, monkeypatch):
    """Adversarial run F8: with sessions terminated during writes, 7 writes answered "the
    store is unavailable" were committed (the README said a lost connection changes
    nothing). A connection lost at COMMIT now says the outcome is unknown and how to look."""
    real = psycopg.Connection.execute

    def commit_then_lose(self, query, *args, **kwargs):
        result = real(self, query, *args, **kwargs)
        if str(query).endswith("COMMIT") and os.environ.get("_LOSE_AT_COMMIT"):
            self.pgconn.finish()  # the connection is gone (broken), after the server committed
            raise psycopg.OperationalError("terminating connection due to administrator command")
        return result

    monkeypatch.setattr(psycopg.Connection, "execute", commit_then_lose)
    with PostgresStore(postgres_url) as store:
        memory = Memory(store)
        monkeypatch.setenv("_LOSE_AT_COMMIT", "1")
        with pytest.raises(StoreUnavailable) as caught:
            memory.store_node({"id": "maybe", "content": "committed, then the connection went"})
        monkeypatch.delenv("_LOSE_AT_COMMIT")
        assert "may or may not be stored" in str(caught.value) and "query_graph" in str(caught.value)
        assert store.get_node("maybe") is not None  # (it was: the caller is told to look)


def test_a_reading_waits_for_another_sessions_lock_at_most_the_lock_timeout(postgres_url, monkeypatch):
    """Adversarial run F13: a LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE held in psql left a
    query_graph call unanswered past 60 s."""
    import time

    import bendscope.memory.store.postgres as module

    monkeypatch.setattr(module, "LOCK_TIMEOUT_MS", 300)
    import bendscope.memory.store.postgres_schema as schema

    monkeypatch.setattr(schema, "LOCK_TIMEOUT_MS", 300)  # (opening: the migration's lock)
    with PostgresStore(postgres_url) as store:
        memory = Memory(store)
        memory.store_node({"id": "a", "content": "fact"})
        with psycopg.connect(postgres_url) as locker:
            locker.execute(f"SET search_path TO {store.schema}" if getattr(store, "schema", None) else "SELECT 1")
            locker.execute("LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="busy"):
                memory.query_graph({"node_ids": ["a"]})
            assert time.monotonic() - started < 5
            locker.rollback()
        assert memory.query_graph({"node_ids": ["a"]})["count"] == 1


def test_every_statement_waits_at_most_the_lock_timeout(postgres_url, monkeypatch):
    """Second adversarial run: with `corpus` locked in psql, get_metrics (a statement outside
    any transaction) waited for good, and four such calls took the whole pool."""
    import time

    import bendscope.memory.store.postgres as module

    monkeypatch.setattr(module, "LOCK_TIMEOUT_MS", 300)
    import bendscope.memory.store.postgres_schema as schema

    monkeypatch.setattr(schema, "LOCK_TIMEOUT_MS", 300)  # (opening: the migration's lock)
    with PostgresStore(postgres_url) as store:
        memory = Memory(store)
        with psycopg.connect(postgres_url) as locker:
            locker.execute("LOCK TABLE corpus IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="busy"):
                memory.get_metrics()
            assert time.monotonic() - started < 5
            locker.rollback()
        assert memory.get_metrics()["store"]


def test_an_access_count_updates_its_row_in_place_and_is_still_told(postgres_url):
    """A retrieval's access counters leave the node's and the edge's indexed columns as they
    were (their change number goes to ``touched``), so PostgreSQL updates the rows in place
    (HOT: no new index entries, the terms' GIN index untouched); the change is still told
    since the number before, once for the retrieval."""
    with PostgresStore(postgres_url, pool_size=1) as store:
        store.put_node(node("a", "albedo warms the ice"))
        store.put_node(node("b", "ice melts"))
        store.put_edge(edge("ab", "a", "b"))
        before = store.change_number()
        assert before is not None
        rows = store._query("SELECT id, changed FROM nodes UNION ALL SELECT id, changed FROM edges ORDER BY id")
        with store._counting():
            store.record_retrieval(["a", "b"], ["ab"], "2026-12-01T00:00:00.000Z")
            updated = store._query(
                "SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables "
                "WHERE relname IN ('nodes', 'edges') ORDER BY relname"
            )
        assert updated == [("edges", 1, 1), ("nodes", 2, 2)]
        assert store._query("SELECT id, changed FROM nodes UNION ALL SELECT id, changed FROM edges ORDER BY id") == rows
        assert store.change_number() == before + 1
        nodes, edges = store.changed_since(before) or ([], [])
        assert sorted(nodes) == ["a", "b"] and edges == ["ab"]
        assert store.get_nodes(["a"])["a"].access_count == 1
        store.put_node(node("a", "albedo warms the ice, again"))  # (a write numbers the row itself)
        assert store.changed_since(before + 1) == (["a"], [])
