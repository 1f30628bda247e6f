"""Canvas painter: executes a bend.scene.Scene with as few JS calls as possible.

The scene hands over flat float arrays per style (segments, triangles, rectangles);
small JS helpers turn each array into one Path2D natively, so Python neither
formats numbers nor makes one browser call per shape. Text is one call per
(font, colour) group. The camera and devicePixelRatio are one setTransform.
"""

from __future__ import annotations

import math
from array import array
from typing import Any

import js
from pyodide.ffi import to_js

from bend import theme
from bend.scene import Card, Overlay, Pill, Scene
from bend.textlayout import FONTS, HEADER, run_font

from .dom import js_obj

_HELPERS = """
return {
  // Strokes line segments in paths of at most CHUNK segments: one huge path costs the
  // rasteriser far more than several (its stroke outline is filled as one shape).
  strokeSegments(ctx, flat) {
    const CHUNK = 4096;
    for (let start = 0; start < flat.length; start += 4 * CHUNK) {
      const p = new Path2D(), end = Math.min(flat.length, start + 4 * CHUNK);
      for (let i = start; i < end; i += 4) { p.moveTo(flat[i], flat[i + 1]); p.lineTo(flat[i + 2], flat[i + 3]); }
      ctx.stroke(p);
    }
  },
  fillTriangles(ctx, flat) {
    const CHUNK = 4096;
    for (let start = 0; start < flat.length; start += 6 * CHUNK) {
      const p = new Path2D(), end = Math.min(flat.length, start + 6 * CHUNK);
      for (let i = start; i < end; i += 6) {
        p.moveTo(flat[i], flat[i + 1]);
        p.lineTo(flat[i + 2], flat[i + 3]);
        p.lineTo(flat[i + 4], flat[i + 5]);
        p.closePath();
      }
      ctx.fill(p);
    }
  },
  rects(flat, radius) {
    const p = new Path2D();
    for (let i = 0; i < flat.length; i += 4) {
      if (radius > 0) p.roundRect(flat[i], flat[i + 1], flat[i + 2], flat[i + 3], Math.min(radius, flat[i + 3] / 2));
      else p.rect(flat[i], flat[i + 1], flat[i + 2], flat[i + 3]);
    }
    return p;
  },
  // A halo: member boxes and the bands between them in one path; all clockwise, so a
  // nonzero fill (and clip) is their union.
  halo(rects, quads, radius) {
    const p = new Path2D();
    for (let i = 0; i < rects.length; i += 4) p.roundRect(rects[i], rects[i + 1], rects[i + 2], rects[i + 3], radius);
    for (let i = 0; i < quads.length; i += 8) {
      p.moveTo(quads[i], quads[i + 1]);
      for (let j = 2; j < 8; j += 2) p.lineTo(quads[i + j], quads[i + j + 1]);
      p.closePath();
    }
    return p;
  },
  tops(flat, radius, band) {
    const p = new Path2D();
    for (let i = 0; i < flat.length; i += 3) {
      p.roundRect(flat[i], flat[i + 1], flat[i + 2], band, [radius, radius, 0, 0]);
    }
    return p;
  },
  dots(flat, radius) {
    const p = new Path2D();
    for (let i = 0; i < flat.length; i += 2) {
      p.moveTo(flat[i] + radius, flat[i + 1]);
      p.arc(flat[i], flat[i + 1], radius, 0, 2 * Math.PI);
    }
    return p;
  },
  texts(ctx, font, color, texts, xy) {
    ctx.font = font; ctx.fillStyle = color;
    for (let i = 0; i < texts.length; i++) ctx.fillText(texts[i], xy[2 * i], xy[2 * i + 1]);
  },
};
"""


def floats(values: list[float]) -> Any:
    """A Python list of floats as a JS Float64Array: one buffer copy, not one
    conversion per element (which dominated the painter's time)."""
    return to_js(array("d", values))


class Painter:
    def __init__(self, canvas: Any) -> None:
        self.canvas = canvas
        self.ctx = canvas.getContext("2d")
        self._pattern: Any = None
        self._pattern_key: tuple | None = None
        self._size = (0, 0, 0.0)
        self.js = js.Function.new(_HELPERS)()
        self._layered = False
        self._base: Any = None  # the last frame without pulses, when they animate
        self._pulse: tuple[float, float, float, list[float]] | None = None  # transform + pulsing card rects
        self._pulse_rects: list[float] = []
        self._pulse_alpha = 0.0

    def resize(self, width: float, height: float, dpr: float) -> None:
        key = (int(width), int(height), dpr)
        if key == self._size:
            return
        self._size = key
        self.canvas.width = max(1, round(width * dpr))
        self.canvas.height = max(1, round(height * dpr))
        self.canvas.style.width = f"{int(width)}px"
        self.canvas.style.height = f"{int(height)}px"

    def invalidate(self) -> None:
        """Forget what depends on the theme's colours (the grid tile)."""
        self._pattern_key = None

    def _grid_pattern(self, dpr: float) -> Any:
        key = (dpr, theme.GRID_DOT)
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

    def paint(self, scene: Scene, dpr: float, *, layered: bool = False) -> None:
        """Draw ``scene``. ``layered`` (pulses animate): the pulsing borders go on top of a copy
        of everything else, kept so that :meth:`repulse` redraws a pulse-only frame with one
        image copy instead of a new scene."""
        self._pulse = None
        self._pulse_rects = []
        self._layered = layered
        ctx = self.ctx
        helpers = self.js
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

        halos: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
        for halo in scene.halos:
            rects, quads = halos.setdefault((halo.fill, halo.stroke), ([], []))
            rects.extend(halo.rects)
            quads.extend(halo.links)
        ctx.lineWidth = 2
        for (fill, stroke), (rects, quads) in halos.items():  # one path per κ level
            path = helpers.halo(floats(rects), floats(quads), theme.HALO_RADIUS)
            # the outline of the union: stroke every part, then repaint the inside (background,
            # grid) so only the outer half of the stroke stays, then the translucent fill
            ctx.strokeStyle = stroke
            ctx.stroke(path)
            ctx.save()
            ctx.clip(path)
            ctx.setTransform(1, 0, 0, 1, 0, 0)
            ctx.fillStyle = scene.background
            ctx.fillRect(0, 0, w * dpr, h * dpr)
            ctx.fillStyle = pattern
            ctx.fillRect(0, 0, w * dpr, h * dpr)
            ctx.restore()
            ctx.fillStyle = fill
            ctx.fill(path)

        for batch in scene.edges:
            ctx.strokeStyle = batch.color
            ctx.lineWidth = batch.width or 1.0 / k  # 0: a hairline, one device pixel (see EDGE_DETAIL_LIMIT)
            if batch.dash:
                ctx.setLineDash(js_obj(list(batch.dash)))
                ctx.lineCap = "butt"
            helpers.strokeSegments(ctx, floats(batch.segments))
            if batch.dash:
                ctx.setLineDash(js_obj([]))  # reset the dash after the fault lines
                ctx.lineCap = "round"
        for batch in scene.arrows:
            ctx.fillStyle = batch.color
            helpers.fillTriangles(ctx, floats(batch.triangles))
        self._pills(scene.labels)
        self._cards(scene.cards)
        if scene.dim:  # find: the cards that do not match fade
            ctx.fillStyle = theme.DIM_FILL
            ctx.fill(helpers.rects(floats(scene.dim), theme.CARD_RADIUS))
        self._pills([halo.badge for halo in scene.halos])  # above the cards: never covered
        self._overlay(scene.overlay, zoom)
        if layered:
            base = self._base_canvas()
            bctx = base.getContext("2d")
            bctx.setTransform(1, 0, 0, 1, 0, 0)
            bctx.clearRect(0, 0, base.width, base.height)
            bctx.drawImage(self.canvas, 0, 0)
            self._pulse = (k, dpr * (w / 2 - cx * zoom), dpr * (h / 2 - cy * zoom), self._pulse_rects)
            self._stroke_pulses(self._pulse_alpha)

    def _base_canvas(self) -> Any:
        """The copy of the last frame without pulses (same size as the canvas)."""
        base = self._base
        if base is None:
            base = self._base = js.document.createElement("canvas")
        if base.width != self.canvas.width or base.height != self.canvas.height:
            base.width, base.height = self.canvas.width, self.canvas.height
        return base

    @property
    def can_repulse(self) -> bool:
        """Whether the last paint kept a pulse-free copy to redraw pulses on."""
        return self._pulse is not None

    def repulse(self, alpha: float) -> None:
        """A pulse-only frame: the kept copy, then the pulsing borders at ``alpha``. O(pixels + pulsing cards)."""
        if self._pulse is None or self._base is None:
            return
        ctx = self.ctx
        ctx.setTransform(1, 0, 0, 1, 0, 0)
        ctx.globalCompositeOperation = "copy"
        ctx.drawImage(self._base, 0, 0)
        ctx.globalCompositeOperation = "source-over"
        self._stroke_pulses(alpha)

    def _stroke_pulses(self, alpha: float) -> None:
        if self._pulse is None:
            return
        k, tx, ty, rects = self._pulse
        if not rects:
            return
        ctx = self.ctx
        ctx.setTransform(k, 0, 0, k, tx, ty)
        ctx.setLineDash(js_obj([]))
        ctx.strokeStyle = f"rgba({theme.PULSE_BORDER},{alpha:.3f})"
        ctx.lineWidth = 2.5
        ctx.stroke(self.js.rects(floats(rects), theme.CARD_RADIUS))

    def _overlay(self, ov: Overlay, zoom: float) -> None:
        """The gesture's marks: rubber band, dragged connection, target ring, handle, κ pill."""
        ctx = self.ctx
        if ov.brush is not None:
            ctx.fillStyle = theme.BRUSH_FILL
            ctx.fillRect(*ov.brush)
            ctx.strokeStyle = theme.BRUSH_STROKE
            ctx.lineWidth = 1.5 / zoom
            ctx.strokeRect(*ov.brush)
        if ov.link is not None:
            ctx.strokeStyle = ov.link_color
            ctx.lineWidth = 2 / zoom
            ctx.setLineDash(js_obj([6 / zoom, 4 / zoom]))
            ctx.beginPath()
            ctx.moveTo(ov.link[0], ov.link[1])
            ctx.lineTo(ov.link[2], ov.link[3])
            ctx.stroke()
            ctx.setLineDash(js_obj([]))
        if ov.ring is not None:
            ctx.strokeStyle = ov.link_color
            ctx.lineWidth = 2.5 / zoom
            ctx.stroke(self.js.rects(floats(list(ov.ring)), theme.CARD_RADIUS + 4 / zoom))
        if ov.handle is not None:
            x, y, r = ov.handle
            ctx.beginPath()
            ctx.arc(x, y, r, 0, 2 * math.pi)
            ctx.fillStyle = theme.HANDLE_FILL
            ctx.fill()
            ctx.strokeStyle = theme.SELECTION
            ctx.lineWidth = 2 / zoom
            ctx.stroke()
        if ov.label is not None:
            self._pills([ov.label])

    def _pills(self, pills: list[Pill]) -> None:
        if not pills:
            return
        ctx = self.ctx
        by_fill: dict[tuple[str, str], list[float]] = {}
        for p in pills:
            by_fill.setdefault((p.fill, p.border), []).extend(
                (p.x - p.width / 2, p.y - p.height / 2, p.width, p.height)
            )
        for (fill, border), rects in by_fill.items():
            path = self.js.rects(floats(rects), 999.0)
            ctx.fillStyle = fill
            ctx.fill(path)
            if border:
                ctx.strokeStyle = border
                ctx.lineWidth = 1
                ctx.stroke(path)
        ctx.textAlign = "center"
        ctx.textBaseline = "middle"
        groups: dict[tuple[str, str], tuple[list[str], list[float]]] = {}
        for p in pills:
            texts, xy = groups.setdefault((p.font, p.color), ([], []))
            texts.append(p.text)
            xy.extend((p.x, p.y + 0.5))
        for (font, color), (texts, xy) in groups.items():
            self.js.texts(ctx, font, color, to_js(texts), floats(xy))
        ctx.textAlign = "left"
        ctx.textBaseline = "alphabetic"

    def _cards(self, cards: list[Card]) -> None:
        ctx = self.ctx
        helpers = self.js
        if not cards:
            return
        normal: list[float] = []
        stargate: list[float] = []
        headers: dict[str, list[float]] = {}
        pulses: dict[float, list[float]] = {}
        selected: list[float] = []
        pins: list[float] = []
        decorations: dict[str, list[float]] = {}
        bars: list[float] = []
        groups: dict[tuple[str, str], tuple[list[str], list[float]]] = {}
        text_colors = theme.TEXT
        placeholder = theme.PLACEHOLDER_TEXT
        body_font = FONTS["body"]
        for c in cards:
            x0, y0, cw, ch = c.x, c.y, c.width, c.height
            (stargate if c.node_type == "stargate" else normal).extend((x0, y0, cw, ch))
            header = headers.get(c.header_fill)
            if header is None:
                header = headers[c.header_fill] = []
            header.extend((x0, y0, cw))
            if c.pulse:
                pulses.setdefault(c.pulse, []).extend((x0, y0, cw, ch))
            if c.selected:
                selected.extend((x0 - 4, y0 - 4, cw + 8, ch + 8))
            if c.pinned:
                pins.extend((x0 + cw - 10, y0 + 7))
            for d in c.decorations:
                decorations.setdefault(d.color, []).extend(d.rects)
            if c.greek:  # level of detail: bars instead of glyphs
                limit = cw - 20
                for line in c.lines:
                    length = min(limit - line.x + 10, len(line.text) * (7.5 if line.style == "h1" else 5.5))
                    if length > 0:
                        bars.extend((x0 + line.x, y0 + line.y - 7, length, 6.0))
                continue
            for line in c.lines:
                color = placeholder if c.placeholder else text_colors[line.style]
                for run in line.runs:  # inline markup: each run in its own font and colour
                    key = (run_font(line.style, run.kind), theme.RUN_COLOR.get(run.kind, color))
                    texts, xy = groups.setdefault(key, ([], []))
                    texts.append(run.text)
                    xy.extend((x0 + line.x + run.dx, y0 + line.y))
                if line.runs:
                    if line.marker:
                        marker = groups.setdefault((body_font, color), ([], []))
                        marker[0].append(line.marker)
                        marker[1].extend((x0 + line.x - 10, y0 + line.y))
                    continue
                group = groups.get((FONTS[line.style], color))
                if group is None:
                    group = groups[(FONTS[line.style], color)] = ([], [])
                group[0].append(line.text)
                group[1].extend((x0 + line.x, y0 + line.y))
                if line.marker:
                    marker = groups.setdefault((body_font, color), ([], []))
                    marker[0].append(line.marker)
                    marker[1].extend((x0 + line.x - 10, y0 + line.y))
            if c.header:
                head = groups.setdefault((theme.HEADER_FONT, theme.HEADER_TEXT[c.node_type]), ([], []))
                head[0].append(c.header)
                head[1].extend((x0 + 10, y0 + HEADER - 4))
        r = theme.CARD_RADIUS
        shapes = [
            (helpers.rects(floats(rects), r), color, width)
            for rects, color, width in ((normal, theme.CARD_BORDER, 1.0), (stargate, theme.STARGATE_BORDER, 2.0))
            if rects
        ]
        # a cheap offset shadow: the same paths, shifted (shadowBlur is slow in software)
        ctx.fillStyle = theme.CARD_SHADOW
        ctx.translate(0.5, 2)
        for path, _, _ in shapes:
            ctx.fill(path)
        ctx.translate(-0.5, -2)
        ctx.fillStyle = theme.CARD_FILL
        for path, _, _ in shapes:
            ctx.fill(path)
        for color, tops in headers.items():
            ctx.fillStyle = color
            ctx.fill(helpers.tops(floats(tops), r, 14.0))
        for color, rects in decorations.items():
            ctx.fillStyle = color
            ctx.fill(helpers.rects(floats(rects), 0))
        for path, color, width in shapes:
            ctx.strokeStyle = color
            ctx.lineWidth = width
            ctx.stroke(path)
        if self._layered:  # drawn last, over the kept copy (see paint)
            self._pulse_rects = [v for rects in pulses.values() for v in rects]
            self._pulse_alpha = next(iter(pulses), 0.0)
        for alpha, rects in pulses.items() if not self._layered else ():
            ctx.strokeStyle = f"rgba({theme.PULSE_BORDER},{alpha:.3f})"
            ctx.lineWidth = 2.5
            ctx.stroke(helpers.rects(floats(rects), r))
        if pins:
            ctx.fillStyle = theme.PINNED_MARK
            ctx.fill(helpers.dots(floats(pins), 3.0))
        if selected:
            ctx.strokeStyle = theme.SELECTION
            ctx.lineWidth = 2
            ctx.stroke(helpers.rects(floats(selected), r + 4))
        if bars:
            ctx.fillStyle = theme.GREEK_BAR
            ctx.fill(helpers.rects(floats(bars), 0))
        for (font, color), (texts, xy) in groups.items():
            helpers.texts(ctx, font, color, to_js(texts), floats(xy))
