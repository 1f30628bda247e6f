"""Where edges run, in world coordinates: each edge's line (straight, or curved between the same
two cards), its width and its label's box; the scene and hit-testing both read them."""

from __future__ import annotations

import math
import weakref

from bendscope.bend.model.elements import Edge, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.textlayout import Measure


def edge_width(strength: int) -> float:
    """Stroke width of an edge of ``strength`` 1..5 (world px)."""
    return round(0.8 + 0.55 * strength, 2)


# keyed by the plane object itself: an id() could be reused by a later plane
_OFFSETS: weakref.WeakKeyDictionary[Plane, tuple[int, dict[str, float]]] = weakref.WeakKeyDictionary()


def parallel_offsets(plane: Plane) -> dict[str, float]:
    """Sideways offsets (world px) so edges between the same two nodes do not overlap.

    Memoised per plane until its structure changes (``plane.version``). O(m).
    """
    cached = _OFFSETS.get(plane)
    if cached is not None and cached[0] == plane.version:
        return cached[1]
    offsets = _parallel_offsets(plane)
    _OFFSETS[plane] = (plane.version, offsets)
    return offsets


def _parallel_offsets(plane: Plane) -> dict[str, float]:
    groups: dict[tuple[str, str], list[Edge]] = {}
    for edge in plane.edges.values():
        key = (edge.a, edge.b) if edge.a <= edge.b else (edge.b, edge.a)
        groups.setdefault(key, []).append(edge)
    offsets = {}
    for edges in groups.values():
        count = len(edges)
        for i, edge in enumerate(edges):
            # measured in the frame of the sorted pair (see edge_segment), so a→b and b→a separate
            offsets[edge.id] = (i - (count - 1) / 2) * PARALLEL_SPACING
    return offsets


#: Edges between the same two nodes: their ends are this far apart (world px), and each
#: one with a nonzero offset is drawn as a curve (a parabola, ``CURVE_PIECES`` straight
#: pieces) that bulges ``CURVE_BULGE`` times its offset further to its own side, so a two-way
#: pair is two arcs 35 world px apart at their middles, with their labels on their own sides.
PARALLEL_SPACING = 7.0


CURVE_BULGE = 4.0


CURVE_PIECES = 8


# the parabola's points: t = k/8 and its bulge 4·t·(1−t) = k·(8−k)/16, exact in binary
_CURVE = tuple((k / 8, k * (8 - k) / 16) for k in range(1, CURVE_PIECES))


def label_text(label: str) -> str:
    """An edge's label as drawn: at most 40 characters.

    >>> label_text("x" * 41)[-2:]
    'x…'
    """
    return label if len(label) <= 40 else label[:39] + "…"


def curve(sx: float, sy: float, ex: float, ey: float, signed: float) -> tuple[list[float], float, float]:
    """The curved edge from (sx, sy) to (ex, ey) with parallel offset ``signed`` (in the
    frame of its own direction: positive bulges toward (−dy, dx)): the flat points of its
    first ``CURVE_PIECES`` pieces' starts [x0, y0, …, x7, y7] (the last piece ends at the end
    point) and the unit tangent at the end (arrowheads point along it). O(1).

    >>> points, tx, ty = curve(0.0, 0.0, 80.0, 0.0, 3.5)
    >>> points[8], points[9], round(tx, 3), round(ty, 3)
    (40.0, 14.0, 0.819, -0.573)
    """
    dx, dy = ex - sx, ey - sy
    length = math.sqrt(dx * dx + dy * dy)
    h = _bulge(signed, length)
    px, py = -dy / length * h, dx / length * h
    points = [sx, sy]
    for t, w in _CURVE:
        points.append(sx + dx * t + px * w)
        points.append(sy + dy * t + py * w)
    tx, ty = dx - 4.0 * px, dy - 4.0 * py  # the parabola's derivative at its end
    tl = math.sqrt(tx * tx + ty * ty)
    return points, tx / tl, ty / tl


def _bulge(signed: float, length: float) -> float:
    """How far a curve's middle lies from its ends' line: ``CURVE_BULGE`` times its offset, at
    most a quarter of its length (a short edge stays a gentle arc, its ends at most 45° off)."""
    h = signed * CURVE_BULGE
    most = length * 0.25
    return most if h > most else -most if h < -most else h


def curve_label(sx: float, sy: float, ex: float, ey: float, signed: float, width: float) -> tuple[float, float]:
    """Where a curved edge's label pill (``width`` × 16) is centred: beside the middle of its
    arc, on its own side, far enough out that no part of it crosses the line between the two
    nodes' centres (nor, with three or more edges, a nearer sibling's label). O(1).

    >>> curve_label(0.0, 0.0, 80.0, 0.0, 3.5, 40.0)  # a horizontal pair: 17.5 out
    (40.0, 14.0)
    >>> curve_label(0.0, 0.0, 0.0, 80.0, 3.5, 60.0)  # a vertical one: its half-width out
    (-28.5, 40.0)
    """
    dx, dy = ex - sx, ey - sy
    length = math.sqrt(dx * dx + dy * dy)
    s = signed if signed >= 0 else -signed
    g = 1.0 if signed > 0 else -1.0
    nx, ny = -dy / length * g, dx / length * g
    half = (nx if nx >= 0 else -nx) * width / 2 + (ny if ny >= 0 else -ny) * 8.0
    h = _bulge(s, length)
    d = max(s + h, s / PARALLEL_SPACING * (2.0 * half + 4.0))
    return (sx + ex) / 2 + nx * (d - s), (sy + ey) / 2 + ny * (d - s)


def edge_path(plane: Plane, edge: Edge) -> list[float] | None:
    """The drawn line of an edge as flat points (two for a straight edge, nine for a
    curved one), border to border, or None when nothing is drawn (hit tests). O(1)."""
    seg = edge_segment(plane, edge)
    if seg is None:
        return None
    offset = parallel_offsets(plane).get(edge.id, 0.0)
    if offset == 0.0:
        return list(seg)
    points, _, _ = curve(*seg, offset if edge.a <= edge.b else -offset)
    return [*points, seg[2], seg[3]]


def edge_label_box(plane: Plane, edge: Edge, measure: Measure) -> tuple[float, float, float, float] | None:
    """The centre and size (x, y, w, h, world units) of an edge's label pill as drawn at
    detail zoom, or None without a label or a drawn line. O(1)."""
    if not edge.props.label:
        return None
    seg = edge_segment(plane, edge)
    if seg is None:
        return None
    width = measure(label_text(edge.props.label), theme.LABEL_FONT) + 12
    offset = parallel_offsets(plane).get(edge.id, 0.0)
    if offset == 0.0:
        return (seg[0] + seg[2]) / 2, (seg[1] + seg[3]) / 2, width, 16.0
    x, y = curve_label(*seg, offset if edge.a <= edge.b else -offset, width)
    return x, y, width, 16.0


def edge_segment(plane: Plane, edge: Edge, offset: float | None = None) -> tuple[float, float, float, float] | None:
    """The drawn segment of an edge: border to border, shifted by its parallel offset."""
    a = plane.nodes.get(edge.a)
    b = plane.nodes.get(edge.b)
    if a is None or b is None or a is b:
        return None
    if offset is None:
        offset = parallel_offsets(plane).get(edge.id, 0.0)
    # the offset is perpendicular to the sorted pair's direction, so a→b and b→a separate
    return _segment(a, b, edge, offset)


_WIDTHS = {s: edge_width(s) for s in range(1, 6)}


def _segment(a: Node, b: Node, edge: Edge, offset: float) -> tuple[float, float, float, float] | None:
    """edge_segment with the nodes already looked up (inlined border geometry): the line
    parallel to the centres' one, shifted sideways by the offset, from where it leaves the
    first card's box to where it enters the second's (so a shifted end never lies under a
    card and hides its arrowhead)."""
    dx, dy = b.x - a.x, b.y - a.y
    length = math.sqrt(dx * dx + dy * dy)
    if length < 1e-6:
        return None
    ux, uy = dx / length, dy / length
    aux = ux if ux >= 0 else -ux
    auy = uy if uy >= 0 else -uy
    sign = offset if edge.a <= edge.b else -offset
    nx, ny = -uy * sign, ux * sign
    # the shift measured toward the side of each box the line leaves (or enters) by
    fx = nx if ux >= 0 else -nx
    fy = ny if uy >= 0 else -ny
    ea = min((a.width / 2 - fx) / aux if aux > 1e-12 else 1e18, (a.height / 2 - fy) / auy if auy > 1e-12 else 1e18)
    eb = min((b.width / 2 + fx) / aux if aux > 1e-12 else 1e18, (b.height / 2 + fy) / auy if auy > 1e-12 else 1e18)
    ea = ea if ea > 0 else 0.0  # (a shift wider than a small card: from its shifted centre)
    eb = eb if eb > 0 else 0.0
    if ea + eb >= length:  # cards overlap: nothing to draw between them
        return None
    return a.x + ux * ea + nx, a.y + uy * ea + ny, b.x - ux * eb + nx, b.y - uy * eb + ny
