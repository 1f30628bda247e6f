"""What a turn tells, and who: a turn that only asks the question's words yields to one that
tells them (while the answer after a question still comes in), and a question about one
speaker favours what that speaker said — not when it names every speaker or none."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bendscope.memory.core.conversations import focus
from bendscope.memory.core.text import terms
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

SAID = "2023-05-08T13:56:00Z"
FILLER = ["went to the store", "fixed the sink", "read the news", "walked the dog", "cooked some rice",
          "called my mother", "watched a film", "cleaned the garage"]  # fmt: skip
TURNS = [
    *(
        {"speaker": "Jon", "text": f"Yesterday I {thing}.", "time": SAID, "session": 1 + i // 4}
        for i, thing in enumerate(FILLER)
    ),
    {"id": "asks", "speaker": "Gina", "text": "Wow! Any pottery classes soon?", "time": SAID, "session": 3},
    {"id": "answer", "speaker": "Jon", "text": "Yes, the one downtown at Kilnworks.", "time": SAID, "session": 3},
    {
        "id": "tells",
        "speaker": "Jon",
        "text": "I signed up for a pottery class at the community centre by the old "
        "harbour, it starts after the summer holidays.",
        "time": SAID,
        "session": 4,
    },
    {"id": "gina", "speaker": "Gina", "text": "My dance studio is open!", "time": SAID, "session": 5},
    {
        "id": "jon",
        "speaker": "Jon",
        "text": "I finally found a place for my dance studio near the old train station, the rent is fair.",
        "time": SAID,
        "session": 6,
    },
]


def ask(store: Any, question: str, limit: int = 3) -> list[str]:
    memory = memory_on(store)
    call(memory, "store_many", {"turns": TURNS})
    return [r["id"] for r in call(memory, "retrieve_context", {"query": question, "limit": limit})["results"]]


@pytest.fixture
def unweighed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(focus, "ASKED", 0.0)
    monkeypatch.setattr(focus, "OTHER", 0.0)


def test_a_turn_that_tells_comes_before_one_that_only_asks(store):
    assert ask(store, "Which pottery class?")[0] == "tells"


def test_unweighed_the_short_question_came_first(store, unweighed):
    assert ask(store, "Which pottery class?")[0] == "asks"


def test_the_answer_after_a_question_still_comes_in(store):
    """The asking turn lends its neighbour a share of its relevance before it is weighed."""
    assert "answer" in ask(store, "Which pottery class?")


def test_a_question_about_one_speaker_favours_what_that_speaker_said(store):
    assert ask(store, "Where is Jon's dance studio?")[0] == "jon"


def test_unweighed_the_other_speakers_short_turn_came_first(store, unweighed):
    assert ask(store, "Where is Jon's dance studio?")[0] == "gina"


@pytest.mark.parametrize("question", ["Where is the dance studio?", "Where are Jon's and Gina's dance studios?"])
def test_a_question_naming_every_speaker_or_none_favours_no_one(store, monkeypatch, question):
    monkeypatch.setattr(focus, "ASKED", 0.0)
    weighed = ask(store, question, limit=10)
    monkeypatch.setattr(focus, "OTHER", 0.0)
    assert weighed == ask(store, question, limit=10)


def test_a_statement_is_never_weighed_down():
    assert focus.asking_share("Jon: I dance. Do you?", ["danc"]) == 0.0
    assert focus.asked_only("Jon: Dance? [shares a photo: a dance class]") == frozenset()


WORDS = st.sampled_from(["pottery", "dance", "studio", "class", "Gina", "yesterday", "paint", "horse"])
SENTENCES = st.lists(st.lists(WORDS, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=4)


@given(SENTENCES, SENTENCES, st.lists(WORDS, max_size=4))
def test_only_what_a_turn_asks_and_never_tells_is_weighed(told, asked, question):
    """A turn of statements only is never weighed down; with questions added, only the words
    of its questions that none of its statements holds are."""
    statements = " ".join(f"{s}." for s in told)
    assert focus.asked_only(f"Jon: {statements}") == frozenset()
    turn = f"Jon: {statements} " + " ".join(f"{s}?" for s in asked)
    words = [w for q in question for w in terms(q)]
    share = focus.asking_share(turn, words)
    assert 0.0 <= share <= 1.0
    assert focus.asked_only(turn) == frozenset(terms(" ".join(asked))) - frozenset(terms(statements))
