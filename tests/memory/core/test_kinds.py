"""Kinds: a question about a conversation that asks for things of a kind ("What martial arts
…", "Which cities …") finds the turns that name such things without the kind's word; a
question that asks for no kind, or whose answer shares its words, ranks as before; the table
is made deterministically from WordNet's files."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bendscope.memory.core.conversations import kinds_make, recall
from bendscope.memory.core.conversations.kinds import asked_kind, kind_terms
from bendscope.memory.core.text import terms
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

SAID = "2023-05-08T13:56:00Z"
FILLER = ["went to the store", "fixed the sink", "read the news", "walked the dog", "cooked some rice",
          "called my mother", "watched a film", "cleaned the garage", "mended the roof", "answered emails",
          "planted tomatoes", "washed the car"]  # fmt: skip
SAID_BY_JOHN = [f"Yesterday I {thing}." for thing in FILLER]
TURNS = [
    *({"speaker": "John", "text": text, "time": SAID, "session": 1 + i // 4} for i, text in enumerate(SAID_BY_JOHN)),
    {"id": "tkd", "speaker": "John", "text": "I do taekwondo twice a week.", "time": SAID, "session": 5},
    {"speaker": "Maria", "text": "Good for you!", "time": SAID, "session": 5},
    {"id": "judo", "speaker": "John", "text": "The judo class was tough today.", "time": SAID, "session": 6},
    {"speaker": "Maria", "text": "Rest well.", "time": SAID, "session": 6},
    {"id": "rome", "speaker": "Maria", "text": "Rome was lovely in spring.", "time": SAID, "session": 7},
    {"id": "london", "speaker": "Maria", "text": "London is rainy as ever.", "time": SAID, "session": 7},
    {"id": "lisbon", "speaker": "Maria", "text": "We moved to Lisbon last spring!", "time": SAID, "session": 8},
    {"id": "cobbler", "speaker": "Maria", "text": "I baked a peach cobbler for the shelter.", "time": SAID,
     "session": 8},
]  # fmt: skip


def ask(store, question: str, limit: int = 3) -> list[str]:
    memory = memory_on(store)
    call(memory, "store_many", {"turns": TURNS})
    return [r["id"] for r in call(memory, "retrieve_context", {"query": question, "limit": limit})["results"]]


def test_a_question_asking_for_a_kind_finds_the_turns_naming_its_things(store):
    """Neither turn holds "martial" or "arts": the kind brings them before John's other turns."""
    assert set(ask(store, "What martial arts has John done?")[:2]) == {"tkd", "judo"}


def test_without_kinds_the_same_question_misses_them(store, monkeypatch):
    monkeypatch.setattr(recall, "KIND", 0.0)
    assert not {"tkd", "judo"} & set(ask(store, "What martial arts has John done?")[:2])


def test_a_lookup_question_is_not_flooded_by_its_kind(store):
    """A question naming a kind whose answer shares its words: that turn first, the kind's
    other things after it."""
    found = ask(store, "Which city did Maria move to last spring?")
    assert found[0] == "lisbon" and set(found) == {"lisbon", "rome", "london"}


def test_a_question_asking_for_no_kind_ranks_as_without_kinds(store, monkeypatch):
    question = "When did Maria bake the peach cobbler for the shelter?"
    with_kinds = ask(store, question, limit=10)
    monkeypatch.setattr(recall, "KIND", 0.0)
    assert with_kinds[0] == "cobbler" and ask(store, question, limit=10) == with_kinds


def test_the_ranking_is_the_same_on_every_call(store):
    question = "What martial arts has John done?"
    assert ask(store, question, limit=10) == ask(store, question, limit=10)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What martial arts has John done?", ["martial", "arts"]),
        ("What types of yoga has Maria practiced?", ["yoga"]),
        ("Which cities has Jon visited?", ["cities"]),
        ("What are the names of John's children?", ["children"]),
        ("What did John do yesterday?", []),
        ("Where has Maria made friends?", []),
        ("What sparked John's interest in education?", ["sparked"]),  # (a verb before the name: not its kind)
    ],
)
def test_the_kind_a_question_asks_for(question, kind):
    assert asked_kind(question, {"john", "maria", "jon"}) == kind


@given(st.text(max_size=80))
def test_any_question_reads_as_words_of_its_own(question):
    asked = asked_kind(question, set())
    assert all(isinstance(w, str) and w for w in asked)
    for word in asked:
        assert all(t == t.lower() for t in kind_terms(word))


def test_kind_terms_are_index_terms_and_broad_kinds_have_none():
    judo = kind_terms("martial_arts")
    assert {"judo", "taekwondo"} <= judo and all(terms(t) for t in judo)
    assert kind_terms("events") == frozenset() and kind_terms("notaword") == frozenset()


# A WordNet of five nouns in its database format: art ⊃ martial art ⊃ judo, and "spar", a noun
# used more often as a verb (it names a kind, and is none of its things).
DATA_NOUN = """\
  1 header line
00000001 04 n 01 art 0 002 ~ 00000002 n 0000 ~ 00000004 n 0000 | a gloss
00000002 04 n 02 martial_art 0 fighting_art 0 002 @ 00000001 n 0000 ~ 00000003 n 0000 | a gloss
00000003 04 n 01 judo 0 001 @ 00000002 n 0000 | a gloss
00000004 04 n 01 spar 0 001 @ 00000001 n 0000 | a gloss
"""
INDEX_NOUN = """\
  1 header line
art n 1 1 ~ 1 5 00000001
fighting_art n 1 1 @ 1 0 00000002
judo n 1 1 @ 1 2 00000003
martial_art n 1 2 @ ~ 1 1 00000002
spar n 1 1 @ 1 1 00000004
"""
INDEX_VERB = "  1 header line\nspar v 1 0 1 9 00000009\n"


def test_the_table_is_made_from_wordnet_files_the_same_each_time(tmp_path: Path):
    for name, text in (("data.noun", DATA_NOUN), ("index.noun", INDEX_NOUN), ("index.verb", INDEX_VERB),
                       ("noun.exc", "arts art\n")):  # fmt: skip
        (tmp_path / name).write_text(text, encoding="latin-1")
    lines = kinds_make.make(tmp_path)
    assert lines == [
        "0\t\tart\tart",  # (a member: a kind's thing, and a kind)
        "1\t0\tfighting_art martial_art\t",  # (two words: a kind, no thing)
        "2\t1\tjudo\tjudo",
        "3\t0\t\t",  # ("spar": more a verb, and no kind: not named)
        "X\tarts\tart",
    ]
    assert kinds_make.make(tmp_path) == lines


def test_the_shipped_table_reads():
    text = gzip.decompress(Path(kinds_make.__file__).with_name("kinds.tsv.gz").read_bytes()).decode()
    assert text.endswith("\n") and "\tjudo" in text
