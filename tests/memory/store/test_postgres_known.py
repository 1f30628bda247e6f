"""What a PostgreSQL write transaction remembers of its rows (``postgres_known``): every read
through it equals the read the database answers at that moment, whatever the transaction
wrote, deleted or merged before; a failed transaction leaves nothing remembered; and a
conversation's ``store_many`` reads each row once (a few statements per turn, not one per read)."""

from __future__ import annotations

import contextlib

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.memory import Memory
from bendscope.memory.core.records import LoopRecord, MemoryEdge, MemoryNode
from bendscope.memory.store.postgres import PostgresStore
from bendscope.memory.store.sql import SQLStore

IDS = st.sampled_from(["a", "b", "c", "d"])
OPS = st.one_of(
    st.tuples(st.just("node"), IDS, st.sampled_from(["one", "two words"])),
    st.tuples(st.just("edge"), IDS, IDS, st.sampled_from(["causal", "related"])),
    st.tuples(st.just("drop_node"), IDS),
    st.tuples(st.just("drop_edge"), IDS, IDS),
    st.tuples(st.just("merge"), IDS, IDS),
    st.tuples(st.just("loops"), st.lists(IDS, min_size=2, max_size=3, unique=True)),
    st.tuples(st.just("weights"), IDS, IDS),
    st.tuples(st.just("state"), st.sampled_from(["k", "l"]), st.sampled_from(["1", "2"])),
    st.tuples(st.just("loops_version"), st.integers(0, 9)),
    st.tuples(st.just("read"), st.lists(IDS, max_size=4)),
)


def _truth(store: PostgresStore, ids: list[str]) -> tuple[object, ...]:
    """What the database holds for ``ids`` now (the reads that remember nothing)."""
    edges = [f"{a}-{b}" for a in ids for b in ids]
    store._flush()  # (the statistics a write transaction keeps until read, as arc_versions does)
    state = {k: store._query("SELECT value FROM bendscope_meta WHERE key = %s", ("state:" + k,)) for k in "kl"}
    versions = store._query("SELECT arc_version, loops_version FROM corpus")[0]
    return (
        SQLStore.get_nodes(store, ids),
        SQLStore.get_edges(store, edges),
        SQLStore.forwards(store, ids),
        SQLStore.node_loops(store, ids),
        {k: rows[0][0] if rows else None for k, rows in state.items()},
        (int(versions[0]), int(versions[1])),
    )


def _remembered(store: PostgresStore, ids: list[str]) -> tuple[object, ...]:
    edges = [f"{a}-{b}" for a in ids for b in ids]
    state = {k: store.get_state(k) for k in "kl"}
    return (store.get_nodes(ids), store.get_edges(edges), store.forwards(ids), store.node_loops(ids), state,
            store.arc_versions())  # fmt: skip


def _run(store: PostgresStore, op: tuple, tag: str, at: str) -> None:
    kind = op[0]
    if kind == "node":
        store.put_node(MemoryNode(tag + op[1], op[2], created_at=at, updated_at=at, recorded_at=at))
    elif kind == "edge" and store.get_nodes([tag + op[1], tag + op[2]]).keys() == {tag + op[1], tag + op[2]}:
        a, b = tag + op[1], tag + op[2]
        store.put_edge(MemoryEdge(f"{a}-{b}", a, b, op[3], created_at=at, recorded_at=at))
    elif kind == "drop_node":
        store.delete_node(tag + op[1])
    elif kind == "drop_edge":
        store.delete_edge(f"{tag}{op[1]}-{tag}{op[2]}")
    elif kind == "merge":
        store.put_forwards({tag + op[1]: tag + op[2]}, at)
    elif kind == "loops":
        members = tuple(sorted(tag + i for i in op[1] if store.get_node(tag + i) is not None))
        if len(members) >= 2:
            store.replace_loops([loop.id for loop in store.all_loops()], [LoopRecord(tag + "L", members, 1, False)])
    elif kind == "state":
        store.set_state(op[1], op[2])
    elif kind == "loops_version":
        store.set_loops_version(op[1])
    elif kind == "weights":
        store.set_weights({f"{tag}{op[1]}-{tag}{op[2]}": 0.5})


@pytest.fixture
def pg(postgres_url):
    store = PostgresStore(postgres_url, pool_size=2)
    yield store
    store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.lists(OPS, max_size=8), during=st.lists(OPS, max_size=16), fail=st.booleans(),
       tag=st.uuids().map(lambda u: u.hex[:6]))  # fmt: skip
def test_what_a_write_transaction_remembers_is_what_the_database_holds(pg, before, during, fail, tag):
    at = "2026-01-01T00:00:00.000Z"
    for op in before:  # (each its own transaction)
        _run(pg, op, tag, at)
    every = [tag + i for i in "abcd"]
    with contextlib.suppress(RuntimeError), pg.transaction():
        for op in during:
            _run(pg, op, tag, at)
            ids = [tag + i for i in op[1]] if op[0] == "read" else every
            assert _remembered(pg, ids) == _truth(pg, ids)
        assert _remembered(pg, every) == _truth(pg, every)
        if fail:
            raise RuntimeError("rolled back")
    with pg.transaction():  # (a new transaction remembers nothing of the last)
        assert _remembered(pg, every) == _truth(pg, every)


def test_records_remembered_are_handed_out_as_copies(pg):
    pg.put_node(MemoryNode("n", "text", metadata={"k": [1]}, created_at="t", updated_at="t", recorded_at="t"))
    with pg.transaction():
        pg.get_node("n").metadata["k"].append(2)  # type: ignore[union-attr]
        assert pg.get_node("n").metadata == {"k": [1]}  # type: ignore[union-attr]


def test_a_conversation_is_stored_with_a_few_statements_per_turn(pg, monkeypatch):
    """Each turn's node, its links and its entities' rows are read once for the whole call
    (before: every read of every item was a round trip, ~16 statements a turn)."""
    sent = [0]
    execute = psycopg.Cursor.execute

    def counted(self, *args, **kwargs):
        sent[0] += 1
        return execute(self, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    turns = [
        {"id": f"t{k}", "speaker": "Ann" if k % 2 else "Bob", "text": f"We met Carol at the lake, day {k}.",
         "time": "2026-05-01T10:00:00Z", "session": 1 + k // 20}
        for k in range(60)
    ]  # fmt: skip
    answer = Memory(pg).store_many({"turns": turns})
    assert len(answer["turns"]) == 60
    assert sent[0] <= 4 * len(turns)
