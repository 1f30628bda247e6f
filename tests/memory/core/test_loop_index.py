"""The loop index (``memory.loop_index``): after any sequence of writes — single edges, batches,
deletions, re-pointed and re-typed edges, writes that go round ``Memory`` — the index holds
exactly the nontrivial SCCs of the store's causal and temporal edges with their κ, checked
against networkx's SCCs and the κ engine on the whole store. Each update path is exercised:
one arc at a time, a batch searched together, the search budget's fall-back to a rebuild."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.kappa import analyze
from bendscope.memory import InvalidInput, Memory
from bendscope.memory.core.errors import Conflict, NotFound
from bendscope.memory.core.loop_index import LoopIndex
from bendscope.memory.core.records import MemoryEdge
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore

KINDS = ("causal", "temporal", "related", "causal", "causal")
N = 9


def memory_on(store: Store, budget: int | None = None) -> Memory:
    ticks = itertools.count()
    memory = Memory(store, clock=lambda: f"2026-12-02T00:00:{next(ticks) % 60:02d}.000Z")
    if budget is not None:
        memory.loops.search_budget = budget
    return memory


def truth(store: Store, at: str | None = None) -> list[tuple[tuple[str, ...], int]]:
    """The loops of the whole store (``at``: of the nodes and edges valid then): networkx's
    SCCs, κ by the engine."""
    graph = nx.DiGraph()
    nodes = store.get_nodes(store.node_ids())
    graph.add_nodes_from(nodes)
    edges = store.all_edges()
    if at is not None:
        edges = [
            e for e in edges if e.valid_at(at) and nodes[e.source_id].valid_at(at) and nodes[e.target_id].valid_at(at)
        ]
    graph.add_edges_from((e.source_id, e.target_id) for e in edges if e.directed and e.source_id != e.target_id)
    sccs = sorted(tuple(sorted(c)) for c in nx.strongly_connected_components(graph) if len(c) > 1)
    kappas = analyze(store.node_ids(), [{"source": e.source_id, "target": e.target_id, "kind": e.edge_type}
                                        for e in edges])  # fmt: skip
    by_nodes = {tuple(s["nodes"]): s["kappa"] for s in kappas["sccs"]}
    assert sorted(by_nodes) == sccs
    return [(s, by_nodes[s]) for s in sccs]


def indexed(store: Store) -> list[tuple[tuple[str, ...], int]]:
    loops = store.all_loops()
    for loop in loops:
        assert loop.id == loop.nodes[0] and list(loop.nodes) == sorted(loop.nodes)
        assert store.node_loops(loop.nodes) == dict.fromkeys(loop.nodes, loop.id)
    arcs, version = store.arc_versions()
    assert arcs == version, "the index is not marked current"
    return sorted((loop.nodes, loop.kappa) for loop in loops)


steps = st.lists(
    st.tuples(
        st.sampled_from(["edge", "edge", "edge", "batch", "remove", "node", "retype", "many", "around"]),
        st.integers(0, N - 1),
        st.integers(0, N - 1),
        st.sampled_from(KINDS),
        st.lists(st.tuples(st.integers(0, N - 1), st.integers(0, N - 1)), min_size=0, max_size=14),
    ),
    min_size=1,
    max_size=30,
)


def apply(memory: Memory, step: tuple) -> None:
    op, a, b, kind, pairs = step
    store = memory.store
    ids = store.node_ids()
    if not ids:
        return
    source, target = ids[a % len(ids)], ids[b % len(ids)]
    edges = store.all_edges()
    try:
        if op == "edge":
            memory.store_edge({"source_id": source, "target_id": target, "edge_type": kind})
        elif op == "batch":
            memory.store_many(
                {
                    "edges": [
                        {"source_id": ids[x % len(ids)], "target_id": ids[y % len(ids)], "edge_type": "causal"}
                        for x, y in pairs
                    ]
                }
            )
        elif op == "remove" and edges:
            memory.delete_edge(edges[a % len(edges)].id)
        elif op == "node":
            memory.delete_node(source)
        elif op == "retype" and edges:
            edge = edges[b % len(edges)]
            memory.store_edge({"id": edge.id, "source_id": target, "target_id": edge.target_id, "edge_type": kind})
        elif op == "many":
            node_ids = [ids[x % len(ids)] for x, _ in pairs[:2]]
            edge_ids = sorted({edges[y % len(edges)].id for _, y in pairs[2:5]}) if edges else []
            if node_ids or edge_ids:
                memory.delete_many({"node_ids": node_ids, "edge_ids": edge_ids})
        elif op == "around":  # a write that goes round Memory: the next write through it rebuilds
            with store.transaction():
                store.put_edge(
                    MemoryEdge(f"round-{a}-{b}", source, target, "causal", created_at="2026-12-02T00:00:00.000Z")
                )
    except (InvalidInput, Conflict, NotFound):
        pass


@pytest.mark.parametrize("budget", [None, 3])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_the_index_holds_exactly_the_loops_of_the_store(budget, sequence):
    memory = memory_on(InMemoryStore(), budget)
    memory.store_many({"nodes": [{"id": f"n{i}", "content": f"fact {i}"} for i in range(N)]})
    for step in sequence:
        apply(memory, step)
        if step[0] == "around":
            with memory.store.transaction():
                stale = len(set(memory.store.arc_versions())) == 2
                assert memory.loops.ready() == stale
        assert indexed(memory.store) == truth(memory.store), sequence


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_the_index_on_sqlite(tmp_path_factory, sequence):
    store = SQLiteStore(tmp_path_factory.mktemp("loops") / "m.sqlite3", durable=False)
    try:
        memory = memory_on(store)
        memory.store_many({"nodes": [{"id": f"n{i}", "content": f"fact {i}"} for i in range(N)]})
        for step in sequence:
            apply(memory, step)
            if step[0] == "around":
                with store.transaction():
                    memory.loops.ready()
            assert indexed(store) == truth(store), sequence
    finally:
        store.close()


def test_the_index_on_every_backend(store: Store):
    """A fixed sequence through every update path, on each backend (PostgreSQL included)."""
    memory = memory_on(store)
    memory.store_many({"nodes": [{"id": f"n{i}", "content": f"fact {i}"} for i in range(12)]})
    ring = [{"source_id": f"n{i}", "target_id": f"n{(i + 1) % 6}", "edge_type": "causal"} for i in range(6)]
    memory.store_many({"edges": ring})  # (a batch of 6 arcs: one by one)
    assert indexed(store) == truth(store) == [(tuple(f"n{i}" for i in range(6)), 1)]
    chords = [{"source_id": f"n{i}", "target_id": f"n{(i + 3) % 6}", "edge_type": "temporal"} for i in range(6)]
    second = [{"source_id": f"n{6 + i}", "target_id": f"n{6 + (i + 1) % 6}", "edge_type": "causal"} for i in range(6)]
    memory.store_many({"edges": chords + second})  # (12 arcs: searched together)
    assert indexed(store) == truth(store) and len(truth(store)) == 2
    answer = memory.store_edge({"source_id": "n0", "target_id": "n6", "edge_type": "causal"})
    assert answer["topology"]["description"] == "no topological change"
    answer = memory.store_edge({"source_id": "n9", "target_id": "n3", "edge_type": "causal"})
    assert answer["topology"]["description"] == "merges feedback loops"
    assert indexed(store) == truth(store) and len(truth(store)) == 1
    memory.delete_node("n6")
    assert indexed(store) == truth(store)
    edge_id = next(e.id for e in store.all_edges() if (e.source_id, e.target_id) == ("n0", "n1"))
    memory.store_edge({"id": edge_id, "source_id": "n0", "target_id": "n1", "edge_type": "related"})
    assert indexed(store) == truth(store)
    with store.transaction():
        store.delete_edge(next(e.id for e in store.all_edges() if e.source_id == "n1"))
    memory.store_node({"id": "n0", "content": "fact 0, again"})  # (no edge: the index waits)
    assert store.arc_versions()[0] != store.arc_versions()[1]
    memory.store_edge({"source_id": "n10", "target_id": "n11", "edge_type": "causal"})  # rebuilt first
    assert indexed(store) == truth(store)


def test_a_failed_write_leaves_the_index_as_it_was(tmp_path):
    store = SQLiteStore(tmp_path / "m.sqlite3")
    memory = memory_on(store)
    memory.store_many({"nodes": [{"id": f"n{i}", "content": f"fact {i}"} for i in range(3)]})
    memory.store_many({"edges": [{"source_id": "n0", "target_id": "n1", "edge_type": "causal"},
                                 {"source_id": "n1", "target_id": "n0", "edge_type": "causal"}]})  # fmt: skip
    before = (indexed(store), store.arc_versions())
    with pytest.raises(InvalidInput):
        memory.store_many({"edges": [{"source_id": "n1", "target_id": "n2", "edge_type": "causal"},
                                     {"source_id": "n2", "target_id": "n0", "edge_type": "causal"},
                                     {"source_id": "n2", "target_id": "n0", "weight": -1}]})  # fmt: skip
    assert (indexed(store), store.arc_versions()) == before
    store.close()


def test_a_rebuild_writes_only_what_differs():
    store = InMemoryStore()
    memory = memory_on(store)
    memory.store_many({"nodes": [{"id": f"n{i}", "content": f"fact {i}"} for i in range(4)]})
    memory.store_many({"edges": [{"source_id": "n0", "target_id": "n1", "edge_type": "causal"},
                                 {"source_id": "n1", "target_id": "n0", "edge_type": "causal"}]})  # fmt: skip
    with store.transaction():
        assert LoopIndex(store).rebuild()[0] == LoopIndex(store).rebuild()[1]
