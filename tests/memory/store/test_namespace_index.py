"""A namespace is read by an index on every store, not by reading the whole store: the nodes
of a namespace (``Store.namespace_ids``) are those whose ``metadata.namespace`` is that name —
the same as reading every node — through writes, moves, removals and a rolled-back
transaction; SQLite and PostgreSQL answer from their index ``nodes_by_namespace``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.memory.core.errors import InvalidInput
from bendscope.memory.core.records import MemoryEdge, MemoryNode
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.postgres import PostgresStore
from bendscope.memory.store.scoped import ScopedView
from bendscope.memory.store.sqlite import SQLiteStore

T = "2026-12-06T10:00:00.000Z"
SPACES = ["alice", "bob", "", None, 5, ["alice"], {"x": 1}]


def uses_the_index(store: Store) -> bool:
    """Whether the store's reading of a namespace is planned on its index."""
    if isinstance(store, SQLiteStore):
        plan = store._query(f"EXPLAIN QUERY PLAN SELECT id FROM nodes WHERE {store.NAMESPACE} = ? ORDER BY id", ("a",))
        return any("nodes_by_namespace" in str(row) for row in plan)
    assert isinstance(store, PostgresStore)
    with store.transaction():
        store._run("SET LOCAL enable_seqscan = off")
        plan = store._query(f"EXPLAIN SELECT id FROM nodes WHERE {store.NAMESPACE} = %s ORDER BY id", ("a",))
    return any("nodes_by_namespace" in str(row) for row in plan)


def _scan(store: Store, namespace: str) -> list[str]:
    return Store.namespace_ids(store, namespace)  # (the reading of every node)


def _node(node_id: str, space: Any) -> MemoryNode:
    metadata = {} if space is None else {"namespace": space}
    return MemoryNode(node_id, f"fact {node_id}", metadata=metadata, created_at=T, updated_at=T, recorded_at=T)


def test_every_store_indexes_its_namespaces(store):
    for i, space in enumerate(SPACES * 2):
        store.put_node(_node(f"n{i}", space))
    store.put_node(_node("n0", "bob"))  # (moved from alice to bob)
    store.put_node(_node("n1", None))  # (bob to none)
    store.delete_node("n7")
    store.put_node(_node("nul", "bob"))
    store.put_node(MemoryNode("nul", "content without one", metadata={"namespace": "bob", "k": "a\x00b"},
                              created_at=T, updated_at=T, recorded_at=T))  # fmt: skip
    with pytest.raises(RuntimeError), store.transaction():
        store.put_node(_node("n2", "alice"))
        store.put_node(_node("late", "alice"))
        raise RuntimeError("rolled back")
    for space in ("alice", "bob", "", "5", "x"):
        assert store.namespace_ids(space) == _scan(store, space)
    assert store.namespace_ids("alice") == [] and store.namespace_ids("bob") == ["n0", "n8", "nul"]
    if not isinstance(store, InMemoryStore):
        assert uses_the_index(store)


def test_a_namespace_is_read_without_reading_the_store(store, monkeypatch):
    """Its nodes, pages, edges and counts, as before, without every node id of the store."""
    for i in range(6):
        store.put_node(_node(f"n{i}", "alice" if i % 2 else "bob"))
    store.put_edge(MemoryEdge("e", "n1", "n3", "causal", created_at=T, recorded_at=T))
    store.put_edge(MemoryEdge("f", "n0", "n1", "related", created_at=T, recorded_at=T))  # (across: never seen)
    view = ScopedView(store, "alice")
    monkeypatch.setattr(type(store), "node_ids", lambda self: pytest.fail("read every node id"))
    assert view.node_ids() == ["n1", "n3", "n5"] and view.counts() == (3, 1)
    assert [n.id for n in view.list_nodes(limit=2, offset=1)] == ["n3", "n5"]
    assert [e.id for e in view.all_edges()] == ["e"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writes=st.lists(st.tuples(st.integers(0, 7), st.sampled_from(SPACES), st.booleans()), max_size=25))
def test_the_index_reads_as_every_node_does(writes):
    """Any writes and removals: the in-memory index answers as reading every node does."""
    store = InMemoryStore()
    for number, space, remove in writes:
        if remove:
            store._drop_node(f"n{number}")
        else:
            store.put_node(_node(f"n{number}", space))
    for space in ("alice", "bob", ""):
        assert store.namespace_ids(space) == _scan(store, space)


def test_a_node_whose_metadata_holds_a_number_json_does_not_is_found_in_its_namespace(store):
    """Metadata holding NaN or an infinity (as Python's json writes them; the memory's own
    writes refuse them, a store's caller may not): SQLite's JSON functions refuse it, so its
    node is read apart and found in its namespace, as in memory; PostgreSQL's jsonb refuses
    it, so the write is refused with a reason and changes nothing."""
    values = {"nan": float("nan"), "inf": float("inf"), "ninf": float("-inf"), "one": 1.0}
    store.put_node(_node("seen", "alice"))
    for node_id, value in values.items():
        made = MemoryNode(node_id, f"fact {node_id}", metadata={"namespace": "alice", "score": value},
                          created_at=T, updated_at=T, recorded_at=T)  # fmt: skip
        if isinstance(store, PostgresStore) and value != 1.0:
            with pytest.raises(InvalidInput, match="refused a value"):
                store.put_node(made)
            continue
        store.put_node(made)
    found = ["one", "seen"] if isinstance(store, PostgresStore) else ["inf", "nan", "ninf", "one", "seen"]
    assert store.namespace_ids("alice") == _scan(store, "alice") == found
    assert ScopedView(store, "alice").node_ids() == found and store.namespace_ids("bob") == []
    if not isinstance(store, InMemoryStore):
        assert uses_the_index(store)
