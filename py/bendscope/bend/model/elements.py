"""The document model: planes holding nodes and edges (BendScript's data model).

Every change to a document goes through the mutators here (``Document.add_plane``,
``Plane.add_node``, ``Plane.update_node``, ``Plane.replace_edge`` …). The fields
that make up the document are read-only attributes; the node and edge tables are
read-only mappings. Each mutator first reports the entity it is about to change to
the document's ``recorder`` (the open history transaction), so the history sees
every change. A document owned by an editor is *guarded*: a change with no
recorder raises :class:`UntrackedChange` before anything is modified. Undo/redo
write with :meth:`Document.ignoring` (tldraw's "ignore").

Positions and velocities (``x``, ``y``, ``vx``, ``vy``) and the derived card size
(``width``, ``height``) stay plain attributes: the layout moves nodes every frame
and that is not an edit. A move the user makes is recorded by ``update_node``.

A plane's structure (its node set and its directed-edge set) changes only through
the Plane methods below; they raise ``topology_dirty`` so the κ cache knows it must
recompute. Moving a node never does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from bendscope.shared import docformat as _format

# the format's vocabulary and limits (the agent memory reads the same module)
NODE_TYPES = _format.NODE_TYPES
BASE_EDGE_KINDS = _format.BASE_EDGE_KINDS
MEMORY_EDGE_KINDS = _format.MEMORY_EDGE_KINDS
EDGE_KINDS = _format.EDGE_KINDS
DEFAULT_KIND = _format.DEFAULT_KIND
POLAR_KINDS = _format.POLAR_KINDS
MIN_ZOOM = _format.MIN_ZOOM
MAX_ZOOM = _format.MAX_ZOOM
MAX_TEXT = _format.MAX_TEXT
MAX_LABEL = _format.MAX_LABEL
COORD_LIMIT = _format.COORD_LIMIT
SPEED_LIMIT = _format.SPEED_LIMIT


class UntrackedChange(RuntimeError):
    """A guarded document was changed outside a transaction (always a bug in the caller)."""


class Recorder(Protocol):
    """What a document reports to before each change (the open transaction)."""

    def touch(self, kind: str, plane_id: str, item_id: str = "") -> None: ...

    def touch_places(self, plane_id: str, node_ids: Iterable[str]) -> None:
        """Before a change of these nodes' places alone (``x``, ``y``, ``pinned``)."""
        ...


class _Ignore:
    def touch(self, kind: str, plane_id: str, item_id: str = "") -> None:
        return None

    def touch_places(self, plane_id: str, node_ids: Iterable[str]) -> None:
        return None


IGNORE: Recorder = _Ignore()


@dataclass
class Camera:
    """World → screen: screen = (world - (x, y)) * zoom + viewport centre. Navigation, not history."""

    x: float = 0.0
    y: float = 0.0
    zoom: float = 1.0

    def to_dict(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "zoom": self.zoom}


class Node:
    """A card on a plane. ``width``/``height`` are derived from the text by layout.

    ``text``, ``type``, ``pinned``, ``portal_plane_id`` and ``data`` are read-only: change
    them with :meth:`Plane.update_node`. ``data`` is an optional JSON object the editor
    keeps without interpreting it (e.g. a memory node's type and confidence); treat it
    as immutable.
    """

    __slots__ = ("_data", "_pinned", "_portal", "_text", "_type", "height", "id", "vx", "vy", "width", "x", "y")

    def __init__(
        self,
        id: str,
        text: str = "",
        type: str = "normal",
        x: float = 0.0,
        y: float = 0.0,
        vx: float = 0.0,
        vy: float = 0.0,
        pinned: bool = False,
        width: float = 180.0,
        height: float = 60.0,
        portal_plane_id: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self._text = text
        self._type = type
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        self._pinned = pinned
        self.width = width
        self.height = height
        self._portal = portal_plane_id
        self._data = data

    @property
    def text(self) -> str:
        return self._text

    @property
    def type(self) -> str:
        return self._type

    @property
    def pinned(self) -> bool:
        return self._pinned

    @property
    def portal_plane_id(self) -> str | None:
        return self._portal

    @property
    def data(self) -> dict[str, Any] | None:
        return self._data

    def to_dict(self) -> dict[str, Any]:
        d = {
            "id": self.id,
            "text": self._text,
            "type": self._type,
            "x": self.x,
            "y": self.y,
            "vx": self.vx,
            "vy": self.vy,
            "pinned": self._pinned,
            "width": self.width,
            "height": self.height,
            "portalPlaneId": self._portal,
        }
        if self._data is not None:
            d["data"] = self._data
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Node:
        return cls(
            d["id"],
            d.get("text", ""),
            d.get("type", "normal"),
            float(d.get("x", 0.0)),
            float(d.get("y", 0.0)),
            float(d.get("vx", 0.0)),
            float(d.get("vy", 0.0)),
            bool(d.get("pinned", False)),
            float(d.get("width", 180.0)),
            float(d.get("height", 60.0)),
            d.get("portalPlaneId"),
            d.get("data"),
        )

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self._text[:20]!r}, x={self.x:.1f}, y={self.y:.1f})"


#: the node fields ``update_node`` may change, and the attribute each is stored in
_NODE_FIELDS = {
    "text": "_text",
    "type": "_type",
    "pinned": "_pinned",
    "portal_plane_id": "_portal",
    "data": "_data",
    "x": "x",
    "y": "y",
}


#: node fields whose change moves nothing (a card's size comes from its text only)
_LAYOUT_NEUTRAL = frozenset({"type", "portal_plane_id", "data"})


@dataclass(frozen=True)
class EdgeProps:
    label: str = ""
    kind: str = DEFAULT_KIND
    strength: int = 2
    #: "+" (same direction), "-" (opposite) or None; causal and temporal edges only
    polarity: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"label": self.label, "kind": self.kind, "strength": self.strength}
        if self.polarity is not None:  # (a document without polarities stays as it was)
            d["polarity"] = self.polarity
        return d


@dataclass(frozen=True)
class Edge:
    """A directed edge a → b (for κ: a is the source, b the target). Immutable: replace it."""

    id: str
    a: str
    b: str
    props: EdgeProps = field(default_factory=EdgeProps)
    #: an optional JSON object kept as it is (e.g. a memory edge's weight); immutable
    data: dict[str, Any] | None = field(default=None, compare=True)

    def to_dict(self) -> dict[str, Any]:
        d = {"id": self.id, "a": self.a, "b": self.b, "props": self.props.to_dict()}
        if self.data is not None:
            d["data"] = self.data
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Edge:
        p = d.get("props", {})
        return cls(
            d["id"],
            d["a"],
            d["b"],
            EdgeProps(p.get("label", ""), p.get("kind", DEFAULT_KIND), p.get("strength", 2), p.get("polarity")),
            d.get("data"),
        )


class Plane:
    """One level of the graph. Nodes and edges keep insertion order (determinism)."""

    def __init__(
        self,
        id: str,
        name: str = "Main",
        parent_plane_id: str | None = None,
        parent_node_id: str | None = None,
        camera: Camera | None = None,
    ) -> None:
        self.id = id
        self._name = name
        self._parent_plane_id = parent_plane_id
        self._parent_node_id = parent_node_id
        self.camera = camera or Camera()
        self._nodes: dict[str, Node] = {}
        self._edges: dict[str, Edge] = {}
        #: read-only views: change them with the mutators below
        self.nodes: Mapping[str, Node] = MappingProxyType(self._nodes)
        self.edges: Mapping[str, Edge] = MappingProxyType(self._edges)
        self._doc: Document | None = None
        #: raised by every structural change; cleared by the topology cache.
        self.topology_dirty = True
        #: bumped by every change that may change the topology (a running κ job keys on it)
        self.topology_version = 0
        #: raised by any change that may move things; the editor reheats the layout on it.
        self.layout_dirty = False
        #: bumped by every change to the node or edge set (caches key on it)
        self.version = 0
        #: bumped by every change to a card's text or type (what the outline words, moves never)
        self.words_version = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def parent_plane_id(self) -> str | None:
        return self._parent_plane_id

    @property
    def parent_node_id(self) -> str | None:
        return self._parent_node_id

    # -- the choke point: every mutation reports here first --
    def _will_change(self, kind: str, item_id: str = "") -> None:
        doc = self._doc
        if doc is not None:
            doc.will_change(kind, self.id, item_id)

    def _structure_changed(self) -> None:
        self.topology_dirty = self.layout_dirty = True
        self.version += 1
        self.topology_version += 1

    def add_node(self, node: Node) -> None:
        if node.id in self._nodes:
            raise ValueError(f"node {node.id!r} is already on plane {self.id!r}")
        self._will_change("node", node.id)
        self._nodes[node.id] = node
        self._structure_changed()

    def remove_node(self, node_id: str) -> Node:
        if node_id not in self._nodes:
            raise KeyError(node_id)
        self._will_change("node", node_id)
        node = self._nodes.pop(node_id)
        self._structure_changed()
        return node

    def update_node(self, node_id: str, **changes: Any) -> None:
        """Change ``text``, ``type``, ``pinned``, ``portal_plane_id``, ``x`` or ``y`` of a node."""
        node = self._nodes[node_id]
        for key in changes:
            if key not in _NODE_FIELDS:
                raise TypeError(f"update_node() cannot change {key!r}")
        if all(getattr(node, key) == value for key, value in changes.items()):
            return
        self._will_change("node", node_id)
        for key, value in changes.items():
            setattr(node, _NODE_FIELDS[key], value)
        if "text" in changes or "type" in changes:
            self.words_version += 1
        if not _LAYOUT_NEUTRAL.issuperset(changes):
            self.layout_dirty = True

    def place_nodes(self, places: Mapping[str, tuple[float, float]], pinned: bool | None = None) -> None:
        """Move many nodes at once — each to its ``(x, y)``, pinned or unpinned when ``pinned``
        is given — as one change reported once: the recorder keeps only the places it changes
        (an arrangement moves every card; a full record of each cost as much again). O(k)."""
        nodes = self._nodes
        missing = next((node_id for node_id in places if node_id not in nodes), None)
        if missing is not None:
            raise KeyError(missing)
        doc = self._doc
        if doc is not None:
            doc.will_place(self.id, places)
        for node_id, (x, y) in places.items():
            node = nodes[node_id]
            node.x, node.y = x, y
            if pinned is not None:
                node._pinned = pinned
        if places:
            self.layout_dirty = True

    def add_edge(self, edge: Edge) -> None:
        if edge.id in self._edges:
            raise ValueError(f"edge {edge.id!r} is already on plane {self.id!r}")
        self._will_change("edge", edge.id)
        self._edges[edge.id] = edge
        self._structure_changed()

    def remove_edge(self, edge_id: str) -> Edge:
        if edge_id not in self._edges:
            raise KeyError(edge_id)
        self._will_change("edge", edge_id)
        edge = self._edges.pop(edge_id)
        self._structure_changed()
        return edge

    def replace_edge(self, edge: Edge) -> None:
        """Put ``edge`` in place of the edge with its id (kind, direction, label…)."""
        old = self._edges.get(edge.id)
        if old == edge:
            return
        self._will_change("edge", edge.id)
        self._edges[edge.id] = edge
        if old is None or (old.a, old.b, old.props.kind) != (edge.a, edge.b, edge.props.kind):
            self.topology_dirty = True
            self.topology_version += 1
        self.version += 1
        self.layout_dirty = True

    def set_header(self, *, name: str | None = None, parent_node_id: str | None = None) -> None:
        """Rename the plane, or re-attach it to another stargate node of its parent plane."""
        new_name = self._name if name is None else name
        new_parent = self._parent_node_id if parent_node_id is None else parent_node_id
        if (new_name, new_parent) == (self._name, self._parent_node_id):
            return
        self._will_change("plane")
        self._name, self._parent_node_id = new_name, new_parent

    def reorder(self, kind: str, ids: list[str]) -> None:
        """Put the node or edge table in ``ids`` order (ids not listed keep their order, after).

        Used by the history to restore insertion order; unrecorded by design.
        """
        table: dict[str, Any] = self._nodes if kind == "node" else self._edges
        wanted = [i for i in ids if i in table]
        listed = set(wanted)
        wanted += [i for i in table if i not in listed]
        if wanted == list(table):
            return
        reordered = {i: table[i] for i in wanted}
        table.clear()
        table.update(reordered)
        self.version += 1

    def edges_of(self, node_id: str) -> list[Edge]:
        """Edges touching ``node_id``, in insertion order. O(m)."""
        return [e for e in self._edges.values() if e.a == node_id or e.b == node_id]

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.header_dict(),
            "nodes": [n.to_dict() for n in self._nodes.values()],
            "edges": [e.to_dict() for e in self._edges.values()],
        }

    def header_dict(self) -> dict[str, Any]:
        """The plane without its nodes and edges (for history diffs)."""
        return {
            "id": self.id,
            "name": self._name,
            "parentPlaneId": self._parent_plane_id,
            "parentNodeId": self._parent_node_id,
            "camera": self.camera.to_dict(),
        }


@dataclass
class Settings:
    """Per-document settings: layout seed and the κ exact limit."""

    seed: int = 1
    exact_limit: int | None = None  # None: the engine's default

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "exactLimit": self.exact_limit}


class Document:
    """All planes of one graph, with the root and the active plane.

    ``guarded`` (set by the editor that owns it): every change must happen while a
    ``recorder`` is installed. ``active_plane_id`` and cameras are navigation, not edits.
    """

    def __init__(self, planes: list[Plane], root_plane_id: str, active_plane_id: str | None = None) -> None:
        self._planes: dict[str, Plane] = {}
        self.planes: Mapping[str, Plane] = MappingProxyType(self._planes)
        self.recorder: Recorder | None = None
        self.guarded = False
        for plane in planes:
            self.add_plane(plane)
        self.root_plane_id = root_plane_id
        self.active_plane_id = active_plane_id or root_plane_id
        self.settings = Settings()
        #: set by the parser when some nodes came without positions
        self.needs_layout = False

    def will_change(self, kind: str, plane_id: str, item_id: str = "") -> None:
        """Report an imminent change to the recorder; refuse it on a guarded document without one."""
        recorder = self.recorder
        if recorder is not None:
            recorder.touch(kind, plane_id, item_id)
        elif self.guarded:
            raise UntrackedChange(f"{kind} {item_id or plane_id!r} changed outside a transaction")

    def will_place(self, plane_id: str, node_ids: Iterable[str]) -> None:
        """Report an imminent change of nodes' places alone (``Plane.place_nodes``), as ``will_change``."""
        recorder = self.recorder
        if recorder is not None:
            recorder.touch_places(plane_id, node_ids)
        elif self.guarded:
            raise UntrackedChange(f"the places of nodes on {plane_id!r} changed outside a transaction")

    @contextlib.contextmanager
    def ignoring(self) -> Iterator[None]:
        """Change the document without recording (undo/redo writing history back)."""
        saved, self.recorder = self.recorder, IGNORE
        try:
            yield
        finally:
            self.recorder = saved

    def add_plane(self, plane: Plane) -> None:
        if plane.id in self._planes:
            raise ValueError(f"plane {plane.id!r} already exists")
        self.will_change("plane", plane.id)
        plane._doc = self
        self._planes[plane.id] = plane

    def remove_plane(self, plane_id: str) -> Plane:
        """Remove an empty plane (remove its edges and nodes first, so each is recorded)."""
        plane = self._planes[plane_id]
        if plane.nodes or plane.edges:
            raise ValueError(f"plane {plane_id!r} is not empty")
        if plane_id == self.root_plane_id:
            raise ValueError("the root plane cannot be removed")
        self.will_change("plane", plane_id)
        del self._planes[plane_id]
        plane._doc = None
        return plane

    def reorder_planes(self, ids: list[str]) -> None:
        """Put the plane table in ``ids`` order (history only; unrecorded)."""
        wanted = [i for i in ids if i in self._planes]
        listed = set(wanted)
        wanted += [i for i in self._planes if i not in listed]
        reordered = {i: self._planes[i] for i in wanted}
        self._planes.clear()
        self._planes.update(reordered)

    @property
    def root(self) -> Plane:
        return self._planes[self.root_plane_id]

    @property
    def active(self) -> Plane:
        return self._planes[self.active_plane_id]

    def depth(self, plane_id: str | None = None) -> int:
        """0 for the root plane, 1 for its children, … O(depth)."""
        return len(self.path(plane_id)) - 1

    def path(self, plane_id: str | None = None) -> list[Plane]:
        """Planes from the root down to ``plane_id`` (the breadcrumbs). O(depth)."""
        plane = self._planes[plane_id or self.active_plane_id]
        chain = [plane]
        seen = {plane.id}
        while plane.parent_plane_id is not None and plane.parent_plane_id in self._planes:
            plane = self._planes[plane.parent_plane_id]
            if plane.id in seen:
                break
            seen.add(plane.id)
            chain.append(plane)
        return chain[::-1]

    def all_ids(self) -> set[str]:
        ids = set(self._planes)
        for plane in self._planes.values():
            ids.update(plane.nodes)
            ids.update(plane.edges)
        return ids

    def node_count(self) -> int:
        return sum(len(p.nodes) for p in self._planes.values())


def empty_document() -> Document:
    """A document with one empty root plane."""
    return Document([Plane("plane-root", "Main")], "plane-root")
