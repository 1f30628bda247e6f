"""Canvas painter: executes a bend.scene.Scene with as few JS calls as possible.

Edges, arrowheads, card bodies, headers and borders are drawn as one Path2D per
style (built from SVG path strings); text is one fillText per line. The camera
and devicePixelRatio are one setTransform.
"""

from __future__ import annotations

from typing import Any

import js

from bend import theme
from bend.scene import Card, FillBatch, Pill, Scene, round_rect_path

from .dom import js_obj


class Painter:
    def __init__(self, canvas: Any) -> None:
        self.canvas = canvas
        self.ctx = canvas.getContext("2d")
        self._pattern: Any = None
        self._pattern_key: tuple | None = None
        self._size = (0, 0, 0.0)

    def resize(self, width: float, height: float, dpr: float) -> None:
        key = (int(width), int(height), dpr)
        if key == self._size:
            return
        self._size = key
        self.canvas.width = max(1, round(width * dpr))
        self.canvas.height = max(1, round(height * dpr))
        self.canvas.style.width = f"{int(width)}px"
        self.canvas.style.height = f"{int(height)}px"

    def _grid_pattern(self, dpr: float) -> Any:
        key = (dpr,)
        if self._pattern_key != key:
            size = max(2, round(theme.GRID_SPACING * dpr))
            tile = js.document.createElement("canvas")
            tile.width = tile.height = size
            tctx = tile.getContext("2d")
            tctx.fillStyle = theme.GRID_DOT
            r = max(1.0, dpr)
            tctx.fillRect(size / 2 - r / 2, size / 2 - r / 2, r, r)
            self._pattern = self.ctx.createPattern(tile, "repeat")
            self._pattern_key = key
        return self._pattern

    def paint(self, scene: Scene, dpr: float) -> None:
        ctx = self.ctx
        w, h = scene.width, scene.height
        self.resize(w, h, dpr)
        ctx.setTransform(1, 0, 0, 1, 0, 0)
        ctx.setLineDash(js_obj([]))
        ctx.globalAlpha = 1
        ctx.fillStyle = scene.background
        ctx.fillRect(0, 0, w * dpr, h * dpr)
        # dot grid: a pattern tile scaled to the zoomed spacing
        pattern = self._grid_pattern(dpr)
        g = scene.grid
        scale = g.spacing / theme.GRID_SPACING
        pattern.setTransform(js.DOMMatrix.new(js_obj([scale, 0, 0, scale, g.offset_x * dpr, g.offset_y * dpr])))
        ctx.fillStyle = pattern
        ctx.fillRect(0, 0, w * dpr, h * dpr)

        cx, cy, zoom = scene.camera
        k = dpr * zoom
        ctx.setTransform(k, 0, 0, k, dpr * (w / 2 - cx * zoom), dpr * (h / 2 - cy * zoom))
        ctx.lineJoin = "round"
        ctx.lineCap = "round"

        for halo in scene.halos:
            path = js.Path2D.new(round_rect_path(halo.x, halo.y, halo.width, halo.height, theme.HALO_RADIUS))
            ctx.fillStyle = halo.fill
            ctx.fill(path)
            ctx.strokeStyle = halo.stroke
            ctx.lineWidth = 1
            ctx.stroke(path)
        self._pills([halo.badge for halo in scene.halos], align_center=True)

        for batch in scene.edges:
            ctx.strokeStyle = batch.color
            ctx.lineWidth = batch.width
            ctx.setLineDash(js_obj(list(batch.dash)))
            ctx.lineCap = "butt" if batch.dash else "round"
            ctx.stroke(js.Path2D.new("".join(batch.path)))
        ctx.setLineDash(js_obj([]))
        ctx.lineCap = "round"
        self._fills(scene.arrows)
        self._pills(scene.labels, align_center=True)
        self._cards(scene.cards)

    def _fills(self, batches: list[FillBatch]) -> None:
        ctx = self.ctx
        for batch in batches:
            if batch.path:
                ctx.fillStyle = batch.color
                ctx.fill(js.Path2D.new("".join(batch.path)))

    def _pills(self, pills: list[Pill], align_center: bool) -> None:
        if not pills:
            return
        ctx = self.ctx
        by_fill: dict[tuple[str, str], list[str]] = {}
        for p in pills:
            path = round_rect_path(p.x - p.width / 2, p.y - p.height / 2, p.width, p.height, p.height / 2)
            by_fill.setdefault((p.fill, p.border), []).append(path)
        for (fill, border), paths in by_fill.items():
            path = js.Path2D.new("".join(paths))
            ctx.fillStyle = fill
            ctx.fill(path)
            if border:
                ctx.strokeStyle = border
                ctx.lineWidth = 1
                ctx.stroke(path)
        ctx.textAlign = "center"
        ctx.textBaseline = "middle"
        font = None
        for p in pills:
            if p.font != font:
                ctx.font = font = p.font
            ctx.fillStyle = p.color
            ctx.fillText(p.text, p.x, p.y + 0.5)
        ctx.textAlign = "left"
        ctx.textBaseline = "alphabetic"

    def _cards(self, cards: list[Card]) -> None:
        ctx = self.ctx
        if not cards:
            return
        bodies: list[str] = []
        headers: dict[str, list[str]] = {}
        borders: dict[tuple[str, float], list[str]] = {}
        pulses: dict[float, list[str]] = {}
        selected: list[str] = []
        pins: list[str] = []
        decorations: dict[str, list[str]] = {}
        r = theme.CARD_RADIUS
        for c in cards:
            body = round_rect_path(c.x, c.y, c.width, c.height, r)
            bodies.append(body)
            headers.setdefault(c.header_fill, []).append(
                f"M{c.x:.2f} {c.y + 14:.2f}V{c.y + r:.2f}Q{c.x:.2f} {c.y:.2f} {c.x + r:.2f} {c.y:.2f}"
                f"H{c.x + c.width - r:.2f}Q{c.x + c.width:.2f} {c.y:.2f} {c.x + c.width:.2f} {c.y + r:.2f}"
                f"V{c.y + 14:.2f}Z"
            )
            borders.setdefault((c.border, c.border_width), []).append(body)
            if c.pulse:
                pulses.setdefault(c.pulse, []).append(body)
            if c.selected:
                selected.append(round_rect_path(c.x - 4, c.y - 4, c.width + 8, c.height + 8, r + 4))
            if c.pinned:
                px, py = c.x + c.width - 10, c.y + 7
                pins.append(f"M{px + 3:.2f} {py:.2f}A3 3 0 1 0 {px - 3:.2f} {py:.2f}A3 3 0 1 0 {px + 3:.2f} {py:.2f}Z")
            for d in c.decorations:
                decorations.setdefault(d.color, []).extend(d.path)
        ctx.shadowColor = "rgba(20,30,50,0.10)"
        ctx.shadowBlur = 6
        ctx.shadowOffsetY = 2
        ctx.fillStyle = theme.CARD_FILL
        ctx.fill(js.Path2D.new("".join(bodies)))
        ctx.shadowColor = "transparent"
        ctx.shadowBlur = 0
        ctx.shadowOffsetY = 0
        for color, paths in headers.items():
            ctx.fillStyle = color
            ctx.fill(js.Path2D.new("".join(paths)))
        for color, paths in decorations.items():
            ctx.fillStyle = color
            ctx.fill(js.Path2D.new("".join(paths)))
        for (color, width), paths in borders.items():
            ctx.strokeStyle = color
            ctx.lineWidth = width
            ctx.stroke(js.Path2D.new("".join(paths)))
        for alpha, paths in pulses.items():
            ctx.strokeStyle = f"rgba({theme.PULSE_BORDER},{alpha:.3f})"
            ctx.lineWidth = 2.5
            ctx.stroke(js.Path2D.new("".join(paths)))
        if pins:
            ctx.fillStyle = theme.PINNED_MARK
            ctx.fill(js.Path2D.new("".join(pins)))
        if selected:
            ctx.strokeStyle = theme.SELECTION
            ctx.lineWidth = 2
            ctx.stroke(js.Path2D.new("".join(selected)))
        font = None
        color = None
        for c in cards:
            for t in c.texts:
                if t.font != font:
                    ctx.font = font = t.font
                if t.color != color:
                    ctx.fillStyle = color = t.color
                ctx.fillText(t.text, t.x, t.y)
