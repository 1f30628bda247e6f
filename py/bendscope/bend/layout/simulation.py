"""Force layout in the manner of BendScript and d3-force.

Forces: pairwise repulsion within a radius (grid-bucketed, so O(n·k)), card
overlap separation, springs along edges towards a rest gap measured between card
borders, a weak pull to the origin, velocity damping and a speed cap. Alpha
cools geometrically (d3's alphaDecay) so the layout comes to rest; the caller
stops drawing once ``step`` returns False. No randomness except a seeded
generator used to separate coincident nodes, so the same plane + seed gives the
same positions.
"""

from __future__ import annotations

import math
import random
import sys
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from bendscope.bend.model.elements import COORD_LIMIT, Edge, Node, Plane


class LayoutEngine(Protocol):
    """What the editor needs from a layout: the pure-Python ``Simulation`` here (CPython,
    tests), or the page's d3-force kernel (``app.d3layout``: in a worker, or on the main
    thread). Positions live on the plane's nodes; ``fixed`` holds the nodes being dragged
    (pinned ones stay too); ``free`` is None (every other node may move) or the region a
    local reheat lets move (see :func:`reheat_region`)."""

    plane: Plane
    alpha: float
    fixed: set[str]
    free: set[str] | None
    #: how long one tick took lately, in ms (0 where unknown)
    tick_ms: float
    #: True: it moves on its own (a worker) and ``step`` only takes what it computed, so the
    #: page calls ``step`` once per frame; False: it moves only inside ``step`` (slices)
    background: bool

    @property
    def active(self) -> bool: ...

    def step(self, budget_ms: float = 0.0) -> bool: ...

    def settle(self, max_steps: int = 2000) -> int: ...

    def reheat(self, alpha: float | None = None, around: Iterable[str] | None = None, moved: bool = True) -> None:
        """Let the layout move again (see :func:`reheat_region`). ``moved``: Python changed
        positions of cards that are not held since the engine last saw them (an edit); False
        for a drag, where only the held cards moved."""

    def stop(self) -> None: ...

    def pause(self) -> None:
        """Stop moving for now, keeping alpha (frozen, another plane shown); the next ``step``
        goes on from the plane's positions as they are then."""

    def close(self) -> None:
        """This engine will not be used again (its document was replaced)."""


#: a local reheat lets the nodes within this many edges of what changed move
LOCAL_HOPS = 2
#: … starting from this alpha (a whole-plane reheat starts from ``reheat``, 0.5)
LOCAL_ALPHA = 0.3


@dataclass
class _Adjacency:
    """A plane's adjacency as of ``version``, with the node ids and edges it was made from."""

    version: int
    found: dict[str, list[str]]
    ids: list[str]
    edges: list[Edge]
    dangling: bool  # an edge with an end not on the plane (a card added later would join it)


# keyed by the plane object
_ADJACENCY: weakref.WeakKeyDictionary[Plane, _Adjacency] = weakref.WeakKeyDictionary()


def adjacency(plane: Plane) -> dict[str, list[str]]:
    """Each node's neighbours over edges of every kind, both ways; memoised per plane
    structure (``plane.version``). O(n + m); when the plane only gained cards and edges at the
    end of its order since (an agent's change), O(n) comparisons in C and O(changes) work —
    the memo is grown in place.

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in "abc":
    ...     p.add_node(Node(i))
    >>> p.add_edge(Edge("1", "a", "b"))
    >>> adjacency(p)["a"], adjacency(p)["c"]
    (['b'], [])
    >>> p.add_node(Node("d"))
    >>> p.add_edge(Edge("2", "c", "d"))
    >>> adjacency(p)["c"], adjacency(p)["d"]
    (['d'], ['c'])
    """
    cached = _ADJACENCY.get(plane)
    if cached is not None and cached.version == plane.version:
        return cached.found
    ids, edges = list(plane.nodes), list(plane.edges.values())
    if cached is not None and not cached.dangling and _appended(cached, ids, edges):
        found, fresh = cached.found, edges[len(cached.edges) :]
        for node_id in ids[len(cached.ids) :]:
            found[node_id] = []
    else:
        found, fresh = {node_id: [] for node_id in ids}, edges
    dangling = False  # (a memo grown had none)
    for edge in fresh:
        if edge.a != edge.b and edge.a in found and edge.b in found:
            found[edge.a].append(edge.b)
            found[edge.b].append(edge.a)
        elif edge.a not in found or edge.b not in found:
            dangling = True
    _ADJACENCY[plane] = _Adjacency(plane.version, found, ids, edges, dangling)
    return found


def _appended(cached: _Adjacency, ids: list[str], edges: list[Edge]) -> bool:
    """Whether ``ids`` and ``edges`` are the cached ones with more at the end."""
    held, known = len(cached.ids), len(cached.edges)
    return len(ids) >= held and len(edges) >= known and ids[:held] == cached.ids and edges[:known] == cached.edges


def neighbourhood(plane: Plane, seeds: Iterable[str], hops: int = LOCAL_HOPS) -> set[str]:
    """The nodes within ``hops`` edges of ``seeds`` (seeds not on the plane are skipped).
    O(size of the region + the edges it touches), after the memoised adjacency.

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in "abcde":
    ...     p.add_node(Node(i))
    >>> for k, (a, b) in enumerate(("ab", "bc", "cd", "de")):
    ...     p.add_edge(Edge(str(k), a, b))
    >>> sorted(neighbourhood(p, ["a"])), sorted(neighbourhood(p, ["e", "gone"], hops=1))
    (['a', 'b', 'c'], ['d', 'e'])
    """
    return local_region(plane, seeds, hops, budget=sys.maxsize)


#: while a local reheat runs, its cards are drawn over a layer of the rest when at most this
#: share of the plane (or 64 cards) may move (see ``moving_cards``)
MOVING_SHARE = 0.25


def moving_cards(free: set[str] | None, fixed: set[str], total: int) -> frozenset[str] | None:
    """The cards a running layout may move — a local reheat's region and the held (dragged)
    cards — when they are few enough for the page to draw the rest once and only them per frame;
    None when every card may move (a run over the whole plane) or too many may. O(region)

    >>> sorted(moving_cards({"a", "b"}, {"c"}, 1000))
    ['a', 'b', 'c']
    >>> moving_cards(None, {"c"}, 1000) is None, moving_cards(set(map(str, range(300))), set(), 1000) is None
    (True, True)
    """
    if free is None:
        return None
    cards = frozenset(free | fixed)
    return cards if len(cards) <= max(64, total * MOVING_SHARE) else None


def drag_moving(sim: LayoutEngine, held: Iterable[str]) -> frozenset[str] | None:
    """The cards a drag of ``held`` will let the layout move (:func:`moving_cards` of the local
    reheat its first move makes), known at the press: the page can draw the rest once then,
    not in the drag's first frame. O(region)

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in "abcd":
    ...     p.add_node(Node(i))
    >>> for k, (a, b) in enumerate(("ab", "bc", "cd")):
    ...     p.add_edge(Edge(str(k), a, b))
    >>> sim = Simulation(p)
    >>> sim.stop()
    >>> sorted(drag_moving(sim, ["a"]))
    ['a', 'b', 'c']
    """
    held = set(held)
    region = reheat_region(sim.active, sim.free, sim.plane, held)
    return moving_cards(region, sim.fixed | held, len(sim.plane.nodes))


#: a local reheat frees, nearest first, cards costing at most this much to redraw per frame —
#: a card counts one plus its edges (see :func:`local_region`)
LOCAL_BUDGET = 600


def local_region(plane: Plane, seeds: Iterable[str], hops: int = LOCAL_HOPS, budget: int = LOCAL_BUDGET) -> set[str]:
    """The cards a local reheat around ``seeds`` frees: the seeds (those on the plane), then
    hop by hop the cards within ``hops`` edges of them while the region's cost — one per card
    plus its edges, what the page redraws each frame for a card that may move — stays within
    ``budget``. The hop that would pass it is taken in part, its cards with the fewest edges
    first (ties in the order they were reached), and the region ends there. So a card with
    hundreds of neighbours (a hub) frees its quietest neighbours, not the thousand cards two
    edges away (and a card whose own edges pass the budget moves alone); a card of an ordinary
    graph frees its whole two-hop neighbourhood as before. Deterministic: the seeds are walked
    in sorted order, each card's neighbours in the plane's edge order.
    O(size of the hops reached + the edges they touch + k log k for the hop taken in part),
    after the memoised adjacency.

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in ["hub", "x", "y", *map(str, range(6))]:
    ...     p.add_node(Node(i))
    >>> for k in range(6):  # the hub: six leaves, and x, which has a neighbour y of its own
    ...     p.add_edge(Edge(f"e{k}", "hub", str(k)))
    >>> p.add_edge(Edge("hx", "x", "hub")); p.add_edge(Edge("xy", "x", "y"))
    >>> sorted(local_region(p, ["hub"]))  # within budget: the two-hop neighbourhood
    ['0', '1', '2', '3', '4', '5', 'hub', 'x', 'y']
    >>> sorted(local_region(p, ["hub"], budget=16))  # hub 8, each leaf 2: x (3) waits
    ['0', '1', '2', '3', 'hub']
    >>> sorted(local_region(p, ["y"], budget=5)), sorted(local_region(p, ["gone"]))
    (['x', 'y'], [])
    """
    around = adjacency(plane)
    frontier = sorted({s for s in seeds if s in around})  # (sorted: a set's order changes per process)
    region = set(frontier)
    cost = sum(1 + len(around[s]) for s in region)
    for _ in range(hops):
        step: list[str] = []
        for here in frontier:
            for there in around[here]:
                if there not in region:
                    region.add(there)
                    step.append(there)
        added = sum(1 + len(around[n]) for n in step)
        if cost + added <= budget:
            cost += added
            frontier = step
            continue
        region.difference_update(step)
        order = sorted(range(len(step)), key=lambda k: (len(around[step[k]]), k))
        for k in order:
            cost += 1 + len(around[step[k]])
            if cost > budget:
                break
            region.add(step[k])
        break
    return region


def reheat_region(active: bool, free: set[str] | None, plane: Plane, around: Iterable[str] | None) -> set[str] | None:
    """Which nodes a reheat lets move: the rule every layout engine follows.

    A reheat without ``around`` (an import, a plane laid out afresh) frees the whole plane
    (None). A local one (an edit, each move of a drag) frees the :func:`local_region` of
    ``around`` — the :data:`LOCAL_HOPS` neighbourhood, nearest first, within
    :data:`LOCAL_BUDGET` — and holds everything else where it stands, so an edit never
    reshuffles the graph and a drag redraws about as much whatever the degree of the card
    held; if a run is still going, its region grows (a run over the whole plane stays whole).
    O(region).

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in "abcdef":
    ...     p.add_node(Node(i))
    >>> for k, (a, b) in enumerate(("ab", "bc", "cd", "de", "ef")):
    ...     p.add_edge(Edge(str(k), a, b))
    >>> sorted(reheat_region(False, None, p, ["a"]))
    ['a', 'b', 'c']
    >>> sorted(reheat_region(True, {"a", "b", "c"}, p, ["f"]))
    ['a', 'b', 'c', 'd', 'e', 'f']
    >>> reheat_region(True, None, p, ["a"]) is None, reheat_region(False, {"a"}, p, None) is None
    (True, True)
    """
    if around is None:
        return None
    region = local_region(plane, around)
    if active:
        return None if free is None else free | region
    return region


#: makes the layout engine of a plane, given the layout seed
LayoutFactory = Callable[[Plane, int], LayoutEngine]

FRAME_MS = 1000 / 60
FRAME_MARGIN_MS = 4.0  # what the browser needs of a frame interval besides our paint (render, composite, input)


def slice_budget(paint_ms: float, tick_ms: float) -> float:
    """How long a layout slice may run after a frame whose paint took ``paint_ms``, when one
    tick takes ``tick_ms``: what is left of the frame interval (60 fps), or of two (30 fps)
    when not even one tick fits into one. The page runs the slice as a task of its own
    right after the frame.

    >>> round(slice_budget(2.5, 0.9), 1), round(slice_budget(7.0, 10.0), 1), slice_budget(40.0, 5.0)
    (10.2, 22.3, 1.0)
    """
    budget = FRAME_MS - paint_ms - FRAME_MARGIN_MS
    if tick_ms > budget:
        budget += FRAME_MS
    return max(1.0, budget)


@dataclass(frozen=True)
class LayoutParams:
    repulsion: float = 30000.0
    radius: float = 220.0
    collide_pad: float = 24.0
    collide: float = 0.6
    spring: float = 0.05
    rest_gap: float = 120.0
    centre: float = 0.004
    velocity_decay: float = 0.45
    max_speed: float = 48.0
    alpha_decay: float = 0.028
    alpha_min: float = 0.002
    reheat: float = 0.5
    component_gap: float = 80.0  # space kept between the discs of connected components
    component_push: float = 0.08
    max_components: int = 60  # beyond this many multi-node components the force is skipped


class Simulation:
    """The layout state of one plane (its alpha); nodes hold positions and velocities."""

    def __init__(self, plane: Plane, seed: int = 1, params: LayoutParams | None = None) -> None:
        self.plane = plane
        self.params = params or LayoutParams()
        self.rng = random.Random(seed)
        self.alpha = 1.0
        self.fixed: set[str] = set()  # dragged right now (pinned nodes are fixed too)
        self.free: set[str] | None = None  # a local reheat's region (None: every node may move)
        self.background = False  # it moves only inside step()
        self.tick_ms = 0.0  # not measured here (it is for the page's slices)
        self._components: tuple[int, list[list[int]]] | None = None  # (plane.version, groups)
        self._structure_cache: tuple[int, dict[str, int], list[tuple[int, int]]] | None = None

    @property
    def active(self) -> bool:
        return self.alpha >= self.params.alpha_min

    def reheat(self, alpha: float | None = None, around: Iterable[str] | None = None, moved: bool = True) -> None:
        """Let the layout move again: the whole plane, or (``around``) the neighbourhood of
        what changed (see :func:`reheat_region`). ``moved`` matters to engines that keep
        positions of their own (the worker)."""
        self.free = reheat_region(self.active, self.free, self.plane, around)
        default = self.params.reheat if around is None else LOCAL_ALPHA
        self.alpha = max(self.alpha, default if alpha is None else alpha)

    def stop(self) -> None:
        self.alpha = 0.0
        for node in self.plane.nodes.values():
            node.vx = node.vy = 0.0

    def pause(self) -> None:
        """Nothing moves between steps here."""

    def close(self) -> None:
        """Nothing to free."""

    def step(self, budget_ms: float = 0.0) -> bool:
        """Advance one tick (``budget_ms`` is for engines that tick several times per call);
        returns whether the layout is still moving. O(n·k + m).

        Pairs are found through a grid of ``radius``-sized cells, each pair once
        (a cell with itself and four forward neighbours); card border extents are
        computed only for pairs whose bounding circles may touch.
        """
        p = self.params
        if self.alpha < p.alpha_min:
            return False
        nodes = list(self.plane.nodes.values())
        n = len(nodes)
        fx = [0.0] * n  # forces, scaled by alpha
        fy = [0.0] * n
        cx_ = [0.0] * n  # collision pushes, not scaled by alpha (as d3's forceCollide)
        cy_ = [0.0] * n
        xs = [node.x for node in nodes]
        ys = [node.y for node in nodes]
        hw = [node.width / 2 for node in nodes]
        hh = [node.height / 2 for node in nodes]
        reach = [math.sqrt(a * a + b * b) for a, b in zip(hw, hh, strict=True)]
        cell = p.radius
        grid: dict[tuple[int, int], list[int]] = {}
        for i in range(n):
            grid.setdefault((math.floor(xs[i] / cell), math.floor(ys[i] / cell)), []).append(i)
        r2max = p.radius * p.radius
        rep = p.repulsion
        pad = p.collide_pad
        collide = p.collide
        sqrt = math.sqrt
        for (cx, cy), bucket in grid.items():
            others = [bucket]
            for key in ((cx + 1, cy), (cx - 1, cy + 1), (cx, cy + 1), (cx + 1, cy + 1)):
                other = grid.get(key)
                if other:
                    others.append(other)
            for k, i in enumerate(bucket):
                xi, yi, ri, wi, hi = xs[i], ys[i], reach[i], hw[i], hh[i]
                for o, other in enumerate(others):
                    for j in other[k + 1 :] if o == 0 else other:
                        dx = xs[j] - xi
                        dy = ys[j] - yi
                        d2 = dx * dx + dy * dy
                        if d2 >= r2max:
                            continue
                        if d2 < 1e-6:
                            angle = self.rng.random() * 2 * math.pi
                            dx, dy, d2 = math.cos(angle), math.sin(angle), 1.0
                        d = sqrt(d2)
                        f = rep / (d2 if d2 > 400.0 else 400.0)
                        if d < ri + reach[j] + pad:
                            adx = dx if dx >= 0 else -dx
                            ady = dy if dy >= 0 else -dy
                            # border extents along the centre line: the ray leaves a w×h box
                            # through a vertical side iff |dx|·h > |dy|·w (no division by 0)
                            ei = wi * d / adx if adx * hi > ady * wi else hi * d / ady
                            wj, hj = hw[j], hh[j]
                            ej = wj * d / adx if adx * hj > ady * wj else hj * d / ady
                            gap = d - ei - ej
                            if gap < pad:
                                push = (pad - gap) * collide / d
                                cx_[i] -= dx * push
                                cy_[i] -= dy * push
                                cx_[j] += dx * push
                                cy_[j] += dy * push
                        f /= d
                        ux = dx * f
                        uy = dy * f
                        fx[i] -= ux
                        fy[i] -= uy
                        fx[j] += ux
                        fy[j] += uy
        index, pairs = self._structure(nodes)
        spring, rest = p.spring, p.rest_gap
        for i, j in pairs:
            dx = xs[j] - xs[i]
            dy = ys[j] - ys[i]
            d = sqrt(dx * dx + dy * dy)
            if d < 1e-6:
                continue
            adx = dx if dx >= 0 else -dx
            ady = dy if dy >= 0 else -dy
            wi, hi, wj, hj = hw[i], hh[i], hw[j], hh[j]
            ei = wi * d / adx if adx * hi > ady * wi else hi * d / ady
            ej = wj * d / adx if adx * hj > ady * wj else hj * d / ady
            f = spring * (d - ei - ej - rest) / d
            ux = dx * f
            uy = dy * f
            fx[i] += ux
            fy[i] += uy
            fx[j] -= ux
            fy[j] -= uy
        self._separate_components(xs, ys, reach, cx_, cy_, index)
        alpha = self.alpha
        keep = 1.0 - p.velocity_decay
        vmax = p.max_speed
        centre = p.centre
        fixed = self.fixed
        free = self.free
        for i, node in enumerate(nodes):
            if node.pinned or node.id in fixed or (free is not None and node.id not in free):
                node.vx = node.vy = 0.0
                continue
            vx = (node.vx + (fx[i] - centre * xs[i]) * alpha + cx_[i]) * keep
            vy = (node.vy + (fy[i] - centre * ys[i]) * alpha + cy_[i]) * keep
            speed2 = vx * vx + vy * vy
            if speed2 > vmax * vmax:
                scale = vmax / sqrt(speed2)
                vx *= scale
                vy *= scale
            x = xs[i] + vx
            y = ys[i] + vy
            if not (-COORD_LIMIT <= x <= COORD_LIMIT and -COORD_LIMIT <= y <= COORD_LIMIT):
                # never a non-finite or out-of-range position (NaN fails every comparison)
                x, y, vx, vy = _bounded(x, xs[i]), _bounded(y, ys[i]), 0.0, 0.0
            node.vx = vx
            node.vy = vy
            node.x = x
            node.y = y
        self.alpha += (0.0 - self.alpha) * p.alpha_decay
        if self.alpha < p.alpha_min:
            self.stop()
            return False
        return True

    def _structure(self, nodes: list[Node]) -> tuple[dict[str, int], list[tuple[int, int]]]:
        """Node index and edge endpoint pairs, cached until the plane's structure changes."""
        version = self.plane.version
        cached = self._structure_cache
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        index = {node.id: i for i, node in enumerate(nodes)}
        pairs = []
        for edge in self.plane.edges.values():
            i, j = index.get(edge.a), index.get(edge.b)
            if i is not None and j is not None and i != j:
                pairs.append((i, j))
        self._structure_cache = (version, index, pairs)
        return index, pairs

    def components(self, index: dict[str, int]) -> list[list[int]]:
        """Weakly connected components with two or more nodes (node positions in
        ``self.plane.nodes`` order), cached until the plane's structure changes."""
        version = self.plane.version
        if self._components is not None and self._components[0] == version:
            return self._components[1]
        parent = list(range(len(index)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for edge in self.plane.edges.values():
            i, j = index.get(edge.a), index.get(edge.b)
            if i is not None and j is not None:
                parent[find(i)] = find(j)
        groups: dict[int, list[int]] = {}
        for i in range(len(index)):
            groups.setdefault(find(i), []).append(i)
        result = [g for g in groups.values() if len(g) > 1]
        self._components = (version, result)
        return result

    def _separate_components(
        self,
        xs: list[float],
        ys: list[float],
        reach: list[float],
        cx_: list[float],
        cy_: list[float],
        index: dict[str, int],
    ) -> None:
        """Push overlapping components apart as rigid discs (not scaled by alpha).

        O(n + c²) for c multi-node components; skipped beyond ``max_components``.
        """
        p = self.params
        groups = self.components(index)
        if len(groups) < 2 or len(groups) > p.max_components:
            return
        discs = []
        for g in groups:
            mx = sum(xs[i] for i in g) / len(g)
            my = sum(ys[i] for i in g) / len(g)
            radius = max(math.hypot(xs[i] - mx, ys[i] - my) + reach[i] for i in g)
            discs.append((mx, my, radius))
        for a in range(len(discs)):
            ax, ay, ar = discs[a]
            for b in range(a + 1, len(discs)):
                bx, by, br = discs[b]
                dx, dy = bx - ax, by - ay
                d = math.hypot(dx, dy)
                overlap = ar + br + p.component_gap - d
                if overlap <= 0:
                    continue
                if d < 1e-6:
                    dx, dy, d = 1.0, 0.0, 1.0
                push = overlap * p.component_push / d
                # the smaller component moves more
                wa = len(groups[b]) / (len(groups[a]) + len(groups[b]))
                for i in groups[a]:
                    cx_[i] -= dx * push * wa
                    cy_[i] -= dy * push * wa
                for i in groups[b]:
                    cx_[i] += dx * push * (1 - wa)
                    cy_[i] += dy * push * (1 - wa)

    def settle(self, max_steps: int = 2000) -> int:
        """Run to rest synchronously; returns the number of steps taken."""
        steps = 0
        while steps < max_steps and self.step():
            steps += 1
        self.stop()
        return steps


def _bounded(value: float, fallback: float) -> float:
    """``value`` clamped to ±COORD_LIMIT, or ``fallback`` (also clamped) when not a number."""
    if value != value:
        value = fallback if fallback == fallback else 0.0
    return max(-COORD_LIMIT, min(COORD_LIMIT, value))
