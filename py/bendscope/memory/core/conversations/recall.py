"""Questions about a conversation: the seeds retrieval starts from when the best matches of a
question are turns of a conversation (nodes whose metadata names a ``speaker`` and a
``session``, as ``conversation`` stores them).

A turn's score adds up what the memory knows of it:

* its lexical relevance: BM25 over the best match's, blended (``COVERAGE``) with the share of
  the question's terms, weighed by idf, that the turn holds however long it is; and its cosine
  similarity to the question when an embedder is configured (``SEMANTIC``);
* the speaker: a question that names one of the speakers (not all of them) favours what that
  speaker said (``SPEAKER``); a speaker's short name ("Mel" for Melanie, as a turn's is read
  when written) asks as the full name does;
* the names the turn mentions that the question names too (``NAMES``);
* dates: a month, a season (its months) or a year the question names (both, when it names
  both), when the turn was said or what its time words stand for (``DATES``); a question bound in time ("before the
  parade", "after June 2023") favours the turns on its side of the bound (``bounds``);
* kinds: a question that asks for things of a kind ("What martial arts …", "Which cities …")
  favours the ``KIND_POOL`` turns that best match the nouns of that kind (``KIND``; ``kinds``:
  WordNet's hyponyms), which share no word with the question — they join the candidates;
* the session a question names ("in the last session", "in our third session": ``sessions``): its
  turns join the candidates and gain ``sessions.SESSION``;
* its session's part in the question's topic (``sessions.TOPIC``): the session whose turns hold
  the most of the question's words (by idf, the speakers' names aside) lends each of its turns
  ``TOPIC``, another session a share by what its turns hold — a turn that answers without the
  question's words, in the session that talks of them, comes before one naming them in passing
  elsewhere; not when the question names a session (that one is its topic) or a kind whose
  things the memory holds (those are its answers);
* its session's neighbours: the turns just after and before the ``NEAR`` best take a share of
  their score (``NEXT``, ``PREVIOUS``: along the session's temporal edges) — an answer often
  sits one turn after the question that matches;
* then what a turn tells, and who (``focus``): a turn holding the question's words only in its
  own questions loses a share of its lexical relevance, and when the question names one
  speaker the other speakers' turns a share of their score;

the best ``top_k`` are the seeds (expansion then adds nothing: the neighbours are weighed).
A fact or a note beside the conversation (a node that is not a turn, nor an entity holding its
name alone) competes by its lexical relevance, and the speaker it is keyed by: a lookup whose
best match is a fact gets it, however many turns share its words.
Weighing down further turns of a session already taken, for questions whose evidence lies in
several sessions, lowered recall on the dev conversations at every strength tried, so the
turns of several sessions come in by their own scores. Deterministic: ties by id.
O(the candidate pool: ``POOL`` lexical matches, ``KIND_POOL`` kind matches and the neighbours of
the best ``NEAR``).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence

from ...store.base import Store
from ..embedders import normalised, pack, similarities
from ..names import normal_name
from ..records import MemoryNode
from ..text import MAX_QUERY_TERMS, query_terms, terms, tokenize
from . import bounds, focus, sessions
from .kinds import asked_kind, kind_terms
from .turns import speaker_of, written_out
from .when import SEASONS

#: an embedder's ``embed``: texts to vectors
Embed = Callable[[Sequence[str]], list[list[float]]]
# The weights were chosen on the three LoCoMo dev conversations (bench/bench_locomo.py), a few
# values each; WordLlama's similarity above 0.2 lowered recall there. KIND: chosen leaving one
# conversation out (0.3 on each pair of the three, of 0.1–0.5, the smaller of equals).
POOL = 100
NEAR = 8
SPEAKER = 0.3
NAMES = 0.3
DATES = 0.2
NEXT = 0.5
PREVIOUS = 0.3
COVERAGE = 0.3
SEMANTIC = 0.2
KIND = 0.3
KIND_POOL = 30
#: share of the best lexical matches that must be turns for a question to be one about a conversation
TURN_SHARE = 0.5
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_YEAR = re.compile(r"^(19|20)\d\d$")


def is_turn(node: MemoryNode) -> bool:
    """Whether a node is a conversation's turn (its metadata names a speaker and a session)."""
    return isinstance(node.metadata.get("speaker"), str) and "session" in node.metadata


def is_answer(node: MemoryNode) -> bool:
    """Whether a node that is not a turn may stand among a conversation's results: a fact or a
    note — not an entity that holds its name alone (``metadata.key``), which answers nothing."""
    return node.content != node.metadata.get("key")


def about_turns(seeds: Sequence[MemoryNode]) -> bool:
    """Whether a question's usual seeds are mostly a conversation's turns (``TURN_SHARE``)."""
    return bool(seeds) and sum(1 for n in seeds if is_turn(n)) >= TURN_SHARE * len(seeds)


def _date_words(words: set[str]) -> set[str]:
    """The months and years among ``words``; a season stands for its three months ("fall", as
    often the verb, does not).

    >>> sorted(_date_words({"summer", "2023", "went"}))
    ['2023', 'august', 'july', 'june']
    """
    found = {w for w in words if w in _MONTHS or _YEAR.match(w)}
    for word in words & (SEASONS.keys() - {"fall"}):
        found.update(_MONTHS[(SEASONS[word] + k - 1) % 12] for k in range(3))
    return found


def _turn_dates(node: MemoryNode) -> list[set[str]]:
    """The months and years of each date a turn has: when it was said, and what its time words
    stand for."""
    dates = node.metadata.get("dates")
    spoken = [str(v) for v in dates.values()] if isinstance(dates, Mapping) else []
    return [_date_words(set(tokenize(d))) for d in [str(node.metadata.get("said", "")), *spoken]]


def _on_date(asked: set[str], dates: list[set[str]]) -> bool:
    """Whether one of a turn's dates is in a month and a year the question names ("in May
    2023": May of 2023, not any day of 2023 nor May of another year).

    >>> _on_date({"may", "2023"}, [{"june", "2023"}, {"may", "2022"}]), _on_date({"may"}, [{"may", "2022"}])
    (False, True)
    """
    months, years = asked & set(_MONTHS), asked - set(_MONTHS)
    return any((not months or months & d) and (not years or years & d) for d in dates)


def conversation_seeds(
    store: Store,
    query: str,
    top_k: int,
    keep: Callable[[MemoryNode], bool],
    embed: Embed | None = None,
    model: str | None = None,
) -> tuple[dict[str, float], dict[str, MemoryNode], float] | None:
    """The seeds of a question about a conversation (``about_turns`` its first seeds): relevance
    by id (the best 1), the nodes read and the best BM25 score — or None when no turn matches.
    ``keep``: the nodes that may be seeds (valid, of the wanted types); ``embed``: the
    embedder's (with ``model``, the stored vectors' name)."""
    found = store.search(query, POOL)
    nodes = store.get_nodes(i for i, _ in found)
    people = {speaker_of(n.metadata): str(n.metadata["speaker"]) for n in nodes.values()
              if is_turn(n) and "speaker_key" not in n.metadata}  # fmt: skip
    mentioned = {k for n in nodes.values() if is_turn(n) for k in n.metadata.get("names") or () if isinstance(k, str)}
    full = written_out(query, people, mentioned)
    if full != query:  # (a short name asked: the question as its full name asks it)
        query, found = full, store.search(full, POOL)
        nodes = store.get_nodes(i for i, _ in found)
    if not found:
        return None
    best = found[0][1]
    lexical = {i: s / best for i, s in found if i in nodes and keep(nodes[i]) and
               (is_turn(nodes[i]) or is_answer(nodes[i]))}  # fmt: skip
    if not any(is_turn(nodes[i]) for i in lexical):
        return None
    words = set(tokenize(query))
    asked = {normal_name(query[m.start() : m.end()]) for m in re.finditer(r"[\w'’]+", query)}
    speakers = {speaker_of(nodes[i].metadata) for i in lexical if is_turn(nodes[i])}
    named_speakers = {s for s in speakers if s in asked or set(s.split()) <= words}
    if len(named_speakers) == len(speakers):
        named_speakers = set()  # (every speaker named: no one is favoured)
    _cover(store, query, lexical, nodes)
    kinds = _kinds(store, query, speakers)
    nodes.update(store.get_nodes(i for i in kinds if i not in nodes))
    asked_session = sessions.asked_session(query)
    session = sessions.session_turns(store, asked_session, speakers, keep) if asked_session else {}
    nodes.update(session)
    bound = bounds.time_bound(store, query, keep)
    query_dates = _date_words(words - bound.words if bound is not None else words)

    pool = set(lexical) | set(session) | {i for i in kinds if i in nodes and is_turn(nodes[i]) and keep(nodes[i])}
    # (a session named, or a kind's things: there is the answer, not in the session of its words)
    topic = {} if session or kinds else _topic(store, query, {i: nodes[i] for i in pool if is_turn(nodes[i])}, speakers)

    def base(node: MemoryNode) -> float:
        score = lexical.get(node.id, 0.0)
        if not is_turn(node):  # (a fact or a note: its relevance, and the speaker it is about)
            key = node.metadata.get("key")
            return score + (SPEAKER if isinstance(key, str) and normal_name(key) in named_speakers else 0.0)
        if speaker_of(node.metadata) in named_speakers:
            score += SPEAKER
        names = node.metadata.get("names")
        if isinstance(names, list):
            mentioned = {n for n in names if isinstance(n, str)} - speakers
            hits = [n for n in mentioned if set(n.split()) <= words]
            score += NAMES * min(1.0, len(hits) / 2)
        if query_dates and _on_date(query_dates, _turn_dates(node)):
            score += DATES
        if node.id in kinds:
            score += KIND
        if node.id in session:
            score += sessions.SESSION
        if bound is not None and bound.holds(node.metadata):
            score += bounds.BOUND
        return score + sessions.TOPIC * topic.get(sessions.session_key(node), 0.0)

    scores = {i: base(nodes[i]) for i in pool}
    if embed is not None and model is not None:
        _blend(store, scores, nodes, query, embed, model)
    leaders = sorted(scores, key=lambda i: (-scores[i], i))[:NEAR]
    leading = set(leaders)
    near: dict[str, float] = {}
    for edge in store.edges_touching(leaders):
        if edge.edge_type != "temporal":
            continue
        for a, b, share in ((edge.source_id, edge.target_id, NEXT), (edge.target_id, edge.source_id, PREVIOUS)):
            if a in leading:
                near[b] = max(near.get(b, 0.0), share * scores[a])
    fresh = [i for i in near if i not in nodes]
    nodes.update(store.get_nodes(fresh))
    for node_id, bonus in near.items():
        node = nodes.get(node_id)
        if node is None or not is_turn(node) or not keep(node):
            continue
        if node_id not in scores:
            scores[node_id] = base(node)
        scores[node_id] += bonus
    focus.weigh(scores, nodes, lexical, query_terms(query), named_speakers)
    taken = sorted(scores, key=lambda i: (-scores[i], i))[:top_k]
    top = scores[taken[0]] if taken and scores[taken[0]] > 0 else 1.0
    return {i: round(max(scores[i] / top, 1e-6), 12) for i in taken}, nodes, best


def _kinds(store: Store, query: str, speakers: set[str]) -> set[str]:
    """The ``KIND_POOL`` turns that best match the nouns of the kind a question asks for
    ("What martial arts …": judo, taekwondo; ``kinds``) and not its own words: none when it
    names no kind or the memory holds none of its nouns. O(the kind's nouns in the index)."""
    if KIND <= 0:
        return set()
    people = {w for s in speakers for w in s.split()}
    asked = asked_kind(query, people)
    wanted = set().union(*map(kind_terms, asked))
    if len(asked) > 1:
        wanted |= kind_terms("_".join(asked[-2:]))  # ("martial arts": a noun of two words)
    wanted -= set(query_terms(query))
    if not wanted:
        return set()
    _, _, frequency = store.term_weights(sorted(wanted))
    present = sorted((w for w, f in frequency.items() if f > 0), key=lambda w: (frequency[w], w))
    found: dict[str, float] = {}
    for start in range(0, len(present), MAX_QUERY_TERMS):
        for node_id, score in store.search(" ".join(present[start : start + MAX_QUERY_TERMS]), KIND_POOL):
            found[node_id] = max(found.get(node_id, 0.0), score)
    return set(sorted(found, key=lambda i: (-found[i], i))[:KIND_POOL])


@functools.lru_cache(maxsize=50_000)
def _term_set(content: str) -> frozenset[str]:
    """The index terms of a turn's content (cached: the same turns come back question after question)."""
    return frozenset(terms(content))


def _topic(
    store: Store, query: str, turns: Mapping[str, MemoryNode], speakers: set[str]
) -> dict[tuple[str, str], float]:
    """Each session's part in the question's topic (``sessions.topic_weights``) by the share of
    the question's terms each of the candidate ``turns`` holds, the speakers' names aside (every
    turn of a speaker holds their name); none when ``sessions.TOPIC`` is 0. O(the candidates)."""
    if sessions.TOPIC <= 0:
        return {}
    named = {t for s in speakers for t in terms(s)}
    return sessions.topic_weights(_shares(store, [w for w in query_terms(query) if w not in named], turns), turns)


def _shares(store: Store, words: list[str], nodes: Mapping[str, MemoryNode]) -> dict[str, float]:
    """The share of ``words`` (index terms, weighed by idf) each node holds, however long it is."""
    rows, _, frequency = store.term_weights(words)
    idf = {w: max(0.0, math.log((rows - frequency.get(w, 0) + 0.5) / (frequency.get(w, 0) + 0.5))) for w in words}
    total = sum(idf.values())
    if total <= 0:
        return {}
    return {i: sum(v for w, v in idf.items() if w in _term_set(n.content)) / total for i, n in nodes.items()}


def _cover(store: Store, query: str, lexical: dict[str, float], nodes: Mapping[str, MemoryNode]) -> None:
    """Blend into each lexical relevance the share of the question's terms (by idf) its turn
    holds, however long the turn."""
    shares = _shares(store, query_terms(query), {i: nodes[i] for i in lexical})
    if not shares:
        return
    for node_id in lexical:
        lexical[node_id] = (1 - COVERAGE) * lexical[node_id] + COVERAGE * shares[node_id]


def _blend(
    store: Store, scores: dict[str, float], nodes: Mapping[str, MemoryNode], query: str, embed: Embed, model: str
) -> None:
    """Add cosine similarity (weighed SEMANTIC) to the candidates' scores: stored vectors, or
    the content embedded for the call when a node has none."""
    ids = sorted(scores)
    stored = store.get_vectors(model, ids)
    missing = [i for i in ids if i not in stored]
    if missing:  # (a node stored without this embedder: embedded for the call, not kept)
        stored.update(zip(missing, map(pack, embed([nodes[i].content for i in missing])), strict=True))
    unit = normalised(embed([query])[0])
    for node_id, similarity in zip(ids, similarities(unit, [stored[i] for i in ids]), strict=True):
        scores[node_id] += SEMANTIC * max(0.0, similarity)
