"""What a turn tells, and who: the last weighing of a conversation's candidates, once the
session's neighbours have taken their shares.

* **Asked, not told.** A turn whose words matching the question stand only in its questions
  (sentences ending "?": "Wow, Mel! Any more paintings coming up?") tells nothing of them: its
  own lexical relevance loses ``ASKED`` × the share of those words. Its neighbours took their
  share from it before (``recall``), so the answer that follows a question still comes in.
* **The speaker asked about.** A question that names one speaker (not all) is answered by what
  that speaker said: of the evidence of such questions in the LoCoMo dev conversations, 449
  turns of 463 are that speaker's. The other speakers' turns keep ``1 − OTHER`` of their score
  (after the neighbours' shares: a question the other speaker asked still lends to its answer).

Both chosen leaving one LoCoMo dev conversation out (``bench/bench_locomo.py``; the grid and
the held-out figures are in the benchmark's doc).

>>> sorted(asked_only("Maria: Wow! Did you paint that horse? I love it.")), asked_only("Jo: Paint? Jo paints.")
(['hors', 'paint'], frozenset())
>>> sorted(asked_only("Mel: Did you paint it?"))
['paint']
>>> sorted(asked_only("Jon: Any dance classes soon? [shares a photo: a dance class]"))
['soon']
>>> asking_share("Jon: Any dance classes soon?", ["danc", "studio"]), asking_share("Jon: I dance.", ["danc"])
(1.0, 0.0)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from ..records import MemoryNode
from ..text import terms
from .turns import speaker_of

#: share of its own lexical relevance a turn loses for the question's words it only asks
ASKED = 0.4
#: share of its score a turn of another speaker than the one the question names loses
OTHER = 0.2
_PHOTO = " [shares a photo: "
_SENTENCE = re.compile(r"[^.!?…]+[.!?…]*")


@functools.lru_cache(maxsize=50_000)
def asked_only(content: str) -> frozenset[str]:
    """The index terms a turn ("Speaker: text") holds only in its questions, not also in a
    sentence that tells or in a shared photo's caption (its speaker's name left out).
    O(len(content)), cached."""
    said, _, caption = content.partition(": ")[2].partition(_PHOTO)
    asking: set[str] = set()
    telling = set(terms(caption))
    for sentence in _SENTENCE.findall(said):
        (asking if sentence.rstrip().endswith("?") else telling).update(terms(sentence))
    return frozenset(asking - telling)


@functools.lru_cache(maxsize=50_000)
def _terms(content: str) -> frozenset[str]:
    """The index terms of what a turn says (its speaker's name left out)."""
    return frozenset(terms(content.partition(": ")[2]))


def asking_share(content: str, words: Sequence[str]) -> float:
    """The share of the question's terms ``words`` that a turn holds, held only in its questions."""
    held = _terms(content) & set(words)
    return len(held & asked_only(content)) / len(held) if held else 0.0


def weigh(
    scores: dict[str, float],
    nodes: Mapping[str, MemoryNode],
    lexical: Mapping[str, float],
    words: Sequence[str],
    named: set[str],
) -> None:
    """Weigh the candidates' ``scores`` in place: a turn's ``lexical`` relevance less what it
    only asks of ``words`` (``ASKED``), and the turns of speakers other than the ``named`` one
    (normal forms; none: nobody favoured) by ``1 − OTHER``. O(candidates)."""
    for node_id in scores:
        node = nodes[node_id]
        speaker = node.metadata.get("speaker")
        if not isinstance(speaker, str) or "session" not in node.metadata:
            continue  # (a fact or a note: weighed by its own relevance)
        own = lexical.get(node_id, 0.0)
        if ASKED and own:
            scores[node_id] -= ASKED * asking_share(node.content, words) * own
        if OTHER and named and speaker_of(node.metadata) not in named:
            scores[node_id] *= 1 - OTHER
