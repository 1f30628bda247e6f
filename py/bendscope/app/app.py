"""The browser application: the Editor on the canvas, the frames and background slices, the
widgets, actions and files; its input wiring is ``app.events``, its automation API ``app.api``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_once_callable

from bendscope.bend.actions.commands import EXPORTS, Target
from bendscope.bend.actions.dispatch import ActionManager, Outcome
from bendscope.bend.editor.editor import LOADING, Editor
from bendscope.bend.editor.loading import sliced
from bendscope.bend.editor.url_params import KNOWN, parse_params
from bendscope.bend.editor.viewfit import card_rects, card_under
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.layout.simulation import drag_moving, moving_cards, slice_budget
from bendscope.bend.menus import catalog
from bendscope.bend.menus.catalog import MenuItem
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import Document, empty_document
from bendscope.bend.pointer.machine import Tools
from bendscope.bend.pointer.states import GESTURES, PointingNode
from bendscope.bend.render import theme
from bendscope.bend.render.scene import FROZEN_PULSE, Overlay, grid_of, overlay_of, pulse_value
from bendscope.kappa.steps import Steps
from bendscope.shared.docformat import DocumentError, decode_file

from . import d3layout, dom, links
from .ahead import Ahead
from .api import AutomationApi
from .dom import CanvasMeasure, by_id, coarse_pointer, name_finger_gestures, on, proxy
from .events import InputWiring
from .images import export_file, export_image, export_png
from .live_mode import LiveMode, live_key
from .loops_widget import InSight, LoopsPanel, panel_boxes
from .menu_popup import Menu
from .painter import Painter
from .saving import SaveController
from .widgets import (
    Breadcrumbs,
    Dialog,
    FindBar,
    HelpSheet,
    Hud,
    Inspector,
    Legend,
    OutlineView,
    TextOverlay,
    Toast,
)

PULSE_INTERVAL_MS = 66  # pulses alone repaint at ~15 fps; the layout runs at full rate
TOPOLOGY_FRAME_MS = 6.0  # κ work a frame may do before it shows the previous topology as pending
KAPPA_SLICE_MS = 12.0  # a κ slice between frames (input and frames run between slices)
LOAD_SLICE_MS = 12.0  # a slice of a document coming in (Editor.start_load), between frames
MIN_SLICE_MS = 4.0  # a load, κ or search slice with less time left before the next frame waits for it
LOOPS_FRAME_MS = 2.0  # loop-search work a frame may do before the rest goes to slices of its own
THEME_KEY = "bendscope.theme"  # localStorage: "light" | "dark", once chosen with the toolbar switch
FREEZE_KEY = "bendscope.freeze-layout"  # localStorage: the Freeze layout switch is remembered
LAYOUT_PROGRESS_AFTER_MS = 800.0  # a layout still running after this shows its progress in the HUD
FONTS = ("400 12px Inter", "600 13px Inter", "700 15px Inter", "400 11px 'JetBrains Mono'", "700 10px 'JetBrains Mono'")
#: actions that make or open planes: off in live mode (the memory has no planes to keep them in)
PLANE_ACTIONS = frozenset({"new-stargate", "to-stargate", "enter-stargate"})


def url_params() -> dict[str, str]:
    params = js.URLSearchParams.new(js.window.location.search)
    return {k: str(params.get(k)) for k in KNOWN if params.has(k)}


class App:
    def __init__(self) -> None:
        params = parse_params(url_params())
        self.param_problems = params.problems
        self.still = params.still
        self.reduced_motion = bool(js.window.matchMedia("(prefers-reduced-motion: reduce)").matches)
        self.measure = CanvasMeasure()
        factories = {"worker": d3layout.factory, "d3": d3layout.main_thread_factory}
        layout = factories.get(params.layout)  # None: the pure-Python layout
        self.worker_layout = layout is d3layout.factory
        self.installed = False  # a document coming in was just installed (see paint)
        self.editor = Editor(measure=self.measure, seed=params.seed, layout=layout)
        self.editor.exact_limit_override = params.exact_limit
        name_finger_gestures(self.editor)
        self.actions = ActionManager(self.editor)
        self.tools = Tools(self.editor)
        self.editor.topology_cache.on_recompute = lambda plane, topo: js.console.debug(topo.log_line())
        self.canvas = by_id("canvas")
        self.painter = Painter(self.canvas)
        self.hud = Hud()
        self.inspector = Inspector(lambda action_id: self.perform(action_id))
        self.outline = OutlineView()
        self.crumbs = Breadcrumbs(self.go_to_plane)
        self.legend = Legend()
        self.toast = Toast(lambda: card_rects(self.editor), lambda r: card_under(self.editor, r), panel_boxes)
        self.in_sight = InSight(self.editor)
        self.dialog = Dialog()
        self.help = HelpSheet()
        self.find = FindBar(self.editor, self.request_frame)
        self.loops_panel = LoopsPanel(self.editor, self.request_frame)
        self.loops_pending = self.cuts_pending = False  # searches (loops, fewest cuts) the panel or inspector waits for
        self._empty_hint: bool | None = None
        try:
            self.editor.layout_frozen = js.localStorage.getItem(FREEZE_KEY) == "1"
        except Exception:  # storage refused (private mode): the switch starts off
            self.editor.layout_frozen = False
        self._frozen = self.editor.layout_frozen  # written to storage only when switched
        stored = None
        with contextlib.suppress(Exception):
            stored = js.localStorage.getItem(THEME_KEY)
        prefers_dark = bool(js.window.matchMedia("(prefers-color-scheme: dark)").matches)
        self.apply_theme(str(stored) if stored in ("light", "dark") else ("dark" if prefers_dark else "light"), False)
        by_id("btn-freeze").setAttribute("aria-pressed", "true" if self._frozen else "false")
        self.menu = Menu(self.activate_item)
        self.overlay = TextOverlay(self.editor, self._text_edit_done, lambda text: self.toast.show(text, error=True))
        self.saving = SaveController(
            self.editor, toast=lambda text: self.toast.show(text, ms=6000), request_frame=self.request_frame
        )
        self.frame_pending, self.pulse_timer, self.last_frame = False, None, 0.0
        self.last_ts = 0.0  # the time the last full paint was drawn for (its pulse)
        self.frame_times: list[float] = []  # ms per painted frame (layout step + scene + paint)
        self.frame_parts: list[tuple[float, float, float, float]] = []  # (start, layout step, scene, canvas) ms
        self.scene_ms = 0.0
        self.scene_parts: dict[str, float] = {}  # the last paint's scene work before the painter's, ms by part
        self.widgets_ms = 0.0  # the last paint's HUD, inspector, outline and other widgets
        self.frame_log: list[dict[str, Any]] = []  # the last painted frames' parts in ms (see _frame)
        self.applied_since: list[float] = []  # ms of each live change brought in since the last painted frame
        self.task_log: list[tuple[float, float, str]] = []  # the last background tasks: (start, ms, what)
        self._frame_proxy = proxy(self._frame)
        self._pump_proxy = proxy(self._pump)
        self.pump_pending = False
        self.pump_budget = 0.0
        self.slice_waited = False  # the pending slice waited for a frame (it runs after it, however late)
        self.last_paint_ms = 0.0
        self.pulse_frames = 0  # pulse-only frames drawn from the kept image (diagnostics)
        self.shown_topology: Topology | None = None  # what the last paint showed
        self.paints = 0  # full paints (scene + painter)
        self.layout_since: float | None = None  # when the current layout run started
        self.layout_slices: list[float] = []  # ms per layout task (diagnostics)
        self._pulse_proxy = proxy(self._pulse_tick)  # made once: proxies are never freed
        self.ahead = Ahead(self)  # work at rest ahead of gestures (a drag's layer, the collector)
        self.fresh = params.fresh
        self.undo_button = by_id("btn-undo")
        self.redo_button = by_id("btn-redo")
        self._buttons: tuple[bool, bool] | None = None
        self.arranging = False  # an Arrange job is with the layout worker
        #: the document coming in (Editor.start_load) and who is told when it is in (the error or None)
        self.load_held = False  # the automation API keeps the document coming in where it is
        self._tasks: set[Any] = set()
        self.live: LiveMode | None = None  # live mode: served by the memory server, the page shows its memory
        self.events = InputWiring(self)

    # ------------------------------------------------------------------ boot
    async def start(self) -> None:
        dom.on_error = self.report
        for font in FONTS:
            await js.document.fonts.load(font, "Aκ≈→")
        self.measure.cache.clear()
        key = live_key()
        if key is not None:  # the memory is the document: no autosave, no demo
            self.editor.replace_document(empty_document(), alpha=1.0)
            self.resize()
            self.events.wire()
            on(js.window, "pagehide", lambda e: self.live is not None and self.live.keep_positions(force=True))
            self.live = LiveMode(self, key)
            self.live.start()
            self.paint(js.performance.now())
            by_id("loading").hidden = True
            self.request_frame()
            return
        restored = await self.saving.start()
        doc = None if self.fresh else restored.doc
        if doc is not None:
            self.editor.replace_document(doc, alpha=1.0 if doc.needs_layout else 0.0)
        else:
            self.editor.replace_document(demo_document(touch=coarse_pointer()), alpha=1.0)
            self.editor.doc.settings.seed = self.editor.seed
        self.resize()
        if self.still:
            self.editor.settle()
        if doc is None:
            self.editor.opening_view()
        self.events.wire()
        await self.open_link()
        self.paint(js.performance.now())
        by_id("loading").hidden = True
        notes = [*self.param_problems, *([] if self.fresh else restored.notes)]
        if notes:
            self.toast.show(" ".join(notes), error=True, ms=8000)
        self.request_frame()

    # ------------------------------------------------------------------ loading
    def load_in_slices(
        self, text: str, done: Callable[[str | None], None], *, label: str | None = None, name: str = ""
    ) -> None:
        """Read ``text`` in slices between frames (``Editor.start_load``, the first frame's edges made
        ahead); ``done`` is told the error or None in a task of its own (not the installing one's)."""
        self.ahead.loading()  # (no collection until its layout rests)
        self.editor.start_load(
            text, label=label, name=name, prepare=self._prepare_install, then=self.ahead.installed,
            done=lambda error: js.setTimeout(create_once_callable(lambda: done(error)), 0),
        )  # fmt: skip
        self.request_frame()

    def _prepare_install(self, doc: Document) -> Steps[None]:
        """What the install of a document coming in would do at once, made ahead in the load's
        slices: its first frame's edge and card arrays (``ScenePlanner.prepare_edges``) and the
        layout worker's graph (``d3layout.prepare_graph``); each is used only if it still holds."""
        plane = doc.planes[doc.active_plane_id]
        yield from self.painter.planner.prepare_edges(plane, self.measure)
        if self.worker_layout:
            yield
            yield from d3layout.prepare_graph(plane)

    # ------------------------------------------------------------------ frames
    def request_frame(self) -> None:
        self.editor.needs_paint = True
        if not self.frame_pending:
            self.frame_pending = True
            js.requestAnimationFrame(self._frame_proxy)

    def _schedule_pump(self, budget_ms: float) -> None:
        if not self.pump_pending and not self.still:
            self.pump_pending = True
            self.pump_budget = budget_ms
            js.bendscopeSlices.soon(self._pump_proxy)

    def _pump(self) -> None:
        """One slice of background work as a task of its own: the κ computation first (slice
        after slice: the topology on screen is only replaced when the new one is complete),
        else the layout (one slice after each frame, sized so that the slice and the next
        frame's paint fit the frame interval). A slice of a load, κ or a search runs for what
        is left before the next frame is due (static/slices.js), at most its own limit; with
        less than ``MIN_SLICE_MS`` left it waits for the frame and runs right after it (for that
        long at least, however long the frame took)."""
        editor = self.editor
        slicing = (editor.loading is not None and not self.load_held) or editor.topology_cache.pending(editor.plane)
        left = float(js.bendscopeSlices.left())
        if left < MIN_SLICE_MS and not self.slice_waited and (slicing or self.loops_pending or self.cuts_pending):
            self.slice_waited = True
            js.bendscopeSlices.afterFrame(self._pump_proxy)  # (pump_pending stays: this slice is due)
            return
        self.pump_pending = self.slice_waited = False
        left = max(left, MIN_SLICE_MS)
        try:
            start, idle = js.performance.now(), not self.ahead.busy()  # (searches wait for gestures to settle)
            if editor.loading is not None and not self.load_held:
                if editor.compute_load(min(LOAD_SLICE_MS, left)):
                    self._schedule_pump(self.pump_budget)
                else:  # (installed, the worker given its graph and the plan sent: ahead.installed)
                    js.setTimeout(create_once_callable(self.request_frame), 0)  # (after the waiter's view)
            elif editor.topology_cache.pending(editor.plane):
                if editor.compute_topology(min(KAPPA_SLICE_MS, left)):
                    self._schedule_pump(self.pump_budget)
                else:
                    self.ahead.kappa_found()  # (its halos made, then the frame showing it)
            elif idle and self.loops_pending and editor.loop_finder.pending:
                if editor.compute_loops(min(KAPPA_SLICE_MS, left)):
                    self._schedule_pump(self.pump_budget)
                else:
                    self.loops_pending = False
                    self.request_frame()
            elif idle and self.cuts_pending and editor.cut_finder.pending:
                if editor.compute_cuts(min(KAPPA_SLICE_MS, left)):
                    self._schedule_pump(self.pump_budget)
                else:
                    self.cuts_pending = False
                    self.request_frame()
            elif not editor.sim().background:
                if self.layout_since is None:
                    self.layout_since = start
                if not editor.tick(self.pump_budget):
                    self.layout_since = None
                self.layout_slices.append(js.performance.now() - start)
                del self.layout_slices[:-600]
                self.request_frame()
            self.log_task(start, "background")
        except Exception as exc:
            self.report(exc)

    def log_task(self, start: float, what: str) -> None:
        """Note a task that began at ``start`` (diagnostics: the benchmarks' long frames)."""
        self.task_log.append((start, js.performance.now() - start, what))
        del self.task_log[:-600]

    def _frame(self, ts: float) -> None:
        self.frame_pending = False
        js.bendscopeSlices.frame(ts)  # (the slices after it know when the next one is due)
        try:
            start = js.performance.now()
            editor = self.editor
            background = editor.sim().background and not self.still
            if background and editor.animating:
                # the layout worker's latest positions (no layout work on this thread)
                if self.layout_since is None:
                    self.layout_since = start
                editor.tick()
            ticked = js.performance.now()
            pulsing = self._pulsing()
            paint_ms = self.last_paint_ms
            painted = self.editor.needs_paint or (pulsing and not self.painter.can_repulse)
            if painted:
                # layered (a copy kept for pulse-only frames) only when nothing else moves
                self.paint(ts, layered=pulsing and not editor.animating)
                end = js.performance.now()
                paint_ms = self.last_paint_ms = end - ticked
                self.frame_times.append(end - start)
                self.frame_parts.append((start, ticked - start, self.scene_ms, paint_ms - self.scene_ms))
                # (the painter's plan update by part, and the live changes brought in since the frame before)
                parts = {**self.painter.plan_parts, **{k: v for k, v in self.scene_parts.items() if v > 0.5}}
                self.frame_log.append({"at": start, "tick": ticked - start, "scene": self.scene_ms, "paint": paint_ms,
                                       "plan": parts, "applied": self.applied_since, "zoom": editor.plane.camera.zoom,
                                       "patch": self.painter.patch_reason, "widgets": self.widgets_ms})  # fmt: skip
                self.applied_since = []
                del self.frame_times[:-600], self.frame_parts[:-600], self.frame_log[:-600]
            elif pulsing:  # nothing changed but the pulse: redraw it over the kept frame
                self.painter.repulse(round(pulse_value(ts), 4))
                self.pulse_frames += 1
            if not editor.animating:
                self.layout_since = None  # (e.g. another plane, or a document at rest, is shown now)
            searches = not self.ahead.busy() and (
                (self.loops_pending and editor.loop_finder.pending) or (self.cuts_pending and editor.cut_finder.pending)
            )
            if not self.still and ((editor.animating and not background) or editor.topology_cache.pending(editor.plane)
                                   or searches or editor.loading is not None):  # fmt: skip
                # the layout (on this thread) and κ run in their own tasks after this frame
                self._schedule_pump(slice_budget(paint_ms, editor.sim().tick_ms))
            elif self.editor.needs_paint or (background and editor.animating):
                # the worker's next frame is painted by the next animation frame
                self.frame_pending = True
                js.requestAnimationFrame(self._frame_proxy)
            elif pulsing and self.pulse_timer is None:
                self.pulse_timer = js.setTimeout(self._pulse_proxy, PULSE_INTERVAL_MS)
            self.saving.schedule()
            self.ahead.after_frame(painted)
        except Exception as exc:
            self.report(exc)

    def _pulse_tick(self) -> None:
        self.pulse_timer = None
        if not self.frame_pending:
            self.frame_pending = True
            js.requestAnimationFrame(self._frame_proxy)

    def _pulsing(self) -> bool:
        """Whether pulses animate: motion allowed, κ > 0 shown, and pulsing cards in view at a
        zoom that draws them (the last paint says; a κ > 0 topology is painted at least once)."""
        if self.still or self.reduced_motion:
            return False
        shown = self.shown_topology
        return shown is not None and shown.max_kappa > 0 and (self.paints == 0 or self.painter.pulses_in_view > 0)

    def paint(self, ts: float, *, layered: bool = False, clean: bool = False) -> None:
        """One full frame: the HUD and widgets, and the plane through the painter (the plan's
        changed parts and the positions cross to the page's geometry; see app.painter).
        ``clean``: the canvas alone, as an exported image shows it — the whole plane's exact
        topology, no pin marks, selection, search fading or gesture marks; the next frame
        draws them again."""
        editor = self.editor
        plane = editor.plane
        if clean:
            self.painter.paint(
                plane, editor.card, viewport=editor.viewport, dpr=float(js.window.devicePixelRatio or 1),
                grid=grid_of(plane.camera, editor.viewport), doc_version=editor.version, topology=editor.topology(),
                selection=(), selected_edge=None, dimmed=(), editing=None, measure=self.measure, pulse=FROZEN_PULSE,
                overlay=Overlay(), xy=self._shared_positions(), pins=False, markers=self.loops_panel.markers(),
                tree_epoch=editor.rests,
            )  # fmt: skip
            editor.needs_paint = True  # (the next frame shows the marks again)
            return
        self.last_ts = ts
        t0 = js.performance.now()
        # a frame computes κ for a few ms at most (none for a document just installed until its κ is
        # shown: the slices alone); what is left runs in slices (see _pump)
        budget = None if self.installed else TOPOLOGY_FRAME_MS
        topology = editor.topology() if self.still else editor.shown_topology(budget)
        self.shown_topology, self.installed = topology, self.installed and topology.pending
        # two or more nodes selected: κ of the selection (not while a band is still being drawn, and
        # the plane's own when every node is selected)
        everything = len(editor.selection) == len(plane.nodes)
        brushing = self.tools.state_name == "brushing"
        chosen = None if brushing or everything else editor.selection_topology()
        if chosen is not None:
            topology = chosen
        t1 = js.performance.now()
        loops = cuts = None
        busy, budget = self.ahead.busy(), math.inf if self.still else LOOPS_FRAME_MS
        if self._loops_wanted(topology):  # (a gesture and the cooling after it begin no search: at rest)
            loops = editor.held_loops() if busy else editor.loops(budget)
            self.loops_pending = loops is None
        t2 = js.performance.now()
        if self._loops_wanted(topology) or editor.cuts_shown:
            cuts = editor.held_cuts() if busy else editor.loop_cuts(budget)
            self.cuts_pending = cuts is None
        still = self.still or self.reduced_motion
        self.scene_ms = js.performance.now() - t0
        # (the scene work before the painter's, by part: the benchmarks' long frames)
        self.scene_parts = {"topology": t1 - t0, "loops": t2 - t1, "cuts": t0 + self.scene_ms - t2}
        widgets = js.performance.now()  # (before the painter: a view moved for a panel is drawn as it appears)
        many = len(editor.selection) > 1 and (chosen is not None or everything)
        progress: float | str | None = "arranging…" if self.arranging else self._layout_progress()
        if editor.loading is not None:
            progress = f"loading {round(editor.loading.progress * 100)}%"
        self.inspector.update(editor, topology, loops, cuts, wait=self.tools.state_name in GESTURES)  # (not settling)
        self.loops_panel.update(loops, cuts)
        self.in_sight.update(self.overlay.node_id, self.tools.state_name in GESTURES, self.loops_panel.chosen)
        self.hud.update(editor, topology, progress, selected=len(editor.selection) if many else 0)
        self.outline.update(editor, self.shown_topology or topology)  # (the plane's, not the selection's)
        self.crumbs.update(editor)
        self.legend.update(editor, tuple(sorted({m.polarity for m in self.loops_panel.markers()})))
        empty = not plane.nodes
        if empty != self._empty_hint:
            self._empty_hint = empty
            by_id("empty-hint").hidden = not empty
        if editor.layout_frozen != self._frozen:
            self._frozen = editor.layout_frozen
            by_id("btn-freeze").setAttribute("aria-pressed", "true" if self._frozen else "false")
            with contextlib.suppress(Exception):  # storage refused: the switch still works for this page
                js.localStorage.setItem(FREEZE_KEY, "1" if self._frozen else "0")
        buttons = (editor.history.can_undo, editor.history.can_redo)
        if buttons != self._buttons:
            self._buttons = buttons
            self.undo_button.disabled = not buttons[0]
            self.redo_button.disabled = not buttons[1]
        self.toast.keep_clear()
        if self.overlay.node_id is not None:
            self.overlay.place()
        self.widgets_ms = js.performance.now() - widgets
        loop_edges, loop_class = self.loops_panel.shown_edges()
        self.painter.paint(
            plane,
            editor.card,
            viewport=editor.viewport,
            dpr=float(js.window.devicePixelRatio or 1),
            grid=grid_of(plane.camera, editor.viewport),
            doc_version=editor.version,
            topology=topology,
            selection=editor.selection,
            selected_edge=editor.selected_edge,
            dimmed=self.find.dimmed() | self.loops_panel.dimmed(),
            editing=self.overlay.node_id,
            measure=self.measure,
            pulse=round(FROZEN_PULSE if still else pulse_value(ts), 4),
            overlay=self.gesture_overlay(),
            layered=layered,
            xy=self._shared_positions(),
            markers=self.loops_panel.markers(),
            moving=self._moving_cards(),
            touched=editor.cards_touched_since,
            loop_edges=loop_edges,
            loop_class=loop_class,
            cut_edges=editor.shown_cuts(cuts),
            tree_epoch=editor.rests,
            tags=self.loops_panel.shown_nodes(),
        )
        self.scene_ms += self.painter.plan_ms
        self.paints += 1
        editor.needs_paint = False

    def _moving_cards(self) -> frozenset[str] | None:
        """The cards the running layout may move, when few (see ``bend.layout.simulation.moving_cards``):
        the painter draws the rest once. None at rest: frames are drawn whole."""
        editor, state = self.editor, self.tools.state
        if self.still:
            return None
        if not editor.animating:  # a card pressed, not yet dragged: what its drag will move (the rest drawn now)
            held = isinstance(state, PointingNode) and state.plane is editor.plane and not editor.layout_frozen
            return drag_moving(editor.sim(), state.group) if held else None
        sim = editor.sim()
        return moving_cards(sim.free, sim.fixed, len(editor.plane.nodes))

    def gesture_overlay(self) -> Overlay:
        """The current gesture's marks, kept inside the window."""
        editor = self.editor
        w, h = editor.viewport
        bounds = (*editor.screen_to_world(0.0, 0.0), *editor.screen_to_world(w, h))
        return overlay_of(editor.plane, self.tools.view(), editor.plane.camera.zoom, self.measure, bounds)

    def scope_topology(self) -> Topology:
        """The exact topology of the loop scope: the plane's, or the selection's."""
        scope = self.editor.loop_scope()
        if scope is None:
            return self.editor.topology()
        return self.editor.topology_cache.induced(self.editor.plane, sorted(scope), self.editor.exact_limit)

    def _loops_wanted(self, topology: Topology) -> bool:
        """Whether this frame needs the loop list: the Loops panel is open, or the inspector
        shows a card or an edge in a loop region, or cards whose κ > 0."""
        if self.loops_panel.open or self.loops_panel.markers_on:
            return True
        editor = self.editor
        if topology.pending or topology.max_kappa == 0:
            return False
        if editor.selected_edge is not None:
            edge = editor.plane.edges.get(editor.selected_edge)
            return edge is not None and topology.scc(edge.a) is not None
        if len(editor.selection) == 1:
            return topology.scc(editor.selection[0]) is not None
        return len(editor.selection) > 1

    def apply_theme(self, name: str, repaint: bool = True) -> None:
        """Switch the canvas palette and the page's CSS (``data-theme`` on <html>)."""
        theme.use(name)
        js.document.documentElement.setAttribute("data-theme", name)
        by_id("btn-theme").setAttribute("aria-pressed", "true" if name == "dark" else "false")
        self.legend.invalidate()
        self.painter.invalidate()
        self.editor.needs_paint = True
        if repaint:
            self.request_frame()

    def toggle_theme(self) -> None:
        name = "light" if theme.NAME == "dark" else "dark"
        self.apply_theme(name)
        with contextlib.suppress(Exception):  # storage refused: the choice holds for this page
            js.localStorage.setItem(THEME_KEY, name)

    def whole_plane(self) -> None:
        """The HUD's "showing the selection" pill: back to the whole plane's topology."""
        self.editor.select([])
        self.canvas.focus()
        self.request_frame()

    def topology_json(self) -> str:
        """What Export topology writes (``Editor.topology_export``)."""
        return json.dumps(self.editor.topology_export(), ensure_ascii=False)

    def _shared_positions(self) -> Any:
        """The layout worker's last frame of positions, when it can be drawn as it is."""
        sim = self.editor.sim()
        take = getattr(sim, "positions_js", None)
        return None if take is None else take(self.editor.version)

    def _layout_progress(self) -> float | None:
        """The layout's progress (0–1) once it has run for a while, else None (also from the
        frame in which it comes to rest: no frame may follow that one to take it away)."""
        since = self.layout_since
        if since is None or not self.editor.animating or js.performance.now() - since < LAYOUT_PROGRESS_AFTER_MS:
            return None
        return float(getattr(self.editor.sim(), "progress", 0.0))

    def resize(self, *_: Any) -> None:
        self.editor.viewport = (float(js.window.innerWidth), float(js.window.innerHeight))
        self.request_frame()

    def report(self, exc: BaseException) -> None:
        js.console.warn(f"Bendscope: {type(exc).__name__}: {exc}")
        loading = isinstance(exc, ValueError) and str(exc) == LOADING  # (an edit by hand while a document comes in)
        self.toast.show(LOADING if loading else f"Something went wrong: {exc}", error=True, ms=6000)

    # ------------------------------------------------------------------ actions
    def perform(
        self, action_id: str, target: Target | None = None, args: dict | None = None, interactive: bool = True
    ) -> Any:
        """Run an action through the action manager, asking the user when it says so
        (the automation API passes ``interactive=False``: a new node's text editor stays shut)."""
        if action_id in PLANE_ACTIONS and self.live is not None:
            self.toast.show(
                "Stargates are off while the page shows the agent's memory: the memory is one graph, without planes.",
                error=True,
                ms=8000,
            )
            return None
        outcome = self.actions.request(action_id, target, args)
        return self._follow(outcome, interactive)

    def _follow(self, outcome: Outcome, interactive: bool = True) -> Any:
        if outcome.kind == "edit-text" and outcome.target.node_id is not None:
            self.start_text_edit(outcome.target.node_id)
        elif outcome.kind == "confirm":
            self.dialog.confirm(outcome.message, lambda ok: self._resume(outcome, ok), ok_label=outcome.ok_label)
        elif outcome.kind == "prompt":
            self.dialog.prompt(outcome.message, outcome.initial, lambda text: self._resume(outcome, text))
        elif outcome.kind == "show" and outcome.message == "help":
            self.help.show()
        elif outcome.kind == "show" and outcome.message == "find":
            self.find.show()
        elif outcome.kind == "show" and outcome.message == "loops":
            self.loops_panel.toggle()
        elif outcome.kind == "show" and outcome.message == "png-marks":
            export_png(self, marks=True)
        elif outcome.kind == "show" and outcome.message.startswith("image-"):
            export_image(self, outcome.message.removeprefix("image-"))
        elif outcome.kind == "show" and outcome.message.startswith("export-"):
            export_file(self, outcome.message.removeprefix("export-"))
        elif outcome.kind == "job" and outcome.message == "arrange":
            if self.arranging:
                self.toast.show("Arranging already…")
            else:
                self.arranging = True  # at once: the HUD and the automation API see it now
                self.spawn(d3layout.arrange(self, str(outcome.args["direction"])))
        elif outcome.kind == "refused":
            self.toast.show(outcome.message, error=True)
        elif outcome.kind == "done":
            if outcome.edit_node is not None and interactive:
                self.start_text_edit(outcome.edit_node, fresh=True)
            self.request_frame()
            return outcome.result
        return None

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)  # keep a reference until it finishes
        task.add_done_callback(self._task_done)

    def _task_done(self, task: Any) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.report(task.exception())

    def _resume(self, outcome: Outcome, answer: Any) -> None:
        args = outcome.resume(answer)
        if args is not None:
            self.perform(outcome.action_id, outcome.target, args)

    def start_text_edit(self, node_id: str, fresh: bool = False) -> None:
        refusal = self.editor.edit_refusal("Edit text")  # (the live page showing another moment: it stays shut)
        if refusal is not None:
            return self.toast.show(refusal, error=True, ms=6000)
        self.tools.begin_text_edit(node_id, fresh)
        self.overlay.start(node_id)
        self.request_frame()

    def _text_edit_done(self, cancelled: bool) -> None:
        self.tools.end_text_edit(cancelled)
        self.request_frame()

    def activate_item(self, item: MenuItem) -> None:
        if item.action_id is None:
            return
        self.perform(item.action_id, self._menu_target, dict(item.args))

    def open_menu(self, kind: str, sx: float, sy: float, node_id: str | None = None, edge_id: str | None = None):
        editor = self.editor
        if kind == "node":
            items = catalog.node_menu(editor, node_id)
            self._menu_target = Target(node_id=node_id)
            label = "Node menu"
        elif kind == "edge":
            items = catalog.edge_menu(editor, edge_id)
            self._menu_target = Target(edge_id=edge_id)
            label = "Edge menu"
        else:
            wx, wy = editor.screen_to_world(sx, sy)
            items = catalog.background_menu(editor, wx, wy)
            self._menu_target = Target(x=wx, y=wy)
            label = "Canvas menu"
        self.menu.show(items, sx, sy, label)

    def open_submenu_for(self, node_id: str, item_id: str) -> None:
        """Keyboard shortcut: open the node menu with one submenu expanded (C → Connect to…)."""
        x, y = self.editor.screen_position(node_id) or (100, 100)
        self.open_menu("node", x, y, node_id=node_id)
        _, items, _elements = self.menu.levels[0]
        for i, item in enumerate(items):
            if item.item_id == item_id:
                self.menu._open_submenu(0, i, focus=True)

    def go_to_plane(self, plane_id: str) -> None:
        self.overlay.commit()
        self.editor.go_to_plane(plane_id)
        self.request_frame()

    # ------------------------------------------------------------------ files
    def _live_refuses(self, what: str) -> bool:
        """In live mode the memory is the document: replacing it from the page is refused."""
        if self.live is None:
            return False
        self.toast.show(
            f"{what} is off while the page shows the agent's memory: edit here, or use "
            "python -m bendscope.memory import / export.",
            error=True,
            ms=8000,
        )
        return True

    def replace_with(self, doc: Any, question: str, label: str) -> None:
        if self._live_refuses(label):
            return

        def go(ok: bool) -> None:
            if ok:
                error = self.editor.load(_serialize(doc), label=label)
                if error:
                    self.toast.show(error, error=True)
                self.editor.opening_view()
                self.request_frame()

        self.dialog.confirm(question + " (Undo brings the current graph back.)", go, ok_label="Replace")

    async def import_file(self, event: Any) -> None:
        files = event.target.files
        if not files or files.length == 0:
            return
        file = files.item(0)
        event.target.value = ""
        if self._live_refuses("Import"):
            return
        if file.size > 10 * 1024 * 1024:
            self.toast.show(f"Import refused: the file is {file.size / 1e6:.1f} MB; the limit is 10 MB.", error=True)
            return
        name = str(file.name)
        try:  # (bytes, not file.text(): that would put U+FFFD in place of what is not UTF-8)
            text = decode_file(bytes(js.Uint8Array.new(await file.arrayBuffer()).to_bytes()))
        except DocumentError as exc:
            self.toast.show(f"Import refused: {exc}", error=True, ms=8000)
            return

        def done(error: str | None) -> None:
            if error:
                self.toast.show(f"Import refused: {error}", error=True, ms=8000)
            else:
                self.editor.opening_view()
                self.toast.show(f"Imported {name} in place of the graph: Undo brings that back.")
                by_id("toolbar").scrollLeft = 0  # (a phone's toolbar scrolled to Import…: Undo and Fit in sight)
            self.request_frame()

        if sliced(text, name) and not self.still:  # a large file comes in between frames
            return self.load_in_slices(text, done, label="Import", name=name)
        done(self.editor.load(text, name=name))

    def export_menu(self, event: Any) -> None:
        """Export…: a menu of the files (the Bendscope document first)."""
        box = by_id("btn-export").getBoundingClientRect()
        self._menu_target = Target()
        items = [catalog.menu_item(self.editor, Target(), f"export-{fmt}") for fmt, _ in EXPORTS]
        self.menu.show(items, float(box.left), float(box.bottom) + 4, "Export menu")

    # ------------------------------------------------------------------ links
    async def open_link(self) -> None:
        """A graph in the URL's fragment, shown without overwriting the visitor's own (``app.links``)."""
        await links.open_link(self)

    async def copy_link(self) -> None:
        """Put a link holding the document on the clipboard (``app.links``)."""
        await links.copy_link(self)

    # ------------------------------------------------------------------ automation API
    def install_api(self) -> None:
        """``window.bendscope``: the automation API (``app.api``)."""
        self.api = AutomationApi(self)
        self.api.install()

    def mark_ready(self) -> None:
        js.window.bendscope.ready = True


def _serialize(doc: Any) -> str:
    from bendscope.bend.model.document import serialize_document

    return serialize_document(doc)
