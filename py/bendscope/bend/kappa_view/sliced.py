"""What the page's searches over a plane share (the loop list, the fewest cuts): a snapshot
of the scope's arcs, and a finder that keeps one report per (plane, key, scope, topology)
and runs at most one search at a time, in slices off the frame.

A search works on a snapshot; a plane edited during it (its key changed) drops it and the
next ask starts a new one. A report is kept for the exact topology it was made with, and
carried over to the plane's next topology when what it depends on did not change: the same
loop regions (ids, cards, κ, fault lines) and the same directed edges inside them (a card or
an edge added or removed outside every region searches nothing again).

>>> from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane
>>> from bendscope.kappa.steps import finish
>>> plane = Plane("p")
>>> for node_id in "abc":
...     plane.add_node(Node(node_id, node_id))
>>> plane.add_edge(Edge("e0", "a", "b", EdgeProps(kind="causal", polarity="+")))
>>> plane.add_edge(Edge("e1", "a", "b", EdgeProps(kind="causal")))
>>> plane.add_edge(Edge("e2", "b", "c", EdgeProps(kind="related")))
>>> arcs = finish(scope_arcs(plane, None))
>>> arcs.nodes, arcs.by_arc, [(e["source"], e["target"], e["polarity"]) for e in arcs.edges]
(['a', 'b', 'c'], {('a', 'b'): ['e0', 'e1']}, [('a', 'b', '+'), ('a', 'b', None)])
>>> finish(scope_arcs(plane, frozenset("bc"))).by_arc
{}
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Edge, Plane
from bendscope.kappa import DIRECTED_KINDS
from bendscope.kappa.steps import Steps, advance

__all__ = ["EDGES_PER_STEP", "ScopeArcs", "SlicedFinder", "regions_of", "regions_steps", "scope_arcs"]

R = TypeVar("R")

#: what a report depends on besides the topology: a version of the plane and the scope
Key = tuple[int, frozenset[str] | None]
Scope = frozenset[str] | None


@dataclass(frozen=True)
class ScopeArcs:
    """The scope's cards, its directed edges as the engine reads them (loops of one card
    left out), and the edge ids of each arc (parallel edges: every one)."""

    nodes: list[str]
    edges: list[dict[str, Any]]
    by_arc: dict[tuple[str, str], list[str]]


#: edges looked at between two pauses of a search's first steps (a pause every ~1–2 ms in the page)
EDGES_PER_STEP = 512


def scope_arcs(plane: Plane, selection: Scope) -> Steps[ScopeArcs]:
    """A snapshot of the directed edges of ``plane`` (or among the ``selection``'s cards),
    pausing every :data:`EDGES_PER_STEP` edges. O(n + m)."""
    nodes = list(plane.nodes) if selection is None else [n for n in selection if n in plane.nodes]
    inside = None if selection is None else set(nodes)
    by_arc: dict[tuple[str, str], list[str]] = {}
    edges: list[dict[str, Any]] = []
    for k, edge in enumerate(list(plane.edges.values())):  # Edge objects are immutable: a snapshot
        if k and not k % EDGES_PER_STEP:
            yield
        if edge.props.kind not in DIRECTED_KINDS or edge.a == edge.b:
            continue
        if inside is not None and (edge.a not in inside or edge.b not in inside):
            continue
        by_arc.setdefault((edge.a, edge.b), []).append(edge.id)
        edges.append({"source": edge.a, "target": edge.b, "kind": edge.props.kind, "polarity": edge.props.polarity})
    return ScopeArcs(nodes, edges, by_arc)


#: what a whole plane's report depends on: its loop regions, and its directed edges inside
#: them (each with its region), in the plane's order
Regions = tuple[list[dict[str, Any]], list[tuple[int, Edge]]]


def regions_of(plane: Plane, topology: Topology) -> Regions:
    """The loop regions of ``plane`` (its exact ``topology``) and the directed edges inside
    each, in the plane's order. O(m).

    >>> from bendscope.bend.model.elements import EdgeProps, Node
    >>> from bendscope.bend.kappa_view.topology_cache import TopologyCache
    >>> plane = Plane("p")
    >>> for node_id in "abc":
    ...     plane.add_node(Node(node_id, node_id))
    >>> for k, (a, b) in enumerate([("a", "b"), ("b", "a"), ("b", "c")]):
    ...     plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal")))
    >>> [(i, e.id) for i, e in regions_of(plane, TopologyCache().get(plane))[1]]
    [(0, 'e0'), (0, 'e1')]
    """
    scc_of = topology.scc_of
    inside = []
    for edge in plane.edges.values():
        region = scc_of.get(edge.a)
        if region is not None and region == scc_of.get(edge.b) and edge.props.kind in DIRECTED_KINDS:
            inside.append((region, edge))
    return topology.result["sccs"], inside


def regions_steps(plane: Plane, topology: Topology) -> Steps[Regions]:
    """:func:`regions_of` pausing every :data:`EDGES_PER_STEP` edges (on a snapshot of the
    edge list). O(m)."""
    scc_of = topology.scc_of
    inside = []
    for k, edge in enumerate(list(plane.edges.values())):
        if k and not k % EDGES_PER_STEP:
            yield
        region = scc_of.get(edge.a)
        if region is not None and region == scc_of.get(edge.b) and edge.props.kind in DIRECTED_KINDS:
            inside.append((region, edge))
    return topology.result["sccs"], inside


class _Search(Generic[R]):
    def __init__(self, plane: Plane, key: Key, selection: Scope, topology: Topology, steps: Steps[R]) -> None:
        self.plane = plane
        self.key = key
        self.selection = selection
        self.topology = topology
        self.steps = self._first_regions(steps)
        self.busy_ms = 0.0  # time spent in its slices
        # (the plane's as the search begins, unchanged while it is current: what its report depends on)
        self.regions: Regions | None = None

    def _first_regions(self, steps: Steps[R]) -> Steps[R]:
        """``steps`` after the whole plane's regions are taken (in steps of their own)."""
        try:
            if self.selection is None:
                self.regions = yield from regions_steps(self.plane, self.topology)
            return (yield from steps)
        finally:
            steps.close()


class SlicedFinder(Generic[R]):
    """One report per (plane, ``key_of(plane, scope)``, scope, topology) and at most one
    search in progress. ``search(plane, topology, scope)`` makes a search's steps;
    ``rebind(report, topology)`` gives a whole plane's report carried over to its next
    topology (the module doc: when its regions and their edges are the same)."""

    def __init__(
        self,
        key_of: Callable[[Plane, Scope], Key],
        search: Callable[[Plane, Topology, Scope], Steps[R]],
        clock: Callable[[], float] = time.perf_counter,
        rebind: Callable[[R, Topology], R] | None = None,
    ) -> None:
        self.clock = clock
        self._key_of = key_of
        self._make = search
        self._rebind = rebind
        self._report: tuple[Plane, Key, R, Any] | None = None
        self._regions: Regions | None = None  # what the held report depends on (a whole plane's)
        self._search: _Search[R] | None = None
        self.searches = 0  # searches finished (tests count them)
        self.carried = 0  # reports carried over to a new topology without a search

    def report(self, plane: Plane, topology: Topology, selection: Scope, budget_ms: float = 0.0) -> R | None:
        """The report for ``plane`` (or the ``selection`` of it, whose exact topology is
        ``topology``) if it is ready or its search ends within ``budget_ms``; else None (the
        search goes on with :meth:`advance`)."""
        key = self._key_of(plane, selection)
        held = self._report
        if held is not None and held[0] is plane and held[1] == key and held[3] is topology.result:
            return held[2]
        search = self._search
        if search is None or not self._current(search, plane) or search.topology.result is not topology.result:
            if search is not None:
                search.steps.close()
                self._search = None
            carried = self._carry(plane, key, topology, selection)
            if carried is not None:
                return carried
            steps = self._make(plane, topology, selection)
            search = self._search = _Search(plane, key, selection, topology, steps)
        return self._run(search, budget_ms)

    def held(self, plane: Plane, topology: Topology, selection: Scope) -> R | None:
        """The report for ``plane`` (or its ``selection``, of exact ``topology``) if one is
        held for exactly these, else None: no search is begun, none goes on and none is
        carried over (what a gesture's frames may ask). O(1) besides the plane's key."""
        held = self._report
        if held is None or held[0] is not plane or held[3] is not topology.result:
            return None
        return held[2] if held[1] == self._key_of(plane, selection) else None

    def _carry(self, plane: Plane, key: Key, topology: Topology, selection: Scope) -> R | None:
        """The held report, carried over to ``topology`` if nothing it depends on changed. O(m)."""
        held, regions = self._report, self._regions
        if self._rebind is None or held is None or held[0] is not plane or selection is not None or regions is None:
            return None
        now = regions_of(plane, topology)
        if now != regions:
            return None
        report = self._rebind(held[2], topology)
        self._report = (plane, key, report, topology.result)
        self.carried += 1
        return report

    def _current(self, search: _Search[R], plane: Plane) -> bool:
        return search.plane is plane and search.key == self._key_of(plane, search.selection)

    @property
    def pending(self) -> bool:
        """Whether a search is in progress and still current."""
        search = self._search
        if search is None:
            return False
        if not self._current(search, search.plane):
            search.steps.close()
            self._search = None
            return False
        return True

    def advance(self, budget_ms: float) -> bool:
        """Go on with the search for up to ``budget_ms`` (at least one step); whether it is
        still running."""
        if not self.pending:
            return False
        assert self._search is not None
        return self._run(self._search, budget_ms) is None

    def _run(self, search: _Search[R], budget_ms: float) -> R | None:
        start = self.clock()
        deadline = start + budget_ms / 1000.0
        try:
            done, report = advance(search.steps, lambda: self.clock() >= deadline)
        except BaseException:
            search.steps.close()
            self._search = None
            raise
        search.busy_ms += (self.clock() - start) * 1000.0
        if not done or report is None:
            return None
        self._search = None
        self._report = (search.plane, search.key, report, search.topology.result)
        self._regions = search.regions
        self.searches += 1
        return report
