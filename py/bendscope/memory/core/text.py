"""The words of the memory: how text is cut into index terms, as every backend indexes it
and every query is read, and stored metadata read back.

A text's words are runs of letters and digits, folded (lower case, combining marks
removed); English stop words are left out and the rest reduced to their stems by the
Snowball English stemmer (``snowballstemmer``, pure Python), so "cells" finds "cell" and
"the" finds nothing. Every backend indexes exactly these terms (SQLite's FTS5 is given them
ready-made), so all three rank alike.

>>> terms("What drives Revenue? (rev-share, Café studies)")
['drive', 'revenu', 'rev', 'share', 'cafe', 'studi']
>>> query_terms("the cells and THE Cell")
['cell']
>>> tokenize("What drives Revenue?")
['what', 'drives', 'revenue']
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import snowballstemmer  # type: ignore[import-untyped]

MAX_QUERY_TERMS = 32
_TOKEN = re.compile(r"[^\W_]+")
_STEMMER = snowballstemmer.stemmer("english")

#: English stop words (NLTK's list, folded): the words most texts share, kept out of the
#: index and of queries
_STOP_WORDS = """
a about above after again against ain all am an and any are aren arent as at be because been before
being below between both but by can couldn couldnt d did didn didnt do does doesn doesnt doing don
dont down during each few for from further had hadn hadnt has hasn hasnt have haven havent having he
her here hers herself him himself his how i if in into is isn isnt it its itself just ll m ma me
mightn mightnt more most mustn mustnt my myself needn neednt no nor not now o of off on once only or
other our ours ourselves out over own re s same shan shant she shes should shouldn shouldnt shouldve
so some such t than that thatll the their theirs them themselves then there these they this those
through to too under until up ve very was wasn wasnt we were weren werent what when where which
while who whom why will with won wont wouldn wouldnt y you youd youll your youre yours yourself
yourselves youve
"""
STOP_WORDS = frozenset(_STOP_WORDS.split())


def fold(word: str) -> str:
    """A word as it is indexed and looked for: compatibility forms unfolded (ligatures,
    fullwidth letters), case folded (ß is ss), combining marks removed. ASCII words (most)
    take a shortcut with the same result.

    >>> fold("Café"), fold("RÉSUMÉ"), fold("Straße"), fold("ﬁsh"), fold("Ｒｅｖｅｎｕｅ"), fold("ǅemal")
    ('cafe', 'resume', 'strasse', 'fish', 'revenue', 'dzemal')
    """
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.casefold())
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
    """The words of ``text``: runs of letters and digits, folded. O(len(text))."""
    return [fold(word) for word in _TOKEN.findall(text)]


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A folded word's Snowball English stem (cached: texts repeat their words).

    >>> stem("cells"), stem("running"), stem("generously")
    ('cell', 'run', 'generous')
    """
    stemmed: str = _STEMMER.stemWord(word)
    return stemmed


def terms(text: str) -> list[str]:
    """The index terms of ``text``: its folded words less the stop words, stemmed, in order
    (repeats kept: they count for BM25). O(len(text))."""
    out = []
    for word in _TOKEN.findall(text):
        folded = fold(word)
        if folded and folded not in STOP_WORDS:  # (a word of combining marks alone folds to nothing)
            out.append(stem(folded))
    return out


#: "how deep" asks for a depth: the noun a fact states a measure with, for each adjective
_MEASURES = {
    "deep": "depth",
    "wide": "width",
    "broad": "breadth",
    "long": "length",
    "high": "height",
    "tall": "height",
    "old": "age",
    "far": "distance",
    "heavy": "weight",
    "big": "size",
    "large": "size",
    "fast": "speed",
    "strong": "strength",
}
_HOW = re.compile(r"\bhow (" + "|".join(_MEASURES) + r")\b", re.IGNORECASE)
_BASED = re.compile(r"\bwhere (?:is|are|was|were) \S.*\bbased\b", re.IGNORECASE)


def asked_words(text: str) -> list[str]:
    """The words a fact answering the question ``text`` states that the question itself does
    not: the measure a "how deep / long / old …" asks for, where a "where is … based" is.

    >>> asked_words("How deep is the lake?"), asked_words("Where is the company based?")
    (['depth'], ['headquarters', 'located'])
    """
    words = [_MEASURES[m.group(1).lower()] for m in _HOW.finditer(text)]
    if _BASED.search(text):
        words += ["headquarters", "located"]
    return words


def query_terms(text: str) -> list[str]:
    """The index terms of a query, each once, in order, at most MAX_QUERY_TERMS (a query of
    stop words only has none), with the terms of its ``asked_words`` after its own.

    >>> query_terms("How deep is Lake Vallen?")
    ['deep', 'lake', 'vallen', 'depth']
    """
    return list(dict.fromkeys(terms(text) + [stem(w) for w in asked_words(text)]))[:MAX_QUERY_TERMS]


def chunks(items: list[str], size: int) -> Iterator[list[str]]:
    """``items`` in slices of at most ``size``."""
    for i in range(0, len(items), size):
        yield items[i : i + size]
