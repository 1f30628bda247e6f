"""Small plane-geometry helpers for cards (axis-aligned rectangles) and edges."""

from __future__ import annotations

import math


def border_extent(w: float, h: float, dx: float, dy: float) -> float:
    """Distance from a w×h rectangle's centre to its border along direction (dx, dy).

    (dx, dy) need not be normalised; returns 0 for the zero vector.
    """
    length = math.hypot(dx, dy)
    if length == 0.0:
        return 0.0
    ux = abs(dx) / length
    uy = abs(dy) / length
    tx = (w / 2) / ux if ux > 1e-12 else math.inf
    ty = (h / 2) / uy if uy > 1e-12 else math.inf
    return min(tx, ty)


def border_point(cx: float, cy: float, w: float, h: float, tx: float, ty: float) -> tuple[float, float]:
    """Where the ray from the centre (cx, cy) towards (tx, ty) leaves the rectangle."""
    dx, dy = tx - cx, ty - cy
    length = math.hypot(dx, dy)
    if length == 0.0:
        return cx, cy
    ext = border_extent(w, h, dx, dy)
    return cx + dx / length * ext, cy + dy / length * ext


def segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Distance from point p to segment ab."""
    dx, dy = bx - ax, by - ay
    len2 = dx * dx + dy * dy
    t = 0.0 if len2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / len2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))
