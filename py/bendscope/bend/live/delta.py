"""The memory's changes since the page last had it, brought in without reading the whole memory.

The memory server numbers the whole documents it hands out (``version``) and answers "what
changed since version V" with the cards and edges that are new or changed (as the whole
document holds them) and the ids of those that went (``memory.web.deltas``). The page keeps
the memory's state at the version it has (:class:`Remote`: each card's and edge's record as
the memory sent it) and brings a delta in by :func:`bring_changes`: the same three-way merge as
``bend.live.sync.bring_to`` over the whole document, item by item, but only for the items the delta
names (and those whose refused writes give way to the memory's) — every other item is the
same in the memory as at the version the page had, so the whole merge would leave it as it is.
Everything goes through the model's mutators in one remote change. O(changes) plus O(n) dict
copies for the new knowledge. Each record a delta brings is read (checked, made a card or an
edge) once per fetch, however many views of the memory it is applied to (:class:`Reads`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bendscope.bend.editor.editor import Editor
from bendscope.bend.live.sync import Brought, Known, _place, edge_view
from bendscope.bend.live.time_travel import holds
from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane
from bendscope.shared.docformat import (
    MAX_EDGES,
    MAX_NODES,
    CardRecord,
    DocumentError,
    LinkRecord,
    read_card,
    read_link,
)

__all__ = ["Reads", "Remote", "bring_changes", "holding_changes"]


class Reads:
    """Records read (checked as a document's are) by id, each with the record it was read
    from: a record read again — the same object — is not checked again. One per fetch,
    shared by the views a delta is applied to (the memory's whole view, the page's).

    >>> reads, raw = Reads(), {"id": "a", "text": "A"}
    >>> reads.card(raw, "a") is reads.card(raw, "a"), reads.checked
    (True, 1)
    >>> reads.card({"id": "a", "text": "B"}, "a").text, reads.checked
    ('B', 2)
    """

    def __init__(self) -> None:
        self.cards: dict[str, tuple[Mapping[str, Any], CardRecord]] = {}
        self.links: dict[str, tuple[Mapping[str, Any], LinkRecord]] = {}
        self.checked = 0  # records read so far (the others were read already)

    def card(self, raw: Mapping[str, Any], where: str) -> CardRecord:
        found = self.cards.get(raw["id"])
        if found is not None and found[0] is raw:
            return found[1]
        self.checked += 1
        card = read_card(raw, where)
        self.cards[card.id] = (raw, card)
        return card

    def link(self, raw: Mapping[str, Any], where: str, ids: set[str]) -> LinkRecord:
        """An edge record read; its ends are checked among ``ids`` when it is first read (a
        view it is applied to afterwards checks them itself: ``apply_to``)."""
        found = self.links.get(raw["id"])
        if found is not None and found[0] is raw:
            return found[1]
        self.checked += 1
        link = read_link(raw, where, ids)
        self.links[link.id] = (raw, link)
        return link


@dataclass
class Remote:
    """The memory's cards and edges (id → record as sent) at ``version``, and its knowledge;
    ``reads``: the records read so far (:class:`Reads`)."""

    version: int
    nodes: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    edges: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    reads: Reads = field(default_factory=Reads, repr=False, compare=False)

    @classmethod
    def of_document(cls, document: Mapping[str, Any], version: int) -> Remote:
        """The records of a whole document (as ``/api/graph`` sends it). O(n + m)."""
        remote = cls(version)
        for plane in document.get("planes", []):
            for node in plane.get("nodes", []):
                remote.nodes[str(node["id"])] = node
            for edge in plane.get("edges", []):
                remote.edges[str(edge["id"])] = edge
        return remote

    def document(self) -> dict[str, Any]:
        """The records as a one-plane document's planes (what ``time_travel.ended_of`` reads). O(n + m)."""
        return {"planes": [{"nodes": list(self.nodes.values()), "edges": list(self.edges.values())}]}

    def node(self, node_id: str) -> Node | None:
        raw = self.nodes.get(node_id)
        if raw is None:
            return None
        card = self.reads.card(raw, f"the memory's card {node_id!r:.60}")
        return Node(card.id, card.text, data=card.data)

    def edge(self, edge_id: str) -> Edge | None:
        raw = self.edges.get(edge_id)
        if raw is None:
            return None
        link = self.reads.link(raw, f"the memory's edge {edge_id!r:.60}", _Ids(self.nodes))
        return Edge(link.id, link.a, link.b, EdgeProps(link.label, link.kind, link.strength, link.polarity), link.data)


class _Ids(set[str]):
    """The card ids a record's edge may join (a view of a dict's keys, never copied)."""

    def __init__(self, nodes: Mapping[str, Any]) -> None:
        super().__init__()
        self._nodes = nodes

    def __contains__(self, item: object) -> bool:
        return item in self._nodes


def _checked(
    changes: Mapping[str, Any],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]], list[str], list[str]]:
    """The delta's four lists, each item checked for its shape (DocumentError if not)."""
    if not isinstance(changes, Mapping):
        raise DocumentError("the memory's changes must be an object")
    lists = []
    for name in ("nodes", "edges", "removed_nodes", "removed_edges"):
        value = changes.get(name, [])
        if not isinstance(value, list):
            raise DocumentError(f"the memory's changes: {name} must be a list")
        lists.append(value)
    nodes, edges, gone_nodes, gone_edges = lists
    for where, items in (("nodes", nodes), ("edges", edges)):
        for i, item in enumerate(items):
            if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
                raise DocumentError(f"the memory's changes: {where}[{i}] must be an object with an id")
    for where, ids in (("removed_nodes", gone_nodes), ("removed_edges", gone_edges)):
        if not all(isinstance(i, str) for i in ids):
            raise DocumentError(f"the memory's changes: {where} must hold ids")
    return nodes, edges, gone_nodes, gone_edges


def apply_to(remote: Remote, changes: Mapping[str, Any], version: int, reads: Reads | None = None) -> Remote:
    """The memory's records at ``version``: ``remote`` with ``changes``, each card and edge
    checked as a document's are, from the version ``remote`` has (``since``, when the changes
    name it) (DocumentError, ``remote`` unchanged, if one is not or they do not follow it). A new
    :class:`Remote` (O(n + m) dict copies, O(changes) checks — O(m) when cards went); ``remote``
    is left as it was. ``reads``: the records of this delta read already (another view the
    same delta was applied to), not read again; the new Remote reads into it."""
    nodes, edges, gone_nodes, gone_edges = _checked(changes)
    since = changes.get("since", remote.version)
    if since != remote.version or not isinstance(version, int) or version < remote.version:
        # (an answer late or twice: applied, it would bring back the memory as it was)
        raise DocumentError(f"the memory's changes (version {since!r:.20} to {version!r:.20}) do not follow "
                            f"the version the page has ({remote.version})")  # fmt: skip
    after = Remote(version, dict(remote.nodes), dict(remote.edges), Reads() if reads is None else reads)
    for node_id in gone_nodes:
        after.nodes.pop(node_id, None)
    for edge_id in gone_edges:
        after.edges.pop(edge_id, None)
    for raw in nodes:
        after.reads.card(raw, f"the memory's card {raw['id']!r:.60}")
        after.nodes[raw["id"]] = raw
    ids = _Ids(after.nodes)
    for raw in edges:
        after.reads.link(raw, f"the memory's edge {raw['id']!r:.60}", ids)
        after.edges[raw["id"]] = raw
    # an edge left joining a card that went: a broken state (only the changed edges, and the
    # edges of cards that went, can be: every other edge joined cards that are still there)
    gone = set(gone_nodes)
    for edge_id, raw in after.edges.items() if gone else ((str(raw["id"]), raw) for raw in edges):
        if raw.get("a") not in after.nodes or raw.get("b") not in after.nodes:
            raise DocumentError(f"the memory's changes leave edge {edge_id!r:.60} without its cards")
    if len(after.nodes) > MAX_NODES or len(after.edges) > MAX_EDGES:
        raise DocumentError(f"the memory's state is larger than a document may be ({MAX_NODES:,} nodes)")
    return after


def bring_changes(
    editor: Editor,
    before: Remote,
    after: Remote,
    changed: Iterable[str],
    base: Known | None,
    known: Known,
    remote_known: Known,
    force: frozenset[str] = frozenset(),
) -> Brought:
    """Bring the memory from ``before`` to ``after`` (``changed``: the ids the delta names) into
    the editor with ``bend.live.sync.bring_to``'s three-way merge against ``base``, for those ids and
    ``force`` only (module doc). ``known``: the editor's knowledge now; ``remote_known``: the
    memory's at ``before``. Returns what changed, its ``known`` set to the
    memory's knowledge at ``after``. O(changes + what they touch) plus O(n) dict copies."""
    doc = editor.doc
    ids = set(changed) | set(force)
    brought = Brought()

    def stands(item_id: str, local: Any, was: Any, theirs: Any) -> bool:
        return base is not None and item_id not in force and local != was and theirs == was

    theirs_edge = after.edge
    planes = list(doc.planes.values())
    where: dict[str, Plane] = {}  # (the plane of each card looked up, found when first asked: O(changes))

    def home_of(node_id: str) -> Plane | None:
        plane = where.get(node_id)
        if plane is None:
            plane = next((p for p in planes if node_id in p.nodes), None)
            if plane is not None:
                where[node_id] = plane
        return plane

    root = doc.planes[doc.root_plane_id]
    fresh: list[Node] = []
    edge_ids = [i for i in sorted(ids) if i in known.edges or i in after.edges or i in before.edges]
    node_ids = [i for i in sorted(ids) if i in known.nodes or i in after.nodes or i in before.nodes]
    with editor.remote_change():
        for edge_id in edge_ids:
            if edge_id in known.edges and theirs_edge(edge_id) is None:
                if stands(edge_id, known.edges[edge_id], None if base is None else base.edges.get(edge_id), None):
                    continue
                for plane in doc.planes.values():
                    if edge_id in plane.edges:
                        plane.remove_edge(edge_id)
                        brought.edges_removed += 1
        for node_id in node_ids:
            plane_of = home_of(node_id)
            if node_id in known.nodes and node_id not in after.nodes and plane_of is not None:
                if stands(node_id, known.nodes[node_id], None if base is None else base.nodes.get(node_id), None):
                    continue
                for edge in plane_of.edges_of(node_id):
                    plane_of.remove_edge(edge.id)
                    brought.edges_removed += 1
                plane_of.remove_node(node_id)
                brought.removed.append(node_id)

        def bring_node(node_id: str, theirs_node: Node) -> None:
            node = Node(node_id, theirs_node.text, data=theirs_node.data)
            root.add_node(node)
            where[node_id] = root
            fresh.append(node)
            brought.added.append(node_id)

        for node_id in node_ids:
            theirs_node = after.node(node_id)
            if theirs_node is None:
                continue
            was = None if base is None else base.nodes.get(node_id)
            if stands(node_id, known.nodes.get(node_id), was, theirs_node.text):
                continue
            home = home_of(node_id)
            if home is None or node_id not in home.nodes:
                bring_node(node_id, theirs_node)
                continue
            current = home.nodes[node_id]
            if current.text != theirs_node.text:
                home.update_node(node_id, text=theirs_node.text)
                brought.edited.append(node_id)
            if current.data != theirs_node.data:
                home.update_node(node_id, data=theirs_node.data)
        for edge_id in edge_ids:
            theirs = theirs_edge(edge_id)
            if theirs is None:
                continue
            was_edge = None if base is None else base.edges.get(edge_id)
            if stands(edge_id, known.edges.get(edge_id), was_edge, edge_view(theirs)):
                continue
            for end in (theirs.a, theirs.b):  # (a card the person deleted, needed by the memory's edge)
                home = home_of(end)
                if home is None or end not in home.nodes:
                    end_node = after.node(end)
                    assert end_node is not None  # (theirs_edge: both ends are the memory's)
                    bring_node(end, end_node)
            home = home_of(theirs.a)
            if home is None or home_of(theirs.b) is not home:
                continue  # (its ends on two planes: the page cannot draw it; it stays in the memory)
            if any(edge_id in p.edges and p is not home for p in doc.planes.values()):
                continue
            mine_edge = home.edges.get(edge_id)
            if mine_edge is None:
                home.add_edge(theirs)
                brought.edges_added += 1
            elif mine_edge != theirs:
                if edge_view(mine_edge) != edge_view(theirs):
                    brought.edges_changed += 1
                home.replace_edge(theirs)
        _place(editor, root, fresh)
    brought.known = _known_after(remote_known, after, ids)
    return brought


def _known_after(was: Known, after: Remote, ids: set[str]) -> Known:
    """``was`` (the memory's knowledge before) with the items ``ids`` as ``after`` holds them: the
    memory's knowledge at ``after`` (as ``bend.live.sync.known_of`` reads it), in O(n) copies."""
    nodes, edges = dict(was.nodes), dict(was.edges)
    for item_id in ids:
        raw = after.nodes.get(item_id)
        text = "" if raw is None else str(raw.get("text", ""))
        if text.strip():
            nodes[item_id] = text
        else:
            nodes.pop(item_id, None)
    for item_id in ids:
        edge = after.edge(item_id)
        if edge is not None and edge.a in nodes and edge.b in nodes:
            edges[item_id] = edge_view(edge)
        else:
            edges.pop(item_id, None)
    return Known(nodes, edges)


def changed_ids(changes: Mapping[str, Any]) -> list[str]:
    """Every id a delta names (cards and edges, new, changed or gone).

    >>> changed_ids({"nodes": [{"id": "a"}], "edges": [], "removed_nodes": ["b"], "removed_edges": ["e"]})
    ['a', 'e', 'b']
    """
    nodes, edges, gone_nodes, gone_edges = _checked(changes)
    return [str(raw["id"]) for raw in (*nodes, *edges)] + list(gone_edges) + list(gone_nodes)


def holding_changes(changes: Mapping[str, Any], remote: Remote) -> dict[str, Any]:
    """``changes`` as the page shows the memory (``time_travel.holding_only``): a card or edge that
    no longer holds (``data.memory.holds`` false) goes as if removed, and with a card every edge
    ``remote`` (the page's records) or the changes join to it. O(changes + remote's edges when a
    card goes).

    >>> remote = Remote(1, {"a": {"id": "a"}, "b": {"id": "b"}}, {"ab": {"id": "ab", "a": "a", "b": "b"}})
    >>> ended = {"id": "b", "data": {"memory": {"holds": False}}}
    >>> out = holding_changes({"nodes": [ended], "edges": [], "removed_nodes": [], "removed_edges": []}, remote)
    >>> out["nodes"], out["removed_nodes"], out["removed_edges"]
    ([], ['b'], ['ab'])
    """
    nodes, edges, gone_nodes, gone_edges = _checked(changes)
    ended = {str(raw["id"]) for raw in nodes if not holds(raw)}
    kept_edges = []
    dropped = list(gone_edges)
    for raw in edges:
        if holds(raw) and raw.get("a") not in ended and raw.get("b") not in ended:
            kept_edges.append(raw)
        else:
            dropped.append(str(raw["id"]))
    if ended:
        dropped += [i for i, raw in remote.edges.items() if raw.get("a") in ended or raw.get("b") in ended]
    return {
        **changes,
        "nodes": [raw for raw in nodes if str(raw["id"]) not in ended],
        "edges": kept_edges,
        "removed_nodes": list(gone_nodes) + sorted(ended),
        "removed_edges": list(dict.fromkeys(dropped)),
    }
