"""The layout's memoised adjacency grown in place when a plane only gained cards and edges at
the end (an agent's change on the live page) equals the adjacency made afresh, whatever the
plane went through: cards and edges added, removed, replaced, dangling edges."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.layout.simulation import adjacency
from bendscope.bend.model.elements import Edge, Node, Plane

STEP = st.tuples(st.sampled_from(["node", "edge", "edge", "drop_node", "drop_edge"]), st.integers(0, 11),
                 st.integers(0, 11))  # fmt: skip


def fresh(plane: Plane) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {node_id: [] for node_id in plane.nodes}
    for edge in plane.edges.values():
        if edge.a != edge.b and edge.a in found and edge.b in found:
            found[edge.a].append(edge.b)
            found[edge.b].append(edge.a)
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(STEP, max_size=40))
def test_the_memo_grown_by_changes_equals_the_adjacency_made_afresh(steps):
    plane = Plane("p", "P")
    made = 0
    for kind, a, b in steps:
        if kind == "node" and f"n{a}" not in plane.nodes:
            plane.add_node(Node(f"n{a}"))
        elif kind == "edge":
            made += 1
            plane.add_edge(Edge(f"e{made}", f"n{a}", f"n{b}"))  # (an end may not be on the plane yet)
        elif kind == "drop_node" and f"n{a}" in plane.nodes:
            plane.remove_node(f"n{a}")
        elif kind == "drop_edge" and plane.edges:
            plane.remove_edge(list(plane.edges)[a % len(plane.edges)])
        assert adjacency(plane) == fresh(plane)
