"""Questions bound in time: "What did Caroline do before the parade?", "… after June 2023",
"… since starting boot camps". The bound is a period — a date the question gives ("April 10,
2023", "June 2023", "2023") or, when it names an event ("the parade", "joining Acme"), the day
said of the turn that best matches the event's words (or the one date its time words name: "I
joined Acme last month" is February's) — and the turns on its side of it are favoured: said (or
naming a date, ``metadata.dates``) before the bound's period for "before" / "until" / "prior
to", after it for "after" / "since". An event's own day counts on both sides: its turn (and
its session, said that day) is often the answer ("after the race I realised"). A date the
question gives is its bound, not a date it asks about (``words``: not matched as "in June").
A month named without a year bounds nothing (which May is meant is not known).

>>> asked_bound("What did Jean go through before meeting Maria?")
('before', 'meeting Maria')
>>> period("April 10, 2023"), period("June 2023")
((datetime.date(2023, 4, 10), datetime.date(2023, 4, 10)), (datetime.date(2023, 6, 1), datetime.date(2023, 6, 30)))
>>> june = period("June 2023")
>>> Bound("before", *june).holds({"said": "8 May 2023"}), Bound("before", *june).holds({"said": "June 2023"})
(True, False)
>>> Bound("after", *june).holds({"said": "8 May 2023", "dates": {"in july": "July 2023"}})
True
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from ...store.base import Store
from ..records import MemoryNode
from ..text import query_terms, tokenize
from .when import MONTHS, SEASONS

#: what a turn on the question's side of its bound gains (a share of the best match's relevance).
#: Chosen leaving one LoCoMo dev conversation out (bench/tune_folds.py, of 0–0.3): no value
#: changes recall@10 or recall@5 on any fold (12 bound questions of 383), so the memory's own stays.
BOUND = 0.2
#: how many of the event's best lexical matches are looked through for a turn
EVENT_POOL = 10
_SIDES = {"before": "before", "until": "before", "till": "before", "prior to": "before", "after": "after",
          "since": "after"}  # fmt: skip
_ASKED = re.compile(r"\b(before|after|since|until|till|prior to)\s+([^?.!;]+)", re.IGNORECASE)
_MONTH = "|".join(MONTHS)
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
#: a period in words: "8 May 2023", "May 8th, 2023", "the 8th of May 2023", "May 2023", "2023",
#: "the weekend of 6 May 2023", "the week of 1 May 2023"
_PERIOD = re.compile(
    rf"^(?:(?:the )?(weekend|week) of )?(?:the )?(?:{_ORDINAL}(?: of)? ({_MONTH})|({_MONTH})(?: {_ORDINAL})?)?,? ?"
    r"((?:19|20)\d\d)\b",
    re.IGNORECASE,
)
#: a season in words ("summer 2023", "winter 2022–2023": ``when.season_words``)
_SEASON = re.compile(r"^(spring|summer|autumn|fall|winter) ((?:19|20)\d\d)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Bound:
    """A question's bound: its side (``before`` or ``after``), the period it is relative to,
    whether that period itself counts (an event's day), and the question's words that give it
    (a date's)."""

    side: str
    start: date
    end: date
    inclusive: bool = False
    words: frozenset[str] = frozenset()

    def holds(self, metadata: Mapping[str, Any]) -> bool:
        """Whether a turn (its metadata) is on the bound's side: said, or naming a date, before
        the period ("before"; or in it when ``inclusive``), after it ("after"; or in it)."""
        dates = metadata.get("dates")
        words = [metadata.get("said"), *(dates.values() if isinstance(dates, Mapping) else ())]
        periods = [p for p in (period(w) for w in words if isinstance(w, str)) if p is not None]
        if self.side == "before":
            return any(start < self.start or (self.inclusive and start <= self.end) for start, _ in periods)
        return any(end > self.end or (self.inclusive and end >= self.start) for _, end in periods)


def asked_bound(question: str) -> tuple[str, str] | None:
    """The side of a question's time bound and the words it is relative to, or None."""
    match = _ASKED.search(question)
    if match is None:
        return None
    phrase = match.group(2).strip(" ,")
    return (_SIDES[" ".join(match.group(1).lower().split())], phrase) if phrase else None


def period(words: str) -> tuple[date, date] | None:
    """The first and last day of the period ``words`` begin with, or None when they begin with
    no date that has a year (a season's: its three months). O(len(words)).

    >>> period("summer 2023"), period("winter 2023–2024")[1]
    ((datetime.date(2023, 6, 1), datetime.date(2023, 8, 31)), datetime.date(2024, 2, 29))
    """
    season = _SEASON.match(words.strip())
    if season is not None:
        first = date(int(season.group(2)), SEASONS[season.group(1).lower()], 1)
        end = first.month + 1  # (the season's last month, counted from 0)
        last_year, last_month = first.year + end // 12, end % 12 + 1
        return first, date(last_year, last_month, calendar.monthrange(last_year, last_month)[1])
    match = _PERIOD.match(" ".join(words.replace(",", ", ").split()))
    if match is None:
        return None
    span, day, month_a, month_b, day_b, year_text = match.groups()
    year, month = int(year_text), month_a or month_b
    day = day or day_b
    if month is None:
        return (date(year, 1, 1), date(year, 12, 31)) if day is None and span is None else None
    number = MONTHS.index(month.lower()) + 1
    if day is None:
        return date(year, number, 1), date(year, number, calendar.monthrange(year, number)[1])
    try:
        first = date(year, number, int(day))
    except ValueError:
        return None
    return first, first + timedelta(days={"weekend": 1, "week": 6}.get((span or "").lower(), 0))


def time_bound(store: Store, question: str, keep: Callable[[MemoryNode], bool]) -> Bound | None:
    """A question's time bound (``asked_bound``): a date it gives, else the day said of the turn
    that best matches the event it names (among its ``EVENT_POOL`` best matches) — or None."""
    asked = asked_bound(question)
    if asked is None or BOUND <= 0:
        return None
    side, phrase = asked
    given = period(phrase.removeprefix("the "))
    if given is not None:
        return Bound(side, *given, words=frozenset(tokenize(phrase)))
    if not query_terms(phrase):
        return None
    found = store.search(phrase, EVENT_POOL)
    nodes = store.get_nodes(i for i, _ in found)
    for node_id, _ in found:
        node = nodes.get(node_id)
        said = node.metadata.get("said") if node is not None else None
        if node is not None and "speaker" in node.metadata and keep(node) and isinstance(said, str):
            when = _told(node.metadata.get("dates")) or period(said)
            return Bound(side, *when, inclusive=True) if when is not None else None
    return None


def _told(dates: Any) -> tuple[date, date] | None:
    """The period of the one date a turn's time words name ("I joined Acme last month": the
    event is then, not on the day it is told), or None when they name none or several."""
    if not isinstance(dates, Mapping):
        return None
    found = {p for p in (period(w) for w in dates.values() if isinstance(w, str)) if p is not None}
    return found.pop() if len(found) == 1 else None
