"""A question that names a session ("the last session", "session 4", "our first session")
favours that session's turns, which share no word with it; a session of something ("a session
of yoga") names none and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bendscope.memory.core.conversations import sessions
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

DAYS = ["2023-05-08T13:56:00Z", "2023-05-20T10:00:00Z", "2023-06-02T18:30:00Z", "2023-06-15T09:00:00Z"]
SAID = {
    1: ["I talked to my sister about the yoga session.", "We talked about the garden."],
    2: ["I adopted a puppy named Paris.", "She sleeps on my bed."],
    3: ["I talked with my boss about a raise.", "He said we will talk again soon."],
    4: ["My new bike is red.", "I ride it along the river on weekends."],
}
TURNS = [
    {"id": f"s{session}t{place}", "speaker": ("Joanna", "Nate")[place % 2], "text": text,
     "time": DAYS[session - 1], "session": session}
    for session, texts in SAID.items()
    for place, text in enumerate(texts)
]  # fmt: skip


def ask(store: Any, question: str, limit: int = 2, turns: list[dict[str, Any]] = TURNS) -> list[str]:
    memory = memory_on(store)
    call(memory, "store_many", {"turns": turns})
    return [r["id"] for r in call(memory, "retrieve_context", {"query": question, "limit": limit})["results"]]


@pytest.mark.parametrize(
    ("question", "session"),
    [
        ("What did we talk about in the last session?", 4),
        ("What did we talk about in our latest session?", 4),
        ("What did Joanna talk about in session 2?", 2),
        ("What did we talk about in the second session?", 2),
        ("What did we talk about in the 4th session?", 4),
        ("What did we talk about in the previous session?", 3),
        ("What did we talk about in the session before?", 3),
        ("What did we talk about in the second to last session?", 3),
    ],
)
def test_a_question_naming_a_session_favours_its_turns(store, question, session):
    assert {i.split("t")[0] for i in ask(store, question)} == {f"s{session}"}


def test_without_the_session_weight_the_words_that_match_came_first(store, monkeypatch):
    monkeypatch.setattr(sessions, "SESSION", 0.0)
    assert not {i.split("t")[0] for i in ask(store, "What did we talk about in the last session?")} & {"s4"}


def test_the_last_session_is_the_last_said_whatever_its_name(store):
    renamed = [{**t, "session": {1: "d", 2: "c", 3: "b", 4: "a"}[t["session"]]} for t in TURNS]
    assert set(ask(store, "What did we talk about in the last session?", turns=renamed)) == {"s4t0", "s4t1"}
    assert set(ask(store, "What did we talk about in the first session?", turns=renamed)) == {"s1t0", "s1t1"}


def test_a_session_of_something_names_none(store):
    """ "The last session of yoga" is not the conversation's last session: the turn that says it
    comes first, as without the rule."""
    assert ask(store, "When was the last session of yoga?", limit=1) == ["s1t0"]
    assert sessions.asked_session("When was the last session of yoga?") is None


def test_a_session_the_conversation_does_not_have_changes_nothing(store, monkeypatch):
    asked = ask(store, "What did we talk about in session 9?")
    monkeypatch.setattr(sessions, "SESSION", 0.0)
    assert ask(store, "What did we talk about in session 9?") == asked


@given(st.sampled_from(["a", "her", "his", "my", "one", "every", "each"]),
       st.sampled_from(["last", "first", "third", "yoga", "therapy"]))  # fmt: skip
def test_a_session_that_is_not_the_conversations_names_none(determiner, word):
    assert sessions.asked_session(f"How did {determiner} {word} session go?") is None


@given(st.integers(1, 999))
def test_a_number_after_session_names_it(number):
    assert sessions.asked_session(f"What was said in session {number}?") == ("number", number)
