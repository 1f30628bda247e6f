"""An entity a conversation made is removed once no turn names it (and the answer says so);
a node the agent wrote — its metadata, source, confidence, type or a later version — is never
removed by a conversation's bookkeeping, on every store."""

from __future__ import annotations

from typing import Any

import pytest

from bendscope.memory.core.names import key_id
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

SAID = "2023-05-08"
HEY = {"id": "t1", "speaker": "Caroline", "text": "Hey Mel! How are you?", "time": SAID, "session": 1}
GREAT = {"id": "t2", "speaker": "Melanie", "text": "Great, Caroline!", "time": SAID, "session": 1}


def _ids(store: Any) -> set[str]:
    return set(store.node_ids())


def test_an_entity_the_conversation_alone_made_is_removed_and_reported(store):
    memory = memory_on(store)
    first = call(memory, "store_many", {"namespace": "m", "turns": [HEY]})
    mel = first["entities"]["Mel"]
    assert mel == key_id("m", "mel") and "forgotten" not in first
    later = call(memory, "store_many", {"namespace": "m", "turns": [GREAT]})
    assert later["forgotten"] == {"Mel": mel}  # ("Mel" is Melanie now)
    assert mel not in _ids(store)


@pytest.mark.parametrize(
    "agent",
    [
        {"metadata": {"note": "my best friend"}, "confidence": 0.9, "source": "agent"},
        {"metadata": {"note": "my best friend"}},
        {"source": "agent"},
        {"confidence": 0.9},
        {"node_type": "episodic"},
        {"valid_from": "2020-01-01"},
    ],
)
def test_an_agents_keyed_node_is_never_removed_by_a_later_turn(store, agent):
    memory = memory_on(store)
    mine = store.get_node(call(memory, "store_node", {"namespace": "m", "key": "Mel", **agent})["id"])
    call(memory, "store_many", {"namespace": "m", "turns": [HEY]})
    later = call(memory, "store_many", {"namespace": "m", "turns": [GREAT]})
    assert "forgotten" not in later
    assert store.get_node(mine.id) == mine


def test_an_entity_the_agent_wrote_again_is_kept(store):
    """A later version by store_node (here: its content changed and back) makes it the agent's."""
    memory = memory_on(store)
    call(memory, "store_many", {"namespace": "m", "turns": [HEY]})
    mel = call(memory, "store_node", {"namespace": "m", "key": "Mel", "content": "Mel Gibson"})["id"]
    call(memory, "store_node", {"namespace": "m", "key": "Mel", "content": "Mel"})
    later = call(memory, "store_many", {"namespace": "m", "turns": [GREAT]})
    assert "forgotten" not in later and mel in _ids(store)


def test_a_sentences_common_first_word_is_no_part_of_the_name_after_it(store):
    memory = memory_on(store)
    turns = [
        {"speaker": "Jo", "text": "Paris! Like Paris Hilton? Met Tom Hanks yesterday.", "time": SAID, "session": 1},
        {"speaker": "Zoe", "text": "Visiting New York next June! Caroline Smith went too.", "time": SAID, "session": 1},
    ]
    answer = call(memory, "store_many", {"namespace": "n", "turns": turns})
    assert list(answer["entities"]) == ["Jo", "Paris Hilton", "Tom Hanks", "Zoe", "New York", "Caroline Smith"]
    # a word the conversation knows as a name is kept: "Met" capitalised inside a sentence
    said = {"speaker": "Jo", "text": "We love the Met. Met Gala tickets!", "time": SAID, "session": 2}
    assert "Met Gala" in call(memory, "store_many", {"namespace": "n", "turns": [said]})["entities"]
