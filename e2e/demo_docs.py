"""Documents used by the browser tests and the visual suite."""

from __future__ import annotations

import json
import random

from kappa_helpers import BUSINESS, k22  # one copy of the spec's examples, shared with tests/

__all__ = ["BUSINESS", "EDGE_KINDS", "K22", "THREE_LOOPS", "bare", "dense_document"]

K22 = k22()
THREE_LOOPS = (
    [("loop-a", "loop-b"), ("loop-b", "loop-c"), ("loop-c", "loop-a")]
    + [(a, b) for a in ("k-a1", "k-a2") for b in ("k-b1", "k-b2")]
    + [(b, a) for a in ("k-a1", "k-a2") for b in ("k-b1", "k-b2")]
    + [(f"q{i}", f"q{j}") for i in range(4) for j in range(4) if i != j]
)


def bare(pairs, kind: str = "causal") -> dict:
    """A bare graph document (no positions: the seeded layout places the nodes)."""
    names: list[str] = []
    for pair in pairs:
        for name in pair:
            if name not in names:
                names.append(name)
    return {
        "nodes": [{"id": n, "text": n.replace("-", " ").capitalize()} for n in names],
        "edges": [{"id": f"e{i}", "source": a, "target": b, "kind": kind} for i, (a, b) in enumerate(pairs)],
    }


EDGE_KINDS = {
    "format": "bendscope",
    "version": 1,
    "rootPlaneId": "p",
    "planes": [
        {
            "id": "p",
            "name": "Edge kinds",
            "parentPlaneId": None,
            "parentNodeId": None,
            "nodes": [
                {"id": "src", "text": "# Source\nEvery kind of edge leaves here.", "pinned": True, "x": 0, "y": 0},
                {"id": "t-causal", "text": "Causal target", "x": 320, "y": -240},
                {"id": "t-temporal", "text": "Temporal target", "x": 380, "y": -80},
                {"id": "t-context", "text": "Context target", "x": 380, "y": 80},
                {"id": "t-associative", "text": "Associative target", "x": 320, "y": 240},
                {"id": "t-user", "text": "User target\n- with a list\n> and a quote", "x": -300, "y": 180},
                {"id": "code", "text": "    code_line = 1\n```\nfenced()\n```", "x": -300, "y": -200},
            ],
            "edges": [
                {
                    "id": "e1",
                    "a": "src",
                    "b": "t-causal",
                    "props": {"kind": "causal", "label": "causes", "strength": 5},
                },
                {
                    "id": "e2",
                    "a": "src",
                    "b": "t-temporal",
                    "props": {"kind": "temporal", "label": "then", "strength": 4},
                },
                {"id": "e3", "a": "src", "b": "t-context", "props": {"kind": "context", "label": "", "strength": 3}},
                {
                    "id": "e4",
                    "a": "src",
                    "b": "t-associative",
                    "props": {"kind": "associative", "label": "relates", "strength": 2},
                },
                {"id": "e5", "a": "src", "b": "t-user", "props": {"kind": "user", "label": "user", "strength": 1}},
                {"id": "e6", "a": "code", "b": "src", "props": {"kind": "causal", "label": "", "strength": 2}},
            ],
        }
    ],
}


def dense_document(n: int, arcs: int, seed: int = 5) -> str:
    """One strongly connected component: a ring plus random arcs (κ in the tens to
    hundreds), as bare-graph JSON text (the dense-loop e2e test and bench_large)."""
    rng = random.Random(seed)
    pairs = {(i, (i + 1) % n) for i in range(n)}
    while len(pairs) < arcs:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            pairs.add((a, b))
    nodes = [{"id": f"n{i}", "text": f"N{i}", "x": (i % 20) * 220.0, "y": (i // 20) * 120.0} for i in range(n)]
    edges = [{"id": f"e{k}", "source": f"n{a}", "target": f"n{b}"} for k, (a, b) in enumerate(sorted(pairs))]
    return json.dumps({"nodes": nodes, "edges": edges})
