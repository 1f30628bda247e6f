"""The editor's document: read a document file into the model, write the model out.

The format itself — its fields, limits and validation — is :mod:`bendscope.shared.docformat`,
which the agent memory reads too. Here the validated records become the editor's
model (nodes given without a position are placed on a spiral), and the model is
written back as the same format. A refused text raises DocumentError naming the first
problem and touches no editor, so a refused import leaves the current graph as it was.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from bendscope.bend.model.elements import Camera, Document, Edge, EdgeProps, Node, Plane
from bendscope.kappa.steps import Steps, finish
from bendscope.shared.docformat import (
    CHUNK,
    FORMAT,
    MAX_BYTES,
    MAX_DATA,
    MAX_DEPTH,
    MAX_EDGES,
    MAX_ID,
    MAX_INT_DIGITS,
    MAX_NODES,
    MAX_PLANES,
    MAX_SEED,
    VERSION,
    DocumentError,
    DocumentRecord,
    NewerVersion,
    read_document_steps,
    validate_document_steps,
)

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "MAX_DATA",
    "MAX_DEPTH",
    "MAX_EDGES",
    "MAX_ID",
    "MAX_INT_DIGITS",
    "MAX_NODES",
    "MAX_PLANES",
    "MAX_SEED",
    "VERSION",
    "DocumentError",
    "NewerVersion",
    "Positions",
    "build_document",
    "build_document_steps",
    "document_from_data",
    "document_from_data_steps",
    "document_to_data",
    "document_to_data_header",
    "parse_document",
    "parse_document_steps",
    "positions_of",
    "serialize_document",
    "serialized_pieces",
]


def _spiral(nodes: list[Node], edges: list[Edge] | None = None) -> Steps[None]:
    """Deterministic positions (golden-angle spiral) for nodes given without x/y, as steps
    (a pause after every ``CHUNK`` nodes placed).

    Nodes are taken component by component (weakly connected, breadth first), so each
    component starts in one contiguous region and the layout need not untangle them.
    """
    if edges:
        wanted = {n.id: n for n in nodes}
        adjacent: dict[str, list[str]] = {}
        for k, e in enumerate(edges):
            if e.a in wanted and e.b in wanted:
                adjacent.setdefault(e.a, []).append(e.b)
                adjacent.setdefault(e.b, []).append(e.a)
            if k % (CHUNK * 4) == CHUNK * 4 - 1:
                yield
        ordered: list[Node] = []
        seen: set[str] = set()
        for node in nodes:
            if node.id in seen:
                continue
            seen.add(node.id)
            queue = [node.id]
            for current in queue:
                ordered.append(wanted[current])
                if len(ordered) % CHUNK == 0:
                    yield
                for other in adjacent.get(current, ()):
                    if other not in seen:
                        seen.add(other)
                        queue.append(other)
        nodes = ordered
    for i, node in enumerate(nodes):
        radius = 120.0 * math.sqrt(i + 0.5)
        angle = i * 2.399963229728653
        node.x = round(radius * math.cos(angle), 3)
        node.y = round(radius * math.sin(angle), 3)
        if i % CHUNK == CHUNK - 1:
            yield


def parse_document(text: str | bytes) -> Document:
    """Parse and validate a document; raise DocumentError on any problem. O(size)."""
    return finish(parse_document_steps(text))


def parse_document_steps(text: str | bytes) -> Steps[Document]:
    """:func:`parse_document` as steps (``kappa.steps``): a pause after every ``CHUNK``
    cards or edges read, checked or placed; the same document however it is sliced."""
    record = yield from read_document_steps(text)
    return (yield from build_document_steps(record))


def document_from_data(data: Any) -> Document:
    """Validate decoded JSON data into a Document (see parse_document)."""
    return finish(document_from_data_steps(data))


def document_from_data_steps(data: Any) -> Steps[Document]:
    """:func:`document_from_data` as steps (see :func:`parse_document_steps`)."""
    record = yield from validate_document_steps(data)
    return (yield from build_document_steps(record))


def build_document(record: DocumentRecord) -> Document:
    """The editor's model of a validated document; nodes without a position are placed
    on a spiral, plane by plane, and the document then asks for a layout. O(size)."""
    return finish(build_document_steps(record))


def build_document_steps(record: DocumentRecord) -> Steps[Document]:
    """:func:`build_document` as steps: a pause after every ``CHUNK`` cards or edges."""
    planes: list[Plane] = []
    needs_layout = False
    for rec in record.planes:
        plane = Plane(rec.id, rec.name, rec.parent_plane_id, rec.parent_node_id, Camera(*rec.camera))
        unplaced: list[Node] = []
        for c in rec.nodes:
            node = Node(c.id, c.text, c.type, c.x or 0.0, c.y or 0.0, c.vx, c.vy, c.pinned,
                        portal_plane_id=c.portal_plane_id, data=c.data)  # fmt: skip
            if c.x is None or c.y is None:
                unplaced.append(node)
            plane.add_node(node)
            if len(plane.nodes) % CHUNK == 0:
                yield
        for k, e in enumerate(rec.edges):
            plane.add_edge(Edge(e.id, e.a, e.b, EdgeProps(e.label, e.kind, e.strength, e.polarity), e.data))
            if k % CHUNK == CHUNK - 1:
                yield
        yield from _spiral(unplaced, list(plane.edges.values()))
        needs_layout = needs_layout or bool(unplaced)
        planes.append(plane)
    doc = Document(planes, record.root_plane_id)
    doc.needs_layout = needs_layout
    doc.active_plane_id = record.active_plane_id
    doc.settings.seed = record.seed
    doc.settings.exact_limit = record.exact_limit
    return doc


def document_to_data(doc: Document) -> dict[str, Any]:
    """The JSON-ready dict of ``doc`` (planes in insertion order)."""
    return {**document_to_data_header(doc), "planes": [p.to_dict() for p in doc.planes.values()]}


def serialize_document(doc: Document, *, indent: int | None = None) -> str:
    """The document as JSON text; ``parse_document`` reads it back identically."""
    return json.dumps(document_to_data(doc), ensure_ascii=False, indent=indent)


#: where each node is: plane id → node id → (x, y, vx, vy)
Positions = dict[str, dict[str, tuple[float, float, float, float]]]


def positions_of(doc: Document) -> Positions:
    """Every node's position and velocity, as they are now (a snapshot). O(n)."""
    return {p.id: {n.id: (n.x, n.y, n.vx, n.vy) for n in p.nodes.values()} for p in doc.planes.values()}


def serialized_pieces(doc: Document, positions: Positions | None = None) -> Iterator[str]:
    """``serialize_document(doc)`` (no indent) in pieces — one per node and per edge, plus
    the headers — whose concatenation is byte for byte the same text (tested), so a caller
    can build a large document's text a slice at a time (the autosave does, between
    frames). ``positions`` (a ``positions_of`` snapshot) is written instead of where the
    nodes are when their piece is made: the layout moves them between slices without that
    being an edit. The document must not otherwise change until the last piece.
    O(size of the document).

    >>> from bendscope.bend.model.elements import empty_document
    >>> doc = empty_document()
    >>> "".join(serialized_pieces(doc)) == serialize_document(doc)
    True
    """

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    head = document_to_data_header(doc)
    yield "{" + ", ".join(f"{dumps(k)}: {dumps(v)}" for k, v in head.items()) + ', "planes": ['
    for p, plane in enumerate(doc.planes.values()):
        header = plane.header_dict()
        yield (", " if p else "") + "{" + ", ".join(f"{dumps(k)}: {dumps(v)}" for k, v in header.items())
        yield ', "nodes": ['
        at = positions.get(plane.id) if positions is not None else None
        for k, node in enumerate(plane.nodes.values()):
            d = node.to_dict()
            if at is not None and node.id in at:
                d["x"], d["y"], d["vx"], d["vy"] = at[node.id]
            yield (", " if k else "") + dumps(d)
        yield '], "edges": ['
        for k, edge in enumerate(plane.edges.values()):
            yield (", " if k else "") + dumps(edge.to_dict())
        yield "]}"
    yield "]}"


def document_to_data_header(doc: Document) -> dict[str, Any]:
    """``document_to_data`` without its planes (the same keys, in the same order)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rootPlaneId": doc.root_plane_id,
        "activePlaneId": doc.active_plane_id,
        "settings": doc.settings.to_dict(),
    }
