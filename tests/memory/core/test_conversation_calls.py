"""A conversation written as it happens, a few turns a call: a session continued in a later
``store_many`` joins its earlier turns (neighbours, places, names, dates) exactly as one call
would have, on every store and over MCP, all or nothing — and the memory then reads and
retrieves exactly as if the conversation had been written at once."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from bendscope.memory import InvalidInput
from bendscope.memory.mcp.tools import call
from bendscope.memory.store.inmemory import InMemoryStore
from tests.memory.core.test_service import memory_on
from tests.memory.mcp.test_mcp import ok, over_stdio

ONE, TWO, THREE = "2023-05-08T13:56:00Z", "2023-05-25T13:14:00Z", "2023-06-09T19:00:00Z"
#: LoCoMo's shape: two speakers over sessions; a short name said before its speaker speaks, a
#: sentence's first word that is a name only once it is seen inside a sentence later, a photo,
#: time words, and a third speaker whose name makes the short name ambiguous
CONVERSATION = [
    ("Caroline", "Hey Mel! I went to a support group yesterday.", ONE, 1, None),
    ("Melanie", "Boston was lovely last Saturday. The kids loved the museum.", ONE, 1, None),
    ("Caroline", "Did you take the kids to the dinosaur exhibit?", ONE, 1, None),
    ("Melanie", "Caroline, I painted a sunset at the lake.", TWO, 2, "a painting of a sunset over a lake"),
    ("Caroline", "Lovely! Sam said so too. Pottery next?", TWO, 2, None),
    ("Melanie", "We moved to Boston in May, Caro. Pottery is on Sundays.", TWO, 2, None),
    ("Caroline", "I am researching adoption agencies, it has been on my mind.", TWO, 2, None),
    ("Melissa", "Hi both, Mel here too! I met Sam two weeks ago.", THREE, "three", None),
    ("Melanie", "Camping with the kids was the best thing this summer.", THREE, "three", None),
]
QUESTIONS = [
    "When did Caroline go to the support group?",
    "Where did Melanie take her kids?",
    "What did Melanie paint?",
    "Who did Melissa meet?",
    "What is Caroline researching?",
    "What does Melanie do with her kids in summer?",
]


def _turns(ids: bool, prefix: str = "T") -> list[dict[str, Any]]:
    made = []
    for i, (speaker, text, time, session, caption) in enumerate(CONVERSATION):
        turn: dict[str, Any] = {"speaker": speaker, "text": text, "time": time, "session": session}
        if caption:
            turn["caption"] = caption
        if ids:
            turn["id"] = f"{prefix}{i}"
        made.append(turn)
    return made


def _written(memory: Any, namespace: str, turns: list[dict[str, Any]], cuts: set[int]) -> list[dict[str, Any]]:
    """Write ``turns`` in calls that end at ``cuts``; the answers' turns, in order."""
    answers, start = [], 0
    for end in [*sorted(cuts), len(turns)]:
        answer = call(memory, "store_many", {"namespace": namespace, "turns": turns[start:end]})
        answers += answer["turns"]
        start = end
    return answers


def _read(memory: Any, namespace: str, ties: bool = True) -> tuple[Any, ...]:
    """What a namespace holds, its ids read as content (derived ids differ between namespaces),
    and what each question retrieves (``ties``: in order, else as a set — ties go by id)."""
    nodes = call(memory, "query_graph", {"namespace": namespace, "limit": 1000})["nodes"]
    content = {n["id"]: n["content"] for n in nodes}
    held = sorted(
        repr((n["content"], n["node_type"], n["valid_from"], {**n["metadata"], "namespace": None})) for n in nodes
    )
    edges = call(memory, "list_edges", {"namespace": namespace, "limit": 1000})["edges"]
    links = sorted((content[e["source_id"]], content[e["target_id"]], e["edge_type"]) for e in edges)
    found = []
    for question in QUESTIONS:
        answer = call(memory, "retrieve_context", {"namespace": namespace, "query": question, "limit": 20})
        results = [(content[r["id"]], r["score"]) for r in answer["results"]]
        found.append(results if ties else sorted(results))
    return held, links, found


def test_a_session_continued_in_later_calls_joins_its_earlier_turns(store):
    memory = memory_on(store)
    turns = _turns(ids=True)
    for turn in turns:  # one call a turn
        answer = call(memory, "store_many", {"turns": [turn]})
        assert [t["id"] for t in answer["turns"]] == [turn["id"]]
    edges = call(memory, "list_edges", {"edge_type": "temporal", "limit": 100})["edges"]
    assert sorted((e["source_id"], e["target_id"]) for e in edges) == [
        ("T0", "T1"), ("T1", "T2"), ("T3", "T4"), ("T4", "T5"), ("T5", "T6"), ("T7", "T8")
    ]  # fmt: skip
    nodes = {n["id"]: n for n in call(memory, "query_graph", {"limit": 100})["nodes"]}
    assert [nodes[f"T{i}"]["metadata"]["turn"] for i in range(9)] == [1, 2, 3, 1, 2, 3, 4, 1, 2]
    # "Boston" begins a sentence in T1: a name once T5 says it inside one
    assert nodes["T1"]["metadata"]["names"] == ["boston"]
    # "Mel" was Melanie while she alone began with it; Melissa makes it a name of its own
    assert nodes["T0"]["metadata"]["names"] == ["mel"]
    assert nodes["T5"]["metadata"]["names"] == ["boston", "caroline"]  # ("Caro": Caroline; "Sundays": a weekday)
    assert nodes["T3"]["metadata"] == {"speaker": "Melanie", "session": 2, "turn": 1, "said": "25 May 2023",
                                       "names": ["caroline"]}  # fmt: skip


@pytest.mark.parametrize("ids", [True, False])
def test_turn_by_turn_reads_and_retrieves_as_at_once(store, ids):
    """On every store: the same conversation, at once in one namespace and a turn a call in
    another, holds the same nodes, edges and metadata and answers every question the same."""
    memory = memory_on(store)
    turns = _turns(ids, "B")
    _written(memory, "at-once", _turns(ids, "A"), set())
    by_turn = _written(memory, "by-turn", turns, set(range(1, len(turns))))
    assert len({t["id"] for t in by_turn}) == len(turns)
    assert _read(memory, "by-turn", ids) == _read(memory, "at-once", ids)
    if not ids:  # the same again, a turn a call: nothing changes
        again = _written(memory, "by-turn", turns, set(range(1, len(turns))))
        assert again == [{**t, "status": "unchanged"} for t in by_turn]
        assert _read(memory, "by-turn", ids) == _read(memory, "at-once", ids)


@settings(max_examples=40, deadline=None)
@given(cuts=st.sets(st.integers(1, len(CONVERSATION) - 1)), ids=st.booleans(), again=st.sets(st.integers(0, 8)))
def test_any_chunking_retrieves_as_at_once(cuts, ids, again):
    """Written in random chunks (some turns sent twice), a conversation holds and retrieves
    exactly what it does written at once."""
    memory, at_once = memory_on(InMemoryStore()), memory_on(InMemoryStore())
    turns = _turns(ids)
    _written(at_once, "chunks", turns, set())
    start = 0
    for end in [*sorted(cuts), len(turns)]:
        repeated = [turns[i] for i in sorted(again) if i < start]  # (a turn the agent sends again)
        call(memory, "store_many", {"namespace": "chunks", "turns": repeated + turns[start:end]})
        start = end
    assert _read(memory, "chunks") == _read(at_once, "chunks")


def test_a_wrong_continuation_stores_nothing(store):
    memory = memory_on(store)
    turns = _turns(ids=True)
    call(memory, "store_many", {"turns": turns[:1]})

    def held() -> tuple[Any, ...]:
        return [n.to_dict() for n in store.get_nodes(store.node_ids()).values()], store.all_edges()

    before = held()
    assert [(e.source_id, e.edge_type) for e in before[1]] == [("T0", "related")]  # (to "Mel", for now)
    with pytest.raises(InvalidInput, match=r"turns\[1\]: time is required"):
        call(memory, "store_many", {"turns": [turns[1], {"speaker": "Melanie", "text": "no time", "session": 1}]})
    with pytest.raises(InvalidInput, match=r"edges\[0\]"):  # (T0's new reading, Mel as Melanie, rolled back)
        call(memory, "store_many", {"turns": turns[1:3], "edges": [{"source_id": "T0", "target_id": "nowhere"}]})
    assert held() == before


def test_a_session_continued_over_stdio(location):
    async def work(client: Client) -> None:
        turns = _turns(ids=True)
        for start in range(0, len(turns), 2):
            stored = await ok(client, "store_many", {"namespace": "mel", "turns": turns[start : start + 2]})
            assert [t["id"] for t in stored["turns"]] == [t["id"] for t in turns[start : start + 2]]
        edges = await ok(client, "list_edges", {"namespace": "mel", "edge_type": "temporal", "limit": 100})
        assert sorted((e["source_id"], e["target_id"]) for e in edges["edges"]) == [
            ("T0", "T1"), ("T1", "T2"), ("T3", "T4"), ("T4", "T5"), ("T5", "T6"), ("T7", "T8")
        ]  # fmt: skip
        found = await ok(client, "retrieve_context", {"namespace": "mel", "query": "What did Melanie paint?"})
        assert found["results"][0]["id"] == "T3"

    over_stdio(location, work)


def _asked(memory: Any, question: str) -> list[tuple[str, float]]:
    return [(r["id"], r["score"]) for r in call(memory, "retrieve_context", {"query": question})["results"]]


def test_a_speakers_short_name_in_a_question_asks_as_the_full_name(store):
    """ "Mel", asked, is Melanie when it would be read so in a turn: the same results as
    "Melanie" (not Caroline's "Hey Mel!"); a sentence's first word and a word in lower case
    that begin a speaker's name ("Will", "will" for Willow) stay what they are."""
    memory = memory_on(store)
    willow = {"id": "W", "speaker": "Willow", "text": "I will paint the fence with Caroline.", "time": TWO,
              "session": 2}  # fmt: skip
    call(memory, "store_many", {"turns": [*_turns(ids=True)[:7], willow]})
    for short, full in [
        ("What did Mel paint?", "What did Melanie paint?"),
        ("Where did Mel go last Saturday?", "Where did Melanie go last Saturday?"),
        ("What is Mel's pottery day?", "What is Melanie's pottery day?"),
    ]:
        assert _asked(memory, short) == _asked(memory, full)
    assert _asked(memory, "What did Mel paint?")[0][0] == "T3"
    assert _asked(memory, "Will Melanie paint?") == _asked(memory, "will Melanie paint?")
    assert _asked(memory, "Will Melanie paint?") != _asked(memory, "Willow Melanie paint?")


def test_a_turn_sent_again_with_blanks_around_or_its_session_as_text_is_the_same_turn(store):
    memory = memory_on(store)
    turn = {"speaker": "Jo", "text": "Hi Zoe!", "time": ONE, "session": 2, "caption": "a dog"}
    first = call(memory, "store_many", {"turns": [turn]})["turns"]
    for again in (
        {**turn, "text": "Hi Zoe!  \n", "speaker": " Jo", "caption": "a dog "},
        {**turn, "session": "2"},
        {**turn, "id": first[0]["id"], "session": "2", "text": " Hi Zoe!"},
    ):
        assert call(memory, "store_many", {"turns": [again]})["turns"] == [{**first[0], "status": "unchanged"}]
    later = {**turn, "text": "Zoe?", "time": TWO, "session": "2"}  # (the session goes on: still the number 2)
    call(memory, "store_many", {"turns": [later]})
    nodes = call(memory, "query_graph", {"node_type": "episodic"})["nodes"]
    assert sorted((n["metadata"]["session"], n["metadata"]["turn"], n["content"]) for n in nodes) == [
        (2, 1, "Jo: Hi Zoe! [shares a photo: a dog]"), (2, 2, "Jo: Zoe? [shares a photo: a dog]")
    ]  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(
    order=st.permutations(range(len(CONVERSATION))),
    cuts=st.sets(st.integers(1, len(CONVERSATION) - 1)),
    ids=st.booleans(),
)
def test_a_conversation_said_in_any_order_is_the_one_in_time_order(order, cuts, ids):
    """Turns said at distinct times, written in any order and chunks: each takes its place in
    its session by time (places, neighbours, readings), as written at once in time order."""
    memory, at_once = memory_on(InMemoryStore()), memory_on(InMemoryStore())
    turns = [{**t, "time": f"{t['time'][:14]}{i:02d}:00Z"} for i, t in enumerate(_turns(ids))]
    _written(at_once, "times", turns, set())
    _written(memory, "times", [turns[i] for i in order], cuts)
    assert _read(memory, "times", ids) == _read(at_once, "times", ids)  # (without ids, ties go by derived id)
