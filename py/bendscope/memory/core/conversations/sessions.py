"""A question that names a session of the conversation: "What did we talk about in the last
session?", "What did Joanna say in session number four?" (in digits), "… in our first session",
"… in the third session". The turns of that session join the candidates and gain ``SESSION``.

``asked_session`` reads the session a question names: a number in digits after "session" (or
"session number"), or "the" / "our" / "that" / "this" and an ordinal ("first" … "tenth", "1st", "12th"), "last",
"latest", "previous" or "most recent" before it. A session of something ("a session of yoga",
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
#: (bench/tune_folds.py, of 0–0.3: 0.2, 0.25 and 0.3 on the three pairs; no held-out category
#: drops by more than one question's share); 0.2 is the best on the three together.
TOPIC = 0.2
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_LAST = ("last", "latest", "previous", "most recent")
_NUMBER = re.compile(r"\bsession\s+(?:number\s+|no\.?\s*|#\s*)?(\d{1,4})\b", re.IGNORECASE)
_NAMED = re.compile(
    r"\b(?:the|our|that|this)\s+(" + "|".join((*_ORDINALS, *_LAST)) + r"|\d{1,4}(?:st|nd|rd|th))\s+session\b"
    r"(?!\s+(?:of|with|at|for|on|in)\b)",
    re.IGNORECASE,
)
Asked = tuple[str, int]


def asked_session(question: str) -> Asked | None:
    """The session a question names: ``("last", 0)``, or ``("number", n)`` — "first" is 1 —,
    or None.

    >>> asked_session("What did we talk about in the last session?")
    ('last', 0)
    >>> asked_session("What did Joanna say in session no. 4?"), asked_session("…in our third session?")
    (('number', 4), ('number', 3))
    >>> asked_session("How long was her last session of yoga?"), asked_session("Who led a yoga session?")
    (None, None)
    >>> asked_session("What did Caroline do after the first session with her therapist?")
    """
    found = _NUMBER.search(question)
    if found:
        return ("number", int(found.group(1)))
    found = _NAMED.search(question)
    if not found:
        return None
    word = " ".join(found.group(1).lower().split())
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
            chosen = order[-1]
        elif 1 <= number <= len(order):
            chosen = order[number - 1]
        else:
            return {}
    return {n.id: n for n in by_session[chosen]}


def topic_shares(relevance: Mapping[str, float], turns: Mapping[str, MemoryNode]) -> dict[str, float]:
    """Each of ``turns``' share of the question's topic: the summed ``relevance`` (lexical, by id)
    of its session's turns among ``turns``, over the heaviest session's — 1 for the turns of the
    session the question's words are most said in, whether or not the turn holds them itself.
    A session is its name and the day said (two conversations' "session 3" are two). O(len(turns)).

    >>> def turn(i: str, session: int) -> MemoryNode:
    ...     return MemoryNode(id=i, content="", metadata={"speaker": "Jo", "session": session, "said": "8 May 2023"})
    >>> turns = {"a": turn("a", 1), "b": turn("b", 1), "c": turn("c", 2), "d": turn("d", 1)}
    >>> topic_shares({"a": 0.5, "b": 0.3, "c": 0.4}, turns)
    {'a': 1.0, 'b': 1.0, 'c': 0.5, 'd': 1.0}
    """

    def session_of(node: MemoryNode) -> tuple[str, str]:
        return str(node.metadata.get("session")), str(node.metadata.get("said", ""))

    mass: dict[tuple[str, str], float] = {}
    for node_id, node in turns.items():
        mass[session_of(node)] = mass.get(session_of(node), 0.0) + relevance.get(node_id, 0.0)
    heaviest = max(mass.values(), default=0.0)
    if heaviest <= 0:
        return {}
    return {node_id: mass[session_of(node)] / heaviest for node_id, node in turns.items()}
