"""A document coming in has its layout graph made ahead, in steps (``KernelAhead``), so that
the install's hand-off to the layout worker only sends it: the graph and shape are a fresh
``kernel_graph`` and ``KernelShape.of`` of the plane however the work is sliced, and they are
taken only while they still are the plane's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.layout.forces import KernelAhead, KernelShape, kernel_graph, kernel_graph_steps, kernel_growth
from bendscope.bend.model.elements import Edge, Node, Plane
from bendscope.kappa.steps import advance

from .test_kernel_growth import GAP, OPS, same


def plane_of(ops: list[tuple[str, int, int]]) -> Plane:
    plane = Plane("p")
    plane.add_node(Node("first", width=100.0, height=40.0))
    for serial, (what, x, y) in enumerate(ops):
        nodes, edges = list(plane.nodes), list(plane.edges)
        if what == "node":
            plane.add_node(Node(f"n{serial}", width=80.0 + x, height=30.0 + y))
        elif what == "edge":
            plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], nodes[y % len(nodes)]))
        elif what == "dangling":
            plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], f"n{serial + 1}"))
        elif what == "drop_edge" and edges:
            plane.remove_edge(edges[x % len(edges)])
        elif what == "resize":
            plane.nodes[nodes[x % len(nodes)]].width += 1.0 + y
    return plane


def sliced(steps, pauses: list[bool]):  # type: ignore[no-untyped-def]
    """Run ``steps`` to the end in slices that stop where ``pauses`` says (then one step each)."""
    k = 0
    while True:
        stop = pauses[k % len(pauses)] if pauses else True
        done, value = advance(steps, lambda stop=stop: stop)
        k += 1
        if done:
            return value


@settings(max_examples=150, deadline=None)
@given(st.lists(OPS, max_size=40), st.integers(0, 6), st.lists(st.booleans(), max_size=8))
def test_the_graph_made_in_steps_is_the_graph_made_at_once(ops, chunk, pauses):
    plane = plane_of(ops)
    assert same(sliced(kernel_graph_steps(plane, GAP, chunk), pauses), kernel_graph(plane, GAP))
    ahead = sliced(KernelAhead.steps(plane, GAP, chunk or 1), pauses)
    fresh = kernel_graph(plane, GAP)
    assert same(ahead.graph, fresh) and ahead.holds(plane, GAP)
    assert ahead.shape == KernelShape.of(plane, fresh)


@settings(max_examples=100, deadline=None)
@given(st.lists(OPS, max_size=30), st.lists(OPS, min_size=1, max_size=4))
def test_the_graph_made_ahead_holds_only_while_the_plane_is_unchanged(ops, later):
    """Any change after it was made — structure (a new version) or a card's size (none) — and
    it is no longer taken; while it holds, it is exactly the plane's graph (the worker grows
    from its shape as from one made at once)."""
    plane = plane_of(ops)
    ahead = sliced(KernelAhead.steps(plane, GAP, 3), [True])
    before = (plane.version, [(n.width, n.height) for n in plane.nodes.values()])
    for serial, (what, x, y) in enumerate(later, start=1000):
        nodes, edges = list(plane.nodes), list(plane.edges)
        if what == "node":
            plane.add_node(Node(f"n{serial}", width=80.0, height=30.0))
        elif what in ("edge", "dangling"):
            plane.add_edge(Edge(f"e{serial}", nodes[x % len(nodes)], nodes[y % len(nodes)]))
        elif what == "drop_edge" and edges:
            plane.remove_edge(edges[x % len(edges)])
        elif what in ("resize", "drop_node"):
            plane.nodes[nodes[x % len(nodes)]].height += 1.0 + y
    after = (plane.version, [(n.width, n.height) for n in plane.nodes.values()])
    assert ahead.holds(plane, GAP) == (after == before)
    assert not ahead.holds(Plane("p"), GAP)
    if ahead.holds(plane, GAP):
        assert same(ahead.graph, kernel_graph(plane, GAP))
        plane.add_node(Node("grown", width=80.0, height=30.0))
        plane.add_edge(Edge("grown-edge", "first", "grown"))
        growth = kernel_growth(plane, ahead.shape, GAP)
        assert growth is not None and growth.ids == ("grown",)
