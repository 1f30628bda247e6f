"""The words of the memory: how text is cut into index terms and folded, as every backend
indexes it and every query is read, and stored metadata read back.

>>> tokenize("What drives Revenue? (R&D, rev-share, Café)")
['what', 'drives', 'revenue', 'r', 'd', 'rev', 'share', 'cafe']
>>> query_words("Straße STRASSE straße")
['Straße', 'STRASSE']
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

MAX_QUERY_TERMS = 32
_TOKEN = re.compile(r"[^\W_]+")


def fold(word: str) -> str:
    """A word as SQLite FTS5's unicode61 tokenizer indexes it (remove_diacritics 2):
    lower case, combining marks removed; no compatibility folding (ß, ﬁ and fullwidth
    letters stay what they are, as in FTS5). ASCII words (most) take a shortcut with the
    same result: they have no combining marks and are their own normal forms.

    >>> fold("Café"), fold("RÉSUMÉ"), fold("Straße"), fold("Revenue")
    ('cafe', 'resume', 'straße', 'revenue')
    """
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFD", word.lower())
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


def load_metadata(text: str) -> dict[str, Any]:
    """Stored metadata (JSON text) as a fresh dict; the usual empty object skips the parser.

    >>> load_metadata("{}"), load_metadata('{"b":1}')
    ({}, {'b': 1})
    """
    if text == "{}":
        return {}
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def tokenize(text: str) -> list[str]:
    """The index terms of ``text``: runs of letters and digits, folded. O(len(text))."""
    return [fold(word) for word in _TOKEN.findall(text)]


def query_words(text: str) -> list[str]:
    """The words of a query as written (the store folds them as it indexes), distinct
    after folding, in order, at most MAX_QUERY_TERMS."""
    seen: dict[str, str] = {}
    for word in _TOKEN.findall(text):
        seen.setdefault(fold(word), word)
    return list(seen.values())[:MAX_QUERY_TERMS]


def chunks(items: list[str], size: int) -> Iterator[list[str]]:
    """``items`` in slices of at most ``size``."""
    for i in range(0, len(items), size):
        yield items[i : i + size]
