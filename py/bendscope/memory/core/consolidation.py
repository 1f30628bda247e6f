"""``consolidate``: the memory's upkeep — decay what is not used, merge what is said twice,
prune what is no longer believed — without ever changing the topology of a loop.

In one transaction, in this order:

1. **Decay.** A node's confidence halves for every ``half_life_days`` (30) of idleness beyond
   the first ``idle_days`` (7), idleness counted from its last activity (access, update or
   creation). Each run applies the part since the later of that idle start and the previous
   run, so runs compose: two runs a week apart decay as much as one at the end (to the 6
   decimals a decayed confidence is rounded to).
2. **Merge.** Nodes whose content is the same once normalised (case, spacing, final
   punctuation) — and, with an embedder configured, nodes whose vectors' cosine similarity
   is at least ``similarity`` (0.95) — are merged into one: the most confident (then the
   oldest, then the smallest id) keeps its id and content, takes the highest confidence,
   the summed access count and the earliest creation time, and records the merged ids in
   its metadata (``merged_ids``); edges are re-pointed to it (an edge whose derived id named
   its old ends gets the id of its new ends; two edges of one type between the same nodes
   become one, with the larger weight; an edge between the two merged nodes goes). The merged
   node and its old edges are ended in recorded time, not erased (their versions stay: a
   reading known at an earlier time sees them), and the merge is kept (``Store.forwards``), so
   reading, linking or crediting the merged id reaches the node it was merged into.
3. **Prune.** Nodes whose confidence is below ``prune_below`` (0.05) are ended with their
   edges (in recorded time, as merged nodes are).
4. Retrievals logged over ``forget_retrievals_days`` (90) ago are forgotten (an outcome can
   no longer name them; the outcomes already reported stay).

**Loops are never changed.** A node in a loop (a nontrivial SCC of the causal and temporal
edges) is neither pruned nor merged — deleting it, or merging it away, changes the loop's
members — and the report says which were kept for that reason. A merge of two nodes in no
loop is made only when neither reaches the other along causal and temporal edges: then no
new cycle can run through the merged node, and no loop's arcs change. Pruning a node in no
loop removes arcs between different SCCs only, which changes no SCC. After the writes the
loop index is brought up to date by the same update as every write (``loop_index``), and a
change to any loop would undo the whole run (it cannot happen: the report's topology before
and after is the same by construction; a property test checks it against networkx).

**Dry run.** The run is made and then rolled back: the report is exactly what a real run
would do, and nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..store.base import Store
from ..store.scoped import namespace_of
from .embedders import pack, unpack
from .errors import InvalidInput
from .records import LoopRecord, MemoryNode, _metadata, edge_id_for, stamp_of
from .retrieval import Embedder

if TYPE_CHECKING:
    from .requests import Consolidate
    from .service.state import MemoryState

HALF_LIFE_DAYS = 30.0
IDLE_DAYS = 7.0
PRUNE_BELOW = 0.05
SIMILARITY = 0.95
FORGET_RETRIEVALS_DAYS = 90.0
#: the most items each list of the report shows (its count is always given)
LISTED = 100
#: nodes a reachability check between two merge candidates may visit before it gives up
#: (and the two are kept apart: "could not be checked")
REACH_BUDGET = 20_000
#: the most merged ids a node's metadata records
MERGED_IDS = 50
#: nodes compared pairwise by embedding; more are bucketed first (random hyperplanes)
EXACT_PAIRS = 2_000
STATE_KEY = "consolidated_at"
_FINAL = re.compile(r"[\s.!?;:,]+$")


class _DryRun(Exception):
    """Raised inside the transaction to roll a dry run back."""


def normalised(content: str) -> str:
    """The form two contents that say the same share: case folded, spacing collapsed, final
    punctuation dropped.

    >>> normalised("  Revenue  follows\\nmarket share. ") == normalised("revenue follows market share")
    True
    """
    return _FINAL.sub("", " ".join(content.split()).casefold())


def _time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def decayed(node: MemoryNode, now: datetime, previous: datetime | None, half_life: float, idle: float) -> float:
    """The node's confidence after this run's decay (see the module's docstring).

    >>> from bendscope.memory.core.records import MemoryNode
    >>> n = MemoryNode("a", "x", confidence=0.8, created_at="2026-01-01T00:00:00.000Z",
    ...                updated_at="2026-01-01T00:00:00.000Z")
    >>> round(decayed(n, _time("2026-03-09T00:00:00.000Z"), None, 30.0, 7.0), 6)  # 60 idle days past the 7
    0.2
    """
    stamps = [t for t in (node.created_at, node.updated_at, node.last_accessed_at) if t]
    if not stamps:
        return node.confidence
    try:
        start = _time(max(stamps)) + timedelta(days=idle)
    except (ValueError, OverflowError):  # (a stamp at the end of the calendar: idle from then on)
        return node.confidence
    if previous is not None and previous > start:
        start = previous
    days = (now - start).total_seconds() / 86_400
    if days <= 0:
        return node.confidence
    value: float = round(node.confidence * 0.5 ** (days / half_life), 6)
    return value


def reaches(store: Store, a: str, b: str, at: str | None = None, budget: int = REACH_BUDGET) -> bool | None:
    """Whether ``a`` reaches ``b`` along causal and temporal arcs (that hold ``at``, if given;
    None: not known within ``budget`` nodes). A search forward from a and one backward from
    b, the smaller frontier first, until they meet or one runs dry."""
    ahead, behind = {a}, {b}
    front = {True: {a}, False: {b}}
    seen = {True: ahead, False: behind}
    while front[True] and front[False]:
        if ahead & behind:
            return True
        forward = len(front[True]) <= len(front[False])
        nxt: set[str] = set()
        for x, y in store.arcs_from(front[forward], forward, at):
            there = y if forward else x
            if there not in seen[forward]:
                seen[forward].add(there)
                nxt.add(there)
        front[forward] = nxt
        if len(ahead) + len(behind) > budget:
            return None
    return bool(ahead & behind)


def reaches_along(store: Store, a: str, b: str, types: Iterable[str], budget: int = REACH_BUDGET) -> bool | None:
    """Whether ``a`` reaches ``b`` along edges of ``types`` (source to target; None: not
    known within ``budget`` nodes): a merge of the two would close a cycle of them."""
    kinds = set(types)
    seen, front = {a}, {a}
    while front:
        ahead = {
            e.target_id
            for e in store.edges_touching(front)
            if e.edge_type in kinds and e.source_id in front and e.target_id not in seen
        }
        if b in ahead:
            return True
        seen |= ahead
        front = ahead
        if len(seen) > budget:
            return None
    return False


def similar_groups(
    nodes: Sequence[MemoryNode],
    embedder: Embedder,
    threshold: float,
    store: Store | None = None,
    model: str | None = None,
) -> list[list[str]]:
    """Groups of nodes whose contents' vectors have cosine similarity ≥ ``threshold`` (joined
    transitively), from the vectors kept in ``store`` for ``model`` (those missing are
    embedded). Up to EXACT_PAIRS nodes every pair is compared; above, only pairs that share a
    bucket of one of 8 tables of 12 random hyperplanes (seeded: deterministic). NumPy when it
    is installed (block products), else plain Python."""
    if len(nodes) < 2:
        return []
    ids = [n.id for n in nodes]
    kept = store.get_vectors(model, ids) if store is not None and model is not None else {}
    missing = [n for n in nodes if n.id not in kept]
    if missing:
        kept.update(zip((n.id for n in missing), map(pack, embedder.embed([n.content for n in missing])), strict=True))
    blobs = [kept[i] for i in ids]
    parent = list(range(len(ids)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)

    for i, j in _similar_pairs(blobs, threshold):
        join(i, j)
    groups: dict[int, list[str]] = {}
    for i, node_id in enumerate(ids):
        groups.setdefault(root(i), []).append(node_id)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def _similar_pairs(blobs: Sequence[bytes], threshold: float) -> list[tuple[int, int]]:
    """The pairs (i < j) of stored unit vectors at least ``threshold`` alike."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - plain Python, slower
        return _similar_pairs_plain([unpack(b) for b in blobs], threshold)
    matrix = numpy.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
    candidates: list[Any]
    if len(blobs) <= EXACT_PAIRS:
        candidates = [numpy.arange(len(blobs))]
    else:
        rng = numpy.random.default_rng(0)
        buckets: dict[tuple[int, int], list[int]] = {}
        for table in range(8):
            planes = rng.standard_normal((matrix.shape[1], 12)).astype("<f4")
            keys = (matrix @ planes > 0) @ (1 << numpy.arange(12))
            for i, key in enumerate(keys.tolist()):
                buckets.setdefault((table, key), []).append(i)
        candidates = [numpy.array(members) for members in buckets.values() if len(members) > 1]
    pairs: set[tuple[int, int]] = set()
    for members in candidates:
        for start in range(0, len(members), 1_000):
            rows = members[start : start + 1_000]
            sims = matrix[rows] @ matrix[members].T
            for a, b in zip(*numpy.nonzero(sims >= threshold), strict=True):
                i, j = int(rows[a]), int(members[b])
                if i < j:
                    pairs.add((i, j))
    return sorted(pairs)


def _similar_pairs_plain(vectors: list[list[float]], threshold: float) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i in range(len(vectors))
        for j in range(i + 1, len(vectors))
        if sum(a * b for a, b in zip(vectors[i], vectors[j], strict=False)) >= threshold
    ]


def summary(loops: Iterable[LoopRecord]) -> dict[str, Any]:
    """The topology of the whole memory in brief: the loops' count, largest κ, members, a
    digest of every loop's members and κ (equal digests: the same loops), and the first
    LISTED loops."""
    loops = sorted(loops, key=lambda loop: loop.id)
    canonical = json.dumps([[list(loop.nodes), loop.kappa] for loop in loops], separators=(",", ":"))
    return {
        "loop_count": len(loops),
        "max_kappa": max((loop.kappa for loop in loops), default=0),
        "nodes_in_loops": sum(len(loop.nodes) for loop in loops),
        "digest": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        "loops": [{"id": loop.id, "node_count": len(loop.nodes), "kappa": loop.kappa} for loop in loops[:LISTED]],
        "loops_omitted": max(0, len(loops) - LISTED),
    }


def _listed(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": len(items), "items": items[:LISTED], "omitted": max(0, len(items) - LISTED)}


class Consolidation:
    """One run of ``consolidate`` over a memory (see the module's docstring)."""

    def __init__(self, memory: MemoryState, asked: Consolidate) -> None:
        self.memory = memory
        self.store = memory.store
        self.dry_run = asked.dry_run
        self.half_life = asked.half_life_days
        self.idle = asked.idle_days
        self.prune_below = asked.prune_below
        self.similarity = SIMILARITY if asked.similarity is None else asked.similarity
        if asked.similarity is not None and memory.embedder is None:
            raise InvalidInput(
                "similarity merges by embedding: serve with an embedder (--embedder wordllama) to use it"
            )
        self.forget_days = asked.forget_retrievals_days
        self.merge = asked.merge
        self.kept: list[dict[str, Any]] = []
        self.kept_apart: list[dict[str, Any]] = []
        self.merges: list[dict[str, Any]] = []
        self.inserted: list[tuple[str, str]] = []

    def run(self) -> dict[str, Any]:
        """The run, in one transaction (rolled back for a dry run); returns the report."""
        report: dict[str, Any] = {}
        try:
            with self.store.transaction():
                report = self._run()
                if self.dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        return report

    def _run(self) -> dict[str, Any]:
        memory, store = self.memory, self.store
        memory.loops.ready()
        before = summary(store.all_loops())
        stamp = memory.clock()
        now = _time(stamp)
        last = store.get_state(STATE_KEY)
        previous = _time(last) if last else None
        nodes = store.get_nodes(store.node_ids())
        in_loop = store.node_loops(nodes)
        loops = {loop.id: loop for loop in store.get_loops(set(in_loop.values())).values()}
        # 1. decay
        changed = {}
        decays = []
        for node_id, node in nodes.items():
            value = decayed(node, now, previous, self.half_life, self.idle)
            if value != node.confidence:
                changed[node_id] = value
                decays.append({"id": node_id, "confidence_before": node.confidence, "confidence_after": value})
                nodes[node_id] = replace(node, confidence=value)
        store.set_confidences(changed)
        batch = memory._batch()
        # 2. merge
        if self.merge:
            self._merge_all(nodes, in_loop, loops, stamp, batch.watch)
        # 3. prune
        pruned = []
        for node_id in sorted(nodes):
            node = nodes[node_id]
            if node.confidence >= self.prune_below:
                continue
            if node_id in in_loop:
                self._keep(node_id, "prune", in_loop, loops)
                continue
            edges = store.retract([node_id], [], stamp)  # (arcs between different SCCs only: no loop to watch)
            pruned.append({"id": node_id, "confidence": node.confidence, "edges": len(edges)})
            del nodes[node_id]
        change = memory.loops.settle(batch.watch, self.inserted, removed=True)
        if change.changed:  # (cannot happen: see the module's docstring; the whole run is undone)
            raise RuntimeError("consolidation would have changed a loop; nothing was done")
        forgotten = store.forget_retrievals(_stamp(now - timedelta(days=self.forget_days)))
        store.set_state(STATE_KEY, stamp)
        after = summary(store.all_loops())
        if after["digest"] != before["digest"]:
            raise RuntimeError("consolidation would have changed a loop; nothing was done")
        merged_away = sum(len(m["merged"]) for m in self.merges)
        return {
            "status": "dry run: nothing was written" if self.dry_run else "consolidated",
            "dry_run": self.dry_run,
            "at": stamp,
            "previous_run": last,
            "rules": {
                "half_life_days": self.half_life,
                "idle_days": self.idle,
                "prune_below": self.prune_below,
                "merge": self.merge,
                "similarity": self.similarity if memory.embedder is not None and self.merge else None,
                "forget_retrievals_days": self.forget_days,
            },
            "decayed": _listed(decays),
            "merged": {**_listed(self.merges), "nodes_merged_away": merged_away},
            "pruned": _listed(pruned),
            "kept_for_loops": _listed(self.kept),
            "kept_apart": _listed(self.kept_apart),
            "retrievals_forgotten": forgotten,
            "topology_before": before,
            "topology_after": after,
            "loops_unchanged": True,
        }

    def _keep(
        self,
        node_id: str,
        would: str,
        in_loop: Mapping[str, str],
        loops: Mapping[str, LoopRecord],
        duplicates: Sequence[str] = (),
    ) -> None:
        loop = loops[in_loop[node_id]]
        item: dict[str, Any] = {
            "id": node_id,
            "would": would,
            "loop": loop.id,
            "loop_size": len(loop.nodes),
            "kappa": loop.kappa,
            "reason": f"in a feedback loop of {len(loop.nodes)} nodes (κ = {loop.kappa}): "
            f"{'deleting' if would == 'prune' else 'merging'} it would change the loop",
        }
        if duplicates:
            item["duplicates"] = list(duplicates)
        self.kept.append(item)

    def _merge_all(
        self,
        nodes: dict[str, MemoryNode],
        in_loop: Mapping[str, str],
        loops: Mapping[str, LoopRecord],
        stamp: str,
        watch: Any,
    ) -> None:
        """Merge every group of duplicates (by content, then by embedding)."""
        by_text: dict[tuple[str, str, str, str], list[str]] = {}
        for node_id in sorted(nodes):  # (only facts valid over the same time, in one namespace, are one fact)
            node = nodes[node_id]
            key = (namespace_of(node) or "", normalised(node.content), node.valid_from or "", node.valid_until or "")
            by_text.setdefault(key, []).append(node_id)
        groups = [(group, "content") for _, group in sorted(by_text.items()) if len(group) > 1]
        for group, how in groups:
            self._merge_group(group, how, nodes, in_loop, loops, stamp, watch)
        embedder = self.memory.embedder
        if embedder is not None:
            free = [nodes[i] for i in sorted(nodes) if i not in in_loop]
            for group in similar_groups(free, embedder, self.similarity, self.store, self.memory.model):
                present = [i for i in group if i in nodes]
                by_validity: dict[tuple[str, str, str], list[str]] = {}
                for node_id in present:
                    node = nodes[node_id]
                    held = (namespace_of(node) or "", node.valid_from or "", node.valid_until or "")
                    by_validity.setdefault(held, []).append(node_id)
                for same in by_validity.values():
                    if len(same) > 1:
                        self._merge_group(same, "embedding", nodes, in_loop, loops, stamp, watch)

    def _merge_group(
        self,
        group: list[str],
        how: str,
        nodes: dict[str, MemoryNode],
        in_loop: Mapping[str, str],
        loops: Mapping[str, LoopRecord],
        stamp: str,
        watch: Any,
    ) -> None:
        free = []
        for node_id in group:
            if node_id in in_loop:
                self._keep(node_id, "merge", in_loop, loops, [i for i in group if i != node_id])
            else:
                free.append(node_id)
        if len(free) < 2:
            return
        free.sort(key=lambda i: (-nodes[i].confidence, nodes[i].created_at, i))
        keeper = free[0]
        merged = []
        acyclic = self.memory.acyclic_types
        for other in free[1:]:
            verdict = None
            for a, b in ((keeper, other), (other, keeper)):
                found = reaches(self.store, a, b, self.memory.loops.now)
                if found is not False:
                    verdict = "one reaches the other: merged, they would close a loop" if found else (
                        f"could not check within {REACH_BUDGET:,} nodes whether one reaches the other")  # fmt: skip
                    break
                lineage = reaches_along(self.store, a, b, acyclic) if acyclic else False
                if lineage is not False:
                    types = ", ".join(sorted(acyclic))
                    verdict = (
                        f"one derives from the other ({types}): merged, they would close a cycle of it"
                        if lineage
                        else f"could not check within {REACH_BUDGET:,} nodes whether one derives from the other"
                    )
                    break
            if verdict is not None:
                self.kept_apart.append({"id": other, "duplicate_of": keeper, "by": how, "reason": verdict})
                continue
            self._merge(keeper, other, nodes, stamp, watch)
            merged.append(other)
        if merged:
            self.merges.append({"into": keeper, "merged": sorted(merged), "by": how})

    def _merge(self, keeper: str, other: str, nodes: dict[str, MemoryNode], stamp: str, watch: Any) -> None:
        """Merge ``other`` into ``keeper`` (both in no loop, neither reaching the other)."""
        store = self.store
        k, o = nodes[keeper], nodes[other]
        ids = list(dict.fromkeys([*k.metadata.get("merged_ids", []), other, *o.metadata.get("merged_ids", [])]))
        metadata = {**o.metadata, **k.metadata, "merged_ids": ids[:MERGED_IDS]}
        try:
            metadata = _metadata(metadata)
        except InvalidInput:  # (too large together: the keeper's own, with the ids)
            metadata = _metadata({**k.metadata, "merged_ids": ids[:MERGED_IDS]})
        merged = replace(
            k,
            confidence=max(k.confidence, o.confidence),
            access_count=k.access_count + o.access_count,
            created_at=min(k.created_at, o.created_at),
            last_accessed_at=max((t for t in (k.last_accessed_at, o.last_accessed_at) if t), default=None),
            metadata=metadata,
            updated_at=stamp,
            recorded_at=stamp,
        )
        self.memory.loops.extend(watch, {keeper, other})
        existing = {(e.source_id, e.target_id, e.edge_type): e for e in store.edges_touching([keeper])}
        for edge in store.edges_touching([other]):
            ends = (
                keeper if edge.source_id == other else edge.source_id,
                keeper if edge.target_id == other else edge.target_id,
            )
            store.retract([], [edge.id], stamp)
            if ends[0] == ends[1] and keeper in (edge.source_id, edge.target_id):
                continue  # (an edge between the two merged nodes)
            key = (ends[0], ends[1], edge.edge_type)
            same = existing.get(key)
            if same is not None and (same.valid_from, same.valid_until) == (edge.valid_from, edge.valid_until):
                if edge.weight > same.weight:  # (two edges of one type and time between the same nodes: one)
                    existing[key] = replace(same, weight=edge.weight, recorded_at=stamp)
                    store.put_edge(existing[key])
                continue
            derived = edge.id == edge_id_for(edge.source_id, edge.target_id, edge.edge_type)
            new_id = edge_id_for(*key) if derived else edge.id
            if same is not None and new_id == same.id:
                new_id = edge.id  # (the derived id names the keeper's edge of another time)
            moved = replace(edge, id=new_id, source_id=ends[0], target_id=ends[1], recorded_at=stamp)
            store.put_edge(moved)
            existing.setdefault(key, moved)
            if moved.directed:
                self.inserted.append((moved.source_id, moved.target_id))
        store.retract([other], [], stamp)
        store.put_forwards({other: keeper}, stamp)
        store.put_node(merged)
        nodes[keeper] = merged
        del nodes[other]


def _stamp(moment: datetime) -> str:
    return stamp_of(moment)


def consolidate(memory: MemoryState, asked: Consolidate) -> dict[str, Any]:
    """Run ``consolidate`` (see the module's docstring) with the rules ``asked``."""
    return Consolidation(memory, asked).run()
