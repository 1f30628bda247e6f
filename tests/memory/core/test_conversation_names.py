"""A name a conversation mentions written short ("Mel" beside one "Melanie", neither a speaker)
is that name: one entity, linked to the turns that say either, in one call or as the names come
— and a question naming either finds the turns that say the other."""

from __future__ import annotations

from typing import Any

import pytest

from bendscope.memory.core.names import key_id
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

SAID = "2023-05-08T10:00:00Z"
LATER = "2023-06-08T10:00:00Z"
TALK = [
    {"id": "a", "speaker": "Caroline", "text": "My neighbour Melanie is a potter.", "time": SAID, "session": 1},
    {"id": "b", "speaker": "Jon", "text": "Nice. I met Rosa at the market.", "time": SAID, "session": 1},
    {"id": "c", "speaker": "Caroline", "text": "Then Mel showed me a blue bowl.", "time": SAID, "session": 1},
]


def _nodes(memory: Any) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in call(memory, "query_graph", {"limit": 1000})["nodes"]}


def _related(store: Any, turn_id: str) -> set[str]:
    return {e.target_id for e in store.edges_touching([turn_id]) if e.edge_type == "related"}


@pytest.mark.parametrize("cut", [3, 1, 2])  # (one call; "Mel" before "Melanie"; "Melanie" before "Mel")
def test_a_mentioned_name_written_short_is_that_name(store, cut):
    memory = memory_on(store)
    order = [TALK[2], TALK[1], TALK[0]] if cut == 1 else TALK
    first = call(memory, "store_many", {"turns": order[:cut]})
    if cut < 3:
        later = call(memory, "store_many", {"turns": order[cut:]})
        if cut == 1:  # ("Mel", an entity of its own until Melanie was known)
            assert later["forgotten"] == {"Mel": first["entities"]["Mel"]}
    nodes = _nodes(memory)
    assert nodes["c"]["metadata"]["names"] == ["melanie"] == nodes["a"]["metadata"]["names"]
    melanie = key_id(None, "Melanie")
    assert _related(store, "c") == {melanie} == _related(store, "a")
    assert key_id(None, "Mel") not in nodes and nodes[melanie]["content"] == "Melanie"


def test_a_short_name_of_two_names_stays_a_name_of_its_own(store):
    memory = memory_on(store)
    call(memory, "store_many", {"turns": TALK})
    call(memory, "store_many", {"turns": [{"id": "d", "speaker": "Jon", "text": "And my cousin Melissa?",
                                           "time": SAID, "session": 1}]})  # fmt: skip
    assert _nodes(memory)["c"]["metadata"]["names"] == ["mel"]  # (Melanie's or Melissa's: read anew)


@pytest.mark.parametrize("short", ["x", "z"])  # (ties go by id: each side is shown against it)
@pytest.mark.parametrize(
    ("said", "asked"), [("Mel", "What did Melanie show Caroline?"), ("Melanie", "What did Mel show Caroline?")]
)
def test_a_question_naming_a_name_finds_its_short_form_and_the_reverse(store, short, said, asked):
    memory = memory_on(store)
    other = "z" if short == "x" else "x"
    full, written = ("Melanie", "Mel") if said == "Mel" else ("Mel", "Melanie")
    turns = [
        # (the other form is known from a turn of another session: "Melanie" is a potter, or "Mel" is)
        {"id": "k", "speaker": "Caroline", "text": f"My neighbour {full} is a potter.", "time": LATER, "session": 2},
        # (each in a session of its own: no neighbour takes a share of the other's score)
        {"id": short, "speaker": "Caroline", "text": f"Then {written} showed me a bowl.", "time": SAID, "session": 1},
        {"id": other, "speaker": "Caroline", "text": "Then Rosa showed me a bowl.", "time": SAID, "session": 3},
    ]
    call(memory, "store_many", {"turns": turns})
    found = [r["id"] for r in call(memory, "retrieve_context", {"query": asked})["results"] if r["id"] in "xz"]
    assert found[0] == short, found
