"""Time words as people write them, read from the day a turn was said: holidays after "at",
"on", "for" (moving ones too: Easter, Thanksgiving, Mother's Day, …), a day of a month in the
year the clause's tense says, days written as ordinals, seasons, "this month", "earlier this
year", "in two weeks", "two weekends ago", "on Friday"."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bendscope.memory.core.conversations import bounds
from bendscope.memory.core.conversations.holidays import easter, holiday_day
from bendscope.memory.core.conversations.when import MONTHS, dates_in
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on

MONDAY = "2023-05-08T13:56:00Z"  # a Monday
DAYS = st.dates(min_value=datetime.date(1900, 3, 1), max_value=datetime.date(2200, 1, 1))


def _date(words: str) -> datetime.date:
    return datetime.datetime.strptime(words, "%d %B %Y").date()


def test_holidays_after_at_on_and_for_moving_ones_too():
    found = dates_in("We went home at Easter, and on Thanksgiving we will cook. On New Year's Eve we danced.", MONDAY)
    assert found == {"at easter": "9 April 2023", "on thanksgiving": "23 November 2023",
                     "on new year's eve": "31 December 2022"}  # fmt: skip
    found = dates_in("On Mother's Day I called Mum; for Father’s Day I will buy a tie.", MONDAY)
    assert found == {"on mother's day": "8 May 2022", "for father's day": "18 June 2023"}
    assert dates_in("On Memorial Day we went out, on Labor Day we rested.", MONDAY) == {
        "on memorial day": "30 May 2022", "on labor day": "5 September 2022"
    }  # fmt: skip
    assert dates_in("On Good Friday we sang.", MONDAY) == {"on good friday": "7 April 2023"}
    # a holiday's name alone places nothing in time
    assert dates_in("I bought a Christmas tree and Easter eggs.", MONDAY) == {}


@given(st.integers(min_value=1900, max_value=2200))
def test_moving_holidays_fall_on_their_weekdays(year):
    sunday = easter(year)
    assert sunday.weekday() == 6 and datetime.date(year, 3, 22) <= sunday <= datetime.date(year, 4, 25)
    thanksgiving = holiday_day("thanksgiving", year)
    assert thanksgiving.weekday() == 3 and thanksgiving.month == 11 and 22 <= thanksgiving.day <= 28
    assert holiday_day("good friday", year) == sunday - datetime.timedelta(days=2)
    memorial, labor = holiday_day("memorial day", year), holiday_day("labor day", year)
    assert memorial.weekday() == 0 and memorial.month == 5 and memorial.day >= 25
    assert labor.weekday() == 0 and labor.month == 9 and labor.day <= 7
    mothers, fathers = holiday_day("mother's day", year), holiday_day("father's day", year)
    assert (mothers.weekday(), mothers.month, fathers.weekday(), fathers.month) == (6, 5, 6, 6)
    assert 8 <= mothers.day <= 14 and 15 <= fathers.day <= 21


@given(DAYS, st.sampled_from(["Easter", "Thanksgiving", "Christmas", "Mother's Day"]))
def test_a_holiday_told_in_the_past_is_the_last_one_and_told_ahead_the_coming_one(day, name):
    past = _date(dates_in(f"We went to the lake at {name}.", day.isoformat())[f"at {name.lower()}"])
    ahead = _date(dates_in(f"We will go to the lake at {name}.", day.isoformat())[f"at {name.lower()}"])
    key = name.lower()
    assert past <= day <= ahead and past == holiday_day(key, past.year) and ahead == holiday_day(key, ahead.year)
    assert holiday_day(key, past.year + 1) > day and holiday_day(key, ahead.year - 1) < day  # (none between)


def test_a_day_of_a_month_is_in_the_year_its_tense_says():
    said = "2023-05-03T10:00:00Z"
    assert dates_in("Since May 5th I have been running.", said) == {"since may 5th": "5 May 2022"}
    assert dates_in("On May 5th I ran a race.", said) == {"on may 5th": "5 May 2022"}
    assert dates_in("I will run a race on May 5th.", said) == {"on may 5th": "5 May 2023"}
    assert dates_in("I ran on the fifth of May; it was the twenty-first of April.", said) == {
        "on the fifth of may": "5 May 2022", "twenty-first of april": "21 April 2023"
    }  # fmt: skip
    assert dates_in("We will go on May the first.", said) == {"on may the first": "1 May 2024"}
    # a day in digits alone: which is the day and which the month cannot be told
    assert dates_in("See you on 5/5, or 6/5.", said) == {}
    # a month alone, told in the past or ahead
    assert dates_in("We went to Rome in June.", said) == {"in june": "June 2022"}
    assert dates_in("We are going to Rome in April.", said) == {"in april": "April 2024"}


def test_a_day_of_a_month_told_neither_way_is_the_nearest_by_days():
    said = "2025-03-22T10:00:00Z"  # 13 September 2025 is 175 days ahead, 13 September 2024 190 back
    found = dates_in("We set the wedding date: the 13th of September, in Bremen.", said)
    assert found == {"13th of september": "13 September 2025"}
    assert dates_in("The party is on the 30th of September.", said) == {"on the 30th of september": "30 September 2024"}


@given(DAYS, st.sampled_from(MONTHS), st.integers(min_value=1, max_value=28))
def test_a_day_told_neither_way_is_within_half_a_year(day, month, date):
    found = dates_in(f"The party is on {month.capitalize()} {date}.", day.isoformat())
    assert abs((_date(found[f"on {month} {date}"]) - day).days) <= 183


@given(DAYS, st.sampled_from(MONTHS), st.integers(min_value=1, max_value=28))
def test_since_and_by_a_day_are_either_side_of_the_day_said(day, month, date):
    name = month.capitalize()
    found = dates_in(f"Since {name} {date} I have been running; I will stop by {name} {date}.", day.isoformat())
    since, by = _date(found[f"since {month} {date}"]), _date(found[f"by {month} {date}"])
    assert since <= day <= by and (day - since).days < 366 and (by - day).days < 366
    assert (since.month, since.day, by.month, by.day) == (MONTHS.index(month) + 1, date) * 2


def test_seasons_months_years_and_weeks_from_the_day_said():
    said = "2023-07-14T10:00:00Z"
    assert dates_in("Over the summer we went camping; last summer too.", said) == {
        "over the summer": "summer 2023", "last summer": "summer 2022"
    }  # fmt: skip
    assert dates_in("In the spring we will plant. This past winter was cold.", said) == {
        "in the spring": "spring 2024", "this past winter": "winter 2022–2023"
    }  # fmt: skip
    assert dates_in("In the fall of 2021 we met.", said) == {}  # (a year given: no relative word)
    assert dates_in("A couple weeks ago I painted; last month and earlier this year too.", said) == {
        "a couple weeks ago": "30 June 2023", "last month": "June 2023", "earlier this year": "2023"
    }  # fmt: skip
    assert dates_in("This week I painted, this month I sang, this morning I ran.", said) == {
        "this week": "the week of 10 July 2023", "this month": "July 2023", "this morning": "14 July 2023"
    }  # fmt: skip
    assert dates_in("We fly in two weeks, a month from now we rest, in a year we move.", said) == {
        "in two weeks": "28 July 2023", "a month from now": "August 2023", "in a year": "2024"
    }  # fmt: skip
    # said in a month alone, a week or a day is finer than what is known
    assert dates_in("This week I painted, this month I sang, in two weeks I fly.", "2023-07") == {
        "this month": "July 2023"
    }  # fmt: skip


def test_weekends_and_weekdays_by_the_clause_tense():
    assert dates_in("I ran two weekends ago and the weekend before last.", MONDAY) == {
        "two weekends ago": "the weekend of 29 April 2023", "the weekend before last": "the weekend of 29 April 2023"
    }  # fmt: skip
    assert dates_in("Over the weekend I went hiking.", MONDAY) == {"over the weekend": "the weekend of 6 May 2023"}
    assert dates_in("Over the weekend I will go hiking.", MONDAY) == {"over the weekend": "the weekend of 13 May 2023"}
    assert dates_in("On Friday I went to the pottery class.", MONDAY) == {"on friday": "5 May 2023"}
    assert dates_in("On Friday I will go to the pottery class.", MONDAY) == {"on friday": "12 May 2023"}
    assert dates_in("This Friday we meet.", MONDAY) == {"this friday": "12 May 2023"}
    assert dates_in("On Friday the class meets.", MONDAY) == {}  # (neither past nor ahead: which Friday?)


EVENTS = [
    ("2023-01-10T10:00:00Z", "Sam", "I worked at a bakery, baking bread every morning."),
    ("2023-03-10T10:00:00Z", "Sam", "Guess what, I joined Acme last month as an engineer!"),
    ("2023-03-10T10:05:00Z", "Kim", "Congrats on Acme!"),
    ("2023-07-10T10:00:00Z", "Kim", "We moved to Denver, the move was hard."),
]


def test_an_event_told_with_its_time_bounds_a_question_by_that_time(store):
    memory = memory_on(store)
    turns = [
        {"id": f"t{i}", "speaker": s, "text": t, "time": w, "session": i + 1} for i, (w, s, t) in enumerate(EVENTS)
    ]
    call(memory, "store_many", {"turns": turns})
    joined = bounds.time_bound(store, "What did Sam do before joining Acme?", lambda node: True)
    assert joined is not None and (joined.side, joined.start, joined.end) == (
        "before", datetime.date(2023, 2, 1), datetime.date(2023, 2, 28)
    )  # fmt: skip
    # (told "last month": the congratulations said on the day it was told are after it)
    assert not joined.holds({"said": "10 March 2023"}) and joined.holds({"said": "10 January 2023"})
    moved = bounds.time_bound(store, "What did Kim do after the move?", lambda node: True)
    assert moved is not None and (moved.start, moved.end) == (datetime.date(2023, 7, 10),) * 2  # (said that day)
    assert bounds.period("summer 2023") == (datetime.date(2023, 6, 1), datetime.date(2023, 8, 31))
    assert bounds.period("winter 2022–2023") == (datetime.date(2022, 12, 1), datetime.date(2023, 2, 28))


@pytest.mark.parametrize("summer", ["A", "B"])  # (ties go by id: each side is shown against it)
def test_a_question_naming_a_season_favours_the_turns_of_its_months(store, summer):
    memory = memory_on(store)
    winter = "B" if summer == "A" else "A"
    turns = [
        {"id": summer, "speaker": "Kim", "text": "I went hiking with friends.", "time": "2023-07-10T10:00:00Z",
         "session": 2},
        {"id": winter, "speaker": "Kim", "text": "I went hiking with friends.", "time": "2023-01-10T10:00:00Z",
         "session": 1},
    ]  # fmt: skip
    call(memory, "store_many", {"turns": turns})
    found = [
        r["id"] for r in call(memory, "retrieve_context", {"query": "When did Kim go hiking in the summer?"})["results"]
    ]
    assert found[0] == summer, found


EVERY_FORM = (
    "Yesterday, last Saturday, on Friday I went, this Friday I will, over the weekend we went, two weekends ago, "
    "in two weeks, a year from now, this month, earlier this year; since May 5th I ran; I will run on the fifth of "
    "May; we went in June; next Christmas, at Easter we went; on Thanksgiving we will; last summer; next winter; "
    "in the spring we went; on February 29th we went; the thirty-first of June; the year after next, 3 years ago."
)


@given(
    st.dates(min_value=datetime.date(1, 1, 1), max_value=datetime.date(9999, 12, 31)),
    st.sampled_from(["", "T12:00:00Z", "T23:30:00-07:00", "month", "year"]),
)
def test_every_form_reads_on_any_day_a_turn_may_be_said(day, tail):
    when = {"month": day.isoformat()[:7], "year": day.isoformat()[:4]}.get(tail, day.isoformat() + tail)
    found = dates_in(EVERY_FORM, when)
    assert "the thirty-first of june" not in found  # (a day the month has not)
    if 1900 <= day.year <= 2200 and tail in ("", "T12:00:00Z"):
        assert {"since may 5th", "at easter", "last summer", "two weekends ago"} <= set(found)
