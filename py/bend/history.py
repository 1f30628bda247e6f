"""Diff-based undo/redo (in the manner of tldraw's history).

A transaction snapshots every entity it touches before the first change; on
commit it keeps only what differs. Undo applies the "before" side, redo the
"after" side. For an entity that exists on both sides only the fields that the
edit changed are written back, so undoing a text edit does not also drag the
node back to where the layout had it at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Camera, Document, Edge, Node, Plane

Key = tuple[str, str, str]  # (kind, plane id, entity id); kind is "plane", "node" or "edge"
Snapshot = dict[str, Any] | None


@dataclass
class Entry:
    """One undoable step."""

    label: str
    changes: dict[Key, tuple[Snapshot, Snapshot]] = field(default_factory=dict)
    #: (kind, plane id) → (ids before, ids after) where membership or order changed
    orders: dict[tuple[str, str], tuple[list[str], list[str]]] = field(default_factory=dict)


def snapshot(doc: Document, key: Key) -> Snapshot:
    kind, plane_id, item_id = key
    plane = doc.planes.get(plane_id)
    if plane is None:
        return None
    if kind == "plane":
        return plane.header_dict()
    if kind == "node":
        node = plane.nodes.get(item_id)
        if node is None:
            return None
        d = node.to_dict()
        del d["vx"], d["vy"], d["width"], d["height"]  # physics and derived sizes are not history
        return d
    edge = plane.edges.get(item_id)
    return None if edge is None else edge.to_dict()


class Transaction:
    """Collects the before-state of touched entities; ``finish`` builds the Entry."""

    def __init__(self, doc: Document, label: str) -> None:
        self.doc = doc
        self.label = label
        self.before: dict[Key, Snapshot] = {}
        self.orders: dict[tuple[str, str], list[str]] = {}

    def touch(self, kind: str, plane_id: str, item_id: str = "") -> None:
        key = (kind, plane_id, item_id)
        if key not in self.before:
            self.before[key] = snapshot(self.doc, key)
        if kind != "plane" and (kind, plane_id) not in self.orders:
            self.orders[(kind, plane_id)] = _order(self.doc, kind, plane_id)

    def finish(self) -> Entry | None:
        changes = {}
        for key, before in self.before.items():
            after = snapshot(self.doc, key)
            if before != after:
                changes[key] = (before, after)
        if not changes:
            return None
        orders = {}
        for key, before in self.orders.items():
            after = _order(self.doc, *key)
            if before != after:
                orders[key] = (before, after)
        return Entry(self.label, changes, orders)


def _order(doc: Document, kind: str, plane_id: str) -> list[str]:
    plane = doc.planes.get(plane_id)
    if plane is None:
        return []
    return list(plane.nodes if kind == "node" else plane.edges)


_ORDER = {"edge": 0, "node": 1, "plane": 2}


def apply(doc: Document, entry: Entry, side: int) -> set[str]:
    """Write one side (0 = before/undo, 1 = after/redo) of ``entry`` into ``doc``.

    Removals go first (edges, nodes, planes), then creations and updates (planes,
    nodes, edges), so references are always valid. Returns the touched plane ids.
    """
    items = sorted(entry.changes.items(), key=lambda kv: _ORDER[kv[0][0]])
    touched: set[str] = set()
    for (kind, plane_id, item_id), states in items:
        if states[side] is None and states[1 - side] is not None:
            touched.add(plane_id)
            plane = doc.planes.get(plane_id)
            if plane is None:
                continue
            if kind == "edge":
                plane.remove_edge(item_id)
            elif kind == "node":
                plane.remove_node(item_id)
            else:
                del doc.planes[plane_id]
    for (kind, plane_id, item_id), states in reversed(items):
        target, other = states[side], states[1 - side]
        if target is None:
            continue
        touched.add(plane_id)
        if kind == "plane":
            _put_plane(doc, target)
            continue
        plane = doc.planes[plane_id]
        if kind == "node":
            _put_node(plane, target, other)
        else:
            plane.replace_edge(Edge.from_dict(target)) if item_id in plane.edges else plane.add_edge(
                Edge.from_dict(target)
            )
    for (kind, plane_id), orders in entry.orders.items():
        plane = doc.planes.get(plane_id)
        if plane is None:
            continue
        items = plane.nodes if kind == "node" else plane.edges
        wanted = [i for i in orders[side] if i in items]
        wanted += [i for i in items if i not in set(wanted)]
        reordered = {i: items[i] for i in wanted}
        items.clear()
        items.update(reordered)
        plane.version += 1
    return touched


def _put_plane(doc: Document, d: dict[str, Any]) -> None:
    plane = doc.planes.get(d["id"])
    if plane is None:
        plane = Plane(d["id"])
        doc.planes[plane.id] = plane
    plane.name = d["name"]
    plane.parent_plane_id = d["parentPlaneId"]
    plane.parent_node_id = d["parentNodeId"]
    plane.camera = Camera(**d["camera"])


def _put_node(plane: Plane, target: dict[str, Any], other: Snapshot) -> None:
    node = plane.nodes.get(target["id"])
    if node is None:
        plane.add_node(Node.from_dict(target))
        return
    for key, value in target.items():
        if other is None or other.get(key) != value:
            setattr(node, _ATTR.get(key, key), value)
    plane.layout_dirty = True


_ATTR = {"portalPlaneId": "portal_plane_id"}


class History:
    """Undo and redo stacks of Entries (bounded)."""

    def __init__(self, limit: int = 500) -> None:
        self.limit = limit
        self.undo_stack: list[Entry] = []
        self.redo_stack: list[Entry] = []

    def push(self, entry: Entry) -> None:
        self.undo_stack.append(entry)
        del self.undo_stack[: -self.limit]
        self.redo_stack.clear()

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_stack)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    def clear(self) -> None:
        self.undo_stack.clear()
        self.redo_stack.clear()
