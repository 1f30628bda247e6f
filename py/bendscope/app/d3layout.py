"""The page's layout engines: d3-force (vendored) through static/layout.js.

``WorkerSimulation`` (the default) runs the kernel in a Web Worker (static/layout-worker.js):
the worker steps as fast as it can and posts frames of positions as transferred
``Float64Array``s; the main thread only takes the latest frame before it paints, so the
time a layout needs to rest no longer depends on how long painting takes, and no layout
work runs on the main thread. ``KernelSimulation`` is the same kernel on the main thread,
in slices between frames (``?layout=d3``, the same-run baseline) — and the single-threaded
run to rest (``settle``: ``?still=1``, the tests) that the worker's runs equal: the kernel's
random source is seeded and where a run ends never depends on how it was sliced.

Python owns the positions (they live on the plane's nodes). What crosses to the worker
(see ``bendscopeLayout.runner`` in static/layout.js): a kernel graph (``gen``), a state —
positions, velocities, sizes, held flags — whenever Python changed it (``epoch``), the
positions of held cards during a drag, run and stop. A frame names the gen and epoch it
came from; stale ones are dropped, and held cards keep the position Python gave them.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import to_js

from bendscope.bend.layout.arrange import DIRECTIONS
from bendscope.bend.layout.forces import (
    ForceParams,
    KernelAhead,
    KernelShape,
    changed_cards,
    kernel_graph,
    kernel_growth,
    kernel_state,
    structure_key,
)
from bendscope.bend.layout.simulation import LOCAL_ALPHA, reheat_region
from bendscope.bend.model.elements import Plane
from bendscope.bend.pointer.states import GESTURES
from bendscope.kappa.steps import Steps, advance

from .dom import is_null, js_obj

if TYPE_CHECKING:
    from .app import App

#: a plane's kernel graph made ahead (:func:`prepare_graph`), taken by the first hand-off to the
#: worker if it still holds
_ahead: list[KernelAhead] = []


def prepare_graph(plane: Plane, params: ForceParams | None = None) -> Steps[None]:
    """Make ``plane``'s kernel graph and shape ahead, as steps (a document coming in:
    ``Editor.start_load``), so that the install's hand-off to the layout worker only sends them;
    used only if the plane has not changed since (see ``KernelAhead.holds``). O(n + m)."""
    _ahead.clear()
    ahead = yield from KernelAhead.steps(plane, (params or ForceParams()).gap)
    _ahead.append(ahead)


def _take_ahead(plane: Plane, gap: float) -> KernelAhead | None:
    """The graph made ahead for ``plane`` if it still holds (taken once either way; one made
    for another plane stays)."""
    ahead = _ahead.pop() if _ahead and _ahead[0].plane is plane else None
    return ahead if ahead is not None and ahead.holds(plane, gap) else None


class KernelSimulation:
    """One plane's layout in the d3 kernel on the main thread (see LayoutEngine in bend.layout.simulation)."""

    #: the page slices this engine's steps between frames (it moves only inside ``step``)
    background = False

    def __init__(self, plane: Plane, seed: int = 1, params: ForceParams | None = None) -> None:
        self.plane = plane
        self.params = params or ForceParams()
        self.seed = seed
        self.alpha = 1.0
        self.fixed: set[str] = set()
        self.free: set[str] | None = None
        self.ticks = 0  # ticks run since the layout last came to rest (progress)
        self.tick_ms = 0.0  # ms per tick in the last slice (the page sizes slices by it)
        self.overlaps = -1  # pairs of cards still overlapping when it last came to rest (-1: not yet)
        self._settling = False  # cooled, but the kernel is still separating cards
        self._kernel = js.window.bendscopeLayout
        self._handle: Any = None
        self._shape: tuple[int, tuple[float, ...]] | None = None  # (plane version, card sizes)
        self._ids: list[str] = []

    @property
    def active(self) -> bool:
        """Still moving: cooling, or separating overlapping cards after cooling."""
        return self.alpha >= self.params.alphaMin or self._settling

    def reheat(self, alpha: float | None = None, around: Iterable[str] | None = None, moved: bool = True) -> None:
        self.free = reheat_region(self.active, self.free, self.plane, around)
        default = self.params.reheat if around is None else LOCAL_ALPHA
        self.alpha = max(self.alpha, default if alpha is None else alpha)

    def stop(self) -> None:
        self.alpha = 0.0
        self._settling = False
        self.ticks = 0
        for node in self.plane.nodes.values():
            node.vx = node.vy = 0.0

    def pause(self) -> None:
        """Nothing runs between steps here."""

    def close(self) -> None:
        """Nothing to free."""

    def _state(self) -> Any:
        nodes = (self.plane.nodes[i] for i in self._ids)
        return to_js(kernel_state(nodes, self.fixed, self.free))

    def _graph(self) -> bool:
        """(Re)build the kernel's graph when the plane's structure or a card's size changed."""
        shape = structure_key(self.plane)
        if shape == self._shape and self._handle is not None:
            return False
        graph = kernel_graph(self.plane, self.params.gap)
        self._handle = self._kernel.create(self.seed, js_obj(self.params.for_plane(len(graph.ids))))
        self._ids = list(graph.ids)
        self._kernel.setGraph(self._handle, self._state(), to_js(graph.pairs), to_js(graph.rest), to_js(graph.k))
        self._shape = shape
        return True

    def _run(self, max_ticks: int, budget_ms: float) -> int:
        self._graph()
        nodes = [self.plane.nodes[i] for i in self._ids]
        start = js.performance.now()
        out = self._kernel.run(self._handle, self._state(), self.alpha, 0.0, max_ticks, budget_ms)
        values = out.to_py().tolist()
        self.alpha, ticks, self._settling = values[0], int(values[1]), not values[2]
        for k, node in enumerate(nodes):
            j = 3 + 4 * k
            node.x, node.y, node.vx, node.vy = values[j], values[j + 1], values[j + 2], values[j + 3]
        self.ticks += ticks
        if ticks:
            self.tick_ms = (js.performance.now() - start) / ticks
        if values[2]:
            self.overlaps = int(self._kernel.overlaps(self._handle))
        return ticks

    def step(self, budget_ms: float = 0.0) -> bool:
        """Ticks for up to ``budget_ms`` (one tick with no budget); whether it still moves."""
        if not self.plane.nodes:
            self.stop()  # nothing to move: at rest (else the page would keep asking for frames)
        if not self.active:
            return False
        self._run(10_000 if budget_ms > 0 else 1, budget_ms)
        if not self.active:
            self.stop()
            return False
        return True

    def settle(self, max_steps: int = 2000) -> int:
        """Run to rest in one call (tests, ``?still=1``); returns the ticks taken."""
        if not self.plane.nodes:
            self.stop()
            return 0
        ticks = self._run(max_steps, 0.0) if self.active else 0
        self.stop()
        return ticks

    @property
    def progress(self) -> float:
        """How far the current run is towards rest, 0–1 (alpha falls geometrically)."""
        if not self.active:
            return 1.0
        low = math.log(self.params.alphaMin)
        return max(0.0, min(1.0, 1.0 - (low - math.log(max(self.alpha, 1e-12))) / low))


_ids = itertools.count(1)


class WorkerSimulation(KernelSimulation):
    """One plane's layout in the layout worker (see the module docstring).

    ``step`` only takes the worker's latest frame: O(n) to apply it, and no layout work.
    """

    background = True

    def __init__(self, plane: Plane, seed: int = 1, params: ForceParams | None = None) -> None:
        super().__init__(plane, seed, params)
        self.id = next(_ids)
        self._host = js.window.bendscopeLayoutHost
        self._gen = 0  # numbers the kernel graph the worker holds
        self._epoch = 0  # numbers the state the worker was last given
        self._wshape: KernelShape | None = None  # what the worker's graph was made from
        self._wshape_version = -1
        self._sent: tuple[frozenset[str], frozenset[str] | None] | None = None  # held and free, as last sent
        self._dirty = True  # Python moved cards the worker does not know of: send the state
        self._whole = True  # … and which cards is not known: the whole state (else a patch)
        self._touched: set[str] = set()  # cards Python may have moved or changed since the state it sent
        self._base = -1  # the seq of the worker's frame applied since that state (-1: none)
        self._held_seen: set[str] = set()  # cards held when a frame was applied since (kept where Python has them)
        self.check = bool(getattr(js.window, "bendscopeLayoutCheck", False))  # (tests: patches checked in the worker)
        self._applied: tuple[tuple[int, int, int], Any] | None = None  # (gen, epoch, cards) and the frame last applied
        self.changed_last = 0  # cards the last frame applied wrote (diagnostics)
        self._heat = False  # the alpha rose (a drag): tell the worker
        self._running = False  # the worker was asked to run and has not said it rests
        self._index: dict[str, int] = {}  # node id → index in the worker's graph
        self._xy: Any = None  # the last frame's positions (a JS Float64Array), see positions_js
        self._xy_version: int | None = None
        self.frames = 0  # frames applied (diagnostics)
        self.rebuilt = self.grown = 0  # the worker's graph made afresh, grown (diagnostics)
        self.patched = 0  # states given as patches (diagnostics)

    def _post(self, message: dict[str, Any], transfer: list[Any] | None = None) -> None:
        self._host.send(js_obj({"sim": self.id, **message}), to_js(transfer or []))

    def _send_state(self) -> None:
        """Give the worker the plane's state (a new epoch: frames computed before are stale):
        what changed (a patch) when Python knows it, else the whole state."""
        # (the worker keeps the state it was given and its frames at rest too: a drag that starts
        # from rest sends the cards it changes, not every card's state)
        patch = not self._whole and self._sent is not None and self._wshape is not None
        self._epoch += 1
        self._xy = None
        # cards and edges appended: the worker's graph grows (O(changes) sent); else it is made again
        growth = None if self._wshape is None else kernel_growth(self.plane, self._wshape, self.params.gap)
        if growth is not None and (growth.ids or growth.pairs):
            fresh = [self.plane.nodes[node_id] for node_id in growth.ids]
            for node_id in growth.ids:
                self._index[node_id] = len(self._ids)
                self._ids.append(node_id)
            self._gen += 1
            self._post(
                {
                    "type": "grow",
                    "gen": self._gen,
                    "epoch": self._epoch,
                    "seed": self.seed,
                    "params": js_obj(self.params.for_plane(len(self._ids))),
                    "state": to_js(kernel_state(fresh, self.fixed, self.free)),
                    "pairs": to_js(growth.pairs),
                    "rest": to_js(growth.rest),
                }
            )
            self.grown += 1
        if growth is None:
            ahead = _take_ahead(self.plane, self.params.gap)
            graph = kernel_graph(self.plane, self.params.gap) if ahead is None else ahead.graph
            self._ids = list(graph.ids)
            self._index = {node_id: i for i, node_id in enumerate(self._ids)}
            self._gen += 1
            self._post(
                {
                    "type": "graph",
                    "gen": self._gen,
                    "epoch": self._epoch,
                    "seed": self.seed,
                    "params": js_obj(self.params.for_plane(len(graph.ids))),
                    "state": self._state(),
                    "pairs": to_js(graph.pairs),
                    "rest": to_js(graph.rest),
                    "k": to_js(graph.k),
                }
            )
            self._wshape = KernelShape.of(self.plane, graph) if ahead is None else ahead.shape
            self.rebuilt += 1
            self._post({"type": "run", "epoch": self._epoch, "alpha": self.alpha, "state": None})
        else:
            changed = self._changed() if patch else None
            if changed is None:
                self._post({"type": "run", "epoch": self._epoch, "alpha": self.alpha, "state": self._state()})
            else:
                message = self._patch(*changed)
                self._post({"type": "run", "epoch": self._epoch, "alpha": self.alpha, "patch": message})
                self.patched += 1
        self._wshape_version = self.plane.version
        self._sent = (frozenset(self.fixed), None if self.free is None else frozenset(self.free))
        self._dirty = self._heat = self._whole = False
        self._touched, self._held_seen, self._base = set(), set(), -1
        self._running = True

    def _changed(self) -> tuple[list[int], float | None]:
        """The worker indices of the cards whose state may differ from what the worker makes of
        the state last sent and the frame Python last applied (``bendscopeLayout.runner``'s
        patch): cards Python moved or changed, held now, then or when a frame came, and whose
        freedom changed; and the held flag of every other card that is not pinned when that
        changed for all of them (a local reheat after a run over the whole plane: OUTSIDE; the
        other way round: FREE), else None. O(changes + the local reheat's region)"""
        assert self._sent is not None
        held_then, free_then = self._sent
        return changed_cards(
            self._index, self._touched | self.fixed | held_then | self._held_seen, self.free, free_then
        )

    def _patch(self, changed: list[int], outside: float | None) -> Any:
        """A patch of the cards ``changed`` over the frame last applied (see ``_changed``)."""
        nodes = (self.plane.nodes[self._ids[i]] for i in changed)
        state = kernel_state(nodes, self.fixed, self.free)
        patch: dict[str, Any] = {"base": self._base, "index": to_js(changed), "state": to_js(state)}
        if outside is not None:
            patch["outside"] = outside
        if self.check:
            patch["check"] = self._state()
        return js_obj(patch)

    def _send_heat(self, held_before: frozenset[str]) -> None:
        """A drag goes on: the alpha, the held flags and the cards no longer held (where Python
        has them) — no new epoch, so the frames the worker is computing stay good."""
        sent = (frozenset(self.fixed), None if self.free is None else frozenset(self.free))
        message: dict[str, Any] = {"type": "heat", "alpha": self.alpha}
        if sent != self._sent:  # O(n): only when what is held or free changed, not on every move
            self._whole = True  # (the worker's flags and positions changed: its next state is whole)
            message["held"] = to_js(kernel_state((self.plane.nodes[i] for i in self._ids), self.fixed, self.free)[6::7])
            released = [n for n in held_before if n not in self.fixed and n in self._index]
            xy: list[float] = []
            for node_id in released:
                node = self.plane.nodes[node_id]
                xy += (node.x, node.y)
            message["index"] = to_js([self._index[n] for n in released])
            message["xy"] = to_js(xy)
        self._post(message)
        self._sent = sent
        self._heat = False

    def reheat(self, alpha: float | None = None, around: Iterable[str] | None = None, moved: bool = True) -> None:
        before = self.alpha
        around = None if around is None else list(around)
        super().reheat(alpha, around, moved)
        if moved:
            # Python moved cards (the ones changed, ``around``, or unknown): the next step gives
            # the worker the state, as a patch of those cards when known
            self._dirty = True
            if around is None:
                self._whole = True
            else:
                self._touched.update(around)
        elif self.alpha > before:
            self._heat = True  # a drag: the worker only needs the alpha (and the held flags)

    def stop(self) -> None:
        super().stop()
        if self._running:
            self._epoch += 1
            self._post({"type": "stop", "epoch": self._epoch})
            self._running = False

    def pause(self) -> None:
        """Stop the worker for now (frozen, or another plane shown); the next ``step``
        resumes from the plane's positions as they are then."""
        if self._running:
            self._epoch += 1
            self._post({"type": "stop", "epoch": self._epoch})
            self._running = False
            self._dirty = self._whole = True

    def close(self) -> None:
        self.pause()
        if self._gen:  # (an engine that never ran has nothing in the worker)
            self._post({"type": "drop"})
        self._wshape = None

    def _failed(self) -> bool:
        """Whether the worker could not run (failed to load, or threw): from then on this
        engine steps the kernel on the main thread in slices, as ``?layout=d3`` does."""
        if self.background and self._host.stats().failure:
            self.background = False
            self._running = False
            self._handle = None
            js.console.warn("Bendscope: the layout worker failed; the layout runs on the main thread.")
        return not self.background

    def step(self, budget_ms: float = 0.0) -> bool:
        """Apply the worker's latest frame; whether positions changed. While it runs, held
        cards (a drag) are sent where they are; a change of what is held or free, or a rise of
        the alpha, is sent as such (no new epoch: the frames under way stay good); an edit
        (Python moved cards) or a change of the plane's structure gives the worker the whole
        state again."""
        if not self.plane.nodes:
            self.stop()
        if not self.active:
            return False
        # (a card's size changes only through an edit, whose reheat marks the state dirty)
        if self._failed():
            return KernelSimulation.step(self, 8.0)
        if self._host.resend(self.id):  # (a patch came over a frame the worker no longer keeps)
            self._dirty = self._whole = True
        if not self._running or self._dirty or self._sent is None or self.plane.version != self._wshape_version:
            self._send_state()
        elif self._heat or (frozenset(self.fixed), None if self.free is None else frozenset(self.free)) != self._sent:
            self._send_heat(self._sent[0])
        if self._running and self.fixed:
            held = [n for n in self.fixed if n in self._index]
            xy: list[float] = []
            for node_id in held:
                node = self.plane.nodes[node_id]
                xy += (node.x, node.y)
            self._post({"type": "hold", "index": to_js([self._index[n] for n in held]), "xy": to_js(xy)})
        frame = self._host.take(self.id)
        if is_null(frame) or frame.gen != self._gen or frame.epoch != self._epoch:
            return False  # nothing new yet (or computed from a state Python has since changed)
        self._apply(frame)
        return True

    def positions_js(self, version: int) -> Any:
        """The last frame's positions as the page's geometry reads them (x, y per node in plane
        order), with held cards where Python has them — so a frame need not copy every position
        back out of Python — or None when Python's may differ: at rest, or after a document
        change (``version``, the editor's) since the frame came."""
        if self._xy is None or not self._running:
            return None
        if self._xy_version is None:
            self._xy_version = version  # first use, in the frame that took it
        elif self._xy_version != version:
            return None
        for node_id in self.fixed:
            i = self._index.get(node_id)
            if i is not None:
                node = self.plane.nodes[node_id]
                self._xy[2 * i] = node.x
                self._xy[2 * i + 1] = node.y
        return self._xy

    def _apply(self, frame: Any) -> None:
        """The worker's frame onto the plane's cards (but the held ones, where Python has them):
        within one state given (epoch) only the cards whose place differs from the frame applied
        before (``bendscopeLayoutHost.changed``) and the cards held or moved by Python since that
        state — every other card is where that frame put it — else every card. O(changed), O(n)
        in the page's JS (was O(n) in Python each frame: a drag's local reheat moves a few)."""
        xy = frame.xy
        self._xy, self._xy_version = xy, None
        held = self.fixed
        self._base = int(frame.seq)
        self._held_seen |= held
        nodes = self.plane.nodes
        key = (self._gen, self._epoch, len(self._ids))
        applied, self._applied = self._applied, None
        if applied is None or applied[0] != key:
            it = iter(xy.to_py().tolist())
            for node_id, x, y in zip(self._ids, it, it, strict=True):
                if node_id not in held:
                    node = nodes[node_id]
                    node.x = x
                    node.y = y
            self.changed_last = len(self._ids)
        else:
            ids, index = self._ids, self._index
            again = [index[n] for n in (self._held_seen | self._touched) - held if n in index]
            changed = self._host.changed(applied[1], xy, to_js(again)).to_py().tolist()
            it = iter(changed)
            for i, x, y in zip(it, it, it, strict=True):
                node_id = ids[int(i)]
                if node_id not in held:
                    node = nodes[node_id]
                    node.x = x
                    node.y = y
            self.changed_last = len(changed) // 3
        self._applied = (key, xy.slice())  # (a copy: positions_js writes the held cards' places into xy)
        self.alpha = float(frame.alpha)
        self._settling = not frame.settled  # cooled, still separating cards
        self.ticks += int(frame.ticks)
        self.frames += 1
        if frame.settled:
            self.overlaps = int(frame.overlaps)
            self._running = False
            super().stop()

    def settle(self, max_steps: int = 2000) -> int:
        """Run to rest on the main thread, in one call (the same kernel: the worker would have
        ended at the same positions); the worker is stopped."""
        self.pause()
        self._dirty = self._whole = True
        self._xy = None
        self._handle = None  # a fresh kernel from the plane's state, as the worker's run starts
        return super().settle(max_steps)


def factory(plane: Plane, seed: int) -> KernelSimulation:
    """The Editor's layout factory in the page: the layout worker."""
    return WorkerSimulation(plane, seed)


def main_thread_factory(plane: Plane, seed: int) -> KernelSimulation:
    """The kernel on the main thread, in slices between frames (``?layout=d3``)."""
    return KernelSimulation(plane, seed)


# -- Arrange: the layered drawing, computed by the worker, applied as one undoable step

ARRANGE_SLICE_MS = 8.0  # a slice of an arrangement's preparation (Editor.prepare_arrangement), between frames


async def arrange(app: App, direction: str) -> None:
    """Arrange the plane in layers (bend.layout.arrange): the job goes to the layout worker;
    what applying its answer needs is made in slices between frames (``Editor.prepare_arrangement``),
    then the cards move, pinned, as one undoable step in one short task — unless the document
    changed meanwhile (then nothing moves and the toast says so): a save, a share link or an
    undo sees the document before or after, never between. A gesture under way is let end first."""
    editor = app.editor
    plane, version = editor.plane, editor.version
    app.arranging = True
    app.request_frame()
    try:
        job = editor.arrange_job(direction)
        message = job.as_message()
        message["sizes"] = list(job.sizes)
        result = await js.window.bendscopeLayoutHost.arrange(js_obj(message))
        xy = result.xy.to_py().tolist()
    except Exception as exc:  # the worker refused or failed: nothing moved
        app.arranging = False
        app.request_frame()
        app.toast.show(f"Arrange failed: {exc}", error=True)
        return
    try:
        prepared = None
        if editor.plane is plane and editor.version == version:
            steps = editor.prepare_arrangement(job, xy)
            while not (done := advance(steps, slice_over(ARRANGE_SLICE_MS)))[0]:
                await asyncio.sleep(0)  # (frames and input run between the slices)
            prepared = done[1]
        await asyncio.sleep(0)  # (the step in a task of its own, after a gesture under way)
        while app.tools.state_name in GESTURES and editor.version == version:
            await asyncio.sleep(0.05)
        if editor.plane is not plane or editor.version != version:
            app.toast.show("The graph changed while it was being arranged; nothing was moved. Arrange again.")
            return
        t0 = js.performance.now()
        editor.apply_arrangement(job, xy, prepared)
        app.log_task(t0, "arrange")
    except ValueError as exc:  # nothing moved
        app.toast.show(str(exc), error=True)
        return
    finally:
        app.arranging = False
        app.request_frame()
    app.toast.show(f"{DIRECTIONS[direction]}: {len(job.ids):,} cards pinned in layers. Undo puts them back.")


def slice_over(ms: float) -> Callable[[], bool]:
    """Whether a slice begun now has had its ``ms`` (``kappa.steps.advance``'s out of time)."""
    end = js.performance.now() + ms
    return lambda: bool(js.performance.now() > end)
