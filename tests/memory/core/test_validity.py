"""Time-valid facts: valid_from / valid_until on nodes and edges, invalidate_node /
invalidate_edge ending a fact without deleting it, the current graph by default and the graph
``as_of`` a past time (κ as of a date), the loop index following both writes and the clock,
and the fields carried by export, import and dumps — on every backend."""

from __future__ import annotations

import json

import pytest

from bendscope.memory import InvalidInput, Memory
from bendscope.memory.core.errors import NotFound
from bendscope.memory.io.dump import read_dump
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from tests.memory.core.test_loop_index import indexed, truth


class Clock:
    """A clock the test moves."""

    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def loop_memory(store: Store, clock: Clock) -> Memory:
    memory = Memory(store, clock=clock)
    memory.store_many(
        {
            "nodes": [{"id": i, "content": f"the {i} of the lake"} for i in ("algae", "shade", "plants", "release")],
            "edges": [
                {"id": "e1", "source_id": "algae", "target_id": "shade", "edge_type": "causal"},
                {"id": "e2", "source_id": "shade", "target_id": "plants", "edge_type": "causal"},
                {"id": "e3", "source_id": "plants", "target_id": "release", "edge_type": "causal"},
                {"id": "e4", "source_id": "release", "target_id": "algae", "edge_type": "causal"},
            ],
        }
    )
    return memory


def test_an_invalidated_edge_breaks_the_loop_today_but_not_as_of_before(store: Store):
    clock = Clock("2026-03-01T00:00:00.000Z")
    memory = loop_memory(store, clock)
    assert memory.analyze_topology({})["max_kappa"] == 1
    clock.now = "2026-06-01T00:00:00.000Z"
    answer = memory.invalidate_edge({"id": "e4"})
    assert answer["status"] == "invalidated" and answer["edge"]["valid_until"] == "2026-06-01T00:00:00.000Z"
    assert answer["topology"]["description"] == "breaks feedback loop"
    assert store.get_edge("e4") is not None  # (kept: not deleted)
    assert memory.analyze_topology({})["max_kappa"] == 0
    assert indexed(store) == []  # the loop index holds today's loops
    then = memory.analyze_topology({"as_of": "2026-04-01"})
    assert then["max_kappa"] == 1 and then["sccs"][0]["nodes"] == ["algae", "plants", "release", "shade"]
    known = memory.analyze_topology({"as_of": "2026-02-01"})  # (what we now know of then: from an unknown past)
    assert known["max_kappa"] == 1 and known["sccs"][0]["nodes"] == ["algae", "plants", "release", "shade"]
    before_recorded = memory.analyze_topology({"known_at": "2026-02-01"})
    assert before_recorded["sccs"] == [] and before_recorded["dag_nodes"] == []  # nothing was recorded yet
    today = memory.retrieve_context({"query": "algae lake", "limit": 4})
    past = memory.retrieve_context({"query": "algae lake", "limit": 4, "as_of": "2026-04-01"})
    assert today["topology"]["routing"] == "fast" and past["topology"]["routing"] == "deliberate"
    again = memory.invalidate_edge({"id": "e4"})
    assert again["status"] == "unchanged" and again["topology"]["description"] == "no topological change"
    reopened = memory.store_edge({"id": "e4", "source_id": "release", "target_id": "algae", "valid_until": None})
    assert reopened["topology"]["description"] == "creates feedback loop" and indexed(store) == truth(store)


def test_an_invalidated_node_takes_its_edges_out_of_the_present(store: Store):
    clock = Clock("2026-03-01T00:00:00.000Z")
    memory = loop_memory(store, clock)
    clock.now = "2026-05-01T00:00:00.000Z"
    answer = memory.invalidate_node({"id": "plants", "at": "2026-04-15"})
    assert answer["node"]["valid_until"] == "2026-04-15T00:00:00.000Z"
    assert answer["topology"]["description"] == "breaks feedback loop" and indexed(store) == []
    assert "plants" not in memory.analyze_topology({})["dag_nodes"]
    assert memory.analyze_topology({"as_of": "2026-04-01"})["max_kappa"] == 1
    found = memory.retrieve_context({"query": "plants lake"})
    assert "plants" not in [r["id"] for r in found["results"]]
    with pytest.raises(NotFound):
        memory.invalidate_node({"id": "ghost"})


def test_the_loop_index_follows_the_clock_past_a_validity_bound(store: Store):
    """An edge that stops holding at a future time: today's loops hold it, and once the time
    has passed, the index is made anew (no write needed in between)."""
    clock = Clock("2026-03-01T00:00:00.000Z")
    memory = loop_memory(store, clock)
    memory.store_edge({"id": "e4", "source_id": "release", "target_id": "algae", "valid_until": "2026-07-01"})
    assert len(indexed(store)) == 1
    answer = memory.retrieve_context({"query": "algae shade plants release", "limit": 4})
    assert answer["topology"]["routing"] == "deliberate"
    clock.now = "2026-08-01T00:00:00.000Z"
    answer = memory.retrieve_context({"query": "algae shade plants release", "limit": 4})
    assert answer["topology"]["routing"] == "fast" and indexed(store) == []
    assert memory.analyze_topology({"as_of": "2026-06-30"})["max_kappa"] == 1
    memory.store_node({"id": "later", "content": "begins next year", "valid_from": "2027-01-01"})
    assert "later" not in memory.analyze_topology({})["dag_nodes"]
    clock.now = "2027-02-01T00:00:00.000Z"
    assert "later" in memory.analyze_topology({})["dag_nodes"]


def test_validity_is_checked_and_carried_by_export_import_and_dumps():
    clock = Clock("2026-03-01T00:00:00.000Z")
    memory = loop_memory(InMemoryStore(), clock)
    for arguments, message in (
        ({"content": "x", "valid_from": "2026-02-01", "valid_until": "2026-01-01"}, "must come after valid_from"),
        ({"content": "x", "valid_from": "yesterday"}, "valid_from must be an ISO 8601 timestamp"),
        ({"content": "x", "valid_until": "2026-02-30"}, "not a date that exists"),
    ):
        with pytest.raises(InvalidInput, match=message):
            memory.store_node(arguments)
    with pytest.raises(InvalidInput, match="as_of must be"):
        memory.analyze_topology({"as_of": "last week"})
    memory.store_node({"id": "old", "content": "an old fact", "valid_from": "2020-01-01", "valid_until": "2021-01-01"})
    with pytest.raises(InvalidInput, match=r"cannot end at 2019-06-01T00:00:00\.000Z, before it began"):
        memory.invalidate_node({"id": "old", "at": "2019-06-01"})
    clock.now = "2026-04-01T00:00:00.000Z"
    memory.invalidate_edge({"id": "e1", "at": "2026-03-15T12:00:00Z"})
    document = memory.export_document()
    copy = Memory(InMemoryStore(), clock=clock)
    copy.import_document(json.dumps(document))
    assert copy.store.get_node("old").valid_until == "2021-01-01T00:00:00.000Z"
    assert copy.store.get_edge("e1").valid_until == "2026-03-15T12:00:00.000Z"
    dumped = read_dump(line.encode() for line in memory.dump_lines())
    nodes, edges = dumped.nodes, dumped.edges
    assert {e.id: e.valid_until for e in edges}["e1"] == "2026-03-15T12:00:00.000Z"
    assert {n.id: n.valid_from for n in nodes}["old"] == "2020-01-01T00:00:00.000Z"
    assert copy.analyze_topology({})["max_kappa"] == 0
    assert copy.analyze_topology({"as_of": "2026-03-10"})["max_kappa"] == 1  # (recorded 03-01, ended 03-15)


def test_a_year_a_month_and_an_offset_are_moments_too():
    """Historical facts often have a year only, and agents send offsets: a year or a month is
    its first day, an offset is converted to UTC; what does not exist is still refused."""
    memory = loop_memory(InMemoryStore(), Clock("2026-03-01T00:00:00.000Z"))
    peak = memory.store_node({"id": "peak", "content": "Cod landings peaked", "valid_from": "1968"})
    assert peak["node"]["valid_from"] == "1968-01-01T00:00:00.000Z"
    month = memory.store_node({"id": "june", "content": "A June fact", "valid_from": "2020-06"})
    assert month["node"]["valid_from"] == "2020-06-01T00:00:00.000Z"
    shifted = memory.store_node({"id": "cet", "content": "A fact", "valid_from": "2020-01-01T00:00:00+02:00"})
    assert shifted["node"]["valid_from"] == "2019-12-31T22:00:00.000Z"
    assert memory.analyze_topology({"as_of": "1969"})["max_kappa"] >= 0
    for bad in ("2020-13", "0001-01-01T00:00:00+02:00", "196", "2020-06-01T10:00+02:00"):
        with pytest.raises(InvalidInput):
            memory.store_node({"content": "x", "valid_from": bad})


def test_an_ended_edge_stored_again_says_it_has_ended_and_how_to_make_it_hold():
    clock = Clock("2026-03-01T00:00:00.000Z")
    memory = loop_memory(InMemoryStore(), clock)
    memory.invalidate_edge({"id": "e4"})
    clock.now = "2026-03-02T00:00:00.000Z"
    again = memory.store_edge({"id": "e4", "source_id": "release", "target_id": "algae", "edge_type": "causal"})
    assert again["status"] == "unchanged" and "valid_until null" in again["note"]
    assert memory.analyze_topology({})["max_kappa"] == 0
    held = memory.store_edge({"id": "e4", "source_id": "release", "target_id": "algae", "edge_type": "causal",
                              "valid_until": None})  # fmt: skip
    assert held["status"] == "updated" and "note" not in held
    assert memory.analyze_topology({})["max_kappa"] == 1
    plain = memory.store_edge({"id": "e1", "source_id": "algae", "target_id": "shade", "edge_type": "causal"})
    assert plain["status"] == "unchanged" and "note" not in plain  # (a holding edge: nothing to say)
