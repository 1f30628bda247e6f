"""Time words: when a turn was said (a timestamp in the speaker's local day, a date, a month or a
year) and what its relative time words stand for from then — "yesterday", "last Saturday",
"this weekend", "two weeks ago", "in May" — in words, never more precise than the time they are
relative to. Deterministic, no model.

>>> dates_in("I went to a support group yesterday and last Saturday.", "2023-05-08T13:56:00.000Z")
{'yesterday': '7 May 2023', 'last saturday': '6 May 2023'}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from . import holidays

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple of": 2, "couple": 2}  # fmt: skip
_COUNT = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|a couple)"
_RELATIVE = re.compile(
    r"\b((?:the )?day before yesterday|(?:the )?day after tomorrow|"
    r"(?:the )?(?:week|month|year) (?:before last|after next)|"
    r"yesterday|today|tonight|tomorrow|last night|(?:last|this|next) weekend|"
    r"(?:last|next) (?:week|month|year|" + "|".join(WEEKDAYS) + r")|"
    rf"{_COUNT} (day|week|month|year)s? ago)\b",
    re.IGNORECASE,
)
_MONTH = "|".join(m.capitalize() for m in MONTHS)
_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                  "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                  "eighteenth", "nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third",
                  "twenty-fourth", "twenty-fifth", "twenty-sixth", "twenty-seventh", "twenty-eighth", "twenty-ninth",
                  "thirtieth", "thirty-first")  # fmt: skip
_ORDINAL = rf"(?:(\d{{1,2}})(?:st|nd|rd|th)?|((?i:{'|'.join(sorted(_ORDINAL_WORDS, key=len, reverse=True))})))"
#: the words before a month or a day that say which one is meant (``_year_of``)
_STEPS = r"(?i:in|on|this|last|next|since|until|till|by|during|early|mid|late|before|after|from)"
#: a month named without a year ("in May", "last March"), or a day of one, with or without such
#: words ("on May 5th", "since the 3rd of June", "the fifth of May", "May fifth"); a year just
#: after it makes it a full date, not one of these. A day in digits alone ("5/5") is left out:
#: which is the day and which the month cannot be told.
_MONTH_DAY = re.compile(
    rf"\b((?:{_STEPS}[ -]+)*)(?:(?:the )?{_ORDINAL}(?: of)? ({_MONTH})|({_MONTH}) (?:the )?{_ORDINAL}|({_MONTH}))"
    rf"\b(?!,? *\d)"
)
#: words that say a clause tells of what is to come, and of what is over (``_tense``)
_FUTURE = re.compile(
    r"\b(?:will|won['’]t|shall|gonna|going to|plan|plans|planning|planned to|hope to|hoping to|can['’]t wait|"
    r"cannot wait|looking forward|look forward|about to|upcoming|coming up|intend|intends|soon)\b|\w['’]ll\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:was|were|did|didn['’]t|had|went|got|made|took|came|saw|met|found|gave|told|said|felt|thought|bought|"
    r"brought|ran|won|lost|left|spent|began|knew|heard|wrote|read it|sang|swam|flew|drove|ate|drank|slept|sat|"
    r"stood|taught|caught|fought|built|sent|kept|held|paid|became|wore|broke|chose|fell|forgot|gave|grew|hid|"
    r"hurt|let|meant|put|quit|rode|rang|rose|shook|shot|shut|sold|spoke|stole|struck|threw|understood|woke|won|"
    r"ago|back then|used to|\w{2,}ed)\b",
    re.IGNORECASE,
)
#: words in -ed that tell no time (adjectives, and words that only end so)
_NOT_PAST = frozenset(
    """need needed feed seed speed breed indeed weed bleed proceed exceed succeed hundred kindred sacred naked
    wicked excited interested tired scared worried bored pleased supposed thrilled blessed stoked pumped
    dedicated motivated inspired determined based related allowed married engaged prepared scheduled
    booked planned interested""".split()  # noqa: SIM905
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


#: where a clause ends: a sentence's end, a semicolon, "and", "but" (not a comma: "On May 5th, I went")
_CLAUSE = re.compile(r"[.!?;]|\b(?:and|but)\b", re.IGNORECASE)


def _tense(text: str, start: int, end: int) -> str | None:
    """Whether the clause around ``text[start:end]`` (``_CLAUSE``) tells of the past or the future (by its
    words: "will", "going to", "planning" the future — first, as in "I was planning to go";
    "was", "went", a verb in -ed the past), or None.

    >>> _tense("We went there. We will go at Easter!", 26, 35), _tense("I went at Easter", 10, 16)
    ('future', 'past')
    >>> _tense("I am excited for Christmas", 17, 26) is None
    True
    """
    before = [m.end() for m in _CLAUSE.finditer(text, 0, start)]
    after = _CLAUSE.search(text, end)
    clause = text[before[-1] if before else 0 : start] + " " + text[end : after.start() if after else len(text)]
    if _FUTURE.search(clause):
        return "future"
    if any(m.group(0).lower() not in _NOT_PAST for m in _PAST.finditer(clause)):
        return "past"
    return None


def _day_year(said: datetime, month: int, day: int, step: str, tense: str | None) -> int | None:
    """The year of the day ``month``/``day`` a speaker means on the day ``said``: "last" the one
    before that day, "since" the last one by then, "next" the one after, "until" and "by" the
    next one from then, "this" the day's year; otherwise by the clause's ``tense``: the past the
    last one by then, the future the next one from then — and told neither, the nearest day
    (``_nearest_year``). None when there is no such day (29 February of a common year).

    >>> said = datetime(2023, 5, 3)
    >>> [_day_year(said, 5, 5, step, tense) for step, tense in (("since", None), ("on", "past"), ("on", "future"))]
    [2022, 2022, 2023]
    >>> _day_year(said, 5, 1, "on", "future"), _day_year(said, 5, 1, "in", None)
    (2024, 2023)
    """
    today = (said.month, said.day)
    rule = step if step in ("last", "next", "since", "until", "by", "till", "this") else tense
    if rule in ("last", "since", "past"):
        year = said.year - ((month, day) > today or (rule == "last" and (month, day) == today))
    elif rule in ("next", "until", "by", "till", "future"):
        year = said.year + ((month, day) < today or (rule == "next" and (month, day) == today))
    elif rule == "this":
        year = said.year
    else:
        return _nearest_year(said, month, day)
    try:
        datetime(year, month, day)
    except ValueError:
        return None
    return year


def _nearest_year(said: datetime, month: int, day: int) -> int | None:
    """The year of the ``month``/``day`` fewest days from the day ``said``, among its year and
    the years either side (as far ahead as back: the one past); None when none has such a day.

    >>> said = datetime(2025, 3, 22)
    >>> _nearest_year(said, 9, 13), _nearest_year(said, 9, 30), _nearest_year(said, 2, 29)
    (2025, 2024, 2024)
    """
    today = said.date()
    choices: list[tuple[int, bool, int]] = []
    for year in (said.year - 1, said.year, said.year + 1):
        try:
            away = (datetime(year, month, day).date() - today).days
        except ValueError:  # no such day that year, or past the calendar's ends
            continue
        choices.append((abs(away), away > 0, year))
    return min(choices)[2] if choices else None


def _months_and_days(text: str, said: datetime, month_only: bool, found: dict[str, str]) -> None:
    """Add to ``found`` the months and days ``text`` names without a year, in the year meant
    (``_year_of``, ``_day_year``). Said in a month alone (``month_only``), a day of that month
    is the month's year whichever side of the day it falls."""
    for match in _MONTH_DAY.finditer(text):
        steps, digits, word, month_a, month_b, digits_b, word_b, month_c = match.groups()
        name = month_a or month_b or month_c
        if name is None:
            continue
        phrase = " ".join(match.group(0).lower().split()).removeprefix("the ")
        if phrase in found:
            continue
        month = MONTHS.index(name.lower()) + 1
        step = steps.lower().split()[-1].split("-")[0] if steps.strip() else ""
        step = step.split("-")[0]
        if month_c is not None:  # (a month alone: only after a word that says which)
            if step:
                found[phrase] = f"{name} {_year_of(said, month, _month_step(step, text, match))}"
            continue
        number = digits or digits_b
        day = int(number) if number else _ORDINAL_WORDS.index((word or word_b).lower()) + 1
        if not 1 <= day <= 31:
            continue
        if month_only and month == said.month:
            year: int | None = said.year
        else:
            year = _day_year(said, month, day, step, _tense(text, match.start(), match.end()))
        try:
            found[phrase] = _day(datetime(year, month, day)) if year is not None else ""
        except ValueError:  # (a day the month has not: 31 June)
            continue
        if not found[phrase]:
            del found[phrase]


def _month_step(step: str, text: str, match: re.Match[str]) -> str:
    """The step ``_year_of`` reads for a month named after ``step``: "in", "during" and the like
    by the clause's tense — the past "since" (the last one begun), the future "until"."""
    if step in ("last", "next", "since", "until", "by", "this"):
        return step
    if step == "till":
        return "until"
    tense = _tense(text, match.start(), match.end())
    return {"past": "since", "future": "until"}.get(tense or "", step)


#: the words before a holiday that say which one is meant (those of ``_holiday_when``)
_HOLIDAY = re.compile(
    r"\b(?:((?i:last|this|next|since|until|till|by|at|on|for|over|around|during|before|after))\s+)?"
    rf"(?:the\s+)?({holidays.PATTERN})\b(?!,? *\d)"
)


def _holiday_when(said: datetime, name: str, step: str, tense: str | None) -> datetime:
    """The day of the holiday ``name`` a speaker means on the day ``said``: "last" the one before
    that day, "next" the one after, "since" the last one by then, "until"/"by" the next one from
    then, "this" the year's; otherwise by the clause's ``tense`` (the past: the last one by then;
    the future: the next one from then), and told neither the nearest (the past one when both are
    as near)."""
    day = said.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)

    def on(year: int) -> datetime:
        return datetime.combine(holidays.holiday_day(name, year), datetime.min.time())

    this, before, after = on(said.year), on(said.year - 1), on(said.year + 1)
    rule = step if step in ("last", "this", "next", "since", "until", "till", "by") else tense
    if rule == "this":
        return this
    last = this if this < day or (rule != "last" and this == day) else before
    coming = this if this > day or (rule != "next" and this == day) else after
    if rule in ("last", "since", "past"):
        return last
    if rule in ("next", "until", "till", "by", "future"):
        return coming
    return last if day - last <= coming - day else coming


def _holidays(text: str, said: datetime, month_only: bool, found: dict[str, str]) -> None:
    """Add to ``found`` the holidays ``text`` names ("last Christmas", "at Easter", "on
    Thanksgiving"; ``holidays``: on a fixed date or moving) on the day meant (``_holiday_when``).
    A holiday's name alone is read only after a word that places it in time ("at", "on", "for",
    "over", "since", …) — "a Christmas tree" names no day. Said in a month alone (``month_only``),
    one in that month could be either side: left out.

    >>> found = {}
    >>> _holidays("Last Christmas, since Halloween, until New Year's Eve", datetime(2024, 2, 29), False, found)
    >>> list(found.values())
    ['25 December 2023', '31 October 2023', '31 December 2024']
    >>> found = {}
    >>> _holidays("We went home at Easter; on Thanksgiving we will cook.", datetime(2024, 5, 2), False, found)
    >>> found
    {'at easter': '31 March 2024', 'on thanksgiving': '28 November 2024'}
    """
    for match in _HOLIDAY.finditer(text):
        step = (match.group(1) or "").lower()
        if not step:
            continue
        name = holidays.canonical(match.group(2))
        phrase = f"{step} {' '.join(match.group(2).lower().replace('’', chr(39)).split())}"
        tense = _tense(text, match.start(), match.end())
        when = _holiday_when(said, name, step, tense)
        if phrase in found or (month_only and when.month == said.month and step != "this"):
            continue
        found[phrase] = _day(when)


#: more relative words: "this month", "earlier this year", "this morning", "two weekends ago",
#: "the weekend before last", "in two weeks", "a month from now", "over the weekend", "on Friday"
_MORE = re.compile(
    r"\b((?:(?:earlier|later) )?this (week|month|year)|this (?:morning|afternoon|evening)|"
    rf"(?:the )?weekend before last|{_COUNT} weekends? ago|"
    rf"in {_COUNT} (day|week|month|year)s?|{_COUNT} (day|week|month|year)s? from now|"
    r"(?:on|over|during) the weekend|(?:on|this) (?:" + "|".join(WEEKDAYS) + r"))\b",
    re.IGNORECASE,
)
#: the seasons (the northern hemisphere's, by month: spring March to May, …, winter December to
#: February), each with its first month
SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_SEASON = re.compile(
    r"\b((?:last|this|next|in|during|over|since|until|till|by|through|throughout|all|early|late|this past)"
    r"(?: the)?) (spring|summer|fall|autumn|winter)\b(?! *(?:of *)?\d)",
    re.IGNORECASE,
)


def season_words(season: str, year: int) -> str:
    """A season of a year in words (winter spans two: the one begun in December of ``year``).

    >>> season_words("fall", 2023), season_words("winter", 2022)
    ('autumn 2023', 'winter 2022–2023')
    """
    name = "autumn" if season == "fall" else season
    return f"winter {year}–{year + 1}" if name == "winter" else f"{name} {year}"


def _season_year(said: datetime, season: str, step: str, tense: str | None) -> int:
    """The year the season a speaker means begins in, said on the day ``said``: "last" the last
    one over by then, "next" the first one begun after it, "this" the one it is in (else the
    year's), "since" (and "this past") the last one begun by then, "until"/"by" the first one
    not over by then; otherwise by the clause's ``tense`` as those two, and told neither the one
    it is in, else the nearest.

    >>> said = datetime(2023, 7, 14)
    >>> [_season_year(said, "summer", step, None) for step in ("last", "this", "next", "in")]
    [2022, 2023, 2024, 2023]
    >>> _season_year(said, "spring", "in", "future"), _season_year(said, "winter", "in", "past")
    (2024, 2022)
    """
    first = SEASONS[season]

    def span(year: int) -> tuple[datetime, datetime]:
        start = datetime(year, first, 1)
        return start, _months_before(start, -3) - timedelta(days=1)

    day = said.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    years = range(said.year - 2, said.year + 2)
    rule = step if step in ("last", "this", "next", "since", "until", "till", "by", "this past") else tense
    inside = [y for y in years if span(y)[0] <= day <= span(y)[1]]
    if rule == "last":
        return max(y for y in years if span(y)[1] < day)
    if rule == "next":
        return min(y for y in years if span(y)[0] > day)
    if rule in ("since", "this past", "past"):
        return max(y for y in years if span(y)[0] <= day)
    if rule in ("until", "till", "by", "future"):
        return min(y for y in years if span(y)[1] >= day)
    if inside:
        return inside[0]
    if rule == "this":
        return said.year
    past = max(y for y in years if span(y)[1] < day)
    coming = min(y for y in years if span(y)[0] > day)
    return past if day - span(past)[1] <= span(coming)[0] - day else coming


def _seasons(text: str, said: datetime, found: dict[str, str]) -> None:
    """Add to ``found`` the seasons ``text`` names after a word that places them ("last summer",
    "in the spring", "over the summer", "this past winter"), in the year meant (``_season_year``)."""
    for match in _SEASON.finditer(text):
        phrase = " ".join(match.group(0).lower().split())
        if phrase in found:
            continue
        step = " ".join(match.group(1).lower().split()).removesuffix(" the")
        season = match.group(2).lower()
        year = _season_year(said, season, step, _tense(text, match.start(), match.end()))
        found[phrase] = season_words(season, year)


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _COUNTS.get(word.removeprefix("a "), 1)


def _more(text: str, said: datetime, coarse: int, found: dict[str, str]) -> None:
    """Add to ``found`` the relative words of ``_MORE`` ``text`` holds, those no finer than the
    time said (``coarse``). "On Friday" and "over the weekend" need the clause's tense (the one
    before, or the coming one); "this Friday" is the coming one (or, told in the past, the last)."""
    for match in _MORE.finditer(text):
        phrase = " ".join(match.group(1).lower().split())
        if phrase in found:
            continue
        unit = next((u.lower() for u in match.groups()[1:] if u and u.lower() in _FINENESS), "day")
        if _FINENESS[unit] < coarse:
            continue
        words = phrase.split()
        if words[-1] in ("morning", "afternoon", "evening"):
            found[phrase] = _day(said)
        elif "this" in words and unit != "day":
            monday = said - timedelta(days=said.weekday())
            found[phrase] = {"week": f"the week of {_day(monday)}", "month": f"{said:%B %Y}"}.get(unit, str(said.year))
        elif "weekends" in words or ("weekend" in words and words[-1] in ("ago", "last")):
            count = 2 if words[-1] == "last" else _count(match.group(3))
            found[phrase] = _weekend(said, "last weekend", 7 * (count - 1))
        elif words[-1] == "weekend":
            tense = _tense(text, match.start(), match.end())
            if tense is not None:
                current = said.weekday() >= 5
                found[phrase] = _weekend(said, "this weekend" if tense == "future" or current else "last weekend")
        elif words[-1] in WEEKDAYS:
            tense = _tense(text, match.start(), match.end())
            if words[0] == "on" and tense is None:
                continue
            target = WEEKDAYS.index(words[-1])
            if tense == "past":
                days = -((said.weekday() - target) % 7 or (7 if words[0] == "on" else 0))
            else:
                days = (target - said.weekday()) % 7 or (7 if words[0] == "on" else 0)
            found[phrase] = _day(said + timedelta(days=days))
        else:  # ("in two weeks", "a month from now")
            count = _count(match.group(4) or match.group(6))
            if unit in ("day", "week"):
                found[phrase] = _day(said + timedelta(days=count * (7 if unit == "week" else 1)))
            elif unit == "month":
                found[phrase] = f"{_months_before(said, -count):%B %Y}"
            else:
                found[phrase] = str(said.year + count)


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


def _weekend(said: datetime, phrase: str, back: int = 0) -> str:
    """The weekend "this weekend" / "last weekend" / "next weekend" stands for, said on ``said``:
    "this" the coming one said Monday to Friday, the current one said on a Saturday or a
    Sunday; "last" the one before that, "next" the one after it (``back`` days before it)."""
    saturday = said - timedelta(days=1) if said.weekday() == 6 else said + timedelta(days=5 - said.weekday())
    step = {"last": -7, "this": 0, "next": 7}[phrase.split()[0]]
    return f"the weekend of {_day(saturday + timedelta(days=step - back))}"


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
    words = set(_WORDS.findall(text.lower()))  # (each reading runs only where its words are: writes stay fast)
    for match in _RELATIVE.finditer(text) if words & _RELATIVE_WORDS else ():
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
    month_only = precision == "month"
    readings: list[tuple[frozenset[str] | set[str], Callable[[], None]]] = [
        (_MORE_WORDS, lambda: _more(text, said, coarse, found))
    ]
    if coarse <= _FINENESS["month"]:  # (a month named without a year needs the month it is said in)
        readings += [
            (_MONTH_WORDS, lambda: _months_and_days(text, said, month_only, found)),
            (_HOLIDAY_WORDS, lambda: _holidays(text, said, month_only, found)),
            (set(SEASONS), lambda: _seasons(text, said, found)),
        ]
    for needed, reading in readings:
        if words & needed:
            try:
                reading()
            except (ValueError, OverflowError):  # (a date past the calendar's ends, year 1 or 9999: not one)
                continue
    return found


_WORDS = re.compile(r"[a-z]+")
#: the words without one of which a reading finds nothing (``dates_in`` skips it)
_UNITS = {f"{unit}{s}" for unit in ("day", "week", "weekend", "month", "year") for s in ("", "s")}
_RELATIVE_WORDS = frozenset({"yesterday", "today", "tonight", "tomorrow", "night", *_UNITS, *WEEKDAYS})
_MORE_WORDS = frozenset({"this", *_UNITS, *WEEKDAYS})
_MONTH_WORDS = frozenset(MONTHS)
_HOLIDAY_WORDS = frozenset(
    form
    for word in re.findall(r"[a-z']+", " ".join(holidays.NAMES))
    for form in (word.replace("'", ""), word.split("'")[0])  # ("mothers", "mother": "Mother’s")
    if len(form) > 2 and form not in ("day", "eve")
)
