"""The fewest edges whose removal breaks every loop — a minimum feedback edge set — of each
loop region of the plane or of the selection, found by ``kappa.arcset`` in slices off the
frame, like κ and the loop list.

This is not κ: κ is the fewest edges whose removal *splits* a region; breaking every loop
can take more (on the population diagram κ = 1 and breaking every loop takes 2). Each region
gets ``PAGE_ARCSET_BUDGET`` units of work: small regions get the exact number, larger ones
a range (a proven lower bound, and the size of a real set of edges that breaks every loop).
An arc drawn by several parallel edges counts once; cutting it means removing every one of
them, so a region's ``edges`` are all of them.

A :class:`CutFinder` keeps one report per (plane, its structure, scope, topology) and at
most one search in progress, on a snapshot of the plane: a plane edited during a search
drops it; the next ask starts a new one.

>>> from bendscope.bend.editor.editor import Editor
>>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> for node_id in ("births", "deaths", "population"):
...     plane.add_node(Node(node_id, node_id.capitalize()))
>>> arcs = [("births", "population"), ("population", "births"), ("population", "deaths"), ("deaths", "population")]
>>> for k, (a, b) in enumerate(arcs):
...     plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal")))
>>> editor = Editor(Document([plane], "p"))
>>> report = CutFinder().report(plane, editor.topology(), None, budget_ms=1e9)
>>> (region,) = report.regions
>>> region.scc_id, region.lower, region.size, region.exact, region.edges
('scc-0', 2, 2, True, ('e1', 'e2'))
>>> region.arcs  # one arc of each two-card loop (κ is 1: one arc would only split the region)
(('population', 'births'), ('population', 'deaths'))
>>> cut_words(region.lower, region.size)
'2 edges break every loop'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bendscope.bend.kappa_view.topology_cache import QUANTUM, Topology
from bendscope.bend.model.elements import Plane
from bendscope.kappa import DIRECTED_KINDS
from bendscope.kappa.arcset import feedback_arc_set_field_steps
from bendscope.kappa.digraph import build_digraph_steps
from bendscope.kappa.steps import Meter, Steps, advance

#: units of work (``kappa.steps.Meter``) one region's search may take in the page: about
#: 0.2 s in CPython, 0.35 s in slices in the page; regions of up to a few dozen cards are
#: exact well within it, larger or denser ones get a range
PAGE_ARCSET_BUDGET = 2_000_000


def cut_words(lower: int, size: int) -> str:
    """The count as the page says it: exact, or a range of bounds.

    >>> cut_words(1, 1), cut_words(2, 5)
    ('1 edge breaks every loop', '2–5 edges break every loop')
    """
    if lower == size:
        return f"{size} edge{'s' if size != 1 else ''} break{'s' if size == 1 else ''} every loop"
    return f"{lower}–{size} edges break every loop"


@dataclass(frozen=True)
class RegionCuts:
    """One loop region's fewest edges that break every loop: ``lower`` ≤ the fewest ≤
    ``size`` (the arcs found, whose removal leaves the region without a loop), ``exact`` when
    they meet; ``edges``: the plane's edges drawing those arcs (every parallel copy)."""

    scc_id: str
    lower: int
    size: int
    arcs: tuple[tuple[str, str], ...]
    edges: tuple[str, ...]

    @property
    def exact(self) -> bool:
        return self.lower == self.size


@dataclass(frozen=True)
class CutReport:
    """The fewest edges that break every loop of a scope (``selection``: its node ids, or
    None for the plane), per loop region; the scope's is their sum (the regions' loops are
    apart: one set per region)."""

    regions: tuple[RegionCuts, ...]
    selection: frozenset[str] | None

    @property
    def lower(self) -> int:
        return sum(r.lower for r in self.regions)

    @property
    def size(self) -> int:
        return sum(r.size for r in self.regions)

    @property
    def exact(self) -> bool:
        return all(r.exact for r in self.regions)

    @property
    def edges(self) -> tuple[str, ...]:
        return tuple(e for r in self.regions for e in r.edges)

    def region(self, scc_id: str) -> RegionCuts | None:
        return next((r for r in self.regions if r.scc_id == scc_id), None)


def _key(plane: Plane, selection: frozenset[str] | None) -> tuple[int, frozenset[str] | None]:
    return (plane.topology_version, selection)


class _Search:
    def __init__(self, plane: Plane, topology: Topology, selection: frozenset[str] | None, budget: int) -> None:
        self.plane = plane
        self.key = _key(plane, selection)
        self.selection = selection
        self.topology = topology
        self.budget = budget
        self.steps = self._steps()

    def current(self, plane: Plane, selection: frozenset[str] | None) -> bool:
        return self.plane is plane and self.key == _key(plane, selection)

    def _steps(self) -> Steps[CutReport]:
        plane, selection = self.plane, self.selection
        nodes = list(plane.nodes) if selection is None else [n for n in selection if n in plane.nodes]
        inside = None if selection is None else set(nodes)
        by_arc: dict[tuple[str, str], list[str]] = {}
        edges: list[dict[str, str]] = []
        for k, edge in enumerate(list(plane.edges.values())):  # Edge objects are immutable: a snapshot
            if k and not k % 4096:
                yield
            if edge.props.kind not in DIRECTED_KINDS or edge.a == edge.b:
                continue
            if inside is not None and (edge.a not in inside or edge.b not in inside):
                continue
            by_arc.setdefault((edge.a, edge.b), []).append(edge.id)
            edges.append({"source": edge.a, "target": edge.b, "kind": edge.props.kind})
        meter = Meter(QUANTUM)
        graph = yield from build_digraph_steps(nodes, edges, meter, trusted=True)
        index = {node_id: i for i, node_id in enumerate(graph.ids)}
        regions = []
        for scc in self.topology.result["sccs"]:
            members = sorted(index[n] for n in scc["nodes"] if n in index)
            if len(members) < 2:
                continue
            found: dict[str, Any] = yield from feedback_arc_set_field_steps(
                graph, members, meter, work_budget=self.budget
            )
            arcs = tuple((f["source"], f["target"]) for f in found["edges"])
            ids = tuple(e for arc in arcs for e in by_arc.get(arc, ()))
            regions.append(RegionCuts(scc["id"], int(found["lower_bound"]), int(found["size"]), arcs, ids))
        return CutReport(tuple(regions), selection)


class CutFinder:
    """Reports of the fewest edges that break every loop, one search at a time, in slices."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter, budget: int = PAGE_ARCSET_BUDGET) -> None:
        self.clock = clock
        self.budget = budget
        self._report: tuple[Plane, tuple[int, frozenset[str] | None], CutReport, Any] | None = None
        self._search: _Search | None = None
        self.searches = 0  # searches finished (tests count them)

    def report(
        self, plane: Plane, topology: Topology, selection: frozenset[str] | None, budget_ms: float = 0.0
    ) -> CutReport | None:
        """The report for ``plane`` (or the ``selection`` of it, whose exact topology is
        ``topology``) if it is ready or its search ends within ``budget_ms``; else None (the
        search goes on with :meth:`advance`)."""
        held = self._report
        if held is not None and held[0] is plane and held[1] == _key(plane, selection) and held[3] is topology.result:
            return held[2]
        search = self._search
        if search is None or not search.current(plane, selection) or search.topology.result is not topology.result:
            if search is not None:
                search.steps.close()
            search = self._search = _Search(plane, topology, selection, self.budget)
        return self._run(search, budget_ms)

    @property
    def pending(self) -> bool:
        """Whether a search is in progress and still current."""
        search = self._search
        if search is None:
            return False
        if not search.current(search.plane, search.selection):
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

    def _run(self, search: _Search, budget_ms: float) -> CutReport | None:
        deadline = self.clock() + budget_ms / 1000.0
        try:
            done, report = advance(search.steps, lambda: self.clock() >= deadline)
        except BaseException:
            search.steps.close()
            self._search = None
            raise
        if not done or report is None:
            return None
        self._search = None
        self._report = (search.plane, search.key, report, search.topology.result)
        self.searches += 1
        return report
