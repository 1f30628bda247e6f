"""Conversations and facts kept apart by namespace, whoever writes: a call without a namespace
(the whole store's owner) never takes over a namespace's turns or moves a node out of its
namespace, no edge joins two namespaces, a turn never takes the id of a fact, and a wrong
turn is named by its place in the call."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bendscope.memory import InvalidInput
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

TURNS = [
    {"speaker": "Caroline", "text": "Hi Mel, I met Jon in Paris.", "time": "2023-05-08", "session": 1},
    {"speaker": "Melanie", "text": "Nice, Caroline!", "time": "2023-05-08", "session": 1},
]


def _held(store: Any) -> tuple[Any, ...]:
    return sorted(repr(n.to_dict()) for n in store.get_nodes(store.node_ids()).values()), store.all_edges()


def _namespaces(store: Any) -> dict[str, str | None]:
    return {n.id: n.metadata.get("namespace") for n in store.get_nodes(store.node_ids()).values()}


def test_turns_written_without_a_namespace_never_take_over_a_namespaces_turns(store):
    memory = memory_on(store)
    a = call(memory, "store_many", {"namespace": "a", "turns": TURNS})["turns"]
    b = call(memory, "store_many", {"namespace": "b", "turns": TURNS})["turns"]
    mine = call(memory, "store_many", {"turns": TURNS})["turns"]
    assert [t["status"] for t in a + b + mine] == ["created"] * 6
    assert len({t["id"] for t in a + b + mine}) == 6
    where = _namespaces(store)
    assert [where[t["id"]] for t in a + b + mine] == ["a", "a", "b", "b", None, None]
    for namespace in ("a", "b"):
        turns = call(memory, "query_graph", {"namespace": namespace, "node_type": "episodic"})["nodes"]
        assert sorted(t["id"] for t in turns) == sorted(t["id"] for t in (a if namespace == "a" else b))
        assert [t["metadata"]["turn"] for t in sorted(turns, key=lambda t: t["metadata"]["turn"])] == [1, 2]
    for edge in store.all_edges():  # (each namespace's chain and mentions are its own)
        assert where[edge.source_id] == where[edge.target_id], edge
    again = call(memory, "store_many", {"turns": TURNS})["turns"]
    assert [t["status"] for t in again] == ["unchanged", "unchanged"]


def test_a_write_without_a_namespace_keeps_a_node_in_its_namespace(store):
    memory = memory_on(store)
    call(memory, "store_node", {"namespace": "alice", "id": "s1", "content": "Alice's secret"})
    assert call(memory, "store_node", {"id": "s1", "metadata": {"x": 1}})["status"] == "updated"
    assert store.get_node("s1").metadata == {"namespace": "alice", "x": 1}
    assert [n["id"] for n in call(memory, "query_graph", {"namespace": "alice"})["nodes"]] == ["s1"]
    before = _held(store)
    for metadata, said in (
        ({"namespace": "bob"}, "'s1' is in namespace 'alice'"),
        ({"namespace": 5}, "metadata.namespace: namespace must be a non-empty string"),
        ({"namespace": " x"}, "metadata.namespace: namespace must not begin or end"),
    ):
        with pytest.raises(InvalidInput, match=said):
            call(memory, "store_node", {"id": "s1", "metadata": metadata})
    with pytest.raises(InvalidInput, match=r"metadata\.namespace"):
        call(memory, "store_node", {"id": "new", "content": "n", "metadata": {"namespace": 5}})
    assert _held(store) == before
    # a new node given a namespace by name is in it
    call(memory, "store_node", {"id": "s2", "content": "Alice's other", "metadata": {"namespace": "alice"}})
    assert sorted(n["id"] for n in call(memory, "query_graph", {"namespace": "alice"})["nodes"]) == ["s1", "s2"]


def test_no_edge_joins_two_namespaces(store):
    memory = memory_on(store)
    call(memory, "store_many", {"namespace": "alice", "nodes": [{"id": "a1", "content": "A1"},
                                                                {"id": "a2", "content": "A2"}]})  # fmt: skip
    call(memory, "store_many", {"namespace": "bob", "nodes": [{"id": "b1", "content": "B1"}]})
    call(memory, "store_node", {"id": "u1", "content": "U1"})
    before = _held(store)
    for source, target in (("a2", "b1"), ("b1", "a1"), ("u1", "a1"), ("a1", "u1")):
        with pytest.raises(InvalidInput, match="an edge joins two nodes of one namespace"):
            call(memory, "store_edge", {"source_id": source, "target_id": target, "edge_type": "causal"})
    with pytest.raises(InvalidInput, match=r"edges\[1\]: .*one namespace"):
        edges = [{"source_id": "a1", "target_id": "a2", "edge_type": "causal"},
                 {"source_id": "a2", "target_id": "b1", "edge_type": "causal"}]  # fmt: skip
        call(memory, "store_many", {"edges": edges})
    assert _held(store) == before
    # within one namespace (or none), the owner links as before
    call(memory, "store_edge", {"source_id": "a1", "target_id": "a2", "edge_type": "causal"})
    answer = call(memory, "store_edge", {"source_id": "a2", "target_id": "a1", "edge_type": "causal"})
    assert answer["topology"]["loops_after"][0]["nodes"] == ["a1", "a2"]


def test_a_turn_never_takes_the_id_of_a_fact_or_of_another_turn_of_the_call(store):
    memory = memory_on(store)
    call(memory, "store_node", {"id": "fact", "content": "The Paris Agreement was adopted in 2015."})
    before = _held(store)
    turn = {**TURNS[0], "id": "same"}
    with pytest.raises(InvalidInput, match=r"turns\[0\]: the id 'same' is given to one of the call's nodes too"):
        call(memory, "store_many", {"nodes": [{"id": "same", "content": "A fact"}], "turns": [turn]})
    with pytest.raises(InvalidInput, match=r"turns\[1\]: the id 'fact' is held by a node that is not a turn"):
        call(memory, "store_many", {"turns": [TURNS[1], {**TURNS[0], "id": "fact"}]})
    with pytest.raises(InvalidInput, match=r"turns\[1\]: the id 'same' is given to turns\[0\] too"):
        call(memory, "store_many", {"turns": [turn, {**TURNS[1], "id": "same"}]})
    assert _held(store) == before


def test_a_turn_whose_id_another_namespace_holds_is_named_once(store):
    memory = memory_on(store)
    call(memory, "store_node", {"namespace": "alice", "id": "zz", "content": "Alice's"})
    before = _held(store)
    with pytest.raises(InvalidInput) as refused:
        call(memory, "store_many", {"namespace": "bob", "turns": [TURNS[0], {**TURNS[1], "id": "zz"}]})
    message = str(refused.value)
    assert "1 of the items are wrong: turns[1]: the id 'zz' is held by a node of another namespace" in message
    assert "no node with id" not in message
    assert _held(store) == before


@pytest.mark.parametrize(
    ("session", "said"),
    [
        (None, "session is required"),
        (1.5, "session must be a name or a whole number, got a number, 1.5"),
        (True, "session must be a name or a whole number, got a boolean, true"),
        ({}, "session must be a name or a whole number, got an object, {}"),
        ("  ", "session must be a name or a whole number, got an empty name"),
    ],
)
def test_a_wrong_session_says_what_it_got(store, session, said):
    memory = memory_on(store)
    turn = {**TURNS[0], "session": session}
    if session is None:
        del turn["session"]
    with pytest.raises(InvalidInput, match=r"turns\[0\]: " + re.escape(said)):
        call(memory, "store_many", {"turns": [turn]})
    with pytest.raises(InvalidInput, match="got an empty string"):
        call(memory, "store_many", {"turns": [{**TURNS[0], "id": ""}]})


def test_a_turn_said_before_the_one_it_follows_takes_its_place(store):
    memory = memory_on(store)
    late = {"id": "L", "speaker": "Ann", "text": "Lunch at noon?", "time": "2023-05-08T10:05:00Z", "session": "s1"}
    early = {"id": "E", "speaker": "Bob", "text": "Morning!", "time": "2023-05-08T10:00:00Z", "session": "s1"}
    last = {"id": "Z", "speaker": "Bob", "text": "Sure.", "time": "2023-05-08T10:09:00Z", "session": "s1"}
    other = {"id": "O", "speaker": "Bob", "text": "Another day.", "time": "2023-05-01T09:00:00Z", "session": "s0"}

    def held() -> tuple[Any, ...]:
        nodes = call(memory, "query_graph", {"node_type": "episodic"})["nodes"]
        edges = call(memory, "list_edges", {"edge_type": "temporal"})["edges"]
        return sorted((n["id"], n["metadata"]["turn"]) for n in nodes), sorted(
            (e["source_id"], e["target_id"]) for e in edges
        )

    call(memory, "store_many", {"turns": [late, last]})
    answer = call(memory, "store_many", {"turns": [other, early]})  # (said before the turns stored)
    assert [t["status"] for t in answer["turns"]] == ["created", "created"]
    assert held() == ([("E", 1), ("L", 2), ("O", 1), ("Z", 3)], [("E", "L"), ("L", "Z")])
    # a turn given again with another time takes its place by that time
    call(memory, "store_many", {"turns": [{**early, "time": "2023-05-08T10:07:00Z"}]})
    assert held() == ([("E", 2), ("L", 1), ("O", 1), ("Z", 3)], [("E", "Z"), ("L", "E")])


def test_a_namespaces_turn_sent_without_the_namespace_is_refused_by_its_namespace(store):
    """The refusal names the turn and its namespace — no entity or edge the caller never sent."""
    memory = memory_on(store)
    turn = {"id": "S1:1", "speaker": "Jo", "text": "Hi Zoe!", "time": "2023-05-08", "session": 1}
    call(memory, "store_many", {"namespace": "jo-zoe", "turns": [turn]})
    before = _held(store)
    for sent in (turn, {**turn, "text": "Hi Zoe!!"}):
        with pytest.raises(InvalidInput) as caught:
            call(memory, "store_many", {"turns": [sent]})
        assert str(caught.value) == (
            "nothing was stored: 1 of the items are wrong: turns[0]: turn 'S1:1' belongs to namespace 'jo-zoe'; "
            "give namespace 'jo-zoe' to write to its conversation (or the turn another id)"
        )
        assert _held(store) == before
