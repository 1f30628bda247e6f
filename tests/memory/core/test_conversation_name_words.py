"""The names a turn mentions follow the documented rule in general: a common word beginning a
sentence before a name — a verb said as a request ("Fetch Rocky"), an interjection ("Ugh
Jonas") — is no part of the name; a word opening a quotation begins a sentence; "& Co" and
its kin end a firm's name; a title or a relation before a speaker's name ("Auntie Pri",
"Chef Tobias") is that speaker — on every backend."""

from __future__ import annotations

from bendscope.memory.core.conversations.turns import names_in
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

SAID = "2024-10-12T10:00:00Z"


def test_a_common_word_beginning_a_sentence_is_no_part_of_the_name_after_it():
    assert names_in("You should come. Fetch Rocky on your way.", set()) == ["Rocky"]
    assert names_in("Tell Marguerite I said hi! Ugh Jonas forgot again.", set()) == ["Marguerite", "Jonas"]
    assert names_in("Remind Oskar Lindqvist. Thank Beatrix for me.", set()) == ["Oskar Lindqvist", "Beatrix"]
    assert names_in("Sundays are for Rosalind now.", set()) == ["Rosalind"]
    assert names_in("The mug said 'Dance like nobody watches' and Ilse bought it.", set()) == ["Ilse"]
    assert names_in("We ate at Marlow & Sons, then at Crumb & Co.", set()) == ["Marlow & Sons", "Crumb & Co"]
    # unchanged: two names joined by "&" stay two, a known word stays a name, a title stays with a stranger
    assert names_in("Caroline & Melanie came.", {"caroline"}) == ["Caroline", "Melanie"]
    assert names_in("Bring Comet. Bring Comet Smith.", {"bring"}) == ["Bring Comet", "Bring Comet Smith"]
    assert names_in("I saw Dr. Smith, then Mr. Brown.", set()) == ["Dr Smith", "Mr Brown"]


def test_a_title_or_relation_before_a_speakers_name_is_that_speaker(store):
    memory = memory_on(store)
    turns = [
        {"id": "P:1", "speaker": "Priyanka", "text": "Bring Comet to the park, Tobias.", "time": SAID, "session": 1},
        {"id": "P:2", "speaker": "Tobias", "text": "Sure! Our Comet loves it. Give Biscuit a treat too.",
         "time": "2024-10-12T10:01:00Z", "session": 1},
        {"id": "P:3", "speaker": "Priyanka", "text": "Auntie Pri says hi to Biscuit. Ask Chef Tobias for cake.",
         "time": "2024-10-12T10:02:00Z", "session": 1},
    ]  # fmt: skip
    answer = call(memory, "store_many", {"turns": turns})
    assert set(answer["entities"]) == {"Priyanka", "Tobias", "Comet", "Biscuit"}
    nodes = {n["id"]: n for n in call(memory, "query_graph", {"limit": 100})["nodes"]}
    assert nodes["P:1"]["metadata"]["names"] == ["comet", "tobias"]
    assert nodes["P:2"]["metadata"]["names"] == ["comet", "biscuit"]
    assert nodes["P:3"]["metadata"]["names"] == ["priyanka", "biscuit", "tobias"]
