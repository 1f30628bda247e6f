"""Canvas painter: the scene plan (bend.render.sceneplan) kept up to date in the page's JS, each
frame's geometry and drawing done there from the frame's positions (static/scene.js), and
the gesture overlay drawn here.

Per frame Python hands over one Float64Array of positions and the camera; the plan's parts
(cards' art, edges, halos, flags) cross only when what they depend on changed. The
geometry culls to the view and picks a level of detail by zoom, so a frame's cost grows
with what is visible. The camera and devicePixelRatio are one setTransform.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import js
from pyodide.ffi import to_js

from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Camera, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.legend import LEGEND_FONT, SWATCH, TITLE_FONT, LegendLayout
from bendscope.bend.render.scene import Grid, LoopMarker, Overlay, Pill
from bendscope.bend.render.sceneplan import ScenePlanner, positions
from bendscope.bend.render.textlayout import CardLayout, Measure

from .dom import js_obj


def floats(values: list[float]) -> Any:
    """A Python list of floats as a JS Float64Array: one buffer copy, not one
    conversion per element."""
    return to_js(array("d", values))


def _arg(value: Any) -> Any:
    """A plan call's argument as the page's JS takes it (arrays and bytes as typed arrays)."""
    if isinstance(value, (array, bytes)):
        return to_js(value)
    if isinstance(value, dict):
        return js_obj({k: _arg(v) for k, v in value.items()})
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return to_js([_arg(v) for v in value])
    return to_js(value) if isinstance(value, list) else value


class Painter:
    """Draws planes on ``canvas``. ``detail``: an export's painter (every edge with its
    arrowhead and label, every halo outlined, however many)."""

    def __init__(self, canvas: Any, detail: bool = False) -> None:
        self.canvas = canvas
        self.detail = detail
        self.ctx = canvas.getContext("2d")
        self._pattern: Any = None
        self._pattern_key: tuple | None = None
        self._size = (0, 0, 0.0)
        self.scene = js.window.bendscopeScene
        self.paths = self.scene.paths
        self.plan = self.scene.createPlan()
        self.planner = ScenePlanner()
        #: drawn over the graph in world coordinates, after the gesture's marks: (ctx, zoom) → None
        #: (live mode: the memory's ended cards and edges, when the person shows them)
        self.after: Callable[[Any, float], None] | None = None
        self._base: Any = None  # the last frame without pulses, when they animate
        self._pulse: tuple[Any, Any, float] | None = None  # transform, pulsing card rects, corner radius
        self.pulses_in_view = 0  # pulsing cards the last paint drew (0: nothing to animate)
        self.cards_drawn = 0
        self.drawn_markers: list[dict[str, Any]] = []  # the loop markers the last paint drew (world centres)
        self.drawn_shown_edges: list[str] = []  # the edges it drew as shown on request (a loop's, the cuts)
        self.drawn_tags: list[dict[str, Any]] = []  # the name tags it drew (world centres and sizes)
        self.plan_ms = 0.0  # the last paint's time in Python (plan updates, positions)
        #: the last paint's plan update in ms: "update" (Python: the calls made), then each call's name (JS)
        self.plan_parts: dict[str, float] = {}
        self.last_halos: tuple[Any, Any, tuple[float, float, float, float, float]] | None = None
        self.damage = js.window.bendscopeDamage
        self._layer: Any = None  # what does not move while cards move (see ``paint``'s ``moving``)
        self._kept = False  # the layer holds what a paint with ``moving`` drew (damage.js checks it is still good)
        self._moving: tuple[list[str], int, Collection[str], Any] | None = None  # (plan's ids, count, moving, indices)
        self.patched = 0  # frames in a row drawn over the layer (0: the last was drawn whole)
        self.patch_reason = ""  # why the last such frame drew the layer again ("kept": it did not)
        self.patch_reasons: dict[str, int] = {}  # how many frames over the layer, by that reason
        self.last_env: Any = None  # the last paint's drawing environment (tests: where it may differ)
        self.last_xy: Any = None  # and its positions
        self.paint_whole = False  # (tests) paints draw whole frames, as at rest
        self.primed: dict[str, int] = {}  # layers drawn ahead at rest (``prime``), by what the layer needed

    def drawn_halos(self) -> dict[str, list[list[float]]]:
        """The last frame's halos on the screen (CSS px): the κ badges (left, top, width, height),
        the members' boxes (left, top, right, bottom) and the bands between them (four corners,
        flat). Diagnostics for the automation API."""
        if self.last_halos is None:
            return {"badges": [], "boxes": [], "bands": []}
        layers, badges, (cx, cy, zoom, w, h) = self.last_halos

        def sx(x: float) -> float:
            return (x - cx) * zoom + w / 2

        def sy(y: float) -> float:
            return (y - cy) * zoom + h / 2

        boxes: list[list[float]] = []
        bands: list[list[float]] = []
        for layer in layers:
            r = [float(v) for v in layer.rects]
            boxes += [
                [sx(r[i]), sy(r[i + 1]), sx(r[i] + r[i + 2]), sy(r[i + 1] + r[i + 3])] for i in range(0, len(r), 4)
            ]
            q = [float(v) for v in layer.quads]
            bands += [[sx(q[i + k]) if k % 2 == 0 else sy(q[i + k]) for k in range(8)] for i in range(0, len(q), 8)]
        out = [[sx(b.x - b.width / 2), sy(b.y - b.height / 2), b.width * zoom, b.height * zoom] for b in badges]
        return {"badges": out, "boxes": boxes, "bands": bands}

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
        """Forget what depends on the theme's colours (the grid tile; the plan's styles follow
        the theme by themselves)."""
        self._pattern_key = None

    def _grid_pattern(self, dpr: float, spacing: float) -> Any:
        """The dot grid's tile, made at the zoomed spacing in whole device pixels: a pattern
        scaled (or shifted by a fraction of a pixel) is resampled on every fill, which cost the
        software rasteriser ~5 ms a frame where the whole-pixel tile costs under 1 ms."""
        size = max(2, round(spacing * dpr))
        key = (dpr, size, theme.GRID_DOT)
        if self._pattern_key != key:
            tile = js.document.createElement("canvas")
            tile.width = tile.height = size
            tctx = tile.getContext("2d")
            tctx.fillStyle = theme.GRID_DOT
            r = max(1, round(dpr))
            tctx.fillRect(size // 2 - r // 2, size // 2 - r // 2, r, r)
            self._pattern = self.ctx.createPattern(tile, "repeat")
            self._pattern_key = key
        return self._pattern

    def paint(
        self,
        plane: Plane,
        card_of: Callable[[Node], CardLayout],
        *,
        viewport: tuple[float, float],
        dpr: float,
        grid: Grid | None,
        doc_version: int,
        topology: Topology | None,
        selection: Iterable[str],
        selected_edge: str | None,
        dimmed: Iterable[str],
        editing: str | None,
        measure: Measure,
        pulse: float,
        overlay: Overlay,
        layered: bool = False,
        xy: Any = None,
        pins: bool = True,
        camera: Camera | None = None,
        markers: Sequence[LoopMarker] = (),
        loop_edges: Iterable[str] = (),
        loop_class: str = "?",
        cut_edges: Iterable[str] = (),
        tree_epoch: int = 0,
        moving: Collection[str] | None = None,
        touched: Callable[[int], set[str] | None] | None = None,
        tags: Iterable[str] = (),
    ) -> None:
        """Draw ``plane`` at its camera (or ``camera``); ``grid`` None: no dot grid.
        ``moving`` (the cards the layout may move, while few do): what does not move is drawn
        once into an offscreen layer and each frame copies it and draws the moving part over it
        (static/damage.js says when the layer must be drawn again), pulses over both.
        ``layered`` (pulses animate, nothing else moves): the
        pulsing borders go on top of a copy of everything else, kept so that :meth:`repulse`
        redraws a pulse-only frame with one image copy. ``xy``: the frame's positions as a JS
        Float64Array when the layout worker's frame already holds them (else read from the plane).
        ``markers``, ``loop_edges``, ``loop_class``, ``cut_edges``, ``tree_epoch``: see
        ``bend.render.scene.build_scene``; ``touched``, ``tags``: see ``ScenePlanner.update``."""
        t0 = js.performance.now()
        self._pulse = None
        calls = self.planner.update(
            plane,
            card_of,
            doc_version=doc_version,
            topology=topology,
            selection=selection,
            selected_edge=selected_edge,
            dimmed=dimmed,
            editing=editing,
            measure=measure,
            viewport=viewport,
            camera=camera,
            markers=markers,
            loop_edges=loop_edges,
            loop_class=loop_class,
            cut_edges=cut_edges,
            tree_epoch=tree_epoch,
            moving=moving,
            touched=touched,
            tags=tags,
        )
        t1 = js.performance.now()
        parts = self.plan_parts = {"update": t1 - t0}
        for name, args in calls:
            if name == "setConstants" and self.detail:
                args = ({**args[0], "edgeDetailLimit": 1e15, "haloDetailLimit": 1e15},)
            getattr(self.scene, name)(self.plan, *(_arg(a) for a in args))
            t2 = js.performance.now()
            parts[name] = parts.get(name, 0.0) + t2 - t1
            t1 = t2
        if xy is None:
            xy = to_js(positions(plane))
        self.plan_ms = js.performance.now() - t0
        ctx = self.ctx
        w, h = viewport
        self.resize(w, h, dpr)
        whole = moving is None or self.detail or self.paint_whole
        indices = None if whole else self._moving_indices(moving)
        ctx.setTransform(1, 0, 0, 1, 0, 0)
        ctx.setLineDash(js_obj([]))
        ctx.globalAlpha = 1
        if indices is None:  # (over the layer, its copy replaces every pixel: no background under it)
            ctx.fillStyle = theme.BACKGROUND
            ctx.fillRect(0, 0, w * dpr, h * dpr)
        # dot grid: a tile of the zoomed spacing, shifted by whole device pixels
        if grid is not None:
            pattern = self._grid_pattern(dpr, grid.spacing)
            pattern.setTransform(
                js.DOMMatrix.new(js_obj([1, 0, 0, 1, round(grid.offset_x * dpr), round(grid.offset_y * dpr)]))
            )
            if indices is None:
                ctx.fillStyle = pattern
                ctx.fillRect(0, 0, w * dpr, h * dpr)
        else:
            pattern = theme.BACKGROUND  # (what a halo's inside is repainted with)
        cam = camera or plane.camera
        view = {"cx": cam.x, "cy": cam.y, "zoom": cam.zoom, "width": w, "height": h, "pulse": pulse, "pins": pins}
        grid_key = "" if grid is None else f"{grid.spacing}|{grid.offset_x}|{grid.offset_y}"
        env = {**view, "dpr": dpr, "background": theme.BACKGROUND, "layered": layered, "grid": grid_key}
        env_js = js_obj(env)
        env_js.pattern = pattern
        env_js.skip = getattr(js.window, "__skip", None)  # (diagnostics: bench/bench_large.py)
        self.last_env, self.last_xy = env_js, xy
        if indices is not None:
            # cards move: the layer of what does not move, copied, and the moving part over it
            drawn = self.damage.paint(
                ctx, self._layer_canvas(), self.plan, xy, js_obj(view), env_js, indices, self._kept
            )
            geometry = drawn.geometry
            self._kept = True
            self.patched += 1
            self.patch_reason = str(drawn.reason)
            self.patch_reasons[self.patch_reason] = self.patch_reasons.get(self.patch_reason, 0) + 1
        else:
            geometry = self.scene.geometry(self.plan, xy, js_obj(view))
            drawn = self.scene.draw(ctx, self.plan, geometry, env_js)
            # (the layer stays: whole frames never draw on it, and the next drag may find it good)
            self.patched = 0
            self.patch_reason = ""
        self.last_halos = (geometry.halos, geometry.badges, (cam.x, cam.y, cam.zoom, w, h))
        self.cards_drawn = int(drawn.cards)
        self.pulses_in_view = int(drawn.pulses)
        self.drawn_markers = [
            {"label": str(m.label), "x": float(m.x), "y": float(m.y), "clockwise": bool(m.clockwise)}
            for m in drawn.markers
        ]
        ids = self.planner.edge_ids()
        self.drawn_shown_edges = [ids[int(k)] for k in drawn.shownEdges]
        self.drawn_tags = [
            {"text": str(t.text), "x": float(t.x), "y": float(t.y), "width": float(t.width), "height": float(t.height)}
            for t in drawn.tags
        ]
        self._overlay(overlay, cam.zoom)
        if self.after is not None:
            self.after(ctx, cam.zoom)
        if layered and indices is None:
            base = self._base_canvas()
            bctx = base.getContext("2d")
            bctx.setTransform(1, 0, 0, 1, 0, 0)
            bctx.clearRect(0, 0, base.width, base.height)
            bctx.drawImage(self.canvas, 0, 0)
            self._pulse = (drawn.transform, drawn.pulseRects, float(drawn.pulseRadius))
            self.scene.repulse(
                ctx, self.plan, drawn.transform, drawn.pulseRects, float(drawn.pulseAlpha), float(drawn.pulseRadius)
            )

    def send_plan(self, plane: Plane, card_of: Callable[[Node], CardLayout], **state: Any) -> None:
        """Bring the page's plan up to date without drawing (``ScenePlanner.update``'s calls for
        ``state``, the arguments :meth:`paint` gives it): a document just installed has its
        plan sent in a task of its own, and its first frame only draws. O(n + m) for the parts
        that changed."""
        t0 = js.performance.now()
        parts = self.plan_parts = {}
        for name, args in self.planner.update(plane, card_of, **state):
            t1 = js.performance.now()
            getattr(self.scene, name)(self.plan, *(_arg(a) for a in args))
            parts[name] = parts.get(name, 0.0) + js.performance.now() - t1
        self.plan_ms = js.performance.now() - t0

    def legend(self, ctx: Any, layout: LegendLayout, top: float, width: float, dpr: float) -> None:
        """The legend of an exported image on ``ctx`` below its graph (``top``: CSS px from
        the image's top), drawn as ``bend.render.svgexport`` writes it."""
        ctx.setTransform(dpr, 0, 0, dpr, 0, top * dpr)
        ctx.setLineDash(js_obj([]))
        ctx.fillStyle = theme.BACKGROUND
        ctx.fillRect(0, 0, width, layout.height)
        ctx.strokeStyle = theme.CARD_BORDER
        ctx.lineWidth = 1
        ctx.beginPath()
        ctx.moveTo(0, 0.5)
        ctx.lineTo(width, 0.5)
        ctx.stroke()
        ctx.textBaseline = "alphabetic"
        ctx.textAlign = "left"
        ctx.font = TITLE_FONT
        ctx.fillStyle = theme.TEXT["body"]
        ctx.fillText(layout.title, 12, 23)
        for placed in layout.items:
            entry, x, mid = placed.entry, placed.x, placed.y + 7
            ctx.setLineDash(js_obj([]))
            if entry.kind in ("card", "stargate", "halo"):
                path = self.paths.rects(floats([x + 2, mid - 6, SWATCH - 4, 12]), 3.0)
                ctx.fillStyle = entry.fill
                ctx.fill(path)
                ctx.strokeStyle = entry.color
                ctx.lineWidth = 2 if entry.kind == "stargate" else 1
                ctx.stroke(path)
            elif entry.kind in ("sign", "loop"):
                path = self.paths.rects(floats([x + 4, mid - 6.5, 13, 13]), 6.5)
                ctx.fillStyle = entry.fill
                ctx.fill(path)
                ctx.strokeStyle = theme.EDGE_COLOR["causal"] if entry.kind == "sign" else entry.color
                ctx.lineWidth = 1
                ctx.stroke(path)
                ctx.font = "700 11px Inter"
                ctx.fillStyle = entry.color
                ctx.textAlign = "center"
                ctx.textBaseline = "middle"
                ctx.fillText(entry.sign, x + 10.5, mid + 0.5)
                ctx.textAlign = "left"
                ctx.textBaseline = "alphabetic"
            else:
                ctx.strokeStyle = entry.color
                ctx.lineWidth = 2
                if entry.kind == "dashed":
                    ctx.setLineDash(js_obj(list(theme.FAULT_DASH)))
                ctx.beginPath()
                ctx.moveTo(x, mid)
                ctx.lineTo(x + SWATCH - 2, mid)
                ctx.stroke()
            ctx.font = LEGEND_FONT
            ctx.fillStyle = theme.TEXT["body"]
            ctx.fillText(entry.text, x + SWATCH + 8, mid + 4)
        ctx.setLineDash(js_obj([]))

    def _moving_indices(self, moving: Collection[str]) -> Any:
        """The plan's indices of ``moving`` as a JS array, made again only when the set or the
        plan's cards changed. O(len(moving))"""
        ids = self.planner.ids
        kept = self._moving
        if kept is None or kept[0] is not ids or kept[1] != len(ids) or kept[2] != moving:
            index = self.planner.index
            kept = self._moving = (ids, len(ids), moving, to_js([index[n] for n in moving if n in index]))
        return kept[3]

    def prime(self, moving: Collection[str]) -> str:
        """Draw the layer of what does not move ahead, at rest, for the cards ``moving`` (what a
        drag of the hovered card will move): the plan, view and positions of the last paint,
        which must have been the last change (the caller paints first when anything changed).
        The press's frame then only copies the layer. What the layer needed: "kept" (good
        already), else why it was drawn; "" when nothing was painted yet. O(n) to check, plus
        the layer's drawing when it was not good."""
        env, xy = self.last_env, self.last_xy
        if env is None or xy is None or self.detail:
            return ""
        view = js_obj({k: getattr(env, k) for k in ("cx", "cy", "zoom", "width", "height", "pulse", "pins")})
        indices = self._moving_indices(moving)
        layer = self._layer_canvas()
        reason = str(self.damage.prime(self.canvas, layer, self.plan, xy, view, env, indices, self._kept))
        self._kept = True
        self.primed[reason] = self.primed.get(reason, 0) + 1
        return reason

    def left_out(self) -> list[str]:
        """The cards the kept layer leaves out (drawn over it each frame), in the plan's order
        (diagnostics)."""
        layer, ids = getattr(self.plan, "layer", None), self.planner.ids
        if layer is None or not self._kept:
            return []
        only = layer.only.to_py()
        return [ids[i] for i in range(min(len(ids), len(only))) if only[i]]

    def forget_kept(self) -> None:
        """The next paint draws its layer afresh."""
        self._kept = False

    def _layer_canvas(self) -> Any:
        if self._layer is None:
            self._layer = js.document.createElement("canvas")
        return self._layer

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
        transform, rects, radius = self._pulse
        self.scene.repulse(ctx, self.plan, transform, rects, alpha, radius)

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
            ctx.stroke(self.paths.rects(floats(list(ov.ring)), theme.CARD_RADIUS + 4 / zoom))
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
            self._pill(ov.label)

    def _pill(self, p: Pill) -> None:
        ctx = self.ctx
        path = self.paths.rects(floats([p.x - p.width / 2, p.y - p.height / 2, p.width, p.height]), 999.0)
        ctx.fillStyle = p.fill
        ctx.fill(path)
        if p.border:
            ctx.strokeStyle = p.border
            ctx.lineWidth = 1
            ctx.stroke(path)
        ctx.textAlign = "center"
        ctx.textBaseline = "middle"
        ctx.font = p.font
        ctx.fillStyle = p.color
        ctx.fillText(p.text, p.x, p.y + 0.5)
        ctx.textAlign = "left"
        ctx.textBaseline = "alphabetic"
