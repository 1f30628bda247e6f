"""A question's topic: the session most of its words are said in lends its turns a share of
relevance, so a turn of that session that answers without the question's words comes before
a turn of another session that holds one of them in passing — unless the question asks for
things of a kind the memory holds (those are its answers, in whichever session)."""

from __future__ import annotations

from typing import Any

from bendscope.memory.core.conversations import recall, sessions
from bendscope.memory.core.records import MemoryNode
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

DAYS = ["2023-03-04T10:00:00Z", "2023-03-18T17:30:00Z", "2023-04-01T09:15:00Z"]
SAID = {
    1: [
        "How is the allotment going?",
        "The allotment is thriving, the beans climb the fence now.",
        "Do you still go to the allotment before work?",
        "Every morning, rain or shine. The neighbours think I am mad.",
        "Ha, they would.",
        "The courgettes came up last week and the strawberries are growing fast.",
    ],
    2: [
        "Was the ferry late again?",
        "I drove past an allotment on the way to the ferry.",
        "Only ten minutes, the sea was calm.",
    ],
    3: [
        "I started a pottery class on Tuesdays.",
        "My sister wants an allotment too, she says.",
        "Bowls, mostly, and a vase for my sister.",
    ],
}
TURNS = [
    {"id": f"s{session}t{place}", "speaker": ("Nate", "Joanna")[place % 2], "text": text,
     "time": DAYS[session - 1], "session": session}
    for session, texts in SAID.items()
    for place, text in enumerate(texts)
]  # fmt: skip


def ranked(store: Any, question: str, limit: int = 10) -> list[str]:
    memory = memory_on(store)
    call(memory, "store_many", {"turns": TURNS})
    return [r["id"] for r in call(memory, "retrieve_context", {"query": question, "limit": limit})["results"]]


def test_the_session_of_the_questions_words_lends_its_turns_relevance(store):
    """Going to the allotment every morning is told in the session about it, without its word;
    the other sessions name the allotment in passing."""
    found = ranked(store, "What is growing on Joanna's allotment?")
    assert found.index("s1t3") < min(found.index("s2t1"), found.index("s3t1"))


def test_without_the_topic_the_turns_naming_the_word_came_first(store, monkeypatch):
    monkeypatch.setattr(sessions, "TOPIC", 0.0)
    found = ranked(store, "What is growing on Joanna's allotment?")
    assert found.index("s1t3") > max(found.index("s2t1"), found.index("s3t1"))


def test_a_question_asking_for_a_kind_is_left_as_it_was(store, monkeypatch):
    """Beans and courgettes are vegetables: the kind's turns answer, the topic lends nothing."""
    question = "Which vegetables grow on Joanna's allotment?"
    with_topic = ranked(store, question)
    assert {"s1t1", "s1t5"} <= set(with_topic[:3])
    monkeypatch.setattr(sessions, "TOPIC", 0.0)
    assert ranked(store, question) == with_topic


def test_a_question_naming_a_session_is_left_as_it_was(store, monkeypatch):
    question = "What did Joanna say about the allotment in session 3?"
    with_topic = ranked(store, question)
    monkeypatch.setattr(sessions, "TOPIC", 0.0)
    assert ranked(store, question) == with_topic


def test_topic_weights_keep_sessions_of_two_conversations_apart():
    def turn(node_id: str, session: int, said: str) -> MemoryNode:
        return MemoryNode(id=node_id, content="", metadata={"speaker": "Jo", "session": session, "said": said})

    turns = {"a": turn("a", 3, "8 May 2023"), "b": turn("b", 3, "9 June 2024"), "c": turn("c", 3, "8 May 2023")}
    assert sessions.topic_weights({"a": 0.6, "b": 0.3}, turns) == {("3", "8 May 2023"): 1.0, ("3", "9 June 2024"): 0.5}
    assert sessions.topic_weights({}, turns) == {}


def test_a_neighbour_joining_gains_its_sessions_part_too(store, monkeypatch):
    """ "Ha, they would." holds none of the question's words and joins as a neighbour; with the
    neighbours' shares at 0 what it scores is its session's part alone, as a candidate's is."""
    monkeypatch.setattr(recall, "NEXT", 0.0)
    monkeypatch.setattr(recall, "PREVIOUS", 0.0)
    memory = memory_on(store)
    call(memory, "store_many", {"turns": TURNS})
    found = call(memory, "retrieve_context", {"query": "What is growing on Joanna's allotment?", "limit": 13})
    score = {r["id"]: r["score"] for r in found["results"]}
    assert score["s1t4"] > 0.01 > score["s2t2"]
