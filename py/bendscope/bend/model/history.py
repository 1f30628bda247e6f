"""Diff-based undo/redo (in the manner of tldraw's history).

The document reports every change to the open :class:`Transaction` before it
happens (see ``model.Document.will_change``); the transaction snapshots each
touched entity once, and on ``finish`` keeps only what differs. Undo applies the
"before" side, redo the "after" side. For an entity that exists on both sides only
the fields that the edit changed are written back, so undoing a text edit does not
also drag the node back to where the layout had it at that moment.

Replacing the whole document (import, New, Demo) is one entry too: it keeps both
document objects and swaps them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.model.elements import Camera, Document, Edge, Node, Plane

Key = tuple[str, str, str]  # (kind, plane id, entity id); kind is "plane", "node" or "edge"
Snapshot = dict[str, Any] | None
OrderKey = tuple[str, str]  # ("node" | "edge", plane id) or ("plane", "") for the plane table


@dataclass
class Entry:
    """One undoable step."""

    label: str
    changes: dict[Key, tuple[Snapshot, Snapshot]] = field(default_factory=dict)
    #: where membership or order of a table changed: (ids before, ids after)
    orders: dict[OrderKey, tuple[list[str], list[str]]] = field(default_factory=dict)
    #: a whole-document replacement: (document before, document after)
    swap: tuple[Document, Document] | None = None

    def planes(self) -> list[str]:
        """The plane ids this entry touches, in first-touched order."""
        return list(dict.fromkeys(key[1] for key in self.changes))

    def touched_nodes(self, plane_id: str) -> set[str]:
        """The node ids on ``plane_id`` this entry changes: nodes changed, added or removed,
        and both ends of every edge changed, added or removed (before and after). O(changes)."""
        found: set[str] = set()
        for (kind, plane, item_id), sides in self.changes.items():
            if plane != plane_id:
                continue
            if kind == "node":
                found.add(item_id)
            elif kind == "edge":
                for side in sides:
                    if side is not None:
                        found.update((side["a"], side["b"]))
        return found


def merged(first: Entry, second: Entry) -> Entry:
    """One step doing what ``first`` and then ``second`` did, labelled as ``first``: each
    entity goes from its state before ``first`` to its state after ``second`` (entities
    that end as they began drop out). Neither may be a document swap. O(changes).

    >>> a = Entry("Add node", {("node", "p", "n"): (None, {"text": ""})}, {("node", "p"): ([], ["n"])})
    >>> b = Entry("Edit text", {("node", "p", "n"): ({"text": ""}, {"text": "Hi"})})
    >>> both = merged(a, b)
    >>> both.label, both.changes, both.orders
    ('Add node', {('node', 'p', 'n'): (None, {'text': 'Hi'})}, {('node', 'p'): ([], ['n'])})
    """
    if first.swap is not None or second.swap is not None:
        raise ValueError("a document swap cannot be merged")
    changes = dict(first.changes)
    for key, (before, after) in second.changes.items():
        changes[key] = (changes[key][0] if key in changes else before, after)
    orders = dict(first.orders)
    for order_key, (before_ids, after_ids) in second.orders.items():
        orders[order_key] = (orders[order_key][0] if order_key in orders else before_ids, after_ids)
    return Entry(
        first.label,
        {k: sides for k, sides in changes.items() if sides[0] != sides[1]},
        {k: ids for k, ids in orders.items() if ids[0] != ids[1]},
    )


def snapshot(doc: Document, key: Key) -> Snapshot:
    kind, plane_id, item_id = key
    plane = doc.planes.get(plane_id)
    if plane is None:
        return None
    if kind == "plane":
        header = plane.header_dict()
        del header["camera"]  # navigation is not history
        return header
    if kind == "node":
        node = plane.nodes.get(item_id)
        if node is None:
            return None
        d = node.to_dict()
        del d["vx"], d["vy"], d["width"], d["height"]  # physics and derived sizes are not history
        return d
    edge = plane.edges.get(item_id)
    return None if edge is None else edge.to_dict()


def place_snapshot(doc: Document, key: Key) -> Snapshot:
    """The part of a node's snapshot a change of its place alone changes (``Plane.place_nodes``):
    a step that only moves and pins cards holds these, not whole snapshots. O(1)."""
    plane = doc.planes.get(key[1])
    node = None if plane is None else plane.nodes.get(key[2])
    return None if node is None else {"id": node.id, "x": node.x, "y": node.y, "pinned": node.pinned}


def _order(doc: Document, key: OrderKey) -> list[str]:
    kind, plane_id = key
    if kind == "plane":
        return list(doc.planes)
    plane = doc.planes.get(plane_id)
    if plane is None:
        return []
    return list(plane.nodes if kind == "node" else plane.edges)


class Transaction:
    """Collects the before-state of touched entities; ``finish`` builds the Entry.

    It is the document's ``recorder`` while open: the model calls ``touch`` before
    each change. O(size of the touched entities) per touch, plus one O(n) copy of a
    table's order the first time the table is touched. A node whose place alone changes
    (``touch_places``) keeps only its place (``place_snapshot``), on both sides, until
    something else of it changes.
    """

    def __init__(self, doc: Document, label: str) -> None:
        self.doc = doc
        self.label = label
        self.before: dict[Key, Snapshot] = {}
        self.orders: dict[OrderKey, list[str]] = {}
        self.places: set[Key] = set()  # the nodes whose snapshots hold their places alone

    def touch(self, kind: str, plane_id: str, item_id: str = "") -> None:
        key = (kind, plane_id, item_id)
        if key in self.places:  # more than its place changes now: the whole node, as it was
            self.places.discard(key)
            whole = snapshot(self.doc, key)
            if whole is not None:
                whole.update(self.before[key] or {})
            self.before[key] = whole
        if key not in self.before:
            self.before[key] = snapshot(self.doc, key)
        order_key = ("plane", "") if kind == "plane" else (kind, plane_id)
        if order_key not in self.orders:
            self.orders[order_key] = _order(self.doc, order_key)

    def touch_places(self, plane_id: str, node_ids: Iterable[str]) -> None:
        """Before a change of these nodes' places alone (``Plane.place_nodes``). O(k)."""
        before, places = self.before, self.places
        plane = self.doc.planes.get(plane_id)
        nodes = {} if plane is None else plane.nodes
        for node_id in node_ids:
            key = ("node", plane_id, node_id)
            if key not in before:
                node = nodes.get(node_id)
                before[key] = None if node is None else {"id": node_id, "x": node.x, "y": node.y, "pinned": node.pinned}
                places.add(key)

    def entry(self) -> Entry | None:
        """What changed since the transaction opened, or None."""
        changes = {}
        places, doc = self.places, self.doc
        for key, before in self.before.items():
            after = place_snapshot(doc, key) if key in places else snapshot(doc, key)
            if before != after:
                changes[key] = (before, after)
        orders = {}
        for order_key, before_ids in self.orders.items():
            after_ids = _order(self.doc, order_key)
            if before_ids != after_ids:
                orders[order_key] = (before_ids, after_ids)
        if not changes and not orders:
            return None
        return Entry(self.label, changes, orders)

    def rollback(self) -> None:
        """Put back everything touched so far (an edit failed half way)."""
        entry = self.entry()
        if entry is not None:
            apply(self.doc, entry, 0)


_REMOVE_ORDER = {"edge": 0, "node": 1, "plane": 2}


def apply(doc: Document, entry: Entry, side: int) -> set[str]:
    """Write one side (0 = before/undo, 1 = after/redo) of ``entry`` into ``doc``.

    Removals go first (edges, nodes, planes), then creations and updates (planes,
    nodes, edges), then table orders. Unrecorded (``doc.ignoring``). Returns the
    touched plane ids. O(size of the entry).
    """
    items = sorted(entry.changes.items(), key=lambda kv: _REMOVE_ORDER[kv[0][0]])
    touched: set[str] = set()
    places: dict[tuple[str, bool], dict[str, tuple[float, float]]] = {}
    with doc.ignoring():
        for (kind, plane_id, item_id), states in items:
            if states[side] is None and states[1 - side] is not None:
                touched.add(plane_id)
                plane = doc.planes.get(plane_id)
                if plane is None:
                    continue
                if kind == "edge":
                    if item_id in plane.edges:
                        plane.remove_edge(item_id)
                elif kind == "node":
                    if item_id in plane.nodes:
                        plane.remove_node(item_id)
                else:
                    doc.remove_plane(plane_id)
        for (kind, plane_id, item_id), states in reversed(items):
            target, other = states[side], states[1 - side]
            if target is None:
                continue
            touched.add(plane_id)
            if kind == "plane":
                _put_plane(doc, target)
                continue
            plane = doc.planes[plane_id]
            if kind == "node" and len(target) == 4 and "text" not in target and item_id in plane.nodes:
                # (a place alone, ``place_snapshot``: written below with the others of its plane)
                places.setdefault((plane_id, target["pinned"]), {})[item_id] = (target["x"], target["y"])
            elif kind == "node":
                _put_node(plane, target, other)
            elif item_id in plane.edges:
                plane.replace_edge(Edge.from_dict(target))
            else:
                plane.add_edge(Edge.from_dict(target))
        for (plane_id, pinned), moved in places.items():
            plane = doc.planes[plane_id]
            plane.place_nodes(moved, pinned=pinned)
            for node_id in moved:
                node = plane.nodes[node_id]
                node.vx = node.vy = 0.0
        for (kind, plane_id), orders in entry.orders.items():
            if kind == "plane":
                doc.reorder_planes(orders[side])
                continue
            plane = doc.planes.get(plane_id)
            if plane is not None:
                plane.reorder(kind, orders[side])
    return touched


def _put_plane(doc: Document, d: dict[str, Any]) -> None:
    plane = doc.planes.get(d["id"])
    if plane is None:
        doc.add_plane(Plane(d["id"], d["name"], d["parentPlaneId"], d["parentNodeId"], Camera()))
        return
    plane.set_header(name=d["name"], parent_node_id=d["parentNodeId"])


_FIELD = {"portalPlaneId": "portal_plane_id"}


def _put_node(plane: Plane, target: dict[str, Any], other: Snapshot) -> None:
    node = plane.nodes.get(target["id"])
    if node is None:
        plane.add_node(Node.from_dict(target))
        return
    changes = {
        _FIELD.get(key, key): value
        for key, value in target.items()
        if key != "id" and (other is None or other.get(key) != value)
    }
    if "x" in changes or "y" in changes:
        node.vx = node.vy = 0.0
    plane.update_node(node.id, **changes)


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
