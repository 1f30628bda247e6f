"""Work done at rest ahead of a gesture, so that the gesture's frames need not do it.

* The layer of what a drag does not move (app.painter, static/damage.js) is drawn when the
  pointer has rested on a card for :data:`PRIME_DELAY_MS` with nothing moving, for the cards a
  drag of it would move (``bend.layout.simulation.drag_moving``; the selection's if the card
  is selected; and the cards selected now, which a press on another card unselects): the
  press's frame then only copies it. A pointer passing over cards draws nothing (each new card
  waits its delay again).
* Python's cycle collector is off from a press until the gesture has ended and the layout
  rests (``bend.pointer.collector``), then run once in a task of its own; the loop and cut
  searches a press asks for (it selects a card) begin then too (``bend.pointer.settling``),
  not in the release's frame nor in the frames of the layout cooling after it.
* A document coming in (``Editor.start_load``) is installed in a slice of its own; then, in a
  slice of its own too, its scene plan is sent (``Painter.send_plan``: the cards, edges and
  flags, not the cards' art — the view is the load's waiter's to set), so that the first frame
  showing it only draws it (the plan and the whole draw were one task of 15–30 ms).
* Python's cycle collector is off too while a document comes in and its layout runs, until it
  rests (a collection in a load's slice made it a long task).
* When κ's slices have found the plane's topology, the trees of its halos
  (``bend.render.halos.halo_trees``, memoised) are made in that slice's task, before the frame
  that first shows them is asked for: that frame sends and draws them without making them.
* After a frame at rest (nothing moving but pulses), in the browser's idle periods (the time
  left before the next frame, in slices: ``TopologyCache.digraph_steps``; a timer's slices
  where the browser has no ``requestIdleCallback``), once the plane's structure has not
  changed for :data:`STRUCTURE_QUIET_MS` (not while an agent writes to it): the plane's
  digraph and its arcs turned around (``TopologyCache.digraph`` / ``predecessors``), which
  Connect to…, Bend and their previews ask on. The first menu after a load or an edit then
  only asks (building them took 10–30 ms of Pyodide in that menu's task at 2,000 cards and
  5,000–10,000 arcs).
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

import js

from bendscope.bend.layout.simulation import drag_moving
from bendscope.bend.model.elements import Camera
from bendscope.bend.pointer.collector import GestureCollector
from bendscope.bend.pointer.settling import Settling
from bendscope.bend.pointer.states import GESTURES
from bendscope.bend.render.halos import halo_trees
from bendscope.bend.render.scene import FAR_ZOOM
from bendscope.kappa.steps import Steps, advance

from .dom import proxy

if TYPE_CHECKING:
    from .app import App

IDLE_LEFT_MS = 3  # a slice of making the digraph ends with this much of its idle period left
FALLBACK_DELAY_MS = 50  # without requestIdleCallback (Safari): a timer this long asks instead …
FALLBACK_SLICE_MS = 8  # … for a slice this long
STRUCTURE_QUIET_MS = 500  # the digraph is made ahead once the structure is unchanged this long (not in a burst)
PRIME_DELAY_MS = 40  # the pointer rests this long on a card before its drag's layer is drawn
UNSELECTED_MAX = 64  # selected cards a press elsewhere unselects that the layer leaves out (more: drawn again)


class Ahead:
    """The app's work ahead of gestures: call :meth:`pressed` on each pointer press and
    :meth:`after_frame` after each animation frame."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.collector = GestureCollector()
        self.settling = Settling()  # the loop and cut searches wait for a gesture to settle
        self._timer: Any = None
        self._collecting = False
        self._prime_proxy = proxy(self._prime)  # (made once: proxies are never freed)
        self._collect_proxy = proxy(self._collect)
        self._shown_proxy = proxy(self._kappa_shown)
        self._idle_proxy = proxy(self._idle)
        self._idle_timer_proxy = proxy(lambda *_: self._idle(None))
        self._has_idle = getattr(js.window, "requestIdleCallback", None) is not None
        self._idle_asked = False
        self._digraph_failed: tuple[Any, int] | None = None  # (plane, version) whose digraph failed
        self._structure_seen: tuple[Any, int, float] = (None, -1, 0.0)  # (plane, topology version, since)
        self._digraph_job: Steps[None] | None = None  # the plane's digraph being made in idle periods
        self._gc_start = 0.0
        self._loading = False  # collection is held for a document coming in, until the layout rests
        gc.callbacks.append(self._gc_event)  # (each collection in the task log: the benchmarks' long frames)

    def pressed(self) -> None:
        """A pointer went down on the canvas: no collection, and no loop or cut search begun,
        until its gesture ends and the layout rests."""
        self.collector.pressed()
        self.settling.pressed()

    def loading(self) -> None:
        """A document begins to come in (``App.load_in_slices``): no automatic collection from
        now until its layout rests, as for a gesture (a collection of the old objects' share
        took 8–14 ms inside a 12 ms slice of the load, or of a frame), then one in a task of its
        own at rest."""
        self.collector.pressed()
        self._loading = True

    def busy(self) -> bool:
        """A gesture runs, or the layout cools after one: searches wait (``bend.pointer.settling``)."""
        return self.app.tools.state_name in GESTURES or self.settling.waiting

    def after_frame(self, painted: bool) -> None:
        """After a frame (``painted``: it drew the plane): give collection back at rest, and
        when the frame showed the pointer resting on a card at rest, draw its drag's layer soon."""
        app = self.app
        gesture = app.tools.state_name in GESTURES
        now, resting = js.performance.now(), not app.editor.animating
        self._loading = self._loading and (app.editor.loading is not None or not resting)
        if self.collector.frame(gesture or self._loading, resting, now) and not self._collecting:
            self._collecting = True
            js.setTimeout(self._collect_proxy, 0)
        if (self.settling.frame(gesture, resting, now) or (self.settling.waiting and not gesture)) and (
            app.loops_pending or app.cuts_pending
        ):
            # (searches wait: frames go on until the layout rests, and they begin in the paint after)
            app.request_frame()
        if resting and not gesture and not app.editor.topology_cache.digraph_ready(app.editor.plane):
            self._ask_idle()
        if painted:
            if self._timer is not None:
                js.clearTimeout(self._timer)
            self._timer = js.setTimeout(self._prime_proxy, PRIME_DELAY_MS) if self._hovered() is not None else None

    def installed(self) -> Steps[None]:
        """The steps after a document coming in is installed (``Editor.start_load``'s ``then``):
        in the install's slice the layout worker is given its graph, then the plane's scene plan
        is sent in a slice of its own; frames compute no κ until its slices have shown it."""
        app = self.app
        editor = app.editor
        app.installed = True
        if editor.sim().background and editor.animating:
            editor.tick()  # (the layout worker is given the graph now, not in the first frame)
        yield
        start, camera = js.performance.now(), editor.plane.camera
        self._send_plan(Camera(camera.x, camera.y, FAR_ZOOM / 2))  # (no art: the waiter sets the view)
        app.log_task(start, "plan")

    def _send_plan(self, camera: Camera | None = None) -> None:
        """The plane's scene plan sent as the next frame's paint would send it (``camera``: a
        view's for the cards' art, None: the plane's), and the legend made for it."""
        app = self.app
        editor = app.editor
        loop_edges, loop_class = app.loops_panel.shown_edges()
        markers = app.loops_panel.markers()
        app.painter.send_plan(
            editor.plane, editor.card, doc_version=editor.version, topology=editor.shown_topology(None),
            selection=editor.selection, selected_edge=editor.selected_edge, editing=app.overlay.node_id,
            dimmed=app.find.dimmed() | app.loops_panel.dimmed(), measure=app.measure, viewport=editor.viewport,
            camera=camera, markers=markers, loop_edges=loop_edges, loop_class=loop_class, tree_epoch=editor.rests,
            tags=app.loops_panel.shown_nodes(),
        )  # fmt: skip
        app.legend.update(editor, tuple(sorted({m.polarity for m in markers})))

    def kappa_found(self) -> None:
        """κ's slices have just found the plane's topology (in this task): its halos' trees now,
        in the same task (a frame may come before any later one), then the frame showing them —
        except for a document just installed (its first κ, no frame asked for meanwhile): its
        halos' trees and the scene plan showing them are made in a task of their own, and its
        frame only draws (the slice's 12 ms, the trees and the plan were two long tasks)."""
        if self.app.installed:
            js.setTimeout(self._shown_proxy, 0)
        else:
            self._kappa_shown(plan=False)

    def _ask_idle(self) -> None:
        """:meth:`_idle` at the browser's next idle period (where it has none — Safari —, a
        timer's slice of :data:`FALLBACK_SLICE_MS`)."""
        if self._idle_asked:
            return
        if self._has_idle:
            js.requestIdleCallback(self._idle_proxy)
        else:
            js.setTimeout(self._idle_timer_proxy, FALLBACK_DELAY_MS)
        self._idle_asked = True

    def _idle(self, deadline: Any = None) -> None:
        """An idle period (``deadline``: the browser's, None for the timer's): a slice of
        making the plane's digraph, if it is not made and the page is at rest (else asked again
        at the next idle period). The slice stops after a step that leaves less than
        :data:`IDLE_LEFT_MS` of the period (a step is ~``QUANTUM`` arcs; the first also copies
        the plane's cards and edges, the last turns the arcs around), so it seldom outlasts it.
        A plane whose digraph could not be made is not tried again until its structure changes."""
        self._idle_asked = False
        app = self.app
        start = float(js.performance.now())
        editor = app.editor
        plane, cache = editor.plane, editor.topology_cache
        key = (plane, plane.topology_version)
        if cache.digraph_ready(plane) or self._digraph_failed == key:
            self._digraph_job = None
            return
        try:
            if self._structure_seen[:2] != key:
                self._structure_seen = (plane, plane.topology_version, start)
                self._digraph_job = None
            if start - self._structure_seen[2] < STRUCTURE_QUIET_MS or editor.animating or self.busy():
                self._ask_idle()
                return
            if self._digraph_job is None:
                self._digraph_job = cache.digraph_steps(plane)

            def left() -> float:
                if deadline is None:
                    return FALLBACK_SLICE_MS - (float(js.performance.now()) - start)
                return float(deadline.timeRemaining())

            done, _ = advance(self._digraph_job, lambda: left() < IDLE_LEFT_MS)
            app.log_task(start, "digraph")
            if done:
                self._digraph_job = None
            else:
                self._ask_idle()
        except Exception as exc:  # (an idle callback: report once, never crash the page)
            self._digraph_job = None
            self._digraph_failed = key
            app.report(exc)

    def _kappa_shown(self, plan: bool = True) -> None:
        app = self.app
        try:
            editor, start = app.editor, js.performance.now()
            topology = editor.shown_topology(None)  # (the one found: nothing is computed here)
            if not topology.pending and topology.max_kappa > 0:
                halo_trees(editor.plane, topology, editor.rests)  # (what the frame's plan update asks for)
                if plan:
                    self._send_plan()
                app.log_task(start, "halos")
        except Exception as exc:  # (a timer's callback: report, never crash the page)
            app.report(exc)
        finally:
            app.request_frame()

    def _hovered(self) -> list[str] | None:
        """The cards a drag from the hovered card would hold, when one is hovered at rest."""
        app = self.app
        editor, tools = app.editor, app.tools
        hover = tools.hover
        if (app.still or hover is None or tools.state_name != "idle" or editor.animating or editor.layout_frozen
                or editor.loading is not None or hover not in editor.plane.nodes):  # fmt: skip
            return None
        return list(editor.selection) if hover in editor.selection else [hover]

    def _prime(self) -> None:
        self._timer = None
        try:
            app = self.app
            group = self._hovered()
            if group is None or app.editor.needs_paint:
                return  # (something changed since the frame: the frame coming asks again)
            start = js.performance.now()
            moving = drag_moving(app.editor.sim(), group)
            if moving is not None:
                # a press on a card not selected leaves the cards selected now: their look changes
                # then, so the layer leaves them out too (drawn over it during the drag)
                selection = app.editor.selection
                if group != selection and len(selection) <= UNSELECTED_MAX:
                    moving = moving | frozenset(selection)
                app.painter.prime(moving)
                app.log_task(start, "prime")
        except Exception as exc:  # a timer callback: report, never crash the page
            self.app.report(exc)

    def _gc_event(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = js.performance.now()
        else:
            self.app.log_task(self._gc_start, f"gc {info.get('generation', '?')}")

    def _collect(self) -> None:
        self._collecting = False
        try:
            if self.app.tools.state_name in GESTURES:
                return  # (pressed again meanwhile: given back after that gesture)
            start = js.performance.now()
            self.collector.release()
            self.app.log_task(start, "collect")
        except Exception as exc:
            self.app.report(exc)
