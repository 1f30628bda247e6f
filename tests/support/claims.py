"""What the product must not say about κ, found in its words: that cutting κ edges, the
fault lines or a region's weakest cut breaks every loop. κ is the fewest edges whose removal
SPLITS a loop region; the loops inside each part remain, and breaking every loop can take
more edges. Shared by the editor tests (tests/) and the page tests (e2e/).

Each of the page's old sentences is caught:

>>> old = [
...     "κ = 1: cutting 1 edge (a fault line) breaks every loop here",
...     "fault line (cut it to break the loops)",
...     "Unbend — Break Feedback Loop",
...     "fault line: cutting it, with its region's other fault lines, breaks every loop there",
...     "κ: the fewest edges to cut to break every feedback loop of the most tangled loop region",
...     "Fault line: The edges of a region's weakest cut, drawn dashed: cutting them breaks every loop.",
...     "κ (kappa): How tightly a region's loops are tied: the fewest edges you would have to cut to "
...     "break every loop in it. κ = 0: no loop.",
...     "κ ≈ 3 (estimated): at least 3 edges must be cut to break every loop here",
... ]
>>> [len(false_claims(text)) for text in old]
[1, 1, 1, 1, 1, 1, 1, 1]

and what is true is not:

>>> true = [
...     "κ = 1: removing 1 edge (the fault line) splits this region; the loops inside each part remain",
...     "Splitting is not breaking every loop: the loops inside each part remain.",
...     "Loops within a part remain, so cutting the fault lines does not in general break every loop.",
...     "Breaking every loop: The fewest edges whose removal leaves no loop at all: at least κ, often more.",
...     "2 edges break every loop here (the fewest; κ is 1)",
...     "Remove edge Population→Deaths? Deaths leaves the feedback loop; the rest stays a loop (κ: 1→1).",
... ]
>>> [false_claims(text) for text in true]
[[], [], [], [], [], []]
"""

from __future__ import annotations

import re

__all__ = ["false_claims"]

#: a sentence (or clause) that says something breaks every loop, or all, or the loops
_BREAKS = re.compile(r"\bbreak\w*\b.{0,40}?\b(every|all|the)\b.{0,25}?\bloops?\b|\bbreak feedback loop\b", re.I)
#: what it says breaks them: the fault lines, a weakest cut, κ's cut, "cut it / them"
_KAPPA_CUT = re.compile(
    r"fault[- ]line|weakest cut|\bcut (it|them)\b|fewest edges to cut|cutting \d+ edges?|\d+ edges? must be cut"
    r"|κ\b[^.;]*\bcut\b",
    re.I,
)
_NEGATED = re.compile(r"\b(not|never|need not|no longer)\b", re.I)
_MENU_LABEL = re.compile(r"\bbreak feedback loop\b", re.I)


def false_claims(text: str) -> list[str]:
    """The sentences of ``text`` that say cutting κ's cut (or the fault lines) breaks every loop."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
        if not _BREAKS.search(sentence) or _NEGATED.search(sentence):
            continue
        if _KAPPA_CUT.search(sentence) or _MENU_LABEL.search(sentence):
            found.append(sentence.strip())
    return found
