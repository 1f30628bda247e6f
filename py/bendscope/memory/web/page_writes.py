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
it, or brings it back — undoing a deletion —, and then ``data`` may carry the memory's
fields it had, so an agent's fact comes back as it was, not as a person's). ``seen_at``
(optional) is the memory's clock when the page read its state. Each id appears once in a
request. All of a request's operations are checked against the store first, in one write
transaction; if any finds something else — the agent edited or deleted that card or edge
meanwhile, or an id the page made is taken, or a card to delete has gained an edge since
``seen_at`` (without ``seen_at``: any edge) that the request neither deletes nor moves —
nothing is written and :class:`Stale` says what changed, with the ids (``ids``). Edges of
a deleted card older than ``seen_at`` that the page did not hold (a search view shows part
of the memory) go with the card, as in any editor. Then
they are written through the same service calls as the MCP tools (``store_node``,
``store_edge`` with its checks, ``delete_edge``, ``delete_node``), in that order: edges
deleted, cards written, edges written, cards deleted. Any refusal rolls everything back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bendscope.shared.docformat import MAX_DATA, DocumentError, LinkRecord, read_link
from bendscope.shared.live_ops import (
    DELETE_EDGE,
    DELETE_NODE,
    EDGE_OPS,
    EDGE_VIEW,
    MAX_OPS,
    NODE_OPS,
    OPS,
    PUT_EDGE,
    PUT_NODE,
)

from ..core.errors import Conflict, InvalidInput
from ..core.records import _SURROGATE, MAX_CONTENT, MemoryEdge, _metadata, check_id, moment
from ..core.service import Memory
from ..io.documents import HUMAN_CONFIDENCE, HUMAN_SOURCE, _edge_out, edge_args

#: the memory fields a card brought back keeps (those a person's new card would not have)
NODE_KEPT = ("node_type", "confidence", "metadata", "source", "created_at", "valid_from", "valid_until")


class Stale(Conflict):
    """The memory changed since the page saw it: nothing was written. ``ids``: the cards and
    edges whose operations found something else."""

    def __init__(self, message: str, ids: list[str]) -> None:
        super().__init__(message)
        self.ids = ids


def _text(value: Any, where: str) -> str:
    """A text the page sent (a card's, or what it saw): valid Unicode."""
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: must be text")
    if _SURROGATE.search(value):
        raise InvalidInput(f"{where}: is not valid Unicode (an unpaired surrogate)")
    return value


def _seen_edge(value: Any, where: str) -> dict[str, Any]:
    """An edge as the page saw it (``was``): exactly EDGE_VIEW, each of its kind."""
    if not isinstance(value, dict) or set(value) != set(EDGE_VIEW):
        raise InvalidInput(f"{where}: an edge as drawn has exactly {', '.join(EDGE_VIEW)}")
    check_id(value["a"], f"{where}.a")
    check_id(value["b"], f"{where}.b")
    _text(value["kind"], f"{where}.kind")
    _text(value["label"], f"{where}.label")
    if isinstance(value["strength"], bool) or not isinstance(value["strength"], int):
        raise InvalidInput(f"{where}.strength: must be an integer")
    if value["polarity"] not in (None, "+", "-"):
        raise InvalidInput(f"{where}.polarity: must be '+', '-' or null")
    return value


def _memory_data(value: Any, where: str) -> dict[str, Any]:
    """The memory's fields a card or edge the page brings back had (``data.memory``), or {}."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}: must be an object or null")
    fields = value.get("memory")
    if fields is None:
        return {}
    if not isinstance(fields, dict):
        raise InvalidInput(f"{where}.memory: must be an object")
    return _metadata(fields, f"{where}.memory", MAX_DATA)  # (each field is checked again when stored)


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
    seen_at = value.get("seen_at")
    if seen_at is not None:
        seen_at = moment(seen_at, "seen_at")
    ops = value["ops"]
    if not ops:
        raise InvalidInput("no operations")
    if len(ops) > MAX_OPS:
        raise InvalidInput(f"{len(ops):,} operations; one request carries at most {MAX_OPS:,}")
    out = []
    ids: dict[tuple[bool, str], int] = {}
    for i, op in enumerate(ops):
        where = f"ops[{i}]"
        if not isinstance(op, dict) or op.get("op") not in OPS:
            raise InvalidInput(f"{where}: an operation is an object whose op is one of {', '.join(OPS)}")
        item_id = check_id(op.get("id"), f"{where}.id")
        kind = op["op"]
        is_node = kind in NODE_OPS
        if (is_node, item_id) in ids:
            raise InvalidInput(
                f"{where}: the {'card' if is_node else 'edge'} {item_id!r} is in ops[{ids[(is_node, item_id)]}] "
                "already; a request names each once"
            )
        ids[(is_node, item_id)] = i
        was = op.get("was")
        checked: dict[str, Any] = {"op": kind, "id": item_id}
        if is_node:
            if was is None and kind == DELETE_NODE:
                raise InvalidInput(f"{where}.was: the card's text the page saw")
            checked["was"] = None if was is None else _text(was, f"{where}.was")
            if kind == PUT_NODE:
                text = _text(op.get("text"), f"{where}.text")
                if not text.strip():
                    raise InvalidInput(f"{where}.text: a card is stored with some text")
                if len(text) > MAX_CONTENT:
                    raise InvalidInput(f"{where}.text: longer than {MAX_CONTENT:,} characters")
                checked["text"] = text
                checked["data"] = _memory_data(op.get("data"), f"{where}.data") if was is None else {}
            out.append(checked)
            continue
        if was is None and kind == DELETE_EDGE:
            raise InvalidInput(f"{where}.was: the edge as the page saw it")
        checked["was"] = None if was is None else _seen_edge(was, f"{where}.was")
        if kind == PUT_EDGE:
            raw = {
                "id": item_id,
                "a": op.get("a"),
                "b": op.get("b"),
                "props": {k: op[k] for k in EDGE_VIEW[2:] if op.get(k) is not None},
            }
            try:
                ends = {e for e in (op.get("a"), op.get("b")) if isinstance(e, str)}
                link = read_link(raw, where, ends)
            except DocumentError as exc:
                raise InvalidInput(str(exc)) from None
            checked.update(a=link.a, b=link.b, kind=link.kind, label=link.label, strength=link.strength,
                           polarity=link.polarity)  # fmt: skip
            checked["data"] = _memory_data(op.get("data"), f"{where}.data") if was is None else {}
        out.append(checked)
    deleted = {op["id"] for op in out if op["op"] == DELETE_NODE}
    for i, op in enumerate(out):
        if op["op"] == PUT_EDGE and (op["a"] in deleted or op["b"] in deleted):
            raise InvalidInput(f"ops[{i}]: the edge {op['id']!r} joins a card this request deletes")
    for op in out:
        op["seen_at"] = seen_at
    return out


def write(memory: Memory, ops: list[dict[str, Any]]) -> dict[str, Any]:
    """Check and write ``ops`` (from :func:`checked_ops`) all or none (module's words).
    O(ops + the edges of deleted cards + the service calls')."""
    store = memory.store
    seen_at = next((op.get("seen_at") for op in ops if op.get("seen_at")), None)
    with store.transaction():
        node_ids = {op["id"] for op in ops if op["op"] in NODE_OPS}
        edge_ids = {op["id"] for op in ops if op["op"] in EDGE_OPS}
        nodes = store.get_nodes(node_ids)
        edges = store.get_edges(edge_ids)
        stale: list[tuple[str, str]] = []
        for op in ops:
            problem = _stale(op, nodes, edges)
            if problem is not None:
                stale.append((op["id"], problem))
        deleted = {op["id"] for op in ops if op["op"] == DELETE_NODE}
        # edges the request deletes, or moves away from the cards it deletes (a merge keeps
        # an edge's id and moves it to the card kept)
        handled = {op["id"] for op in ops if op["op"] == DELETE_EDGE} | {
            op["id"] for op in ops if op["op"] == PUT_EDGE and op["a"] not in deleted and op["b"] not in deleted
        }
        if deleted:
            for edge in store.edges_touching(deleted):
                if edge.id in handled or (seen_at is not None and edge.created_at <= seen_at):
                    continue  # (older edges the page did not hold, in a partial view, go with the card)
                card_id = edge.source_id if edge.source_id in deleted else edge.target_id
                stale.append((card_id, f"the card {_card(nodes[card_id].content)} has gained an edge meanwhile"))
        if stale:
            more = f" (and {len(stale) - 3} more)" if len(stale) > 3 else ""
            shown = "; ".join(problem for _, problem in stale[:3])
            raise Stale(
                f"the memory changed meanwhile: {shown}{more}. Nothing was written",
                sorted({item for item, _ in stale}),
            )
        done = {"deleted_edges": 0, "nodes": 0, "edges": 0, "deleted_nodes": 0}
        for op in ops:
            if op["op"] == DELETE_EDGE:
                memory.delete_edge(op["id"])
                done["deleted_edges"] += 1
        for op in ops:
            if op["op"] == PUT_NODE:
                args: dict[str, Any] = {"id": op["id"], "content": op["text"]}
                if op["id"] not in nodes:  # a person's card, or one brought back with its fields
                    args.update(node_type="semantic", confidence=HUMAN_CONFIDENCE, source=HUMAN_SOURCE)
                    args.update({k: v for k, v in (op.get("data") or {}).items() if k in NODE_KEPT})
                memory.store_node(args)
                done["nodes"] += 1
        for op in ops:
            if op["op"] == PUT_EDGE:
                link = LinkRecord(
                    op["id"], op["a"], op["b"], op["label"], op["kind"], op["strength"], None, op["polarity"]
                )
                old = edges.get(op["id"])
                fields: Mapping[str, Any] = op.get("data") or {}
                if old is not None:
                    fields = {k: v for k, v in old.to_dict().items() if k not in ("id", "source_id", "target_id")}
                memory.store_edge(edge_args(link, fields))
                done["edges"] += 1
        for op in ops:
            if op["op"] == DELETE_NODE:
                memory.delete_node(op["id"])
                done["deleted_nodes"] += 1
    return {"status": "written", **done}


def _stale(op: dict[str, Any], nodes: Mapping[str, Any], edges: Mapping[str, MemoryEdge]) -> str | None:
    """What makes one operation's expectation wrong, or None."""
    kind, item_id, was = op["op"], op["id"], op.get("was")
    if kind in NODE_OPS:
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
    from bendscope.shared.jsonsafe import Refused, loads

    try:
        value = loads(body.decode("utf-8"), max_depth=32, max_digits=30)
    except (UnicodeDecodeError, Refused) as exc:
        raise InvalidInput(f"the body is not JSON: {exc}") from None
    return checked_ops(value)
