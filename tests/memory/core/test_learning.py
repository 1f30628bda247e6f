"""The agent's loop closed: retrieval ids, learn_from_outcome (the rule, its answer,
its refusals), the outcome metrics kept in the store (surviving a restart), and reading a
retrieved region in the order of its condensation."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kappa_helpers import BUSINESS

from bendscope.memory import InvalidInput, Memory
from bendscope.memory.core.errors import NotFound
from bendscope.memory.core.learning import RATE, TARGETS, learned, learned_weight
from bendscope.memory.core.records import OUTCOMES
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.core.test_service import BUSINESS_TEXT

unit = st.floats(0.0, 1.0, allow_nan=False)


def memory_on(store: Store) -> Memory:
    ticks = itertools.count()
    return Memory(store, clock=lambda: f"2026-12-02T00:{next(ticks) // 60 % 60:02d}:{next(ticks) % 60:02d}.000Z")


def business(memory: Memory) -> None:
    memory.store_many(
        {
            "nodes": [{"id": i, "content": text} for i, text in BUSINESS_TEXT.items()],
            "edges": [{"source_id": s, "target_id": t, "edge_type": "causal"} for s, t in BUSINESS]
            + [{"source_id": "company", "target_id": "founded-2020", "edge_type": "temporal"}],
        }
    )


# ---------------------------------------------------------------- the rule
@given(unit, st.sampled_from(OUTCOMES))
def test_the_rule_is_bounded_and_moves_toward_the_outcome(c, outcome):
    after = learned(c, outcome)
    assert 0.0 <= after <= 1.0
    assert abs(after - TARGETS[outcome]) <= abs(c - TARGETS[outcome]) + 1e-12
    assert math.isclose(after, c + RATE * (TARGETS[outcome] - c), abs_tol=1e-12)


@given(unit, unit, st.sampled_from(OUTCOMES))
def test_the_rule_is_monotone(a, b, outcome):
    low, high = sorted((a, b))
    assert learned(low, outcome) <= learned(high, outcome)
    ranked = [learned(a, o) for o in ("failure", "timeout", "partial", "success")]
    assert ranked == sorted(ranked)


@given(unit, st.sampled_from(OUTCOMES))
def test_repeated_identical_reports_converge(c, outcome):
    for _ in range(200):
        c = learned(c, outcome)
    assert abs(c - TARGETS[outcome]) < 1e-12


@given(st.floats(0.0, 1e6, allow_nan=False), st.sampled_from(OUTCOMES))
def test_weights_stay_in_range(w, outcome):
    after = learned_weight(w, outcome)
    assert 0.0 <= after <= max(w, 1.0)
    if outcome == "success" and w >= 1.0:
        assert after == w


# ---------------------------------------------------------------- the tool
def test_learning_from_a_retrieval_on_every_backend(store: Store):
    memory = memory_on(store)
    business(memory)
    answer = memory.retrieve_context({"query": "market share revenue"})
    assert answer["retrieval_id"].startswith("retrieval-") and answer["topology"]["routing"] == "deliberate"
    returned = [r["id"] for r in answer["results"]]
    learned_answer = memory.learn_from_outcome(
        {"retrieval_id": answer["retrieval_id"], "outcome": "success", "deliberated": True, "iterations": 3}
    )
    assert learned_answer["decision"] == "deliberate" and learned_answer["routing"] == "deliberate"
    assert learned_answer["max_kappa"] == 1 and learned_answer["max_iterations"] == 2
    assert [n["id"] for n in learned_answer["nodes"]] == sorted(returned)
    for item in learned_answer["nodes"]:
        assert item["confidence_before"] == 0.5 and math.isclose(item["confidence_after"], 0.6)
    stored = store.get_nodes(returned)
    assert all(math.isclose(stored[i].confidence, 0.6) for i in returned)
    causal = {(e["source_id"], e["target_id"]) for e in learned_answer["edges"]}
    assert ("product-quality", "market-share") in causal and all(
        e["weight_before"] == 1.0 and e["weight_after"] == 1.0 for e in learned_answer["edges"]
    )  # (a success keeps a full-strength weight)
    failure = memory.learn_from_outcome({"node_ids": ["revenue", "r-and-d"], "outcome": "failure"})
    assert failure["decision"] == "fast" and failure["retrieval_id"] is None  # (no loop between the two)
    assert [e["weight_after"] for e in failure["edges"]] == [pytest.approx(0.8)]
    metrics = memory.get_metrics()["outcomes"]
    assert metrics["count"] == 2
    assert metrics["by_decision"]["deliberate"]["outcomes"]["success"] == 1
    assert metrics["by_decision"]["fast"]["outcomes"]["failure"] == 1
    assert metrics["iterations"]["p50"] == 3.0 and metrics["iterations"]["over_budget"] == 1


def test_bad_reports_are_refused_and_write_nothing():
    store = InMemoryStore()
    memory = memory_on(store)
    business(memory)
    rid = memory.retrieve_context({"query": "market share"})["retrieval_id"]
    before = (store.get_nodes(store.node_ids()), store.all_edges(), store.outcome_groups())
    for arguments, error, message in (
        ({"retrieval_id": rid}, InvalidInput, "outcome must be one of success, partial, failure, timeout"),
        ({"retrieval_id": rid, "outcome": "win"}, InvalidInput, "got 'win'"),
        ({"outcome": "success"}, InvalidInput, "give retrieval_id"),
        ({"retrieval_id": "retrieval-00", "outcome": "success"}, NotFound, "no retrieval 'retrieval-00' is kept"),
        ({"retrieval_id": "r1", "outcome": "success"}, InvalidInput, "retrieval_id must be an id"),
        ({"retrieval_id": 7, "outcome": "success"}, InvalidInput, "retrieval_id must be a non-empty string"),
        ({"node_ids": ["revenue", "ghost"], "outcome": "success"}, NotFound, "no node with id 'ghost'"),
        ({"retrieval_id": rid, "outcome": "success", "iterations": -1}, InvalidInput, "iterations must be from 0"),
        ({"retrieval_id": rid, "outcome": "success", "routing": "fast", "deliberated": True}, InvalidInput,
         "cannot have deliberated"),
        ({"retrieval_id": rid, "outcome": "success", "routing": "slow"}, InvalidInput, "routing must be one of"),
        ({"retrieval_id": rid, "outcome": "success", "deliberated": "yes"}, InvalidInput, "true or false"),
        ({"node_ids": [f"x{i}" for i in range(1001)], "outcome": "success"}, InvalidInput, "at most 1,000"),
    ):  # fmt: skip
        with pytest.raises(error, match=message):
            memory.learn_from_outcome(arguments)
    assert (store.get_nodes(store.node_ids()), store.all_edges(), store.outcome_groups()) == before


def test_unnecessary_deliberation_and_deliberation_only_when_kappa_is_positive():
    memory = memory_on(InMemoryStore())
    business(memory)
    flat = memory.retrieve_context({"query": "founded", "expand_hops": 0})
    assert flat["topology"]["routing"] == "fast"
    looped = memory.retrieve_context({"query": "market share revenue"})
    memory.learn_from_outcome({"retrieval_id": flat["retrieval_id"], "outcome": "success"})
    memory.learn_from_outcome({"retrieval_id": flat["retrieval_id"], "outcome": "partial", "deliberated": True,
                               "iterations": 2})  # fmt: skip
    memory.learn_from_outcome({"retrieval_id": looped["retrieval_id"], "outcome": "timeout", "deliberated": True,
                               "iterations": 9})  # fmt: skip
    memory.learn_from_outcome({"retrieval_id": looped["retrieval_id"], "outcome": "failure", "routing": "fast"})
    # a deliberation that took one iteration: a single pass would have answered (counted although κ > 0)
    memory.learn_from_outcome({"retrieval_id": looped["retrieval_id"], "outcome": "failure", "deliberated": True,
                               "iterations": 1})  # fmt: skip
    metrics = memory.get_metrics()["outcomes"]
    assert looped["routing"] == "deliberate"
    unnecessary = metrics["unnecessary_deliberation"]
    assert (unnecessary["count"], unnecessary["of"], unnecessary["ratio"]) == (2, 5, 0.4)
    assert (unnecessary["at_kappa_0"], unnecessary["in_one_iteration"], unnecessary["met"]) == (1, 1, False)
    assert metrics["deliberation_by_kappa"] == {
        "deliberated_at_kappa_0": 1,
        "deliberated_at_kappa_positive": 2,
        "single_pass_at_kappa_0": 1,
        "single_pass_at_kappa_positive": 1,
        "only_when_kappa_positive": False,
    }
    assert metrics["by_kappa"]["0"]["count"] == 2 and metrics["by_kappa"]["1"]["success_rate"] == 0.0
    assert metrics["iterations"]["against_budget"] == 2 and metrics["iterations"]["over_budget"] == 1
    assert metrics["iterations"]["share_of_budget_p95"] == 4.5  # 9 iterations of a budget of 2


def test_outcomes_survive_a_restart(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SQLiteStore(path) as store:
        memory = memory_on(store)
        business(memory)
        rid = memory.retrieve_context({"query": "market share revenue"})["retrieval_id"]
        memory.learn_from_outcome({"retrieval_id": rid, "outcome": "success", "deliberated": True, "iterations": 2})
        before = memory.get_metrics()["outcomes"]
    with SQLiteStore(path) as store:
        again = Memory(store)
        assert again.get_metrics()["outcomes"] == before and before["count"] == 1
        assert again.learn_from_outcome({"retrieval_id": rid, "outcome": "partial"})["decision"] == "deliberate"


def test_retrieval_ids_derive_from_what_was_retrieved():
    a, b = memory_on(InMemoryStore()), memory_on(InMemoryStore())
    business(a)
    business(b)
    first = a.retrieve_context({"query": "market share"})
    again = a.retrieve_context({"query": "market share"})
    other = b.retrieve_context({"query": "market share"})
    assert first["retrieval_id"] == again["retrieval_id"] == other["retrieval_id"]
    assert json.dumps(first) == json.dumps(again)
    assert a.retrieve_context({"query": "revenue"})["retrieval_id"] != first["retrieval_id"]
    assert a.store.get_retrievals([first["retrieval_id"]])[first["retrieval_id"]].count == 2
    looked = a.analyze_topology({"query": "market share"})  # (only looks: no retrieval kept)
    assert looked["routing"] == "deliberate"
    read_only = InMemoryStore(read_only=True)
    assert Memory(read_only).retrieve_context({"query": "x"})["retrieval_id"] is None
