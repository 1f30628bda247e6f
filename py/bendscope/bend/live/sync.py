"""The live editor's sync with the agent's memory, DOM-free (the page's ``app.live_mode`` only
moves bytes): what the person changed, as operations for ``POST /api/write``; the memory's
document brought into the editor without losing the camera, the selection or the layout;
undo and redo refused when what they would change was changed by someone else since.

**Knowledge** is what the memory keeps of a document: each card's text and each edge's
ends, kind, label, strength and polarity. Positions, pins, types and planes are the page's
(the page keeps positions per memory, see ``app.live_mode``). A card with no text yet is a
draft: it is not written (the memory holds no empty facts) until it gets some, and neither
are its edges.

:class:`LiveSync` holds the last knowledge both sides agreed on (``base``) and decides the
next step — write the person's changes, fetch the memory's state, or nothing — one step at a
time, so a page never has two requests in flight and never applies a fetched state over
changes it has not written yet.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote

from bendscope.bend.editor.editor import Editor
from bendscope.bend.layout.simulation import adjacency
from bendscope.bend.model.document import document_from_data
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.model.history import Entry
from bendscope.shared.docformat import (
    FORMAT,
    MAX_EDGES,
    MAX_NODES,
    MAX_PLANES,
    VERSION,
    DocumentError,
    read_card,
    read_link,
)
from bendscope.shared.live_ops import DELETE_EDGE, DELETE_NODE, EDGE_VIEW, PUT_EDGE, PUT_NODE

if TYPE_CHECKING:
    from bendscope.bend.live.delta import Reads, Remote

#: how far from its neighbours a card the agent added is put (world px)
PLACE_RADIUS = 140.0


@dataclass
class Known:
    """The knowledge of a document: card id → text, edge id → drawn edge (``EDGE_VIEW``)."""

    nodes: dict[str, str] = field(default_factory=dict)
    edges: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the ``data`` a card or edge carries (the memory's fields: a card brought back keeps them)
    data: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def edge_view(edge: Edge) -> dict[str, Any]:
    return {
        "a": edge.a,
        "b": edge.b,
        "kind": edge.props.kind,
        "label": edge.props.label,
        "strength": edge.props.strength,
        "polarity": edge.props.polarity,
    }


def known_of(doc: Document, views: dict[str, tuple[Edge, dict[str, Any]]] | None = None) -> Known:
    """What of ``doc`` the memory keeps (every plane; drafts and their edges left out). O(n + m).
    ``views``: each edge's ``edge_view`` made last time, by id (an edge is immutable: the same
    object has the same view, shared — never changed in place); it then holds this time's.

    >>> from bendscope.bend.model.elements import empty_document
    >>> doc = empty_document()
    >>> plane = doc.root
    >>> plane.add_node(Node("a", "A")); plane.add_node(Node("b", ""))
    >>> plane.add_edge(Edge("ab", "a", "b"))
    >>> known_of(doc)
    Known(nodes={'a': 'A'}, edges={})
    """
    known = Known()
    for plane in doc.planes.values():
        for node in plane.nodes.values():
            if node.text.strip():
                known.nodes[node.id] = node.text
                if node.data is not None:
                    known.data[node.id] = node.data
    made: dict[str, tuple[Edge, dict[str, Any]]] = {}
    for plane in doc.planes.values():
        for edge in plane.edges.values():
            if edge.a in known.nodes and edge.b in known.nodes:
                before = None if views is None else views.get(edge.id)
                view = before[1] if before is not None and before[0] is edge else edge_view(edge)
                made[edge.id] = (edge, view)
                known.edges[edge.id] = view
                if edge.data is not None:
                    known.data[edge.id] = edge.data
    if views is not None:
        views.clear()
        views.update(made)
    return known


def ops_between(base: Known, now: Known) -> list[dict[str, Any]]:
    """The operations that take the memory from ``base`` to ``now``, each saying what it
    expects to find (``was``). O(n + m).

    >>> base = Known({"a": "A", "b": "B"}, {})
    >>> now = Known({"a": "A!", "c": "C"}, {})
    >>> [(op["op"], op["id"], op["was"]) for op in ops_between(base, now)]
    [('put_node', 'a', 'A'), ('put_node', 'c', None), ('delete_node', 'b', 'B')]
    """
    ops: list[dict[str, Any]] = []
    for node_id, text in now.nodes.items():
        was = base.nodes.get(node_id)
        if was != text:
            op: dict[str, Any] = {"op": PUT_NODE, "id": node_id, "text": text, "was": was}
            if was is None and node_id in now.data:  # (brought back: the memory's fields come too)
                op["data"] = now.data[node_id]
            ops.append(op)
    for edge_id, view in now.edges.items():
        was_edge = base.edges.get(edge_id)
        if was_edge != view:
            op = {"op": PUT_EDGE, "id": edge_id, **view, "was": was_edge}
            if was_edge is None and edge_id in now.data:
                op["data"] = now.data[edge_id]
            ops.append(op)
    for edge_id, view in base.edges.items():
        if edge_id not in now.edges:
            ops.append({"op": DELETE_EDGE, "id": edge_id, "was": view})
    for node_id, text in base.nodes.items():
        if node_id not in now.nodes:
            ops.append({"op": DELETE_NODE, "id": node_id, "was": text})
    return ops


def after_ops(base: Known, ops: list[dict[str, Any]]) -> Known:
    """``base`` with ``ops`` written (what the memory holds once they are). O(n + m + ops)."""
    nodes = dict(base.nodes)
    edges = dict(base.edges)
    for op in ops:
        kind = op["op"]
        if kind == PUT_NODE:
            nodes[op["id"]] = op["text"]
        elif kind == DELETE_NODE:
            nodes.pop(op["id"], None)
        elif kind == PUT_EDGE:
            edges[op["id"]] = {k: op[k] for k in EDGE_VIEW}
        else:
            edges.pop(op["id"], None)
    return Known(nodes, edges)


def with_positions(document: Mapping[str, Any], positions: Mapping[str, Any]) -> dict[str, Any]:
    """The memory's document with the positions the page kept for its cards (the others
    are laid out when opened). Bad entries are skipped."""
    planes = []
    for plane in document.get("planes", []):
        nodes = []
        for node in plane.get("nodes", []):
            at = positions.get(node.get("id"))
            if (
                isinstance(at, (list, tuple))
                and len(at) == 2
                and all(isinstance(v, (int, float)) and math.isfinite(v) for v in at)
            ):
                node = {**node, "x": float(at[0]), "y": float(at[1])}
            nodes.append(node)
        planes.append({**plane, "nodes": nodes})
    return {**document, "planes": planes}


def positions_to_keep(doc: Document) -> dict[str, list[float]]:
    """Every card's position, rounded (what the page keeps per memory). O(n)."""
    return {n.id: [round(n.x, 1), round(n.y, 1)] for p in doc.planes.values() for n in p.nodes.values()}


@dataclass
class Brought:
    """What bringing the memory's state into the editor changed."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    edges_added: int = 0
    edges_removed: int = 0
    edges_changed: int = 0
    #: the memory's knowledge in the document brought in (the new ``base``)
    known: Known | None = field(default=None, repr=False)

    def __bool__(self) -> bool:
        return bool(
            self.added or self.removed or self.edited or self.edges_added or self.edges_removed or self.edges_changed
        )

    def words(self) -> str:
        """A short account for the page ("2 cards added, 1 edge removed")."""
        parts = []
        for count, what in (
            (len(self.added), "card{} added"),
            (len(self.edited), "card{} edited"),
            (len(self.removed), "card{} removed"),
            (self.edges_added, "edge{} added"),
            (self.edges_changed, "edge{} changed"),
            (self.edges_removed, "edge{} removed"),
        ):
            if count:
                parts.append(f"{count} {what.format('' if count == 1 else 's')}")
        return ", ".join(parts)


def bring_to(
    editor: Editor, document: Mapping[str, Any], base: Known | None = None, force: frozenset[str] = frozenset()
) -> Brought:
    """Bring the memory's ``document`` (a Bendscope document, as ``/api/graph`` sends it)
    into the editor: cards and edges the memory no longer holds go, new ones come (each card
    beside its neighbours already shown, else at the middle of the view), texts and edges
    change in place. Drafts stay. Positions, the camera, the selection of what remains and
    the undo history are kept; it is one remote change (``Editor.remote_change``).

    With ``base`` (the knowledge the page and the memory last agreed on) it is a three-way
    merge: a card or edge the person changed since ``base`` that the memory did not change
    keeps the person's version (it is written next); where both changed, the memory's wins
    (the person's write of it was, or will be, refused with a message); ids in ``force``
    take the memory's version whatever the page holds (a write the memory refused). An edge
    of the memory whose card the person deleted brings that card back. Without ``base``
    the page becomes the memory's state. Raises DocumentError (nothing changed) for a
    document the editor cannot read. O(n + m)."""
    doc = editor.doc
    their_nodes, their_edges = _theirs(document, doc)
    mine = known_of(doc)
    brought = Brought()

    def stands(item_id: str, local: Any, before: Any, theirs: Any) -> bool:
        """Whether the person's version stands: changed on the page only."""
        return base is not None and item_id not in force and local != before and theirs == before

    def before_node(node_id: str) -> str | None:
        return None if base is None else base.nodes.get(node_id)

    def before_edge(edge_id: str) -> dict[str, Any] | None:
        return None if base is None else base.edges.get(edge_id)

    where: dict[str, Plane] = {}
    for plane in doc.planes.values():
        for node_id in plane.nodes:
            where[node_id] = plane
    root = doc.planes[doc.root_plane_id]
    fresh: list[Node] = []
    with editor.remote_change():
        for plane in doc.planes.values():
            for edge in list(plane.edges.values()):
                if edge.id in mine.edges and edge.id not in their_edges:
                    if stands(edge.id, mine.edges[edge.id], before_edge(edge.id), None):
                        continue
                    plane.remove_edge(edge.id)
                    brought.edges_removed += 1
        for node_id, plane in where.items():
            if node_id in mine.nodes and node_id not in their_nodes:
                if stands(node_id, mine.nodes[node_id], before_node(node_id), None):
                    continue
                for edge in plane.edges_of(node_id):
                    plane.remove_edge(edge.id)
                    brought.edges_removed += 1
                plane.remove_node(node_id)
                brought.removed.append(node_id)

        def bring_node(node_id: str, theirs_node: Node) -> Plane:
            node = Node(node_id, theirs_node.text, data=theirs_node.data)
            root.add_node(node)
            where[node_id] = root
            fresh.append(node)
            brought.added.append(node_id)
            return root

        for node_id, theirs_node in their_nodes.items():
            if stands(node_id, mine.nodes.get(node_id), before_node(node_id), theirs_node.text):
                continue
            home = where.get(node_id)
            if home is None or node_id not in home.nodes:
                bring_node(node_id, theirs_node)
                continue
            current = home.nodes[node_id]
            if current.text != theirs_node.text:
                home.update_node(node_id, text=theirs_node.text)
                brought.edited.append(node_id)
            if current.data != theirs_node.data:
                home.update_node(node_id, data=theirs_node.data)
        for edge_id, edge in their_edges.items():
            if stands(edge_id, mine.edges.get(edge_id), before_edge(edge_id), edge_view(edge)):
                continue
            for end in (edge.a, edge.b):  # (a card the person deleted, needed by the memory's edge)
                home = where.get(end)
                if home is None or end not in home.nodes:
                    bring_node(end, their_nodes[end])
            home = where[edge.a]
            if where[edge.b] is not home:
                continue  # (its ends on two planes: the page cannot draw it; it stays in the memory)
            if any(edge_id in p.edges and p is not home for p in doc.planes.values()):
                continue
            mine_edge = home.edges.get(edge_id)
            if mine_edge is None:
                home.add_edge(edge)
                brought.edges_added += 1
            elif mine_edge != edge:
                if edge_view(mine_edge) != edge_view(edge):
                    brought.edges_changed += 1
                home.replace_edge(edge)
        _place(editor, root, fresh)
    nodes = {i: n.text for i, n in their_nodes.items() if n.text.strip()}
    edges = {i: edge_view(e) for i, e in their_edges.items() if e.a in nodes and e.b in nodes}
    brought.known = Known(nodes, edges)
    return brought


def _theirs(document: Mapping[str, Any], doc: Document) -> tuple[dict[str, Node], dict[str, Edge]]:
    """The cards and edges of the memory's document, checked as the document format checks
    them — but a card or edge the page already holds unchanged is taken as it is, so a
    change to a large memory costs the page little (the first open reads all of it).
    DocumentError for anything the editor cannot read. O(n + m), with a small constant for
    what is unchanged."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT or document.get("version") != VERSION:
        raise DocumentError("the memory's state is not a Bendscope document of this version")
    planes = document.get("planes")
    if not isinstance(planes, list) or not 1 <= len(planes) <= MAX_PLANES:
        raise DocumentError("the memory's state has no planes")
    mine_nodes: dict[str, Node] = {}
    mine_edges: dict[str, Edge] = {}
    for plane in doc.planes.values():
        mine_nodes.update(plane.nodes)
        mine_edges.update(plane.edges)
    nodes: dict[str, Node] = {}
    raw_edges: list[tuple[str, Any]] = []
    for p, plane_data in enumerate(planes):
        if not isinstance(plane_data, Mapping):
            raise DocumentError(f"planes[{p}] must be an object")
        raw_nodes = plane_data.get("nodes") or []
        links = plane_data.get("edges") or []
        if not isinstance(raw_nodes, list) or not isinstance(links, list):
            raise DocumentError(f"planes[{p}]: nodes and edges must be lists")
        for i, raw in enumerate(raw_nodes):
            node_id = raw.get("id") if isinstance(raw, Mapping) else None
            mine = mine_nodes.get(node_id) if isinstance(node_id, str) else None
            if mine is not None and raw.get("text") == mine.text and raw.get("data") == mine.data:
                node = mine
            else:
                card = read_card(raw, f"planes[{p}].nodes[{i}]")
                node = Node(card.id, card.text, data=card.data)
            if node.id in nodes:
                raise DocumentError(f"planes[{p}].nodes[{i}]: duplicate node id {node.id!r:.60}")
            nodes[node.id] = node
        raw_edges += [(f"planes[{p}].edges[{i}]", raw) for i, raw in enumerate(links)]
    if len(nodes) > MAX_NODES or len(raw_edges) > MAX_EDGES:
        raise DocumentError(f"the memory's state is larger than a document may be ({MAX_NODES:,} nodes)")
    edges: dict[str, Edge] = {}
    ids = set(nodes)
    for where, raw in raw_edges:
        edge_id = raw.get("id") if isinstance(raw, Mapping) else None
        mine_edge = mine_edges.get(edge_id) if isinstance(edge_id, str) else None
        if (
            mine_edge is not None
            and raw.get("a") == mine_edge.a
            and raw.get("b") == mine_edge.b
            and raw.get("props") == mine_edge.props.to_dict()
            and raw.get("data") == mine_edge.data
            and mine_edge.a in ids
            and mine_edge.b in ids
        ):
            edge = mine_edge
        else:
            link = read_link(raw, where, ids)
            edge = Edge(
                link.id, link.a, link.b, EdgeProps(link.label, link.kind, link.strength, link.polarity), link.data
            )
        if edge.id in edges:
            raise DocumentError(f"{where}: duplicate edge id {edge.id!r:.60}")
        edges[edge.id] = edge
    return nodes, edges


def _place(editor: Editor, plane: Plane, fresh: list[Node]) -> None:
    """Put new cards beside their neighbours already placed (or at the middle of the view),
    each at an angle of its own (from its id: the same every time). O(the fresh cards' edges)
    once the plane's neighbours are known (``adjacency``: grown in place when cards and edges
    were only added)."""
    if not fresh:
        return
    new, done = {n.id for n in fresh}, set()
    around = adjacency(plane)  # (each card's neighbours in edge order, both ways)
    w, h = editor.viewport
    middle = editor.screen_to_world(w / 2, h / 2) if plane is editor.plane else (0.0, 0.0)
    for node in fresh:
        near = [plane.nodes[other] for other in around.get(node.id, ()) if other not in new or other in done]
        if near:
            cx = sum(n.x for n in near) / len(near)
            cy = sum(n.y for n in near) / len(near)
        else:
            cx, cy = middle
        angle = (zlib.crc32(node.id.encode()) % 3600) / 3600 * 2 * math.pi
        plane.update_node(node.id, x=cx + PLACE_RADIUS * math.cos(angle), y=cy + PLACE_RADIUS * math.sin(angle))
        done.add(node.id)


def _knowledge(kind: str, snap: Mapping[str, Any] | None) -> Any:
    if snap is None:
        return None
    if kind == "node":
        return snap.get("text", "")
    if kind == "edge":
        props = EdgeProps(**{k: v for k, v in (snap.get("props") or {}).items()})
        return (snap["a"], snap["b"], props)
    return None


def undo_conflict(editor: Editor, entry: Entry, side: int) -> str | None:
    """Why undoing (``side`` 0) or redoing (1) ``entry`` would overwrite what someone else
    changed since — a card or edge it touches is no longer as the step left it — or None.
    Positions and other page-only fields do not count. O(size of the entry)."""
    if entry.swap is not None:
        return None
    doc = editor.doc
    for (kind, plane_id, item_id), states in entry.changes.items():
        known = states[1 - side]
        place = kind == "node" and known is not None and states[side] is not None and "text" not in known
        if kind == "plane" or place:
            continue  # (a node's place alone: ``Plane.place_nodes``)
        expected = _knowledge(kind, known)
        plane = doc.planes.get(plane_id)
        current: Any = None
        if plane is not None:
            if kind == "node" and item_id in plane.nodes:
                current = plane.nodes[item_id].text
            elif kind == "edge" and item_id in plane.edges:
                edge = plane.edges[item_id]
                current = (edge.a, edge.b, edge.props)
        if current != expected:
            what = "undo" if side == 0 else "redo"
            thing = "card" if kind == "node" else "edge"
            return f"Cannot {what} “{entry.label}”: that {thing} was changed in the memory since. Nothing was changed."
    # a card the step takes away must not have been joined since by an edge the step does not take
    # away (the memory's: it would be left without its card)
    touched = {key[2] for key in entry.changes if key[0] == "edge"}
    for (kind, plane_id, item_id), states in entry.changes.items():
        plane = doc.planes.get(plane_id)
        if kind != "node" or states[side] is not None or plane is None or item_id not in plane.nodes:
            continue
        if any(edge.id not in touched for edge in plane.edges_of(item_id)):
            what = "undo" if side == 0 else "redo"
            return f"Cannot {what} “{entry.label}”: an edge joined that card in the memory since. Nothing was changed."
    # an edge the step brings back needs its cards: here now, or brought back by the same step
    restored = {key[2] for key, states in entry.changes.items() if key[0] == "node" and states[side] is not None}
    for (kind, plane_id, _item), states in entry.changes.items():
        target = states[side]
        plane = doc.planes.get(plane_id)
        if kind != "edge" or target is None:
            continue
        for end in (target["a"], target["b"]):
            if end not in restored and (plane is None or end not in plane.nodes):
                what = "undo" if side == 0 else "redo"
                why = "a card it joins was deleted in the memory since"
                return f"Cannot {what} “{entry.label}”: {why}. Nothing was changed."
    return None


class LiveSync:
    """The page's side of the sync (module's words). The page's driver asks :meth:`next_step`,
    carries it out, and reports with :meth:`wrote`, :meth:`fetched` or :meth:`failed`;
    :meth:`changed` marks that the memory may have changed (an event came). A fetched state
    is merged three ways (:func:`bring_to`), so the person's edits not yet written survive
    it, and a refused write costs only what it conflicted with."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.base: Known | None = None  # None until the first fetch
        self.remote_dirty = True
        self.refused = False  # a write was refused: the memory's state is fetched before writing again
        self.force: set[str] = set()  # ids whose refused versions give way to the memory's
        self.busy = False
        self.seen_at: str | None = None  # the memory's clock when it read the state last fetched
        self.writes = 0
        self.refusals = 0
        self.fetches = 0
        self.remote: Remote | None = None  # the memory's records at the version last fetched (live.delta)
        self.remote_known: Known | None = None  # … and its knowledge
        self.written: set[str] = set()  # ids of the writes accepted since that fetch
        self._known_at: tuple[int, Known] | None = None
        # (known_of's edge views: made again only for new or replaced edges)
        self._views: dict[str, tuple[Edge, dict[str, Any]]] = {}
        self._ops_at: tuple[int, Known, list[dict[str, Any]]] | None = (
            None  # (version, base, ops); base is never changed in place
        )
        editor.undo_guard = lambda entry, side: undo_conflict(self.editor, entry, side)

    def known(self) -> Known:
        """The editor's knowledge now (computed once per document version)."""
        version = self.editor.version
        if self._known_at is None or self._known_at[0] != version:
            self._known_at = (version, known_of(self.editor.doc, self._views))
        return self._known_at[1]

    def local_ops(self) -> list[dict[str, Any]]:
        """What the person changed that the memory does not hold yet."""
        if self.base is None:
            return []
        version = self.editor.version
        cached = self._ops_at
        if cached is not None and cached[0] == version and cached[1] is self.base:
            return cached[2]  # (the driver asks every 100 ms: no diff of the whole view while nothing changes)
        ops = ops_between(self.base, self.known())
        self._ops_at = (version, self.base, ops)
        return ops

    def changed(self) -> None:
        self.remote_dirty = True

    def next_step(self, *, hold_remote: bool = False) -> tuple[str, list[dict[str, Any]]] | None:
        """("write", ops), ("fetch", []) or None; a step returned is under way until its
        outcome is reported. ``hold_remote``: the person is typing in a card, so the
        memory's state is not fetched yet (writes still go, unless one was just refused)."""
        if self.busy:
            return None
        step: tuple[str, list[dict[str, Any]]] | None = None
        if self.base is None:
            step = ("fetch", [])
        elif self.refused:
            step = None if hold_remote else ("fetch", [])
        else:
            ops = self.local_ops()
            if ops:
                step = ("write", ops)
            elif self.remote_dirty and not hold_remote:
                step = ("fetch", [])
        if step is not None:
            self.busy = True
            if step[0] == "fetch":
                self.remote_dirty = False  # (an event during the fetch makes it dirty again)
        return step

    def failed(self, step: str) -> None:
        """A step that did not reach the memory (network, server down): tried again later."""
        self.busy = False
        if step == "fetch":
            self.remote_dirty = True

    def wrote(self, ops: list[dict[str, Any]], accepted: bool, *, stale: bool = False) -> None:
        """A write's outcome: accepted (the memory holds the ops now), or refused. A refusal
        for a conflict (``stale``) resolves by the merge (the memory's side wins where both
        changed); any other refusal gives every item of the request back to the memory's
        version. Either way the memory's state is fetched before the next write."""
        self.busy = False
        if accepted and self.base is not None:
            self.base = after_ops(self.base, ops)
            self.written |= {op["id"] for op in ops}
            self.writes += 1
        elif not accepted:
            self.refused = True
            self.refusals += 1
            if not stale:
                self.force |= {op["id"] for op in ops}
        self.remote_dirty = True

    def since(self) -> int | None:
        """The memory's version whose changes the next fetch may ask for, or None: the whole state."""
        return None if self.base is None or self.remote is None else self.remote.version

    def fetched_changes(
        self, changes: Mapping[str, Any], version: int, seen_at: str | None = None, reads: Reads | None = None
    ) -> Brought:
        """Bring in what changed in the memory since :meth:`since` (``bend.live.delta``): the
        same merge as :meth:`fetched` of the whole state, for what changed. DocumentError
        (nothing changed; the next fetch asks for the whole state) for changes the editor
        cannot read. ``reads``: the delta's records read already (``delta.Reads``)."""
        from bendscope.bend.live.delta import apply_to, bring_changes, changed_ids

        self.busy = False
        remote, base, remote_known = self.remote, self.base, self.remote_known
        if remote is None or base is None or remote_known is None:
            self.remote_dirty = True
            raise DocumentError("changes came before the memory's state")
        try:
            after = apply_to(remote, changes, version, reads)
            ids = [*changed_ids(changes), *sorted(self.written)]  # (what this page wrote since: base ≠ remote there)
            brought = bring_changes(
                self.editor, remote, after, ids, base, self.known(), remote_known, frozenset(self.force)
            )
        except Exception:
            self.remote_dirty = True
            self.remote = None
            raise
        return self._merged(brought, seen_at, after)

    def _merged(self, brought: Brought, seen_at: str | None, remote: Remote | None) -> Brought:
        assert brought.known is not None
        self.base = self.remote_known = brought.known
        self.remote = remote
        self.written = set()
        self.seen_at = seen_at
        self.refused = False
        self.force = set()
        self.fetches += 1
        return brought

    def fetched(
        self,
        document: Mapping[str, Any],
        positions: Mapping[str, Any] | None = None,
        seen_at: str | None = None,
        version: int | None = None,
    ) -> Brought:
        """Bring the memory's state in: the first one opens as the document, with the cards
        at ``positions`` (those the page kept for this memory; the rest laid out); later
        ones merge (:func:`bring_to`). ``version``: the memory's number for it (later fetches
        may then ask only for what changed since). Returns what changed. DocumentError
        (nothing changed) for a state the editor cannot read."""
        from bendscope.bend.live.delta import Remote

        self.busy = False
        remote = None if version is None else Remote.of_document(document, version)
        if self.base is None:
            doc = document_from_data(with_positions(document, positions or {}))
            self.editor.replace_document(doc, alpha=1.0 if doc.needs_layout else 0.0)
            self.base = self.remote_known = self.known()
            self.remote = remote
            self.written = set()
            self.seen_at = seen_at
            self.fetches += 1
            return Brought(added=list(self.base.nodes), known=self.base)
        try:
            brought = bring_to(self.editor, document, self.base, frozenset(self.force))
        except Exception:
            self.remote_dirty = True
            raise
        return self._merged(brought, seen_at, remote)


def scoped_path(path: str, search: str) -> str:
    """An API path the page asks, with the namespace its own address names (``?namespace=``):
    a page opened on one namespace of the memory reads and writes that namespace alone.

    >>> scoped_path("api/graph", "?namespace=alice%20b&x=1"), scoped_path("api/write", "")
    ('api/graph?namespace=alice%20b', 'api/write')
    >>> scoped_path("api/graph?as_of=2020-01-01", "?namespace=a")
    'api/graph?as_of=2020-01-01&namespace=a'
    """
    namespace = dict(parse_qsl(search.lstrip("?"))).get("namespace")
    if not namespace:
        return path
    return f"{path}{'&' if '?' in path else '?'}namespace={quote(namespace, safe='')}"
