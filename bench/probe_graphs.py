"""The graphs of ``probe_hand.py``: its own seeded shapes (hubs, regions, a strong region,
dense, long texts) and the hand benchmark's graph under the probe's ids, with what the probe
reads of a document (degrees, the κ engine's input)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphs import giant_scc_document

DIRECTED = ("causal", "temporal")
WORDS = [
    "river",
    "price",
    "demand",
    "supply",
    "trust",
    "habit",
    "signal",
    "noise",
    "budget",
    "morale",
    "churn",
    "rumour",
    "queue",
    "backlog",
    "hiring",
    "growth",
    "rent",
    "wage",
    "fatigue",
    "debt",
    "quality",
    "defect",
    "latency",
    "retention",
    "referral",
    "margin",
]

# --------------------------------------------------------------------------- graphs (seeded, own)


def _name(i: int, rng: random.Random, lo: int = 1, hi: int = 2) -> str:
    """A card's text: its id first (so every name the page shows maps back to its card), then words."""
    return " ".join([f"k{i:04d}", *rng.choices(WORDS, k=rng.randint(lo, hi))])


def _long_name(i: int, rng: random.Random) -> str:
    """A text of 60–120 characters."""
    goal = rng.randint(60, 120)
    text = f"k{i:04d}"
    while len(text) < goal:
        text += " " + rng.choice(WORDS)
    return text[:goal]


def _doc(n: int, arcs: list[tuple[int, int, str]], texts: list[str]) -> dict:
    nodes = [{"id": f"k{i:04d}", "text": texts[i]} for i in range(n)]
    edges = [{"id": f"x{j}", "source": f"k{a:04d}", "target": f"k{b:04d}", "kind": kind}
             for j, (a, b, kind) in enumerate(arcs)]  # fmt: skip
    return {"nodes": nodes, "edges": edges}


def _kind(rng: random.Random, directed: float) -> str:
    return rng.choice(DIRECTED) if rng.random() < directed else rng.choice(("associative", "context"))


def hubs_graph(n: int, seed: int = 11) -> dict:
    """Preferential attachment: each new card links 2 earlier ones, by degree (a random end of an
    existing edge) or, one time in three, one of the 6 first cards — hubs of 200+ edges; random
    directions, 3 of 4 arcs directed.

    >>> d = hubs_graph(2000); deg = degrees(d); sorted(deg.values())[-6] >= 200
    True
    """
    rng = random.Random(seed)
    arcs: list[tuple[int, int, str]] = [(1, 0, "causal")]
    ends = [0, 1]
    seen = {(0, 1)}
    for i in range(2, n):
        for _ in range(2):
            for _try in range(20):
                j = rng.randrange(min(6, i)) if rng.random() < 1 / 3 else rng.choice(ends)
                if j != i and (min(i, j), max(i, j)) not in seen:
                    break
            else:
                continue
            seen.add((min(i, j), max(i, j)))
            a, b = (i, j) if rng.random() < 0.5 else (j, i)
            arcs.append((a, b, _kind(rng, 0.75)))
            ends += [i, j]
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def regions_graph(n: int, size: int = 50, seed: int = 12) -> dict:
    """``n // size`` loop regions of ``size`` cards (region g: 1 + g mod 3 random cycles through
    all its cards — κ up to 3 — plus size/4 chords), joined by forward arcs only (no loop
    between regions), and associative links across.

    >>> sccs = analyze(*graph_input(regions_graph(2000)))["sccs"]
    >>> len(regions_graph(2000)["nodes"]), sorted({len(s["nodes"]) for s in sccs}), max(s["kappa"] for s in sccs)
    (2000, [50], 3)
    """
    rng = random.Random(seed)
    arcs: list[tuple[int, int, str]] = []
    groups = n // size
    for g in range(groups):
        base = g * size
        members = list(range(base, base + size))
        seen: set[tuple[int, int]] = set()
        for _cycle in range(1 + g % 3):
            rng.shuffle(members)
            for k in range(size):
                pair = (members[k], members[(k + 1) % size])
                if pair not in seen:
                    seen.add(pair)
                    arcs.append((*pair, rng.choice(DIRECTED)))
        for _ in range(size // 4):
            a, b = rng.sample(members, 2)
            if (a, b) not in seen:
                seen.add((a, b))
                arcs.append((a, b, rng.choice(DIRECTED)))
        if g + 1 < groups:
            for _ in range(2):
                h = rng.randrange(g + 1, groups)
                arcs.append((base + rng.randrange(size), h * size + rng.randrange(size), "causal"))
            arcs.append((base + rng.randrange(size), rng.randrange(groups) * size + rng.randrange(size), "associative"))
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def strong_graph(n: int, cycles: int = 4, seed: int = 15) -> dict:
    """One loop region of every card, κ of 2–4: ``cycles`` random cycles
    through all the cards (directed), plus n/4 associative links.

    >>> analyze(*graph_input(strong_graph(200)))["max_kappa"]
    3
    """
    rng = random.Random(seed)
    arcs: list[tuple[int, int, str]] = []
    seen: set[tuple[int, int]] = set()
    order = list(range(n))
    for _ in range(cycles):
        rng.shuffle(order)
        for k in range(n):
            pair = (order[k], order[(k + 1) % n])
            if pair not in seen:
                seen.add(pair)
                arcs.append((*pair, rng.choice(DIRECTED)))
    for _ in range(n // 4):
        a, b = rng.sample(range(n), 2)
        arcs.append((a, b, "associative"))
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def dense_graph(n: int, per_card: float = 3.0, seed: int = 13) -> dict:
    """A random tree of directed arcs plus random arcs up to ``per_card``·n, 4 of 5 directed."""
    rng = random.Random(seed)
    arcs = [(rng.randrange(i), i, "causal") for i in range(1, n)]
    while len(arcs) < per_card * n:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            arcs.append((a, b, _kind(rng, 0.8)))
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def long_graph(n: int, seed: int = 14) -> dict:
    """A random tree plus random arcs up to 2n (3 of 5 directed), texts of 60–120 characters."""
    rng = random.Random(seed)
    arcs = [(rng.randrange(i), i, "causal") for i in range(1, n)]
    while len(arcs) < 2 * n:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            arcs.append((a, b, _kind(rng, 0.6)))
    return _doc(n, arcs, [_long_name(i, rng) for i in range(n)])


def ours_graph(n: int) -> dict:
    """The hand's benchmark's graph, renamed to the probe's ids (the baseline in the same run)."""
    doc = giant_scc_document(n)
    ids = {nd["id"]: f"k{int(nd['id'][1:]):04d}" for nd in doc["nodes"]}
    return {
        "nodes": [{"id": ids[nd["id"]], "text": f"{ids[nd['id']]} {nd['text']}"} for nd in doc["nodes"]],
        "edges": [{**e, "source": ids[e["source"]], "target": ids[e["target"]]} for e in doc["edges"]],
    }


def degrees(doc: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in doc["edges"]:
        out[e["source"]] = out.get(e["source"], 0) + 1
        out[e["target"]] = out.get(e["target"], 0) + 1
    return out


def graph_input(doc: dict) -> tuple[list[str], list[dict]]:
    """A document (bare or the editor's export, first plane) as the κ engine's input."""
    if "planes" in doc:
        plane = doc["planes"][0]
        edges = [{"source": e["a"], "target": e["b"], "kind": e["props"]["kind"]} for e in plane["edges"]]
        return [nd["id"] for nd in plane["nodes"]], edges
    plane = doc
    edges = [{"source": e["source"], "target": e["target"], "kind": e.get("kind", "causal")} for e in plane["edges"]]
    return [nd["id"] for nd in plane["nodes"]], edges
