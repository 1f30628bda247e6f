"""``Memory``: the operations the MCP tools and the CLI share, over one store.

Each operation validates its arguments first and runs in one store transaction, so a
call is all or nothing: bad arguments raise :class:`~memory.errors.InvalidInput` (or
:class:`~memory.errors.NotFound`) with a message for the caller and change nothing.
Results are plain JSON-ready dicts whose bytes depend only on the store and the call.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bendscope.kappa import DEFAULT_EXACT_LIMIT, recommendation
from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph

from ..io.documents import from_document, to_document
from ..io.dump import dump_lines, read_dump
from ..store.base import Store
from .analysis import analyze_nodes
from .answer_budget import DEFAULT_MAX_CHARS, DEFAULT_MAX_TOTAL_CHARS, MAX_TOTAL_CHARS, Budget
from .consolidation import consolidate
from .embedders import pack
from .errors import Conflict, InvalidInput, NotFound
from .learning import RATE, TARGETS, learned, learned_weight, outcome_metrics
from .loop_index import LoopIndex, Watch
from .records import (
    EDGE_FIELDS,
    EDGE_TYPES,
    MAX_CONTENT,
    MAX_SOURCE,
    NODE_FIELDS,
    NODE_TYPES,
    OUTCOMES,
    ROUTES,
    MemoryEdge,
    MemoryNode,
    OutcomeRecord,
    check_id,
    check_text,
    legacy_id_of,
    moment,
    new_edge,
    new_node,
    preview,
    utc_now,
    whole,
)
from .retrieval import (
    DEFAULT_LIMIT,
    LOOP_LIMIT,
    MAX_HOPS,
    MAX_LIMIT,
    SEMANTIC_WEIGHT,
    Embedder,
    Semantic,
    loop_names,
    model_name,
    retrieve_context,
)
from .telemetry import Aggregator, Telemetry
from .write_effect import effect

logger = logging.getLogger(__name__)

#: edge types declared acyclic unless the server is told otherwise: "derived from" is a
#: lineage, and a fact cannot derive from itself
DEFAULT_ACYCLIC_TYPES = ("derived_from",)
#: the most node ids one call may name
MAX_NODE_IDS = 100_000
MAX_QUERY = 2_000
MAX_PAGE = 1_000
MAX_POOL = 20_000  # the most lexical matches looked at to fill a filtered page
MAX_BATCH = 2_000  # nodes and edges in one store_many call
MAX_ERRORS = 20  # wrong items a store_many error lists
MAX_ITERATIONS = 1_000_000  # iterations an outcome may report
#: analyze_topology with a query analyses the loops the retrieved nodes are in whole, up to this size
ANALYZE_LOOP_LIMIT = DEFAULT_EXACT_LIMIT
#: why a new edge without a type is refused (by the MCP tools)
TYPE_REQUIRED = (
    "edge_type is required for a new edge: causal (the source causes or raises the target) or temporal (the "
    "source comes before the target) — these two form loops — or an association (related, supports, "
    "contradicts, context, associative, derived_from, user)"
)
#: how much an answer of retrieve_context says (``detail``)
DETAILS = ("compact", "full")
EMBED_BATCH = 1_000  # texts given to an embedder at once


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _int(args: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    """A whole-number argument; an integer-valued float (``2.0``) counts, as JSON Schema's
    "integer" does."""
    value = whole(args.get(key, default))
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{key} must be a whole number from {low} to {high}, got {_kind(value)}")
    if not low <= value <= high:
        raise InvalidInput(f"{key} must be from {low} to {high}, got {value}")
    return value


def _items(value: Any, what: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise InvalidInput(f"{what} must be a list of objects")
    return list(value)


def _budget(args: Mapping[str, Any]) -> Budget:
    """The response budget a reading call asks for (``max_chars``, ``max_total_chars``).
    A larger ``max_chars`` alone raises the total to at least twice it, so asking for one
    node with ``max_chars`` 100,000 gives all of it (content and metadata)."""
    max_chars = _int(args, "max_chars", DEFAULT_MAX_CHARS, 0, MAX_CONTENT)
    floor = max(DEFAULT_MAX_TOTAL_CHARS, min(2 * max_chars, MAX_TOTAL_CHARS))
    return Budget(max_chars, _int(args, "max_total_chars", floor, 0, MAX_TOTAL_CHARS))


def _query(value: Any, what: str = "query") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be a non-empty string")
    if len(value) > MAX_QUERY:
        raise InvalidInput(f"{what} is longer than {MAX_QUERY:,} characters")
    return check_text(value, what, MAX_QUERY)


def _id_list(value: Any, what: str = "node_ids") -> list[str]:
    if not isinstance(value, list):
        raise InvalidInput(f"{what} must be a list of node ids, got {_kind(value)}")
    if len(value) > MAX_NODE_IDS:
        raise InvalidInput(f"{what} has {len(value):,} ids; the limit is {MAX_NODE_IDS:,}")
    return list(dict.fromkeys(check_id(v, f"{what}[{i}]") for i, v in enumerate(value)))


def _node_types(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(v in NODE_TYPES for v in value):
        raise InvalidInput(f"node_types must be a list of {', '.join(NODE_TYPES)}")
    return list(value)


def _unknown(ids: Sequence[str], found: Mapping[str, Any]) -> None:
    missing = [i for i in ids if i not in found]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise NotFound(f"no node with id {shown}{more}")


@dataclass
class _Batch:
    """What the writes of one transaction did to the arcs: the loops watched before them, the
    causal and temporal arcs added, and whether any was removed (``loop_index``)."""

    watch: Watch
    inserted: list[tuple[str, str]] = field(default_factory=list)
    removed: bool = False


class Memory:
    """A knowledge-graph memory: store, retrieval with topology, κ router, telemetry."""

    def __init__(
        self,
        store: Store,
        *,
        telemetry: Telemetry | None = None,
        clock: Callable[[], str] = utc_now,
        embedder: Embedder | None = None,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
        acyclic_types: Iterable[str] = DEFAULT_ACYCLIC_TYPES,
        semantic_weight: float = SEMANTIC_WEIGHT,
        dense_seeds: int = 0,
    ) -> None:
        self.store = store
        unknown = [t for t in acyclic_types if t not in EDGE_TYPES]
        if unknown:
            raise ValueError(
                f"unknown edge type {unknown[0]!r} declared acyclic; the types are {', '.join(EDGE_TYPES)}"
            )
        #: edge types no cycle may form among (store_edge refuses an edge closing one)
        self.acyclic_types = frozenset(acyclic_types)
        self.telemetry = telemetry or Telemetry()
        self.metrics = Aggregator(self.telemetry)
        self.clock = clock
        self.embedder = embedder
        #: how retrieval uses the embedder (None without one); its vectors' name in the store
        self.semantic = Semantic(embedder, semantic_weight, dense_seeds) if embedder is not None else None
        self.model = model_name(embedder) if embedder is not None else None
        self.exact_limit = exact_limit
        #: the memory's feedback loops with their κ, kept in the store (``loop_index``)
        self.loops = LoopIndex(store, exact_limit, clock=clock)

    # ------------------------------------------------------------ writing
    def store_node(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Create a node, or update the node with the given ``id`` (fields not given stay).
        Returns ``{"status": "created" | "updated" | "unchanged", "node": {...}}``."""
        with self.store.transaction():
            batch: list[_Batch] = []
            written: list[MemoryNode] = []
            answer = self._put_node(args, batch, written)
            if batch:  # (its validity changed: which arcs hold may have changed)
                change = self.loops.settle(batch[0].watch, batch[0].inserted, batch[0].removed)
                answer["topology"] = effect(change.before, change.after)
            self._embed(written)
        return answer

    def _embed(self, nodes: Sequence[MemoryNode]) -> None:
        """Keep the vectors of nodes whose content is new (with an embedder; in the open
        transaction). An embedder that fails leaves them for ``backfill_vectors``."""
        if self.embedder is None or self.model is None or not nodes:
            return
        for start in range(0, len(nodes), EMBED_BATCH):
            part = nodes[start : start + EMBED_BATCH]
            try:
                vectors = self.embedder.embed([n.content for n in part])
            except Exception:  # (a model of the caller's: the write stands without vectors)
                logger.exception("the embedder failed; %d nodes are stored without vectors", len(part))
                return
            self.store.put_vectors(self.model, {n.id: pack(v) for n, v in zip(part, vectors, strict=True)})

    def backfill_vectors(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every node without a vector of the embedder's model (after a store was
        written without this embedder, or a model change), a batch per transaction; returns
        how many. ``progress(done, total)`` after each batch. O(nodes)."""
        if self.embedder is None or self.model is None:
            return 0
        done = 0
        total = len(self.store.missing_vectors(self.model, 10**9)) if progress is not None else 0
        while True:
            with self.store.transaction():
                ids = self.store.missing_vectors(self.model, EMBED_BATCH)
                if not ids:
                    return done
                found = self.store.get_nodes(ids)
                vectors = self.embedder.embed([found[i].content for i in ids])
                self.store.put_vectors(self.model, {i: pack(v) for i, v in zip(ids, vectors, strict=True)})
            done += len(ids)
            if progress is not None:
                progress(done, total)

    def _put_node(
        self, args: Mapping[str, Any], batch: list[_Batch], written: list[MemoryNode] | None = None
    ) -> dict[str, Any]:
        """store_node's write, in the open transaction. A change of validity changes which
        arcs hold: the loop index is then made ready and the node watched (``batch`` gets the
        batch, made once), and its arcs that hold after the write are noted."""
        old = self.store.get_node(check_id(args["id"])) if args.get("id") is not None else None
        merged = dict(args)
        if old is not None and merged.get("content") is None:
            merged["content"] = old.content
        node = new_node(merged, now=self.clock(), existing=old)
        if args.get("id") is None:  # the id derives from the content: that node, or none
            old = self._derived_node(node)
            if old is not None:
                # (the same fact with observations appended since keeps them)
                node = new_node({**merged, "id": old.id, "content": old.content}, now=self.clock(), existing=old)
        if old is not None and _same_node(old, node):
            return {"status": "unchanged", "node": old.to_dict()}
        moved = old is not None and (old.valid_from, old.valid_until) != (node.valid_from, node.valid_until)
        if moved:
            if not batch:
                batch.append(self._batch())
            self.loops.extend(batch[0].watch, {node.id})
        self.store.put_node(node)
        if written is not None and (old is None or old.content != node.content):
            written.append(node)
        if moved:
            now = self.loops.now
            batch[0].removed = True
            if node.valid_at(now):
                batch[0].inserted += self._holding([node.id], now)
        if node.valid_from is not None or node.valid_until is not None:
            self.loops.bounds([node.valid_from, node.valid_until])
        return {"status": "created" if old is None else "updated", "node": node.to_dict()}

    def _holding(self, node_ids: Iterable[str], now: str) -> list[tuple[str, str]]:
        """The causal and temporal arcs touching the nodes that hold ``now``."""
        ids = list(node_ids)
        return self.store.arcs_from(ids, True, now) + self.store.arcs_from(ids, False, now)

    def store_edge(self, args: Mapping[str, Any], typed: bool = False) -> dict[str, Any]:
        """Create an edge between existing nodes, or update the edge with the given ``id``;
        ``typed``: a new edge must say its ``edge_type`` (the MCP tools: an agent's "A causes B"
        must not become an association that never forms a loop).
        The answer's ``topology`` is what the write did to the loops around its ends (see
        ``write_effect``), from the loop index the write brings up to date; an edge of a type
        declared acyclic that would close a cycle of such edges is refused (Conflict),
        naming the cycle. O(the loops of its ends, or a search: see ``loop_index``)."""
        with self.store.transaction():
            batch = self._batch()
            answer = self._put_edge(args, batch, typed)
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
        return {**answer, "topology": effect(change.before, change.after)}

    def _batch(self) -> _Batch:
        """The start of a write that changes edges (inside its transaction): the loop index
        made current, and nothing watched yet."""
        self.loops.ready()
        return _Batch(self.loops.watch(()))

    def _put_edge(self, args: Mapping[str, Any], batch: _Batch, typed: bool = False) -> dict[str, Any]:
        """store_edge's write, in the open transaction; the loops it may change are watched
        and the arcs it adds or removes (those that hold now: the edge valid and both its
        ends) noted in ``batch`` (settled by the caller). ``typed``: see ``store_edge``."""
        edge = new_edge(args, now=self.clock())
        if typed and args.get("edge_type") is None and (args.get("id") is None or self.store.get_edge(edge.id) is None):
            raise InvalidInput(TYPE_REQUIRED)
        ends = self.store.get_nodes([edge.source_id, edge.target_id])
        _unknown([edge.source_id, edge.target_id], ends)
        old = self.store.get_edge(edge.id) if args.get("id") is not None else self._derived_edge(edge)
        touched = {edge.source_id, edge.target_id} | ({old.source_id, old.target_id} if old else set())
        self.loops.extend(batch.watch, touched)
        if old is not None:  # update that edge: its id stays, even one derived from another type
            edge = new_edge({**args, "id": old.id}, now=self.clock(), existing=old)
            if edge == old:
                return {"status": "unchanged", "edge": old.to_dict()}
        if edge.directed and edge.source_id == edge.target_id:
            raise InvalidInput(
                f"a {edge.edge_type} edge from {edge.source_id!r} to itself is not a feedback loop: κ and the loops "
                "leave self-loops out (a loop runs through two or more nodes); nothing was stored. Connect the node "
                "to what it acts through, or store the link as related"
            )
        self._check_acyclic(edge)
        now = self.loops.now
        if old is not None:
            ends.update(self.store.get_nodes([old.source_id, old.target_id]))
        held = old is not None and _holds(old, ends, now)
        holds = _holds(edge, ends, now)
        self.store.put_edge(edge)
        if holds:
            batch.inserted.append((edge.source_id, edge.target_id))
        if held and not (holds and (old.source_id, old.target_id) == (edge.source_id, edge.target_id)):  # type: ignore[union-attr]
            batch.removed = True
        if edge.valid_from is not None or edge.valid_until is not None:
            self.loops.bounds([edge.valid_from, edge.valid_until])
        return {"status": "created" if old is None else "updated", "edge": edge.to_dict()}

    def invalidate_edge(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """End an edge's validity at ``at`` (now by default) without deleting it: it stays in
        the memory (``as_of`` an earlier time still sees it), but the current graph — retrieval,
        topology, the loop index — no longer holds it. ``topology``: what that did to the loops."""
        edge_id = check_id(args.get("id"))
        with self.store.transaction():
            batch = self._batch()
            at = moment(args["at"], "at") if args.get("at") is not None else self.loops.now
            edge = self.store.get_edge(edge_id)
            if edge is None:
                raise NotFound(f"no edge with id {edge_id!r}")
            self.loops.extend(batch.watch, {edge.source_id, edge.target_id})
            if edge.valid_until is not None and edge.valid_until <= at:
                change = self.loops.settle(batch.watch)
                return {"status": "unchanged", "edge": edge.to_dict(), "topology": effect(change.before, change.after)}
            if edge.valid_from is not None and at <= edge.valid_from:
                raise InvalidInput(f"the edge is valid from {edge.valid_from}: it cannot end at {at}, before it began")
            ended = dataclasses.replace(edge, valid_until=at)
            ends = self.store.get_nodes([edge.source_id, edge.target_id])
            batch.removed = _holds(edge, ends, self.loops.now) and not _holds(ended, ends, self.loops.now)
            self.store.put_edge(ended)
            self.loops.bounds([at])
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
        return {"status": "invalidated", "edge": ended.to_dict(), "topology": effect(change.before, change.after)}

    def invalidate_node(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """End a node's validity at ``at`` (now by default) without deleting it; its edges stop
        holding with it. ``topology``: what that did to the loops."""
        node_id = check_id(args.get("id"))
        with self.store.transaction():
            node = self.store.get_node(node_id)
            if node is None:
                raise NotFound(f"no node with id {node_id!r}")
            at = moment(args["at"], "at") if args.get("at") is not None else None
            if at is None:
                self.loops.ready()
                at = self.loops.now
            if node.valid_until is not None and node.valid_until <= at:
                batch = self._batch()
                self.loops.extend(batch.watch, {node_id})
                change = self.loops.settle(batch.watch)
                return {"status": "unchanged", "node": node.to_dict(), "topology": effect(change.before, change.after)}
            if node.valid_from is not None and at <= node.valid_from:
                raise InvalidInput(f"the node is valid from {node.valid_from}: it cannot end at {at}, before it began")
            batch_list: list[_Batch] = []
            answer = self._put_node({"id": node_id, "valid_until": at}, batch_list)
            batch = batch_list[0] if batch_list else self._batch()
            self.loops.extend(batch.watch, {node_id})
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
        return {"status": "invalidated", "node": answer["node"], "topology": effect(change.before, change.after)}

    def _check_acyclic(self, edge: MemoryEdge) -> None:
        """Refuse an edge of a type declared acyclic that would close a cycle of such edges:
        a search from its target along them (O(what it reaches)); the message names the cycle."""
        if edge.edge_type not in self.acyclic_types or edge.source_id == edge.target_id:
            if edge.edge_type in self.acyclic_types:
                raise Conflict(f"a {edge.edge_type} edge from {edge.source_id!r} to itself would be a cycle; "
                               f"{edge.edge_type} edges are declared acyclic; nothing was stored")  # fmt: skip
            return
        parent: dict[str, str] = {edge.target_id: ""}
        front = {edge.target_id}
        while front and edge.source_id not in parent:
            ahead = set()
            for e in self.store.edges_touching(front):
                if e.edge_type in self.acyclic_types and e.source_id in front and e.target_id not in parent:
                    if e.id == edge.id:
                        continue  # (the edge being updated is replaced by this one)
                    parent[e.target_id] = e.source_id
                    ahead.add(e.target_id)
            front = ahead
        if edge.source_id in parent:
            path = [edge.source_id]
            while path[-1] != edge.target_id:
                path.append(parent[path[-1]])
            cycle = " → ".join(repr(n) for n in [edge.source_id, *reversed(path)])
            raise Conflict(
                f"the {edge.edge_type} edge {edge.source_id!r} → {edge.target_id!r} would close the cycle {cycle}; "
                f"{edge.edge_type} edges are declared acyclic; nothing was stored"
            )

    def _derived_node(self, node: MemoryNode) -> MemoryNode | None:
        """The stored node a node with a derived id is: the one with that id (the same
        content, perhaps with observations appended since; other content is a Conflict:
        never overwritten), else one a store made before ids had 128 bits for this content;
        None for a new node."""
        legacy = legacy_id_of(node.id)
        found = self.store.get_nodes([node.id, legacy])
        old = found.get(node.id)
        if old is not None and old.content != node.content and not old.content.startswith(node.content + "\n"):
            raise Conflict(
                f"the content {preview(node.content)} derives the id {node.id!r}, which holds a different fact, "
                f"{preview(old.content)}; nothing was stored. Give this fact an id of its own, or the id "
                f"{node.id!r} to replace that fact"
            )
        if old is None and legacy in found and found[legacy].content == node.content:
            old = found[legacy]  # (a legacy id with other content: a 40-bit collision; the new id keeps both)
        return old

    def _derived_edge(self, edge: MemoryEdge) -> MemoryEdge | None:
        """The stored edge an edge with a derived id is: the one on that id when it joins the
        same two nodes (its type may have been changed since, by id), else one a store made
        before ids had 128 bits for them; an edge between other nodes on that id is a Conflict."""
        legacy = legacy_id_of(edge.id)
        found = self.store.get_edges([edge.id, legacy])
        ends = (edge.source_id, edge.target_id)
        old = found.get(edge.id)
        if old is not None and (old.source_id, old.target_id) != ends:
            raise Conflict(
                f"the {edge.edge_type} edge {edge.source_id!r} → {edge.target_id!r} derives the id {edge.id!r}, which "
                f"is the {old.edge_type} edge {old.source_id!r} → {old.target_id!r}; nothing was stored. Give this "
                "edge an id of its own"
            )
        was = found.get(legacy)
        if old is None and was is not None and (was.source_id, was.target_id) == ends:
            old = was
        return old

    def store_many(self, args: Mapping[str, Any], typed: bool = False) -> dict[str, Any]:
        """Many nodes, then many edges (which may join nodes of the same call), in one
        transaction: all of them or, when any item is wrong, none — the error then names
        every wrong item (``nodes[3]: …``; at most MAX_ERRORS). ``typed``: see ``store_edge``.
        O(items)."""
        nodes = _items(args.get("nodes"), "nodes")
        edges = _items(args.get("edges"), "edges")
        if not nodes and not edges:
            raise InvalidInput("give nodes and/or edges: lists of what store_node and store_edge take")
        if len(nodes) + len(edges) > MAX_BATCH:
            raise InvalidInput(f"{len(nodes) + len(edges):,} items; one call stores at most {MAX_BATCH:,}")
        errors: list[str] = []
        done: dict[str, list[dict[str, Any]]] = {"nodes": [], "edges": []}
        with self.store.transaction():
            batch = self._batch()
            written: list[MemoryNode] = []
            edge_writer = functools.partial(self._put_edge, batch=batch, typed=typed)
            node_writer = functools.partial(self._put_node, batch=[batch], written=written)
            for what, items, store in (("nodes", nodes, node_writer), ("edges", edges, edge_writer)):
                fields = NODE_FIELDS if what == "nodes" else EDGE_FIELDS
                for i, item in enumerate(items):
                    unknown = [key for key in item if key not in fields]
                    if unknown:  # (a misspelt field would silently take its default)
                        errors.append(f"{what}[{i}]: no field {unknown[0]!r}; an item takes {', '.join(fields)}")
                        continue
                    try:
                        answer = store(item)
                    except InvalidInput as exc:
                        errors.append(f"{what}[{i}]: {exc}")
                        continue
                    record = answer["node" if what == "nodes" else "edge"]
                    done[what].append({"status": answer["status"], "id": record["id"]})
            if errors:  # (raising rolls the whole transaction back)
                shown = "; ".join(errors[:MAX_ERRORS])
                more = f"; and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
                raise InvalidInput(f"nothing was stored: {len(errors)} of the items are wrong: {shown}{more}")
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
            self._embed(written)
        return {"status": "stored", **done, "topology": effect(change.before, change.after)}

    def append_observation(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Add ``observation`` to the end of node ``id``'s content (a new line between), as
        an agent adds what it learned to a fact it already holds."""
        node_id = check_id(args.get("id"))
        observation = check_text(args.get("observation"), "observation", MAX_CONTENT, empty_ok=False)
        if not observation.strip():
            raise InvalidInput("observation must hold some text")
        with self.store.transaction():
            old = self.store.get_node(node_id)
            if old is None:
                raise NotFound(f"no node with id {node_id!r}")
            content = f"{old.content}\n{observation}"
            if len(content) > MAX_CONTENT:
                raise InvalidInput(
                    f"the content would be {len(content):,} characters; a node holds at most {MAX_CONTENT:,}: "
                    "store the observation as a node of its own and connect it"
                )
            self.store_node({"id": node_id, "content": content})
        return {"status": "appended", "id": node_id, "length": len(content)}

    def delete_many(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Delete nodes (with every edge touching them) and edges, all or none: an id that
        names nothing is an error naming it, and nothing is deleted."""
        node_ids = _id_list(args["node_ids"], "node_ids") if args.get("node_ids") is not None else []
        edge_ids = _id_list(args["edge_ids"], "edge_ids") if args.get("edge_ids") is not None else []
        if not node_ids and not edge_ids:
            raise InvalidInput("give node_ids and/or edge_ids")
        with self.store.transaction():
            _unknown(node_ids, self.store.get_nodes(node_ids))
            found_edges = self.store.get_edges(edge_ids)
            missing = [e for e in edge_ids if e not in found_edges]
            if missing:
                raise NotFound(f"no edge with id {', '.join(repr(e) for e in missing[:10])}; nothing was deleted")
            batch = self._batch()
            ends = {n for e in found_edges.values() for n in (e.source_id, e.target_id)}
            self.loops.extend(batch.watch, ends | set(node_ids))
            for edge_id in edge_ids:
                self.store.delete_edge(edge_id)
            also = sum(len(self.store.delete_node(node_id)) for node_id in node_ids)
            self.loops.settle(batch.watch, removed=True)
        return {"status": "deleted", "nodes": len(node_ids), "edges": len(edge_ids), "edges_with_the_nodes": also}

    def delete_node(self, node_id: Any) -> dict[str, Any]:
        """Delete a node and its edges; ``topology``: what that did to the node's loop."""
        node_id = check_id(node_id)
        with self.store.transaction():
            if self.store.get_node(node_id) is None:
                raise NotFound(f"no node with id {node_id!r}")
            batch = self._batch()
            self.loops.extend(batch.watch, {node_id})
            edges = self.store.delete_node(node_id)
            change = self.loops.settle(batch.watch, removed=True)
        return {
            "status": "deleted",
            "id": node_id,
            "deleted_edges": edges,
            "topology": effect(change.before, change.after),
        }

    def delete_edge(self, edge_id: Any) -> dict[str, Any]:
        """Delete an edge; ``topology``: what that did to the loops around its ends."""
        edge_id = check_id(edge_id)
        with self.store.transaction():
            edge = self.store.get_edge(edge_id)
            if edge is None:
                raise NotFound(f"no edge with id {edge_id!r}")
            batch = self._batch()
            self.loops.extend(batch.watch, {edge.source_id, edge.target_id})
            self.store.delete_edge(edge_id)
            change = self.loops.settle(batch.watch, removed=edge.directed)
        return {"status": "deleted", "id": edge_id, "topology": effect(change.before, change.after)}

    # ------------------------------------------------------------ reading
    def query_graph(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Nodes by ids, by type and/or source, or by text (BM25), with the edges among them."""
        limit = _int(args, "limit", 50, 1, MAX_PAGE)
        offset = _int(args, "offset", 0, 0, 10**9)
        budget = _budget(args)
        include_edges = args.get("include_edges", True)
        if not isinstance(include_edges, bool):
            raise InvalidInput("include_edges must be true or false")
        node_type = args.get("node_type")
        if node_type is not None and node_type not in NODE_TYPES:
            raise InvalidInput(f"node_type must be one of {', '.join(NODE_TYPES)}")
        source = args.get("source")
        if source is not None:
            source = check_text(source, "source", MAX_SOURCE)
        with self.store.reading():
            if args.get("node_ids") is not None:
                ids = _id_list(args["node_ids"])
                found = self.store.get_nodes(ids)
                _unknown(ids, found)
                nodes = [found[i] for i in sorted(found)]
                nodes = [n for n in nodes if _matches(n, node_type, source)][offset : offset + limit]
            elif args.get("text") is not None:
                nodes = self._search_filtered(_query(args["text"], "text"), node_type, source, offset + limit)
                nodes = nodes[offset : offset + limit]
            else:
                nodes = self.store.list_nodes(node_type=node_type, source=source, limit=limit, offset=offset)
            edges = self.store.list_edges_between([n.id for n in nodes]) if include_edges else []
            total_nodes, total_edges = self.store.counts()
        return {
            "count": len(nodes),
            "nodes": budget.nodes([n.to_dict() for n in nodes]),
            "edges": budget.edges([e.to_dict() for e in edges[:MAX_PAGE]]),
            "edges_total": len(edges),
            "store": {"nodes": total_nodes, "edges": total_edges},
            "truncated": budget.cut,
        }

    def list_edges(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Every edge a page at a time (sorted by id), or those touching ``node_ids``, of
        ``edge_type``; ``next_offset`` is where the next page starts (None: the last). O(E)."""
        limit = _int(args, "limit", 100, 1, MAX_PAGE)
        offset = _int(args, "offset", 0, 0, 10**9)
        budget = _budget(args)
        edge_type = args.get("edge_type")
        if edge_type is not None and edge_type not in EDGE_TYPES:
            raise InvalidInput(f"edge_type must be one of {', '.join(EDGE_TYPES)}")
        with self.store.reading():
            if args.get("node_ids") is not None:
                ids = _id_list(args["node_ids"])
                _unknown(ids, self.store.get_nodes(ids))
                edges = self.store.edges_touching(ids)
            else:
                edges = self.store.all_edges()
        if edge_type is not None:
            edges = [e for e in edges if e.edge_type == edge_type]
        page = edges[offset : offset + limit]
        following = offset + limit if offset + limit < len(edges) else None
        records = budget.edges([e.to_dict() for e in page])
        return {
            "count": len(page),
            "total": len(edges),
            "next_offset": following,
            "edges": records,
            "truncated": budget.cut,
        }

    def _search_filtered(self, text: str, node_type: str | None, source: str | None, wanted: int) -> list[MemoryNode]:
        """The ``wanted`` best lexical matches passing the filters (a larger pool as needed)."""
        pool = wanted
        while True:
            hits = self.store.search(text, pool)
            found = self.store.get_nodes(i for i, _ in hits)
            nodes = [found[i] for i, _ in hits if _matches(found[i], node_type, source)]
            if len(nodes) >= wanted or len(hits) < pool or pool >= MAX_POOL:
                return nodes
            pool = min(pool * 4, MAX_POOL)

    def retrieve_context(
        self,
        args: Mapping[str, Any],
        trigger: str = "retrieve_context",
        record: bool = True,
        loop_limit: int | None = None,
        gather: bool = False,
    ) -> dict[str, Any]:
        """The retrieval answer (``retrieval``); ``loop_limit``: a caller's own bound on the
        loop members brought in (analyze_topology's), above what a client may ask; ``gather``:
        a node set for a caller (the matches, their neighbours and every loop they touch)."""
        query = _query(args.get("query"))
        as_of = moment(args["as_of"], "as_of") if args.get("as_of") is not None else None
        limit = _int(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        top_k = _int(args, "top_k", limit, 1, MAX_LIMIT)
        hops = _int(args, "expand_hops", 1, 0, MAX_HOPS)
        if loop_limit is None:
            loop_limit = _int(args, "loop_limit", LOOP_LIMIT, 0, MAX_LIMIT)
        expand_limit = _int(args, "expand_limit", limit, 0, MAX_LIMIT)
        node_types = _node_types(args.get("node_types"))
        detail = args.get("detail", "compact")
        if detail not in DETAILS:
            shown = repr(detail)[:40] if isinstance(detail, str) else _kind(detail)
            raise InvalidInput(f"detail must be one of {', '.join(DETAILS)}, got {shown}")
        budget = _budget(args)
        current = self._current_loops()
        response = retrieve_context(
            self.store,
            query,
            telemetry=self.telemetry,
            now=self.clock,
            limit=limit,
            top_k=top_k,
            expand_hops=hops,
            node_types=node_types,
            semantic=self.semantic,
            trigger=trigger,
            record=record,
            exact_limit=self.exact_limit,
            loop_limit=loop_limit,
            expand_limit=expand_limit,
            as_of=as_of,
            index_current=current,
            gather=gather,
            detail=detail,
        )
        response["results"] = budget.nodes(response["results"])
        if budget.cut:
            response["truncated"] = budget.cut
        return response

    def _current_loops(self) -> bool:
        """Before a reading that uses the loop index: make it current if the store was written
        round the memory or a validity bound has passed; returns whether it is current (a
        read-only store's cannot be made so: its loops are then searched for)."""
        if self.loops.current():
            return True
        if self.store.read_only:
            return False
        with self.store.transaction():
            self.loops.ready()
        return True

    def analyze_topology(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The canonical topology of ``node_ids``, of what ``query`` retrieves, or of the whole
        graph, plus the ``recommendation`` sentence: of the facts valid now, or ``as_of`` a
        past time of those the memory held then (valid then and recorded by then; the whole
        graph then has the nodes held then)."""
        has_ids, has_query = args.get("node_ids") is not None, args.get("query") is not None
        if has_ids and has_query:
            raise InvalidInput("give node_ids or query, not both")
        as_of = moment(args["as_of"], "as_of") if args.get("as_of") is not None else None
        cut: list[dict[str, Any]] = []
        if has_query:  # retrieval that only looks: no access counted
            asked = {"query": args["query"], "limit": args.get("limit", DEFAULT_LIMIT)}
            if as_of is not None:
                asked["as_of"] = as_of
            response = self.retrieve_context(
                asked, trigger="analyze_topology", record=False, loop_limit=ANALYZE_LOOP_LIMIT, gather=True
            )  # (the loops it touches analysed whole, up to the size κ is exact for)
            topology = response["topology"]
            cut = [
                {
                    "loop": loop["id"],
                    "node_count": loop["node_count"],
                    "kappa": loop["kappa"],
                    "approximate": loop["approximate"],
                    "returned": sorted(r["id"] for r in response["results"] if r.get("loop") == loop["id"]),
                }
                for loop in response["loops"]
                if loop.get("whole") is False
            ]
        elif args.get("limit") is not None:
            raise InvalidInput("limit goes with query (how many nodes it retrieves)")
        else:
            when = as_of if as_of is not None else self.clock()
            with self.store.reading():
                if has_ids:
                    ids = _id_list(args["node_ids"])
                    found = self.store.get_nodes(ids)
                    _unknown(ids, found)
                    ids = [i for i in ids if _held(found[i], when, as_of is not None)]  # (as the whole graph)
                    edges = self.store.list_edges_between(ids)
                else:
                    found = self.store.get_nodes(self.store.node_ids())
                    ids = sorted(i for i, n in found.items() if _held(n, when, as_of is not None))
                    edges = self.store.all_edges()
            ends = {i: found[i] for i in ids}
            edges = [
                e
                for e in edges
                if e.source_id in ends
                and e.target_id in ends
                and all(_held(r, when, as_of is not None) for r in (e, ends[e.source_id], ends[e.target_id]))
            ]
            topology = analyze_nodes(
                ids, edges, telemetry=self.telemetry, trigger="analyze_topology", exact_limit=self.exact_limit
            )
        members = [n for scc in topology["sccs"] for n in scc["nodes"]]
        names = loop_names(topology, self.store.get_nodes(members)) if members else {}
        answer = {**topology, "recommendation": recommendation(topology, names)}
        if has_query:
            answer["loops_cut"] = cut
            if cut:
                largest = max(cut, key=lambda loop: (loop["kappa"], loop["node_count"]))
                said = (
                    f"Deliberate: the retrieved nodes are part of a feedback loop of {largest['node_count']:,} nodes "
                    f"(κ = {largest['kappa']}), too large to analyse here whole (loops_cut); the topology is of the "
                    "retrieved nodes alone"
                )
                answer["recommendation"] = (
                    f"{said}, which form no loop by themselves." if not topology["sccs"]
                    else f"{said}. {answer['recommendation']}"
                )  # fmt: skip
        return answer

    def get_metrics(self) -> dict[str, Any]:
        """This process's topology telemetry, the outcomes kept in the store (every process's,
        across restarts: ``learning.outcome_metrics``) and the store's size."""
        with self.store.reading():
            nodes, edges = self.store.counts()
            groups = self.store.outcome_groups()
        return {
            **self.metrics.snapshot(),
            "outcomes": outcome_metrics(groups),
            "store": {"kind": self.store.kind, "location": self.store.location, "nodes": nodes, "edges": edges},
        }

    def consolidate(self, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Decay, merge duplicates, prune — never changing a loop (``consolidation``)."""
        return consolidate(self, args or {})

    # ------------------------------------------------------------ learning
    def learn_from_outcome(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """What happened after the agent answered: the confidence of the nodes it used and the
        weights of the causal and temporal edges among them move toward the outcome
        (``learning``), and the outcome is kept for ``get_metrics``. The nodes are ``node_ids``
        or those ``retrieval_id`` returned; the router's decision, κ and budget are the
        retrieval's (or, for node_ids alone, those of the nodes' own topology). One
        transaction: bad ids or values are an error and nothing is written."""
        outcome = args.get("outcome")
        if outcome not in OUTCOMES:
            shown = repr(outcome)[:40] if isinstance(outcome, str) else _kind(outcome)
            raise InvalidInput(f"outcome must be one of {', '.join(OUTCOMES)}, got {shown}")
        retrieval_id = None
        if args.get("retrieval_id") is not None:
            retrieval_id = check_id(args["retrieval_id"], "retrieval_id")
            if not retrieval_id.startswith("retrieval-"):
                raise InvalidInput(f"retrieval_id must be an id retrieve_context answered with (retrieval-…), "
                                   f"got {retrieval_id!r:.60}")  # fmt: skip
        used = _id_list(args["node_ids"]) if args.get("node_ids") is not None else None
        if used is not None and len(used) > MAX_PAGE:
            raise InvalidInput(f"node_ids has {len(used):,} ids; one outcome names at most {MAX_PAGE:,}")
        if retrieval_id is None and not used:
            raise InvalidInput(
                "give retrieval_id (the id retrieve_context answered with) and/or node_ids (the nodes the answer used)"
            )
        routing = args.get("routing")
        if routing is not None and routing not in ROUTES:
            shown = repr(routing)[:40] if isinstance(routing, str) else _kind(routing)
            raise InvalidInput(f"routing must be one of {', '.join(ROUTES)}, got {shown}")
        deliberated = args.get("deliberated")
        if deliberated is not None and not isinstance(deliberated, bool):
            raise InvalidInput("deliberated must be true or false")
        if routing == "fast" and deliberated:
            raise InvalidInput("routing 'fast' is one pass without deliberation: it cannot have deliberated")
        if routing == "deliberate" and deliberated is False:
            raise InvalidInput("routing 'deliberate' deliberates: deliberated cannot be false")
        iterations = _int(args, "iterations", 0, 0, MAX_ITERATIONS) if args.get("iterations") is not None else None
        with self.store.transaction():
            retrieval = None
            if retrieval_id is not None:
                retrieval = self.store.get_retrievals([retrieval_id]).get(retrieval_id)
                if retrieval is None:
                    raise NotFound(
                        f"no retrieval {retrieval_id!r} is kept (an id from another store, or a retrieval forgotten by "
                        "consolidate); name the nodes the answer used with node_ids"
                    )
            ids = list(used) if used is not None else list(retrieval.node_ids) if retrieval is not None else []
            found = self.store.get_nodes(ids)
            gone: list[str] = []
            if used is not None:
                _unknown(ids, found)
            else:  # (a retrieval's nodes may have gone since: deleted, pruned or merged away)
                gone = [i for i in ids if i not in found]
                ids = [i for i in ids if i in found]
            now = self.clock()
            edges = [e for e in self.store.list_edges_between(ids) if _holds(e, found, now)]
            if retrieval is not None:
                decision, max_kappa, budget = retrieval.routing, retrieval.max_kappa, retrieval.max_iterations
            else:
                topology = analyze_digraph(
                    build_digraph(ids, [{"source": e.source_id, "target": e.target_id} for e in edges]),
                    exact_limit=self.exact_limit,
                )
                decision, max_kappa = topology["routing"], topology["max_kappa"]
                budget = max((s["deliberation_budget"]["max_iterations"] for s in topology["sccs"]), default=0)
            if routing is not None:
                taken = routing
            elif deliberated is not None:
                taken = "deliberate" if deliberated else "fast"
            else:
                taken = decision
            record = OutcomeRecord(
                0,
                self.clock(),
                retrieval_id,
                outcome,
                decision,
                taken,
                deliberated if deliberated is not None else taken == "deliberate",
                iterations,
                max_kappa,
                budget,
                len(ids),
            )
            confidences = {i: learned(found[i].confidence, outcome) for i in sorted(found)}
            weights = {e.id: learned_weight(e.weight, outcome) for e in edges}
            self.store.set_confidences({i: v for i, v in confidences.items() if v != found[i].confidence})
            self.store.set_weights({e.id: weights[e.id] for e in edges if weights[e.id] != e.weight})
            number = self.store.add_outcome(record)
        return {
            "status": "learned",
            "outcome_id": f"outcome-{number}",
            "outcome": outcome,
            "retrieval_id": retrieval_id,
            "decision": decision,
            "routing": taken,
            "deliberated": record.deliberated,
            "iterations": iterations,
            "max_kappa": max_kappa,
            "max_iterations": budget,
            "rule": {"target": TARGETS[outcome], "rate": RATE},
            "gone": gone,
            "nodes": [
                {"id": i, "confidence_before": found[i].confidence, "confidence_after": confidences[i]}
                for i in sorted(found)
            ],
            "edges": [
                {
                    "id": e.id,
                    "source_id": e.source_id,
                    "target_id": e.target_id,
                    "edge_type": e.edge_type,
                    "weight_before": e.weight,
                    "weight_after": weights[e.id],
                }
                for e in edges
            ],
        }

    # ------------------------------------------------------------ the editor
    def export_document(self, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The memory (or ``node_ids``, or what ``query`` retrieves) as a Bendscope document."""
        args = args or {}
        if args.get("node_ids") is not None and args.get("query") is not None:
            raise InvalidInput("give node_ids or query, not both")
        query = None
        if args.get("query") is not None:
            query = self.retrieve_context(
                {"query": args["query"], "limit": args.get("limit", MAX_LIMIT)}, record=False, gather=True
            )
        with self.store.reading():
            if args.get("node_ids") is not None:
                ids = _id_list(args["node_ids"])
                found = self.store.get_nodes(ids)
                _unknown(ids, found)
                nodes = list(found.values())
            elif query is not None:
                nodes = list(self.store.get_nodes(r["id"] for r in query["results"]).values())
            else:
                nodes = list(self.store.get_nodes(self.store.node_ids()).values())
            edges = self.store.list_edges_between([n.id for n in nodes])
        return to_document(nodes, edges)

    def import_document(self, text: str | bytes, *, replace: bool = False) -> dict[str, Any]:
        """Store every node and edge of a Bendscope document (upsert by id), all or nothing.
        With ``replace`` the store becomes the document: what it does not hold is deleted
        (so deletions made in the editor come back too)."""
        with self.store.transaction():
            now = self.clock()
            existing = self.store.get_nodes(self.store.node_ids())
            nodes, edges = from_document(text, now=now, existing=existing)
            return self._put_all(nodes, edges, existing, replace)

    def import_dump(self, lines: Iterable[bytes], *, replace: bool = False) -> dict[str, Any]:
        """Store every node and edge of a dump (``memory.dump``: any size, every field kept),
        all or nothing, as ``import_document`` does. O(size)."""
        nodes, edges = read_dump(lines, self.clock())
        with self.store.transaction():
            existing = self.store.get_nodes(self.store.node_ids())
            known = {n.id for n in nodes} | (set() if replace else set(existing))
            loose = [e.id for e in edges if e.source_id not in known or e.target_id not in known]
            if loose:
                raise InvalidInput(f"edge {loose[0]!r} joins a node the dump and the store lack; nothing was stored")
            return self._put_all(nodes, edges, existing, replace)

    def dump_lines(self) -> Iterator[str]:
        """The whole memory as a dump's lines (``memory.dump``), read in one snapshot."""
        with self.store.reading():
            nodes = self.store.get_nodes(self.store.node_ids())
            edges = self.store.all_edges()
        return dump_lines([nodes[i] for i in sorted(nodes)], edges)

    def _put_all(
        self, nodes: list[MemoryNode], edges: list[MemoryEdge], existing: dict[str, MemoryNode], replace: bool
    ) -> dict[str, Any]:
        """Upsert ``nodes`` and ``edges`` (in the open transaction); ``replace``: delete the rest."""
        created = updated = 0
        for node in nodes:
            old = existing.get(node.id)
            if old is None:
                created += 1
            elif not _same_node(old, node):
                updated += 1
            else:
                continue
            self.store.put_node(node)
        deleted_nodes = deleted_edges = 0
        if replace:
            keep_edges = {e.id for e in edges}
            for old_edge in self.store.all_edges():
                if old_edge.id not in keep_edges:
                    deleted_edges += self.store.delete_edge(old_edge.id)
            keep_nodes = {n.id for n in nodes}
            for node_id in existing:
                if node_id not in keep_nodes:
                    self.store.delete_node(node_id)
                    deleted_nodes += 1
        edges_created = 0
        for edge in edges:
            if self.store.get_edge(edge.id) is None:
                edges_created += 1
            self.store.put_edge(edge)
        self.loops.rebuild()
        self._embed([n for n in nodes if n.id not in existing or existing[n.id].content != n.content])
        return {
            "status": "imported",
            "nodes": len(nodes),
            "edges": len(edges),
            "nodes_created": created,
            "nodes_updated": updated,
            "edges_created": edges_created,
            "nodes_deleted": deleted_nodes,
            "edges_deleted": deleted_edges,
        }


def _held(record: MemoryNode | MemoryEdge, when: str, past: bool) -> bool:
    """Whether a node or an edge is in the graph at ``when``: valid then, and for a reading
    of the ``past`` also recorded by then."""
    return record.held_at(when) if past else record.valid_at(when)


def _holds(edge: MemoryEdge, ends: Mapping[str, MemoryNode], now: str) -> bool:
    """Whether an edge is an arc of the current graph: causal or temporal, not a self-loop,
    valid ``now``, and both its ends valid ``now``."""
    source, target = ends.get(edge.source_id), ends.get(edge.target_id)
    return (
        edge.directed
        and edge.source_id != edge.target_id
        and edge.valid_at(now)
        and source is not None
        and target is not None
        and source.valid_at(now)
        and target.valid_at(now)
    )


def _matches(node: MemoryNode, node_type: str | None, source: str | None) -> bool:
    return (node_type is None or node.node_type == node_type) and (source is None or node.source == source)


def _same_node(old: MemoryNode, new: MemoryNode) -> bool:
    """Equal apart from ``updated_at`` (a store of the same facts changes nothing)."""
    return old.to_dict() | {"updated_at": ""} == new.to_dict() | {"updated_at": ""}
