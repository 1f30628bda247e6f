"""A memory that holds facts and a conversation answers both: a lookup whose best match is a
fact gets the fact even where many turns share its words, and a question about what was said
still gets the turns (and an agent's own note on a speaker when it matches best)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

ROOT = Path(__file__).resolve().parents[3]
SAID = ["2023-05-08T13:56:00Z", "2023-05-25T13:14:00Z", "2023-06-09T19:00:00Z"]
#: turns that share the facts' words ("adopted", "held", "agreement", "Paris", "summit")
TALK = [
    ("Caroline", "I'm researching adoption agencies, I really want to adopt a child."),
    ("Melanie", "That's wonderful! Adopting is such a big step, you'd be a great mom."),
    ("Caroline", "The agency held an info evening, they explained how a child is adopted."),
    ("Melanie", "We held a bake sale for the school last week, it went great."),
    ("Caroline", "We reached an agreement with the landlord about the flat."),
    ("Melanie", "My sister adopted a dog, she says it was the best decision."),
    ("Caroline", "I went to Paris with friends; we held hands on the bridge."),
    ("Melanie", "Did the agency say how long it takes to adopt?"),
    ("Caroline", "They said a year. The hearing is held in the summer."),
    ("Melanie", "The summit of the hill had the best view, we hiked there Sunday."),
    ("Caroline", "I adopted a new routine too: running before work."),
    ("Melanie", "The kids held a little concert at home, so sweet."),
]


def _memory(store: Any) -> Any:
    memory = memory_on(store)
    climate = json.loads((ROOT / "bench" / "routing" / "climate.json").read_text(encoding="utf-8"))
    nodes = [{"id": n["id"], "content": n["content"], "node_type": n.get("node_type", "semantic")}
             for n in climate["nodes"]]  # fmt: skip
    edges = [{k: e[k] for k in ("source_id", "target_id", "edge_type")} for e in climate["edges"]]
    call(memory, "store_many", {"namespace": "w", "nodes": nodes, "edges": edges})
    turns = [
        {"speaker": speaker, "text": text, "time": SAID[i * 3 // len(TALK)], "session": 1 + i * 3 // len(TALK)}
        for i, (speaker, text) in enumerate(TALK)
    ]
    call(memory, "store_many", {"namespace": "w", "turns": turns})
    return memory


def _ids(memory: Any, query: str, limit: int) -> list[str]:
    answer = call(memory, "retrieve_context", {"namespace": "w", "query": query, "limit": limit})
    return [r["id"] for r in answer["results"]]


def test_a_lookup_whose_best_match_is_a_fact_gets_the_fact_among_turns(store):
    memory = _memory(store)
    assert _ids(memory, "When was the Paris Agreement adopted?", 5)[0] == "paris-2015"
    assert "cop28" in _ids(memory, "Where was COP28 held?", 3)
    assert "paris-goal" in _ids(memory, "What does the Paris Agreement aim to hold warming below?", 3)


def test_a_question_about_what_was_said_still_gets_the_turns(store):
    memory = _memory(store)
    content = {n["id"]: n["content"] for n in call(memory, "query_graph", {"namespace": "w", "limit": 500})["nodes"]}
    found = _ids(memory, "What did Caroline say about adopting a child?", 5)
    assert content[found[0]].startswith("Caroline: I'm researching adoption agencies")
    assert all(content[i].startswith(("Caroline:", "Melanie:")) for i in found)
    found = _ids(memory, "What did Melanie's sister adopt?", 3)
    assert content[found[0]].startswith("Melanie: My sister adopted a dog")


def test_an_agents_note_on_a_speaker_comes_back_when_it_matches_best(store):
    memory = _memory(store)
    note = "Caroline: transgender woman, wants to adopt, works towards counselling"
    key_id = call(memory, "store_many", {"namespace": "w", "nodes": [{"key": "Caroline", "content": note}]})
    node_id = key_id["nodes"][0]["id"]
    assert node_id in _ids(memory, "What does Caroline work towards?", 5)
    # an entity that holds its name alone is no answer: it never takes a turn's place
    melanie = call(memory, "store_many", {"namespace": "w", "nodes": [{"key": "Melanie"}]})["nodes"][0]["id"]
    assert melanie not in _ids(memory, "What did Melanie's sister adopt?", 10)


def test_a_month_and_a_year_asked_are_that_month_of_that_year(store):
    memory = memory_on(store)
    said = [
        ("2022-05-14", "I planted tomatoes in the garden."),
        ("2023-03-10", "I started a gardening course."),
        ("2023-05-12", "We got a dog from the shelter."),
        ("2023-06-02", "Last Saturday I ran a marathon."),  # (27 May 2023)
        ("2023-07-01", "We flew to Italy for a week."),
        ("2023-08-20", "I went to a pottery class."),
    ]
    turns = [{"speaker": "Ann", "text": text, "time": day, "session": i + 1} for i, (day, text) in enumerate(said)]
    call(memory, "store_many", {"turns": turns, "namespace": "ann"})
    content = {n["id"]: n["content"] for n in call(memory, "query_graph", {"namespace": "ann"})["nodes"]}
    may_2023 = {"Ann: We got a dog from the shelter.", "Ann: Last Saturday I ran a marathon."}
    for question in ("What did Ann do in May 2023?", "What did Ann do in May, 2023?", "What did Ann do on 12 May 2023"):
        answer = call(memory, "retrieve_context", {"namespace": "ann", "query": question, "limit": 3})
        assert {content[r["id"]] for r in answer["results"][:2]} == may_2023, question
    answer = call(memory, "retrieve_context", {"namespace": "ann", "query": "What did Ann do in May?", "limit": 3})
    assert {content[r["id"]] for r in answer["results"]} == may_2023 | {"Ann: I planted tomatoes in the garden."}
