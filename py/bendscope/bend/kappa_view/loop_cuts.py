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
most one search in progress (``kappa_view.sliced``), on a snapshot of the plane: a plane edited during a search
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

from bendscope.bend.kappa_view.sliced import SlicedFinder, scope_arcs
from bendscope.bend.kappa_view.topology_cache import QUANTUM, Topology
from bendscope.bend.model.elements import Plane
from bendscope.kappa.arcset import feedback_arc_set_field_steps
from bendscope.kappa.digraph import build_digraph_steps
from bendscope.kappa.steps import Meter, Steps

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


def _cut_steps(plane: Plane, topology: Topology, selection: frozenset[str] | None, budget: int) -> Steps[CutReport]:
    """Each region's fewest cuts within ``budget`` units of work, on a snapshot of the scope's arcs."""
    arcs = yield from scope_arcs(plane, selection)
    meter = Meter(QUANTUM)
    graph = yield from build_digraph_steps(arcs.nodes, arcs.edges, meter, trusted=True)
    index = {node_id: i for i, node_id in enumerate(graph.ids)}
    regions = []
    for scc in topology.result["sccs"]:
        members = sorted(index[n] for n in scc["nodes"] if n in index)
        if len(members) < 2:
            continue
        found: dict[str, Any] = yield from feedback_arc_set_field_steps(graph, members, meter, work_budget=budget)
        cut = tuple((f["source"], f["target"]) for f in found["edges"])
        ids = tuple(e for arc in cut for e in arcs.by_arc.get(arc, ()))
        regions.append(RegionCuts(scc["id"], int(found["lower_bound"]), int(found["size"]), cut, ids))
    return CutReport(tuple(regions), selection)


class CutFinder(SlicedFinder[CutReport]):
    """Reports of the fewest edges that break every loop, one search at a time, in slices."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter, budget: int = PAGE_ARCSET_BUDGET) -> None:
        self.budget = budget
        super().__init__(
            _key,
            lambda plane, topology, scope: _cut_steps(plane, topology, scope, self.budget),
            clock,
            lambda report, topology: report,  # (its regions' ids and arcs are the same)
        )
