"""Defects a review of issues 20 and 21 found, each with the case that showed it: every test
here failed on the code before its fix."""

from __future__ import annotations

import pytest

from bendscope.memory import Memory
from bendscope.memory.core.records import MemoryEdge, MemoryNode
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.core.test_loop_index import indexed, truth


class Clock:
    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def test_a_merge_keeps_the_validity_of_the_edges_it_moves(store: Store):
    """(An ended edge Y → O came back as Y → K, current, and every later consolidate raised
    "would have changed a loop".)"""
    clock = Clock("2026-01-01T00:00:00.000Z")
    memory = Memory(store, clock=clock)
    memory.store_many(
        {
            "nodes": [{"id": "K", "content": "the same fact", "confidence": 0.9},
                      {"id": "O", "content": "The same fact."}, {"id": "Y", "content": "between"}],
            "edges": [{"id": "k-y", "source_id": "K", "target_id": "Y", "edge_type": "causal"},
                      {"id": "y-o", "source_id": "Y", "target_id": "O", "edge_type": "causal"}],
        }
    )  # fmt: skip
    clock.now = "2026-02-01T00:00:00.000Z"
    memory.invalidate_edge({"id": "y-o"})
    clock.now = "2026-02-02T00:00:00.000Z"
    report = memory.consolidate({"idle_days": 1000})
    assert report["merged"]["items"] == [{"into": "K", "merged": ["O"], "by": "content"}]
    moved = store.get_edge("y-o")
    assert (moved.source_id, moved.target_id, moved.valid_until) == ("Y", "K", "2026-02-01T00:00:00.000Z")
    assert memory.analyze_topology({})["max_kappa"] == 0 and indexed(store) == truth(store, clock.now) == []
    assert memory.consolidate({"idle_days": 1000})["status"] == "consolidated"  # (and again)


def test_facts_of_different_times_are_not_merged():
    """(A current fact was merged into an ended one of the same words and vanished.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    memory.store_node({"id": "K", "content": "revenue share", "confidence": 0.9, "valid_until": "2026-06-01"})
    memory.store_node({"id": "O", "content": "Revenue share."})
    report = memory.consolidate({"idle_days": 1000})
    assert report["merged"]["count"] == 0
    assert [r["id"] for r in memory.retrieve_context({"query": "revenue share"})["results"]] == ["O"]


def test_a_merge_never_closes_a_cycle_of_an_acyclic_type():
    """(K derived_from Y derived_from O with K and O duplicates became K ⇄ Y.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    memory.store_many(
        {
            "nodes": [{"id": "K", "content": "the finding"}, {"id": "O", "content": "The finding."},
                      {"id": "Y", "content": "a summary"}],
            "edges": [{"source_id": "K", "target_id": "Y", "edge_type": "derived_from"},
                      {"source_id": "Y", "target_id": "O", "edge_type": "derived_from"}],
        }
    )  # fmt: skip
    report = memory.consolidate({"idle_days": 1000})
    assert report["merged"]["count"] == 0
    assert report["kept_apart"]["items"][0]["reason"].startswith("one derives from the other (derived_from)")


def test_expansion_does_not_walk_through_a_fact_that_no_longer_holds():
    """(a – b – c with b invalidated: c came back at hop 2, via b.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    memory.store_many(
        {
            "nodes": [{"id": "a", "content": "alpha start"}, {"id": "b", "content": "middle"},
                      {"id": "c", "content": "far end"}],
            "edges": [{"source_id": "a", "target_id": "b"}, {"source_id": "b", "target_id": "c"}],
        }
    )  # fmt: skip
    memory.invalidate_node({"id": "b", "at": "2026-01-01"})
    found = memory.retrieve_context({"query": "alpha", "expand_hops": 2})
    assert [r["id"] for r in found["results"]] == ["a"]


def test_a_read_only_store_whose_index_is_behind_the_clock_searches_for_its_loops(tmp_path):
    """(A loop whose member had ended was brought whole, the ended node with it, and routed to
    deliberation, on a store opened read-only after the bound had passed.)"""
    path = tmp_path / "m.sqlite3"
    clock = Clock("2026-12-02T00:00:00.000Z")
    with SQLiteStore(path) as store:
        memory = Memory(store, clock=clock)
        memory.store_many(
            {
                "nodes": [{"id": "a", "content": "alpha"}, {"id": "b", "content": "beta", "valid_until": "2026-12-03"},
                          {"id": "c", "content": "gamma"}],
                "edges": [{"source_id": "a", "target_id": "b", "edge_type": "causal"},
                          {"source_id": "b", "target_id": "c", "edge_type": "causal"},
                          {"source_id": "c", "target_id": "a", "edge_type": "causal"}],
            }
        )  # fmt: skip
        assert len(store.all_loops()) == 1
    clock.now = "2026-12-05T00:00:00.000Z"
    with SQLiteStore(path, read_only=True) as store:
        found = Memory(store, clock=clock).retrieve_context({"query": "why does alpha keep growing", "detail": "full"})
        assert "b" not in [r["id"] for r in found["results"]] and found["routing"] == "fast"
        assert found["loops"] == [] and found["stats"]["loop_members_added"] == 0


def test_an_outcome_names_a_retrieval_whose_nodes_went_since():
    """(learn_from_outcome failed with "no node with id 'b'" after consolidate pruned b.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-01-01T00:00:00.000Z"))
    memory.store_many({"nodes": [{"id": "a", "content": "word one"}, {"id": "b", "content": "word two",
                                                                       "confidence": 0.01}]})  # fmt: skip
    retrieval = memory.retrieve_context({"query": "word"})["retrieval_id"]
    memory.consolidate({"prune_below": 0.05})
    learned = memory.learn_from_outcome({"retrieval_id": retrieval, "outcome": "success"})
    assert learned["gone"] == ["b"] and [n["id"] for n in learned["nodes"]] == ["a"]


def test_an_outcome_on_node_ids_leaves_out_edges_that_no_longer_hold():
    """(An invalidated b → a still counted: κ 1, deliberate, and its weight moved.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    memory.store_many(
        {
            "nodes": [{"id": "a", "content": "a"}, {"id": "b", "content": "b"}],
            "edges": [{"id": "ab", "source_id": "a", "target_id": "b", "edge_type": "causal", "weight": 0.5},
                      {"id": "ba", "source_id": "b", "target_id": "a", "edge_type": "causal", "weight": 0.5}],
        }
    )  # fmt: skip
    memory.invalidate_edge({"id": "ba"})
    learned = memory.learn_from_outcome({"node_ids": ["a", "b"], "outcome": "success"})
    assert (learned["decision"], learned["max_kappa"]) == ("fast", 0)
    assert [e["id"] for e in learned["edges"]] == ["ab"] and memory.store.get_edge("ba").weight == 0.5


def test_timestamps_are_kept_in_one_form_and_the_end_of_the_calendar_does_not_crash_consolidate():
    """(A created_at of 9999-12-31 made every consolidate raise OverflowError; "…00Z" and
    "…00.000Z" compared as different times.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    stored = memory.store_node({"content": "far future", "created_at": "9999-12-31T00:00:00Z"})
    assert stored["node"]["created_at"] == "9999-12-31T00:00:00.000Z"
    assert memory.consolidate({})["status"] == "consolidated"
    with pytest.raises(Exception, match="not a date that exists"):
        memory.store_node({"content": "x", "created_at": "2026-13-01T00:00:00Z"})


def test_a_retrieval_reads_no_members_of_a_loop_too_large_to_bring(tmp_path):
    """(Every member of every loop the window touched was read — with node_types, every node.)"""
    store = SQLiteStore(tmp_path / "m.sqlite3", durable=False)
    with store.transaction():
        for i in range(300):
            store.put_node(MemoryNode(f"n{i:03d}", f"ring fact {i}", created_at="2026-01-01T00:00:00.000Z"))
        for i in range(300):
            store.put_edge(MemoryEdge(f"e{i}", f"n{i:03d}", f"n{(i + 1) % 300:03d}", "causal"))
    memory = Memory(store)
    read: list[list[str]] = []
    original = store.get_loops
    store.get_loops = lambda ids: read.append(sorted(ids)) or original(ids)  # type: ignore[method-assign]
    asked = {"query": "why does ring fact 7 keep coming back", "limit": 3, "node_types": ["semantic"]}
    found = memory.retrieve_context(asked)
    assert found["loops"][0]["node_count"] == 300 and found["loops"][0]["whole"] is False and read == []
    store.close()


# ---------------------------------------------------------------- an adversarial run over MCP


def test_years_before_1000_are_kept_in_four_digits():
    """(0999-06-01 was kept as 999-06-01…: it sorted wrongly, and neither the store nor a dump
    of it could read it back.)"""
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    memory.store_node({"id": "old", "content": "gamma", "valid_until": "0500-01-01"})
    assert memory.store.get_node("old").valid_until == "0500-01-01T00:00:00.000Z"
    assert memory.retrieve_context({"query": "gamma"})["results"] == []  # (it ended in 500)
    memory.store_node({"id": "old", "node_type": "episodic"})  # (the record can still be changed)
    copy = Memory(InMemoryStore())
    copy.import_dump(line.encode() for line in memory.dump_lines())
    assert copy.store.get_node("old").valid_until == "0500-01-01T00:00:00.000Z"
    found = memory.analyze_topology({"query": "gamma", "as_of": "0400-01-01"})
    assert found["dag_nodes"] == ["old"]  # (valid then: from an unknown past until 500)
    assert memory.analyze_topology({"query": "gamma", "known_at": "0400-01-01"})["dag_nodes"] == []  # (not known)


def test_analyze_topology_with_a_query_analyses_the_loop_it_touches_whole():
    """(A 120-node loop answered routing fast with a recommendation saying deliberate.)"""
    store = InMemoryStore()
    memory = Memory(store, clock=Clock("2026-12-01T00:00:00.000Z"))
    nodes = [{"id": f"n{i:03d}", "content": f"ring member {i}" + (" anchor" if i in (5, 60) else "")}
             for i in range(120)]  # fmt: skip
    edges = [
        {"source_id": f"n{i:03d}", "target_id": f"n{(i + 1) % 120:03d}", "edge_type": "causal"} for i in range(120)
    ]
    memory.store_many({"nodes": nodes, "edges": edges})
    found = memory.analyze_topology({"query": "anchor", "limit": 2})
    assert found["routing"] == "deliberate" and len(found["sccs"][0]["nodes"]) == 120 and found["loops_cut"] == []
    retrieved = memory.retrieve_context({"query": "what keeps the anchor going round", "limit": 2})
    assert retrieved["routing"] == "deliberate" and retrieved["loops"][0]["node_count"] == 120
    assert retrieved["loops"][0]["whole"] is False


def test_analyze_topology_of_node_ids_leaves_out_nodes_not_valid_then():
    memory = Memory(InMemoryStore(), clock=Clock("2026-12-01T00:00:00.000Z"))
    memory.store_many({"nodes": [{"id": i, "content": i} for i in "abc"]})
    memory.invalidate_node({"id": "c"})
    assert memory.analyze_topology({"node_ids": ["a", "b", "c"]})["dag_nodes"] == ["a", "b"]
    assert memory.analyze_topology({"node_ids": ["a", "b"], "as_of": "2020-01-01"})["dag_nodes"] == ["a", "b"]
    assert memory.analyze_topology({"node_ids": ["a", "b"], "known_at": "2020-01-01"})["dag_nodes"] == []


def test_consolidate_refuses_similarity_without_an_embedder():
    from bendscope.memory import InvalidInput

    with pytest.raises(InvalidInput, match="similarity merges by embedding"):
        Memory(InMemoryStore()).consolidate({"similarity": 0.5, "dry_run": True})
