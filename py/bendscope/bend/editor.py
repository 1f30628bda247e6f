"""The editor front object: the one place the UI, keyboard and automation go through.

It owns the document, the selection, the history, one layout simulation per
plane, card sizes and the topology cache. Every edit is one transaction, so every
edit is undoable; navigation, camera moves and layout motion are not edits.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from bendscope.graphformats import format_of, read_graph, write_graph
from bendscope.kappa.recommend import short_name

from .arrange import DIRECTIONS, ArrangeJob, arrange_job, arrangement_problem
from .capacity import Capacity
from .document import DocumentError, document_from_data, parse_document, serialize_document
from .geometry import segment_distance
from .history import Entry, History, Transaction, apply, merged
from .layout import LayoutEngine, LayoutFactory, Simulation
from .loop_cuts import CutFinder, CutReport
from .loop_list import LoopFinder, LoopReport
from .model import (
    COORD_LIMIT,
    DEFAULT_KIND,
    EDGE_KINDS,
    MAX_LABEL,
    MAX_TEXT,
    MAX_ZOOM,
    MIN_ZOOM,
    NODE_TYPES,
    POLAR_KINDS,
    Document,
    Edge,
    EdgeProps,
    Node,
    Plane,
    empty_document,
)
from .scene import EDGE_DETAIL_LIMIT, GREEK_ZOOM, edge_label_box, edge_path
from .textlayout import CardLayout, Measure, approx_measure, layout_card
from .topology import Topology, TopologyCache

#: set_edge's polarity argument when the polarity stays as it is
KEEP = "keep"
ZOOM_STEP = 1.2
#: How near (screen px, at every zoom) a pointer must be to an edge's line to pick it; a
#: finger gets more.
EDGE_TOLERANCE = 6.0
TOUCH_EDGE_TOLERANCE = 14.0

#: characters of a node's name in Export topology (its text on one line)
NAME_LIMIT = 80
#: below this viewport width a graph opens at READABLE_ZOOM, not fitted (card text stays text)
NARROW_PX = 700.0
READABLE_ZOOM = 0.6


class Editor:
    """Document + selection + history + layout + topology, behind one API."""

    def __init__(
        self,
        doc: Document | None = None,
        *,
        measure: Measure = approx_measure,
        seed: int | None = None,
        layout: LayoutFactory | None = None,
    ):
        self.measure = measure
        #: makes each plane's layout engine: the pure-Python Simulation unless given (the page
        #: passes its d3-force kernel)
        self.layout_factory: LayoutFactory = layout or (lambda plane, seed: Simulation(plane, seed=seed))
        self.history = History()
        self.topology_cache = TopologyCache()
        self.loop_finder = LoopFinder()
        self.cut_finder = CutFinder()
        #: a view setting: the fewest edges that break every loop are drawn on the canvas (K)
        self.cuts_shown = False
        self.viewport = (1280.0, 800.0)
        self.selection: list[str] = []
        self.selected_edge: str | None = None
        #: the card whose edges E / Shift+E step through while one of them is selected
        self.edge_anchor: str | None = None
        self.exact_limit_override: int | None = None
        self.seed_override = seed
        self.version = 0  # bumped by every document change (autosave watches it)
        self.edited = False  # whether this session changed the document at all
        self.needs_paint = True
        self.layout_frozen = False  # a view setting (not in the document): the layout stands still
        #: the kind a new connection gets (Connect to… and dragging from a handle): a tool
        #: setting, not part of the document
        self.connect_kind = "causal"
        self._cards: dict[str, tuple[str, CardLayout]] = {}
        self._sims: dict[str, LayoutEngine] = {}
        self._tx: Transaction | None = None
        self._used_ids: set[str] = set()
        #: put into every new id after its prefix (the live editor: several pages and an agent
        #: make ids for one memory, so each page's own carry a random tag)
        self.id_tag = ""
        #: asked before an undo (side 0) or redo (side 1): a message refuses it (ValueError),
        #: None lets it run (the live editor: a step on something someone else changed since)
        self.undo_guard: Callable[[Entry, int], str | None] | None = None
        #: asked before every edit, undo and redo with its label: a message refuses it
        #: (ValueError), None lets it run (the live editor showing another moment: layout only)
        self.edit_guard: Callable[[str], str | None] | None = None
        self.doc = empty_document()
        self._install(doc or empty_document(), alpha=1.0)

    # ------------------------------------------------------------------ document
    def _install(self, doc: Document, alpha: float) -> None:
        doc.recorder = None
        doc.guarded = True  # from now on every change goes through a transaction
        self.doc = doc
        for old in self._sims.values():
            old.close()
        self._sims = {}
        self._ticked: LayoutEngine | None = None  # the engine the last tick moved
        self._cards = {}
        # ids only ever join this set: an id that any reachable state (undo, redo, a
        # swapped-out document) holds is never issued again
        self._used_ids |= doc.all_ids()
        self.capacity = Capacity(doc)
        self.selection = []
        self.selected_edge = None
        self.topology_cache.invalidate()
        for plane in doc.planes.values():
            self.refresh_sizes(plane)
            self.sim(plane).alpha = alpha
            plane.layout_dirty = False
        self.needs_paint = True

    @property
    def seed(self) -> int:
        return self.doc.settings.seed if self.seed_override is None else self.seed_override

    @property
    def exact_limit(self) -> int | None:
        return self.exact_limit_override if self.exact_limit_override is not None else self.doc.settings.exact_limit

    @property
    def plane(self) -> Plane:
        return self.doc.active

    def load(self, text: str | bytes, label: str | None = "Import", name: str = "") -> str | None:
        """Replace the document with ``text`` — a Bendscope document, or a graph in another
        format (``graphformats``: by the file's ``name``, else by its first words); returns
        None, or the error message (and then nothing changes). With a ``label`` the
        replacement is one undoable step; with None the history is cleared instead (a fresh
        start, as the automation API does)."""
        try:
            fmt = format_of(text if isinstance(text, str) else text[:4_096].decode("utf-8", "replace"), name)
            if fmt == "json":
                doc = parse_document(text)
            else:
                if isinstance(text, bytes):
                    text = text.decode("utf-8")
                doc = document_from_data(read_graph(text, fmt))
        except UnicodeDecodeError:
            return "The file is not UTF-8 text."
        except DocumentError as exc:
            return str(exc)
        if label is None:
            self.replace_document(doc, alpha=1.0 if doc.needs_layout else 0.0, edited=True)
            self._changed()
        else:
            self.replace_with(doc, label)
        return None

    def replace_with(self, doc: Document, label: str = "Replace graph") -> None:
        """Install ``doc`` in place of the current document as one undoable step."""
        if self._tx is not None:
            raise RuntimeError("cannot replace the document inside a transaction")
        entry = Entry(label, swap=(self.doc, doc))
        # a document with positions is shown as it was saved; one without is laid out
        self._install(doc, alpha=1.0 if doc.needs_layout else 0.0)
        self.history.push(entry)
        self._changed()

    def replace_document(self, doc: Document, *, alpha: float = 1.0, edited: bool = False) -> None:
        """Install ``doc`` (restore from storage, demo) without an undo step."""
        self._install(doc, alpha)
        self.history.clear()
        self.edited = edited

    def export(self, indent: int | None = 2) -> str:
        return serialize_document(self.doc, indent=indent)

    def export_as(self, fmt: str) -> str:
        """The current plane in another format (``graphformats``: csv, graphml, dot, mermaid)."""
        plane = self.plane
        nodes = [{"id": n.id, "text": n.text, "x": n.x, "y": n.y} for n in plane.nodes.values()]
        edges = [{"id": e.id, "a": e.a, "b": e.b, "props": e.props.to_dict()} for e in plane.edges.values()]
        return write_graph(nodes, edges, fmt)

    def new_id(self, prefix: str) -> str:
        k = len(self._used_ids)
        while True:
            candidate = f"{prefix}-{self.id_tag}{k:x}"
            if candidate not in self._used_ids:
                self._used_ids.add(candidate)
                return candidate
            k += 1

    # ------------------------------------------------------------------ history
    @contextlib.contextmanager
    def transaction(self, label: str) -> Iterator[Transaction]:
        """Group edits into one undo step (nested calls join the outer one).

        The transaction is the document's recorder while open. If the body raises,
        everything it changed is put back and nothing reaches the history.
        """
        if self._tx is not None:
            yield self._tx
            return
        refusal = None if self.edit_guard is None else self.edit_guard(label)
        if refusal is not None:
            raise ValueError(refusal)
        tx = self._tx = Transaction(self.doc, label)
        self.doc.recorder = tx
        try:
            yield tx
        except BaseException:
            self._tx = None
            self.doc.recorder = None
            tx.rollback()
            for plane_id in {key[1] for key in tx.before}:
                plane = self.doc.planes.get(plane_id)
                if plane is not None:
                    self.refresh_sizes(plane)
            self._prune_selection()
            raise
        self._tx = None
        self.doc.recorder = None
        entry = tx.entry()
        if entry is None:
            return
        problem = self.capacity.problem(self.doc, entry)
        if problem is not None:  # more than a document may hold: undo it, say why
            apply(self.doc, entry, 0)
            for plane_id in entry.planes():
                plane = self.doc.planes.get(plane_id)
                if plane is not None:
                    self.refresh_sizes(plane)
            self._prune_selection()
            raise ValueError(problem)
        self.capacity.apply(self.doc, entry, 1)
        self.history.push(entry)
        self._after_change(entry)

    @contextlib.contextmanager
    def remote_change(self) -> Iterator[None]:
        """Changes someone else made (the memory's agent, seen by the live editor), written
        through the model's mutators like any change — sizes, layout near what changed,
        capacity, the version — but not a step of this person's undo history. If the body
        raises, everything it changed is put back."""
        if self._tx is not None:
            raise RuntimeError("a remote change cannot join a transaction")
        tx = self._tx = Transaction(self.doc, "Remote change")
        self.doc.recorder = tx
        try:
            yield
        except BaseException:
            tx.rollback()
            raise
        finally:
            self._tx = None
            self.doc.recorder = None
        entry = tx.entry()
        if entry is None:
            return
        self.capacity.apply(self.doc, entry, 1)
        self._prune_selection()
        self._after_change(entry)

    def _after_change(self, entry: Entry) -> None:
        self._close_gone_sims()
        for plane_id in entry.planes():
            plane = self.doc.planes.get(plane_id)
            if plane is not None:
                self.refresh_sizes(plane)
                if plane.layout_dirty:  # not for changes that move nothing (type, portal, name)
                    plane.layout_dirty = False
                    if not self.layout_frozen:  # frozen: nothing moves, now or when unfrozen
                        # local: only what is near the change moves (never a reshuffle)
                        self.sim(plane).reheat(around=entry.touched_nodes(plane_id))
        self._changed()

    def _changed(self) -> None:
        self.version += 1
        self.edited = True
        self.needs_paint = True

    def undo(self) -> bool:
        return self._travel(self.history.undo_stack, self.history.redo_stack, 0)

    def redo(self) -> bool:
        return self._travel(self.history.redo_stack, self.history.undo_stack, 1)

    def _travel(self, source: list[Entry], target: list[Entry], side: int) -> bool:
        if not source or self._tx is not None:
            return False
        refusal = None if self.edit_guard is None else self.edit_guard(source[-1].label)
        if refusal is not None:
            raise ValueError(refusal)
        if self.undo_guard is not None:
            problem = self.undo_guard(source[-1], side)
            if problem is not None:
                raise ValueError(problem)
        entry = source.pop()
        target.append(entry)
        if entry.swap is not None:
            self._install(entry.swap[side], alpha=0.0)
            self._changed()
            return True
        path = [p.id for p in self.doc.path()]
        was = self.doc.active_plane_id
        apply(self.doc, entry, side)
        self.capacity.apply(self.doc, entry, side)
        if self.doc.active_plane_id not in self.doc.planes:
            # the plane we were on was removed: go to its nearest remaining ancestor
            self.doc.active_plane_id = next((p for p in reversed(path) if p in self.doc.planes), self.doc.root_plane_id)
        touched = [p for p in entry.planes() if p in self.doc.planes]
        if touched and self.doc.active_plane_id not in touched:
            # show what was undone: go to the plane it happened on
            self.doc.active_plane_id = touched[0]
        for _kind, plane_id, item_id in entry.changes:
            self._used_ids.add(item_id or plane_id)
        if self.doc.active_plane_id != was:
            sim = self._sims.get(was)
            if sim is not None:
                sim.pause()
        self._prune_selection()
        self._after_change(entry)
        return True

    def _prune_selection(self) -> None:
        self.selection = [n for n in self.selection if n in self.plane.nodes]
        if self.selected_edge not in self.plane.edges:
            self.selected_edge = None

    # ------------------------------------------------------------------ layout & sizes
    def sim(self, plane: Plane | None = None) -> LayoutEngine:
        plane = plane or self.plane
        sim = self._sims.get(plane.id)
        if sim is None or sim.plane is not plane:
            if sim is not None:
                sim.close()  # its plane object was replaced (an undone deletion re-creates it)
            sim = self._sims[plane.id] = self.layout_factory(plane, self.seed)
        return sim

    def _close_gone_sims(self) -> None:
        """Free the layout engines of planes no longer in the document."""
        for plane_id in [p for p in self._sims if p not in self.doc.planes]:
            self._sims.pop(plane_id).close()

    def _leaving(self) -> None:
        """The active plane is about to change: its layout waits until it is shown again."""
        sim = self._sims.get(self.doc.active_plane_id)
        if sim is not None:
            sim.pause()

    def card(self, node: Node) -> CardLayout:
        cached = self._cards.get(node.id)
        if cached is None or cached[0] != node.text:
            cached = (node.text, layout_card(node.text, self.measure))
            self._cards[node.id] = cached
        layout = cached[1]
        node.width = layout.width
        node.height = layout.height
        return layout

    def refresh_sizes(self, plane: Plane) -> None:
        for node in plane.nodes.values():
            self.card(node)

    def set_measure(self, measure: Measure) -> None:
        """Switch text measuring (e.g. once the web font is loaded) and re-size cards."""
        self.measure = measure
        self._cards.clear()
        for plane in self.doc.planes.values():
            self.refresh_sizes(plane)
        self.needs_paint = True

    def tick(self, budget_ms: float = 0.0) -> bool:
        """Layout steps of the active plane (one, or as many as fit ``budget_ms`` where the
        engine can); returns whether it still moves. Nothing moves while the layout is
        frozen (``layout_frozen``)."""
        if self.layout_frozen:
            return False
        sim = self.sim()
        if self._ticked is not None and self._ticked is not sim:
            self._ticked.pause()  # another plane is shown now: its layout waits until it is again
        self._ticked = sim
        moving = sim.step(budget_ms)
        if moving:
            self.needs_paint = True
        return moving

    def settle(self) -> int:
        """Run the active plane's layout to rest; returns the steps taken."""
        steps = self.sim().settle()
        self.needs_paint = True
        return steps

    @property
    def animating(self) -> bool:
        return not self.layout_frozen and self.sim().active

    def set_layout_frozen(self, frozen: bool) -> None:
        """Freeze the layout (cards stay exactly where they are; drags still move them) or
        let it run again: a run that was going when frozen (a first layout) goes on; edits
        made while frozen move nothing, then or later."""
        if frozen:
            for sim in self._sims.values():
                sim.pause()
        self.layout_frozen = frozen
        self.needs_paint = True

    # ------------------------------------------------------------------ camera
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

    def reset_zoom(self) -> None:
        self.plane.camera.zoom = 1.0
        self.needs_paint = True

    def fit_view(
        self, margin: float = 60.0, top_px: float = 96.0, bottom_px: float = 56.0, node_ids: Iterable[str] | None = None
    ) -> None:
        """Centre the plane's nodes (or ``node_ids`` of them) in the area between the toolbar
        (``top_px``) and the HUD (``bottom_px``), zooming out (never in past 1) if they do not fit."""
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
            area_h = max(100.0, h - top_px - bottom_px)
            fit = min((w - 2 * margin) / max(1.0, right - left), area_h / max(1.0, lower - upper))
            cam.zoom = max(MIN_ZOOM, min(1.0, fit))
            cam.x = clamp_coord((left + right) / 2)
            cam.y = clamp_coord((upper + lower) / 2 - ((top_px + h - bottom_px) / 2 - h / 2) / cam.zoom)
        self.needs_paint = True

    def opening_view(self) -> None:
        """The view a graph opens with: all of it (``fit_view``) — except on a small screen
        (narrower than NARROW_PX), where all of a large graph is too small to read: there
        it opens at READABLE_ZOOM (card text drawn as text) around the graph's middle, and
        Fit (F) still shows everything."""
        self.fit_view()
        cam = self.plane.camera
        if self.viewport[0] < NARROW_PX and cam.zoom < READABLE_ZOOM and self.plane.nodes:
            h = self.viewport[1]
            centre_y = cam.y + ((96.0 + h - 56.0) / 2 - h / 2) / cam.zoom  # (fit_view's middle of the plane)
            cam.zoom = READABLE_ZOOM
            cam.y = clamp_coord(centre_y - ((96.0 + h - 56.0) / 2 - h / 2) / cam.zoom)

    # ------------------------------------------------------------------ queries
    def stats(self) -> dict[str, float | int]:
        return {
            "nodes": len(self.plane.nodes),
            "edges": len(self.plane.edges),
            "depth": self.doc.depth(),
            "zoom": zoom_shown(self.plane.camera.zoom),
        }

    def screen_position(self, node_id: str) -> list[float] | None:
        node = self.plane.nodes.get(node_id)
        if node is None:
            return None
        x, y = self.world_to_screen(node.x, node.y)
        return [round(x, 2), round(y, 2)]

    def node_at(self, sx: float, sy: float) -> Node | None:
        """Topmost node under a screen point (last drawn wins). O(n)."""
        wx, wy = self.screen_to_world(sx, sy)
        for node in reversed(list(self.plane.nodes.values())):
            if abs(wx - node.x) <= node.width / 2 and abs(wy - node.y) <= node.height / 2:
                return node
        return None

    def nodes_in_rect(self, sx0: float, sy0: float, sx1: float, sy1: float) -> list[str]:
        """Ids of the nodes whose cards touch the screen rectangle (any corner order). O(n)."""
        (ax, ay), (bx, by) = self.screen_to_world(sx0, sy0), self.screen_to_world(sx1, sy1)
        x0, x1, y0, y1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
        return [
            n.id
            for n in self.plane.nodes.values()
            if n.x + n.width / 2 >= x0 and n.x - n.width / 2 <= x1 and n.y + n.height / 2 >= y0
            and n.y - n.height / 2 <= y1
        ]  # fmt: skip

    def handle_at(self, sx: float, sy: float, node_id: str, radius: float = 10.0) -> bool:
        """Whether screen point (sx, sy) is on ``node_id``'s connection handle (the dot
        at the middle of its card's right edge), within ``radius`` screen px."""
        node = self.plane.nodes.get(node_id)
        if node is None:
            return False
        hx, hy = self.world_to_screen(node.x + node.width / 2, node.y)
        return (sx - hx) ** 2 + (sy - hy) ** 2 <= radius * radius

    def edge_at(self, sx: float, sy: float, tolerance: float = EDGE_TOLERANCE) -> Edge | None:
        """The edge under a screen point: the one whose label pill holds it (when labels are
        drawn), else the one whose drawn line (straight, or curved for edges between the same
        two nodes) is nearest within ``tolerance`` screen px — the same reach at every zoom.
        O(m)."""
        wx, wy = self.screen_to_world(sx, sy)
        plane = self.plane
        if plane.camera.zoom >= GREEK_ZOOM and len(plane.edges) <= EDGE_DETAIL_LIMIT:  # (labels drawn)
            for edge in reversed(list(plane.edges.values())):  # (the last drawn is on top)
                box = edge_label_box(plane, edge, self.measure)
                if box is not None and abs(wx - box[0]) <= box[2] / 2 and abs(wy - box[1]) <= box[3] / 2:
                    return edge
        best, best_d = None, tolerance / plane.camera.zoom
        for edge in plane.edges.values():
            path = edge_path(plane, edge)
            if path is None:
                continue
            for k in range(0, len(path) - 2, 2):
                d = segment_distance(wx, wy, path[k], path[k + 1], path[k + 2], path[k + 3])
                if d <= best_d:
                    best, best_d = edge, d
        return best

    def topology(self, plane: Plane | None = None) -> Topology:
        """The exact topology now (runs or finishes its computation)."""
        return self.topology_cache.get(plane or self.plane, self.exact_limit)

    def selection_topology(self) -> Topology | None:
        """With two or more nodes selected, the topology of the subgraph they induce (what
        the HUD, inspector, halos and Export topology show then); None otherwise."""
        if len(self.selection) < 2:
            return None
        return self.topology_cache.induced(self.plane, self.selection, self.exact_limit)

    def topology_export(self) -> dict[str, Any]:
        """What Export topology writes: the canonical topology of the selection (two or
        more nodes, not the whole plane) or else of the plane, and ``names``: a short form
        of each node's text by id, so a reader of the file knows which card an id is. O(n)."""
        plane = self.plane
        chosen = None if len(self.selection) == len(plane.nodes) else self.selection_topology()
        result = dict((chosen or self.topology()).result)
        ids = [n for scc in result["sccs"] for n in scc["nodes"]] + list(result["dag_nodes"])
        result["names"] = {n: short_name(plane.nodes[n].text, NAME_LIMIT) for n in sorted(ids) if n in plane.nodes}
        return result

    def shown_topology(self, budget_ms: float = 0.0) -> Topology:
        """The active plane's topology for drawing: exact if ready within ``budget_ms``,
        else the previous one marked ``pending`` (see ``bend.topology``)."""
        return self.topology_cache.shown(self.plane, self.exact_limit, budget_ms)

    def loop_scope(self) -> frozenset[str] | None:
        """What the Loops panel lists: the selection (two or more nodes, not all of them), or
        None for the whole plane."""
        if len(self.selection) < 2 or len(self.selection) == len(self.plane.nodes):
            return None
        return frozenset(self.selection)

    def loops(self, budget_ms: float = 0.0, *, wait: bool = False) -> LoopReport | None:
        """The loops of the plane or the selection (``bend.loop_list``): the report if it is
        ready or its search ends within ``budget_ms`` (``wait``: runs it to the end); else
        None while the plane's topology or the search is still in progress (they go on
        with :meth:`compute_topology` and :meth:`compute_loops`)."""
        scope = self.loop_scope()
        if scope is None:
            if self.topology_cache.pending(self.plane) and not wait:
                return None
            topology = self.topology()
        else:
            topology = self.topology_cache.induced(self.plane, sorted(scope), self.exact_limit)
        return self.loop_finder.report(self.plane, topology, scope, math.inf if wait else budget_ms)

    def loop_cuts(self, budget_ms: float = 0.0, *, wait: bool = False) -> CutReport | None:
        """The fewest edges that break every loop of each loop region of the plane or the
        selection (``bend.loop_cuts``), as :meth:`loops` gives its list: the report if it is
        ready or its search ends within ``budget_ms`` (``wait``: runs it to the end), else
        None while it is computed (it goes on with :meth:`compute_cuts`)."""
        scope = self.loop_scope()
        if scope is None:
            if self.topology_cache.pending(self.plane) and not wait:
                return None
            topology = self.topology()
        else:
            topology = self.topology_cache.induced(self.plane, sorted(scope), self.exact_limit)
        return self.cut_finder.report(self.plane, topology, scope, math.inf if wait else budget_ms)

    def compute_cuts(self, budget_ms: float) -> bool:
        """A slice of the running search for the fewest edges that break every loop; whether
        it is still running."""
        running = self.cut_finder.advance(budget_ms)
        if not running:
            self.needs_paint = True
        return running

    def shown_cuts(self, report: CutReport | None) -> tuple[str, ...]:
        """The edges drawn as breaking every loop (``cuts_shown``): with one card of a loop
        region selected, that region's; else every region's of the scope. O(regions)."""
        if not self.cuts_shown or report is None:
            return ()
        if len(self.selection) == 1:
            scc = self.topology().scc(self.selection[0]) if not self.topology_cache.pending(self.plane) else None
            region = None if scc is None else report.region(scc["id"])
            if region is not None:
                return region.edges
        return report.edges

    def compute_loops(self, budget_ms: float) -> bool:
        """A slice of the running loop search; whether it is still running."""
        running = self.loop_finder.advance(budget_ms)
        if not running:
            self.needs_paint = True
        return running

    def compute_topology(self, budget_ms: float) -> bool:
        """A slice of the running topology computation; whether it is still running."""
        running = self.topology_cache.advance(budget_ms)
        if not running:
            self.needs_paint = True
        return running

    def nodes_near(self, node_id: str, radius: float = 500.0) -> list[Node]:
        """Other nodes on the active plane within ``radius`` world px, nearest first (ties by id)."""
        origin = self.plane.nodes[node_id]
        found = []
        for node in self.plane.nodes.values():
            if node.id == node_id:
                continue
            d = math.hypot(node.x - origin.x, node.y - origin.y)
            if d <= radius:
                found.append((d, node.id, node))
        found.sort(key=lambda t: (t[0], t[1]))
        return [t[2] for t in found]

    # ------------------------------------------------------------------ selection
    def select(self, node_ids: list[str]) -> None:
        self.selection = [n for n in node_ids if n in self.plane.nodes]
        self.selected_edge = None
        self.needs_paint = True

    def select_edge(self, edge_id: str | None) -> None:
        self.selected_edge = edge_id if edge_id in self.plane.edges else None
        self.selection = []
        self.needs_paint = True

    # ------------------------------------------------------------------ node commands
    def add_node(self, x: float, y: float, text: str = "", node_type: str = "normal", pinned: bool = False) -> str:
        """A new node at (x, y); ``pinned``: placed by the user, so it stays there."""
        if node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}")
        _check_text(text)
        plane = self.plane
        node = Node(self.new_id("node"), text, node_type, clamp_coord(x), clamp_coord(y), pinned=pinned)
        with self.transaction("Add node"):
            plane.add_node(node)
        self.select([node.id])
        return node.id

    def discard_new_node(self, node_id: str) -> bool:
        """Take back the node the last step created (Esc in a new node's text editor):
        the step is undone and forgotten, so redo cannot bring the node back. Returns
        False, changing nothing, when the last step is anything else. O(the step)."""
        stack = self.history.undo_stack
        if self._tx is not None or not stack or node_id not in self.plane.nodes:
            return False
        entry = stack[-1]
        if entry.label != "Add node" or ("node", self.plane.id, node_id) not in entry.changes:
            return False
        self.undo()
        self.history.redo_stack.pop()
        return True

    def fold_into_creation(self, node_id: str) -> bool:
        """Make the text just typed into a new node part of the step that created it, so
        one undo takes the new card away (not first its text, then an empty card). Only
        when the last two steps are that node's creation and then its text; else False,
        changing nothing. O(the two steps)."""
        stack = self.history.undo_stack
        if self._tx is not None or len(stack) < 2 or node_id not in self.plane.nodes:
            return False
        created, typed = stack[-2], stack[-1]
        key = ("node", self.plane.id, node_id)
        if created.label != "Add node" or created.changes.get(key, (1, None))[0] is not None:
            return False
        if typed.label != "Edit text" or key not in typed.changes:
            return False
        stack[-2:] = [merged(created, typed)]
        return True

    def set_text(self, node_id: str, text: str) -> None:
        """Change a node's text (a stargate's plane is renamed with it)."""
        _check_text(text)
        plane = self.plane
        node = plane.nodes[node_id]
        if node.text == text:
            return
        with self.transaction("Edit text"):
            plane.update_node(node_id, text=text)
            portal = node.portal_plane_id
            if node.type == "stargate" and portal is not None and portal in self.doc.planes:
                self.doc.planes[portal].set_header(name=_plane_name(text))

    def move_node(self, node_id: str, x: float, y: float, *, from_xy: tuple[float, float] | None = None) -> None:
        """Record a move (drag end): the node is pinned where it was dropped (d3's fx/fy),
        so the layout leaves it there until Unpin. ``from_xy`` is where the drag started,
        so undo goes back there (and to the pin it had)."""
        self.move_nodes({node_id: (x, y)}, None if from_xy is None else {node_id: from_xy})

    def move_nodes(
        self, moves: Mapping[str, tuple[float, float]], starts: Mapping[str, tuple[float, float]] | None = None
    ) -> None:
        """Record a move of several nodes as one step (a group drag), each pinned where it
        was dropped; ``starts`` are where the drag began, so undo goes back there. O(k)."""
        plane = self.plane
        moved = {n: (clamp_coord(x), clamp_coord(y)) for n, (x, y) in moves.items() if n in plane.nodes}
        for node_id, start in (starts or {}).items():
            if node_id in moved:
                node = plane.nodes[node_id]
                node.x, node.y = start  # positions are not guarded: the drag moved them live
        with self.transaction("Move node" if len(moved) == 1 else "Move nodes"):
            for node_id, (x, y) in moved.items():
                plane.update_node(node_id, x=x, y=y, pinned=True)
        for node_id, (x, y) in moved.items():
            node = plane.nodes[node_id]
            node.x, node.y = x, y
            node.vx = node.vy = 0.0

    def arrange_job(self, direction: str) -> ArrangeJob:
        """What the layered arrangement of the active plane needs (bend.arrange). O(n + m)."""
        return arrange_job(self.plane, self.topology(), direction)

    def apply_arrangement(self, job: ArrangeJob, xy: list[float]) -> None:
        """Move every card of the plane to the centres ``xy`` the arrangement gave and pin it
        there, as one undoable step; the layout stops and the view fits the result. Raises
        ValueError (nothing changes) if the plane changed since ``job`` was made or ``xy`` is
        not a position per card. O(n)."""
        problem = arrangement_problem(self.plane, job, xy)
        if problem is not None:
            raise ValueError(problem)
        plane = self.plane
        with self.transaction(DIRECTIONS[job.direction]):
            for k, node_id in enumerate(job.ids):
                plane.update_node(node_id, x=float(xy[2 * k]), y=float(xy[2 * k + 1]), pinned=True)
        for node in plane.nodes.values():
            node.vx = node.vy = 0.0
        self.sim(plane).stop()  # every card is pinned: nothing would move
        self.fit_view()

    def set_pinned_many(self, node_ids: list[str], pinned: bool) -> None:
        """Pin or unpin several nodes as one step."""
        plane = self.plane
        with self.transaction("Pin" if pinned else "Unpin"):
            for node_id in node_ids:
                if node_id in plane.nodes:
                    plane.update_node(node_id, pinned=pinned)

    def set_pinned(self, node_id: str, pinned: bool) -> None:
        plane = self.plane
        with self.transaction("Pin" if pinned else "Unpin"):
            plane.update_node(node_id, pinned=pinned)

    def set_type(self, node_id: str, node_type: str) -> None:
        if node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}")
        plane = self.plane
        node = plane.nodes[node_id]
        if node_type != "stargate" and node.portal_plane_id is not None:
            raise ValueError("This stargate has a plane; delete the node to remove it.")
        with self.transaction("Convert node"):
            plane.update_node(node_id, type=node_type)

    def delete_nodes(self, node_ids: list[str]) -> None:
        """Delete nodes, their edges and (for stargates) their planes, nested ones included."""
        plane = self.plane
        doomed = [n for n in node_ids if n in plane.nodes]
        if not doomed:
            return
        with self.transaction("Delete"):
            for node_id in doomed:
                for edge in plane.edges_of(node_id):
                    plane.remove_edge(edge.id)
                portal = plane.nodes[node_id].portal_plane_id
                if portal is not None and portal in self.doc.planes:
                    self._delete_plane_tree(portal)
                plane.remove_node(node_id)
        self.selection = [n for n in self.selection if n in plane.nodes]

    def _delete_plane_tree(self, plane_id: str) -> None:
        """Remove a plane and every plane below it, deepest first. Iterative: O(size of the tree)."""
        order: list[str] = []
        seen = {plane_id}
        stack = [plane_id]
        while stack:
            current = stack.pop()
            order.append(current)
            for node in self.doc.planes[current].nodes.values():
                child = node.portal_plane_id
                if child is not None and child in self.doc.planes and child not in seen:
                    seen.add(child)
                    stack.append(child)
        for current in reversed(order):
            plane = self.doc.planes[current]
            for edge_id in list(plane.edges):
                plane.remove_edge(edge_id)
            for node_id in list(plane.nodes):
                plane.remove_node(node_id)
            self.doc.remove_plane(current)

    def fork(self, node_id: str) -> str:
        """A copy of the node beside it, linked from it by a context edge."""
        plane = self.plane
        node = plane.nodes[node_id]
        with self.transaction("Fork"):
            new_id = self.add_node(node.x + node.width + 80.0, node.y + 30.0, node.text)
            self.add_edge(node_id, new_id, kind="context", label="fork")
        self.select([new_id])
        return new_id

    def merge(self, keep_id: str, other_id: str) -> None:
        """Fold ``other`` into ``keep``: texts joined, edges re-pointed, other removed."""
        plane = self.plane
        keep, other = plane.nodes[keep_id], plane.nodes[other_id]
        if keep_id == other_id:
            return
        if other.portal_plane_id and keep.portal_plane_id:
            raise ValueError("Both nodes are stargates with planes; merge one of their planes first.")
        text = keep.text
        if other.text.strip():
            text = f"{keep.text}\n\n{other.text}" if keep.text.strip() else other.text
        if len(text) > MAX_TEXT:
            raise ValueError(f"The merged text would have {len(text):,} characters; the limit is {MAX_TEXT:,}.")
        with self.transaction("Merge"):
            plane.update_node(keep_id, text=text)
            if other.portal_plane_id:
                child = self.doc.planes[other.portal_plane_id]
                child.set_header(parent_node_id=keep_id, name=_plane_name(text))
                plane.update_node(other_id, portal_plane_id=None)
                plane.update_node(keep_id, portal_plane_id=child.id, type="stargate")
            seen = {(e.a, e.b, e.props.kind) for e in plane.edges.values() if other_id not in (e.a, e.b)}
            for edge in plane.edges_of(other_id):
                a = keep_id if edge.a == other_id else edge.a
                b = keep_id if edge.b == other_id else edge.b
                if a == b or (a, b, edge.props.kind) in seen:
                    plane.remove_edge(edge.id)
                    continue
                seen.add((a, b, edge.props.kind))
                plane.replace_edge(Edge(edge.id, a, b, edge.props))
            plane.remove_node(other_id)
        self.select([keep_id])

    # ------------------------------------------------------------------ edge commands
    def set_connect_kind(self, kind: str) -> None:
        """The kind the next connections get (an unknown kind is refused, nothing changes)."""
        if kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {kind!r}")
        self.connect_kind = kind

    def add_edge(self, a: str, b: str, kind: str = DEFAULT_KIND, label: str = "", strength: int = 2) -> str | None:
        """Add a → b; returns its id, or None for a self-loop or an identical edge."""
        plane = self.plane
        if kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {kind!r}")
        _check_edge_props(label, strength)
        if a == b or a not in plane.nodes or b not in plane.nodes:
            return None
        if any(e.a == a and e.b == b and e.props.kind == kind for e in plane.edges.values()):
            return None
        edge = Edge(self.new_id("edge"), a, b, EdgeProps(label, kind, strength))
        with self.transaction("Connect"):
            plane.add_edge(edge)
        return edge.id

    def set_edge(
        self,
        edge_id: str,
        *,
        kind: str | None = None,
        label: str | None = None,
        strength: int | None = None,
        polarity: str | None = KEEP,
    ) -> None:
        """Change an edge's kind, label, strength or polarity ("+", "-", None for none; a kind
        that takes none drops it). Its data is kept."""
        plane = self.plane
        old = plane.edges[edge_id]
        new_kind = old.props.kind if kind is None else kind
        sign = old.props.polarity if polarity == KEEP else polarity
        if new_kind not in POLAR_KINDS:
            if polarity not in (KEEP, None):
                raise ValueError(f"a {new_kind} edge has no polarity (only causal and temporal edges do)")
            sign = None
        if sign not in (None, "+", "-"):
            raise ValueError(f"polarity must be '+', '-' or None, got {sign!r}")
        props = EdgeProps(
            old.props.label if label is None else label,
            new_kind,
            old.props.strength if strength is None else strength,
            sign,
        )
        if props.kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {props.kind!r}")
        _check_edge_props(props.label, props.strength)
        with self.transaction("Edit edge"):
            plane.replace_edge(Edge(edge_id, old.a, old.b, props, old.data))

    def reverse_edge(self, edge_id: str) -> None:
        plane = self.plane
        old = plane.edges[edge_id]
        with self.transaction("Reverse edge"):
            plane.replace_edge(Edge(edge_id, old.b, old.a, old.props, old.data))

    def delete_edge(self, edge_id: str) -> None:
        plane = self.plane
        with self.transaction("Delete edge"):
            plane.remove_edge(edge_id)
        if self.selected_edge == edge_id:
            self.selected_edge = None

    # ------------------------------------------------------------------ planes
    def enter_stargate(self, node_id: str) -> str:
        """Open the stargate's child plane (created on first visit, an undoable step); returns its id."""
        plane = self.plane
        node = plane.nodes[node_id]
        if node.type != "stargate" and node.portal_plane_id not in self.doc.planes:
            raise ValueError("only stargate nodes lead to a plane")
        child_id = node.portal_plane_id
        if child_id is None or child_id not in self.doc.planes:
            child_id = self.new_id("plane")
            with self.transaction("Open stargate"):
                self.doc.add_plane(Plane(child_id, _plane_name(node.text), plane.id, node.id))
                plane.update_node(node_id, portal_plane_id=child_id)
        self.go_to_plane(child_id)
        return child_id

    def go_to_plane(self, plane_id: str) -> None:
        if plane_id not in self.doc.planes:
            raise ValueError(f"no plane {plane_id!r}")
        if plane_id != self.doc.active_plane_id:
            self._leaving()
        self.doc.active_plane_id = plane_id
        self.selection = []
        self.selected_edge = None
        self.refresh_sizes(self.plane)
        self.needs_paint = True
        self.version += 1  # the active plane is saved with the document


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


def _check_text(text: str) -> None:
    if not isinstance(text, str):
        raise ValueError("node text must be a string")
    if len(text) > MAX_TEXT:
        raise ValueError(f"The text has {len(text):,} characters; the limit is {MAX_TEXT:,}.")
    if _SURROGATE.search(text):
        raise ValueError("The text is not valid Unicode (it holds an unpaired surrogate).")


def _check_edge_props(label: str, strength: int) -> None:
    if not isinstance(label, str) or len(label) > MAX_LABEL:
        raise ValueError(f"An edge label is a string of at most {MAX_LABEL} characters.")
    if _SURROGATE.search(label):
        raise ValueError("The label is not valid Unicode (it holds an unpaired surrogate).")
    if type(strength) is not int or strength not in (1, 2, 3, 4, 5):
        raise ValueError("strength must be a whole number from 1 to 5")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _plane_name(text: str) -> str:
    first = text.strip().split("\n", 1)[0].lstrip("#").strip()
    return first[:60] or "Stargate"
