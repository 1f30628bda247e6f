"""The page's layout engine: d3-force (vendored) through static/layout.js.

A pure-Python layout step costs ~4 ms at 300 nodes and ~40 ms at 3,000 in Pyodide, and
a layout needs ~170 steps to rest, so the page could neither keep frames short nor bring
large graphs to rest in seconds (docs/benchmarks.md has the numbers). The forces are
d3's (Barnes–Hut many-body, springs, a weak pull to the origin) plus a rectangle
collision for cards; Python keeps the positions on the plane's nodes and hands them to
the kernel and back as typed arrays on every call, so nothing else changes for the
editor (drags, pins, undo, saving). Same document + seed → same positions: the kernel's
random source is seeded, and what it keeps between calls (the forces' set-up, the random
source's state, how far separation has got) depends only on the calls, never on time.
"""

from __future__ import annotations

import math
from typing import Any

import js
from pyodide.ffi import to_js

from bend.forces import ForceParams, kernel_graph, kernel_state, structure_key
from bend.model import Plane

from .dom import js_obj


class D3Simulation:
    """One plane's layout in the d3 kernel (see LayoutEngine in bend.layout)."""

    def __init__(self, plane: Plane, seed: int = 1, params: ForceParams | None = None) -> None:
        self.plane = plane
        self.params = params or ForceParams()
        self.seed = seed
        self.alpha = 1.0
        self.fixed: set[str] = set()
        self.ticks = 0  # ticks run since the layout last came to rest (progress)
        self.tick_ms = 0.0  # ms per tick in the last slice (the page sizes slices by it)
        self._settling = False  # cooled, but the kernel is still separating cards
        self._kernel = js.window.bendscopeLayout
        self._handle: Any = None
        self._shape: tuple[int, tuple[float, ...]] | None = None  # (plane version, card sizes)
        self._ids: list[str] = []

    @property
    def active(self) -> bool:
        """Still moving: cooling, or separating overlapping cards after cooling."""
        return self.alpha >= self.params.alphaMin or self._settling

    def reheat(self, alpha: float | None = None) -> None:
        self.alpha = max(self.alpha, self.params.reheat if alpha is None else alpha)

    def stop(self) -> None:
        self.alpha = 0.0
        self._settling = False
        self.ticks = 0
        for node in self.plane.nodes.values():
            node.vx = node.vy = 0.0

    def _graph(self) -> None:
        """(Re)build the kernel's graph when the plane's structure or a card's size changed."""
        shape = structure_key(self.plane)
        if shape == self._shape and self._handle is not None:
            return
        graph = kernel_graph(self.plane, self.params.gap)
        self._handle = self._kernel.create(self.seed, js_obj(self.params.for_plane(len(graph.ids))))
        self._ids = list(graph.ids)
        state = to_js(kernel_state((self.plane.nodes[i] for i in self._ids), self.fixed))
        self._kernel.setGraph(self._handle, state, to_js(graph.pairs), to_js(graph.rest), to_js(graph.k))
        self._shape = shape

    def _run(self, max_ticks: int, budget_ms: float) -> int:
        self._graph()
        nodes = [self.plane.nodes[i] for i in self._ids]
        start = js.performance.now()
        out = self._kernel.run(
            self._handle, to_js(kernel_state(nodes, self.fixed)), self.alpha, 0.0, max_ticks, budget_ms
        )
        values = out.to_py().tolist()
        self.alpha, ticks, self._settling = values[0], int(values[1]), not values[2]
        for k, node in enumerate(nodes):
            j = 3 + 4 * k
            node.x, node.y, node.vx, node.vy = values[j], values[j + 1], values[j + 2], values[j + 3]
        self.ticks += ticks
        if ticks:
            self.tick_ms = (js.performance.now() - start) / ticks
        return ticks

    def step(self, budget_ms: float = 0.0) -> bool:
        """Ticks for up to ``budget_ms`` (one tick with no budget); whether it still moves."""
        if not self.plane.nodes:
            self.stop()  # nothing to move: at rest (else the page would keep asking for frames)
        if not self.active:
            return False
        self._run(10_000 if budget_ms > 0 else 1, budget_ms)
        if not self.active:
            self.stop()
            return False
        return True

    def settle(self, max_steps: int = 2000) -> int:
        """Run to rest in one call (tests, ``?still=1``); returns the ticks taken."""
        if not self.plane.nodes:
            self.stop()
            return 0
        ticks = self._run(max_steps, 0.0) if self.active else 0
        self.stop()
        return ticks

    @property
    def progress(self) -> float:
        """How far the current run is towards rest, 0–1 (alpha falls geometrically)."""
        if not self.active:
            return 1.0
        low = math.log(self.params.alphaMin)
        return max(0.0, min(1.0, 1.0 - (low - math.log(max(self.alpha, 1e-12))) / low))


def factory(plane: Plane, seed: int) -> D3Simulation:
    """The Editor's layout factory in the page."""
    return D3Simulation(plane, seed)
