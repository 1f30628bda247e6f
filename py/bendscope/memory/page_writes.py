"""A person's edits in the live editor, written to the memory (``POST /api/write``).

The page sends what changed since the memory's state it last saw, as operations that each
say what they expect to find::

    {"ops": [
      {"op": "put_node", "id": "n-1", "text": "Market share", "was": null},
      {"op": "put_edge", "id": "e-1", "a": "n-1", "b": "n-2", "kind": "causal",
       "label": "", "strength": 2, "polarity": null, "was": null},
      {"op": "delete_edge", "id": "e-7", "was": {"a": …, "b": …, "kind": …, "label": …,
       "strength": …, "polarity": …}},
      {"op": "delete_node", "id": "n-9", "was": "Old text"}
    ]}

``was`` is the card's text, or the edge as drawn, that the page saw (null: the page made
it). All of a request's operations are checked against the store first, in one write
transaction; if any finds something else — the agent edited or deleted that card or edge
meanwhile, or an id the page made is taken, or a card to delete has gained an edge the
request does not delete — nothing is written and :class:`Stale` says what changed. Then
they are written through the same service calls as the MCP tools (``store_node``,
``store_edge`` with its checks, ``delete_edge``, ``delete_node``), in that order: edges
deleted, cards written, edges written, cards deleted. Any refusal rolls everything back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bendscope.docformat import DocumentError, read_link

from .errors import Conflict, InvalidInput
from .interop import HUMAN_CONFIDENCE, HUMAN_SOURCE, _edge_out, edge_args
from .records import MAX_CONTENT, MemoryEdge, check_id
from .service import Memory

#: operations one request may carry
MAX_OPS = 2_000
OPS = ("put_node", "delete_node", "put_edge", "delete_edge")
EDGE_VIEW = ("a", "b", "kind", "label", "strength", "polarity")


class Stale(Conflict):
    """The memory changed since the page saw it: nothing was written."""


def drawn_edge(edge: MemoryEdge) -> dict[str, Any]:
    """An edge as the page draws it (the fields an operation's ``was`` holds)."""
    out = _edge_out(edge)
    props = out["props"]
    return {
        "a": out["a"],
        "b": out["b"],
        "kind": props["kind"],
        "label": props["label"],
        "strength": props["strength"],
        "polarity": props.get("polarity"),
    }


def _card(text: str) -> str:
    shown = " ".join(text.split())
    return f"“{shown[:40]}{'…' if len(shown) > 40 else ''}”"


def checked_ops(value: Any) -> list[dict[str, Any]]:
    """The operations of a request body, each checked for shape (InvalidInput naming the
    first wrong one). O(ops)."""
    if not isinstance(value, dict) or not isinstance(value.get("ops"), list):
        raise InvalidInput('the body must be {"ops": [...]}')
    ops = value["ops"]
    if not ops:
        raise InvalidInput("no operations")
    if len(ops) > MAX_OPS:
        raise InvalidInput(f"{len(ops):,} operations; one request carries at most {MAX_OPS:,}")
    out = []
    for i, op in enumerate(ops):
        where = f"ops[{i}]"
        if not isinstance(op, dict) or op.get("op") not in OPS:
            raise InvalidInput(f"{where}: an operation is an object whose op is one of {', '.join(OPS)}")
        item_id = check_id(op.get("id"), f"{where}.id")
        kind = op["op"]
        was = op.get("was")
        if kind in ("put_node", "delete_node"):
            if not (was is None or isinstance(was, str)) or (kind == "delete_node" and was is None):
                raise InvalidInput(
                    f"{where}.was: the card's text the page saw" + ("" if kind == "delete_node" else ", or null")
                )
            if kind == "put_node":
                text = op.get("text")
                if not isinstance(text, str) or not text.strip():
                    raise InvalidInput(f"{where}.text: a card is stored with some text")
                if len(text) > MAX_CONTENT:
                    raise InvalidInput(f"{where}.text: longer than {MAX_CONTENT:,} characters")
            out.append(dict(op))
            continue
        if not (was is None or isinstance(was, dict)) or (kind == "delete_edge" and was is None):
            raise InvalidInput(
                f"{where}.was: the edge as the page saw it" + ("" if kind == "delete_edge" else ", or null")
            )
        if isinstance(was, dict) and set(was) != set(EDGE_VIEW):
            raise InvalidInput(f"{where}.was: an edge as drawn has exactly {', '.join(EDGE_VIEW)}")
        if kind == "put_edge":
            raw = {
                "id": item_id,
                "a": op.get("a"),
                "b": op.get("b"),
                "props": {k: op[k] for k in ("kind", "label", "strength", "polarity") if op.get(k) is not None},
            }
            try:
                ends = {e for e in (op.get("a"), op.get("b")) if isinstance(e, str)}
                read_link(raw, where, ends)
            except DocumentError as exc:
                raise InvalidInput(str(exc)) from None
        out.append(dict(op))
    return out


def write(memory: Memory, ops: list[dict[str, Any]]) -> dict[str, Any]:
    """Check and write ``ops`` (from :func:`checked_ops`) all or none (module's words).
    O(ops + the edges of deleted cards + the service calls')."""
    store = memory.store
    with store.transaction():
        node_ids = {op["id"] for op in ops if op["op"] in ("put_node", "delete_node")}
        edge_ids = {op["id"] for op in ops if op["op"] in ("put_edge", "delete_edge")}
        nodes = store.get_nodes(node_ids)
        edges = store.get_edges(edge_ids)
        stale = [problem for problem in (_stale(op, nodes, edges) for op in ops) if problem is not None]
        deleted = {op["id"] for op in ops if op["op"] == "delete_node"}
        dropped = {op["id"] for op in ops if op["op"] == "delete_edge"}
        if deleted:
            for edge in store.edges_touching(deleted):
                if edge.id not in dropped:
                    card = nodes[edge.source_id if edge.source_id in deleted else edge.target_id]
                    stale.append(f"the card {_card(card.content)} has gained an edge meanwhile")
        if stale:
            more = f" (and {len(stale) - 3} more)" if len(stale) > 3 else ""
            raise Stale("the memory changed meanwhile: " + "; ".join(stale[:3]) + more + ". Nothing was written")
        done = {"deleted_edges": 0, "nodes": 0, "edges": 0, "deleted_nodes": 0}
        for op in ops:
            if op["op"] == "delete_edge":
                memory.delete_edge(op["id"])
                done["deleted_edges"] += 1
        for op in ops:
            if op["op"] == "put_node":
                args: dict[str, Any] = {"id": op["id"], "content": op["text"]}
                if op["id"] not in nodes:
                    args.update(node_type="semantic", confidence=HUMAN_CONFIDENCE, source=HUMAN_SOURCE)
                memory.store_node(args)
                done["nodes"] += 1
        for op in ops:
            if op["op"] == "put_edge":
                link = read_link(
                    {
                        "id": op["id"],
                        "a": op["a"],
                        "b": op["b"],
                        "props": {k: op[k] for k in ("kind", "label", "strength", "polarity") if op.get(k) is not None},
                    },
                    "edge",
                    {op["a"], op["b"]},
                )
                old = edges.get(op["id"])
                fields: Mapping[str, Any] = {}
                if old is not None:
                    fields = {k: v for k, v in old.to_dict().items() if k not in ("id", "source_id", "target_id")}
                memory.store_edge(edge_args(link, fields))
                done["edges"] += 1
        for op in ops:
            if op["op"] == "delete_node":
                memory.delete_node(op["id"])
                done["deleted_nodes"] += 1
    return {"status": "written", **done}


def _stale(op: dict[str, Any], nodes: Mapping[str, Any], edges: Mapping[str, MemoryEdge]) -> str | None:
    """What makes one operation's expectation wrong, or None."""
    kind, item_id, was = op["op"], op["id"], op.get("was")
    if kind in ("put_node", "delete_node"):
        node = nodes.get(item_id)
        if was is None:
            return None if node is None else f"the id {item_id!r} is taken by the card {_card(node.content)}"
        if node is None:
            return f"the card {_card(was)} was deleted"
        if node.content != was:
            return f"the card {_card(was)} was edited (it now says {_card(node.content)})"
        return None
    edge = edges.get(item_id)
    if was is None:
        return None if edge is None else f"the edge id {item_id!r} is taken"
    if edge is None:
        return f"the {was.get('kind', '')} edge {item_id!r} was deleted"
    if drawn_edge(edge) != was:
        return f"the {edge.edge_type} edge {item_id!r} was changed"
    return None


def check_body(body: bytes) -> list[dict[str, Any]]:
    """The operations of a raw request body (JSON, bounded), or InvalidInput."""
    from bendscope.jsonsafe import Refused, loads

    try:
        value = loads(body.decode("utf-8"), max_depth=16, max_digits=30)
    except (UnicodeDecodeError, Refused) as exc:
        raise InvalidInput(f"the body is not JSON: {exc}") from None
    return checked_ops(value)
