"""Menu aim: an open submenu stays open while the pointer heads for it.

Moving diagonally from a menu item to its submenu crosses the items below it; switching
submenus on every item crossed closes the one the user was aiming for. As in Amazon's
mega-menu (Ben Kamens' "menu aim"): while the pointer lies inside the triangle from
where it was a moment ago to the near corners of the open submenu, hovering another item
is deferred; if the pointer rests (or leaves the triangle), the switch happens.

>>> aim = MenuAim()
>>> aim.track(100, 100, 0.0)
>>> aim.track(110, 104, 16.0)  # heading right and down, toward the submenu at x = 200
>>> aim.heading_for((200, 60, 400, 300), 16.0)
True
>>> aim.track(110, 140, 32.0)  # straight down: not toward it
>>> aim.heading_for((200, 60, 400, 300), 32.0)
False
"""

from __future__ import annotations

from collections import deque

DELAY_MS = 300.0  # how long a deferred switch waits for the pointer to arrive
TOLERANCE = 40.0  # px added above and below the submenu's near edge
LOOKBACK_MS = 100.0  # "a moment ago": the oldest tracked position within this window


def _cross(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> float:
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


def in_triangle(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> bool:
    """Whether ``p`` lies in triangle abc (either orientation, edges included).

    >>> in_triangle((1, 1), (0, 0), (4, 0), (0, 4)), in_triangle((3, 3), (0, 0), (4, 0), (0, 4))
    (True, False)
    """
    d1 = _cross(*a, *b, *p)
    d2 = _cross(*b, *c, *p)
    d3 = _cross(*c, *a, *p)
    has_neg = d1 < 0 or d2 < 0 or d3 < 0
    has_pos = d1 > 0 or d2 > 0 or d3 > 0
    return not (has_neg and has_pos)


class MenuAim:
    """Tracks recent pointer positions over a menu; O(1) per call."""

    def __init__(self, lookback_ms: float = LOOKBACK_MS, tolerance: float = TOLERANCE) -> None:
        self.lookback_ms = lookback_ms
        self.tolerance = tolerance
        self.points: deque[tuple[float, float, float]] = deque(maxlen=8)  # (x, y, t ms)

    def track(self, x: float, y: float, t_ms: float) -> None:
        self.points.append((x, y, t_ms))

    def heading_for(self, submenu: tuple[float, float, float, float], now_ms: float) -> bool:
        """Whether the pointer moves toward ``submenu`` (left, top, right, bottom): its latest
        position is inside the triangle from an earlier one to the submenu's near edge,
        widened by the tolerance, and it moved at all."""
        if len(self.points) < 2:
            return False
        x, y, t = self.points[-1]
        if now_ms - t > self.lookback_ms:
            return False  # the pointer rests
        origin = next(((px, py) for px, py, pt in self.points if t - pt <= self.lookback_ms), self.points[-2][:2])
        if origin == (x, y):
            return False
        left, top, right, bottom = submenu
        near = left if left >= origin[0] else right  # the edge facing the pointer
        upper, lower = (near, top - self.tolerance), (near, bottom + self.tolerance)
        return in_triangle((x, y), origin, upper, lower)
