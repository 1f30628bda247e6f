"""How often the PostgreSQL server plans a write's statements: a work figure (plans counted by
the server in ``pg_prepared_statements``), not a time. The loop index reads the neighbours of
a written edge's ends several times per write, one node at a time as a rule; the server must
keep one plan for that statement, not make a new one at each run (planning it was most of the
server's time for a write)."""

from __future__ import annotations

import contextlib
import json

import psycopg
import pytest

from bendscope.memory import Memory
from bendscope.memory.store.postgres import PostgresStore
from bendscope.memory.store.postgres_schema import distinct_ends, neighbours_sql

CARDS = 1000


@pytest.fixture
def one_connection(postgres_url):
    store = PostgresStore(postgres_url, pool_size=1)  # (every statement on one connection: its plans)
    yield store
    store.close()


def _plans(store: PostgresStore, text: str) -> list[tuple[int, int]]:
    """(generic plans, custom plans) of each statement the driver prepared that holds ``text``."""
    rows = store._query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
        (f"%{text}%",),
    )
    return [(int(r[0]), int(r[1])) for r in rows]


def _ring(cards: int) -> str:
    """A memory of ``cards`` cards in one loop, as a document to import."""
    nodes = [{"id": f"p{i}", "text": f"Prior fact {i}"} for i in range(cards)]
    edges = [{"id": f"pe{i}", "a": f"p{i}", "b": f"p{(i + 1) % cards}", "props": {"kind": "causal"}}
             for i in range(cards)]  # fmt: skip
    plane = {"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}
    return json.dumps(
        {"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r", "planes": [plane]}
    )


def test_the_loop_index_reads_of_a_write_are_planned_once(one_connection):
    memory = Memory(one_connection)
    memory.import_document(_ring(CARDS))  # (on a few rows, a scan is cheap: any plan is kept)
    writes = 30
    for k in range(writes):  # (as an agent writes: a card and an edge from the card before, one transaction)
        with one_connection.transaction():
            memory.store_node({"id": f"w{k}", "content": f"Observation {k} from the agent"})
            if k:
                memory.store_edge({"id": f"e{k}", "source_id": f"w{k - 1}", "target_id": f"w{k}",
                                   "edge_type": "causal"})  # fmt: skip
    found = _plans(one_connection, "loop_members m")
    assert found, "the neighbour reads were not prepared"
    runs = sum(g + c for g, c in found)
    assert runs >= writes  # (several per write)
    # the server plans a prepared statement for its first five runs, then keeps the generic
    # plan if it costs no more: at most five plans per statement, whatever the number of runs
    assert all(custom <= 5 for _generic, custom in found), found  # (before: (0, 80), (0, 53))


def test_the_neighbours_of_one_node_are_asked_by_equality():
    one, _ = neighbours_sql(["a", "a"], True, None)
    many, _ = neighbours_sql(["a", "b"], False, "2026-01-01T00:00:00Z")
    assert "e.source_id = %(id)s" in one and "ANY" not in one.split("FROM edges e")[1]
    assert "e.target_id = ANY(%(ids)s::text[])" in many
    assert distinct_ends([("b", "L"), ("a", None), ("b", "L")]) == [("a", None), ("b", "L")]


def test_neighbours_are_each_end_once_with_its_loop(one_connection):
    store = one_connection
    memory = Memory(store)
    for i in "abcd":
        memory.store_node({"id": i, "content": f"card {i}"})
    for a, b in ("ab", "bc", "ca", "ad"):
        memory.store_edge({"id": f"{a}{b}", "source_id": a, "target_id": b, "edge_type": "causal"})
    memory.store_edge({"id": "ab2", "source_id": "a", "target_id": "b", "edge_type": "temporal"})  # (a second arc a→b)
    loop = store.node_loops(["a"]).get("a")
    assert loop is not None
    assert store.neighbours(["a"]) == [("b", loop), ("d", None)]
    assert store.neighbours(["a", "c"]) == [("a", loop), ("b", loop), ("d", None)]
    with store.reading():
        ahead, behind = store.neighbours_both(["a"], ["b"])
    assert ahead == [("b", loop), ("d", None)] and behind == [("a", loop)]


def test_an_agents_write_sends_19_statements_in_16_round_trips(one_connection, monkeypatch):
    """A card and an edge from the card before, in one transaction: the loop index's versions
    are read once and the search statistics wait for the commit (before: 21 statements in 17
    round trips: the statistics were applied at each read of the versions)."""
    memory = Memory(one_connection)
    count = {"statements": 0, "trips": 0, "piped": 0}
    execute, pipeline = psycopg.Cursor.execute, psycopg.Connection.pipeline

    def counted(self, *args, **kwargs):
        count["statements"] += 1
        count["trips"] += not count["piped"]  # (a pipeline's statements go in one round trip)
        return execute(self, *args, **kwargs)

    @contextlib.contextmanager
    def piped(self):
        count["piped"] += 1
        try:
            with pipeline(self) as inside:
                yield inside
        finally:
            count["piped"] -= 1
            count["trips"] += not count["piped"]

    def write(k: int) -> None:
        with one_connection.transaction():
            memory.store_node({"id": f"w{k}", "content": f"Observation {k} from the agent"})
            if k:
                memory.store_edge({"id": f"e{k}", "source_id": f"w{k - 1}", "target_id": f"w{k}",
                                   "edge_type": "causal"})  # fmt: skip

    for k in range(3):
        write(k)
    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    monkeypatch.setattr(psycopg.Connection, "pipeline", piped)
    for k in range(3, 13):
        write(k)
    assert (count["statements"], count["trips"]) == (190, 160)
