"""The document model: planes holding nodes and edges (BendScript's data model).

A plane's structure (its node set and its directed-edge set) changes only through
the Plane methods below; they raise ``topology_dirty`` so the κ cache knows it must
recompute. Moving a node (x, y, vx, vy) never does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NODE_TYPES = ("normal", "stargate")
EDGE_KINDS = ("context", "causal", "temporal", "associative", "user")
DEFAULT_KIND = "causal"
MIN_ZOOM = 0.32
MAX_ZOOM = 2.8


@dataclass
class Camera:
    """World → screen: screen = (world - (x, y)) * zoom + viewport centre."""

    x: float = 0.0
    y: float = 0.0
    zoom: float = 1.0

    def to_dict(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "zoom": self.zoom}


class Node:
    """A card on a plane. ``width``/``height`` are derived from the text by layout."""

    __slots__ = ("height", "id", "pinned", "portal_plane_id", "text", "type", "vx", "vy", "width", "x", "y")

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
    ) -> None:
        self.id = id
        self.text = text
        self.type = type
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        self.pinned = pinned
        self.width = width
        self.height = height
        self.portal_plane_id = portal_plane_id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "type": self.type,
            "x": self.x,
            "y": self.y,
            "vx": self.vx,
            "vy": self.vy,
            "pinned": self.pinned,
            "width": self.width,
            "height": self.height,
            "portalPlaneId": self.portal_plane_id,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Node:
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
        )

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.text[:20]!r}, x={self.x:.1f}, y={self.y:.1f})"


@dataclass
class EdgeProps:
    label: str = ""
    kind: str = DEFAULT_KIND
    strength: int = 2

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "kind": self.kind, "strength": self.strength}


@dataclass
class Edge:
    """A directed edge a → b (for κ: a is the source, b the target)."""

    id: str
    a: str
    b: str
    props: EdgeProps = field(default_factory=EdgeProps)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "a": self.a, "b": self.b, "props": self.props.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Edge:
        p = d.get("props", {})
        return cls(
            d["id"], d["a"], d["b"], EdgeProps(p.get("label", ""), p.get("kind", DEFAULT_KIND), p.get("strength", 2))
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
        self.name = name
        self.parent_plane_id = parent_plane_id
        self.parent_node_id = parent_node_id
        self.camera = camera or Camera()
        self.nodes: dict[str, Node] = {}
        self.edges: dict[str, Edge] = {}
        #: raised by every structural change; cleared by the topology cache.
        self.topology_dirty = True
        #: raised by any change that may move things; the layout reheats on it.
        self.layout_dirty = True
        #: bumped by every change to the node or edge set (caches key on it)
        self.version = 0

    # -- structure: every mutation of the node set or the edge set goes through here --
    def _structure_changed(self) -> None:
        self.topology_dirty = self.layout_dirty = True
        self.version += 1

    def add_node(self, node: Node) -> None:
        self.nodes[node.id] = node
        self._structure_changed()

    def remove_node(self, node_id: str) -> Node:
        node = self.nodes.pop(node_id)
        self._structure_changed()
        return node

    def add_edge(self, edge: Edge) -> None:
        self.edges[edge.id] = edge
        self._structure_changed()

    def remove_edge(self, edge_id: str) -> Edge:
        edge = self.edges.pop(edge_id)
        self._structure_changed()
        return edge

    def replace_edge(self, edge: Edge) -> None:
        """Put ``edge`` in place of the edge with its id (kind, direction, label…)."""
        old = self.edges.get(edge.id)
        self.edges[edge.id] = edge
        if old is None or (old.a, old.b, old.props.kind) != (edge.a, edge.b, edge.props.kind):
            self.topology_dirty = True
        self.version += 1
        self.layout_dirty = True

    def edges_of(self, node_id: str) -> list[Edge]:
        """Edges touching ``node_id``, in insertion order. O(m)."""
        return [e for e in self.edges.values() if e.a == node_id or e.b == node_id]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "parentPlaneId": self.parent_plane_id,
            "parentNodeId": self.parent_node_id,
            "camera": self.camera.to_dict(),
            "nodes": [n.to_dict() for n in self.nodes.values()],
            "edges": [e.to_dict() for e in self.edges.values()],
        }

    def header_dict(self) -> dict[str, Any]:
        """The plane without its nodes and edges (for history diffs)."""
        return {
            "id": self.id,
            "name": self.name,
            "parentPlaneId": self.parent_plane_id,
            "parentNodeId": self.parent_node_id,
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
    """All planes of one graph, with the root and the active plane."""

    def __init__(self, planes: list[Plane], root_plane_id: str, active_plane_id: str | None = None) -> None:
        self.planes: dict[str, Plane] = {p.id: p for p in planes}
        self.root_plane_id = root_plane_id
        self.active_plane_id = active_plane_id or root_plane_id
        self.settings = Settings()
        #: set by the parser when some nodes came without positions
        self.needs_layout = False

    @property
    def root(self) -> Plane:
        return self.planes[self.root_plane_id]

    @property
    def active(self) -> Plane:
        return self.planes[self.active_plane_id]

    def depth(self, plane_id: str | None = None) -> int:
        """0 for the root plane, 1 for its children, …"""
        plane = self.planes[plane_id or self.active_plane_id]
        depth = 0
        while plane.parent_plane_id is not None:
            plane = self.planes[plane.parent_plane_id]
            depth += 1
        return depth

    def path(self, plane_id: str | None = None) -> list[Plane]:
        """Planes from the root down to ``plane_id`` (the breadcrumbs)."""
        plane = self.planes[plane_id or self.active_plane_id]
        chain = [plane]
        while plane.parent_plane_id is not None:
            plane = self.planes[plane.parent_plane_id]
            chain.append(plane)
        return chain[::-1]

    def all_ids(self) -> set[str]:
        ids = set(self.planes)
        for plane in self.planes.values():
            ids.update(plane.nodes)
            ids.update(plane.edges)
        return ids

    def node_count(self) -> int:
        return sum(len(p.nodes) for p in self.planes.values())


def empty_document() -> Document:
    """A document with one empty root plane."""
    return Document([Plane("plane-root", "Main")], "plane-root")
