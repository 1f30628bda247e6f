"""A namespace's agent learns nothing of what another namespace holds by choosing ids: an id of
a form the memory derives (a key's, a content's, a turn's) names only a node its own namespace
holds — the same refusal whether another namespace holds it or nobody does — and on a server
for one namespace (``sealed``) an explicit id taken elsewhere is refused without naming a
namespace, as ``history`` answers such an id as one that does not exist; on every backend."""

from __future__ import annotations

import re

import pytest

from bendscope.memory import InvalidInput, NotFound
from bendscope.memory.core.conversations.turns import turn_id_for
from bendscope.memory.core.names import key_id, scoped_content_id
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

SAID = "My therapist Dr Okafor says I should see Zanzibar."


TURN = {"speaker": "Alice", "text": "Back from Zanzibar.", "time": "2024-10-12T10:05:00Z", "session": 1}


def _alice(memory) -> str:
    turn = {"id": "a-1", "speaker": "Alice", "text": SAID, "time": "2024-10-12T10:00:00Z", "session": 1}
    call(memory, "store_many", {"namespace": "alice", "turns": [turn]})
    told = call(memory, "store_many", {"namespace": "alice", "turns": [TURN]})["turns"][0]["id"]
    call(memory, "store_node", {"namespace": "alice", "id": "diary-1", "content": "Alice's diary"})
    assert call(memory, "query_graph", {"namespace": "alice", "node_ids": [key_id("alice", "Zanzibar")]})["count"] == 1
    return str(told)


def _refusal(write, node_id: str) -> str:
    with pytest.raises(InvalidInput) as caught:
        write({"nodes": [{"id": node_id, "content": "probe"}, {"id": "x", "content": "y", "confidence": 9}]})
    return re.sub(re.escape(node_id), "ID", str(caught.value))


@pytest.mark.parametrize("sealed", [True, False])
def test_derived_ids_of_another_namespace_answer_as_free_ones(store, sealed):
    memory = memory_on(store)
    held_turn = _alice(memory)
    before = store.counts()
    bob = memory.within("bob", sealed=sealed)
    held = [key_id("alice", "Zanzibar"), key_id("alice", "Dr Okafor"), scoped_content_id("alice", SAID)]
    free = [key_id("alice", "Paris"), key_id("bob", "Zanzibar"), scoped_content_id("alice", "nothing said")]
    answers = {_refusal(lambda given: call(bob, "store_many", given), i) for i in held + free}
    answers |= {_refusal(bob.store_many, i) for i in held + free}
    assert len(answers) == 1, answers
    (answer,) = answers
    assert "another namespace" not in answer and "name a new node by key" in answer
    for node_id in held + free:
        with pytest.raises(InvalidInput) as caught:
            call(bob, "store_node", {"id": node_id, "content": "probe"})
        assert "has the form of an id the memory derives" in str(caught.value)
    assert call(memory, "query_graph", {"namespace": "alice", "node_ids": [held_turn]})["count"] == 1
    for turn_id in (held_turn, turn_id_for("alice", 1, 1, TURN)):  # (held, free)
        with pytest.raises(InvalidInput) as caught:
            call(bob, "store_many", {"turns": [{**TURN, "id": turn_id}]})
        assert "has the form of an id the memory derives" in str(caught.value)
    assert store.counts() == before
    # its own derived ids it may name: the node it holds
    made = call(bob, "store_node", {"key": "Zanzibar"})["id"]
    assert call(bob, "store_node", {"id": made, "content": "Zanzibar, an island"})["status"] == "updated"


def test_a_sealed_namespace_is_told_an_id_is_taken_never_by_whom(store):
    memory = memory_on(store)
    _alice(memory)
    sealed, open_ = memory.within("bob", sealed=True), memory.within("bob")
    for node_id in ("diary-1", "a-1"):
        with pytest.raises(NotFound, match=f"no node or edge with id '{node_id}'"):
            call(sealed, "history", {"id": node_id})
        with pytest.raises(InvalidInput) as caught:
            call(sealed, "store_node", {"id": node_id, "content": "mine"})
        assert "namespace" not in str(caught.value) and f"the id '{node_id}' is taken" in str(caught.value)
        with pytest.raises(InvalidInput, match="another namespace"):  # (its owner may see everything)
            call(open_, "store_node", {"id": node_id, "content": "mine"})
    turn = {"id": "a-1", "speaker": "Bob", "text": "Hi", "time": "2024-10-12T11:00:00Z", "session": 1}
    with pytest.raises(InvalidInput) as caught:
        call(sealed, "store_many", {"turns": [turn]})
    assert "namespace" not in str(caught.value) and "the id 'a-1' is taken" in str(caught.value)
    assert call(memory, "query_graph", {"node_ids": ["diary-1"]})["nodes"][0]["content"] == "Alice's diary"


def test_a_sealed_namespace_follows_no_merge_into_another(store):
    memory = memory_on(store)
    _alice(memory)
    store.put_forwards({"old-diary": "diary-1"}, "2024-10-13T00:00:00Z")
    sealed = memory.within("bob", sealed=True)
    with pytest.raises(NotFound) as caught:
        call(sealed, "delete_node", {"id": "old-diary"})
    assert "diary-1" not in str(caught.value)
    with pytest.raises(InvalidInput, match="merged into 'diary-1'"):  # (its owner may see everything)
        call(memory.within("bob"), "store_node", {"id": "old-diary", "content": "mine"})
