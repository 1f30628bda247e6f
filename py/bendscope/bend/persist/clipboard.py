"""Copy, cut, paste and duplicate: nodes with the edges among them as a document fragment.

A fragment is JSON text (so it travels through the system clipboard, between tabs)::

    {"format": "bendscope-fragment", "version": 1,
     "nodes": [{"id", "text", "type", "x", "y", "pinned", "data"?}, ...],
     "edges": [{"id", "a", "b", "props": {"label", "kind", "strength"}}, ...]}

Pasting validates it with the document format's own rules (a fragment is a bare graph
to them), gives every node and edge a new id, and adds it in one undoable step,
centred where asked. A stargate is copied as a stargate without its plane. Plain text
that is not a fragment pastes as one new node holding the text.

>>> from bendscope.bend.model.demo import demo_document
>>> from bendscope.bend.editor.editor import Editor
>>> ed = Editor(demo_document())
>>> text = copy_fragment(ed, ["revenue", "r-and-d"])
>>> made = paste(ed, text, (0.0, 0.0))
>>> len(made), sorted(e.props.kind for e in ed.plane.edges.values() if e.a in made and e.b in made)
(2, ['causal'])
"""

from __future__ import annotations

import json
from typing import Any

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.document import DocumentError, parse_document
from bendscope.bend.model.elements import MAX_TEXT, Edge, EdgeProps, Plane

FORMAT = "bendscope-fragment"
VERSION = 1
DUPLICATE_OFFSET = 40.0  # world px: a duplicate appears down and right of the original


def copy_fragment(editor: Editor, node_ids: list[str]) -> str:
    """The fragment of ``node_ids`` on the active plane and the edges between them. O(k + m)."""
    plane = editor.plane
    chosen = [n for n in dict.fromkeys(node_ids) if n in plane.nodes]
    inside = set(chosen)
    nodes = []
    for node_id in chosen:
        node = plane.nodes[node_id]
        d: dict[str, Any] = {"id": node.id, "text": node.text, "type": node.type, "x": node.x, "y": node.y,
                             "pinned": node.pinned}  # fmt: skip
        if node.data is not None:
            d["data"] = node.data
        nodes.append(d)
    edges = [
        {"id": e.id, "a": e.a, "b": e.b, "props": e.props.to_dict()}
        for e in plane.edges.values()
        if e.a in inside and e.b in inside
    ]
    return json.dumps({"format": FORMAT, "version": VERSION, "nodes": nodes, "edges": edges}, ensure_ascii=False)


def is_fragment(text: str) -> bool:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def paste(editor: Editor, text: str, at: tuple[float, float]) -> list[str]:
    """Add what ``text`` holds to the active plane, centred on world point ``at``; returns
    the new node ids (selected). A fragment keeps its layout and edges; other text
    becomes one node. Raises ValueError with a message (nothing changes) for a damaged
    fragment or one that would exceed the document's limits."""
    if not is_fragment(text):
        if not text.strip():
            return []
        if len(text) > MAX_TEXT:
            raise ValueError(f"The pasted text has {len(text):,} characters; a card holds at most {MAX_TEXT:,}.")
        node_id = editor.add_node(at[0], at[1], text)
        return [node_id]
    data = json.loads(text)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != VERSION:
        raise ValueError(
            f"This clipboard content was written by another Bendscope version ({data.get('version')!r:.20})."
        )
    nodes = data.get("nodes")
    if isinstance(nodes, list):
        # a stargate arrives without its plane (the plane stays where it is)
        nodes = [{**n, "portalPlaneId": None} if isinstance(n, dict) else n for n in nodes]
    try:  # the document format's rules: ids, texts, coordinates, kinds, strengths, sizes
        checked = parse_document(json.dumps({"nodes": nodes, "edges": data.get("edges", [])}))
    except DocumentError as exc:
        raise ValueError(f"The clipboard content is not a usable fragment: {exc}") from None
    source = next(iter(checked.planes.values()))
    if not source.nodes:
        return []
    xs = [n.x for n in source.nodes.values()]
    ys = [n.y for n in source.nodes.values()]
    dx, dy = at[0] - (min(xs) + max(xs)) / 2, at[1] - (min(ys) + max(ys)) / 2
    renamed: dict[str, str] = {}
    kept = list(editor.selection)
    try:
        _add(editor, source, dx, dy, renamed)
    except ValueError:
        editor.select(kept)  # refused (e.g. over the document's limits): nothing changed, selection included
        raise
    made = list(renamed.values())
    editor.select(made)
    return made


def _add(editor: Editor, source: Plane, dx: float, dy: float, renamed: dict[str, str]) -> None:
    plane = editor.plane
    with editor.transaction("Paste"):
        for node in source.nodes.values():
            new_id = editor.add_node(node.x + dx, node.y + dy, node.text, node.type, pinned=node.pinned)
            renamed[node.id] = new_id
            if node.data is not None:
                plane.update_node(new_id, data=node.data)
        for edge in source.edges.values():
            props = EdgeProps(edge.props.label, edge.props.kind, edge.props.strength, edge.props.polarity)
            plane.add_edge(Edge(editor.new_id("edge"), renamed[edge.a], renamed[edge.b], props))


def duplicate(editor: Editor, node_ids: list[str]) -> list[str]:
    """Copies of ``node_ids`` (with the edges among them) beside the originals, selected."""
    plane = editor.plane
    chosen = [plane.nodes[n] for n in node_ids if n in plane.nodes]
    if not chosen:
        return []
    xs = [n.x for n in chosen]
    ys = [n.y for n in chosen]
    centre = ((min(xs) + max(xs)) / 2 + DUPLICATE_OFFSET, (min(ys) + max(ys)) / 2 + DUPLICATE_OFFSET)
    return paste(editor, copy_fragment(editor, [n.id for n in chosen]), centre)
