"""κ in the editor, computed in slices: the topology, the loops and the fewest edges
that break every loop, of the plane or of the selection."""

from __future__ import annotations

import math
from typing import Any

from bendscope.bend.editor.hit_testing import HitTesting
from bendscope.bend.kappa_view.loop_cuts import CutReport
from bendscope.bend.kappa_view.loop_list import LoopReport
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import (
    Plane,
)
from bendscope.kappa.recommend import short_name

#: characters of a node's name in Export topology (its text on one line)
NAME_LIMIT = 80


class KappaDriver(HitTesting):
    """The κ driver, a part of ``Editor``: what the HUD, panels and canvas show of κ."""

    def topology(self, plane: Plane | None = None) -> Topology:
        """The exact topology now (runs or finishes its computation)."""
        return self.topology_cache.get(plane or self.plane, self.exact_limit)

    def selection_topology(self) -> Topology | None:
        """With two or more nodes selected, the topology of the subgraph they induce (what
        the HUD, inspector, halos and Export topology show then); None otherwise."""
        if len(self.selection) < 2:
            return None
        return self.topology_cache.induced(self.plane, self.selection, self.exact_limit)

    def topology_export(self) -> dict[str, Any]:
        """What Export topology writes: the canonical topology of the selection (two or
        more nodes, not the whole plane) or else of the plane, and ``names``: a short form
        of each node's text by id, so a reader of the file knows which card an id is. O(n)."""
        plane = self.plane
        chosen = None if len(self.selection) == len(plane.nodes) else self.selection_topology()
        result = dict((chosen or self.topology()).result)
        ids = [n for scc in result["sccs"] for n in scc["nodes"]] + list(result["dag_nodes"])
        result["names"] = {n: short_name(plane.nodes[n].text, NAME_LIMIT) for n in sorted(ids) if n in plane.nodes}
        return result

    def shown_topology(self, budget_ms: float | None = 0.0) -> Topology:
        """The active plane's topology for drawing: exact if ready within ``budget_ms``,
        else the previous one marked ``pending`` (see ``bend.kappa_view.topology_cache``;
        None: a computation due begins in ``compute_topology``'s slices, not here)."""
        return self.topology_cache.shown(self.plane, self.exact_limit, budget_ms)

    def loop_scope(self) -> frozenset[str] | None:
        """What the Loops panel lists: the selection (two or more nodes, not all of them), or
        None for the whole plane."""
        if len(self.selection) < 2 or len(self.selection) == len(self.plane.nodes):
            return None
        return frozenset(self.selection)

    def loops(self, budget_ms: float = 0.0, *, wait: bool = False) -> LoopReport | None:
        """The loops of the plane or the selection (``bend.kappa_view.loop_list``): the report if it is
        ready or its search ends within ``budget_ms`` (``wait``: runs it to the end); else
        None while the plane's topology or the search is still in progress (they go on
        with :meth:`compute_topology` and :meth:`compute_loops`)."""
        scoped = self._scoped_topology(wait)
        if scoped is None:
            return None
        scope, topology = scoped
        return self.loop_finder.report(self.plane, topology, scope, math.inf if wait else budget_ms)

    def loop_cuts(self, budget_ms: float = 0.0, *, wait: bool = False) -> CutReport | None:
        """The fewest edges that break every loop of each loop region of the plane or the
        selection (``bend.kappa_view.loop_cuts``), as :meth:`loops` gives its list: the report if it is
        ready or its search ends within ``budget_ms`` (``wait``: runs it to the end), else
        None while it is computed (it goes on with :meth:`compute_cuts`)."""
        scoped = self._scoped_topology(wait)
        if scoped is None:
            return None
        scope, topology = scoped
        return self.cut_finder.report(self.plane, topology, scope, math.inf if wait else budget_ms)

    def held_loops(self) -> LoopReport | None:
        """The loop report :meth:`loops` would give if it is ready now, else None — beginning
        and continuing no search (a gesture's frames: the searches begin after it)."""
        scoped = self._scoped_topology(False)
        return None if scoped is None else self.loop_finder.held(self.plane, scoped[1], scoped[0])

    def held_cuts(self) -> CutReport | None:
        """The cut report :meth:`loop_cuts` would give if it is ready now, else None — as
        :meth:`held_loops`."""
        scoped = self._scoped_topology(False)
        return None if scoped is None else self.cut_finder.held(self.plane, scoped[1], scoped[0])

    def _scoped_topology(self, wait: bool) -> tuple[Any, Any] | None:
        """(the selection's cards or None for the whole plane, their topology), or None while the
        plane's topology is still computed and ``wait`` is off."""
        scope = self.loop_scope()
        if scope is None:
            if self.topology_cache.pending(self.plane) and not wait:
                return None
            return None, self.topology()
        return scope, self.topology_cache.induced(self.plane, sorted(scope), self.exact_limit)

    def compute_cuts(self, budget_ms: float) -> bool:
        """A slice of the running search for the fewest edges that break every loop; whether
        it is still running."""
        running = self.cut_finder.advance(budget_ms)
        if not running:
            self.needs_paint = True
        return running

    def shown_cuts(self, report: CutReport | None) -> tuple[str, ...]:
        """The edges drawn as breaking every loop (``cuts_shown``): with one card of a loop
        region selected, that region's; else every region's of the scope. O(regions)."""
        if not self.cuts_shown or report is None:
            return ()
        if len(self.selection) == 1:
            scc = self.topology().scc(self.selection[0]) if not self.topology_cache.pending(self.plane) else None
            region = None if scc is None else report.region(scc["id"])
            if region is not None:
                return region.edges
        return report.edges

    def compute_loops(self, budget_ms: float) -> bool:
        """A slice of the running loop search; whether it is still running."""
        running = self.loop_finder.advance(budget_ms)
        if not running:
            self.needs_paint = True
        return running

    def compute_topology(self, budget_ms: float) -> bool:
        """A slice of the running topology computation; whether it is still running."""
        running = self.topology_cache.advance(budget_ms)
        if not running:
            self.needs_paint = True
        return running
