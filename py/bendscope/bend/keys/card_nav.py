"""Moving through the cards by keyboard inside the canvas (roving focus, as WAI-ARIA's
grid and tree patterns do it): the arrow keys go to the nearest card in that direction,
Home and End to the first and last card; Tab leaves the canvas for the next control.
``E`` / ``Shift+E`` step through the edges of the selected card, so every edge action
(its menu with Shift+F10, Delete) is reachable without a pointer.

>>> from bendscope.bend.model.elements import Document, Node, Plane
>>> plane = Plane("p")
>>> for node_id, x, y in (("a", 0, 0), ("b", 300, 20), ("c", 0, 300), ("d", -300, 0)):
...     plane.add_node(Node(node_id, x=x, y=y))
>>> nodes = plane.nodes
>>> [nearest_in_direction(nodes, "a", d) for d in ("right", "down", "left", "up")]
['b', 'c', 'd', None]
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from bendscope.bend.model.elements import Edge, Node

#: the unit vector of each arrow key (screen y grows downwards, as world y does)
DIRECTIONS = {"right": (1.0, 0.0), "left": (-1.0, 0.0), "down": (0.0, 1.0), "up": (0.0, -1.0)}
#: how much a step across the direction counts against a card, beside a step along it
ACROSS_WEIGHT = 2.0


def nearest_in_direction(nodes: Mapping[str, Node], start: str, direction: str) -> str | None:
    """The card an arrow key goes to from ``start``: among the cards whose centre lies in
    the 90° cone around ``direction``, the one nearest along it, a step across counting
    twice; None when there is none. Ties go to the smaller id. O(n).

    >>> from bendscope.bend.model.elements import Node
    >>> nodes = {"a": Node("a"), "far": Node("far", x=500.0), "aside": Node("aside", x=200.0, y=150.0)}
    >>> nearest_in_direction(nodes, "a", "right")
    'aside'
    """
    origin = nodes[start]
    dx, dy = DIRECTIONS[direction]
    best: tuple[float, str] | None = None
    for node_id, node in nodes.items():
        if node_id == start:
            continue
        vx, vy = node.x - origin.x, node.y - origin.y
        along = vx * dx + vy * dy
        across = abs(vx * dy - vy * dx)
        if along <= 0 or across > along:
            continue
        score = math.hypot(along, ACROSS_WEIGHT * across)
        if best is None or (score, node_id) < best:
            best = (score, node_id)
    return None if best is None else best[1]


def nearest_to(nodes: Mapping[str, Node], x: float, y: float) -> str | None:
    """The card whose centre is nearest (x, y) (ties: the smaller id); None on an empty plane. O(n)."""
    best = min(((math.hypot(n.x - x, n.y - y), i) for i, n in nodes.items()), default=None)
    return None if best is None else best[1]


def edges_of(edges: Mapping[str, Edge], node_id: str) -> list[str]:
    """The ids of the edges touching ``node_id``, in the plane's order. O(E)."""
    return [e.id for e in edges.values() if node_id in (e.a, e.b)]
