"""The page's automation API, ``window.bendscope``: what tests, benchmarks and scripts call
to load a graph, run actions, read the topology, the loops, the layout's and the frames'
state, and save (the editor guide's "automation API" page lists it). Each call is a method
of :class:`AutomationApi`, answered with plain JS values or JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import create_once_callable, jsnull, to_js

from bendscope.bend.actions.commands import Target
from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.loading import sliced
from bendscope.bend.kappa_view.loops_panel import loop_marks
from bendscope.bend.render.edge_paths import edge_label_box, edge_path
from bendscope.bend.render.svgexport import image_view

from .dom import js_obj, proxy
from .images import image_ids
from .widgets import outline_lines

if TYPE_CHECKING:
    from .app import App


class AutomationApi:
    """``window.bendscope`` for one :class:`~bendscope.app.app.App`."""

    def __init__(self, app: App) -> None:
        self.app = app

    def load(self, text: Any) -> Any:
        if self.app.live is not None:
            return "the page shows the agent's memory (live mode): load is off"
        text = str(text)
        if sliced(text) and not self.app.still:
            # read between frames; the promise is kept with the error or null once it is in
            def executor(resolve: Any, _reject: Any) -> None:
                self.app.load_in_slices(text, lambda error: resolve(jsnull if error is None else error))

            return js.Promise.new(create_once_callable(executor))
        error = self.app.editor.load(text, label=None)
        if error is None:
            if self.app.still:
                self.app.editor.settle()
            self.app.request_frame()
            return jsnull
        return error

    def hold_load(self, held: Any) -> None:
        """Keep a document coming in (a large ``load``) where it is while ``held``, or let it go
        on (tests act on the page meanwhile)."""
        self.app.load_held = bool(held)
        self.app.request_frame()

    def settle(self) -> int:
        steps = self.app.editor.settle()
        self.app.paint(js.performance.now())
        return steps

    def stats(self) -> Any:
        return js_obj(self.app.editor.stats())

    def screen_position(self, node_id: Any) -> Any:
        pos = self.app.editor.screen_position(str(node_id))
        return jsnull if pos is None else to_js(pos)

    def card_box(self, node_id: Any) -> Any:
        """A card's box on the screen: left, top, width, height (CSS px)."""
        node = self.app.editor.plane.nodes.get(str(node_id))
        if node is None:
            return jsnull
        x, y = self.app.editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
        zoom = self.app.editor.plane.camera.zoom
        return to_js([x, y, node.width * zoom, node.height * zoom])

    def card_words(self, node_id: Any) -> Any:
        """The words a card shows, line by line (an empty card's are its placeholder)."""
        node = self.app.editor.plane.nodes.get(str(node_id))
        return jsnull if node is None else to_js([line.text for line in self.app.editor.card(node).lines])

    def edge_points(self, edge_id: Any) -> Any:
        """Screen points of an edge as drawn: the middle of its line and its label's centre."""
        plane = self.app.editor.plane
        edge = plane.edges.get(str(edge_id))
        path = None if edge is None else edge_path(plane, edge)
        if edge is None or path is None:
            return jsnull
        k = len(path) // 4 * 2  # the middle point of a curve; a straight line's is computed
        mx, my = (path[k], path[k + 1]) if len(path) > 4 else ((path[0] + path[2]) / 2, (path[1] + path[3]) / 2)
        box = edge_label_box(plane, edge, self.app.measure)
        label = None if box is None else list(self.app.editor.world_to_screen(box[0], box[1]))
        return to_js({"middle": list(self.app.editor.world_to_screen(mx, my)), "label": label})

    def action(self, action_id: Any, target: Any = None, args: Any = None) -> Any:
        t = target.to_py() if hasattr(target, "to_py") else (target or {})
        a = args.to_py() if hasattr(args, "to_py") else (args or {})
        result = self.app.perform(
            str(action_id),
            Target(t.get("node_id"), t.get("edge_id"), float(t.get("x", 0.0)), float(t.get("y", 0.0))),
            a,
            interactive=False,
        )
        self.app.paint(js.performance.now())
        return jsnull if result is None or (isinstance(result, bool) and not result) else str(result)

    def select(self, node_ids: Any) -> None:
        """Select a card (an id) or cards (a list of ids)."""
        ids = node_ids.to_py() if hasattr(node_ids, "to_py") else node_ids
        self.app.editor.select([str(ids)] if isinstance(ids, str) else [str(i) for i in ids])
        self.paint_now()

    def image_box(self) -> Any:
        """The exported image of the plane (or the selection): its top-left in the world,
        its width and height, and its graph's height (the legend below it)."""
        view = image_view(self.app.editor, image_ids(self.app), self.app.loops_panel.markers())
        return to_js([view.x, view.y, view.width, view.height, view.graph_height])

    def world_box(self, node_id: Any) -> Any:
        """A card's box in the world: left, top, width, height."""
        node = self.app.editor.plane.nodes.get(str(node_id))
        if node is None:
            return jsnull
        return to_js([node.x - node.width / 2, node.y - node.height / 2, node.width, node.height])

    def select_edge(self, edge_id: Any) -> None:
        self.app.editor.select_edge(str(edge_id))
        self.paint_now()

    def frame_times(self) -> Any:
        return to_js(list(self.app.frame_times))

    def layout_state(self) -> Any:
        editor = self.app.editor
        sim = editor.sim()
        return js_obj(
            {
                # frozen: not moving, whatever the engine's alpha; a document coming in counts
                "active": editor.animating or editor.loading is not None,
                "arranging": self.app.arranging,
                "loading": editor.loading is not None,
                "read": editor.loading is not None and editor.loading.ready,  # (read whole, to be installed)
                "alpha": sim.alpha,
                "engine": type(sim).__name__,
                "overlaps": getattr(sim, "overlaps", -1),
                "frames": getattr(sim, "frames", 0),
                "ticks": getattr(sim, "ticks", 0),
                "written": getattr(sim, "changed_last", -1),  # (cards the last frame taken wrote)
                "slices": list(self.app.layout_slices[-600:]),
                "kappa_shown_steps": editor.topology_cache.shown_steps,  # (κ slices run by frames)
            }
        )

    def profile_paint(self, repeats: Any = 20) -> Any:
        """Median ms over ``repeats`` full paints of: ``scene`` (Python: topology lookup, the
        plan's changed parts, the positions), ``canvas`` (the rest of the paint: the page's
        geometry, the canvas calls, the widgets) and ``raster`` (the canvas's own drawing,
        forced by reading one pixel right after; the browser does it at the end of a frame)."""
        parts: list[tuple[float, float, float]] = []
        ctx = self.app.canvas.getContext("2d")
        for _ in range(int(repeats)):
            t0 = js.performance.now()
            self.app.paint(t0)
            t1 = js.performance.now()
            ctx.getImageData(0, 0, 1, 1)
            t2 = js.performance.now()
            parts.append((self.app.scene_ms, t1 - t0 - self.app.scene_ms, t2 - t1))
        return js_obj(
            {k: sorted(p[i] for p in parts)[len(parts) // 2] for i, k in enumerate(("scene", "canvas", "raster"))}
        )

    def frame_parts(self) -> Any:
        return to_js([list(p) for p in self.app.frame_parts])

    def task_log(self) -> str:
        """The last background tasks (``App.task_log``: start, ms, what), as JSON."""
        return json.dumps(self.app.task_log)

    def frame_log(self) -> str:
        """The last painted frames' parts in ms (``App.frame_log``), as JSON."""
        return json.dumps(self.app.frame_log)

    def interaction(self) -> str:
        view = self.app.tools.view()
        link = view.link
        drawn = None if link is None else {"source": link.source, "target": link.target, "label": link.label}
        pill = self.app.gesture_overlay().label
        box = None
        if pill is not None:  # the κ pill's box on the screen: left, top, width, height
            zoom = self.app.editor.plane.camera.zoom
            left, top = self.app.editor.world_to_screen(pill.x - pill.width / 2, pill.y - pill.height / 2)
            box = [left, top, pill.width * zoom, pill.height * zoom]
        return json.dumps(
            {
                "state": self.app.tools.state_name,
                "handle": view.handle,
                "brush": view.brush,
                "link": drawn,
                "pill": box,
                "selection": list(self.app.editor.selection),
                "selected_edge": self.app.editor.selected_edge,
            }
        )

    def topology_state(self) -> Any:
        editor = self.app.editor
        shown = self.app.shown_topology
        return js_obj(
            {
                "pending": editor.topology_cache.pending(editor.plane),
                "slices": 0 if shown is None else shown.slices,
                "duration_ms": 0.0 if shown is None else shown.duration_ms,
                "digraph_ready": editor.topology_cache.digraph_ready(editor.plane),
                "digraphs_made": editor.topology_cache.digraphs_made,
            }
        )

    def outline_state(self) -> str:
        """The screen reader's outline as the page shows it and as it is built from the state now
        (``outline_of`` with the exact topology), and its rebuilds (all, and while the layout
        moved cards), as JSON."""
        outline = self.app.outline
        return json.dumps(
            {
                "shown": [str(outline.summary.textContent), [str(li.textContent) for li in outline.loops.children],
                          [str(li.textContent) for li in outline.cards.children]],
                "now": outline_lines(self.app.editor, self.app.editor.topology()),
                "builds": outline.builds,
                "built_moving": outline.built_moving,
            }
        )  # fmt: skip

    def loops_state(self) -> str:
        """The loop list the page holds (JSON): whether the panel is open, the search
        pending (and the loop and cut searches under way), the shown loop's cards, the faded
        cards, and the report's groups."""
        panel = self.app.loops_panel
        report = panel.report
        shown = panel.shown()
        groups = [] if report is None else report.groups_json(loop_marks(report))
        painter, zoom = self.app.painter, self.app.editor.plane.camera.zoom
        return json.dumps(
            {
                "open": panel.open,
                "pending": self.app.loops_pending,
                "searches": self.app.editor.loop_finder.searches,
                # (searches begun and not ended, and the cut searches ended: none begins during a gesture)
                "searching": [self.app.editor.loop_finder.pending, self.app.editor.cut_finder.pending],
                "cut_searches": self.app.editor.cut_finder.searches,
                "shown": None if shown is None else list(shown.nodes),
                "chosen": None if panel.chosen is None else list(panel.chosen.nodes),
                "hovered": None if panel.hovered is None else list(panel.hovered.nodes),
                "dimmed": len(panel.dimmed()),
                "groups": groups,
                "markers": panel.markers_on,
                "marked": [{"label": m.label, "nodes": list(m.nodes)} for m in panel.markers()],
                "drawn_markers": [
                    {**m, "screen": list(self.app.editor.world_to_screen(m["x"], m["y"]))}
                    for m in painter.drawn_markers
                ],
                "shown_edges": painter.drawn_shown_edges,
                "drawn_tags": [  # (screen: the tag's centre; size: its width and height in CSS px)
                    {
                        "text": t["text"],
                        "screen": list(self.app.editor.world_to_screen(t["x"], t["y"])),
                        "size": [t["width"] * zoom, t["height"] * zoom],
                    }
                    for t in painter.drawn_tags
                ],
            }
        )

    def loop_cuts(self) -> str:
        """The fewest edges that break every loop of the loop scope, as the page holds them
        (JSON): pending, shown (K), per region its bounds and edges, and the edges drawn."""
        editor = self.app.editor
        report = editor.cut_finder.report(editor.plane, self.app.scope_topology(), editor.loop_scope())
        regions = [] if report is None else [
            {"id": r.scc_id, "lower": r.lower, "size": r.size, "exact": r.exact, "edges": list(r.edges)}
            for r in report.regions
        ]  # fmt: skip
        return json.dumps({"pending": report is None, "shown": editor.cuts_shown, "regions": regions,
                           "drawn": list(editor.shown_cuts(report))})  # fmt: skip

    def render_counts(self) -> Any:
        return js_obj({"paints": self.app.paints, "pulse_frames": self.app.pulse_frames})

    def redraw_check(self) -> Any:
        """The last frame against the same frame drawn whole (at the same time, so the same
        pulse): how many pixels differ outside where a frame drawn over the layer of what does
        not move may differ (``outside``; ``outside_visible``: by more than 8 levels of 255 —
        the rasteriser may round a path's antialiasing differently when it holds fewer shapes) and in
        all (``differ``); ``patched``: frames in a row
        drawn over the layer (0: the last was drawn whole); ``moving``: the cards drawn over it."""
        app, painter = self.app, self.app.painter
        canvas = app.canvas
        ctx = canvas.getContext("2d")
        shown = ctx.getImageData(0, 0, canvas.width, canvas.height)
        patched, env = painter.patched, painter.last_env
        where = painter.damage.footprint(painter.plan, painter.last_xy, env)
        moving = -1 if painter.plan.layer is None or not patched else sum(painter.plan.layer.only.to_py())
        painter.paint_whole = True
        try:
            app.paint(app.last_ts, layered=patched > 0)
        finally:
            painter.paint_whole = False
        whole = ctx.getImageData(0, 0, canvas.width, canvas.height)
        differ = painter.damage.differ
        visible = differ(shown.data, whole.data, canvas.width, where, 8)
        return js_obj(
            {
                "outside_visible": visible,
                "at": differ.at,  # (the first few of them)
                "patched": patched,
                "moving": moving,
                "differ": differ(shown.data, whole.data, canvas.width, None, 0),
                "outside": differ(shown.data, whole.data, canvas.width, where, 0),
            }
        )

    def paint_now(self) -> None:
        self.app.paint(js.performance.now())

    async def check_wheel(self, url: Any) -> str:
        return await wheel_check(str(url), self.app.editor)

    async def save_now(self) -> bool:
        saved = await self.app.saving.save_now()
        self.app.saving.update_banner()
        return saved

    async def saved_copies(self) -> str:
        saver = self.app.saving.saver
        copies = [] if saver is None else await saver.copies()
        return json.dumps([{"key": c.key, "reason": c.reason, "size": c.size} for c in copies])

    def install(self) -> None:
        """Put the API on ``window.bendscope`` (``ready`` turns true once the page is up)."""
        api = js.Object.new()
        api.ready = False
        for name, fn in {
            "load": self.load,
            "export": lambda: self.app.editor.export(),
            "topology": lambda: self.app.editor.topology().json(),
            "settle": self.settle,
            "stats": self.stats,
            "screen_position": self.screen_position,
            "edge_points": self.edge_points,
            "card_box": self.card_box,
            "card_words": self.card_words,
            "action": self.action,
            "undo": lambda: self.action("undo"),
            "redo": lambda: self.action("redo"),
            "select": self.select,
            "select_edge": self.select_edge,
            "image_box": self.image_box,
            "world_box": self.world_box,
            "frame_times": self.frame_times,
            "layout_state": self.layout_state,
            "layout_active": lambda: self.app.editor.animating or self.app.editor.loading is not None,
            "hold_load": self.hold_load,
            "render_counts": self.render_counts,
            "topology_state": self.topology_state,
            "loops_state": self.loops_state,
            "loop_cuts": self.loop_cuts,
            "interaction": self.interaction,
            "frame_parts": self.frame_parts,
            "frame_log": self.frame_log,
            "task_log": self.task_log,
            "drawn_halos": lambda: json.dumps(self.app.painter.drawn_halos()),
            "outline_state": self.outline_state,
            "profile_paint": self.profile_paint,
            "paint": self.paint_now,
            "redraw_check": self.redraw_check,
            "patch_state": lambda: js_obj(
                {
                    "patched": self.app.painter.patched,
                    "reason": self.app.painter.patch_reason,
                    "reasons": self.app.painter.patch_reasons,
                    "left_out": self.app.painter.left_out(),
                    # (the last layer drawn because cards moved: [cards that came to move, cards it showed that moved])
                    "grew": getattr(getattr(self.app.painter.plan, "layer", None), "grew", None),
                    # layers drawn ahead at rest for the hovered card's drag, by what the layer needed
                    "primed": self.app.painter.primed,
                    # the cycle collector: off for a gesture; collections run at rest, forced in gestures
                    "collector": self.app.ahead.collector.state(),
                }
            ),
            "check_wheel": self.check_wheel,
            "save_status": lambda: json.dumps(self.app.saving.status()),
            "save_now": self.save_now,
            "saved_copies": self.saved_copies,
            "live_state": lambda: json.dumps(self.app.live.state() if self.app.live is not None else {"live": False}),
            "live_arrivals": lambda: json.dumps(self.app.live.arrivals if self.app.live is not None else {}),
        }.items():
            setattr(api, name, proxy(fn))
        js.window.bendscope = api


async def wheel_check(url: str, editor: Editor) -> str:
    """Install the kappa wheel at ``url`` with micropip and compare its ``analyze`` with
    the [files] copy on the active plane. Returns JSON {same, wheel_file, files_file}."""
    import importlib
    import json
    import sys

    import pyodide_js

    from bendscope.bend.kappa_view.topology_cache import plane_graph

    await pyodide_js.loadPackage("micropip")
    import micropip

    await micropip.install(url)
    files_copy = sys.modules["bendscope.kappa"]
    saved_modules = {k: v for k, v in sys.modules.items() if k == "bendscope" or k.startswith("bendscope.")}
    saved_path = list(sys.path)
    nodes, edges = plane_graph(editor.plane)
    try:
        for name in saved_modules:
            del sys.modules[name]
        sys.path[:] = [p for p in sys.path if "site-packages" in p or p.endswith(".zip") or "lib/python" in p]
        wheel_copy = importlib.import_module("bendscope.kappa")
        from_wheel = wheel_copy.analyze(nodes, edges)
        wheel_file = wheel_copy.__file__
    finally:
        for name in [k for k in sys.modules if k == "bendscope" or k.startswith("bendscope.")]:
            del sys.modules[name]
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
    from_files = files_copy.analyze(nodes, edges)
    return json.dumps(
        {
            "same": from_wheel == from_files,
            "wheel_file": wheel_file,
            "files_file": files_copy.__file__,
            "result": from_wheel,
        }
    )
