"""A question that names a session of the conversation: "What did we talk about in the last
session?", "What did Joanna say in session number four?" (in digits), "… in our first session",
"… in the third session", "… in the previous session" (the one before the last). The turns of
that session join the candidates and gain ``SESSION``.

``asked_session`` reads the session a question names: a number in digits after "session" (or
"session number"), or "the" / "our" / "that" / "this" and an ordinal ("first" … "tenth", "1st", "12th"), "last",
"latest" or "most recent" before it — or "previous", "penultimate", "second to last", "last but
one" before it, "before last" or "before" alone after it ("the session before"): the one
before the last. A session of something ("a session of yoga",
"the last session of yoga", "the first session with her therapist") or one of someone ("her
last session") is not the conversation's, and names none.

``session_turns`` finds the named session among the conversation's turns (those of the
question's speakers): the last and the first by when their turns were said; the N-th is the
session named N when there is one, else the N-th by time. O(the store's nodes: the
namespace's, when one is read), for a question that names a session only.

>>> asked_session("What did Jo say in session number 4?"), asked_session("Who led a session of yoga?")
(('number', 4), None)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from ...store.base import Store
from ..records import MemoryNode
from .turns import speaker_of

#: the bonus of the named session's turns: a whole best match's relevance (the session a question
#: names is where its answer is; its turns that match best come first among them)
SESSION = 1.0
#: what a turn gains when its session holds the most of the question's lexical matches (a share of
#: it for a session holding less). Chosen leaving one LoCoMo dev conversation out
#: (bench/tune_folds.py, of 0–0.3: 0.3, 0.25 and 0.2 on the three pairs; held out, recall@10
#: rises on two conversations, the third's falls by a part of one multi-hop question); 0.2 is
#: the best on the three together.
TOPIC = 0.2
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_LAST = ("last", "latest", "most recent")
#: the words for the session before the last
_BEFORE_LAST = ("previous", "penultimate", "second to last", "second-to-last", "last but one")
_NUMBER = re.compile(r"\bsession\s+(?:number\s+|no\.?\s*|#\s*)?(\d{1,4})\b", re.IGNORECASE)
_NAMED = re.compile(
    r"\b(?:the|our|that|this)\s+("
    + "|".join(w.replace(" ", r"\s+") for w in (*_BEFORE_LAST, *_ORDINALS, *_LAST))
    + r"|\d{1,4}(?:st|nd|rd|th))\s+session\b(?!\s+(?:of|with|at|for|on|in)\b)",
    re.IGNORECASE,
)
#: "the session before", "the session before last" (the words end there: "the session before
#: the party" is no session of the conversation's)
_BEFORE = re.compile(
    r"\b(?:the|our)\s+session\s+before(?:\s+(?:last|the\s+last(?:\s+one|\s+session)?))?(?=\s*(?:[?.!,;]|$))",
    re.IGNORECASE,
)
Asked = tuple[str, int]


def asked_session(question: str) -> Asked | None:
    """The session a question names: ``("last", n)`` — the n-th before the last, 0 the last —
    or ``("number", n)`` — "first" is 1 —, or None.

    >>> asked_session("What did we talk about in the last session?")
    ('last', 0)
    >>> asked_session("What did Joanna say in session no. 4?"), asked_session("…in our third session?")
    (('number', 4), ('number', 3))
    >>> asked_session("How long was her last session of yoga?"), asked_session("Who led a yoga session?")
    (None, None)
    >>> asked_session("What did Caroline do after the first session with her therapist?")
    >>> asked_session("What did we say in the previous session?"), asked_session("… in the session before?")
    (('last', 1), ('last', 1))
    >>> asked_session("What did she do in the session before the party?")
    """
    found = _NUMBER.search(question)
    if found:
        return ("number", int(found.group(1)))
    if _BEFORE.search(question):
        return ("last", 1)
    found = _NAMED.search(question)
    if not found:
        return None
    word = " ".join(found.group(1).lower().split())
    if word in _BEFORE_LAST:
        return ("last", 1)
    if word in _LAST:
        return ("last", 0)
    if word in _ORDINALS:
        return ("number", _ORDINALS.index(word) + 1)
    return ("number", int(word[:-2]))


def session_turns(
    store: Store, asked: Asked, speakers: Iterable[str], keep: Callable[[MemoryNode], bool]
) -> dict[str, MemoryNode]:
    """The turns of the session ``asked`` names, of the conversation the ``speakers`` speak in
    (folded names; ``keep``: the nodes that may be results), by id; none when it has no such
    session."""
    wanted = set(speakers)
    turns = [
        n
        for n in store.get_nodes(store.node_ids()).values()
        if isinstance(n.metadata.get("speaker"), str)
        and "session" in n.metadata
        and speaker_of(n.metadata) in wanted
        and keep(n)
    ]
    by_session: dict[str, list[MemoryNode]] = {}
    for node in turns:
        by_session.setdefault(str(node.metadata["session"]), []).append(node)
    if not by_session:
        return {}
    kind, number = asked
    if kind == "number" and str(number) in by_session:
        chosen = str(number)
    else:
        order = sorted(by_session, key=lambda s: (min(n.valid_from or "" for n in by_session[s]), s))
        if kind == "last":
            order = sorted(by_session, key=lambda s: (max(n.valid_from or "" for n in by_session[s]), s))
            if number >= len(order):
                return {}
            chosen = order[-1 - number]
        elif 1 <= number <= len(order):
            chosen = order[number - 1]
        else:
            return {}
    return {n.id: n for n in by_session[chosen]}


def session_key(node: MemoryNode) -> tuple[str, str]:
    """A turn's session: its name and the day said (two conversations' sessions of one number are two)."""
    return str(node.metadata.get("session")), str(node.metadata.get("said", ""))


def topic_weights(relevance: Mapping[str, float], turns: Mapping[str, MemoryNode]) -> dict[tuple[str, str], float]:
    """Each session's part in the question's topic (by ``session_key``): the summed ``relevance``
    (by id) of its turns among ``turns``, over the heaviest session's — 1 for the session the
    question's words are most said in. O(len(turns)).

    >>> def turn(i: str, session: int) -> MemoryNode:
    ...     return MemoryNode(id=i, content="", metadata={"speaker": "Jo", "session": session, "said": "8 May 2023"})
    >>> turns = {"a": turn("a", 1), "b": turn("b", 1), "c": turn("c", 2), "d": turn("d", 3)}
    >>> topic_weights({"a": 0.5, "b": 0.3, "c": 0.4}, turns)
    {('1', '8 May 2023'): 1.0, ('2', '8 May 2023'): 0.5, ('3', '8 May 2023'): 0.0}
    """
    mass: dict[tuple[str, str], float] = {}
    for node_id, node in turns.items():
        mass[session_key(node)] = mass.get(session_key(node), 0.0) + relevance.get(node_id, 0.0)
    heaviest = max(mass.values(), default=0.0)
    return {key: weight / heaviest for key, weight in mass.items()} if heaviest > 0 else {}
