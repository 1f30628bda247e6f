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
from itertools import chain
from operator import attrgetter

from bendscope.bend.model.elements import Edge, Node, Plane
from bendscope.kappa.steps import Steps, finish


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
    return finish(kernel_graph_steps(plane, gap))


def kernel_graph_steps(plane: Plane, gap: float, chunk: int = 0) -> Steps[KernelGraph]:
    """:func:`kernel_graph` in steps: a pause after every ``chunk`` cards and edges (none when
    0); the same graph however it is sliced. O(n + m)."""
    nodes = list(plane.nodes.values())
    ids = tuple(n.id for n in nodes)
    index = {node_id: i for i, node_id in enumerate(ids)}
    radius: list[float] = []
    for k, node in enumerate(nodes):
        radius.append(card_radius(node))
        if chunk and k % chunk == chunk - 1:
            yield
    if chunk:
        yield
    degree = [0] * len(nodes)
    pairs, rest = array("i"), array("d")
    seen: set[int] = set()  # (a pair as one int: a set of ints is made and freed faster than of tuples)
    for k, edge in enumerate(plane.edges.values()):
        if chunk and k % chunk == chunk - 1:
            yield
        i, j = index.get(edge.a), index.get(edge.b)
        if i is None or j is None or i == j:
            continue
        key = min(i, j) * len(nodes) + max(i, j)
        if key in seen:
            continue
        seen.add(key)
        pairs.extend((i, j))
        rest.append(radius[i] + radius[j] + gap)
        degree[i] += 1
        degree[j] += 1
    if chunk:
        yield
    stiffness = array("d")
    for s in range(0, len(pairs), 2):
        stiffness.append(1.0 / min(degree[pairs[s]], degree[pairs[s + 1]]))
        if chunk and s % (chunk * 2) == chunk * 2 - 2:
            yield
    return KernelGraph(ids=ids, pairs=pairs, rest=rest, k=stiffness)


@dataclass
class KernelAhead:
    """A plane's kernel graph and its shape made ahead, in steps (:meth:`steps`: a document
    coming in has them before it is installed, so that the layout's first hand-off to the
    worker only sends them); :meth:`holds` says whether they are still the plane's."""

    plane: Plane
    version: int
    gap: float
    sizes: array[float]
    graph: KernelGraph
    shape: KernelShape

    @classmethod
    def steps(cls, plane: Plane, gap: float, chunk: int = 512) -> Steps[KernelAhead]:
        """Make them for ``plane`` as it is now (a pause after every ``chunk`` cards or edges). O(n + m)."""
        graph = yield from kernel_graph_steps(plane, gap, chunk)
        yield
        shape = yield from KernelShape.steps(plane, graph, chunk)
        return cls(plane, plane.version, gap, array("d", shape.sizes), graph, shape)

    def holds(self, plane: Plane, gap: float) -> bool:
        """Whether they are ``plane``'s graph and shape now: the same plane object, not changed
        since (its version, its cards' sizes) and the same gap. O(n).

        >>> from bendscope.bend.model.elements import Edge, Node, Plane
        >>> p = Plane("p", "P")
        >>> for i in "ab":
        ...     p.add_node(Node(i, i, width=80.0, height=60.0))
        >>> p.add_edge(Edge("1", "a", "b"))
        >>> ahead = finish(KernelAhead.steps(p, 110.0, chunk=1))
        >>> ahead.holds(p, 110.0), ahead.holds(p, 100.0), ahead.graph == kernel_graph(p, 110.0)
        (True, False, True)
        >>> p.nodes["a"].width = 90.0
        >>> ahead.holds(p, 110.0)
        False
        """
        return (
            plane is self.plane and plane.version == self.version and gap == self.gap
            and card_sizes(plane) == self.sizes
        )  # fmt: skip


@dataclass
class KernelShape:
    """What a kernel's graph was made from (see :func:`kernel_growth`): the plane's node ids
    (and their indices) and edges in its order, the cards' sizes, and the springs' card pairs."""

    ids: list[str]
    index: dict[str, int]
    edges: list[Edge]
    sizes: array[float]
    springs: set[tuple[int, int]]
    dangling: bool  # an edge joins a card not on the plane

    @classmethod
    def of(cls, plane: Plane, graph: KernelGraph) -> KernelShape:
        """The shape of ``graph``, just made from ``plane``. O(n + m)."""
        return finish(cls.steps(plane, graph))

    @classmethod
    def steps(cls, plane: Plane, graph: KernelGraph, chunk: int = 0) -> Steps[KernelShape]:
        """:meth:`of` in steps: a pause after every ``chunk`` edges or springs (none when 0)."""
        pairs = graph.pairs
        index = {node_id: i for i, node_id in enumerate(graph.ids)}
        edges = list(plane.edges.values())
        dangling = False
        for k, e in enumerate(edges):
            dangling = dangling or e.a not in index or e.b not in index
            if chunk and k % (chunk * 4) == chunk * 4 - 1:
                yield
        springs: set[tuple[int, int]] = set()
        for s in range(len(pairs) // 2):
            i, j = pairs[2 * s], pairs[2 * s + 1]
            springs.add((i, j) if i < j else (j, i))
            if chunk and s % (chunk * 2) == chunk * 2 - 1:
                yield
        return cls(list(graph.ids), index, edges, card_sizes(plane), springs, dangling)


@dataclass(frozen=True)
class KernelGrowth:
    """Cards and springs added at the end of a kernel's graph: the new cards' ids, the new
    springs' index pairs and rest lengths (their stiffness, and every spring's, follow from the
    degrees: :func:`grown`)."""

    ids: tuple[str, ...]
    pairs: array[int]
    rest: array[float]


_SIZE = attrgetter("width", "height")


def card_sizes(plane: Plane) -> array[float]:
    """Every card's width and height, in the plane's order. O(n), in C."""
    return array("d", chain.from_iterable(map(_SIZE, plane.nodes.values())))


def kernel_growth(plane: Plane, shape: KernelShape, gap: float) -> KernelGrowth | None:
    """What turns the kernel graph of ``shape`` into ``plane``'s when ``plane`` only gained
    cards and edges at the end of its order (the cards held kept their sizes); None when it
    must be made again (a card or edge went, moved in the order or changed its cards, a card
    changed size). ``shape`` is brought up to date (with None: left to be made again). O(n)
    comparisons, O(changes) work; what it gives equals :func:`kernel_graph` of the plane
    (tests/bend/layout/test_kernel_growth.py).

    >>> from bendscope.bend.model.elements import Edge, Node, Plane
    >>> p = Plane("p", "P")
    >>> for i in "ab":
    ...     p.add_node(Node(i, i, width=80.0, height=60.0))
    >>> p.add_edge(Edge("1", "a", "b"))
    >>> shape = KernelShape.of(p, kernel_graph(p, 110.0))
    >>> p.add_node(Node("c", "c", width=80.0, height=60.0))
    >>> p.add_edge(Edge("2", "b", "c"))
    >>> g = kernel_growth(p, shape, 110.0)
    >>> g.ids, list(g.pairs), [round(r) for r in g.rest]
    (('c',), [1, 2], [185])
    """
    ids = list(plane.nodes)
    held = len(shape.ids)
    if len(ids) < held or ids[:held] != shape.ids:
        return None
    sizes = card_sizes(plane)
    if sizes[: 2 * held] != shape.sizes:
        return None
    edges = list(plane.edges.values())
    if len(edges) < len(shape.edges) or edges[: len(shape.edges)] != shape.edges:
        return None  # (an edge went or was replaced: springs and their order may change)
    if shape.dangling and len(ids) > held:
        return None  # (an edge waiting for a card: kernel_graph skips it until the card comes)
    index, springs = shape.index, shape.springs
    for k, node_id in enumerate(ids[held:]):
        index[node_id] = held + k
    pairs, rest = array("i"), array("d")
    for edge in edges[len(shape.edges) :]:
        i, j = index.get(edge.a), index.get(edge.b)
        if i is None or j is None:
            return None
        if i == j:
            continue
        key = (min(i, j), max(i, j))
        if key in springs:
            continue
        springs.add(key)
        pairs.extend((i, j))
        rest.append(_radius(sizes, i) + _radius(sizes, j) + gap)
    shape.ids, shape.edges, shape.sizes = ids, edges, sizes
    return KernelGrowth(tuple(ids[held:]), pairs, rest)


def _radius(sizes: array[float], i: int) -> float:
    return math.hypot(sizes[2 * i] / 2, sizes[2 * i + 1] / 2) * 0.75


def grown(graph: KernelGraph, growth: KernelGrowth) -> KernelGraph:
    """``graph`` with ``growth``: its cards and springs appended, every spring's stiffness
    ``1 / min(degree)`` again — what the layout worker does with a ``grow`` message. O(n + m)."""
    pairs = array("i", graph.pairs)
    pairs.extend(growth.pairs)
    degree = [0] * (len(graph.ids) + len(growth.ids))
    for v in pairs:
        degree[v] += 1
    return KernelGraph(
        ids=graph.ids + growth.ids,
        pairs=pairs,
        rest=graph.rest + growth.rest,
        k=array("d", (1.0 / min(degree[pairs[2 * s]], degree[pairs[2 * s + 1]]) for s in range(len(pairs) // 2))),
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


def changed_cards(
    index: dict[str, int], cards: set[str], free: set[str] | None, free_then: set[str] | None
) -> tuple[list[int], float | None]:
    """What a patch of the kernel's state gives (the layout worker's ``run`` with a patch): the
    sorted kernel ``index`` of ``cards`` (those Python changed, held now or then) and of the
    cards whose freedom changed — and, when a local reheat follows a run over the whole plane
    (``free`` given, ``free_then`` None) or the other way round, the held flag every other card
    not pinned takes (OUTSIDE, or FREE), else None. So a drag that starts from rest sends its
    region, not every card. O(cards + the regions given)

    >>> index = {n: i for i, n in enumerate("abcde")}
    >>> changed_cards(index, {"e"}, {"a", "b"}, None)
    ([0, 1, 4], 2.0)
    >>> changed_cards(index, {"e"}, None, {"a", "b"})
    ([0, 1, 4], 0.0)
    >>> changed_cards(index, {"e", "z"}, {"a", "b"}, {"b", "c"})
    ([0, 2, 4], None)
    """
    outside: float | None = None
    every = set(cards)
    if free is not None and free_then is not None:
        every |= free ^ free_then
    elif free is not None:
        every |= free
        outside = OUTSIDE
    elif free_then is not None:
        every |= free_then
        outside = FREE
    return sorted(index[n] for n in every if n in index), outside
