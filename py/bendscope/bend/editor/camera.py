"""The camera: screen and world coordinates, pan, zoom, fitting the view."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from bendscope.bend.editor.selection import SelectionControl
from bendscope.bend.model.elements import (
    COORD_LIMIT,
    MAX_ZOOM,
    MIN_ZOOM,
)

ZOOM_STEP = 1.2
#: below this viewport width a graph too large to read whole opens at READABLE_ZOOM, and Fit
#: keeps NARROW_MARGIN px from the window's sides (not 60: a phone's width is precious)
NARROW_PX = 700.0
NARROW_MARGIN = 12.0
READABLE_ZOOM = 0.6
#: a screen box: left, top, right, bottom (CSS px)
Box = tuple[float, float, float, float]


class CameraControl(SelectionControl):
    """The camera, a part of ``Editor``: the active plane's view."""

    #: the boxes of what covers the canvas (toolbar, breadcrumbs, panels, HUD), asked for when
    #: the view is fitted (the page sets it; None: only the bands ``top_px`` / ``bottom_px``)
    obstacles: Callable[[], Sequence[Box]] | None = None
    #: how many times a graph was given its opening view (``viewkeep.ViewKeeper`` follows it)
    openings = 0

    def world_to_screen(self, x: float, y: float) -> tuple[float, float]:
        cam = self.plane.camera
        w, h = self.viewport
        return (x - cam.x) * cam.zoom + w / 2, (y - cam.y) * cam.zoom + h / 2

    def screen_to_world(self, sx: float, sy: float) -> tuple[float, float]:
        cam = self.plane.camera
        w, h = self.viewport
        return (sx - w / 2) / cam.zoom + cam.x, (sy - h / 2) / cam.zoom + cam.y

    def pan_by(self, dx: float, dy: float) -> None:
        """Pan by a screen-pixel delta (content follows the pointer)."""
        cam = self.plane.camera
        cam.x = clamp_coord(cam.x - dx / cam.zoom)
        cam.y = clamp_coord(cam.y - dy / cam.zoom)
        self.needs_paint = True

    def zoom_at(self, factor: float, sx: float | None = None, sy: float | None = None) -> None:
        """Multiply the zoom by ``factor`` keeping screen point (sx, sy) fixed."""
        w, h = self.viewport
        sx = w / 2 if sx is None else sx
        sy = h / 2 if sy is None else sy
        wx, wy = self.screen_to_world(sx, sy)
        cam = self.plane.camera
        cam.zoom = min(MAX_ZOOM, max(MIN_ZOOM, cam.zoom * factor))
        cam.x = clamp_coord(wx - (sx - w / 2) / cam.zoom)
        cam.y = clamp_coord(wy - (sy - h / 2) / cam.zoom)
        self.needs_paint = True

    def in_view(self, node_id: str, margin: float = 40.0) -> bool:
        """Whether the node's centre is on the screen, ``margin`` px inside its edges."""
        node = self.plane.nodes.get(node_id)
        if node is None:
            return False
        sx, sy = self.world_to_screen(node.x, node.y)
        w, h = self.viewport
        return margin <= sx <= w - margin and margin <= sy <= h - margin

    def centre_on(self, node_id: str) -> None:
        """Move the camera so the node is in the middle of the view (zoom unchanged)."""
        node = self.plane.nodes.get(node_id)
        if node is not None:
            self.plane.camera.x, self.plane.camera.y = node.x, node.y
            self.needs_paint = True

    def bring_into_view(
        self, node_id: str, top_px: float = 96.0, bottom_px: float = 56.0, margin: float = 24.0
    ) -> bool:
        """Pan (zoom unchanged) the least that puts the node's whole card between the toolbar
        (``top_px``) and the HUD (``bottom_px``), ``margin`` px inside the sides; whether the view moved."""
        node = self.plane.nodes.get(node_id)
        if node is None:
            return False
        zoom = self.plane.camera.zoom
        w, h = self.viewport
        sx, sy = self.world_to_screen(node.x, node.y)
        half_w, half_h = node.width * zoom / 2, node.height * zoom / 2
        dx = _shift(sx - half_w, sx + half_w, margin, w - margin)
        dy = _shift(sy - half_h, sy + half_h, top_px, h - bottom_px)
        if dx == 0.0 and dy == 0.0:
            return False
        self.pan_by(dx, dy)
        return True

    def reset_zoom(self) -> None:
        self.plane.camera.zoom = 1.0
        self.needs_paint = True

    def fit_view(
        self, margin: float = 60.0, top_px: float = 96.0, bottom_px: float = 56.0, node_ids: Iterable[str] | None = None
    ) -> None:
        """Centre the plane's nodes (or ``node_ids`` of them) in the area between the toolbar
        (``top_px``) and the HUD (``bottom_px``), zooming out (never in past 1) if they do not fit
        — ``margin`` px from the sides (NARROW_MARGIN on a narrow screen). When what covers the
        canvas (``obstacles``: a panel, a HUD of two rows on a phone) would cover some of them
        there, they are framed instead in the part of the view the obstacles leave where they
        show largest (``viewfit.free_rects``). O(n + obstacles⁵)."""
        if node_ids is None:
            nodes = list(self.plane.nodes.values())
        else:
            nodes = [self.plane.nodes[n] for n in node_ids if n in self.plane.nodes]
        cam = self.plane.camera
        if not nodes:
            cam.x = cam.y = 0.0
            cam.zoom = 1.0
        else:
            left = min(n.x - n.width / 2 for n in nodes)
            right = max(n.x + n.width / 2 for n in nodes)
            upper = min(n.y - n.height / 2 for n in nodes)
            lower = max(n.y + n.height / 2 for n in nodes)
            w, h = self.viewport
            margin = min(margin, NARROW_MARGIN) if w < NARROW_PX else margin
            area_h = max(100.0, h - top_px - bottom_px)
            fit = min((w - 2 * margin) / max(1.0, right - left), area_h / max(1.0, lower - upper))
            cam.zoom = max(MIN_ZOOM, min(1.0, fit))
            cam.x = clamp_coord((left + right) / 2)
            cam.y = clamp_coord((upper + lower) / 2 - ((top_px + h - bottom_px) / 2 - h / 2) / cam.zoom)
            if self.obstacles is not None:
                self._fit_clear((left, upper, right, lower), margin, list(self.obstacles()))
        self.needs_paint = True

    def _fit_clear(self, world: Box, margin: float, obstacles: list[Box]) -> None:
        """``fit_view``'s frame of the world box ``world``, moved into the free part of the view
        where it shows largest when an obstacle covers a card where it is. O(n × obstacles + obstacles⁵)."""
        from bendscope.bend.editor.viewfit import card_under, free_rects  # (viewfit builds on this module)

        w, h = self.viewport
        (x0, y0), (x1, y1) = self.world_to_screen(world[0], world[1]), self.world_to_screen(world[2], world[3])
        inside = x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h
        if inside and not any(card_under(self, o) for o in obstacles):  # type: ignore[arg-type]  # (an Editor)
            return  # (no card under an obstacle: a corner of the graph's box beside the legend is no matter)
        width, height = max(1.0, world[2] - world[0]), max(1.0, world[3] - world[1])
        best: tuple[float, Box] | None = None
        for rect in free_rects(w, h, obstacles):  # (largest first: the first of equal fits wins)
            fit = min((rect[2] - rect[0] - 2 * margin) / width, (rect[3] - rect[1] - 2 * margin) / height)
            if best is None or fit > best[0]:
                best = (fit, rect)
        assert best is not None
        fit, rect = best
        cam = self.plane.camera
        cam.zoom = max(MIN_ZOOM, min(1.0, fit))
        cam.x = clamp_coord((world[0] + world[2]) / 2 - ((rect[0] + rect[2]) / 2 - w / 2) / cam.zoom)
        cam.y = clamp_coord((world[1] + world[3]) / 2 - ((rect[1] + rect[3]) / 2 - h / 2) / cam.zoom)

    def opening_view(self) -> None:
        """The view a graph opens with: all of it (``fit_view``) — except on a small screen
        (narrower than NARROW_PX), where all of a large graph is too small to read (its card
        text drawn as bars, below GREEK_ZOOM): there it opens at READABLE_ZOOM around the
        graph's middle, and Fit (F) still shows everything."""
        from bendscope.bend.render.scene import GREEK_ZOOM

        self.openings += 1
        self.fit_view()
        cam = self.plane.camera
        if self.viewport[0] < NARROW_PX and cam.zoom < GREEK_ZOOM and self.plane.nodes:
            nodes = self.plane.nodes.values()
            middle = self.world_to_screen(  # (where fit_view put the graph's middle stays)
                (min(n.x - n.width / 2 for n in nodes) + max(n.x + n.width / 2 for n in nodes)) / 2,
                (min(n.y - n.height / 2 for n in nodes) + max(n.y + n.height / 2 for n in nodes)) / 2,
            )
            self.zoom_at(READABLE_ZOOM / cam.zoom, *middle)

    def screen_position(self, node_id: str) -> list[float] | None:
        node = self.plane.nodes.get(node_id)
        if node is None:
            return None
        x, y = self.world_to_screen(node.x, node.y)
        return [round(x, 2), round(y, 2)]

    def stats(self) -> dict[str, float | int]:
        return {
            "nodes": len(self.plane.nodes),
            "edges": len(self.plane.edges),
            "depth": self.doc.depth(),
            "zoom": zoom_shown(self.plane.camera.zoom),
        }


def _shift(low: float, high: float, least: float, most: float) -> float:
    """The screen-pixel move that brings [low, high] inside [least, most] (its start first when
    it cannot fit).

    >>> _shift(10, 50, 0, 100), _shift(90, 130, 0, 100), _shift(-20, 10, 0, 100), _shift(-50, 150, 0, 100)
    (0.0, -30.0, 20.0, 50.0)
    """
    if low < least or high - low > most - least:
        return float(least - low)
    if high > most:
        return float(most - high)
    return 0.0


def zoom_shown(zoom: float) -> float:
    """The zoom as the HUD shows it: two decimals, or two significant digits below 0.1.

    >>> zoom_shown(1.0), zoom_shown(0.456), zoom_shown(0.0123), zoom_shown(0.00005)
    (1.0, 0.46, 0.012, 5e-05)
    """
    return round(zoom, 2) if zoom >= 0.1 else float(f"{zoom:.2g}")


def zoom_text(zoom: float) -> str:
    """``zoom_shown`` written out without an exponent.

    >>> zoom_text(1.0), zoom_text(0.0123), zoom_text(0.00005)
    ('1.00', '0.012', '0.000050')
    """
    if zoom >= 0.1:
        return f"{zoom:.2f}"
    return f"{zoom:.{1 - math.floor(math.log10(zoom))}f}"


def clamp_coord(value: float) -> float:
    """A world coordinate kept finite and within ±COORD_LIMIT (what a document may hold)."""
    value = float(value)
    if value != value:
        return 0.0
    return max(-COORD_LIMIT, min(COORD_LIMIT, value))
