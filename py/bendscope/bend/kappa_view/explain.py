"""κ in plain words, where the page shows it: the help sheet's "What κ means", the HUD
pills' tooltips and the inspector's sentences. One place, so the words agree.

κ of a loop region is the fewest edges whose removal SPLITS it (leaves it no longer one
region where every card reaches every other); the loops inside each part remain. Breaking
every loop is another number (the fewest edges whose removal leaves no loop at all), at
least κ and often more: the words never say that cutting κ edges or the fault lines breaks
every loop.

>>> kappa_sentence(1, False)
'κ = 1: removing 1 edge (the fault line) splits this region; the loops inside each part remain'
>>> kappa_sentence(3, False)
'κ = 3: removing 3 edges (the fault lines) splits this region; the loops inside each part remain'
>>> HUD_TITLES["mode"]["DELIBERATION"][:40]
'DELIBERATION: the graph has feedback loo'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
        "How tightly a loop region holds together: the fewest edges whose removal splits it, so that it "
        "is no longer one region where every card reaches every other. κ = 0: no loop, the graph reads "
        "one way. κ = 1: one edge holds the region together. κ ≥ 2: that many independent ways around. "
        "Splitting is not breaking every loop: the loops inside each part remain. The badge on a halo "
        "is its κ; a range (κ 1–3) gives bounds where it is not known exactly yet.",
    ),
    (
        "Fault line",
        "The edges of a region's weakest cut (κ of them), drawn dashed: removing them all splits the "
        "region in two parts, one of which no longer reaches the other. Loops within a part remain, so "
        "cutting the fault lines does not in general break every loop. Unbend removes one fault-line edge "
        "and says what that does. They are one weakest cut among possibly several of the same size.",
    ),
    (
        "Breaking every loop",
        "The fewest edges whose removal leaves no loop at all (a minimum feedback edge set): at least κ, "
        "often more. The inspector says how many for the selected card's region or the selection, the "
        "Loops panel for each region and the plane — exact for regions small enough, else a range of "
        "bounds — and Show them (K) draws those edges on the canvas.",
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
        "Lists the loops of the plane, or of the selection, shortest first, grouped by region with its κ, "
        "each with its mark (R1, B2: its class and number); hover or choose one to see it on the canvas — "
        "its edges in its class's colour, and, chosen, the view where its cards can be read. Markers marks "
        "every loop listed on the canvas as causal loop diagrams do: a circular arrow with its mark at the "
        "loop's centre. Very large regions list their shortest loops only.",
    ),
]

#: the words of MEANING that name a mouse's or a key's way, and a finger's for them
TOUCH_WORDS = (("hover or choose one", "tap one"), ("Show them (K)", "Show them"))


def meaning(touch: bool = False) -> list[tuple[str, str]]:
    """MEANING in the words of the device: on a touch screen (``touch``) a finger's ways,
    not hovering or keys.

    >>> loops = dict(meaning(touch=True))["Loops panel"]
    >>> "tap one to see it" in loops, "hover" in loops
    (True, False)
    >>> "hover or choose one" in dict(meaning())["Loops panel"]
    True
    """
    if not touch:
        return list(MEANING)
    out = []
    for term, words in MEANING:
        for mouse, finger in TOUCH_WORDS:
            words = words.replace(mouse, finger)
        out.append((term, words))
    return out


#: tooltips of the HUD pills (the mode pill's by mode)
HUD_TITLES: dict[str, dict[str, str]] = {
    "kappa": {
        "": "κ: the largest κ of the plane's loop regions — the fewest edges whose removal splits a region "
        "(0: no loop). Splitting leaves the loops inside each part; breaking every loop can take more "
        "edges (the inspector and the Loops panel say how many). A range marks bounds.",
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


def kappa_span(scc: Mapping[str, Any]) -> tuple[int, int]:
    """A region's κ as (lower, upper): equal when exact; past the engine's work budget its
    ``kappa_range`` (κ itself is then the smallest cut found, the upper bound).

    >>> kappa_span({"kappa": 2, "approximate": False})
    (2, 2)
    >>> kappa_span({"kappa": 3, "approximate": True, "kappa_range": [1, 3]})
    (1, 3)
    """
    kappa = int(scc["kappa"])
    if scc.get("approximate") and "kappa_range" in scc:
        lower, upper = scc["kappa_range"]
        return int(lower), int(upper)
    return kappa, kappa


def span_text(lower: int, upper: int) -> str:
    """κ as the page writes it: ``2``, or a range of bounds ``1–3`` (never a region's size).

    >>> span_text(2, 2), span_text(1, 3)
    ('2', '1–3')
    """
    return str(upper) if lower == upper else f"{lower}–{upper}"


def max_kappa_span(result: Mapping[str, Any]) -> tuple[int, int]:
    """The bounds of a topology's largest κ: the largest lower bound and the largest upper
    bound of its regions (0, 0 without a loop). O(regions)."""
    spans = [kappa_span(scc) for scc in result["sccs"]]
    return max((s[0] for s in spans), default=0), max((s[1] for s in spans), default=0)


def kappa_sentence(kappa: int, approximate: bool, lower: int | None = None) -> str:
    """What a region's κ means, in a sentence for the inspector; ``lower``: its lower bound
    when ``approximate`` (κ is then the smallest cut found).

    >>> for part in kappa_sentence(3, True, 1).split(": "):
    ...     print(part)
    κ 1–3 (bounds
    the exact κ is past the work budget)
    removing the 3 fault-line edges found splits this region; the loops inside each part remain
    """
    if approximate:
        bounds = f"{lower}–{kappa}" if lower is not None else f"≤ {kappa}"
        return (
            f"κ {bounds} (bounds: the exact κ is past the work budget): removing the {kappa} fault-line "
            f"edge{'s' if kappa != 1 else ''} found splits this region; the loops inside each part remain"
        )
    edges = "1 edge (the fault line)" if kappa == 1 else f"{kappa} edges (the fault lines)"
    return f"κ = {kappa}: removing {edges} splits this region; the loops inside each part remain"


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


def region_name(scc_id: str) -> str:
    """A loop region as people read it: numbered from 1 (the engine's ids, ``scc-0``, are its own).

    >>> region_name("scc-0"), region_name("scc-11"), region_name("odd")
    ('loop region 1', 'loop region 12', 'a loop region')
    """
    number = scc_id.removeprefix("scc-")
    return f"loop region {int(number) + 1}" if number.isdigit() and number != scc_id else "a loop region"


def loop_item_text(scc: Mapping[str, Any], texts: Mapping[str, str], shown: int = 6) -> str:
    """A loop region as the time panel lists it: its κ (its bounds past the work budget: the
    region's ``kappa`` alone is then an upper bound) and its first cards' texts. O(shown).

    >>> scc = {"nodes": ["a", "b"], "kappa": 3, "approximate": True, "kappa_range": [1, 3]}
    >>> loop_item_text(scc, {"a": "Births", "b": "Population  size"})
    'κ 1–3: “Births”, “Population size”'
    """
    members = [str(n) for n in scc["nodes"]]
    names = ", ".join(f"“{' '.join(texts.get(n, n).split())[:30]}”" for n in members[:shown])
    more = f" and {len(members) - shown} more" if len(members) > shown else ""
    return f"κ {span_text(*kappa_span(scc))}: {names}{more}"


def hud_texts(
    stats: Mapping[str, Any], result: Mapping[str, Any] | None, progress: float | str | None, selected: int
) -> dict[str, str | None]:
    """What the HUD's pills say (None: the pill is hidden): the plane's ``stats`` (nodes,
    edges, depth, and the zoom as written), the topology's ``result`` (None while a newer one is computed), the
    layout's ``progress`` (0–1, or what the layout worker does; None: hidden) and the
    ``selected`` cards whose topology is shown (0: the plane's). The page writes a pill only
    when its text changes, and makes these only when their inputs do. O(regions)

    >>> texts = hud_texts({"nodes": 3, "edges": 3, "depth": 0, "zoom": "1.00"}, None, 0.5, 0)
    >>> texts["layout"], texts["kappa"], texts["mode"], texts["selection"]
    ('layout 50%', 'κ: computing…', 'mode: …', None)
    >>> result = {"sccs": [{"kappa": 1}], "scc_count": 1, "max_kappa": 1}
    >>> texts = hud_texts({"nodes": 3, "edges": 3, "depth": 0, "zoom": "1.00"}, result, None, 2)
    >>> texts["kappa"], texts["sccs"], texts["mode"], texts["layout"], texts["selection"][:26]
    ('κ: 1', 'SCCs: 1', 'mode: DELIBERATION', None, 'showing the selection: 2 n')
    """
    layout = progress if isinstance(progress, str) or progress is None else f"layout {round(progress * 100)}%"
    texts: dict[str, str | None] = {
        "selection": f"showing the selection: {selected} nodes · ✕ whole plane" if selected else None,
        "layout": layout,
        "nodes": f"nodes: {stats['nodes']}",
        "edges": f"edges: {stats['edges']}",
        "depth": f"depth: {stats['depth']}",
        "zoom": f"zoom: {stats['zoom']}",
    }
    if result is None:
        texts.update(kappa="κ: computing…", sccs="SCCs: …", mode="mode: …")
    else:
        texts["kappa"] = f"κ: {span_text(*max_kappa_span(result))}"  # (a range: bounds)
        texts["sccs"] = f"SCCs: {result['scc_count']}"
        texts["mode"] = f"mode: {'DELIBERATION' if int(result['max_kappa']) > 0 else 'RETRIEVAL'}"
    return texts
