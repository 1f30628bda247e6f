"""The κ router: whether a question is answered in one retrieval pass (``fast``) or needs the
agent to reason a feedback loop through (``deliberate``) — decided from the part of the memory
the question is about, not from every loop its retrieval window happens to touch.

**The rule.** The question's *focus* is its best direct match (a node that matches the query's
words itself) and the next direct matches scoring at least ``FOCUS_SHARE`` of it, at most
``FOCUS_SIZE`` in all. Its *intent* is read from its words (``intent``): ``dynamics`` (why
something keeps happening, whether it corrects itself, what happens around a cycle, how two
things feed each other), ``lookup`` (who, when, where, how much, what is …) or ``open``.

* ``dynamics``: the loops that hold a focus node, or a node one edge away from one (a question
  about how a fact's subject behaves is about the loop its subject is on), are the question's
  loops;
* ``open``: the loop that holds the best match, if any;
* ``lookup``: none — a fact about a loop member (a date, a definition, a number) is answered in
  one pass, even when the fact is linked to the loop or is a loop member itself.

The route is ``deliberate`` when the question has a loop, ``fast`` otherwise. A loop of the
question is brought into the answer whole (its members, κ, fault lines and budget), up to the
retrieval's ``loop_limit``; one too large to bring stays ``deliberate`` and says so. Loops that
the results touch but the question is not about are only named (id, κ, size), after the
results. O(focus) beyond the retrieval itself.

>>> loop_of = {"algae-bloom": "algae-bloom"}
>>> sizes = {"algae-bloom": (5, 1, False)}
>>> question_route("why does the algae bloom keep coming back", ["algae-bloom"], loop_of, sizes).routing
'deliberate'
>>> question_route("when was the biggest algae bloom", ["bloom-2018", "algae-bloom"], loop_of, sizes).routing
'fast'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .intent import Intent, evidence, intent

__all__ = ["FOCUS_SHARE", "FOCUS_SIZE", "Route", "question_route"]

#: a direct match is in the question's focus when it scores at least this share of the best
FOCUS_SHARE = 0.5
#: the most direct matches in the focus
FOCUS_SIZE = 4


@dataclass(frozen=True)
class Route:
    """A routing decision: ``routing``, the question's loops (ids, in focus order), the
    question's ``intent`` and ``why`` in one sentence."""

    routing: str
    loops: tuple[str, ...]
    intent: Intent
    why: str


def _loop_words(sizes: Mapping[str, tuple[int, int, bool]], loops: Sequence[str]) -> str:
    def one(loop_id: str) -> str:
        count, kappa, approximate = sizes[loop_id]
        return f"{loop_id} ({count:,} nodes, κ {'≤ ' if approximate else ''}{kappa})"

    if len(loops) == 1:
        return f"a feedback loop, {one(loops[0])}"
    return f"{len(loops)} feedback loops, " + ", ".join(one(loop) for loop in loops)


def _phrase(words: str) -> str:
    """A sign's words as ``why`` quotes them: at most 24 characters (a long phrase is cut, with …).

    >>> _phrase("keep"), _phrase("how does the agency pay cap work")
    ("'keep'", "'how does the agency pay…'")
    """
    return repr(words if len(words) <= 24 else words[:24].rsplit(" ", 1)[0] + "…")


def _whose_loops(
    query: str,
    kind: Intent,
    focus: Sequence[str],
    candidates: Sequence[str],
    loop_of: Mapping[str, str],
    sizes: Mapping[str, tuple[int, int, bool]],
    loops: Sequence[str],
) -> str:
    """Why the question has ``loops``: the loops its best matches sit on, and apart from them
    the loops only what they link to sits on — each loop credited to the nodes that hold it."""
    held = [loop for loop in loops if any(loop_of.get(n) == loop for n in focus)]
    reached = [loop for loop in loops if loop not in held]
    parts = []
    if held:
        on = [n for n in focus if loop_of.get(n) in held][:3]
        whose = f"{'its best matches' if len(on) > 1 else 'its best match'} {', '.join(on)}"
        parts.append(f"{whose} {'sit' if len(on) > 1 else 'sits'} on {_loop_words(sizes, held)}")
    if reached:
        linked = [n for n in candidates if n not in focus and loop_of.get(n) in reached][:3]
        whose = f"what {'they' if held else 'its best matches'} link to, {', '.join(linked)},"
        parts.append(f"{whose} {'sit' if len(linked) > 1 else 'sits'} on {_loop_words(sizes, reached)}")
    if kind == "dynamics":
        shown = [_phrase(w) for w in dict.fromkeys(evidence(query)["dynamics"])][:3]
        asks = (
            f"the question asks how things behave ({', '.join(shown)})"
            if shown
            else "the question asks how things behave"
        )
    else:
        asks = "the question does not ask for a fact (who, when, how much …)"
    return f"{asks} and {' and '.join(parts)}"


def question_route(
    query: str,
    focus: Sequence[str],
    loop_of: Mapping[str, str],
    sizes: Mapping[str, tuple[int, int, bool]],
    touched: Sequence[str] = (),
    neighbours: Mapping[str, Sequence[str]] | None = None,
) -> Route:
    """The route of ``query`` whose focus (best direct matches, best first) is ``focus``;
    ``loop_of``: the loop id of each node on a loop; ``sizes``: (node count, κ, approximate)
    by loop id; ``touched``: the loops the answer's results touch (named in a fast route's
    ``why``); ``neighbours``: the nodes one edge away from each focus node (sorted)."""
    kind = intent(query)
    if kind == "dynamics":
        near = neighbours or {}
        candidates = list(dict.fromkeys([*focus, *(n for f in focus for n in near.get(f, ()))]))
    elif kind == "open":
        candidates = list(focus[:1])
    else:
        candidates = []
    loops = tuple(dict.fromkeys(loop_of[n] for n in candidates if n in loop_of))
    nearby = [loop for loop in dict.fromkeys([*(loop_of[n] for n in focus if n in loop_of), *touched])
              if loop not in loops]  # fmt: skip
    if loops:
        said = _whose_loops(query, kind, focus, candidates, loop_of, sizes, loops)
        why = f"deliberate: {said}: reason the loop through (its members, κ and fault lines) before answering."
        return Route("deliberate", loops, kind, why)
    if not focus:
        return Route("fast", (), kind, "fast: nothing in the memory matches the question's words.")
    if nearby:
        what = "asks for a fact" if kind == "lookup" else "does not ask how things behave over time"
        them = "a loop" if len(nearby) == 1 else f"{len(nearby)} loops"
        why = f"fast: the question {what}; its best matches answer it in one pass (they touch {them}: see loops)."
        return Route("fast", (), kind, why)
    return Route("fast", (), kind, "fast: no feedback loop holds the question's best matches: one pass answers.")
