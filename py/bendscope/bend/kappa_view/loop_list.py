"""The loops the page lists: the plane's or the selection's elementary cycles,
found by ``kappa.loops`` in slices off the frame, like κ.

A :class:`LoopFinder` keeps one report per (plane, its structure and polarities, scope)
and at most one search in progress (``kappa_view.sliced``). The search works on a snapshot
of the plane and the exact topology of the scope (the plane's, or the induced one of a
selection), so its SCC ids, κ and fault lines are the ones the halos and the HUD show. A
plane edited during a search drops it; the next ask starts a new one.

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

from bendscope.bend.kappa_view.sliced import SlicedFinder, scope_arcs
from bendscope.bend.kappa_view.topology_cache import QUANTUM, Topology
from bendscope.bend.model.elements import Plane
from bendscope.kappa.loops import topology_loops_steps
from bendscope.kappa.steps import Meter, Steps

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

    def groups_json(self, marks: list[list[str]]) -> list[dict[str, Any]]:
        """The groups as the automation API's ``loops_state`` gives them (``marks``: each loop's
        mark, by group and loop): each region's κ with ``approximate`` as the canonical topology's
        SCC object has it — true when κ is an upper bound (past the engine's work budget), and
        then its ``kappa_range`` [lower, upper]. O(listed loops' cards and edges).

        >>> report = LoopReport((LoopGroup("scc-0", 3, True, 9, (), {}, True),), None, True,
        ...                     {"sccs": [{"id": "scc-0", "kappa": 3, "approximate": True, "kappa_range": [1, 3]}]})
        >>> report.groups_json([[]])
        [{'id': 'scc-0', 'kappa': 3, 'approximate': True, 'complete': True, 'loops': [], 'kappa_range': [1, 3]}]
        """
        sccs = {s["id"]: s for s in self.topology["sccs"]} if self.topology is not None else {}
        out = []
        for i, g in enumerate(self.groups):
            group: dict[str, Any] = {"id": g.scc_id, "kappa": g.kappa, "approximate": g.approximate,
                                     "complete": g.complete,
                                     "loops": [{"nodes": list(loop.nodes), "polarity": loop.polarity,
                                                "mark": marks[i][k], "edges": list(loop.edges)}
                                               for k, loop in enumerate(g.loops)]}  # fmt: skip
            bounds = sccs.get(g.scc_id, {}).get("kappa_range")
            if g.approximate and bounds is not None:
                group["kappa_range"] = [int(bounds[0]), int(bounds[1])]
            out.append(group)
        return out


def _tally(loops: Any) -> tuple[int, dict[str, int]]:
    counts = {"R": 0, "B": 0, "?": 0}
    for loop in loops:
        counts[loop.polarity] += 1
    return sum(counts.values()), counts


def loop_key(plane: Plane, selection: frozenset[str] | None) -> tuple[int, frozenset[str] | None]:
    """What a report depends on: the plane's node and edge sets with the edges' properties
    (``plane.version`` counts every change to them, polarity included) and the scope."""
    return (plane.version, selection)


def _loop_steps(plane: Plane, topology: Topology, selection: frozenset[str] | None) -> Steps[LoopReport]:
    """The loops of the scope, on a snapshot of its arcs: ``kappa.loops`` with the panel's bounds."""
    arcs = yield from scope_arcs(plane, selection)
    found = yield from topology_loops_steps(
        arcs.nodes,
        arcs.edges,
        topology.result,
        max_loops=PANEL_LOOPS,
        max_length=PANEL_LENGTH,
        max_work=PANEL_WORK,
        meter=Meter(QUANTUM),
        trusted=True,
    )
    groups = []
    sccs = {scc["id"]: scc for scc in topology.result["sccs"]}
    for group in found["sccs"]:
        loops = []
        for loop in group["loops"]:
            ring = loop["nodes"]
            ids: list[str] = []
            for k in range(len(ring)):
                ids.extend(arcs.by_arc.get((ring[k], ring[(k + 1) % len(ring)]), ()))
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
    return LoopReport(tuple(groups), selection, found["complete"], topology.result)


class LoopFinder(SlicedFinder[LoopReport]):
    """Reports of loops, one search at a time, in slices (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(loop_key, _loop_steps, clock, _rebind)


def _rebind(report: LoopReport, topology: Topology) -> LoopReport:
    """A whole plane's report for its next topology (same regions, same edges inside them)."""
    return LoopReport(report.groups, report.selection, report.complete, topology.result)
