"""Documents used by the browser tests and the visual suite."""

from __future__ import annotations

from kappa_helpers import BUSINESS, k22  # one copy of the spec's examples, shared with tests/

__all__ = ["BUSINESS", "EDGE_KINDS", "K22", "THREE_LOOPS", "bare"]

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
