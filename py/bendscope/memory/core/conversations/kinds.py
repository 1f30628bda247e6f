"""Kinds: the words a "What martial arts …" question's answer is said with ("judo",
"taekwondo"), from WordNet's noun hierarchy.

A question about a conversation that asks for things of a kind ("What martial arts has
John done?", "Which cities has Jon visited?", "What are Melanie's pets' names?") names the
kind and not the things; the turns that hold the answer name the things and not the kind.
``asked_kind`` reads the kind's words from the question; ``kind_terms`` gives the index terms
of the nouns under the kind's most frequent sense in WordNet 3.0 (hyponyms and instances, each
counted when its own most frequent sense is there; nouns used more often as verbs left out).

The table (``kinds.tsv.gz``, made by ``kinds_make`` from WordNet 3.0, © 2006 Princeton
University, under the WordNet 3.0 licence: ``kinds.LICENSE``) is read once, on first use
(about 0.3 s); a kind's terms are cached.

>>> sorted(kind_terms("martial_arts") & {"judo", "taekwondo", "karat", "yoga"})  # (stems)
['judo', 'karat', 'taekwondo']
>>> sorted(kind_terms("cities") & {"rome", "london", "car"}), kind_terms("events")  # (too broad)
(['london', 'rome'], frozenset())
>>> asked_kind("What instruments does Melanie play?", {"melanie"})
['instruments']
>>> asked_kind("What are Melanie's pets' names?", {"melanie"})
['pets', 'names']
>>> asked_kind("When did Melanie go camping?", {"melanie"})
[]
>>> asked_kind("What sparked Melanie's interest?", {"melanie"}), kind_terms("sparked")  # (a verb: no kind)
(['sparked'], frozenset())
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

from ..text import STOP_WORDS, tokenize

TABLE = Path(__file__).with_name("kinds.tsv.gz")
#: a kind whose first sense has more synsets under it than this is too broad to stand for one
MAX_SYNSETS = 5000
_ASKING = {"what", "which"}
_LEADING = {"kind", "kinds", "type", "types", "sort", "sorts", "of", "some", "the", "are", "names"}
_VERBS = {"do", "does", "did", "has", "have", "had", "is", "are", "was", "were", "can", "could", "would", "will"}
_PLURALS = (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("s", ""))


class _Table:
    """The noun hierarchy: each synset's hyponyms and its members' index terms, each noun's
    first sense."""

    def __init__(self, text: str) -> None:
        self.children: dict[int, list[int]] = {}
        self.members: dict[int, list[str]] = {}
        self.first: dict[str, int] = {}
        self.irregular: dict[str, str] = {}
        for line in text.splitlines():
            fields = line.split("\t")
            if fields[0] == "X":
                self.irregular[fields[1]] = fields[2]
                continue
            synset = int(fields[0])
            for parent in fields[1].split():
                self.children.setdefault(int(parent), []).append(synset)
            self.members[synset] = fields[3].split()
            for lemma in fields[2].split():
                self.first[lemma] = synset

    def lemma(self, word: str) -> str | None:
        """A noun's WordNet lemma ("cities" → "city", "martial_arts" → "martial_art"), or None."""
        if word in self.irregular:
            return self.irregular[word]
        stripped = [word[: -len(end)] + root for end, root in _PLURALS if word.endswith(end)]
        return next((c for c in (*stripped, word) if c in self.first), None)


@functools.cache
def _table() -> _Table:
    return _Table(gzip.decompress(TABLE.read_bytes()).decode())


@functools.lru_cache(maxsize=4096)
def kind_terms(word: str) -> frozenset[str]:
    """The index terms of the nouns of the kind ``word`` names (a folded word, or two joined
    by "_"): none for a word that is no noun or names too broad a kind. O(the kind's synsets)."""
    table = _table()
    lemma = table.lemma(word)
    if lemma is None:
        return frozenset()
    seen = {table.first[lemma]}
    stack = [table.first[lemma]]
    while stack:
        for child in table.children.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
        if len(seen) > MAX_SYNSETS:
            return frozenset()
    return frozenset(t for s in seen for t in table.members[s])


def asked_kind(question: str, people: set[str]) -> list[str]:
    """The words of a "What …" / "Which …" question that name the kind it asks for: those
    after "what" (past "kind of", "types of"), or after a person's name and "'s" when only a
    verb comes between ("What are Melanie's pets' names?", not "What sparked John's interest
    …?"), up to the verb; none for other questions. ``people``: folded
    words of the speakers' names."""
    words = tokenize(question)
    if not words or words[0] not in _ASKING:
        return []
    for k in range(1, len(words) - 2):
        if words[k] in people and words[k + 1] == "s" and all(w in _VERBS or w in _LEADING for w in words[1:k]):
            return _until_verb(words[k + 2 :], people)
    head = words[1:]
    while head and head[0] in _LEADING:
        head = head[1:]
    return _until_verb(head, people)


def _until_verb(words: list[str], people: set[str]) -> list[str]:
    out = []
    for word in words:
        if word in _VERBS or word in people or word in STOP_WORDS:
            break
        out.append(word)
    return out
