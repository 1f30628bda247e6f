"""Seeded graph shapes for ``bench_shapes.py``: shapes the hand's benchmark does not try.

Every generator returns a bare editor document (``{"nodes": [...], "edges": [...]}``, no
positions: the layout runs from scratch) and is deterministic for a seed. Loop regions are
read the way the editor reads them: only causal and temporal edges are directed
(``kappa.DIRECTED_KINDS``); associative and context edges never close a loop.

* :func:`held_out_document` — one giant loop region holding ``share`` of the cards (≈ 69 %:
  1,377 of 2,000, the held-out graph's shape), the rest in tree-like parts around it (every
  directed arc outside the region goes forwards in a hidden order, so they form no loop);
* :func:`one_region_document` — every card in one loop region (a Hamiltonian cycle plus
  random arcs);
* :func:`sparse_loops_document` — many small loops (2–6 cards each) joined by forward arcs,
  ≈ 1.2 arcs per card, no large region;
* :func:`long_text_document` — the held-out shape with long, multi-line card texts;
* :func:`as_format` — a document written in each format the editor imports.

>>> doc = held_out_document(100)
>>> len(doc["nodes"]), len(doc["edges"]), max(region_sizes(doc))
(100, 200, 69)
>>> max(region_sizes(one_region_document(50))), max(region_sizes(sparse_loops_document(300)))
(50, 6)
"""

from __future__ import annotations

import json
import random
from typing import Any

from bendscope.shared.graphformats import write_graph

__all__ = [
    "DIRECTED",
    "FORMATS",
    "HELD_OUT_SHARE",
    "as_format",
    "held_out_document",
    "long_text_document",
    "one_region_document",
    "region_sizes",
    "sparse_loops_document",
]

#: the edge kinds that make loops (``kappa.DIRECTED_KINDS``)
DIRECTED = frozenset({"causal", "temporal"})
#: kinds of the random arcs, as the benchmarks' other graphs draw them
KINDS = ("causal", "causal", "temporal", "associative", "context")
#: the held-out graph's region: 1,377 of 2,000 cards
HELD_OUT_SHARE = 1377 / 2000
#: the formats the editor imports (``graphformats.FORMATS``)
FORMATS = ("json", "csv", "graphml", "dot", "mermaid")

Doc = dict[str, list[dict[str, Any]]]


def _document(n: int, arcs: list[tuple[int, int, str]], texts: list[str] | None = None) -> Doc:
    nodes = [{"id": f"n{i}", "text": texts[i] if texts else f"Node {i}"} for i in range(n)]
    edges = [{"id": f"e{k}", "source": f"n{a}", "target": f"n{b}", "kind": kind} for k, (a, b, kind) in enumerate(arcs)]
    return {"nodes": nodes, "edges": edges}


def _add_arcs(rng: random.Random, arcs: list[tuple[int, int, str]], total: int, pick: Any) -> None:
    """Random arcs from ``pick()`` (a pair, or None to draw again) until there are ``total``; no
    pair twice (in either direction). A tiny graph without room for them has fewer."""
    seen = {(a, b) for a, b, _ in arcs}
    tries = 100 * total
    while len(arcs) < total and tries > 0:
        tries -= 1
        pair = pick()
        if pair is None or pair[0] == pair[1] or pair in seen or pair[::-1] in seen:
            continue
        seen.add(pair)
        arcs.append((pair[0], pair[1], KINDS[rng.randrange(len(KINDS))]))


def _held_out_arcs(n: int, share: float, arcs_per_card: float, seed: int) -> list[tuple[int, int, str]]:
    rng = random.Random(seed)
    rank = list(range(n))
    rng.shuffle(rank)  # rank[k]: the card at place k of the hidden order; the region is the first m
    m = max(2, min(n, round(share * n)))
    arcs = [(rank[k], rank[(k + 1) % m], "causal") for k in range(m)]  # (a cycle through the region)
    for k in range(m, n):  # each other card hangs from an earlier one (a tree around the region)
        arcs.append((rank[rng.randrange(k)], rank[k], "causal"))

    def pick() -> tuple[int, int] | None:
        i, j = rng.randrange(n), rng.randrange(n)
        if i < m and j < m:
            return rank[i], rank[j]  # inside the region: either way
        return (rank[i], rank[j]) if i < j else (rank[j], rank[i])  # elsewhere only forwards

    _add_arcs(rng, arcs, round(arcs_per_card * n), pick)
    return arcs


def held_out_document(n: int, share: float = HELD_OUT_SHARE, arcs_per_card: float = 2.0, seed: int = 11) -> Doc:
    """One loop region of ``round(share · n)`` cards (a cycle plus random arcs among them), every
    other card hung from an earlier one in a hidden order and random arcs only forwards in it (no
    other loop), ``arcs_per_card · n`` edges in all, kinds as the other benchmarks draw them."""
    return _document(n, _held_out_arcs(n, share, arcs_per_card, seed))


def one_region_document(n: int, arcs_per_card: float = 2.0, seed: int = 12) -> Doc:
    """Every card in one loop region: a causal Hamiltonian cycle plus random arcs of any kind."""
    return held_out_document(n, 1.0, arcs_per_card, seed)


def sparse_loops_document(n: int, arcs_per_card: float = 1.2, seed: int = 13) -> Doc:
    """Many small loops: the cards cut into groups of 2–6, each group a directed cycle (one arc
    per card), then random arcs from a group to a later one (no loop across groups) up to
    ``arcs_per_card · n`` edges."""
    rng = random.Random(seed)
    rank = list(range(n))
    rng.shuffle(rank)
    group = [0] * n
    arcs: list[tuple[int, int, str]] = []
    start, g = 0, 0
    while start < n:
        size = min(rng.randint(2, 6), n - start)
        if n - start - size == 1:  # (no card left alone at the end)
            size += 1 if size < 6 else -1
        members = rank[start : start + size]
        for k, card in enumerate(members):
            group[card] = g
            if len(members) > 1:
                arcs.append((card, members[(k + 1) % len(members)], "causal" if rng.random() < 0.7 else "temporal"))
        start, g = start + size, g + 1

    def pick() -> tuple[int, int] | None:
        a, b = rng.randrange(n), rng.randrange(n)
        if group[a] == group[b]:
            return None
        return (a, b) if group[a] < group[b] else (b, a)

    _add_arcs(rng, arcs, round(arcs_per_card * n), pick)
    return _document(n, arcs)


WORDS = [
    "signal",
    "demand",
    "supply",
    "forecast",
    "price",
    "margin",
    "churn",
    "budget",
    "risk",
    "review",
    "backlog",
    "release",
    "latency",
    "capacity",
    "hiring",
    "morale",
    "incident",
    "feedback",
    "roadmap",
    "interdependencies",
    "reconciliation",
    "a",
    "of",
    "the",
    "and",
    "to",
    "for",
    "with",
    "under",
    "over",
    "after",
]


def long_text_document(n: int, seed: int = 14) -> Doc:
    """:func:`held_out_document`'s graph with long card texts: 3–6 lines (newlines), each of
    3–9 words, one line in four a long sentence that wraps on the card."""
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        lines = [f"Card {i}"]
        for _ in range(rng.randint(2, 5)):
            count = rng.randint(14, 22) if rng.random() < 0.25 else rng.randint(3, 9)
            lines.append(" ".join(rng.choice(WORDS) for _ in range(count)))
        texts.append("\n".join(lines))
    return _document(n, _held_out_arcs(n, HELD_OUT_SHARE, 2.0, 11), texts)


def as_format(doc: Doc, fmt: str) -> str:
    """``doc`` as a file in ``fmt`` (one of :data:`FORMATS`), written by the editor's own
    exporter (``graphformats.write_graph``) for the non-JSON formats.

    >>> as_format({"nodes": [{"id": "a", "text": "A"}], "edges": []}, "csv").splitlines()[:2]
    ['id,text,x,y', 'a,A,,']
    """
    if fmt == "json":
        return json.dumps(doc)
    nodes = [{"id": n["id"], "text": n["text"]} for n in doc["nodes"]]
    edges = [{"id": e["id"], "a": e["source"], "b": e["target"], "props": {"kind": e["kind"], "label": ""}}
             for e in doc["edges"]]  # fmt: skip
    return write_graph(nodes, edges, fmt)


def region_sizes(doc: Doc) -> list[int]:
    """The sizes of the loop regions (strongly connected components of two or more cards over
    the directed kinds), largest first. Iterative Tarjan, O(n + m)."""
    ids = [n["id"] for n in doc["nodes"]]
    index_of = {node_id: k for k, node_id in enumerate(ids)}
    out: list[list[int]] = [[] for _ in ids]
    for e in doc["edges"]:
        if e.get("kind", "causal") in DIRECTED and e["source"] != e["target"]:
            out[index_of[e["source"]]].append(index_of[e["target"]])
    index = [-1] * len(ids)
    low = [0] * len(ids)
    on_stack = [False] * len(ids)
    stack: list[int] = []
    sizes: list[int] = []
    counter = 0
    for root in range(len(ids)):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if i < len(out[v]):
                work.append((v, i + 1))
                w = out[v][i]
                if index[w] < 0:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                size = 0
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    size += 1
                    if w == v:
                        break
                if size > 1:
                    sizes.append(size)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(sizes, reverse=True)
