"""The halos around loop regions: which card pairs a region's halo joins (a tree over its
cards), the band drawn along each pair, its colours by κ, and its badge's words."""

from __future__ import annotations

import math
import weakref

from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Plane
from bendscope.bend.render import theme

# keyed by the plane; the topology result is held to tell a newer one apart
_TREES: weakref.WeakKeyDictionary[Plane, tuple[int, object, dict[str, list[tuple[str, str]]]]] = (
    weakref.WeakKeyDictionary()
)


def halo_trees(plane: Plane, topology: Topology) -> dict[str, list[tuple[str, str]]]:
    """For each SCC with κ > 0, the node pairs of a spanning tree of its arcs (breadth
    first from its first member, arcs taken both ways): the halo's bands. Memoised per
    plane structure and topology result. O(n + m)."""
    cached = _TREES.get(plane)
    if cached is not None and cached[0] == plane.version and cached[1] is topology.result:
        return cached[2]
    sccs = [s for s in topology.result["sccs"] if s["kappa"] > 0]
    comp = {n: s["id"] for s in sccs for n in s["nodes"]}
    adjacent: dict[str, list[str]] = {}
    for e in plane.edges.values():
        directed = e.props.kind in ("causal", "temporal") and e.a != e.b
        if directed and comp.get(e.a) is not None and comp.get(e.a) == comp.get(e.b):
            adjacent.setdefault(e.a, []).append(e.b)
            adjacent.setdefault(e.b, []).append(e.a)
    trees: dict[str, list[tuple[str, str]]] = {}
    for s in sccs:
        members = [n for n in s["nodes"] if n in plane.nodes]
        pairs: list[tuple[str, str]] = []
        if members:
            seen = {members[0]}
            queue = [members[0]]
            for here in queue:
                for there in adjacent.get(here, ()):
                    if there not in seen and there in plane.nodes:
                        seen.add(there)
                        queue.append(there)
                        pairs.append((here, there))
        trees[s["id"]] = pairs
    _TREES[plane] = (plane.version, topology.result, trees)
    return trees


def band(x0: float, y0: float, x1: float, y1: float, half: float) -> tuple[float, ...]:
    """The quad of half-width ``half`` around segment (x0, y0)–(x1, y1), clockwise on
    screen (y down: a positive shoelace sum), or () for a zero-length segment.

    >>> band(0, 0, 10, 0, 2)
    (0.0, -2.0, 10.0, -2.0, 10.0, 2.0, 0.0, 2.0)
    """
    dx, dy = x1 - x0, y1 - y0
    length = math.sqrt(dx * dx + dy * dy)  # (not hypot: the page computes the same doubles)
    if length == 0:
        return ()
    nx, ny = -dy / length * half, dx / length * half
    quad = (x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny)
    area = sum(quad[2 * i] * quad[(2 * i + 3) % 8] - quad[(2 * i + 2) % 8] * quad[2 * i + 1] for i in range(4))
    if area < 0:
        quad = (quad[6], quad[7], quad[4], quad[5], quad[2], quad[3], quad[0], quad[1])
    return tuple(float(v) for v in quad)


def halo_fill(kappa: int) -> tuple[str, str]:
    level = min(max(kappa, 1), 3)
    return theme.HALO_FILL[level], theme.HALO_STROKE[level]


def badge_text(kappa: int, approximate: bool, lower: int | None = None) -> str:
    """A halo's badge: ``κ=2``, or the bounds ``κ=1–3`` past the engine's work budget
    (``lower``: the lower bound; κ is then the smallest cut found).

    >>> badge_text(2, False), badge_text(3, True, 1)
    ('κ=2', 'κ=1–3')
    """
    if approximate and lower is not None and lower != kappa:
        return f"κ={lower}–{kappa}"
    return f"κ{'≈' if approximate else '='}{kappa}"
