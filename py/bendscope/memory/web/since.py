"""``GET /api/graph?since=V`` answered from the store's change numbers: what changed since the
page's version, read without reading the whole memory.

A version the :class:`~.deltas.ViewLog` holds carries its mark: the store's change number and
the valid time its cards' and edges' ``holds`` are for. What can differ from it now is

- the nodes and edges written or deleted since that change number (``Store.changed_since``),
- those with a validity bound between that time and now (their ``holds`` turned:
  ``Store.bounds_between``),
- the edges touching a node that came, went, or began or ceased to hold (an edge holds only
  between two nodes that hold);

each is read and made into its card or edge as the whole document makes it, and compared with
the version's: the answer lists those that differ, and the ids of those that are gone — the same
changes as the whole document compared with that version (``ViewLog.changes_since``), at
O(changes) reads instead of O(n + m). A store that numbers no changes, a memory above the
page's size, or a version the log no longer holds: None (the caller reads the whole document).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bendscope.shared.docformat import MAX_EDGES, MAX_NODES

from ..core.service import Memory
from ..io.documents import card_of, link_of
from .deltas import ViewLog

__all__ = ["answer_since"]


def _holds(record: Mapping[str, Any] | None) -> bool | None:
    """A served card's or edge's ``holds`` mark (None: not served)."""
    if record is None:
        return None
    return bool(record["data"]["memory"]["holds"])


def _marked(record: dict[str, Any], holds: bool) -> dict[str, Any]:
    """``record`` marked as ``timeline.marked_holding`` marks it."""
    data = record["data"]
    return {**record, "data": {**data, "memory": {**data["memory"], "holds": holds}}}


def _merge(
    made: Mapping[str, tuple[dict[str, Any], bool] | None],
    items: dict[str, Mapping[str, Any]],
    changes: dict[str, Any],
    kind: str,
    ended: int,
) -> int:
    """Put the records ``made`` (None: gone), marked, into ``items``, noting in ``changes`` those
    that differ and those gone; returns ``ended`` counted again."""
    for i, found in made.items():
        old = items.get(i)
        ended -= _holds(old) is False
        if found is None:
            if old is not None:
                del items[i]
                changes[f"removed_{kind}"].append(i)
            continue
        record = _marked(*found)
        ended += not found[1]
        if old != record:
            items[i] = record
            changes[kind].append(record)
    return ended


def answer_since(memory: Memory, log: ViewLog, since: int, cap: int) -> dict[str, Any] | None:
    """``/api/graph?since=``'s answer (``changes`` and the new ``version``, ``view``, ``at``),
    or None when it must be made from the whole document (module doc). Call under
    ``log.making``. O(the items changed since, and the edges of nodes whose holding changed)."""
    held = log.held(since)
    if held is None or held[1][0] is None:
        return None
    (old_nodes, old_edges), (number, before, ended) = held
    assert number is not None
    store = memory.store
    with store.reading():
        at = memory.clock()
        now = store.change_number()
        changed = store.changed_since(number)
        total, _ = store.counts()
        if now is None or changed is None or total > min(cap, MAX_NODES):
            return None
        node_ids, edge_ids = set(changed[0]), set(changed[1])
        if before != at:
            crossing = store.bounds_between(*sorted((before, at)))
            node_ids.update(crossing[0])
            edge_ids.update(crossing[1])
        nodes = store.get_nodes(node_ids)
        holding = {i: n.valid_at(at) for i, n in nodes.items()}
        turned = {i for i in node_ids if _holds(old_nodes.get(i)) != holding.get(i)}
        if turned:
            edge_ids.update(i for i, e in old_edges.items() if e["a"] in turned or e["b"] in turned)
            edge_ids.update(e.id for e in store.edges_touching([i for i in turned if i in nodes]))
        edges = store.get_edges(edge_ids)
        unknown = {end for e in edges.values() for end in (e.source_id, e.target_id)} - node_ids - old_nodes.keys()
        if unknown:  # (never in a consistent state: read, not guessed)
            for i, n in store.get_nodes(unknown).items():
                holding[i] = n.valid_at(at)
    new_nodes: dict[str, Mapping[str, Any]] = dict(old_nodes)
    new_edges: dict[str, Mapping[str, Any]] = dict(old_edges)
    changes: dict[str, Any] = {"since": since, "nodes": [], "edges": [], "removed_nodes": [], "removed_edges": []}
    made: dict[str, tuple[dict[str, Any], bool] | None] = {}
    for i in sorted(node_ids):
        node = nodes.get(i)
        made[i] = None if node is None else (card_of(node), holding[i])
    ended = _merge(made, new_nodes, changes, "nodes", ended)
    made = {}
    for i in sorted(edge_ids):
        edge = edges.get(i)
        if edge is not None:
            ends = [holding[e] if e in holding else _holds(old_nodes.get(e)) for e in (edge.source_id, edge.target_id)]
            made[i] = (link_of(edge), edge.valid_at(at) and all(ends))
        else:
            made[i] = None
    ended = _merge(made, new_edges, changes, "edges", ended)
    if len(new_edges) > MAX_EDGES:
        return None
    version = log.record_items((new_nodes, new_edges), (now, at, ended))
    view = {"query": None, "shown": len(new_nodes), "total": total, "ended": ended,
            "time": {"as_of": None, "known_at": None}}  # fmt: skip
    return {"view": view, "at": at, "changes": changes, "version": version}
