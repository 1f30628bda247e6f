"""Writes: nodes, edges, many at once, observations, ends of validity and deletions — each one
transaction, the loop index settled inside it."""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...store.scoped import check_namespace, namespace_of
from ..conversations.turns import conversation_items, speaker_of
from ..embedders import pack
from ..errors import Conflict, InvalidInput, NotFound
from ..names import DERIVED_ID, check_key, key_id, normal_name, scoped_content_id
from ..records import (
    DEFAULT_CONFIDENCE,
    DEFAULT_EDGE_TYPE,
    DEFAULT_NODE_TYPE,
    EDGE_FIELDS,
    MAX_CONTENT,
    NODE_FIELDS,
    MemoryEdge,
    MemoryNode,
    check_id,
    edge_id_for,
    legacy_id_of,
    new_edge,
    new_node,
    preview,
    same_fact,
)
from ..requests import (
    MAX_BATCH,
    AppendObservation,
    DeleteEdge,
    DeleteMany,
    DeleteNode,
    InvalidateEdge,
    InvalidateNode,
    StoreEdge,
    StoreMany,
    StoreNode,
)
from ..write_effect import effect
from .state import EMBED_BATCH, MAX_ERRORS, TYPE_REQUIRED, MemoryState, _Batch, _holds, _unknown

logger = logging.getLogger(__name__)

#: stored nodes looked at for one that reads the same as a new one (``_same_name``)
SAME_NAME_POOL = 5
#: the fields a store_many item may give beyond the record's own
NODE_KEYS = ("key",)
EDGE_KEYS = ("source_key", "target_key")


def _same_node(old: MemoryNode, new: MemoryNode) -> bool:
    """Equal apart from when they were recorded (a store of the same facts changes nothing)."""
    return same_fact(old, new)


class Writing(MemoryState):
    """Writes."""

    def store_node(self, request: StoreNode | Mapping[str, Any]) -> dict[str, Any]:
        """Create a node, or update the node with the given ``id`` (fields not given stay).
        Returns ``{"status": "created" | "updated" | "unchanged", "node": {...}}``."""
        with self.store.transaction():
            batch: list[_Batch] = []
            written: list[MemoryNode] = []
            given = request.given() if isinstance(request, StoreNode) else request
            self._chosen_id(given)
            answer = self._put_node(given, batch, written)
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
        args, keyed = self._keyed(args)
        old = self.store.get_node(check_id(args["id"])) if args.get("id") is not None else None
        if old is None and args.get("id") is not None:
            forward = self.store.forwards([args["id"]]).get(args["id"])
            if forward is not None:  # (the id goes on naming the node it became: it never names another)
                raise InvalidInput(
                    f"{args['id']!r} was merged into {forward[0]!r} by consolidate at {forward[1]}: write to "
                    f"{forward[0]!r}, or give a new fact an id of its own"
                )
        merged = dict(args)
        if old is not None and merged.get("content") is None:
            merged["content"] = old.content
        if keyed is not None and merged.get("content") is None:
            merged["content"] = keyed  # (an entity named by its key alone)
        if keyed is not None:  # (the key as first given stays)
            given = merged.get("metadata")
            base = given if isinstance(given, dict) else old.metadata if old is not None else {}
            merged["metadata"] = {**base, "key": old.metadata.get("key", keyed) if old is not None else keyed}
        if self.namespace is not None:
            given = merged.get("metadata")
            base = given if isinstance(given, dict) else old.metadata if old is not None else {}
            merged["metadata"] = {"namespace": self.namespace, **base}
        elif isinstance(merged.get("metadata"), dict):
            merged["metadata"] = _kept_namespace(merged["metadata"], old)
        node = new_node(merged, now=self.clock(), existing=old)
        into = {"merged_into": node.id} if old is not None and keyed is not None else {}
        if args.get("id") is None:  # the id derives from the content: that node, or none
            if self.namespace is not None:
                node = dataclasses.replace(node, id=scoped_content_id(self.namespace, node.content))
            old = self._derived_node(node)
            if old is not None:
                # (the same fact with observations appended since keeps them)
                node = new_node({**merged, "id": old.id, "content": old.content}, now=self.clock(), existing=old)
                into = {"merged_into": old.id}  # (an exact duplicate)
            else:
                same = self._same_name(node)
                if same is not None:
                    return {"status": "unchanged", "node": same.to_dict(), "merged_into": same.id}
        if old is not None and _same_node(old, node):
            return {"status": "unchanged", "node": old.to_dict(), **into}
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
        return {"status": "created" if old is None else "updated", "node": node.to_dict(), **into}

    def _chosen_id(self, args: Mapping[str, Any]) -> None:
        """Refuse, in a namespace, an id of a form the memory derives (``key-…``, ``node-…``,
        ``turn-…``) that no node of the namespace holds: the same refusal whether or not a node
        of another namespace holds it, so such ids tell nothing of other namespaces."""
        node_id = args.get("id")
        if self.namespace is None or not isinstance(node_id, str) or not DERIVED_ID.fullmatch(node_id):
            return
        if not self.store.get_nodes([node_id]):
            raise InvalidInput(
                f"{node_id!r} has the form of an id the memory derives (from a key, a content or a turn): in a "
                "namespace it names only a node the namespace holds; name a new node by key (or give no id)"
            )

    def _keyed(self, args: Mapping[str, Any]) -> tuple[Mapping[str, Any], str | None]:
        """A node's arguments with its ``key`` (if it has one) made its id (``names.key_id``),
        and the key."""
        if args.get("key") is None:
            return args, None
        if args.get("id") is not None:
            raise InvalidInput("give a node an id or a key, not both (the key derives its id)")
        key = check_key(args["key"])
        rest = {k: v for k, v in args.items() if k != "key"}
        return {**rest, "id": key_id(self.namespace, key)}, key

    def _same_name(self, node: MemoryNode) -> MemoryNode | None:
        """A stored node of the same type whose content reads the same as ``node``'s once
        case, accents and punctuation are set aside (``names.normal_name``), or None."""
        wanted = normal_name(node.content)
        if not wanted:
            return None
        hits = self.store.search(node.content, SAME_NAME_POOL)
        found = self.store.get_nodes(i for i, _ in hits)
        for node_id, _ in hits:
            other = found.get(node_id)
            if other is not None and other.node_type == node.node_type and normal_name(other.content) == wanted:
                return other
        return None

    def _end_ids(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """An edge's arguments with ends named by key (``source_key``, ``target_key``) named by id."""
        given = dict(args)
        for end in ("source", "target"):
            key = given.pop(f"{end}_key", None)
            if key is None:
                continue
            if given.get(f"{end}_id") is not None:
                raise InvalidInput(f"give {end}_id or {end}_key, not both")
            node_id = key_id(self.namespace, check_key(key, f"{end}_key"))
            if not self.store.get_nodes([node_id]):
                raise NotFound(f"no node with key {key!r}: store it with that key first (in this call or before)")
            given[f"{end}_id"] = node_id
        return given

    def _holding(self, node_ids: Iterable[str], now: str) -> list[tuple[str, str]]:
        """The causal and temporal arcs touching the nodes that hold ``now``."""
        ids = list(node_ids)
        return self.store.arcs_from(ids, True, now) + self.store.arcs_from(ids, False, now)

    def store_edge(self, request: StoreEdge | Mapping[str, Any]) -> dict[str, Any]:
        """Create an edge between existing nodes, or update the edge with the given ``id``;
        ``typed``: a new edge must say its ``edge_type`` (the MCP tools: an agent's "A causes B"
        must not become an association that never forms a loop).
        The answer's ``topology`` is what the write did to the loops around its ends (see
        ``write_effect``), from the loop index the write brings up to date; an edge of a type
        declared acyclic that would close a cycle of such edges is refused (Conflict),
        naming the cycle. O(the loops of its ends, or a search: see ``loop_index``)."""
        with self.store.transaction():
            batch = self._batch()
            typed = isinstance(request, StoreEdge)
            answer = self._put_edge(request.given() if isinstance(request, StoreEdge) else request, batch, typed)
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
        return {**answer, "topology": effect(change.before, change.after)}

    def _put_edge(self, args: Mapping[str, Any], batch: _Batch, typed: bool = False) -> dict[str, Any]:
        """store_edge's write, in the open transaction; the loops it may change are watched
        and the arcs it adds or removes (those that hold now: the edge valid and both its
        ends) noted in ``batch`` (settled by the caller). ``typed``: see ``store_edge``."""
        args = self._end_ids(args)
        named = [check_id(args.get("source_id"), "source_id"), check_id(args.get("target_id"), "target_id")]
        ends = self.store.get_nodes(named)
        merged = self._forward(self.store, named, ends)  # (linking a merged-away id links the node it became)
        if merged:
            args = {**args, "source_id": merged.get(named[0], named[0]), "target_id": merged.get(named[1], named[1])}
        edge = new_edge(args, now=self.clock())
        if typed and args.get("edge_type") is None and (args.get("id") is None or self.store.get_edge(edge.id) is None):
            raise InvalidInput(TYPE_REQUIRED)
        _unknown([edge.source_id, edge.target_id], ends)
        if self.namespace is None:
            _one_namespace(edge, {**ends, **self.store.get_nodes({edge.source_id, edge.target_id} - ends.keys())})
        old = self.store.get_edge(edge.id) if args.get("id") is not None else self._derived_edge(edge)
        touched = {edge.source_id, edge.target_id} | ({old.source_id, old.target_id} if old else set())
        self.loops.extend(batch.watch, touched)
        if old is not None:  # update that edge: its id stays, even one derived from another type
            edge = new_edge({**args, "id": old.id}, now=self.clock(), existing=old)
            if same_fact(old, edge):
                answer = {"status": "unchanged", "edge": old.to_dict(), **({"merged_into": merged} if merged else {})}
                if old.valid_until is not None and old.valid_until <= self.clock():  # (an agent re-asserting it)
                    answer["note"] = f"the edge ended at {old.valid_until}: give valid_until null to make it hold again"
                return answer
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
        answer = {"status": "created" if old is None else "updated", "edge": edge.to_dict()}
        return {**answer, "merged_into": merged} if merged else answer

    def invalidate_edge(self, request: InvalidateEdge | Mapping[str, Any]) -> dict[str, Any]:
        """End an edge's validity at ``at`` (now by default) without deleting it: a new version
        of it, valid until ``at``, recorded now — the one it replaces is kept, so a reading
        ``known_at`` an earlier time still finds what the memory believed then (``as_of`` an
        earlier time than ``at``, the edge held); the current graph — retrieval, topology, the
        loop index — no longer holds it. ``topology``: what that did to the loops."""
        asked = InvalidateEdge.parse(request)
        edge_id = asked.id
        with self.store.transaction():
            batch = self._batch()
            at = asked.at if asked.at is not None else self.loops.now
            edge = self.store.get_edge(edge_id)
            if edge is None:
                raise NotFound(f"no edge with id {edge_id!r}")
            self.loops.extend(batch.watch, {edge.source_id, edge.target_id})
            if edge.valid_until is not None and edge.valid_until <= at:
                change = self.loops.settle(batch.watch)
                return {"status": "unchanged", "edge": edge.to_dict(), "topology": effect(change.before, change.after)}
            if edge.valid_from is not None and at <= edge.valid_from:
                raise InvalidInput(f"the edge is valid from {edge.valid_from}: it cannot end at {at}, before it began")
            ended = dataclasses.replace(edge, valid_until=at, recorded_at=self.clock())
            ends = self.store.get_nodes([edge.source_id, edge.target_id])
            batch.removed = _holds(edge, ends, self.loops.now) and not _holds(ended, ends, self.loops.now)
            self.store.put_edge(ended)
            self.loops.bounds([at])
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
        return {"status": "invalidated", "edge": ended.to_dict(), "topology": effect(change.before, change.after)}

    def invalidate_node(self, request: InvalidateNode | Mapping[str, Any]) -> dict[str, Any]:
        """End a node's validity at ``at`` (now by default) without deleting it (a new version,
        as ``invalidate_edge`` makes); its edges stop holding with it. ``topology``: what that
        did to the loops."""
        asked = InvalidateNode.parse(request)
        node_id = asked.id
        with self.store.transaction():
            node = self.store.get_node(node_id)
            if node is None:
                raise self._no_node(node_id)
            at = asked.at
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

    def store_many(self, request: StoreMany | Mapping[str, Any]) -> dict[str, Any]:
        """Many nodes, then many edges (which may join nodes of the same call), in one
        transaction: all of them or, when any item is wrong, none — the error then names
        every wrong item (``nodes[3]: …``; at most MAX_ERRORS). ``typed``: see ``store_edge``.
        O(items)."""
        typed = isinstance(request, StoreMany)  # (the MCP tools: a new edge must say its type)
        asked = StoreMany.parse(request)
        nodes, edges, turns = list(asked.nodes), list(asked.edges), list(asked.turns)
        if not nodes and not edges and not turns:
            raise InvalidInput("give nodes and/or edges: lists of what store_node and store_edge take (or the turns "
                               "of a conversation)")  # fmt: skip
        if len(nodes) + len(edges) + len(turns) > MAX_BATCH:
            raise InvalidInput(f"{len(nodes) + len(edges) + len(turns):,} items; one call stores at most {MAX_BATCH:,}")
        done: dict[str, list[dict[str, Any]]] = {"nodes": [], "edges": []}
        heard: dict[str, Any] = {"turns": {}, "entities": {}, "links": 0}
        with self.store.transaction():
            said = conversation_items(turns, self.namespace, self._earlier_turns() if turns else ())
            said_nodes, said_edges, errors = said.nodes, said.edges, said.errors
            for i, turn in enumerate(turns):  # (an id given to a turn, as a node's: ``_chosen_id``)
                try:
                    self._chosen_id(turn if isinstance(turn, Mapping) else {})
                except InvalidInput as exc:
                    errors.append(f"turns[{i}]: {exc}")
            clashes = self._turn_clashes(said_nodes, nodes, said.turns) if not errors else {}
            errors += list(clashes.values()) + _ids_twice(nodes)
            place = {turn_id: i for i, turn_id in enumerate(said.turns)}
            failed: set[str] = set(clashes)  # (turns not written: their edges' errors would only repeat it)
            batch = self._batch()
            if said.unlinked and not errors:  # (a turn said between two stored neighbours: before the new links)
                self._unlink(said.unlinked, batch)
            self._warm((*said_nodes, *nodes), (*said_edges, *edges))
            written: list[MemoryNode] = []
            edge_writer = functools.partial(self._put_edge, batch=batch, typed=typed)
            node_writer = functools.partial(self._put_node, batch=[batch], written=written)
            for what, items, store in (
                ("turn", said_nodes, node_writer),
                ("nodes", nodes, node_writer),
                ("turn", said_edges, edge_writer),
                ("edges", edges, edge_writer),
            ):
                fields = (*NODE_FIELDS, *NODE_KEYS) if store is node_writer else (*EDGE_FIELDS, *EDGE_KEYS)
                for i, item in enumerate(items):
                    unknown = [key for key in item if key not in fields]
                    if unknown:  # (a misspelt field would silently take its default)
                        errors.append(f"{what}[{i}]: no field {unknown[0]!r}; an item takes {', '.join(fields)}")
                        continue
                    if what == "turn" and failed & {item.get("source_id"), item.get("target_id")}:
                        continue
                    try:
                        if what == "nodes":
                            self._chosen_id(item)
                        answer = store(item)
                    except InvalidInput as exc:
                        if what != "turn":
                            errors.append(f"{what}[{i}]: {exc}")
                        elif store is node_writer and "key" not in item:
                            failed.add(item["id"])
                            at = place.get(item["id"])
                            errors.append(f"turns[{at}]: {exc}" if at is not None else f"turns: {exc}")
                        else:
                            errors.append(f"turns: {exc}")
                        continue
                    record = answer["node" if store is node_writer else "edge"]
                    item_answer = {"status": answer["status"], "id": record["id"]}
                    if isinstance(answer.get("merged_into"), str):
                        item_answer["merged_into"] = answer["merged_into"]
                    if what != "turn":
                        done[what].append(item_answer)
                    elif store is edge_writer:
                        heard["links"] += 1
                    elif "key" in item:
                        heard["entities"][item["key"]] = record["id"]
                    else:
                        heard["turns"][record["id"]] = item_answer
            if errors:  # (raising rolls the whole transaction back)
                shown = "; ".join(errors[:MAX_ERRORS])
                more = f"; and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
                raise InvalidInput(f"nothing was stored: {len(errors)} of the items are wrong: {shown}{more}")
            if said.stale or said.orphans:
                forgotten = self._forget_mentions(said.stale, said.orphans, batch)
                if forgotten:  # (an entity no turn names any more, which the conversation alone made)
                    heard["forgotten"] = forgotten
            change = self.loops.settle(batch.watch, batch.inserted, batch.removed)
            self._embed(written)
        heard["turns"] = [heard["turns"][i] for i in said.turns]
        merged = {short: heard["entities"][full] for short, full in said.aliases.items() if full in heard["entities"]}
        if merged:  # (a speaker written short is the speaker it stands for: one entity, as a key merged)
            heard["entities"].update(merged)
            heard["merged_into"] = merged
        conversation = heard if turns else {}
        return {"status": "stored", **done, **conversation, "topology": effect(change.before, change.after)}

    def _warm(self, nodes: Iterable[Any], edges: Iterable[Any]) -> None:
        """Read at once, in the open transaction, what the writes of these items will read one
        by one — the nodes named (by id or as an edge's end), where they were merged to, their
        loops — on a store that remembers its transaction's rows (``remembers``: PostgreSQL,
        where each read is a round trip). Reads only: nothing changes. O(items)."""
        if not getattr(self.store, "remembers", False):
            return

        def node_id(item: Mapping[str, Any], end: str = "") -> Any:
            key = item.get(f"{end}_key" if end else "key")
            if isinstance(key, str):
                try:
                    return key_id(self.namespace, check_key(key))
                except InvalidInput:  # (said by the write itself, in its place)
                    return None
            return item.get(f"{end}_id" if end else "id")

        named = [node_id(n) for n in nodes if isinstance(n, Mapping)]
        derived: list[str] = []
        for item in edges:
            if not isinstance(item, Mapping):
                continue
            ends = [node_id(item, "source"), node_id(item, "target")]
            named += ends
            if item.get("id") is None and all(isinstance(end, str) for end in ends):
                kind = item.get("edge_type", DEFAULT_EDGE_TYPE)
                if isinstance(kind, str):
                    derived.append(edge_id_for(ends[0], ends[1], kind))
        ids = list(dict.fromkeys(i for i in named if isinstance(i, str)))
        if ids:
            self.store.get_nodes(ids)
            self.store.forwards(ids)
            self.store.node_loops(ids)
        if derived:
            self.store.get_edges([*derived, *(legacy_id_of(i) for i in derived)])

    def _earlier_turns(self) -> list[MemoryNode]:
        """The turns of a conversation stored before: the namespace's (O(its nodes)), or
        without one the turns of no namespace (O(the store))."""
        nodes = self.store.get_nodes(self.store.node_ids()).values()
        return [n for n in nodes if "speaker" in n.metadata and (self.namespace or namespace_of(n) is None)]

    def _turn_clashes(self, said: list[dict[str, Any]], nodes: Sequence[Any], asked: Sequence[str]) -> dict[str, str]:
        """What is wrong with the ids a call's turns take (turn id → error): one a node item of
        the call takes too, one held by a stored node that is not a turn (a fact never becomes a
        turn), or, written without a namespace, a turn of a namespace's conversation."""
        place = {turn_id: i for i, turn_id in enumerate(asked)}

        def where(turn_id: str) -> str:
            return f"turns[{place[turn_id]}]" if turn_id in place else "turns"

        ids = [n["id"] for n in said if "key" not in n]
        items = {n.get("id") for n in nodes if isinstance(n, Mapping)}
        held = self.store.get_nodes(ids)
        errors: dict[str, str] = {}
        for i in ids:
            ns = namespace_of(held[i]) if i in held else None
            if i in items:
                errors[i] = f"{where(i)}: the id {i!r} is given to one of the call's nodes too"
            elif i in held and "speaker" not in held[i].metadata:
                errors[i] = (f"{where(i)}: the id {i!r} is held by a node that is not a turn of a conversation: "
                             "give the turn another id (or none)")  # fmt: skip
            elif ns is not None and self.namespace is None:
                errors[i] = (f"{where(i)}: turn {i!r} belongs to namespace {ns!r}; give namespace {ns!r} to write "
                             "to its conversation (or the turn another id)")  # fmt: skip
        return errors

    def _unlink(self, pairs: Iterable[tuple[str, str]], batch: _Batch) -> None:
        """Remove the temporal links between stored turns that are neighbours no more."""
        ends = set(pairs)
        for edge in self.store.edges_touching(sorted({source for source, _ in ends})):
            if edge.edge_type == "temporal" and (edge.source_id, edge.target_id) in ends:
                self.loops.extend(batch.watch, {edge.source_id, edge.target_id})
                self.store.delete_edge(edge.id)

    def _forget_mentions(
        self, stale: Iterable[tuple[str, str]], orphans: Iterable[str], batch: _Batch
    ) -> dict[str, str]:
        """Remove the mentions the conversation no longer holds (an earlier turn's name read
        anew: "Mel" once Melanie has spoken), and the entity nodes no turn names any more
        that a conversation made and nothing else wrote to (``_only_derived``) and that have
        no edge left. Returns the removed entities: key → id."""
        ends = {(turn_id, key_id(self.namespace, key)) for turn_id, key in stale}
        for edge in self.store.edges_touching(sorted({turn_id for turn_id, _ in ends})):
            if edge.edge_type == "related" and (edge.source_id, edge.target_id) in ends:
                self.loops.extend(batch.watch, {edge.source_id, edge.target_id})
                self.store.delete_edge(edge.id)
        return self._forget_entities(key_id(self.namespace, k) for k in orphans)

    def append_observation(self, request: AppendObservation | Mapping[str, Any]) -> dict[str, Any]:
        """Add ``observation`` to the end of node ``id``'s content (a new line between), as
        an agent adds what it learned to a fact it already holds."""
        asked = AppendObservation.parse(request)
        node_id, observation = asked.id, asked.observation
        with self.store.transaction():
            old = self.store.get_node(node_id)
            if old is None:
                raise self._no_node(node_id)
            content = f"{old.content}\n{observation}"
            if len(content) > MAX_CONTENT:
                raise InvalidInput(
                    f"the content would be {len(content):,} characters; a node holds at most {MAX_CONTENT:,}: "
                    "store the observation as a node of its own and connect it"
                )
            self.store_node({"id": node_id, "content": content})
        return {"status": "appended", "id": node_id, "length": len(content)}

    def _no_node(self, node_id: str) -> NotFound:
        """The error for a node that is not in the memory (saying so when it was merged away)."""
        forward = self.store.forwards([node_id]).get(node_id)
        if forward is not None:
            return NotFound(
                f"no node with id {node_id!r}: consolidate merged it into {forward[0]!r} at {forward[1]}; "
                "name that node"
            )
        return NotFound(f"no node with id {node_id!r}")

    def _erasable(self, node_ids: Sequence[str], edge_ids: Sequence[str]) -> tuple[set[str], set[str]]:
        """The ids among those given that have a current version, after checking that every
        other one has past versions at least (NotFound names the first that has none)."""
        nodes, edges = set(self.store.get_nodes(node_ids)), set(self.store.get_edges(edge_ids))
        past_nodes, past_edges = self.store.history(set(node_ids) - nodes, set(edge_ids) - edges)
        for node_id in node_ids:
            if node_id not in nodes and node_id not in past_nodes:
                raise self._no_node(node_id)
        missing = [e for e in edge_ids if e not in edges and e not in past_edges]
        if missing:
            raise NotFound(f"no edge with id {', '.join(repr(e) for e in missing[:10])}; nothing was deleted")
        return nodes, edges

    def delete_many(self, request: DeleteMany | Mapping[str, Any]) -> dict[str, Any]:
        """Erase nodes (with every edge touching them) and edges with every version of them,
        all or none: an id that names nothing is an error naming it, and nothing is erased."""
        asked = DeleteMany.parse(request)
        node_ids, edge_ids = asked.node_ids or [], asked.edge_ids or []
        with self.store.transaction():
            nodes, edges = self._erasable(node_ids, edge_ids)
            found_edges = self.store.get_edges(edges)
            batch = self._batch()
            ends = {n for e in found_edges.values() for n in (e.source_id, e.target_id)}
            self.loops.extend(batch.watch, ends | nodes)
            mentioned = set(self._mentioned_by(nodes)) - set(node_ids)
            for edge_id in edge_ids:
                self.store.delete_edge(edge_id)
            also = sum(len(self.store.delete_node(node_id)) for node_id in node_ids)
            forgotten = self._forget_entities(mentioned)
            self.loops.settle(batch.watch, removed=True)
        answer = {"status": "deleted", "nodes": len(node_ids), "edges": len(edge_ids), "edges_with_the_nodes": also}
        return {**answer, "forgotten": forgotten} if forgotten else answer

    def delete_node(self, request: DeleteNode | str) -> dict[str, Any]:
        """Erase a node, its edges and every version of them (a node with past versions only —
        ended by a merge or a prune — too); ``topology``: what that did to the node's loop."""
        node_id = (request if isinstance(request, DeleteNode) else DeleteNode.parse({"id": request})).id
        with self.store.transaction():
            nodes, _ = self._erasable([node_id], [])
            batch = self._batch()
            self.loops.extend(batch.watch, {node_id})
            mentioned = self._mentioned_by(nodes)
            edges = self.store.delete_node(node_id)
            forgotten = self._forget_entities(mentioned)
            change = self.loops.settle(batch.watch, removed=True)
        return {
            "status": "deleted",
            "id": node_id,
            "deleted_edges": edges,
            **({"forgotten": forgotten} if forgotten else {}),
            "topology": effect(change.before, change.after),
        }

    def _mentioned_by(self, node_ids: Iterable[str]) -> list[str]:
        """The entity nodes of the turns among ``node_ids``: those they mention (linked by
        ``related`` edges), and their speakers' who speak no other turn (O(the namespace's nodes))."""
        turns = {i: n for i, n in self.store.get_nodes(node_ids).items() if "speaker" in n.metadata}
        edges = self.store.edges_touching(sorted(turns))
        ends = {n for e in edges if e.edge_type == "related" for n in (e.source_id, e.target_id)} - set(turns)
        speakers = {(namespace_of(n), speaker_of(n.metadata)) for n in turns.values()}
        for ns in {ns for ns, _ in speakers}:
            ids = self.store.namespace_ids(ns) if ns is not None else self.store.node_ids()
            others = [n for i, n in self.store.get_nodes(ids).items() if i not in turns and "speaker" in n.metadata]
            spoken = {speaker_of(n.metadata) for n in others if namespace_of(n) == ns}
            ends |= {key_id(ns, key) for n, key in speakers if n == ns and key not in spoken}
        return sorted(ends)

    def _forget_entities(self, entity_ids: Iterable[str]) -> dict[str, str]:
        """Remove, among ``entity_ids``, the entity nodes a conversation alone made (``_only_derived``)
        that nothing links any more. Returns them: name → id."""
        removed: dict[str, str] = {}
        for entity_id, node in sorted(self.store.get_nodes(entity_ids).items()):
            if _only_derived(node) and not self.store.edges_touching([entity_id]):
                self.store.delete_node(entity_id)
                removed[node.content] = entity_id
        return removed

    def delete_edge(self, request: DeleteEdge | str) -> dict[str, Any]:
        """Erase an edge with every version of it; ``topology``: what that did to the loops
        around its ends."""
        edge_id = (request if isinstance(request, DeleteEdge) else DeleteEdge.parse({"id": request})).id
        with self.store.transaction():
            self._erasable([], [edge_id])
            edge = self.store.get_edge(edge_id)
            batch = self._batch()
            if edge is not None:
                self.loops.extend(batch.watch, {edge.source_id, edge.target_id})
            self.store.delete_edge(edge_id)
            change = self.loops.settle(batch.watch, removed=edge is not None and edge.directed)
        return {"status": "deleted", "id": edge_id, "topology": effect(change.before, change.after)}


def _ids_twice(nodes: Sequence[Any]) -> list[str]:
    """The errors of node items that take an id an earlier item of the call takes (two
    versions of one node in one call: almost always a wrong batch).

    >>> _ids_twice([{"id": "n1"}, {"id": "n2"}, {"id": "n1"}])
    ["nodes[2]: the id 'n1' is given to nodes[0] too"]
    """
    first: dict[str, int] = {}
    errors: list[str] = []
    for i, item in enumerate(nodes):
        node_id = item.get("id") if isinstance(item, Mapping) else None
        if not isinstance(node_id, str):
            continue
        if node_id in first:
            errors.append(f"nodes[{i}]: the id {node_id!r} is given to nodes[{first[node_id]}] too")
        else:
            first[node_id] = i
    return errors


def _only_derived(node: MemoryNode) -> bool:
    """Whether an entity node is one a conversation made and nothing else wrote to: its key
    alone for content and metadata (and its namespace), no source, validity, or confidence
    or type but the defaults, and no version after its first. An agent's node is never removed
    by a conversation's bookkeeping."""
    return (
        node.content == node.metadata.get("key")
        and set(node.metadata) <= {"key", "namespace"}
        and (node.source, node.node_type, node.confidence) == ("", DEFAULT_NODE_TYPE, DEFAULT_CONFIDENCE)
        and node.valid_from is None
        and node.valid_until is None
        and node.updated_at == node.created_at
    )


def _kept_namespace(metadata: dict[str, Any], old: MemoryNode | None) -> dict[str, Any]:
    """A node's metadata as an unscoped write gives it: a node stays in the namespace it was
    written in (the metadata need not repeat it); one named must be a namespace's name, and
    the node's own if it has one."""
    if "namespace" not in metadata:
        was = namespace_of(old) if old is not None else None
        return {**metadata, "namespace": was} if was is not None else metadata
    try:
        named = check_namespace(metadata["namespace"])
    except InvalidInput as exc:
        raise InvalidInput(f"metadata.namespace: {exc}") from None
    was = namespace_of(old) if old is not None else None
    if old is not None and was != named:
        where = f"namespace {was!r}" if was is not None else "no namespace"
        raise InvalidInput(
            f"node {old.id!r} is in {where}: a node stays in the namespace it was written in (metadata.namespace "
            f"{named!r}); nothing was stored"
        )
    return metadata


def _one_namespace(edge: MemoryEdge, ends: Mapping[str, MemoryNode]) -> None:
    """Refuse an edge between nodes of two namespaces: edges never cross namespaces, so each
    namespace's loops, κ and views are its own."""
    source, target = ends.get(edge.source_id), ends.get(edge.target_id)
    if source is None or target is None:
        return
    a, b = namespace_of(source), namespace_of(target)
    if a != b:

        def name(ns: str | None) -> str:
            return f"namespace {ns!r}" if ns is not None else "no namespace"

        raise InvalidInput(
            f"{edge.source_id!r} is in {name(a)} and {edge.target_id!r} in {name(b)}: an edge joins two nodes of one "
            "namespace (each namespace's loops and views are its own); nothing was stored"
        )
