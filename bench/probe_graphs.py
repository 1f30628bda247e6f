"""The graphs of ``probe_hand.py``: its own seeded shapes (hubs, regions, a strong region,
dense, long texts) and the hand benchmark's graph under the probe's ids, with what the probe
reads of a document (degrees, the κ engine's input)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphs import giant_scc_document

from bendscope.kappa import analyze  # noqa: F401  (the doctests' engine)

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


def _tree_and_arcs(rng: random.Random, n: int, per_card: float, directed: float) -> list[tuple[int, int, str]]:
    """A random tree of causal arcs, then random arcs (a share ``directed`` of them directed) up
    to ``per_card``·n arcs in all."""
    arcs = [(rng.randrange(i), i, "causal") for i in range(1, n)]
    while len(arcs) < per_card * n:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            arcs.append((a, b, _kind(rng, directed)))
    return arcs


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
    arcs = _tree_and_arcs(rng, n, per_card, 0.8)
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def long_graph(n: int, seed: int = 14) -> dict:
    """A random tree plus random arcs up to 2n (3 of 5 directed), texts of 60–120 characters."""
    rng = random.Random(seed)
    arcs = _tree_and_arcs(rng, n, 2, 0.6)
    return _doc(n, arcs, [_long_name(i, rng) for i in range(n)])


def chords_graph(n: int, chords: int = 0, seed: int = 16) -> dict:
    """One long directed cycle through every card plus ``chords`` (n/20 by default) random directed
    chords: one loop region of every card whose κ the single cycle holds at 1.

    >>> d = chords_graph(200); r = analyze(*graph_input(d))
    >>> len(r["sccs"]), len(r["sccs"][0]["nodes"]), r["max_kappa"]
    (1, 200, 1)
    """
    rng = random.Random(seed)
    arcs = [(i, (i + 1) % n, "causal") for i in range(n)]
    seen = {(a, b) for a, b, _ in arcs}
    while len(arcs) < n + (chords or n // 20):
        a, b = rng.sample(range(n), 2)
        if (a, b) not in seen:
            seen.add((a, b))
            arcs.append((a, b, rng.choice(DIRECTED)))
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def stars_graph(n: int, arms: int = 40, seed: int = 17) -> dict:
    """A star of stars: a centre joined both ways to ``arms`` hubs, each hub joined both ways to its
    share of the other cards, and one leaf in three also pointing at the next arm's hub: one loop
    region of every card (κ 1: most leaves have one arc in), a centre of 2·arms arcs and hubs of
    ~2n/arms.

    >>> d = stars_graph(200, arms=8); r = analyze(*graph_input(d))
    >>> len(r["sccs"]), len(r["sccs"][0]["nodes"]), r["max_kappa"]
    (1, 200, 1)
    """
    rng = random.Random(seed)
    hubs = list(range(1, arms + 1))
    arcs: list[tuple[int, int, str]] = []
    for h in hubs:
        arcs += [(0, h, "causal"), (h, 0, rng.choice(DIRECTED))]
    for i in range(arms + 1, n):
        h = hubs[i % arms]
        arcs += [(h, i, "causal"), (i, h, rng.choice(DIRECTED))]
        if rng.random() < 1 / 3:
            arcs.append((i, hubs[(i + 1) % arms], "causal"))
    return _doc(n, arcs, [_name(i, rng) for i in range(n)])


def bipartite_graph(n: int, rings: int = 2, per_card: int = 1, seed: int = 18) -> dict:
    """A bipartite loop: two halves, every arc crossing between them — ``rings`` cycles that
    alternate halves through every card, plus ``per_card`` arcs out of each card to random cards
    of the other half: one loop region of every card (κ ``rings`` or so), no arc inside a half.

    >>> d = bipartite_graph(2000); r = analyze(*graph_input(d))
    >>> len(r["sccs"]), len(r["sccs"][0]["nodes"]), r["max_kappa"]
    (1, 2000, 2)
    """
    rng = random.Random(seed)
    half = n // 2
    left, right = list(range(half)), list(range(half, 2 * half))
    seen: set[tuple[int, int]] = set()
    for _ring in range(rings):
        rng.shuffle(left)
        rng.shuffle(right)
        ring = [c for pair in zip(left, right, strict=True) for c in pair]
        seen |= {(ring[k], ring[(k + 1) % len(ring)]) for k in range(len(ring))}
    for a in range(2 * half):
        other = right if a < half else left
        for b in rng.sample(other, per_card):
            seen.add((a, b))
    arcs = [(a, b, rng.choice(DIRECTED)) for a, b in sorted(seen)]
    return _doc(2 * half, arcs, [_name(i, rng) for i in range(2 * half)])


#: texts a person writes that are not short Latin words: long, emoji (ZWJ sequences, flags,
#: skin tones), right-to-left (Arabic, Hebrew) mixed with Latin, combining marks, CJK, markup
SCRIPTS = [
    "تكلفة التأمين ترتفع مع الطلب",
    "עלות הדיור עולה",
    "👩‍👩‍👧‍👦 family 🇯🇵🏳️‍🌈 👍🏽",
    "需求增加导致价格上涨，供给随后跟上",
    "Z̷a̴l̸g̶o̵ ̷t̶e̸x̵t̷",
    "<b>not bold</b> & <script>x</script>",
    "mixed English then عربي then English again",
    "a\u200bzero\u200bwidth\u2067isolate\u2069",
]


def texts_graph(n: int, seed: int = 19) -> dict:
    """The dense shape's arcs (a random tree plus arcs up to 2n, 3 of 4 directed) with texts a
    person writes: 200–400 characters with no space one card in ten, emoji, right-to-left and
    mixed scripts, combining marks, CJK, markup that must stay text, several lines.

    >>> d = texts_graph(200); max(len(nd["text"]) for nd in d["nodes"]) >= 200
    True
    """
    rng = random.Random(seed)
    arcs = _tree_and_arcs(rng, n, 2, 0.75)
    texts = []
    for i in range(n):
        pick = rng.random()
        if pick < 0.1:
            body = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(200, 400)))
        elif pick < 0.2:
            body = "\n".join(rng.choices(SCRIPTS, k=rng.randint(2, 5)))
        else:
            body = " ".join(rng.choices(SCRIPTS + WORDS, k=rng.randint(1, 6)))
        texts.append(f"k{i:04d} {body}")
    return _doc(n, arcs, texts)


def pairs_graph(n: int, seed: int = 20) -> dict:
    """n/2 two-way pairs (a 2-cycle each: n/2 loop regions of κ 1), each pair joined to a random
    earlier pair by one forward arc (no loop between pairs) and, one in four, an associative
    link: thousands of small halos and badges.

    >>> r = analyze(*graph_input(pairs_graph(200)))
    >>> len(r["sccs"]), {len(s["nodes"]) for s in r["sccs"]}, r["max_kappa"]
    (100, {2}, 1)
    """
    rng = random.Random(seed)
    arcs: list[tuple[int, int, str]] = []
    for p in range(n // 2):
        a, b = 2 * p, 2 * p + 1
        arcs += [(a, b, rng.choice(DIRECTED)), (b, a, rng.choice(DIRECTED))]
        if p:
            q = rng.randrange(p)
            arcs.append((2 * q + rng.randrange(2), a + rng.randrange(2), "causal"))
            if rng.random() < 0.25:
                arcs.append((2 * rng.randrange(p) + 1, b, "associative"))
    return _doc(2 * (n // 2), arcs, [_name(i, rng) for i in range(2 * (n // 2))])


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
