"""What the page's d3-force kernel (static/layout.js) is given: parameters and a plane's graph.

DOM-free, so it is tested under CPython (tests/test_layout_kernel.py runs the kernel in
node on exactly these arrays); ``app.d3layout`` only hands them to the kernel.

Arrays, all flat:
  state  — per node ``x, y, vx, vy, half width, half height, held`` (see kernel_state)
  pairs  — per spring the two node indices; one spring per pair of cards, whatever
           the number, kinds and directions of the edges between them
  rest   — per spring its rest length: the two cards' radii plus ``gap``
  k      — per spring its stiffness, ``1 / min(degree)`` (d3's default: hubs stay put)
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

from bendscope.bend.model.elements import Node, Plane


@dataclass(frozen=True)
class ForceParams:
    """The kernel's parameters; the names are the ones static/layout.js reads."""

    alphaDecay: float = 0.04  # ≈ 170 ticks from 1 to rest
    alphaMin: float = 0.001
    velocityDecay: float = 0.3
    charge: float = -2000.0  # many-body strength (d3: force ∝ strength / distance)
    chargeNear: float = 40.0  # below this distance the push stops growing (coincident cards stay near)
    chargeReach: float = 2500.0
    theta: float = 1.2  # Barnes–Hut accuracy (d3's default 0.9; coarser is faster and looks the same here)
    padding: float = 24.0  # the gap kept between cards
    collide: float = 0.8
    centre: float = 0.09  # the pull to the origin; weaker for larger planes (see centre_for)
    loneCentre: float = 0.15  # the pull on cards without edges (nothing else keeps them near)
    gap: float = 110.0  # spring rest length beyond the two cards' radii
    reheat: float = 0.5

    def for_plane(self, nodes: int) -> dict[str, float]:
        """The parameters as the kernel takes them for a plane of ``nodes`` cards.

        >>> ForceParams().for_plane(4)["centre"], round(ForceParams().for_plane(10_000)["centre"], 4)
        (0.09, 0.003)
        >>> ForceParams().for_plane(1_000)["chargeReach"], round(ForceParams().for_plane(10_000)["chargeReach"])
        (2500.0, 7906)
        """
        values = {name: float(getattr(self, name)) for name in self.__dataclass_fields__}
        values["centre"] = centre_for(self, nodes)
        values["chargeReach"] = reach_for(self, nodes)
        return values


#: planes up to this many cards use ``chargeReach`` as it is
REACH_NODES = 1000


def reach_for(params: ForceParams, nodes: int) -> float:
    """How far the many-body push reaches on a plane of ``nodes`` cards: ``chargeReach``, and
    in proportion to the plane's width (√n) beyond :data:`REACH_NODES`. A fixed reach let the
    springs of a large, densely linked plane press its middle together: 3,863 pairs of cards
    of a 10,000-node giant loop still overlapped when it cooled (250 with 5,000 px)."""
    return params.chargeReach * max(1.0, math.sqrt(nodes / REACH_NODES))


def centre_for(params: ForceParams, nodes: int) -> float:
    """The pull to the origin for a plane of ``nodes`` cards: enough to keep components in
    view, weak enough not to press a large plane together."""
    return min(params.centre, 0.3 / math.sqrt(max(1, nodes)))


@dataclass(frozen=True)
class KernelGraph:
    """A plane's structure in kernel form (``ids[i]`` is the node at index ``i``)."""

    ids: tuple[str, ...]
    pairs: array[int]
    rest: array[float]
    k: array[float]


def card_radius(node: Node) -> float:
    """The spring's notion of a card's size: three quarters of its half diagonal."""
    return math.hypot(node.width / 2, node.height / 2) * 0.75


def kernel_graph(plane: Plane, gap: float) -> KernelGraph:
    """Springs for ``plane``: one per linked pair of distinct cards. O(n + m).

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in "abc":
    ...     p.add_node(Node(i, i, width=80.0, height=60.0))
    >>> for e in (Edge("1", "a", "b"), Edge("2", "b", "a"), Edge("3", "b", "c"), Edge("4", "c", "c")):
    ...     p.add_edge(e)
    >>> g = kernel_graph(p, 110.0)
    >>> g.ids, list(g.pairs), [round(r) for r in g.rest], list(g.k)
    (('a', 'b', 'c'), [0, 1, 1, 2], [185, 185], [1.0, 1.0])
    """
    nodes = list(plane.nodes.values())
    ids = tuple(n.id for n in nodes)
    index = {node_id: i for i, node_id in enumerate(ids)}
    radius = [card_radius(n) for n in nodes]
    degree = [0] * len(nodes)
    springs: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for edge in plane.edges.values():
        i, j = index.get(edge.a), index.get(edge.b)
        if i is None or j is None or i == j:
            continue
        key = (min(i, j), max(i, j))
        if key in seen:
            continue
        seen.add(key)
        springs.append((i, j))
        degree[i] += 1
        degree[j] += 1
    return KernelGraph(
        ids=ids,
        pairs=array("i", (v for pair in springs for v in pair)),
        rest=array("d", (radius[i] + radius[j] + gap for i, j in springs)),
        k=array("d", (1.0 / min(degree[i], degree[j]) for i, j in springs)),
    )


#: the kernel's held flags: free, held (pinned or dragged), held by a local reheat's region
FREE, HELD, OUTSIDE = 0.0, 1.0, 2.0


def kernel_state(nodes: Iterable[Node], fixed: set[str], free: set[str] | None = None) -> array[float]:
    """The state array for ``nodes`` in kernel order. Pinned and ``fixed`` nodes stay put
    (HELD); so does every node outside ``free`` when it is given (a local reheat's region:
    OUTSIDE), except that separation may move one to make way for a free card on top of it.
    O(n).

    >>> from bendscope.bend.model.elements import Node
    >>> a, b, c = Node("a"), Node("b", pinned=True), Node("c")
    >>> list(kernel_state([a, b, c], set(), {"a"})[6::7])
    [0.0, 1.0, 2.0]
    """
    values = array("d")
    for n in nodes:
        still = HELD if n.pinned or n.id in fixed else OUTSIDE if free is not None and n.id not in free else FREE
        values.extend((n.x, n.y, n.vx, n.vy, n.width / 2, n.height / 2, still))
    return values


def structure_key(plane: Plane) -> tuple[int, tuple[float, ...]]:
    """Changes whenever the kernel's graph must be rebuilt: the plane's version (nodes and
    edges added or removed) and every card's size."""
    return (plane.version, tuple(v for n in plane.nodes.values() for v in (n.width, n.height)))
