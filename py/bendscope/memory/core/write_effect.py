"""The topological effect of one write: κ before → after on the loops it touches.

``store_edge``, ``delete_edge``, ``delete_node`` answer with what they did to the feedback
loops (strongly connected components with κ > 0) around the nodes they touch, worded as the
editor's previews are (``bendscope.kappa.preview``): "creates feedback loop", "enlarges loop",
"merges feedback loops", "strengthens loop", "weakens loop", "shrinks loop", "splits loop",
"breaks feedback loop" or "no topological change".

The loops come from the loop index, which the write brings up to date in its own
transaction (``loop_index``: its update reports the loops it changed). Both sides cover one
region: after the write, the loops holding a touched node and what is left of the loops
before; before it, the loops holding a touched node and those merged into a loop holding
one — the same as two analyses of the whole store, restricted to those loops (a property
test checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .records import LoopRecord

#: the most node ids listed per SCC in an answer (the count is always given)
LISTED = 100


def describe(before: Sequence[LoopRecord], after: Sequence[LoopRecord]) -> str:
    """The editor's words for the change from the loops ``before`` to those ``after`` (both
    over the same region, before and after a write).

    >>> loop = LoopRecord("a", ("a", "b"), 1)
    >>> describe([], [loop]), describe([loop], []), describe([loop], [loop])
    ('creates feedback loop', 'breaks feedback loop', 'no topological change')
    >>> describe([loop, LoopRecord("c", ("c", "d"), 1)], [LoopRecord("a", ("a", "b", "c", "d"), 1)])
    'merges feedback loops'
    """
    b_sets = [frozenset(s.nodes) for s in before]
    a_sets = [frozenset(s.nodes) for s in after]
    if sorted(map(sorted, b_sets)) == sorted(map(sorted, a_sets)):
        kb = sorted((s.nodes, s.kappa) for s in before)
        ka = sorted((s.nodes, s.kappa) for s in after)
        if kb == ka:
            return "no topological change"
        return "strengthens loop" if sum(k for _, k in ka) > sum(k for _, k in kb) else "weakens loop"
    if not b_sets:
        return "creates feedback loop"
    if not a_sets:
        return "breaks feedback loop"
    old = frozenset().union(*b_sets)
    new = frozenset().union(*a_sets)
    if len(a_sets) < len(b_sets) and any(sum(1 for s in b_sets if s <= n) > 1 for n in a_sets):
        return "merges feedback loops"
    if len(a_sets) > len(b_sets):
        return "splits loop"
    if new > old:
        return "enlarges loop"
    if new < old:
        return "shrinks loop"
    return "changes loops"


def listed(loops: Sequence[LoopRecord]) -> list[dict[str, Any]]:
    """Loops as an answer lists them: κ, size and at most ``LISTED`` member ids each."""
    out = []
    for s in loops:
        item: dict[str, Any] = {"kappa": s.kappa, "approximate": s.approximate, "node_count": len(s.nodes)}
        item["nodes"] = list(s.nodes[:LISTED])
        if len(s.nodes) > LISTED:
            item["nodes_omitted"] = len(s.nodes) - LISTED
        out.append(item)
    return out


def effect(before: Sequence[LoopRecord], after: Sequence[LoopRecord]) -> dict[str, Any]:
    """The ``topology`` part of a write's answer: κ before → after (the largest κ among the
    touched loops, 0 without any), the description, and the loops on each side (at most
    ``LISTED`` ids each, with their count). ``"approximate": true`` when κ before or after may
    be an upper bound: the largest is that of a loop past the work budget, no exact loop has it.

    >>> big, small = LoopRecord("a", ("a", "b", "c"), 3, approximate=True), LoopRecord("x", ("x", "y"), 1)
    >>> effect([big, small], [small])["approximate"], "approximate" in effect([small], [])
    (True, False)
    """
    kappa_before = max((s.kappa for s in before), default=0)
    kappa_after = max((s.kappa for s in after), default=0)
    description = describe(before, after)
    out = {
        "description": description,
        "changed": description != "no topological change",
        "kappa_before": kappa_before,
        "kappa_after": kappa_after,
        "loops_before": listed(before),
        "loops_after": listed(after),
    }
    if not (_exact(before, kappa_before) and _exact(after, kappa_after)):
        out["approximate"] = True
    return out


def _exact(loops: Sequence[LoopRecord], kappa: int) -> bool:
    """Whether the largest κ of ``loops`` (``kappa``) is exact: an exact loop has it. O(loops)."""
    return not loops or any(not s.approximate and s.kappa == kappa for s in loops)
