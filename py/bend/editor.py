"""The editor front object: the one place the UI, keyboard and automation go through.

It owns the document, the selection, the history, one layout simulation per
plane, card sizes and the topology cache. Every edit is one transaction, so every
edit is undoable; navigation, camera moves and layout motion are not edits.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

from .document import DocumentError, parse_document, serialize_document
from .geometry import segment_distance
from .history import Entry, History, Transaction, apply
from .layout import Simulation
from .model import (
    DEFAULT_KIND,
    EDGE_KINDS,
    MAX_ZOOM,
    MIN_ZOOM,
    NODE_TYPES,
    Document,
    Edge,
    EdgeProps,
    Node,
    Plane,
    empty_document,
)
from .scene import edge_segment, parallel_offsets
from .textlayout import CardLayout, Measure, approx_measure, layout_card
from .topology import Topology, TopologyCache

ZOOM_STEP = 1.2


class Editor:
    """Document + selection + history + layout + topology, behind one API."""

    def __init__(self, doc: Document | None = None, *, measure: Measure = approx_measure, seed: int | None = None):
        self.measure = measure
        self.history = History()
        self.topology_cache = TopologyCache()
        self.viewport = (1280.0, 800.0)
        self.selection: list[str] = []
        self.selected_edge: str | None = None
        self.exact_limit_override: int | None = None
        self.seed_override = seed
        self.version = 0  # bumped by every document change (autosave watches it)
        self.edited = False  # whether this session changed the document at all
        self.needs_paint = True
        self._cards: dict[str, tuple[str, CardLayout]] = {}
        self._sims: dict[str, Simulation] = {}
        self._tx: Transaction | None = None
        self.doc = empty_document()
        self._install(doc or empty_document(), alpha=1.0)

    # ------------------------------------------------------------------ document
    def _install(self, doc: Document, alpha: float) -> None:
        self.doc = doc
        self._sims = {}
        self._cards = {}
        self._used_ids = doc.all_ids()
        self.selection = []
        self.selected_edge = None
        self.topology_cache.invalidate()
        for plane in doc.planes.values():
            self.refresh_sizes(plane)
            self.sim(plane).alpha = alpha
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

    def load(self, text: str | bytes) -> str | None:
        """Replace the document with ``text``; returns None, or the error message
        (and then nothing changes)."""
        try:
            doc = parse_document(text)
        except DocumentError as exc:
            return str(exc)
        # a document with positions is shown as it was saved; one without is laid out
        self._install(doc, alpha=1.0 if doc.needs_layout else 0.0)
        self.history.clear()
        self._changed()
        return None

    def replace_document(self, doc: Document, *, alpha: float = 1.0, edited: bool = False) -> None:
        """Install ``doc`` (restore from storage, demo) without an undo step."""
        self._install(doc, alpha)
        self.history.clear()
        self.edited = edited

    def export(self, indent: int | None = 2) -> str:
        return serialize_document(self.doc, indent=indent)

    def new_id(self, prefix: str) -> str:
        k = len(self._used_ids)
        while True:
            candidate = f"{prefix}-{k:x}"
            if candidate not in self._used_ids:
                self._used_ids.add(candidate)
                return candidate
            k += 1

    # ------------------------------------------------------------------ history
    @contextlib.contextmanager
    def transaction(self, label: str) -> Iterator[Transaction]:
        """Group edits into one undo step (nested calls join the outer one)."""
        if self._tx is not None:
            yield self._tx
            return
        self._tx = Transaction(self.doc, label)
        try:
            yield self._tx
        finally:
            tx, self._tx = self._tx, None
            entry = tx.finish()
            if entry is not None:
                self.history.push(entry)
                self._after_change(entry)

    def _after_change(self, entry: Entry) -> None:
        for plane_id in {key[1] for key in entry.changes}:
            plane = self.doc.planes.get(plane_id)
            if plane is not None:
                self.refresh_sizes(plane)
                self.sim(plane).reheat()
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
        if not source:
            return False
        entry = source.pop()
        apply(self.doc, entry, side)
        target.append(entry)
        if self.doc.active_plane_id not in self.doc.planes:
            self.doc.active_plane_id = self.doc.root_plane_id
        self.selection = [n for n in self.selection if n in self.plane.nodes]
        if self.selected_edge not in self.plane.edges:
            self.selected_edge = None
        self._after_change(entry)
        return True

    # ------------------------------------------------------------------ layout & sizes
    def sim(self, plane: Plane | None = None) -> Simulation:
        plane = plane or self.plane
        sim = self._sims.get(plane.id)
        if sim is None or sim.plane is not plane:
            sim = self._sims[plane.id] = Simulation(plane, seed=self.seed)
        return sim

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

    def tick(self) -> bool:
        """One layout step of the active plane; returns whether it still moves."""
        moving = self.sim().step()
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
        return self.sim().active

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
        cam.x -= dx / cam.zoom
        cam.y -= dy / cam.zoom
        self.needs_paint = True

    def zoom_at(self, factor: float, sx: float | None = None, sy: float | None = None) -> None:
        """Multiply the zoom by ``factor`` keeping screen point (sx, sy) fixed."""
        w, h = self.viewport
        sx = w / 2 if sx is None else sx
        sy = h / 2 if sy is None else sy
        wx, wy = self.screen_to_world(sx, sy)
        cam = self.plane.camera
        cam.zoom = min(MAX_ZOOM, max(MIN_ZOOM, cam.zoom * factor))
        cam.x = wx - (sx - w / 2) / cam.zoom
        cam.y = wy - (sy - h / 2) / cam.zoom
        self.needs_paint = True

    def reset_zoom(self) -> None:
        self.plane.camera.zoom = 1.0
        self.needs_paint = True

    def fit_view(self, margin: float = 60.0, top_px: float = 96.0, bottom_px: float = 56.0) -> None:
        """Centre the plane's nodes in the area between the toolbar (``top_px``) and the
        HUD (``bottom_px``), zooming out (never in past 1) if they do not fit."""
        nodes = list(self.plane.nodes.values())
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
            cam.x = (left + right) / 2
            cam.y = (upper + lower) / 2 - ((top_px + h - bottom_px) / 2 - h / 2) / cam.zoom
        self.needs_paint = True

    # ------------------------------------------------------------------ queries
    def stats(self) -> dict[str, float | int]:
        return {
            "nodes": len(self.plane.nodes),
            "edges": len(self.plane.edges),
            "depth": self.doc.depth(),
            "zoom": round(self.plane.camera.zoom, 2),
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
        for node in reversed(self.plane.nodes.values()):
            if abs(wx - node.x) <= node.width / 2 and abs(wy - node.y) <= node.height / 2:
                return node
        return None

    def edge_at(self, sx: float, sy: float, tolerance: float = 6.0) -> Edge | None:
        """The edge nearest to a screen point within ``tolerance`` screen px."""
        wx, wy = self.screen_to_world(sx, sy)
        best, best_d = None, tolerance / self.plane.camera.zoom
        offsets = parallel_offsets(self.plane)
        for edge in self.plane.edges.values():
            seg = edge_segment(self.plane, edge, offsets.get(edge.id, 0.0))
            if seg is None:
                continue
            d = segment_distance(wx, wy, *seg)
            if d <= best_d:
                best, best_d = edge, d
        return best

    def topology(self, plane: Plane | None = None) -> Topology:
        return self.topology_cache.get(plane or self.plane, self.exact_limit)

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
    def add_node(self, x: float, y: float, text: str = "", node_type: str = "normal") -> str:
        if node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}")
        plane = self.plane
        node = Node(self.new_id("node"), text, node_type, float(x), float(y))
        with self.transaction("Add node") as tx:
            tx.touch("node", plane.id, node.id)
            plane.add_node(node)
        self.select([node.id])
        return node.id

    def set_text(self, node_id: str, text: str) -> None:
        plane = self.plane
        node = plane.nodes[node_id]
        if node.text == text:
            return
        with self.transaction("Edit text") as tx:
            tx.touch("node", plane.id, node_id)
            node.text = text
        if node.type == "stargate" and node.portal_plane_id in self.doc.planes:
            self.doc.planes[node.portal_plane_id].name = _plane_name(text)

    def move_node(self, node_id: str, x: float, y: float, *, from_xy: tuple[float, float] | None = None) -> None:
        """Record a move (drag end). ``from_xy`` is where the drag started, so undo goes back there."""
        plane = self.plane
        node = plane.nodes[node_id]
        if from_xy is not None:
            node.x, node.y = from_xy
        with self.transaction("Move node") as tx:
            tx.touch("node", plane.id, node_id)
            node.x, node.y = float(x), float(y)
            node.vx = node.vy = 0.0

    def set_pinned(self, node_id: str, pinned: bool) -> None:
        plane = self.plane
        with self.transaction("Pin" if pinned else "Unpin") as tx:
            tx.touch("node", plane.id, node_id)
            plane.nodes[node_id].pinned = pinned

    def set_type(self, node_id: str, node_type: str) -> None:
        if node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}")
        plane = self.plane
        with self.transaction("Convert node") as tx:
            tx.touch("node", plane.id, node_id)
            plane.nodes[node_id].type = node_type

    def delete_nodes(self, node_ids: list[str]) -> None:
        plane = self.plane
        doomed = [n for n in node_ids if n in plane.nodes]
        if not doomed:
            return
        with self.transaction("Delete") as tx:
            for node_id in doomed:
                for edge in plane.edges_of(node_id):
                    tx.touch("edge", plane.id, edge.id)
                    plane.remove_edge(edge.id)
                node = plane.nodes[node_id]
                if node.portal_plane_id in self.doc.planes:
                    self._delete_plane_tree(tx, node.portal_plane_id)
                tx.touch("node", plane.id, node_id)
                plane.remove_node(node_id)
        self.selection = [n for n in self.selection if n in plane.nodes]

    def _delete_plane_tree(self, tx: Transaction, plane_id: str) -> None:
        plane = self.doc.planes[plane_id]
        for node in list(plane.nodes.values()):
            if node.portal_plane_id in self.doc.planes:
                self._delete_plane_tree(tx, node.portal_plane_id)
        for edge_id in list(plane.edges):
            tx.touch("edge", plane_id, edge_id)
            plane.remove_edge(edge_id)
        for node_id in list(plane.nodes):
            tx.touch("node", plane_id, node_id)
            plane.remove_node(node_id)
        tx.touch("plane", plane_id)
        del self.doc.planes[plane_id]

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
            raise ValueError("both nodes are stargates with planes; merge one of their planes first")
        with self.transaction("Merge") as tx:
            tx.touch("node", plane.id, keep_id)
            if other.text.strip():
                keep.text = f"{keep.text}\n\n{other.text}" if keep.text.strip() else other.text
            if other.portal_plane_id:
                child = self.doc.planes[other.portal_plane_id]
                tx.touch("plane", child.id)
                child.parent_node_id = keep_id
                keep.portal_plane_id, keep.type = child.id, "stargate"
                tx.touch("node", plane.id, other_id)
                other.portal_plane_id = None
            seen = {(e.a, e.b, e.props.kind) for e in plane.edges.values() if other_id not in (e.a, e.b)}
            for edge in plane.edges_of(other_id):
                tx.touch("edge", plane.id, edge.id)
                a = keep_id if edge.a == other_id else edge.a
                b = keep_id if edge.b == other_id else edge.b
                if a == b or (a, b, edge.props.kind) in seen:
                    plane.remove_edge(edge.id)
                    continue
                seen.add((a, b, edge.props.kind))
                plane.replace_edge(Edge(edge.id, a, b, edge.props))
            tx.touch("node", plane.id, other_id)
            plane.remove_node(other_id)
        self.select([keep_id])

    # ------------------------------------------------------------------ edge commands
    def add_edge(self, a: str, b: str, kind: str = DEFAULT_KIND, label: str = "", strength: int = 2) -> str | None:
        """Add a → b; returns its id, or None for a self-loop or an identical edge."""
        plane = self.plane
        if kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {kind!r}")
        if a == b or a not in plane.nodes or b not in plane.nodes:
            return None
        if any(e.a == a and e.b == b and e.props.kind == kind for e in plane.edges.values()):
            return None
        edge = Edge(self.new_id("edge"), a, b, EdgeProps(label, kind, strength))
        with self.transaction("Connect") as tx:
            tx.touch("edge", plane.id, edge.id)
            plane.add_edge(edge)
        return edge.id

    def set_edge(self, edge_id: str, *, kind: str | None = None, label: str | None = None, strength: int | None = None):
        plane = self.plane
        old = plane.edges[edge_id]
        props = EdgeProps(
            old.props.label if label is None else label,
            old.props.kind if kind is None else kind,
            old.props.strength if strength is None else strength,
        )
        if props.kind not in EDGE_KINDS:
            raise ValueError(f"unknown edge kind {props.kind!r}")
        if props.strength not in (1, 2, 3, 4, 5):
            raise ValueError("strength must be 1..5")
        with self.transaction("Edit edge") as tx:
            tx.touch("edge", plane.id, edge_id)
            plane.replace_edge(Edge(edge_id, old.a, old.b, props))

    def reverse_edge(self, edge_id: str) -> None:
        plane = self.plane
        old = plane.edges[edge_id]
        with self.transaction("Reverse edge") as tx:
            tx.touch("edge", plane.id, edge_id)
            plane.replace_edge(Edge(edge_id, old.b, old.a, old.props))

    def delete_edge(self, edge_id: str) -> None:
        plane = self.plane
        with self.transaction("Delete edge") as tx:
            tx.touch("edge", plane.id, edge_id)
            plane.remove_edge(edge_id)
        if self.selected_edge == edge_id:
            self.selected_edge = None

    # ------------------------------------------------------------------ planes
    def enter_stargate(self, node_id: str) -> str:
        """Open the stargate's child plane (created on first visit); returns its id."""
        plane = self.plane
        node = plane.nodes[node_id]
        if node.type != "stargate":
            raise ValueError("only stargate nodes lead to a plane")
        child_id = node.portal_plane_id
        if child_id not in self.doc.planes:
            child_id = self.new_id("plane")
            child = Plane(child_id, _plane_name(node.text), plane.id, node.id)
            self.doc.planes[child_id] = child
            node.portal_plane_id = child_id
            self._changed()
        self.go_to_plane(child_id)
        return child_id

    def go_to_plane(self, plane_id: str) -> None:
        if plane_id not in self.doc.planes:
            raise ValueError(f"no plane {plane_id!r}")
        self.doc.active_plane_id = plane_id
        self.selection = []
        self.selected_edge = None
        self.refresh_sizes(self.plane)
        self.needs_paint = True
        self.version += 1  # the active plane is saved with the document


def _plane_name(text: str) -> str:
    first = text.strip().split("\n", 1)[0].lstrip("#").strip()
    return first[:60] or "Stargate"
