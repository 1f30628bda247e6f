"""When a turn was said and who said it, told truly: a turn's day is its speaker's local day
(the offset its writer gave), a relative time word is never more precise than the time it is
relative to, weekends are the ones a speaker means, and a speaker written short ("Mel" beside
"Melanie") is the same speaker — on every store, written at once or a turn a call."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bendscope.memory.core.conversations.turns import MONTHS, dates_in
from bendscope.memory.core.names import key_id
from bendscope.memory.mcp.tools import call
from bendscope.memory.store.inmemory import InMemoryStore
from tests.memory.core.test_service import memory_on

LATE = "2023-05-08T23:30:00-07:00"  # a Monday evening in California: 9 May in UTC


def _nodes(memory: Any, namespace: str | None = None) -> dict[str, dict[str, Any]]:
    asked = {"limit": 1000, **({"namespace": namespace} if namespace else {})}
    return {n["id"]: n for n in call(memory, "query_graph", asked)["nodes"]}


def test_a_turn_is_said_on_its_speakers_local_day(store):
    memory = memory_on(store)
    turn = {"id": "T1", "speaker": "Caroline", "text": "I went to the gym yesterday and tonight I rest.", "time": LATE,
            "session": 1}  # fmt: skip
    call(memory, "store_many", {"turns": [turn]})
    node = _nodes(memory)["T1"]
    assert node["valid_from"] == "2023-05-09T06:30:00.000Z"  # (the moment, in UTC, as every time is kept)
    assert node["metadata"]["said"] == "8 May 2023" and node["metadata"]["offset"] == "-07:00"
    assert node["metadata"]["dates"] == {"yesterday": "7 May 2023", "tonight": "8 May 2023"}
    # a new speaker reads every stored turn anew: the offset, kept in the metadata, still holds
    call(memory, "store_many", {"turns": [{"id": "T2", "speaker": "Melanie", "text": "Nice!", "time": LATE,
                                           "session": 1}]})  # fmt: skip
    again = _nodes(memory)["T1"]
    assert again == node
    # without an offset (Z, or a date), the day is UTC's
    assert dates_in("yesterday", "2023-05-09T06:30:00Z") == {"yesterday": "8 May 2023"}
    assert dates_in("yesterday", "2023-05-09") == {"yesterday": "8 May 2023"}
    assert dates_in("yesterday", "2023-05-09T06:30:00+00:00") == {"yesterday": "8 May 2023"}


def test_a_turn_given_again_with_its_offset_is_read_anew():
    """A turn stored before its offset was kept (or with none) is read anew when given again."""
    memory = memory_on(InMemoryStore())
    turn = {"id": "T1", "speaker": "Caroline", "text": "Yesterday was long.", "time": "2023-05-09T06:30:00Z",
            "session": 1}  # fmt: skip
    call(memory, "store_many", {"turns": [turn]})
    assert _nodes(memory)["T1"]["metadata"]["dates"] == {"yesterday": "8 May 2023"}
    answer = call(memory, "store_many", {"turns": [{**turn, "time": LATE}]})
    assert answer["turns"] == [{"status": "updated", "id": "T1"}]
    assert _nodes(memory)["T1"]["metadata"]["dates"] == {"yesterday": "7 May 2023"}


def test_a_time_word_is_no_more_precise_than_the_time_it_is_relative_to(store):
    memory = memory_on(store)
    text = "Yesterday and last Saturday I painted; last week too, and last month, two months ago, in June, last year."
    turns = [
        {"id": "M", "speaker": "Melanie", "text": text, "time": "2023-05", "session": "may"},
        {"id": "Y", "speaker": "Melanie", "text": text, "time": "2023", "session": "year"},
        {"id": "D", "speaker": "Melanie", "text": text, "time": "2023-05-08", "session": "day"},
    ]
    call(memory, "store_many", {"turns": turns})
    nodes = _nodes(memory)
    month, year, day = (nodes[i]["metadata"] for i in "MYD")
    assert month["said"] == "May 2023" and month["precision"] == "month"
    # (told in the past, "two months ago, in June": the June before May 2023)
    assert month["dates"] == {"last month": "April 2023", "two months ago": "March 2023", "last year": "2022",
                              "in june": "June 2022"}  # fmt: skip
    assert year["said"] == "2023" and year["precision"] == "year" and year["dates"] == {"last year": "2022"}
    assert day["said"] == "8 May 2023" and "precision" not in day
    assert day["dates"]["yesterday"] == "7 May 2023" and day["dates"]["last saturday"] == "6 May 2023"
    # a month's turns keep their precision when the conversation is read anew (a new speaker)
    call(memory, "store_many", {"turns": [{"speaker": "Caroline", "text": "Lovely.", "time": "2023-05",
                                           "session": "may"}]})  # fmt: skip
    assert _nodes(memory)["M"]["metadata"] == month


@pytest.mark.parametrize(
    ("said", "this", "last", "following"),
    [
        ("2023-05-08", "13 May 2023", "6 May 2023", "20 May 2023"),  # a Monday: the coming weekend
        ("2023-05-11", "13 May 2023", "6 May 2023", "20 May 2023"),  # a Thursday
        ("2023-05-12", "13 May 2023", "6 May 2023", "20 May 2023"),  # a Friday
        ("2023-05-13", "13 May 2023", "6 May 2023", "20 May 2023"),  # a Saturday: this one
        ("2023-05-14", "13 May 2023", "6 May 2023", "20 May 2023"),  # a Sunday: this one, begun yesterday
    ],
)
def test_weekends_are_the_ones_a_speaker_means(said, this, last, following):
    found = dates_in("This weekend, then last weekend and next weekend.", said)
    assert found == {"this weekend": f"the weekend of {this}", "last weekend": f"the weekend of {last}",
                     "next weekend": f"the weekend of {following}"}  # fmt: skip


@given(st.dates(min_value=datetime.date(1900, 1, 8), max_value=datetime.date(2200, 1, 1)))
def test_this_weekend_is_the_current_or_the_coming_one(day):
    found = dates_in("this weekend, last weekend, next weekend", day.isoformat())
    saturday = {
        word: datetime.datetime.strptime(found[f"{word} weekend"].removeprefix("the weekend of "), "%d %B %Y").date()
        for word in ("this", "last", "next")
    }
    assert saturday["this"].weekday() == 5
    assert 0 <= (saturday["this"] - day).days <= 5 if day.weekday() < 5 else (day - saturday["this"]).days in (0, 1)
    assert saturday["last"] == saturday["this"] - datetime.timedelta(7) < day
    assert saturday["next"] == saturday["this"] + datetime.timedelta(7) > day


SPOKEN = [
    {"id": "S1", "speaker": "Melanie", "text": "I painted a lake sunrise.", "time": "2023-05-08", "session": 1},
    {"id": "S2", "speaker": "Caroline", "text": "Lovely! I love pottery.", "time": "2023-05-08", "session": 1},
    {"id": "S3", "speaker": "Mel", "text": "Thanks Caroline! I also took up pottery.", "time": "2023-05-08",
     "session": 1},
]  # fmt: skip


def test_a_speaker_written_short_is_the_same_speaker(store):
    memory = memory_on(store)
    answer = call(memory, "store_many", {"turns": SPOKEN})
    melanie = key_id(None, "melanie")
    assert answer["entities"]["Melanie"] == answer["entities"]["Mel"] == melanie
    assert answer["merged_into"] == {"Mel": melanie}
    nodes = _nodes(memory)
    assert key_id(None, "mel") not in nodes and nodes[melanie]["content"] == "Melanie"
    assert nodes["S3"]["content"] == "Mel: Thanks Caroline! I also took up pottery."  # (as said)
    assert nodes["S3"]["metadata"]["speaker"] == "Mel" and nodes["S3"]["metadata"]["speaker_key"] == "melanie"
    assert "speaker_key" not in nodes["S1"]["metadata"]
    found = call(memory, "retrieve_context", {"query": "What did Melanie say about pottery?"})["results"]
    assert found[0]["id"] == "S3"


def test_a_short_form_of_two_speakers_stays_a_speaker_of_its_own(store):
    memory = memory_on(store)
    melissa = {"id": "S4", "speaker": "Melissa", "text": "Hi all!", "time": "2023-05-08", "session": 1}
    answer = call(memory, "store_many", {"turns": [*SPOKEN, melissa]})
    assert "merged_into" not in answer
    assert len({answer["entities"][name] for name in ("Mel", "Melanie", "Melissa")}) == 3
    nodes = _nodes(memory)
    assert nodes[key_id(None, "mel")]["content"] == "Mel" and "speaker_key" not in nodes["S3"]["metadata"]
    # and in another namespace, "Mel" beside no Melanie is a speaker of its own
    alone = call(memory, "store_many", {"namespace": "b", "turns": [{**SPOKEN[2], "id": None}]})
    assert "merged_into" not in alone and alone["entities"]["Mel"] == key_id("b", "mel")


def _held(memory: Any, namespace: str) -> tuple[Any, ...]:
    nodes = _nodes(memory, namespace)
    content = {i: n["content"] for i, n in nodes.items()}
    held = sorted(repr((n["content"], n["valid_from"], {**n["metadata"], "namespace": None})) for n in nodes.values())
    edges = call(memory, "list_edges", {"namespace": namespace, "limit": 1000})["edges"]
    return held, sorted((content[e["source_id"]], content[e["target_id"]], e["edge_type"]) for e in edges)


@pytest.mark.parametrize("order", [[2, 0, 1, 3], [0, 1, 2, 3], [2, 3, 0, 1]])
def test_short_speakers_and_local_days_turn_by_turn_as_at_once(store, order):
    """Written a turn a call in any order of sessions — "Mel" before or after Melanie speaks,
    then Melissa, who makes "Mel" ambiguous — the memory holds what one call makes."""
    turns = [
        {**SPOKEN[2], "session": 2, "time": LATE},
        {**SPOKEN[0], "session": 1},
        {**SPOKEN[1], "session": "may", "time": "2023-05"},
        {"speaker": "Melissa", "text": "Hi Mel! Yesterday was fun.", "time": LATE, "session": 3},
    ]
    turns = [{k: v for k, v in t.items() if k != "id"} for t in turns]  # (ids derived in each namespace)
    memory = memory_on(store)
    call(memory, "store_many", {"namespace": "at-once", "turns": [turns[i] for i in sorted(order[:3])]})
    for i in order[:3]:
        call(memory, "store_many", {"namespace": "by-turn", "turns": [turns[i]]})
    assert _held(memory, "by-turn") == _held(memory, "at-once")
    if 0 in order[:3] and 1 in order[:3]:
        mel = [n for n in _nodes(memory, "by-turn").values() if n["metadata"].get("speaker") == "Mel"]
        assert mel[0]["metadata"]["speaker_key"] == "melanie"
    call(memory, "store_many", {"namespace": "at-once", "turns": [turns[order[3]]]})
    call(memory, "store_many", {"namespace": "by-turn", "turns": [turns[order[3]]]})
    assert _held(memory, "by-turn") == _held(memory, "at-once")


def test_speaker_aliases():
    from bendscope.memory.core.conversations.turns import speaker_aliases

    assert speaker_aliases(["mel", "melanie"]) == {"mel": "melanie"}
    assert speaker_aliases(["mel", "melanie", "melissa"]) == {}
    assert speaker_aliases(["liz", "elizabeth", "caroline"]) == {"liz": "elizabeth"}
    assert speaker_aliases(["jo", "joanna"]) == {}  # (two letters: too short to tell)
    assert speaker_aliases(["mel", "melanie smith"]) == {"mel": "melanie smith"}


BOUNDED = [
    {"id": "A", "speaker": "Caroline", "text": "I painted a portrait.", "time": "2023-07-01T10:00:00Z", "session": 3},
    {"id": "B", "speaker": "Caroline", "text": "I painted a mural.", "time": "2023-05-08T10:00:00Z", "session": 1},
    {"id": "P", "speaker": "Caroline", "text": "The Pride parade was amazing.", "time": "2023-06-10T10:00:00Z",
     "session": 2},
    {"id": "M", "speaker": "Melanie", "text": "Lovely to hear.", "time": "2023-06-10T10:00:00Z", "session": 2},
]  # fmt: skip


@pytest.mark.parametrize("july", ["A", "B"])  # (ties go by id: each side is shown against it)
@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("What did Caroline paint before the parade?", "may"),
        ("What did Caroline paint after the parade?", "july"),
        ("What did Caroline paint before June 2023?", "may"),
        ("What did Caroline paint since June 10, 2023?", "july"),
    ],
)
def test_a_question_bound_in_time_favours_the_turns_on_its_side(store, question, first, july):
    memory = memory_on(store)
    ids = {"july": july, "may": "B" if july == "A" else "A"}
    turns = [{**t, "id": ids["july"] if t["id"] == "A" else ids["may"] if t["id"] == "B" else t["id"]} for t in BOUNDED]
    call(memory, "store_many", {"turns": turns})
    found = [r["id"] for r in call(memory, "retrieve_context", {"query": question})["results"]]
    painted = [i for i in found if i in ("A", "B")]
    assert painted[0] == ids[first], found


def test_turns_stored_before_are_read_anew_at_the_next_write(store):
    """A conversation stored before weekends and short speakers were read so (its turns' metadata
    as that reading left it, "Mel" an entity of its own) is read anew at its next write, as
    one call now makes it; a turn stored without its offset or precision keeps its day until
    it is given again (``test_a_turn_given_again_with_its_offset_is_read_anew``)."""
    import dataclasses

    memory = memory_on(store)
    weekend = {"speaker": "Caroline", "text": "Camping this weekend!", "time": "2023-05-08T10:00:00Z", "session": 1}
    turns = [{k: v for k, v in t.items() if k != "id"} for t in [*SPOKEN, weekend]]
    call(memory, "store_many", {"namespace": "now", "turns": turns})
    call(memory, "store_many", {"namespace": "before", "turns": turns})
    with store.transaction():  # (what the turns held when stored before)
        for node in store.get_nodes(store.namespace_ids("before")).values():
            metadata = {k: v for k, v in node.metadata.items() if k != "speaker_key"}
            if "dates" in metadata:
                metadata["dates"] = {"this weekend": "the weekend of 6 May 2023"}
            store.put_node(dataclasses.replace(node, metadata=metadata))
    call(memory, "store_many", {"namespace": "before", "nodes": [{"key": "Mel"}]})
    assert _held(memory, "before") != _held(memory, "now")
    later = {"speaker": "Melanie", "text": "Have fun!", "time": "2023-05-08T10:05:00Z", "session": 1}
    for namespace in ("before", "now"):
        call(memory, "store_many", {"namespace": namespace, "turns": [later]})
    assert _held(memory, "before") == _held(memory, "now")


def _date(words: str) -> datetime.date:
    return datetime.datetime.strptime(words, "%d %B %Y").date()


def test_two_days_weeks_months_or_years_away_are_not_one():
    said = "2023-05-08"
    assert dates_in("The day before yesterday I swam. Yesterday I ran.", said) == {
        "the day before yesterday": "6 May 2023", "yesterday": "7 May 2023"}  # fmt: skip
    assert dates_in("We fly the day after tomorrow, not tomorrow.", said) == {
        "the day after tomorrow": "10 May 2023", "tomorrow": "9 May 2023"}  # fmt: skip
    assert dates_in("The week before last, the month before last; the year after next.", said) == {
        "the week before last": "the week of 24 April 2023", "the month before last": "March 2023",
        "the year after next": "2025"}  # fmt: skip
    assert dates_in("the day before yesterday", "2023-05") == {}  # (a month said: any day)


@given(st.dates(min_value=datetime.date(1900, 1, 8), max_value=datetime.date(2200, 1, 1)), st.sampled_from(MONTHS))
def test_since_a_month_is_past_and_until_a_month_is_to_come(day, month):
    name = month.capitalize()
    found = dates_in(f"Since {name} I have been taking pottery classes, until {name}.", day.isoformat())
    since = datetime.datetime.strptime(found[f"since {month}"], "%B %Y").date()
    until = datetime.datetime.strptime(found[f"until {month}"], "%B %Y").date()
    assert since <= day and (day - since).days < 366 and since.month == until.month == MONTHS.index(month) + 1
    assert until >= day.replace(day=1) and (until - day).days < 366


@given(st.dates(min_value=datetime.date(1900, 1, 8), max_value=datetime.date(2200, 1, 1)))
def test_last_and_next_christmas_are_the_ones_either_side(day):
    found = dates_in("Last Christmas I gave you my heart; next Christmas, since New Year's Day.", day.isoformat())
    last, after, since = (_date(found[k]) for k in ("last christmas", "next christmas", "since new year's day"))
    assert (last.month, last.day, after.month, after.day) == (12, 25, 12, 25) and last < day < after
    assert after.year - last.year in (1, 2) and since == datetime.date(day.year, 1, 1)
    assert dates_in("Since April I have been taking pottery classes", "2024-02-29") == {"since april": "April 2023"}
