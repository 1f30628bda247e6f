"""κ on every write: store_edge, delete_edge and delete_node answer with what they
did to the loops around the nodes they touch. Checked against two analyses of the whole
store (before and after the write) and, for single edges, against the editor's previews
(``bendscope.kappa.preview``: other code, the same words)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.kappa import analyze, preview_edge_impact, preview_edge_removal
from bendscope.memory import InvalidInput, Memory
from bendscope.memory.core.errors import Conflict
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore

KINDS = ("causal", "temporal", "related", "supports")


def memory_on(store: Store) -> Memory:
    ticks = itertools.count()
    return Memory(store, clock=lambda: f"2026-12-02T00:00:{next(ticks) % 60:02d}.000Z")


def full(memory: Memory) -> dict:
    """The whole store's topology (causal and temporal edges), by the engine."""
    store = memory.store
    edges = [{"source": e.source_id, "target": e.target_id, "kind": e.edge_type} for e in store.all_edges()]
    return analyze(store.node_ids(), edges)


def expected(before: dict, after: dict, touched: set[str]) -> tuple[set, set]:
    """The loops a write touched, from the two whole-store analyses: before, those holding a
    touched node and those merged into a loop holding one; after, those holding a touched
    node and what is left of the loops before."""
    old = [frozenset(s["nodes"]) for s in before["sccs"]]
    new = [frozenset(s["nodes"]) for s in after["sccs"]]
    old_touched = [s for s in old if s & touched]
    new_touched = [s for s in new if s & touched]
    old_members = frozenset().union(*old_touched)
    new_members = frozenset().union(*new_touched)
    b = {s for s in old if s in old_touched or s <= new_members}
    a = {s for s in new if s in new_touched or s <= old_members}
    kb = {frozenset(s["nodes"]): s["kappa"] for s in before["sccs"]}
    ka = {frozenset(s["nodes"]): s["kappa"] for s in after["sccs"]}
    return {(s, kb[s]) for s in b}, {(s, ka[s]) for s in a}


def reported(topology: dict) -> tuple[set, set]:
    def loops(side: str) -> set:
        return {(frozenset(s["nodes"]), s["kappa"]) for s in topology[side]}

    return loops("loops_before"), loops("loops_after")


writes = st.lists(
    st.tuples(
        st.sampled_from(["add", "add", "add", "remove", "drop"]),
        st.integers(0, 7),
        st.integers(0, 7),
        st.sampled_from(KINDS),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(writes)
def test_every_write_reports_exactly_what_it_did_to_the_loops(steps):
    memory = memory_on(InMemoryStore())
    for i in range(8):
        memory.store_node({"id": f"n{i}", "content": f"fact {i}"})
    for op, a, b, kind in steps:
        source, target = f"n{a}", f"n{b}"
        nodes = set(memory.store.node_ids())
        if op == "add":
            if source not in nodes or target not in nodes:
                continue
            if kind in ("causal", "temporal") and source == target:  # refused: a self-loop is no loop
                with pytest.raises(InvalidInput, match="to itself is not a feedback loop"):
                    memory.store_edge({"source_id": source, "target_id": target, "edge_type": kind})
                continue
            before = full(memory)
            if kind in ("causal", "temporal") and source != target:
                old_edges = [{"source": e.source_id, "target": e.target_id, "kind": e.edge_type}
                             for e in memory.store.all_edges()]  # fmt: skip
                preview = preview_edge_impact(sorted(nodes), old_edges, source, target)
            else:
                preview = None
            answer = memory.store_edge({"source_id": source, "target_id": target, "edge_type": kind})
            touched = {source, target}
            if preview is not None and answer["status"] == "created":
                assert answer["topology"]["description"] == preview["description"], (steps, answer)
                if preview["merged_scc_nodes"]:  # (the loop it closed or grew: its κ)
                    assert answer["topology"]["kappa_after"] == preview["scc_kappa_after"]
        elif op == "remove":
            candidates = [e for e in memory.store.all_edges() if e.source_id == source]
            if not candidates:
                continue
            edge = candidates[b % len(candidates)]
            before = full(memory)
            old_edges = [{"source": e.source_id, "target": e.target_id, "kind": e.edge_type}
                         for e in memory.store.all_edges()]  # fmt: skip
            parallel = [
                e for e in memory.store.all_edges()
                if e.id != edge.id and e.directed and (e.source_id, e.target_id) == (edge.source_id, edge.target_id)
            ]  # fmt: skip
            answer = memory.delete_edge(edge.id)
            touched = {edge.source_id, edge.target_id}
            if edge.directed and not parallel and edge.source_id != edge.target_id:
                removal = preview_edge_removal(sorted(nodes), old_edges, edge.source_id, edge.target_id)
                assert answer["topology"]["description"] == removal["description"], (steps, answer)
        else:
            if source not in nodes:
                continue
            before = full(memory)
            answer = memory.delete_node(source)
            touched = {source}
        after = full(memory)
        want_before, want_after = expected(before, after, touched)
        got_before, got_after = reported(answer["topology"])
        assert (got_before, got_after) == (want_before, want_after), (steps, answer)
        topo = answer["topology"]
        assert topo["kappa_before"] == max((k for _, k in want_before), default=0)
        assert topo["kappa_after"] == max((k for _, k in want_after), default=0)
        assert topo["changed"] == (topo["description"] != "no topological change")


def test_the_words_of_each_case_on_sqlite(tmp_path):
    """A worked sequence on the embedded store: each write's answer says what it did."""
    memory = memory_on(SQLiteStore(tmp_path / "m.db"))
    for name in "abcdef":
        memory.store_node({"id": name, "content": f"fact {name}"})

    def add(a: str, b: str, kind: str = "causal") -> dict:
        return memory.store_edge({"source_id": a, "target_id": b, "edge_type": kind})["topology"]

    assert add("a", "b")["description"] == "no topological change"
    made = add("b", "a")
    assert made["description"] == "creates feedback loop" and (made["kappa_before"], made["kappa_after"]) == (0, 1)
    assert made["loops_after"] == [{"kappa": 1, "approximate": False, "node_count": 2, "nodes": ["a", "b"]}]
    add("c", "d")
    add("d", "c")
    add("b", "c")
    merged = add("d", "a", "temporal")
    assert merged["description"] == "merges feedback loops" and len(merged["loops_before"]) == 2
    assert add("a", "e", "related")["description"] == "no topological change"  # (an association)
    assert add("a", "e")["description"] == "no topological change"
    assert add("e", "b")["description"] == "enlarges loop"
    edge = next(e for e in memory.store.all_edges() if (e.source_id, e.target_id) == ("e", "b"))
    assert memory.delete_edge(edge.id)["topology"]["description"] == "shrinks loop"
    gone = memory.delete_node("d")["topology"]
    assert gone["description"] == "shrinks loop" and gone["loops_after"][0]["nodes"] == ["a", "b"]
    broken = memory.delete_node("b")["topology"]
    assert broken["description"] == "breaks feedback loop" and broken["loops_after"] == []
    memory.store.close()


def test_a_derived_from_edge_that_would_close_a_cycle_is_refused_naming_it():
    memory = memory_on(InMemoryStore())
    for name in "abc":
        memory.store_node({"id": name, "content": f"fact {name}"})
    memory.store_edge({"source_id": "a", "target_id": "b", "edge_type": "derived_from"})
    memory.store_edge({"source_id": "b", "target_id": "c", "edge_type": "derived_from"})
    before = memory.store.counts()
    with pytest.raises(Conflict, match=r"would close the cycle 'c' → 'a' → 'b' → 'c'"):
        memory.store_edge({"source_id": "c", "target_id": "a", "edge_type": "derived_from"})
    with pytest.raises(Conflict, match="to itself"):
        memory.store_edge({"source_id": "a", "target_id": "a", "edge_type": "derived_from"})
    assert memory.store.counts() == before
    # another type may close it; and a server may declare no type acyclic
    assert memory.store_edge({"source_id": "c", "target_id": "a", "edge_type": "related"})["status"] == "created"
    free = Memory(memory.store, acyclic_types=())
    assert free.store_edge({"source_id": "c", "target_id": "a", "edge_type": "derived_from"})["status"] == "created"
    with pytest.raises(ValueError, match="unknown edge type 'nonsense'"):
        Memory(memory.store, acyclic_types=("nonsense",))


def test_store_many_lists_ids_says_the_kappa_change_and_refuses_a_derived_cycle_whole():
    memory = memory_on(InMemoryStore())
    answer = memory.store_many(
        {
            "nodes": [{"id": "a", "content": "fact a"}, {"id": "b", "content": "fact b"}],
            "edges": [{"source_id": "a", "target_id": "b", "edge_type": "causal"}],
        }
    )
    assert [item["id"] for item in answer["nodes"]] == ["a", "b"] and "content" not in str(answer)
    assert answer["topology"]["description"] == "no topological change"
    closed = memory.store_many({"edges": [{"source_id": "b", "target_id": "a", "edge_type": "causal"}]})
    assert closed["topology"]["description"] == "creates feedback loop"
    assert (closed["topology"]["kappa_before"], closed["topology"]["kappa_after"]) == (0, 1)
    with pytest.raises(InvalidInput, match=r"edges\[1\]: the derived_from edge 'b' → 'a' would close the cycle"):
        memory.store_many(
            {
                "edges": [
                    {"source_id": "a", "target_id": "b", "edge_type": "derived_from"},
                    {"source_id": "b", "target_id": "a", "edge_type": "derived_from"},
                ]
            }
        )
    assert memory.store.counts() == (2, 2)


def test_a_largest_kappa_that_may_be_an_upper_bound_is_marked_approximate():
    """κ before is the largest of the loops touched: that of a loop past the work budget (an
    upper bound) was said with no marker, as if exact; an exact loop of the same κ makes it exact."""
    from bendscope.memory.core.records import LoopRecord
    from bendscope.memory.core.write_effect import effect

    big, small = LoopRecord("a", ("a", "b", "c"), 3, approximate=True), LoopRecord("x", ("x", "y"), 1)
    said = effect([big, small], [small])
    assert (said["kappa_before"], said["kappa_after"], said.get("approximate")) == (3, 1, True)
    assert "approximate" not in effect([small], [small]) and "approximate" not in effect([], [])
    assert "approximate" not in effect([big, LoopRecord("d", ("d", "e"), 3)], [])
