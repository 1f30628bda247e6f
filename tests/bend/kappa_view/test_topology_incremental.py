"""A plane's topology updated edit by edit equals the one computed whole: the canonical
result byte for byte (SCC ids, κ, fault lines), the fault-line edge ids and the SCC lookup,
whatever the edits (kinds, parallel edges, self-loops, edges at a removed card) and however
the computations were sliced or dropped half-way."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from bendscope.bend.kappa_view import topology_cache
from bendscope.bend.kappa_view.topology_cache import INCREMENTAL_EDITS, SEARCH_FLOOR, TopologyCache
from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane

NAMES = ["a", "b", "c", "d", "e", "f", "g", "b2"]
KINDS = ["causal", "causal", "temporal", "related"]


def whole(plane: Plane) -> tuple[str, set[str], dict[str, int]]:
    topology = TopologyCache().get(plane)
    return json.dumps(topology.result), topology.fault_edges, topology.scc_of


def kept(cache: TopologyCache, plane: Plane) -> tuple[str, set[str], dict[str, int]]:
    topology = cache.get(plane)
    return json.dumps(topology.result), topology.fault_edges, topology.scc_of


class PlaneEdits:
    """Edits on a plane through its mutators, edge ids numbered in order."""

    def __init__(self) -> None:
        self.plane = Plane("p")
        self.next = 0

    def add_node(self, node: str) -> None:
        if node not in self.plane.nodes:
            self.plane.add_node(Node(node, node))

    def remove_node(self, node: str) -> None:  # its edges stay (the engine skips them until it is back)
        if node in self.plane.nodes:
            self.plane.remove_node(node)

    def add_edge(self, a: str, b: str, kind: str) -> None:
        self.plane.add_edge(Edge(f"e{self.next}", a, b, EdgeProps(kind=kind)))
        self.next += 1

    def remove_edge(self, k: int) -> None:
        if self.plane.edges:
            self.plane.remove_edge(sorted(self.plane.edges)[k % len(self.plane.edges)])

    def change_edge(self, k: int, kind: str, reverse: bool) -> None:
        if self.plane.edges:
            edge = self.plane.edges[sorted(self.plane.edges)[k % len(self.plane.edges)]]
            a, b = (edge.b, edge.a) if reverse else (edge.a, edge.b)
            self.plane.replace_edge(Edge(edge.id, a, b, EdgeProps(kind=kind)))

    def apply(self, step: tuple) -> None:
        getattr(self, step[0])(*step[1:])


name = st.sampled_from(NAMES)
edits = st.one_of(
    st.tuples(st.just("add_node"), name),
    st.tuples(st.just("remove_node"), name),
    st.tuples(st.just("add_edge"), name, name, st.sampled_from(KINDS)),
    st.tuples(st.just("add_edge"), name, name, st.sampled_from(KINDS)),
    st.tuples(st.just("remove_edge"), st.integers(0, 100)),
    st.tuples(st.just("change_edge"), st.integers(0, 100), st.sampled_from(KINDS), st.booleans()),
)


def started(start: list[tuple[str, str, str]]) -> PlaneEdits:
    """A plane of the first six names and the edges ``start``."""
    plane = PlaneEdits()
    for node in NAMES[:6]:
        plane.add_node(node)
    for a, b, kind in start:
        plane.add_edge(a, b, kind)
    return plane


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.lists(st.tuples(name, name, st.sampled_from(KINDS)), min_size=3, max_size=25),
    steps=st.lists(st.lists(edits, min_size=1, max_size=3), min_size=1, max_size=15),
)
def test_each_edit_gives_what_the_whole_computation_gives(start, steps) -> None:
    plane = started(start)
    cache = TopologyCache()
    assert kept(cache, plane.plane) == whole(plane.plane)
    for batch in steps:
        for step in batch:
            plane.apply(step)
        if plane.plane.topology_dirty:
            assert kept(cache, plane.plane) == whole(plane.plane)
            assert cache.get(plane.plane).incremental


def test_many_edits_at_once_compute_the_plane_whole() -> None:
    plane = PlaneEdits()
    cache = TopologyCache()
    cache.get(plane.plane)
    for i in range(INCREMENTAL_EDITS + 1):
        plane.add_node(f"n{i:03}")
    assert not cache.get(plane.plane).incremental
    plane.add_edge("n000", "n001", "causal")
    plane.add_edge("n001", "n000", "causal")
    topology = cache.get(plane.plane)
    assert topology.incremental and topology.fault_edges in ({"e0"}, {"e1"})
    assert kept(cache, plane.plane) == whole(plane.plane)


def test_edits_whose_searches_cost_more_than_the_plane_compute_it_whole() -> None:
    plane = PlaneEdits()
    for i in range(200):
        plane.add_node(f"c{i:03}")
        plane.add_node(f"d{i:03}")
    for i in range(199):
        plane.add_edge(f"c{i:03}", f"c{i + 1:03}", "causal")
        plane.add_edge(f"d{i:03}", f"d{i + 1:03}", "causal")
    cache = TopologyCache()
    cache.get(plane.plane)
    plane.add_edge("d005", "c000", "causal")  # c000 reaches 200 cards, none of them d005: no cycle
    assert cache.get(plane.plane).incremental
    assert SEARCH_FLOOR < 24 * 200
    for i in range(1, 25):  # each searches 200 cards: more than SEARCH_FLOOR (and twice the plane) in all
        plane.add_edge(f"d{i:03}", "c000", "causal")
    assert not cache.get(plane.plane).incremental
    plane.add_edge("c199", "d000", "causal")  # one loop region of 225 cards
    assert cache.get(plane.plane).incremental
    assert kept(cache, plane.plane) == whole(plane.plane)


class SlicedEdits(RuleBasedStateMachine):
    """Edits, frames that show the topology with no time to compute it (the computation goes
    on in slices or is dropped by the next edit), and exact asks, in any order."""

    @initialize()
    def start(self) -> None:
        self.edits = PlaneEdits()
        self.cache = TopologyCache()
        self.quantum = topology_cache.QUANTUM
        topology_cache.QUANTUM = 1  # a pause after every unit of work: jobs are dropped half-way

    def teardown(self) -> None:
        topology_cache.QUANTUM = getattr(self, "quantum", topology_cache.QUANTUM)

    @rule(step=edits)
    def edit(self, step: tuple) -> None:
        self.edits.apply(step)

    @rule()
    def frame(self) -> None:  # a frame with no κ budget, then one slice between frames
        self.cache.shown(self.edits.plane, budget_ms=0.0)
        self.cache.advance(0.0)

    @rule()
    def ask(self) -> None:
        assert kept(self.cache, self.edits.plane) == whole(self.edits.plane)

    @invariant()
    def shown_is_exact_or_pending(self) -> None:
        shown = self.cache.shown(self.edits.plane, budget_ms=0.0)
        if not shown.pending:
            assert (json.dumps(shown.result), shown.fault_edges, shown.scc_of) == whole(self.edits.plane)


SlicedEdits.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
TestSlicedEdits = SlicedEdits.TestCase


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.lists(st.tuples(name, name, st.sampled_from(KINDS)), min_size=3, max_size=25),
    batch=st.lists(edits, min_size=1, max_size=6),
)
def test_the_changes_seen_after_cards_and_edges_were_added_are_those_every_item_compared_gives(start, batch) -> None:
    plane = started(start)
    cache = TopologyCache()
    cache.get(plane.plane)
    known = cache._known[plane.plane.id]
    for step in batch:
        plane.apply(step)
    found = known.changes(plane.plane, 10_000)
    compared = known.diff(plane.plane, 10_000)
    assert found is not None and compared is not None
    assert [sorted(found[0]), found[1], sorted(e.id for e in found[2]), [e.id for e in found[3]]] == [
        sorted(compared[0]),
        compared[1],
        sorted(e.id for e in compared[2]),
        [e.id for e in compared[3]],
    ]
    assert [e.id for e in found[3]] == [e.id for e in compared[3]]
