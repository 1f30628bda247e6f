"""The first-visit demo: the spec's business loop beside a DAG region."""

from __future__ import annotations

from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane

LOOP = [
    ("market-share", "# Market share\nShare of the segment we win."),
    ("revenue", "# Revenue\nFollows share and retention."),
    ("r-and-d", "# R&D\nFunded from revenue."),
    ("product-quality", "# Product quality\nWhat R&D buys."),
    ("customer-retention", "# Customer retention\n- churn\n- renewals"),
]
DAG = [
    ("company", "# Company\nAcme Analytics"),
    ("founded-2020", "Founded 2020"),
    ("hq-austin", "HQ: Austin, TX"),
    ("ceo-alice", "CEO: Alice"),
]
EDGES = [
    ("market-share", "revenue", "causal", "drives"),
    ("revenue", "r-and-d", "causal", "funds"),
    ("r-and-d", "product-quality", "causal", "improves"),
    ("product-quality", "market-share", "causal", "wins"),
    ("market-share", "customer-retention", "causal", ""),
    ("customer-retention", "revenue", "causal", ""),
    ("company", "founded-2020", "temporal", ""),
    ("company", "hq-austin", "associative", ""),
    ("company", "ceo-alice", "associative", ""),
    ("company", "market-share", "associative", "competes for"),
]
POSITIONS = {
    "market-share": (-320.0, -40.0),
    "revenue": (-120.0, -180.0),
    "r-and-d": (-40.0, 40.0),
    "product-quality": (-260.0, 170.0),
    "customer-retention": (-420.0, -220.0),
    "company": (260.0, -20.0),
    "founded-2020": (460.0, -160.0),
    "hq-austin": (500.0, 60.0),
    "ceo-alice": (320.0, 200.0),
    "research-notes": (120.0, 300.0),
}


def demo_document(touch: bool = False) -> Document:
    """The demo graph (positions are starting points; the layout settles them). ``touch``: its
    words name a finger's gestures.

    >>> demo_document(touch=True).planes["plane-root"].nodes["research-notes"].text
    '# Research notes\\nA stargate: double-tap to enter.'
    """
    plane = Plane("plane-root", "Main")
    for node_id, text in LOOP + DAG:
        x, y = POSITIONS[node_id]
        plane.add_node(Node(node_id, text, "normal", x, y))
    x, y = POSITIONS["research-notes"]
    gesture = "double-tap" if touch else "double-click"
    plane.add_node(Node("research-notes", f"# Research notes\nA stargate: {gesture} to enter.", "stargate", x, y))
    for i, (a, b, kind, label) in enumerate(EDGES):
        plane.add_edge(Edge(f"edge-{i}", a, b, EdgeProps(label, kind, 3 if kind == "causal" else 2)))
    return Document([plane], "plane-root")
