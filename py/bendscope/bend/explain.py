"""κ in plain words, where the page shows it: the help sheet's "What κ means", the HUD
pills' tooltips and the inspector's sentences. One place, so the words agree.

>>> kappa_sentence(1, False)
'κ = 1: cutting 1 edge (a fault line) breaks every loop here'
>>> kappa_sentence(3, True)
'κ ≈ 3 (estimated: the region is too large to cut exactly): at least 3 edges must be cut to break every loop here'
>>> HUD_TITLES["mode"]["DELIBERATION"][:40]
'DELIBERATION: the graph has feedback loo'
"""

from __future__ import annotations

#: the help sheet's first section: (term, what it means)
MEANING: list[tuple[str, str]] = [
    (
        "Feedback loop",
        "A way to follow arrows (causal or temporal edges) from a card back to itself: A raises B, "
        "B raises C, C raises A. Loops are why a question about such cards has no one-pass answer.",
    ),
    (
        "Loop region (SCC, halo)",
        "Cards that all reach one another along arrows — a strongly connected component. The page "
        "draws a halo around each one. Loops never leave their region.",
    ),
    (
        "κ (kappa)",
        "How tightly a region's loops are tied: the fewest edges you would have to cut to break every "
        "loop in it. κ = 0: no loop, the graph reads one way. κ = 1: one weak link holds the loops. "
        "κ ≥ 2: several independent ways around. The badge on a halo is its κ; ≈ means estimated "
        "(very large regions).",
    ),
    (
        "Fault line",
        "The edges of a region's weakest cut, drawn dashed: cutting them breaks every loop of the "
        "region (Unbend offers to). They are one cut among possibly several of the same size.",
    ),
    (
        "RETRIEVAL · DELIBERATION",
        "What an agent reading this graph should do. No loop (κ = 0): RETRIEVAL — one pass of lookups "
        "answers. A loop (κ > 0): DELIBERATION — the causes feed back, so it has to think the loop "
        "through (the deliberation budget grows with κ) instead of looking things up once.",
    ),
    (
        "Polarity, R and B loops",
        "A causal or temporal edge may carry + (same direction: more A, more B) or − (opposite). A loop "
        "with an even number of − is Reinforcing (R: it amplifies change), odd is Balancing (B: it "
        "resists change); ? means an edge of it has no polarity yet. κ ignores polarity.",
    ),
    (
        "Loops panel",
        "Lists the loops of the plane, or of the selection, shortest first, grouped by region with its κ; "
        "hover or choose one to see it on the canvas. Very large regions list their shortest loops only.",
    ),
]

#: tooltips of the HUD pills (the mode pill's by mode)
HUD_TITLES: dict[str, dict[str, str]] = {
    "kappa": {
        "": "κ: the fewest edges to cut to break every feedback loop of the most tangled loop region "
        "(0: no loop). ≈ marks an estimate.",
    },
    "sccs": {
        "": "SCCs: loop regions (strongly connected components) — cards that all reach one another along "
        "arrows; each has a halo and a κ badge.",
    },
    "depth": {"": "Depth: how deep inside stargates this plane is (0: the top plane)."},
    "mode": {
        "RETRIEVAL": "RETRIEVAL: no feedback loop (κ = 0) — an agent answers from this graph in one pass of lookups.",
        "DELIBERATION": "DELIBERATION: the graph has feedback loops (κ > 0) — an agent must reason the loop "
        "through rather than look things up once.",
        "…": "κ is being computed for the latest change.",
    },
}


def kappa_sentence(kappa: int, approximate: bool) -> str:
    """What a region's κ means, in a sentence for the inspector."""
    if approximate:
        return (
            f"κ ≈ {kappa} (estimated: the region is too large to cut exactly): at least {kappa} "
            f"edge{'s' if kappa != 1 else ''} must be cut to break every loop here"
        )
    edges = "1 edge (a fault line)" if kappa == 1 else f"{kappa} edges (the fault lines)"
    return f"κ = {kappa}: cutting {edges} breaks every loop here"


def loops_sentence(count: int, counts: dict[str, int], complete: bool) -> str:
    """How many loops pass through a card or an edge, by class.

    >>> loops_sentence(3, {"R": 2, "B": 1, "?": 0}, True)
    'on 3 loops: 2 reinforcing, 1 balancing'
    >>> loops_sentence(1, {"R": 0, "B": 0, "?": 1}, False)
    'on at least 1 loop (of those listed): 1 without polarity'
    >>> loops_sentence(0, {"R": 0, "B": 0, "?": 0}, True)
    'on no loop'
    """
    if count == 0:
        return "on no loop" if complete else "on none of the loops listed"
    words = {"R": "reinforcing", "B": "balancing", "?": "without polarity"}
    parts = [f"{counts[c]} {words[c]}" for c in ("R", "B", "?") if counts.get(c)]
    many = f"{count} loop{'s' if count != 1 else ''}"
    return f"on {many if complete else f'at least {many} (of those listed)'}: " + ", ".join(parts)
