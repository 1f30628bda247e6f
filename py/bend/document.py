"""The document file format: parse and validate, serialize.

Format (version 1)::

    {"format": "bendscope", "version": 1, "rootPlaneId": "...", "activePlaneId": "...",
     "settings": {"seed": 1, "exactLimit": null},
     "planes": [{"id", "name", "parentPlaneId", "parentNodeId", "camera": {"x", "y", "zoom"},
                 "nodes": [{"id", "text", "type", "x", "y", "vx", "vy", "pinned", "width", "height",
                            "portalPlaneId"}],
                 "edges": [{"id", "a", "b", "props": {"label", "kind", "strength"}}]}]}

A bare graph ``{"nodes": [...], "edges": [...]}`` is accepted too (one plane; nodes may
omit positions, edges may be ``{source, target, kind}``). Anything else raises
DocumentError with a message naming the first problem; parsing never touches the
editor, so a refused import leaves the current graph exactly as it was.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .model import EDGE_KINDS, MAX_ZOOM, MIN_ZOOM, NODE_TYPES, Camera, Document, Edge, EdgeProps, Node, Plane

FORMAT = "bendscope"
VERSION = 1
MAX_BYTES = 10 * 1024 * 1024
MAX_NODES = 20_000
MAX_EDGES = 100_000
MAX_PLANES = 5_000
MAX_TEXT = 100_000
MAX_ID = 200


class DocumentError(ValueError):
    """The text is not a valid document; the message says why, for the user."""


def _fail(where: str, message: str) -> DocumentError:
    return DocumentError(f"{where}: {message}" if where else message)


def _obj(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object, got {_type(value)}")
    return value


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(where, "must be a non-empty string")
    if len(value) > MAX_ID:
        raise _fail(where, f"is longer than {MAX_ID} characters")
    return value


def _str(d: dict, key: str, where: str, default: str = "", limit: int = MAX_TEXT) -> str:
    value = d.get(key, default)
    if value is None:
        value = default
    if not isinstance(value, str):
        raise _fail(f"{where}.{key}", f"must be a string, got {_type(value)}")
    if len(value) > limit:
        raise _fail(f"{where}.{key}", f"is longer than {limit} characters")
    return value


def _num(d: dict, key: str, where: str, default: float | None = 0.0) -> float | None:
    value = d.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(f"{where}.{key}", f"must be a finite number, got {value!r:.40}")
    return float(value)


def _bool(d: dict, key: str, where: str) -> bool:
    value = d.get(key, False)
    if not isinstance(value, bool):
        raise _fail(f"{where}.{key}", "must be true or false")
    return value


def _list(d: dict, key: str, where: str, limit: int) -> list:
    value = d.get(key, [])
    if not isinstance(value, list):
        raise _fail(f"{where}.{key}", f"must be a list, got {_type(value)}")
    if len(value) > limit:
        raise _fail(f"{where}.{key}", f"has {len(value)} items; the limit is {limit}")
    return value


def _camera(d: dict, where: str) -> Camera:
    cam = _obj(d.get("camera", {}), f"{where}.camera")
    zoom = _num(cam, "zoom", f"{where}.camera", 1.0)
    return Camera(
        _num(cam, "x", f"{where}.camera"), _num(cam, "y", f"{where}.camera"), min(MAX_ZOOM, max(MIN_ZOOM, zoom))
    )


def _node(raw: Any, where: str, unplaced: list[Node]) -> Node:
    d = _obj(raw, where)
    node_type = d.get("type", "normal")
    if node_type not in NODE_TYPES:
        raise _fail(f"{where}.type", f"must be one of {', '.join(NODE_TYPES)}, got {node_type!r:.40}")
    x = _num(d, "x", where, None)
    y = _num(d, "y", where, None)
    portal = d.get("portalPlaneId")
    if portal is not None:
        portal = _id(portal, f"{where}.portalPlaneId")
    node = Node(
        _id(d.get("id"), f"{where}.id"),
        _str(d, "text", where),
        node_type,
        x or 0.0,
        y or 0.0,
        _num(d, "vx", where),
        _num(d, "vy", where),
        _bool(d, "pinned", where),
        portal_plane_id=portal,
    )
    if x is None or y is None:
        unplaced.append(node)
    return node


def _edge(raw: Any, where: str, nodes: dict[str, Node]) -> Edge:
    d = _obj(raw, where)
    if "a" not in d and "source" in d:  # bare graph style {source, target, kind}
        d = {"id": d.get("id"), "a": d.get("source"), "b": d.get("target"), "props": {"kind": d.get("kind", "causal")}}
    a = _id(d.get("a"), f"{where}.a")
    b = _id(d.get("b"), f"{where}.b")
    for key, end in (("a", a), ("b", b)):
        if end not in nodes:
            raise _fail(f"{where}.{key}", f"refers to node {end!r:.60}, which is not on this plane")
    props = _obj(d.get("props", {}), f"{where}.props")
    kind = props.get("kind", "causal")
    if kind not in EDGE_KINDS:
        raise _fail(f"{where}.props.kind", f"must be one of {', '.join(EDGE_KINDS)}, got {kind!r:.40}")
    strength = props.get("strength", 2)
    if isinstance(strength, bool) or not isinstance(strength, (int, float)) or strength not in (1, 2, 3, 4, 5):
        raise _fail(f"{where}.props.strength", "must be an integer from 1 to 5")
    edge_id = d.get("id")
    return Edge(
        _id(edge_id, f"{where}.id"),
        a,
        b,
        EdgeProps(_str(props, "label", f"{where}.props", limit=500), kind, int(strength)),
    )


def _spiral(nodes: list[Node], edges: list[Edge] | None = None) -> None:
    """Deterministic positions (golden-angle spiral) for nodes given without x/y.

    Nodes are taken component by component (weakly connected, breadth first), so each
    component starts in one contiguous region and the layout need not untangle them.
    """
    if edges:
        wanted = {n.id: n for n in nodes}
        adjacent: dict[str, list[str]] = {}
        for e in edges:
            if e.a in wanted and e.b in wanted:
                adjacent.setdefault(e.a, []).append(e.b)
                adjacent.setdefault(e.b, []).append(e.a)
        ordered: list[Node] = []
        seen: set[str] = set()
        for node in nodes:
            if node.id in seen:
                continue
            seen.add(node.id)
            queue = [node.id]
            for current in queue:
                ordered.append(wanted[current])
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


def _bare_graph(data: dict) -> dict:
    nodes = []
    for i, raw in enumerate(_list(data, "nodes", "", MAX_NODES)):
        nodes.append({"id": raw, "text": raw} if isinstance(raw, str) else raw)
        if not isinstance(nodes[-1], dict):
            raise _fail(f"nodes[{i}]", "must be an id string or an object")
    edges = []
    for i, raw in enumerate(_list(data, "edges", "", MAX_EDGES)):
        raw = _obj(raw, f"edges[{i}]")
        edges.append(raw if "id" in raw else {**raw, "id": f"edge-{i}"})
    plane = {"id": "plane-root", "name": "Main", "nodes": nodes, "edges": edges}
    return {"format": FORMAT, "version": VERSION, "rootPlaneId": "plane-root", "planes": [plane]}


def parse_document(text: str | bytes) -> Document:
    """Parse and validate a document; raise DocumentError on any problem. O(size)."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise DocumentError(f"The file is {len(text) / 1e6:.1f} MB; the limit is {MAX_BYTES // (1024 * 1024)} MB.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise DocumentError("The file is not UTF-8 text.") from None
    if not isinstance(text, str):
        raise DocumentError("The document must be text.")
    if len(text) > MAX_BYTES:
        raise DocumentError(f"The file is {len(text) / 1e6:.1f} MB; the limit is {MAX_BYTES // (1024 * 1024)} MB.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"Not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}).") from None
    except RecursionError:
        raise DocumentError("Not a usable document: nested too deeply.") from None
    return document_from_data(data)


def document_from_data(data: Any) -> Document:
    """Validate decoded JSON data into a Document (see parse_document)."""
    if not isinstance(data, dict):
        raise DocumentError(f"Not a Bendscope document: the top level is {_type(data)}, not an object.")
    if "planes" not in data and "nodes" in data:
        data = _bare_graph(data)
    if data.get("format") != FORMAT:
        raise DocumentError('Not a Bendscope document: "format" must be "bendscope".')
    if data.get("version") != VERSION:
        raise DocumentError(f"Unsupported document version {data.get('version')!r:.20}; this editor reads version 1.")
    raw_planes = _list(data, "planes", "", MAX_PLANES)
    if not raw_planes:
        raise DocumentError("planes: the document has no plane.")
    planes: list[Plane] = []
    node_home: dict[str, Plane] = {}
    edge_ids: set[str] = set()
    total_nodes = total_edges = 0
    unplaced: list[Node] = []
    for i, raw in enumerate(raw_planes):
        where = f"planes[{i}]"
        d = _obj(raw, where)
        parent = d.get("parentPlaneId")
        parent_node = d.get("parentNodeId")
        plane = Plane(
            _id(d.get("id"), f"{where}.id"),
            _str(d, "name", where, "Plane", limit=500),
            None if parent is None else _id(parent, f"{where}.parentPlaneId"),
            None if parent_node is None else _id(parent_node, f"{where}.parentNodeId"),
            _camera(d, where),
        )
        if any(p.id == plane.id for p in planes):
            raise _fail(f"{where}.id", f"duplicate plane id {plane.id!r:.60}")
        raw_nodes = _list(d, "nodes", where, MAX_NODES)
        raw_edges = _list(d, "edges", where, MAX_EDGES)
        total_nodes += len(raw_nodes)
        total_edges += len(raw_edges)
        if total_nodes > MAX_NODES:
            raise DocumentError(f"The document has more than {MAX_NODES} nodes.")
        if total_edges > MAX_EDGES:
            raise DocumentError(f"The document has more than {MAX_EDGES} edges.")
        plane_unplaced: list[Node] = []
        for j, raw_node in enumerate(raw_nodes):
            node = _node(raw_node, f"{where}.nodes[{j}]", plane_unplaced)
            if node.id in node_home:
                raise _fail(f"{where}.nodes[{j}].id", f"duplicate node id {node.id!r:.60}")
            node_home[node.id] = plane
            plane.nodes[node.id] = node
        for j, raw_edge in enumerate(raw_edges):
            edge = _edge(raw_edge, f"{where}.edges[{j}]", plane.nodes)
            if edge.id in edge_ids:
                raise _fail(f"{where}.edges[{j}].id", f"duplicate edge id {edge.id!r:.60}")
            edge_ids.add(edge.id)
            plane.edges[edge.id] = edge
        _spiral(plane_unplaced, list(plane.edges.values()))
        unplaced.extend(plane_unplaced)
        planes.append(plane)
    by_id = {p.id: p for p in planes}
    roots = [p for p in planes if p.parent_plane_id is None]
    if len(roots) != 1:
        raise DocumentError(f"planes: expected exactly one root plane (parentPlaneId null), found {len(roots)}.")
    root_id = data.get("rootPlaneId", roots[0].id)
    if root_id != roots[0].id:
        raise DocumentError(f"rootPlaneId {root_id!r:.60} is not the plane without a parent.")
    for i, plane in enumerate(planes):
        where = f"planes[{i}]"
        if plane.parent_plane_id is None:
            continue
        parent = by_id.get(plane.parent_plane_id)
        if parent is None:
            raise _fail(f"{where}.parentPlaneId", f"refers to a missing plane {plane.parent_plane_id!r:.60}")
        seen = {plane.id}
        walk = parent
        while walk.parent_plane_id is not None:
            if walk.id in seen:
                raise _fail(f"{where}.parentPlaneId", "planes form a cycle")
            seen.add(walk.id)
            walk = by_id[walk.parent_plane_id]
        if plane.parent_node_id is not None and plane.parent_node_id not in parent.nodes:
            raise _fail(f"{where}.parentNodeId", "refers to a node that is not on the parent plane")
    for plane in planes:
        for node in plane.nodes.values():
            if node.portal_plane_id is None:
                continue
            child = by_id.get(node.portal_plane_id)
            if child is None or child.parent_plane_id != plane.id or child.parent_node_id != node.id:
                raise DocumentError(
                    f"node {node.id!r:.60}: portalPlaneId must name a plane whose parent is this node's plane and node."
                )
    doc = Document(planes, root_id)
    doc.needs_layout = bool(unplaced)
    active = data.get("activePlaneId", root_id)
    doc.active_plane_id = active if isinstance(active, str) and active in by_id else root_id
    settings = _obj(data.get("settings", {}), "settings")
    seed = settings.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise DocumentError("settings.seed must be an integer.")
    limit = settings.get("exactLimit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise DocumentError("settings.exactLimit must be null or a non-negative integer.")
    doc.settings.seed = seed
    doc.settings.exact_limit = limit
    return doc


def document_to_data(doc: Document) -> dict[str, Any]:
    """The JSON-ready dict of ``doc`` (planes in insertion order)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rootPlaneId": doc.root_plane_id,
        "activePlaneId": doc.active_plane_id,
        "settings": doc.settings.to_dict(),
        "planes": [p.to_dict() for p in doc.planes.values()],
    }


def serialize_document(doc: Document, *, indent: int | None = None) -> str:
    """The document as JSON text; ``parse_document`` reads it back identically."""
    return json.dumps(document_to_data(doc), ensure_ascii=False, indent=indent)
