"""The memory as a Bendscope document, and a Bendscope document into the memory, so a
person opens in the editor what an agent stored and the agent reads what the person drew.

A memory node becomes a card whose text is the node's content; its other fields
(type, confidence, metadata, source, counts, timestamps, ``valid_from`` / ``valid_until``,
``recorded_at`` / ``recorded_until``) travel in the card's ``data.memory`` object, which the
editor keeps untouched. A memory edge becomes an edge of the same kind (the editor knows
every memory edge type); its weight, metadata, source and times travel in ``data.memory``,
its weight also as the drawn strength and its metadata "label" as the drawn label. Cards
without ``data`` (a person's own) come in as semantic nodes of confidence 1.0 from source
"editor", and so do a person's edges; an empty card as the text "(empty card ID)". A
document is what the memory holds now (or knew at a time): importing one records its
changes as new versions, now — its ``recorded_*`` times are not taken in.

Round trip: store → document → (editor) → store gives back every node and edge field
unchanged, unless the person changed a text (then ``updated_at`` moves), an edge's kind,
direction, strength or label. The memory keeps knowledge, not layout: card positions,
pins, stargate planes and other ``data`` keys are the editor's and are not stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bendscope.shared.docformat import (
    FORMAT,
    MAX_EDGES,
    MAX_LABEL,
    MAX_NODES,
    POLAR_KINDS,
    VERSION,
    DocumentError,
    LinkRecord,
    read_document,
)

from ..core.errors import InvalidInput
from ..core.records import MAX_CONTENT, MemoryEdge, MemoryNode, new_edge, new_node, with_activation, with_statistics

PLANE_ID = "plane-root"
HUMAN_CONFIDENCE = 1.0
HUMAN_SOURCE = "editor"


def weight_to_strength(weight: float) -> int:
    """The drawn strength (1–5) of a weight: 0 → 1, 1 and more → 5.

    >>> [weight_to_strength(w) for w in (0.0, 0.3, 0.5, 1.0, 7.0)]
    [1, 2, 3, 5, 5]
    """
    return max(1, min(5, 1 + round(min(weight, 1.0) * 4)))


def strength_to_weight(strength: int) -> float:
    """The weight of a strength drawn in the editor (the inverse of weight_to_strength on 1–5)."""
    return (strength - 1) / 4


def drawn_label(label: object) -> str:
    """The label the editor draws for an edge whose metadata "label" is ``label``: the text
    itself, or "" when it is not text or longer than an edge label may be.

    >>> drawn_label("drives"), drawn_label(12345), drawn_label("L" * 600)
    ('drives', '', '')
    """
    return label if isinstance(label, str) and len(label) <= MAX_LABEL else ""


#: the records of a document made before, to make again from (:func:`to_document`'s ``reuse``):
#: node id → (the node, its card), and edge id → (the edge, its record)
Reuse = tuple[dict[str, tuple[MemoryNode, dict[str, Any]]], dict[str, tuple[MemoryEdge, dict[str, Any]]]]


def to_document(
    nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge], *, name: str = "Memory", reuse: Reuse | None = None
) -> dict[str, Any]:
    """A one-plane Bendscope document (as JSON-ready data) of these nodes and the edges
    among them. Positions are left out: the editor lays the graph out. ``reuse``: the cards
    and edges made last time, by id; a node or edge equal to the one a card was made of
    gets that same card (the same object: never change one in place), and ``reuse`` then
    holds this document's (the live editor's server makes the whole memory again and again).

    >>> from bendscope.memory.core.records import new_node
    >>> kept = ({}, {})
    >>> a = new_node({"id": "a", "content": "A"}, now="2026-01-01T00:00:00.000Z")
    >>> first = to_document([a], [], reuse=kept)
    >>> to_document([a], [], reuse=kept)["planes"][0]["nodes"][0] is first["planes"][0]["nodes"][0]
    True
    """
    node_list = sorted(nodes, key=lambda n: n.id)
    if len(node_list) > MAX_NODES:
        raise InvalidInput(
            f"the editor opens at most {MAX_NODES:,} nodes and this is {len(node_list):,}; "
            "export a query's subgraph or a list of node ids instead"
        )
    ids = {n.id for n in node_list}
    edge_list = [e for e in sorted(edges, key=lambda e: e.id) if e.source_id in ids and e.target_id in ids]
    if len(edge_list) > MAX_EDGES:
        raise InvalidInput(f"the editor opens at most {MAX_EDGES:,} edges and this is {len(edge_list):,}")
    return {
        "format": FORMAT,
        "version": VERSION,
        "rootPlaneId": PLANE_ID,
        "activePlaneId": PLANE_ID,
        "settings": {"seed": 1, "exactLimit": None},
        "planes": [
            {
                "id": PLANE_ID,
                "name": name,
                "parentPlaneId": None,
                "parentNodeId": None,
                "camera": {"x": 0, "y": 0, "zoom": 1},
                "nodes": [_node_out(n) for n in node_list] if reuse is None else _made(node_list, _node_out, reuse[0]),
                "edges": [_edge_out(e) for e in edge_list] if reuse is None else _made(edge_list, _edge_out, reuse[1]),
            }
        ],
    }


def _made(records: list[Any], make: Any, kept: dict[str, tuple[Any, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each record's output, ``kept``'s for a record equal to the one it was made of; ``kept``
    then holds these records' (and only these). O(n) comparisons."""
    out: list[dict[str, Any]] = []
    made: dict[str, tuple[Any, dict[str, Any]]] = {}
    for record in records:
        before = kept.get(record.id)
        if before is not None and (before[0] is record or before[0] == record):
            made[record.id] = before
        else:
            made[record.id] = (record, make(record))
        out.append(made[record.id][1])
    kept.clear()
    kept.update(made)
    return out


def card_of(node: MemoryNode) -> dict[str, Any]:
    """A node as its document's card (``to_document`` makes each one so)."""
    return _node_out(node)


def link_of(edge: MemoryEdge) -> dict[str, Any]:
    """An edge as its document's edge (``to_document`` makes each one so)."""
    return _edge_out(edge)


def _node_out(node: MemoryNode) -> dict[str, Any]:
    fields = node.to_dict()
    del fields["id"], fields["content"]
    return {"id": node.id, "text": node.content, "type": "normal", "data": {"memory": fields}}


def _edge_out(edge: MemoryEdge) -> dict[str, Any]:
    fields = edge.to_dict()
    for key in ("id", "source_id", "target_id"):
        del fields[key]
    props: dict[str, Any] = {
        "label": drawn_label(edge.metadata.get("label")),
        "kind": edge.edge_type,
        "strength": weight_to_strength(edge.weight),
    }
    sign = edge.metadata.get("polarity")
    if sign in ("+", "-") and edge.edge_type in POLAR_KINDS:  # (the editor draws and edits it)
        props["polarity"] = sign
    return {"id": edge.id, "a": edge.source_id, "b": edge.target_id, "props": props, "data": {"memory": fields}}


def from_document(
    text: str | bytes, *, now: str, existing: Mapping[str, MemoryNode] | None = None
) -> tuple[list[MemoryNode], list[MemoryEdge]]:
    """Nodes and edges of a Bendscope document (every plane; planes are not kept, node ids
    are unique across a document). Validated by the format module the editor reads too,
    so what the editor refuses is refused here with the same message. ``existing`` nodes (by id) keep
    their statistics and creation time."""
    try:
        doc = read_document(text)
    except DocumentError as exc:
        raise InvalidInput(f"not a usable Bendscope document: {exc}") from None
    existing = existing or {}
    nodes: list[MemoryNode] = []
    edges: list[MemoryEdge] = []
    for plane in doc.planes:
        for card in plane.nodes:
            nodes.append(_node_in(card.id, card.text, card.data, now, existing.get(card.id)))
        for link in plane.edges:
            edges.append(_edge_in(link, now))
    return nodes, edges


def _memory_fields(data: Mapping[str, Any] | None) -> dict[str, Any]:
    fields = (data or {}).get("memory")
    return dict(fields) if isinstance(fields, dict) else {}


def _node_in(node_id: str, text: str, data: Mapping[str, Any] | None, now: str, old: MemoryNode | None) -> MemoryNode:
    fields = _memory_fields(data)
    content = text if text.strip() else f"(empty card {node_id})"
    if len(content) > MAX_CONTENT:
        raise InvalidInput(f"node {node_id!r}: the text is longer than {MAX_CONTENT:,} characters")
    args: dict[str, Any] = {
        "id": node_id,
        "content": content,
        "node_type": fields.get("node_type", "semantic"),
        "confidence": fields.get("confidence", HUMAN_CONFIDENCE),
        "metadata": fields.get("metadata", {}),
        "source": fields.get("source", HUMAN_SOURCE),
    }
    unchanged_text = old is not None and old.content == content
    for key in ("created_at", "valid_from", "valid_until"):
        if key in fields:
            args[key] = fields[key]
    if "updated_at" in fields and (old is None or unchanged_text):
        args["updated_at"] = fields["updated_at"]
    try:
        node = new_node(args, now=now, existing=old)
    except InvalidInput as exc:
        raise InvalidInput(f"node {node_id!r}: {exc}") from None
    if old is None:  # a store starting from this document takes its statistics too
        node = with_statistics(node, fields.get("access_count", 0), fields.get("last_accessed_at"), f"node {node_id!r}")
    return node


def _edge_in(link: LinkRecord, now: str) -> MemoryEdge:
    edge_id = link.id
    fields = _memory_fields(link.data)
    args = edge_args(link, fields)
    try:
        edge = new_edge(args, now=now)
    except InvalidInput as exc:
        raise InvalidInput(f"edge {edge_id!r}: {exc}") from None
    return with_activation(edge, fields.get("last_activated_at"), f"edge {edge_id!r}")


def edge_args(link: LinkRecord, fields: Mapping[str, Any]) -> dict[str, Any]:
    """What ``store_edge`` takes for an edge drawn as ``link``, whose memory fields (those
    the store held, or none for a person's new edge) are ``fields``: the drawn kind, ends,
    strength, label and polarity win; the weight stays while the drawn strength is its own."""
    weight = fields.get("weight")
    if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight_to_strength(weight) != link.strength:
        weight = strength_to_weight(link.strength)  # a person's edge, or a strength changed in the editor
    metadata = fields.get("metadata", {})
    if isinstance(metadata, dict) and link.label != drawn_label(metadata.get("label")):
        # the person changed the drawn label: it is the edge's metadata "label" now (a label
        # the editor cannot draw — not text, or too long — was drawn as "" and stays as it was)
        metadata = {k: v for k, v in metadata.items() if k != "label"}
        if link.label:
            metadata["label"] = link.label
    if isinstance(metadata, dict) and metadata.get("polarity") != link.polarity:
        shown = metadata.get("polarity") in ("+", "-") and link.kind in POLAR_KINDS
        if shown or link.polarity is not None:  # (the person set or took away the polarity)
            metadata = {k: v for k, v in metadata.items() if k != "polarity"}
            if link.polarity is not None:
                metadata["polarity"] = link.polarity
    args: dict[str, Any] = {
        "id": link.id,
        "source_id": link.a,
        "target_id": link.b,
        "edge_type": link.kind,
        "weight": weight,
        "metadata": metadata,
        "source": fields.get("source", "") if fields else HUMAN_SOURCE,  # (an edge of the memory's, or a person's)
    }
    for key in ("created_at", "valid_from", "valid_until"):
        if key in fields:
            args[key] = fields[key]
    return args
