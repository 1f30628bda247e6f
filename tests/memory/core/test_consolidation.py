"""``consolidate``: decay, merging duplicates and pruning never change a loop —
checked against networkx on random graphs —, a dry run reports exactly what the real run then
does and writes nothing, decay composes across runs, merges re-point edges, and the CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.memory import InvalidInput, Memory
from bendscope.memory.core.consolidation import decayed, normalised, reaches
from bendscope.memory.core.records import MemoryEdge, MemoryNode, edge_id_for
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.core.test_loop_index import indexed, truth

ROOT = Path(__file__).resolve().parents[3]
NOW = "2026-12-02T00:00:00.000Z"
WORDS = ["rain", "Rain.", "floods", "crops", "prices", "rain "]


def at(days_ago: float) -> str:
    from datetime import datetime, timedelta

    moment = datetime(2026, 12, 2) - timedelta(days=days_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def fixed(moment: str = NOW):
    return lambda: moment


def put(store: Store, node_id: str, content: str, confidence: float, idle_days: float, **kw) -> None:
    stamp = at(idle_days)
    store.put_node(MemoryNode(node_id, content, confidence=confidence, created_at=stamp, updated_at=stamp, **kw))


def state(store: Store) -> tuple:
    nodes = store.get_nodes(store.node_ids())
    return (nodes, store.all_edges(), store.all_loops(), store.arc_versions(), store.get_state("consolidated_at"))


graphs = st.integers(2, 11).flatmap(
    lambda n: st.tuples(
        st.lists(
            st.tuples(st.sampled_from(WORDS), st.floats(0.0, 1.0), st.sampled_from([0.0, 3.0, 40.0, 400.0])),
            min_size=n,
            max_size=n,
        ),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from(["causal", "temporal", "related"])),
            max_size=3 * n,
        ),
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.sampled_from([0.05, 0.3, 0.9]), st.booleans())
def test_consolidation_never_changes_a_loop(graph, prune_below, merge):
    nodes, edges = graph
    store = InMemoryStore()
    for i, (content, confidence, idle) in enumerate(nodes):
        put(store, f"n{i}", f"{content} {i % 3}", confidence, idle)
    for k, (a, b, kind) in enumerate(edges):
        store.put_edge(MemoryEdge(f"e{k}", f"n{a}", f"n{b}", kind, created_at=NOW))
    memory = Memory(store, clock=fixed())
    before_loops = truth(store)
    before = state(store)
    arguments = {"prune_below": prune_below, "merge": merge}
    dry = memory.consolidate({**arguments, "dry_run": True})
    assert state(store) == before  # a dry run writes nothing
    real = memory.consolidate(arguments)
    drop = ("status", "dry_run")
    assert {k: v for k, v in dry.items() if k not in drop} == {k: v for k, v in real.items() if k not in drop}
    assert truth(store) == before_loops  # every loop: its members and κ
    assert indexed(store) == before_loops
    assert real["topology_before"] == real["topology_after"] and real["loops_unchanged"]
    in_loops = {n for loop, _ in before_loops for n in loop}
    for item in real["pruned"]["items"]:
        assert item["id"] not in in_loops and item["confidence"] < prune_below
    for item in real["kept_for_loops"]["items"]:
        assert item["id"] in in_loops
    left = store.get_nodes(store.node_ids())
    assert all(n.confidence >= prune_below or i in in_loops for i, n in left.items())
    if merge:  # no two nodes in no loop say the same
        free = [normalised(n.content) for i, n in left.items() if i not in in_loops]
        apart = {item["id"] for item in real["kept_apart"]["items"]}
        assert len(set(free)) == len(free) or apart


def test_a_dry_run_on_sqlite_writes_nothing(tmp_path):
    store = SQLiteStore(tmp_path / "m.sqlite3")
    for i in range(6):
        put(store, f"n{i}", "the same fact" if i < 3 else f"fact {i}", 0.5 if i else 0.01, 100.0)
    for i in range(3, 6):
        store.put_edge(MemoryEdge(f"e{i}", f"n{i}", f"n{3 + (i - 2) % 3}", "causal", created_at=NOW))
    memory = Memory(store, clock=fixed())
    with store.transaction():
        memory.loops.ready()
    before = state(store)
    dry = memory.consolidate({"dry_run": True, "prune_below": 0.1})  # (0.5 idle 93 days past the 7: 0.058)
    assert dry["merged"]["items"] == [{"into": "n1", "merged": ["n0", "n2"], "by": "content"}]
    assert dry["kept_for_loops"]["count"] == 3 and {i["would"] for i in dry["kept_for_loops"]["items"]} == {"prune"}
    assert state(store) == before
    real = memory.consolidate({"prune_below": 0.1})
    assert real["merged"] == dry["merged"] and real["status"] == "consolidated"
    assert [i["id"] for i in real["pruned"]["items"]] == ["n1"]  # (the merged fact, idle too)
    assert store.get_state("consolidated_at") == NOW and store.node_ids() == ["n3", "n4", "n5"]
    store.close()


def test_decay_composes_across_runs():
    node = MemoryNode("a", "x", confidence=0.8, created_at=at(100), updated_at=at(100))
    from bendscope.memory.core.consolidation import _time

    once = decayed(node, _time(NOW), None, 30.0, 7.0)
    assert math.isclose(once, 0.8 * 0.5 ** (93 / 30), abs_tol=1e-6)
    first = decayed(node, _time(at(50)), None, 30.0, 7.0)
    twice = decayed(replace(node, confidence=first), _time(NOW), _time(at(50)), 30.0, 7.0)
    assert math.isclose(twice, once, abs_tol=2e-6)
    fresh = MemoryNode("b", "x", confidence=0.8, created_at=at(3), updated_at=at(3))
    assert decayed(fresh, _time(NOW), None, 30.0, 7.0) == 0.8  # (not idle long enough)
    store = InMemoryStore()
    put(store, "a", "x", 0.8, 100.0)
    put(store, "b", "y", 0.8, 100.0)
    Memory(store, clock=fixed(at(50))).consolidate({"merge": False})
    report = Memory(store, clock=fixed()).consolidate({"merge": False})
    assert report["previous_run"] == at(50)
    assert math.isclose(store.get_node("a").confidence, once, abs_tol=2e-6)


def test_a_merge_re_points_edges_and_keeps_what_would_close_a_loop():
    store = InMemoryStore()
    memory = Memory(store, clock=fixed())
    put(store, "keep", "Rain floods the fields", 0.9, 1.0, access_count=2)
    put(store, "dup", "rain floods the fields.", 0.4, 1.0, access_count=3, metadata={"note": "kept"})
    for node_id in ("crops", "prices", "weather"):
        put(store, node_id, node_id, 0.5, 1.0)
    derived = edge_id_for("dup", "crops", "causal")
    store.put_edge(MemoryEdge(derived, "dup", "crops", "causal", 0.7, created_at=NOW))
    store.put_edge(MemoryEdge("own-id", "weather", "dup", "causal", 0.3, created_at=NOW))
    store.put_edge(MemoryEdge("kd", "keep", "dup", "related", created_at=NOW))
    store.put_edge(MemoryEdge("same", "keep", "prices", "causal", 0.2, created_at=NOW))
    store.put_edge(MemoryEdge("same2", "dup", "prices", "causal", 0.6, created_at=NOW))
    report = memory.consolidate({})
    assert report["merged"]["items"] == [{"into": "keep", "merged": ["dup"], "by": "content"}]
    merged = store.get_node("keep")
    assert (
        merged.access_count == 5
        and merged.confidence == 0.9
        and merged.metadata
        == {
            "merged_ids": ["dup"],
            "note": "kept",
        }
    )
    edges = {(e.id, e.source_id, e.target_id, e.weight) for e in store.all_edges()}
    assert edges == {
        (edge_id_for("keep", "crops", "causal"), "keep", "crops", 0.7),  # a derived id follows its ends
        ("own-id", "weather", "keep", 0.3),  # a given id stays
        ("same", "keep", "prices", 0.6),  # two of one type become one, the larger weight
    }
    # x and y say the same, but y → a → x: merged, they would close a loop
    store2 = InMemoryStore()
    for node_id, text in (("x", "the same"), ("y", "The same."), ("a", "between")):
        put(store2, node_id, text, 0.5, 1.0)
    store2.put_edge(MemoryEdge("ya", "y", "a", "causal", created_at=NOW))
    store2.put_edge(MemoryEdge("ax", "a", "x", "causal", created_at=NOW))
    report = Memory(store2, clock=fixed()).consolidate({})
    assert report["merged"]["count"] == 0 and store2.counts() == (3, 2)
    assert report["kept_apart"]["items"][0]["reason"].startswith("one reaches the other")
    assert reaches(store2, "y", "x") is True and reaches(store2, "x", "y") is False


class Vectors:
    """A stand-in embedder: fixed vectors by text."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed(self, texts):
        return [self.table.get(t, [0.0, 0.0, 1.0]) for t in texts]


def test_merging_by_embedding_similarity():
    store = InMemoryStore()
    put(store, "a", "heavy rain", 0.6, 1.0)
    put(store, "b", "a downpour", 0.5, 1.0)
    put(store, "c", "sunshine", 0.5, 1.0)
    table = {"heavy rain": [1.0, 0.1, 0.0], "a downpour": [0.98, 0.12, 0.0], "sunshine": [0.0, 1.0, 0.0]}
    report = Memory(store, clock=fixed(), embedder=Vectors(table)).consolidate({"similarity": 0.99})
    assert report["merged"]["items"] == [{"into": "a", "merged": ["b"], "by": "embedding"}]
    assert store.node_ids() == ["a", "c"] and report["rules"]["similarity"] == 0.99


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"dry_run": "yes"}, "dry_run must be true or false"),
        ({"half_life_days": 0}, "half_life_days must be above 0"),
        ({"prune_below": 2}, "prune_below must be at least 0 and at most 1"),
        ({"similarity": 0.1}, "similarity must be at least 0.5"),
        ({"idle_days": float("nan")}, "idle_days must be a number"),
        ({"merge": 1}, "merge must be true or false"),
    ],
)
def test_bad_arguments_change_nothing(arguments, message):
    store = InMemoryStore()
    put(store, "a", "x", 0.01, 100.0)
    before = state(store)
    with pytest.raises(InvalidInput, match=message):
        Memory(store, clock=fixed()).consolidate(arguments)
    assert state(store) == before


def test_the_cli_consolidates(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SQLiteStore(path) as store:
        put(store, "a", "an old fact", 0.02, 400.0)
        put(store, "b", "a fact", 0.9, 1.0)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    command = [sys.executable, "-m", "bendscope.memory", "consolidate", "--store", str(path)]
    dry = subprocess.run([*command, "--dry-run"], env=env, capture_output=True, text=True, timeout=120)
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["dry_run"] and report["pruned"]["items"][0]["id"] == "a"
    with SQLiteStore(path) as store:
        assert store.node_ids() == ["a", "b"]
    real = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert real.returncode == 0 and json.loads(real.stdout)["pruned"]["count"] == 1
    with SQLiteStore(path) as store:
        assert store.node_ids() == ["b"]
    bad = subprocess.run([*command, "--read-only"], env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "consolidate writes the store" in bad.stderr
