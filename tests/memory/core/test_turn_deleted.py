"""Erasing a turn erases the entities that turn alone made: an entity node the conversation made
(its key alone, nothing of an agent's) that no remaining turn mentions goes with it and the
answer lists it in ``forgotten``; an agent's own keyed node stays — on every backend."""

from __future__ import annotations

from bendscope.memory.core.names import key_id
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

TURNS = [
    {"id": "F1", "speaker": "Ana", "text": "Hey Mel! Lunch at Luigi's? Bring Ottoline.", "time": "2024-10-12T10:00:00Z",
     "session": 1},
    {"id": "F2", "speaker": "Bo", "text": "Sure, Ana, with Ottoline.", "time": "2024-10-12T10:01:00Z",
     "session": 1},
]  # fmt: skip


def test_deleting_a_turn_forgets_the_entities_it_alone_made(store):
    memory = memory_on(store)
    call(memory, "store_node", {"namespace": "fg", "key": "Mel", "content": "Mel, Ana's sister"})
    call(memory, "store_many", {"namespace": "fg", "turns": TURNS})
    luigi, mel, ottoline = (key_id("fg", name) for name in ("Luigi", "Mel", "Ottoline"))
    assert call(memory, "query_graph", {"namespace": "fg", "node_ids": [luigi]})["count"] == 1
    answer = call(memory, "delete_node", {"id": "F1"})
    assert answer["status"] == "deleted" and answer["forgotten"] == {"Luigi": luigi}
    held = {n["id"] for n in call(memory, "query_graph", {"namespace": "fg", "limit": 100})["nodes"]}
    assert luigi not in held and {mel, ottoline, "F2", key_id("fg", "Ana"), key_id("fg", "Bo")} <= held
    found = call(memory, "retrieve_context", {"namespace": "fg", "query": "Luigi's lunch"})
    assert luigi not in {r["id"] for r in found["results"]}
    # a node that is no turn forgets nothing
    assert "forgotten" not in call(memory, "delete_node", {"id": mel})


def test_deleting_turns_together_forgets_what_they_alone_made(store):
    memory = memory_on(store)
    call(memory, "store_node", {"namespace": "fg", "key": "Mel", "content": "Mel, Ana's sister"})
    call(memory, "store_many", {"namespace": "fg", "turns": TURNS})
    answer = call(memory, "delete_many", {"node_ids": ["F1", "F2"]})
    names = ("Ana", "Bo", "Luigi", "Ottoline")
    assert answer["forgotten"] == {name: key_id("fg", name) for name in names}
    held = {n["id"] for n in call(memory, "query_graph", {"namespace": "fg", "limit": 100})["nodes"]}
    assert held == {key_id("fg", "Mel")}
