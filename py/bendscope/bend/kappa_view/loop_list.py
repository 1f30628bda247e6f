"""The loops the page lists: the plane's or the selection's elementary cycles,
found by ``kappa.loops`` in slices off the frame, like κ.

A :class:`LoopFinder` keeps one report per (plane, its structure and polarities, scope)
and at most one search in progress. The search works on a snapshot of the plane and the
exact topology of the scope (the plane's, or the induced one of a selection), so its
SCC ids, κ and fault lines are the ones the halos and the HUD show. A plane edited during
a search drops it; the next ask starts a new one.

>>> from bendscope.bend.editor.editor import Editor
>>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> for node_id in "abc":
...     plane.add_node(Node(node_id, node_id.upper()))
>>> for k, (a, b, sign) in enumerate([("a", "b", "+"), ("b", "a", "-"), ("b", "c", "+"), ("c", "a", "+")]):
...     plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal", polarity=sign)))
>>> editor = Editor(Document([plane], "p"))
>>> finder = LoopFinder()
>>> report = finder.report(editor.plane, editor.topology(), None, budget_ms=1e9)
>>> [(loop.nodes, loop.polarity, loop.edges) for loop in report.groups[0].loops]
[(('a', 'b'), 'B', ('e0', 'e1')), (('a', 'b', 'c'), 'R', ('e0', 'e2', 'e3'))]
>>> report.through_node("a"), report.through_edge("e2")
((2, {'R': 1, 'B': 1, '?': 0}), (1, {'R': 1, 'B': 0, '?': 0}))
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.kappa_view.topology_cache import QUANTUM, Topology
from bendscope.bend.model.elements import Plane
from bendscope.kappa import DIRECTED_KINDS
from bendscope.kappa.loops import topology_loops_steps
from bendscope.kappa.steps import Meter, Steps, advance

#: loops listed per SCC, their longest length, and the arcs one search may follow
#: (~1 s of slices in the page at most)
PANEL_LOOPS = 100
PANEL_LENGTH = 12
PANEL_WORK = 600_000


@dataclass(frozen=True)
class Loop:
    """One loop: its cards in order (from the smallest id), its class (R, B, ?), the
    number of fault-line arcs it runs through, and its edges (every parallel edge of each arc)."""

    nodes: tuple[str, ...]
    polarity: str
    fault_lines: int
    edges: tuple[str, ...]

    @property
    def length(self) -> int:
        return len(self.nodes)


@dataclass(frozen=True)
class LoopGroup:
    """The loops of one SCC: its id, κ, size, counts per class and whether all are listed."""

    scc_id: str
    kappa: int
    approximate: bool
    size: int
    loops: tuple[Loop, ...]
    counts: dict[str, int]
    complete: bool


@dataclass
class LoopReport:
    """The loops of a scope. ``selection``: the node ids it is of, or None for the plane;
    ``topology``: the topology it was found with (its regions' κ, bounds, fault lines)."""

    groups: tuple[LoopGroup, ...]
    selection: frozenset[str] | None
    complete: bool
    topology: dict[str, Any] | None = None
    _by_node: dict[str, list[Loop]] = field(default_factory=dict, repr=False)
    _by_edge: dict[str, list[Loop]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for group in self.groups:
            for loop in group.loops:
                for node_id in loop.nodes:
                    self._by_node.setdefault(node_id, []).append(loop)
                for edge_id in loop.edges:
                    self._by_edge.setdefault(edge_id, []).append(loop)

    @property
    def loop_count(self) -> int:
        return sum(len(g.loops) for g in self.groups)

    def through_node(self, node_id: str) -> tuple[int, dict[str, int]]:
        """How many listed loops pass through a card, and how many of each class."""
        return _tally(self._by_node.get(node_id, ()))

    def through_edge(self, edge_id: str) -> tuple[int, dict[str, int]]:
        return _tally(self._by_edge.get(edge_id, ()))


def _tally(loops: Any) -> tuple[int, dict[str, int]]:
    counts = {"R": 0, "B": 0, "?": 0}
    for loop in loops:
        counts[loop.polarity] += 1
    return sum(counts.values()), counts


def loop_key(plane: Plane, selection: frozenset[str] | None) -> tuple[int, frozenset[str] | None]:
    """What a report depends on: the plane's node and edge sets with the edges' properties
    (``plane.version`` counts every change to them, polarity included) and the scope."""
    return (plane.version, selection)


class _Search:
    def __init__(self, plane: Plane, topology: Topology, selection: frozenset[str] | None) -> None:
        self.plane = plane
        self.key = loop_key(plane, selection)
        self.selection = selection
        self.topology = topology
        self.busy_ms = 0.0
        self.steps = self._steps()

    def current(self, plane: Plane, selection: frozenset[str] | None) -> bool:
        return self.plane is plane and self.key == loop_key(plane, selection)

    def _steps(self) -> Steps[LoopReport]:
        plane, selection = self.plane, self.selection
        nodes = list(plane.nodes) if selection is None else [n for n in selection if n in plane.nodes]
        inside = None if selection is None else set(nodes)
        arcs: dict[tuple[str, str], list[str]] = {}
        edges: list[dict[str, Any]] = []
        for k, edge in enumerate(list(plane.edges.values())):  # Edge objects are immutable: a snapshot
            if k and not k % 4096:
                yield
            if edge.props.kind not in DIRECTED_KINDS or edge.a == edge.b:
                continue
            if inside is not None and (edge.a not in inside or edge.b not in inside):
                continue
            arcs.setdefault((edge.a, edge.b), []).append(edge.id)
            edges.append({"source": edge.a, "target": edge.b, "kind": edge.props.kind, "polarity": edge.props.polarity})
        found = yield from topology_loops_steps(
            nodes,
            edges,
            self.topology.result,
            max_loops=PANEL_LOOPS,
            max_length=PANEL_LENGTH,
            max_work=PANEL_WORK,
            meter=Meter(QUANTUM),
            trusted=True,
        )
        groups = []
        sccs = {scc["id"]: scc for scc in self.topology.result["sccs"]}
        for group in found["sccs"]:
            loops = []
            for loop in group["loops"]:
                ring = loop["nodes"]
                ids: list[str] = []
                for k in range(len(ring)):
                    ids.extend(arcs.get((ring[k], ring[(k + 1) % len(ring)]), ()))
                loops.append(Loop(tuple(ring), loop["polarity"], len(loop["fault_lines"]), tuple(ids)))
            groups.append(
                LoopGroup(
                    group["id"],
                    group["kappa"],
                    bool(sccs[group["id"]]["approximate"]),
                    len(group["nodes"]),
                    tuple(loops),
                    dict(group["counts"]),
                    group["complete"],
                )
            )
        return LoopReport(tuple(groups), selection, found["complete"], self.topology.result)


class LoopFinder:
    """Reports of loops, one search at a time, in slices (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._report: tuple[Plane, tuple[int, frozenset[str] | None], LoopReport, Any] | None = None
        self._search: _Search | None = None
        self.searches = 0  # searches finished (tests count them)

    def report(
        self, plane: Plane, topology: Topology, selection: frozenset[str] | None, budget_ms: float = 0.0
    ) -> LoopReport | None:
        """The report for ``plane`` (or the ``selection`` of it, whose topology ``topology``
        is), if it is ready or the search finishes within ``budget_ms``; else None (the
        search goes on with :meth:`advance`). ``topology`` must be exact (not pending)."""
        held = self._report
        if (
            held is not None
            and held[0] is plane
            and held[1] == loop_key(plane, selection)
            and held[3] is topology.result
        ):
            return held[2]
        search = self._search
        if search is None or not search.current(plane, selection) or search.topology.result is not topology.result:
            if search is not None:
                search.steps.close()
            search = self._search = _Search(plane, topology, selection)
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
        """Go on with the search for up to ``budget_ms`` (at least one step); returns whether
        it is still running."""
        if not self.pending:
            return False
        assert self._search is not None
        return self._run(self._search, budget_ms) is None

    def _run(self, search: _Search, budget_ms: float) -> LoopReport | None:
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
        self.searches += 1
        return report
