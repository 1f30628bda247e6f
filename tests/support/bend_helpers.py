"""Builders for editor tests."""

from __future__ import annotations

from kappa_helpers import k22

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane


def plane_with(pairs, kind: str = "causal", positions=None, name: str = "Main") -> Plane:
    plane = Plane("plane-root", name)
    ids = []
    for a, b in pairs:
        for n in (a, b):
            if n not in ids:
                ids.append(n)
    for i, n in enumerate(ids):
        x, y = (positions or {}).get(n, (i * 220.0, (i % 3) * 140.0))
        plane.add_node(Node(n, n, "normal", x, y))
    for i, (a, b) in enumerate(pairs):
        plane.add_edge(Edge(f"e{i}", a, b, EdgeProps("", kind, 2)))
    return plane


def editor_with(pairs, kind: str = "causal", positions=None) -> Editor:
    return Editor(Document([plane_with(pairs, kind, positions)], "plane-root"))


K22 = k22()
