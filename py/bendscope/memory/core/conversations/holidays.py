"""Holidays by name and the day each falls on in a year: those on a fixed date (Christmas,
Halloween, …) and the moving ones — Easter by the Gregorian computus (and the days set from it:
Good Friday, Easter Monday, Ash Wednesday, Pentecost), and the US days set on a weekday of a
month (Thanksgiving the fourth Thursday of November, Mother's Day the second Sunday of May,
Father's Day the third Sunday of June, Memorial Day the last Monday of May, Labor Day the first
Monday of September, …). Mother's Day is the US one (the UK's is three weeks before Easter: a
name says only one day). Deterministic, no model.

>>> holiday_day("easter", 2024), holiday_day("thanksgiving", 2023), holiday_day("memorial day", 2023)
(datetime.date(2024, 3, 31), datetime.date(2023, 11, 23), datetime.date(2023, 5, 29))
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

#: the holidays on a fixed date: month, day
FIXED = {
    "christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25), "boxing day": (12, 26),
    "new year's eve": (12, 31), "new year's day": (1, 1), "halloween": (10, 31), "valentine's day": (2, 14),
    "st patrick's day": (3, 17), "saint patrick's day": (3, 17), "april fools' day": (4, 1),
    "april fool's day": (4, 1), "independence day": (7, 4), "juneteenth": (6, 19), "veterans day": (11, 11),
    "cinco de mayo": (5, 5),
}  # fmt: skip
#: the days set from Easter Sunday: days after it
FROM_EASTER = {"easter sunday": 0, "easter": 0, "good friday": -2, "easter monday": 1, "holy saturday": -1,
               "palm sunday": -7, "ash wednesday": -46, "pentecost": 49, "mardi gras": -47}  # fmt: skip
#: the (US) days set on a weekday of a month: month, weekday (Monday 0), which (1 the first, -1 the last)
WEEKDAY_OF = {
    "thanksgiving": (11, 3, 4), "thanksgiving day": (11, 3, 4), "mother's day": (5, 6, 2),
    "father's day": (6, 6, 3), "memorial day": (5, 0, -1), "labor day": (9, 0, 1), "labour day": (9, 0, 1),
    "martin luther king day": (1, 0, 3), "mlk day": (1, 0, 3), "presidents' day": (2, 0, 3),
    "presidents day": (2, 0, 3), "columbus day": (10, 0, 2),
}  # fmt: skip
NAMES = sorted({*FIXED, *FROM_EASTER, *WEEKDAY_OF}, key=lambda n: (-len(n), n))


def _written(name: str) -> str:
    """A pattern for ``name`` as written: each word's first letter in either case, any run of
    spaces, an apostrophe straight, curly or left out, "St" with or without its full stop."""
    words = [re.escape(w).replace("'", "['’]?") for w in name.split()]
    pattern = r"\s+".join(f"[{w[0].upper()}{w[0]}]{w[1:]}" for w in words)
    return pattern.replace("[Ss]t\\s+", "[Ss]t\\.?\\s+") if name.startswith("st ") else pattern


#: a holiday's name in text, the longest first ("Christmas Eve" before "Christmas")
PATTERN = "|".join(map(_written, NAMES))


def easter(year: int) -> date:
    """Easter Sunday of a Gregorian ``year`` (the anonymous computus, Meeus/Jones/Butcher).

    >>> easter(2023), easter(2025), easter(2038)
    (datetime.date(2023, 4, 9), datetime.date(2025, 4, 20), datetime.date(2038, 4, 25))
    """
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    el = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * el) // 451
    month, day = divmod(h + el - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _nth_weekday(year: int, month: int, weekday: int, nth: int) -> date:
    days = calendar.monthrange(year, month)[1]
    if nth > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    last = date(year, month, days)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def canonical(name: str) -> str:
    """A holiday's name as written, in the form the tables know: lower case, straight apostrophe
    (restored where it was left out: "mothers day" is "mother's day").

    >>> canonical("Mothers Day"), canonical("New Year’s Eve"), canonical("Presidents' Day")
    ("mother's day", "new year's eve", "presidents' day")
    """
    folded = " ".join(name.lower().replace("’", "'").replace(".", "").split())
    if folded in FIXED or folded in FROM_EASTER or folded in WEEKDAY_OF:
        return folded
    return next((n for n in NAMES if n.replace("'", "") == folded.replace("'", "")), folded)


def holiday_day(name: str, year: int) -> date:
    """The day the holiday ``name`` (``canonical``) falls on in ``year``."""
    if name in FIXED:
        return date(year, *FIXED[name])
    if name in FROM_EASTER:
        return easter(year) + timedelta(days=FROM_EASTER[name])
    return _nth_weekday(year, *WEEKDAY_OF[name])
