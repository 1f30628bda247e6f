"""Arrange: a layered drawing of a causal plane ("Arrange left to right / top to bottom").

The condensation DAG of the plane's causal and temporal arcs is drawn in layers, causes
before effects: each strongly connected component (a feedback loop) is one block whose
cards stay together, every other card is a block of its own. Small loops are drawn in
layers inside their block too (the back arcs of the loop point against the reading
direction), unless that drawing is over twice the area of compact rows (a ring of 37 cards
with chords was 6 % cards: then the rows) — and a loop whose layers are estimated, without
drawing them, at over three times the area of its rows is set in rows at once (dagre spent
seconds on each 50-card region through which cycles run, for a drawing 5–30 times its rows);
a large one is set in compact rows that keep the force layout's order (who is
above, below and beside whom: :func:`compact`), so that it does not make the layers' columns
around it tall and empty. Cards with no directed edge at all are set in rows after the drawing.

A layer holding many blocks (a cause with hundreds of effects) is wrapped into columns side by
side, layers still in reading order, so the drawing fits a screen: the wrap chosen is the one a
16:10 screen shows largest (its long side at most 2.5 times its short one where dagre's is longer).
A drawing still too long (a chain of many layers) is folded into bands as lines of text are,
its long layers then wrapped for those bands (a chain from a cause of hundreds of effects).

The layering, crossing reduction and coordinates are @dagrejs/dagre's (vendored, pinned;
static/arrange.js runs it in the layout worker, off the main thread). This module makes the
job (:func:`arrange_job`, DOM-free, O(n + m)) and applies the result as one undoable step
that moves every card and pins it where it lands (:func:`apply_arrangement`).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import COORD_LIMIT, Plane
from bendscope.bend.render.halos import tree_steps
from bendscope.kappa.steps import Steps

DIRECTIONS = {"LR": "Arrange left to right", "TB": "Arrange top to bottom"}
#: loops with at most this many cards are drawn in layers inside their block
LAYERED_LOOP = 60
DIRECTED = ("causal", "temporal")
#: the space between two rows of a large loop's cards, and between two cards of a row (px)
ROW_GAP = 40.0
CARD_GAP = 40.0


@dataclass
class ArrangeJob:
    """What static/arrange.js takes (``as_message``): card sizes in plane order, blocks of
    node indices, for each block either its inner arcs (drawn in layers) or the offsets its
    cards keep, the condensation's arcs between blocks, and the cards with no directed edge."""

    direction: str
    ids: list[str]
    sizes: array[float] = field(default_factory=lambda: array("d"))  # w, h per node
    blocks: list[list[int]] = field(default_factory=list)
    inner: list[list[int]] = field(default_factory=list)  # per block: flat index pairs
    keep: list[list[float] | None] = field(default_factory=list)  # per block: x, y per member, or None
    rows: list[list[float]] = field(default_factory=list)  # per block: a small loop's compact rows, or []
    arcs: list[int] = field(default_factory=list)  # flat block index pairs, each once
    loose: list[int] = field(default_factory=list)  # node indices
    plane_version: int = 0

    def as_message(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "sizes": self.sizes,
            "blocks": self.blocks,
            "inner": self.inner,
            "keep": [k if k is not None else [] for k in self.keep],
            "kept": [k is not None for k in self.keep],
            "rows": self.rows,
            "arcs": self.arcs,
            "loose": self.loose,
        }


def arrange_job(plane: Plane, topology: Topology, direction: str) -> ArrangeJob:
    """The job for ``plane`` with its ``topology``. O(n + m).

    >>> from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane
    >>> from bendscope.bend.kappa_view.topology_cache import TopologyCache
    >>> p = Plane("p", "P")
    >>> for i in "abcde":
    ...     p.add_node(Node(i, i))
    >>> for k, (a, b) in enumerate(("ab", "ba", "bc", "cd")):
    ...     p.add_edge(Edge(str(k), a, b, EdgeProps(kind="causal")))
    >>> job = arrange_job(p, TopologyCache().get(p), "LR")
    >>> job.blocks, job.inner, job.arcs, job.loose
    ([[0, 1], [2], [3]], [[0, 1, 1, 0], [], []], [0, 1, 1, 2], [4])
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}: use LR or TB")
    ids = list(plane.nodes)
    index = {node_id: i for i, node_id in enumerate(ids)}
    job = ArrangeJob(direction, ids, plane_version=plane.version)
    for node in plane.nodes.values():
        job.sizes.extend((node.width, node.height))
    block_of = [-1] * len(ids)
    for scc in topology.result["sccs"]:
        members = [index[n] for n in scc["nodes"] if n in index]
        if len(members) < 2:
            continue
        for i in members:
            block_of[i] = len(job.blocks)
        job.blocks.append(members)
    directed = [False] * len(ids)
    arcs: list[tuple[int, int]] = []
    for edge in plane.edges.values():
        if edge.props.kind not in DIRECTED or edge.a == edge.b:
            continue
        a, b = index.get(edge.a), index.get(edge.b)
        if a is None or b is None:
            continue
        directed[a] = directed[b] = True
        arcs.append((a, b))
    for i in range(len(ids)):
        if block_of[i] < 0 and directed[i]:
            block_of[i] = len(job.blocks)
            job.blocks.append([i])
        elif block_of[i] < 0:
            job.loose.append(i)
    inner: list[set[tuple[int, int]]] = [set() for _ in job.blocks]
    between: set[tuple[int, int]] = set()
    for i, j in arcs:
        bi, bj = block_of[i], block_of[j]
        if bi == bj:
            inner[bi].add((i, j))
        else:
            between.add((bi, bj))
    nodes = list(plane.nodes.values())
    for b, members in enumerate(job.blocks):
        rows = compact([(nodes[i].x, nodes[i].y, nodes[i].width, nodes[i].height) for i in members])
        if len(members) > LAYERED_LOOP:  # a large loop keeps its force arrangement, made compact
            job.inner.append([])
            job.keep.append(rows)
            job.rows.append([])
        else:  # (a loop's rows, for when its layers are mostly empty; a card's own block needs none)
            job.inner.append([v for pair in sorted(inner[b]) for v in pair])
            job.keep.append(None)
            job.rows.append(rows if len(members) > 1 else [])
    job.arcs = [v for pair in sorted(between) for v in pair]
    return job


def compact(cards: list[tuple[float, float, float, float]]) -> list[float]:
    """Centres (x, y per card) for a large loop's cards — ``(x, y, width, height)`` as the force
    layout left them — in rows as close as :data:`ROW_GAP` and :data:`CARD_GAP` allow: the
    cards in order of height (then across) are cut into rows of as many cards each, the rows
    as many as make the block about square, and each row keeps its cards' order across. So a
    card's neighbours stay its neighbours (above, below, beside), no card touches another, and
    the block is a fraction of the force layout's box (where ~85 % is space between cards),
    which sets the height of the layers' columns around it. O(n log n).

    >>> compact([(0, 0, 40, 40), (300, 10, 40, 40), (10, 200, 40, 40), (290, 210, 40, 40)])
    [20.0, 20.0, 100.0, 20.0, 20.0, 100.0, 100.0, 100.0]
    """
    n = len(cards)
    if n == 0:
        return []
    pitch = max(h for _, _, _, h in cards) + ROW_GAP
    across = sum(w for _, _, w, _ in cards) / n + CARD_GAP
    rows = max(1, min(n, round(math.sqrt(n * across / pitch))))
    by_height = sorted(range(n), key=lambda i: (cards[i][1], cards[i][0], i))
    xy = [0.0] * (2 * n)
    for r in range(rows):
        row = sorted(by_height[r * n // rows : (r + 1) * n // rows], key=lambda i: (cards[i][0], cards[i][1], i))
        left = 0.0
        for i in row:
            w = cards[i][2]
            xy[2 * i], xy[2 * i + 1] = left + w / 2, r * pitch + pitch / 2 - ROW_GAP / 2
            left += w + CARD_GAP
    return xy


def arrangement_problem(plane: Plane, job: ArrangeJob, xy: list[float]) -> str | None:
    """Why ``xy`` (the worker's answer) cannot be applied to ``plane`` now, or None."""
    if plane.version != job.plane_version or list(plane.nodes) != job.ids:
        return "The graph changed while it was being arranged; nothing was moved. Arrange again."
    if len(xy) != 2 * len(job.ids):
        return "The arrangement came back incomplete; nothing was moved."
    if not all(isinstance(v, (int, float)) and -COORD_LIMIT <= v <= COORD_LIMIT for v in xy):
        return "The arrangement came back with positions out of range; nothing was moved."
    return None


@dataclass(frozen=True)
class PreparedArrangement:
    """An arrangement made ready between frames (``Editor.prepare_arrangement``): each card's
    centre and the halos' trees for those centres, good while the document stays at ``version``
    on ``plane`` (its topology ``result``)."""

    plane: Plane
    version: int
    places: dict[str, tuple[float, float]]
    result: object
    trees: dict[str, list[tuple[str, str]]]


def prepare(
    plane: Plane, version: int, topology: Topology, job: ArrangeJob, xy: list[float]
) -> Steps[PreparedArrangement]:
    """What applying the centres ``xy`` to ``plane`` (the document at ``version``) will need, as
    steps (``kappa.steps``: the page runs them between frames): each card's place and the halos'
    trees for those places. Raises ValueError if ``xy`` cannot be applied (see
    ``arrangement_problem``). Changes nothing. O(n + m log m)."""
    problem = arrangement_problem(plane, job, xy)
    if problem is not None:
        raise ValueError(problem)
    places = {node_id: (float(xy[2 * k]), float(xy[2 * k + 1])) for k, node_id in enumerate(job.ids)}
    yield
    trees = yield from tree_steps(plane, topology, places)
    return PreparedArrangement(plane, version, places, topology.result, trees)
