"""The audit's own graphs: shapes none of the other benchmarks generate, made from seeds and data files.

Each maker returns a bare document ``{"nodes": [{"id", "text"}], "edges": [{"id", "source", "target",
"kind", "polarity"?}]}`` (ids are unique, no arc repeats, no self-loop); :func:`to_csv` writes one
as the CSV a person would import (its own writer, not the editor's). Every maker is O(n + m) but
for the text matching of :func:`locomo`, O(turns × distinct words of a turn).

* :func:`causal_model` — a causal-loop model as a modeller draws one: sectors of named variables,
  each with short reinforcing and balancing loops (signed arcs), a few arcs between sectors that
  close long loops through several sectors.
* :func:`citations` — papers citing earlier papers (a DAG, the cited chosen by how often they are
  cited) and one loop region: a field's preprints of one era that cite each other's later versions.
* :func:`scale_free` — Price's model: each new card points at cards chosen by in-degree + 1 (hubs),
  and a share of arcs reciprocated or closed back, so the hubs sit inside loop regions.
* :func:`multiline` — texts of 3–9 lines (paragraphs, bullets, a URL, numbers, other scripts) on a
  sparse graph of small and mid-size loops.
* :func:`medium_regions` — many loop regions of 15–70 cards, each a ring with chords (κ 1–4),
  joined by forward arcs.
* :func:`locomo` — the turns of the LoCoMo conversations: each turn follows the one before, and
  points back at the earlier turn it shares the most rare words with (loops of recall).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

DATASETS = Path("/work/shared/datasets")

SECTORS = (
    "population", "housing", "jobs", "wages", "prices", "energy", "emissions", "health", "schools",
    "transport", "water", "farming", "tourism", "debt", "taxes", "trust", "crime", "migration",
    "innovation", "retail",
)  # fmt: skip
QUALITIES = (
    "demand", "supply", "pressure", "capacity", "backlog", "quality", "cost", "investment", "gap",
    "satisfaction", "attractiveness", "stock", "inflow", "outflow", "adoption", "delay", "perceived need",
    "budget", "staff", "congestion", "price", "margin", "expectation", "fatigue", "resilience",
)  # fmt: skip


class _Doc:
    """A document being built: arcs kept unique, never a self-loop."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, str]] = []
        self.edges: list[dict[str, str]] = []
        self.seen: set[tuple[str, str]] = set()

    def node(self, node_id: str, text: str) -> str:
        self.nodes.append({"id": node_id, "text": text})
        return node_id

    def arc(self, a: str, b: str, kind: str = "causal", polarity: str | None = None) -> bool:
        if a == b or (a, b) in self.seen:
            return False
        self.seen.add((a, b))
        edge = {"id": f"e{len(self.edges)}", "source": a, "target": b, "kind": kind}
        if polarity is not None:
            edge["polarity"] = polarity
        self.edges.append(edge)
        return True

    def doc(self) -> Doc:
        return {"nodes": self.nodes, "edges": self.edges}


def causal_model(n: int = 2000, seed: int = 41) -> Doc:
    """A causal-loop model of ``n`` variables in sectors of 40–60, every arc signed (+ or −).

    >>> d = causal_model(120)
    >>> len(d["nodes"]), all(e["polarity"] in "+-" for e in d["edges"])
    (120, True)
    """
    rng = random.Random(seed)
    g = _Doc()
    sectors: list[list[str]] = []
    made = 0
    while made < n:
        size = min(n - made, rng.randint(40, 60))
        name = SECTORS[len(sectors) % len(SECTORS)] + ("" if len(sectors) < len(SECTORS) else f" {len(sectors)}")
        ids = [g.node(f"v{made + k}", f"{name}: {rng.choice(QUALITIES)} {k + 1}") for k in range(size)]
        # a chain of influence through the sector, then its loops: 2–6 variables back to an earlier one
        for a, b in itertools.pairwise(ids):
            g.arc(a, b, polarity=rng.choice("++-"))
        for _ in range(size // 2):
            k = rng.randrange(1, size)
            back = max(0, k - rng.randint(1, 5))
            g.arc(ids[k], ids[back], polarity=rng.choice("+-"))
        for _ in range(size // 6):  # side effects: forward skips
            k = rng.randrange(size - 2)
            g.arc(ids[k], ids[rng.randrange(k + 1, size)], polarity=rng.choice("+-"))
        sectors.append(ids)
        made += size
    for k, ids in enumerate(sectors):  # sectors feed the next ones; a few feed an earlier one back
        for _ in range(3):
            later = sectors[rng.randrange(k, len(sectors))]
            g.arc(rng.choice(ids), rng.choice(later), polarity=rng.choice("+-"))
        for _ in range(2 if k and rng.random() < 0.6 else 0):
            g.arc(rng.choice(ids), rng.choice(sectors[rng.randrange(k)]), polarity=rng.choice("+-"))
    return g.doc()


def citations(n: int = 2000, era: tuple[float, float] = (0.55, 0.85), seed: int = 43) -> Doc:
    """``n`` papers, each citing 1–8 earlier ones by preference (cited count + 1); the papers of
    ``era`` (shares of the list) also cite a later version of each other: one loop region.

    >>> d = citations(200)
    >>> len(d["nodes"]), len(d["edges"]) > 200
    (200, True)
    """
    rng = random.Random(seed)
    g = _Doc()
    weights: list[str] = []
    for i in range(n):
        paper = g.node(f"p{i}", f"[{1990 + i * 30 // n}] Paper {i}: {rng.choice(QUALITIES)} of {rng.choice(SECTORS)}")
        if i:
            for _ in range(rng.randint(1, 8)):
                cited = rng.choice(weights) if weights and rng.random() < 0.7 else f"p{rng.randrange(i)}"
                if g.arc(paper, cited, kind="causal"):
                    weights.append(cited)
        weights.append(paper)
    lo, hi = int(era[0] * n), int(era[1] * n)
    for i in range(lo, hi):  # an era's preprints: an earlier one cites a later one's revision
        for _ in range(rng.randint(1, 3)):
            g.arc(f"p{i}", f"p{rng.randrange(i + 1, min(hi, i + 40) + 1)}")
    return g.doc()


def scale_free(n: int = 2000, back: float = 0.3, seed: int = 47) -> Doc:
    """Price's model: each card points at 2 cards chosen by in-degree + 1; a share ``back`` of
    the arcs is answered (reciprocated), so loop regions form around the hubs.

    >>> d = scale_free(300)
    >>> max(Counter(e["target"] for e in d["edges"]).values()) > 20
    True
    """
    rng = random.Random(seed)
    g = _Doc()
    targets: list[str] = []
    for i in range(n):
        card = g.node(f"s{i}", f"Actor {i}")
        for _ in range(2 if i > 1 else i):
            other = rng.choice(targets) if rng.random() < 0.8 else f"s{rng.randrange(i)}"
            if g.arc(card, other):
                targets.append(other)
                if rng.random() < back:
                    g.arc(other, card)
        targets.append(card)
    return g.doc()


LINES = (
    "Observed after the second review; needs a follow-up with the owners.",
    "- cost rises when the backlog grows",
    "- the delay is about 3 weeks (median 19 days, p95 41)",
    "See https://example.org/notes/2026/feedback-loops#section-4 for the source.",
    "Rückkopplung über den Lagerbestand — später prüfen.",
    "需求增加导致价格上涨",
    "Assumption: the effect saturates at 80 % capacity, then reverses.",
    "Q: is this a balancing loop or a reinforcing one? A: balancing, with a long delay.",
    "TODO confirm the sign with finance",
)


def multiline(n: int = 2000, seed: int = 53) -> Doc:
    """``n`` cards with texts of 3–9 lines, on rings of 3–40 cards with chords, the rings joined forward.

    >>> d = multiline(100)
    >>> min(t["text"].count("\\n") for t in d["nodes"]) >= 2
    True
    """
    rng = random.Random(seed)
    g = _Doc()
    i = 0
    rings: list[list[str]] = []
    while i < n:
        size = min(n - i, rng.choice((3, 5, 8, 13, 21, 40)))
        ids = []
        for _ in range(size):
            body = [f"Note {i}: {rng.choice(QUALITIES)} in {rng.choice(SECTORS)}"]
            body += [rng.choice(LINES) for _ in range(rng.randint(2, 8))]
            ids.append(g.node(f"m{i}", "\n".join(body)))
            i += 1
        for a, b in zip(ids, ids[1:] + ids[:1], strict=True):
            g.arc(a, b)
        if size == 13:  # a second ring, two steps at a time: κ 2
            for k in range(size):
                g.arc(ids[k], ids[(k + 2) % size])
        for _ in range(size // (1 if size >= 21 else 5)):
            g.arc(rng.choice(ids), rng.choice(ids))
        if rings:
            for _ in range(2):
                g.arc(rng.choice(rng.choice(rings)), rng.choice(ids))
        rings.append(ids)
    return g.doc()


def medium_regions(n: int = 3000, seed: int = 59) -> Doc:
    """Loop regions of 15–70 cards (rings of steps 1..κ for κ 1–4, random chords), joined by forward arcs.

    >>> d = medium_regions(300)
    >>> len(d["nodes"])
    300
    """
    rng = random.Random(seed)
    g = _Doc()
    regions: list[list[str]] = []
    i = 0
    while i < n:
        size = min(n - i, rng.randint(15, 70))
        ids = [g.node(f"r{i + k}", f"Region {len(regions)} · item {k}") for k in range(size)]
        i += size
        kappa = rng.choice((1, 1, 2, 3, 4))
        for step in range(1, kappa + 1):  # rings of steps 1..κ: every card κ arcs in and out
            for k in range(size):
                g.arc(ids[k], ids[(k + step) % size])
        for _ in range(rng.randint(0, 3) * max(1, size // 8)):
            g.arc(rng.choice(ids), rng.choice(ids))
        for _ in range(3 if regions else 0):
            g.arc(rng.choice(rng.choice(regions)), rng.choice(ids))
        regions.append(ids)
    return g.doc()


WORD = re.compile(r"[a-z']{4,}")


def locomo_turns(root: Path = DATASETS / "locomo-dev") -> list[tuple[str, str, int]]:
    """Every turn of the LoCoMo conversations in ``root``: (dia id with the file's stem, "Speaker:
    text" and the photo's caption if any, session number), in the order they were said."""
    out = []
    for path in sorted(root.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        conv = data.get("conversation", data)
        sessions = sorted((int(k.split("_")[1]), v) for k, v in conv.items() if re.fullmatch(r"session_\d+", k))
        for number, turns in sessions:
            for t in turns:
                text = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    text += f" [shares a photo: {t['blip_caption']}]"
                out.append((f"{path.stem}:{t['dia_id']}", text, number))
    return out


def locomo_document(turns: list[tuple[str, str, int]], seed: int = 61) -> Doc:
    """The turns as cards: each follows the turn before (``temporal``), and points back
    (``causal``) at the earlier turn of the same conversation sharing the most rare words
    (a word in at most 1 % of the turns, or two), which closes loops of recall through the
    sessions; a question's turn is pointed back at by the turn two on (its follow-up).

    >>> d = locomo_document([("a:1", "A: sailing boats", 1), ("a:2", "B: boats again", 1),
    ...                      ("a:3", "A: sailing boats now", 2)])
    >>> [(e["source"], e["target"], e["kind"]) for e in d["edges"]]
    [('t0', 't1', 'temporal'), ('t1', 't2', 'temporal'), ('t2', 't0', 'causal')]
    """
    del seed
    g = _Doc()
    words = [set(WORD.findall(text.lower())) for _, text, _ in turns]
    counts = Counter(w for ws in words for w in ws)
    rare_at = max(2, len(turns) // 100)
    ids = [g.node(f"t{k}", text) for k, (_, text, _) in enumerate(turns)]
    conv = [dia.split(":")[0] for dia, _, _ in turns]
    for k in range(1, len(turns)):
        if conv[k] == conv[k - 1]:
            g.arc(ids[k - 1], ids[k], kind="temporal")
    where: dict[tuple[str, str], list[int]] = {}
    for k, ws in enumerate(words):
        best: Counter[int] = Counter()
        for w in ws:
            if counts[w] <= rare_at:
                for j in where.get((conv[k], w), []):
                    best[j] += 1
                where.setdefault((conv[k], w), []).append(k)
        if best:
            j = max(best, key=lambda j: (best[j], j))
            g.arc(ids[k], ids[j], kind="causal")
        if turns[k][1].rstrip().endswith("?") and k + 2 < len(turns) and conv[k + 2] == conv[k]:
            g.arc(ids[k + 2], ids[k], kind="causal")  # (the answer's follow-up goes back to the question)
    return g.doc()


def locomo(root: Path = DATASETS / "locomo-dev") -> Doc:
    """:func:`locomo_document` of every conversation in ``root`` (1,451 turns in the dev set)."""
    return locomo_document(locomo_turns(root))


def scifact_titles(limit: int, root: Path = DATASETS / "scifact-train") -> list[str]:
    """The first ``limit`` SciFact abstracts as an agent would note them: "title — first sentence"."""
    out = []
    with (root / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            first = d["text"].split(". ")[0][:200]
            out.append(f"{d['title']} — {first}")
            if len(out) >= limit:
                break
    return out


def to_csv(doc: Doc) -> str:
    """The document as a CSV of two tables (cards, a blank line, arcs), as a spreadsheet writes it.

    >>> print(to_csv({"nodes": [{"id": "a", "text": "x, y"}, {"id": "b", "text": "B"}],
    ...               "edges": [{"id": "e0", "source": "a", "target": "b", "kind": "causal", "polarity": "-"}]}))
    id,text
    a,"x, y"
    b,B
    <BLANKLINE>
    source,target,kind,polarity
    a,b,causal,-
    <BLANKLINE>
    """
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "text"])
    for nd in doc["nodes"]:
        w.writerow([nd["id"], nd["text"]])
    out.write("\n")
    w.writerow(["source", "target", "kind", "polarity"])
    for e in doc["edges"]:
        w.writerow([e["source"], e["target"], e.get("kind", "causal"), e.get("polarity", "")])
    return out.getvalue()


def engine_input(doc: Doc) -> tuple[list[str], list[dict[str, Any]]]:
    """A bare document, or the editor's export (its first plane), as the κ engine's input.

    >>> engine_input({"nodes": [{"id": "a"}], "edges": [{"source": "a", "target": "a"}]})
    (['a'], [{'source': 'a', 'target': 'a', 'kind': 'causal'}])
    """
    if "planes" in doc:
        plane = doc["planes"][0]
        edges = [{"source": e["a"], "target": e["b"], "kind": e["props"]["kind"]} for e in plane["edges"]]
        return [nd["id"] for nd in plane["nodes"]], edges
    edges = [{"source": e["source"], "target": e["target"], "kind": e.get("kind", "causal")} for e in doc["edges"]]
    return [nd["id"] for nd in doc["nodes"]], edges


SHAPES = {
    "model-csv": lambda: causal_model(2000),
    "citations": lambda: citations(2000),
    "scale-free": lambda: scale_free(2000),
    "multiline": lambda: multiline(2000),
    "regions-3k": lambda: medium_regions(3000),
    "locomo": locomo,
}


def small(doc: Doc, n: int) -> Doc:
    """The first ``n`` cards of ``doc`` and the arcs between them (a smoke run's graph).

    >>> small({"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"source": "a", "target": "b"}]}, 1)
    {'nodes': [{'id': 'a'}], 'edges': []}
    """
    keep = {nd["id"] for nd in doc["nodes"][:n]}
    return {
        "nodes": doc["nodes"][:n],
        "edges": [e for e in doc["edges"] if e["source"] in keep and e["target"] in keep],
    }
