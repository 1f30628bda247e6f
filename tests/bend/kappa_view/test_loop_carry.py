"""The loop list and the fewest cuts are not searched again after an edit outside every
loop region: the report is carried over, and it is what a new search would give."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.kappa_view.loop_cuts import CutFinder
from bendscope.bend.kappa_view.loop_list import LoopFinder
from bendscope.bend.kappa_view.sliced import EDGES_PER_STEP, regions_of, regions_steps, scope_arcs
from bendscope.bend.kappa_view.topology_cache import TopologyCache
from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane


def plane_of(arcs: list[tuple[str, str]], nodes: str = "abcdefgh") -> Plane:
    plane = Plane("p")
    for node in nodes:
        plane.add_node(Node(node, node))
    for k, (a, b) in enumerate(arcs):
        plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal", polarity="+" if k % 2 else "-")))
    return plane


def fresh(plane: Plane):  # type: ignore[no-untyped-def]
    topology = TopologyCache().get(plane)
    return (
        LoopFinder().report(plane, topology, None, math.inf),
        CutFinder().report(plane, topology, None, math.inf),
    )


def test_an_edit_outside_every_region_searches_nothing_again() -> None:
    plane = plane_of([("a", "b"), ("b", "c"), ("c", "a"), ("c", "b"), ("d", "e")])
    cache, loops, cuts = TopologyCache(), LoopFinder(), CutFinder()
    loops.report(plane, cache.get(plane), None, math.inf)
    cuts.report(plane, cache.get(plane), None, math.inf)
    plane.add_node(Node("x", "x"))
    plane.add_edge(Edge("in", "x", "a", EdgeProps(kind="causal")))  # into the region: no cycle
    plane.add_edge(Edge("out", "a", "d", EdgeProps(kind="causal", polarity="-")))  # out of it
    topology = cache.get(plane)
    report = loops.report(plane, topology, None, 0.0)
    cut = cuts.report(plane, topology, None, 0.0)
    assert (loops.searches, loops.carried, cuts.searches, cuts.carried) == (1, 1, 1, 1)
    assert report is not None and report.topology is topology.result
    want_loops, want_cuts = fresh(plane)
    assert report.groups == want_loops.groups and cut == want_cuts
    plane.add_edge(Edge("inner", "b", "a", EdgeProps(kind="causal")))  # inside the region: searched again
    topology = cache.get(plane)
    assert loops.report(plane, topology, None, math.inf) is not None
    assert loops.searches == 2 and loops.carried == 1


def test_a_polarity_changed_inside_a_region_is_searched_again() -> None:
    plane = plane_of([("a", "b"), ("b", "a")])
    cache, loops = TopologyCache(), LoopFinder()
    loops.report(plane, cache.get(plane), None, math.inf)
    plane.replace_edge(Edge("e0", "a", "b", EdgeProps(kind="causal", polarity="+")))
    report = loops.report(plane, cache.get(plane), None, math.inf)
    assert loops.searches == 2 and loops.carried == 0
    assert report is not None and report.groups[0].loops[0].polarity == "R"


name = st.sampled_from("abcdefgh")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arcs=st.lists(st.tuples(name, name), min_size=2, max_size=16),
    edits=st.lists(
        st.one_of(
            st.tuples(st.just("add"), name, name, st.sampled_from(["causal", "related"])),
            st.tuples(st.just("remove"), st.integers(0, 40)),
            st.tuples(st.just("node"), st.integers(0, 3)),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_a_carried_report_is_what_a_new_search_gives(arcs, edits) -> None:
    plane = plane_of(arcs)
    cache, loops, cuts = TopologyCache(), LoopFinder(), CutFinder()
    for k, edit in enumerate(edits):
        topology = cache.get(plane)
        loops.report(plane, topology, None, math.inf)
        cuts.report(plane, topology, None, math.inf)
        if edit[0] == "add":
            plane.add_edge(Edge(f"x{k}", edit[1], edit[2], EdgeProps(kind=edit[3])))
        elif edit[0] == "remove" and plane.edges:
            plane.remove_edge(sorted(plane.edges)[edit[1] % len(plane.edges)])
        elif edit[0] == "node":
            plane.add_node(Node(f"n{k}", "new"))
        topology = cache.get(plane)
        report = loops.report(plane, topology, None, math.inf)
        cut = cuts.report(plane, topology, None, math.inf)
        want_loops, want_cuts = fresh(plane)
        assert report is not None and want_loops is not None
        assert (report.groups, report.complete, report.topology) == (
            want_loops.groups,
            want_loops.complete,
            want_loops.topology,
        )
        assert cut == want_cuts


def test_a_search_over_many_edges_begins_in_small_steps() -> None:
    """A search's first steps (the regions' edges, the snapshot of the arcs) pause every
    ``EDGES_PER_STEP`` edges: the first slice of a search on a large plane is short. The
    regions so taken are :func:`regions_of`'s, and the report carried over after an edit
    outside every region is what a new search gives."""
    n = 3 * EDGES_PER_STEP
    plane = Plane("p")
    for k in range(n):
        plane.add_node(Node(f"n{k}", f"n{k}"))
    for k in range(n):
        plane.add_edge(Edge(f"e{k}", f"n{k}", f"n{(k + 1) % n}", EdgeProps(kind="causal")))
    topology = TopologyCache().get(plane)
    steps = regions_steps(plane, topology)
    pauses = 0
    try:
        while True:
            next(steps)
            pauses += 1
    except StopIteration as stop:
        assert stop.value == regions_of(plane, topology)
    assert pauses >= n // EDGES_PER_STEP - 1
    assert sum(1 for _ in scope_arcs(plane, None)) >= n // EDGES_PER_STEP - 1
    ticks = iter(range(10**9))
    finder = LoopFinder(clock=lambda: float(next(ticks)))  # (every slice is over its budget at once)
    cache = TopologyCache()
    slices = 1
    while finder.report(plane, cache.get(plane), None, 0.0) is None:
        slices += 1
    assert slices > 2 * (n // EDGES_PER_STEP - 1)  # (the regions', then the arcs', then the search's)
    plane.add_node(Node("x", "x"))
    plane.add_edge(Edge("out", "n0", "x", EdgeProps(kind="causal")))
    carried = finder.report(plane, cache.get(plane), None, 0.0)
    assert finder.carried == 1 and carried is not None
    assert carried.groups == fresh(plane)[0].groups


def test_held_gives_a_ready_report_and_never_begins_goes_on_with_or_carries_a_search() -> None:
    for finder in (LoopFinder(), CutFinder()):
        plane, cache = plane_of([("a", "b"), ("b", "c"), ("c", "a"), ("d", "e")]), TopologyCache()
        topology = cache.get(plane)
        assert finder.held(plane, topology, None) is None
        assert not finder.pending and finder.searches == 0  # (nothing begun)
        report = finder.report(plane, topology, None, math.inf)
        assert report is not None and finder.held(plane, topology, None) is report
        assert finder.held(plane, topology, frozenset("abc")) is None  # (another scope)
        plane.add_node(Node("x", "x"))  # outside every region: a report carried over
        moved = cache.get(plane)
        assert finder.held(plane, moved, None) is None
        assert (finder.searches, finder.carried, finder.pending) == (1, 0, False)
        assert finder.report(plane, moved, None, 0.0) is not None and finder.carried == 1
        assert finder.held(plane, moved, None) is not None
        plane.add_edge(Edge("in", "c", "b", EdgeProps(kind="causal")))  # inside: searched again
        assert finder.held(plane, cache.get(plane), None) is None and not finder.pending
