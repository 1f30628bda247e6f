"""The halos around loop regions: which card pairs a region's halo joins (a tree over its
cards), the band drawn along each pair, its colours by κ, and its badge's words."""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping

from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Plane
from bendscope.bend.render import theme
from bendscope.kappa.steps import Steps, finish

# keyed by the plane; the topology result is held to tell a newer one apart
_TREES: weakref.WeakKeyDictionary[Plane, tuple[int, object, int, dict[str, list[tuple[str, str]]]]] = (
    weakref.WeakKeyDictionary()
)


def halo_trees(plane: Plane, topology: Topology, epoch: int = 0) -> dict[str, list[tuple[str, str]]]:
    """For each SCC with κ > 0, the node pairs of a spanning tree of its arcs (taken both
    ways): the halo's bands. The tree is the shortest one for the cards' positions when it is
    made (a minimum spanning tree, Kruskal's), so a region reads as one shape with as little
    band as its arcs allow — a ring laid out in a row is joined along the row, not across it.
    Memoised per plane structure, topology result and ``epoch`` (raise it when the cards have
    moved a lot: a layout at rest, an arrangement). O(m log m) when made.

    >>> from bendscope.bend.kappa_view.topology_cache import TopologyCache
    >>> from bendscope.bend.model.elements import Edge, EdgeProps, Node
    >>> p = Plane("p", "P")
    >>> for k in range(4):
    ...     p.add_node(Node(f"n{k}", f"n{k}", x=300.0 * k, y=0.0))
    >>> for k in range(4):
    ...     p.add_edge(Edge(f"e{k}", f"n{k}", f"n{(k + 1) % 4}", EdgeProps("", "causal")))
    >>> sorted(sorted(pair) for pair in halo_trees(p, TopologyCache().get(p))["scc-0"])
    [['n0', 'n1'], ['n1', 'n2'], ['n2', 'n3']]
    """
    cached = _TREES.get(plane)
    if cached is not None and cached[0] == plane.version and cached[1] is topology.result and cached[2] == epoch:
        return cached[3]
    trees = finish(tree_steps(plane, topology))
    _TREES[plane] = (plane.version, topology.result, epoch, trees)
    return trees


def tree_steps(
    plane: Plane, topology: Topology, places: Mapping[str, tuple[float, float]] | None = None
) -> Steps[dict[str, list[tuple[str, str]]]]:
    """:func:`halo_trees`' trees as steps (``kappa.steps``: a pause after each region), for the
    cards where they are or, with ``places``, where they are about to be (an arrangement's
    centres: its halos made ahead, between frames). O(m log m)."""
    sccs = [s for s in topology.result["sccs"] if s["kappa"] > 0]
    comp = {n: s["id"] for s in sccs for n in s["nodes"]}
    nodes = plane.nodes
    at = places if places is not None else {n: (node.x, node.y) for n, node in nodes.items()}
    arcs: dict[str, list[tuple[float, int, str, str]]] = {}
    for e in plane.edges.values():
        directed = e.props.kind in ("causal", "temporal") and e.a != e.b
        region = comp.get(e.a) if directed else None
        if region is not None and region == comp.get(e.b) and e.a in at and e.b in at:
            (ax, ay), (bx, by) = at[e.a], at[e.b]
            found = arcs.setdefault(region, [])
            found.append(((ax - bx) * (ax - bx) + (ay - by) * (ay - by), len(found), e.a, e.b))
    yield
    trees: dict[str, list[tuple[str, str]]] = {}
    parent: dict[str, str] = {}  # union-find over the cards (the regions are disjoint)
    size: dict[str, int] = {}
    for s in sccs:
        pairs: list[tuple[str, str]] = []
        for _, _, one, other in sorted(arcs.get(s["id"], ())):
            r1, r2 = _root(parent, one), _root(parent, other)
            if r1 != r2:
                if size.get(r1, 1) > size.get(r2, 1):  # (the smaller set joins the larger)
                    r1, r2 = r2, r1
                parent[r1] = r2
                size[r2] = size.get(r1, 1) + size.get(r2, 1)
                pairs.append((one, other))
        trees[s["id"]] = pairs
        yield
    return trees


def keep_trees(plane: Plane, result: object, epoch: int, trees: dict[str, list[tuple[str, str]]]) -> None:
    """Hold ``trees`` (made ahead by :func:`tree_steps` for the cards' places now) as
    :func:`halo_trees`' answer for ``plane`` at its version, the topology ``result`` and ``epoch``."""
    _TREES[plane] = (plane.version, result, epoch, trees)


def _root(parent: dict[str, str], n: str) -> str:
    """``n``'s set in the union-find ``parent`` (path halving)."""
    up = parent.get(n, n)
    while up != n:
        above = parent.get(up, up)
        parent[n] = above
        n, up = up, above
    return n


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
