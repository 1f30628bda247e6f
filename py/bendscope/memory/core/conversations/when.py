"""Time words: when a turn was said (a timestamp in the speaker's local day, a date, a month or a
year) and what its relative time words stand for from then — "yesterday", "last Saturday",
"this weekend", "two weeks ago", "in May" — in words, never more precise than the time they are
relative to. Deterministic, no model.

>>> dates_in("I went to a support group yesterday and last Saturday.", "2023-05-08T13:56:00.000Z")
{'yesterday': '7 May 2023', 'last saturday': '6 May 2023'}
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple of": 2}  # fmt: skip
_RELATIVE = re.compile(
    r"\b((?:the )?day before yesterday|(?:the )?day after tomorrow|"
    r"(?:the )?(?:week|month|year) (?:before last|after next)|"
    r"yesterday|today|tonight|tomorrow|last night|(?:last|this|next) weekend|"
    r"(?:last|next) (?:week|month|year|" + "|".join(WEEKDAYS) + r")|"
    r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of) "
    r"(day|week|month|year)s? ago)\b",
    re.IGNORECASE,
)
_MONTH = "|".join(m.capitalize() for m in MONTHS)
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
#: a month named without a year ("in May", "last March", "on May 5th", "the 3rd of June"); a
#: year just after it makes it a full date, not one of these
_MONTH_DAY = re.compile(
    rf"\b(?:(?:(?i:in|this|last|next|since|until|by|during|early|mid|late)[ -]+)+({_MONTH})|"
    rf"({_MONTH}) {_ORDINAL}|{_ORDINAL}(?: of)? ({_MONTH}))\b(?!,? *\d)"
)


#: a day, week, month or year two away: "the day before yesterday", "the week after next"
_TWO_AWAY = re.compile(r"(?:the )?(day|week|month|year) (before|after) (?:yesterday|tomorrow|last|next)")


def _two_away(said: datetime, unit: str, sign: int) -> str:
    """The day, week, month or year two before (``sign`` -1) or after the one ``said`` is in.

    >>> said = datetime(2023, 5, 8)
    >>> _two_away(said, "day", -1), _two_away(said, "week", 1), _two_away(said, "month", -1), _two_away(said, "year", 1)
    ('6 May 2023', 'the week of 22 May 2023', 'March 2023', '2025')
    """
    if unit == "day":
        return _day(said + timedelta(days=2 * sign))
    if unit == "week":
        return f"the week of {_day(said + timedelta(days=14 * sign))}"
    if unit == "month":
        return f"{_months_before(said, -2 * sign):%B %Y}"
    return str(said.year + 2 * sign)


def _day(moment_: datetime) -> str:
    return f"{moment_.day} {moment_:%B %Y}"


def _months_before(moment_: datetime, count: int) -> datetime:
    month = moment_.month - 1 - count
    return moment_.replace(year=moment_.year + month // 12, month=month % 12 + 1, day=1)


def _year_of(said: datetime, month: int, step: str) -> int:
    """The year of the ``month`` a speaker means on the day ``said``: "last" the one before that
    day's month, "next" the one after, "since" the last one begun by then (the past), "until"
    and "by" the next one not yet over (the future), "this" the day's year; otherwise the nearest
    (half a year away: the one past).

    >>> [_year_of(datetime(2024, 2, 29), 4, step) for step in ("since", "until", "in", "last")]
    [2023, 2024, 2024, 2023]
    """
    if step == "last":
        return said.year - (month >= said.month)
    if step == "next":
        return said.year + (month <= said.month)
    if step == "since":
        return said.year - (month > said.month)
    if step in ("until", "by"):
        return said.year + (month < said.month)
    if step == "this":
        return said.year
    ahead = month - said.month
    return said.year - (ahead >= 6) + (ahead < -6)


def _months_and_days(text: str, said: datetime, found: dict[str, str]) -> None:
    """Add to ``found`` the months and days ``text`` names without a year, in the year meant."""
    for match in _MONTH_DAY.finditer(text):
        phrase = " ".join(match.group(0).lower().split())
        if phrase in found:
            continue
        name = match.group(1) or match.group(2) or match.group(5)
        month = MONTHS.index(name.lower()) + 1
        step = phrase.split()[0].split("-")[0]
        year = _year_of(said, month, step)
        day = match.group(3) or match.group(4)
        if day is None:
            found[phrase] = f"{name} {year}"
        elif 1 <= int(day) <= 31:
            try:
                found[phrase] = _day(datetime(year, month, int(day)))
            except ValueError:  # (a day the month has not: 31 June)
                continue


#: the holidays on a fixed date, each with its month and day
HOLIDAYS = {"christmas eve": (12, 24), "christmas": (12, 25), "new year's eve": (12, 31), "new year's day": (1, 1),
            "halloween": (10, 31), "valentine's day": (2, 14)}  # fmt: skip
_HOLIDAY = re.compile(
    r"\b(last|this|next|since|until|by) (christmas eve|christmas|new year['’]s eve|new year['’]s day|halloween|"
    r"valentine['’]s day)\b",
    re.IGNORECASE,
)


def _holidays(text: str, said: datetime, month_only: bool, found: dict[str, str]) -> None:
    """Add to ``found`` the holidays on a fixed date ``text`` names after "last", "this", "next",
    "since", "until" or "by" ("last Christmas"): "last" the one before the day said, "next" the
    one after, "since" the last one by then, "until"/"by" the next one from then, "this" the
    year's. Said in a month alone (``month_only``), one in that month could be either side.

    >>> found = {}
    >>> _holidays("Last Christmas, since Halloween, until New Year's Eve", datetime(2024, 2, 29), False, found)
    >>> list(found.values())
    ['25 December 2023', '31 October 2023', '31 December 2024']
    """
    day = said.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    for match in _HOLIDAY.finditer(text):
        phrase = " ".join(match.group(0).lower().replace("’", "'").split())
        step, name = phrase.split(" ", 1)
        month, date = HOLIDAYS[name]
        if phrase in found or (month_only and month == said.month and step != "this"):
            continue
        this = datetime(said.year, month, date)
        if step == "this":
            when = this
        elif step in ("last", "since"):
            past = this < day or (step == "since" and this == day)
            when = this if past else this.replace(year=said.year - 1)
        else:
            ahead = this > day or (step != "next" and this == day)
            when = this if ahead else this.replace(year=said.year + 1)
        found[phrase] = _day(when)


#: how fine a time or a time word is: a day (or finer), a week, a month, a year
_FINENESS = {"day": 0, "week": 1, "month": 2, "year": 3}


def said_at(when: str) -> tuple[datetime, str]:
    """A turn's time as its writer gave it — a timestamp (its offset kept: the speaker's local
    day), a date, a month ``2023-05`` or a year ``2023`` — as the moment it stands for (a month
    or a year: its first day) and its precision (``day``, ``month`` or ``year``).

    >>> said_at("2023-05-08T23:30:00-07:00")[0].day, said_at("2023-05"), said_at("2023")[1]
    (8, (datetime.datetime(2023, 5, 1, 0, 0), 'month'), 'year')
    """
    if re.fullmatch(r"\d{4}", when):
        return datetime(int(when), 1, 1), "year"
    if re.fullmatch(r"\d{4}-\d\d", when):
        return datetime(int(when[:4]), int(when[5:]), 1), "month"
    return datetime.fromisoformat(when.replace("Z", "+00:00")), "day"


def said_in_words(when: str) -> str:
    """The date a turn was said (``said_at``), in words, no more precise than it was given.

    >>> said_in_words("2023-05-09T06:30:00Z"), said_in_words("2023-05-08T23:30:00-07:00"), said_in_words("2023-05")
    ('9 May 2023', '8 May 2023', 'May 2023')
    """
    said, precision = said_at(when)
    return _day(said) if precision == "day" else f"{said:%B %Y}" if precision == "month" else str(said.year)


def _weekend(said: datetime, phrase: str) -> str:
    """The weekend "this weekend" / "last weekend" / "next weekend" stands for, said on ``said``:
    "this" the coming one said Monday to Friday, the current one said on a Saturday or a
    Sunday; "last" the one before that, "next" the one after it."""
    saturday = said - timedelta(days=1) if said.weekday() == 6 else said + timedelta(days=5 - said.weekday())
    step = {"last": -7, "this": 0, "next": 7}[phrase.split()[0]]
    return f"the weekend of {_day(saturday + timedelta(days=step))}"


def dates_in(text: str, when: str) -> dict[str, str]:
    """The relative time words of ``text`` (said at ``when``: see ``said_at``; the local day at
    a timestamp's offset, UTC's without one), each with the date or period it stands for, in
    words, in the order they come — then the months and days it names without a year, in the
    year meant (``_year_of``). A word finer than the time it is said at is left out: "yesterday"
    said in "2023-05" (a month) could be any day, or April; "last month" is April 2023.

    >>> dates_in("yesterday", "2023-05-08T23:30:00-07:00"), dates_in("yesterday", "2023-05-08T23:30:00Z")
    ({'yesterday': '7 May 2023'}, {'yesterday': '7 May 2023'})
    >>> dates_in("yesterday", "2023-05-09T06:30:00Z")
    {'yesterday': '8 May 2023'}
    >>> dates_in("Yesterday, last Saturday, last month, in June.", "2023-05")
    {'last month': 'April 2023', 'in june': 'June 2023'}
    """
    said, precision = said_at(when)
    coarse = _FINENESS[precision]
    found: dict[str, str] = {}
    for match in _RELATIVE.finditer(text):
        phrase = " ".join(match.group(1).lower().split())
        if phrase in found:
            continue
        two = _TWO_AWAY.fullmatch(phrase)  # ("the day before yesterday", "the week after next")
        unit = match.group(3).lower() if phrase.endswith("ago") else two[1] if two else phrase.rsplit(" ", 1)[-1]
        unit = unit if unit in _FINENESS else "day"  # (weekdays, weekends, yesterday, …)
        if _FINENESS[unit] < coarse:
            continue
        if two:
            found[phrase] = _two_away(said, unit, -1 if two[2] in ("before", "last") else 1)
        elif phrase in ("yesterday", "last night"):
            found[phrase] = _day(said - timedelta(days=1))
        elif phrase in ("today", "tonight"):
            found[phrase] = _day(said)
        elif phrase == "tomorrow":
            found[phrase] = _day(said + timedelta(days=1))
        elif phrase.endswith("weekend"):
            found[phrase] = _weekend(said, phrase)
        elif phrase.endswith("ago"):
            count_word = match.group(2).lower()
            count = int(count_word) if count_word.isdigit() else _COUNTS.get(count_word.removeprefix("a "), 1)
            if unit in ("day", "week"):
                found[phrase] = _day(said - timedelta(days=count * (7 if unit == "week" else 1)))
            elif unit == "month":
                found[phrase] = f"{_months_before(said, count):%B %Y}"
            else:
                found[phrase] = str(said.year - count)
        else:
            step, unit = phrase.split(" ", 1)
            sign = -1 if step == "last" else 1
            if unit == "week":
                found[phrase] = f"the week of {_day(said + timedelta(days=7 * sign))}"
            elif unit == "month":
                found[phrase] = f"{_months_before(said, -sign):%B %Y}"
            elif unit == "year":
                found[phrase] = str(said.year + sign)
            else:  # a weekday: the one before the day it was said (or after, "next")
                target = WEEKDAYS.index(unit)
                days = (said.weekday() - target) % 7 or 7 if sign < 0 else (target - said.weekday()) % 7 or 7
                found[phrase] = _day(said + timedelta(days=sign * days))
    if coarse <= _FINENESS["month"]:  # (a month named without a year needs the month it is said in)
        _months_and_days(text, said, found)
        _holidays(text, said, precision == "month", found)
    return found
