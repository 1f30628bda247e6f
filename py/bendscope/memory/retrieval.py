"""``retrieve_context``: what memory knows about a query, and whether to think about it.

The flow (Graphonomous' retriever, with topology):

1. **Seeds**: the ``top_k`` best lexical matches (BM25 over node content; FTS5 in
   SQLite) among the wanted ``node_types`` (all by default). Relevance is the BM25 score
   over the best seed's, in (0, 1]. An optional :class:`Embedder` re-ranks the lexical
   candidates by blending in cosine similarity.
2. **Expansion**: ``expand_hops`` hops (default 1), breadth first, along edges of any
   type in either direction; a node first reached at hop h gets its best parent's
   relevance × ``decay`` (0.85); nodes reached earlier (the seeds) keep theirs.
3. **Ranking**: score = relevance × confidence, ties by id; the ``limit`` best are
   returned.
4. **Topology**: the returned ids are the node universe; the edges between them
   (``Store.list_edges_between``) give the canonical topology, and the κ router's plan.

The reads run in one snapshot (``Store.reading``); then the access counts of the
returned nodes, the activation time of the edges walked and the retrieval itself (what it
returned and what the router decided: ``retrieval_id``, which ``learn_from_outcome`` takes)
are recorded in one write of their own (``Store.record_retrieval``; unless ``record`` is
false: ``analyze_topology`` only looks), so a retrieval holds no write lock while it
searches and analyses. The response holds no timings or counters, so the same store and the
same call give the same bytes (timings go to telemetry; the retrieval id derives from what
the retrieval returned and decided).
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from bendscope.kappa import DEFAULT_EXACT_LIMIT
from bendscope.kappa.budget import deliberation_budget
from bendscope.kappa.recommend import short_name

from .errors import StoreUnavailable
from .records import DIRECTED_KINDS, MemoryEdge, MemoryNode, RetrievalRecord, retrieval_id_for
from .router import kappa_route
from .store import Store
from .telemetry import Telemetry
from .topology import analyze_nodes

logger = logging.getLogger(__name__)

DECAY = 0.85
DEFAULT_LIMIT = 10
MAX_LIMIT = 200
MAX_HOPS = 3
#: the most loop members a retrieval brings in to keep the loops it cut whole (loop_limit)
LOOP_LIMIT = 50
#: a node with more edges than this passes on less relevance (see _damping)
HUB = 8
EMBED_BLEND = 0.5  # weight of cosine similarity when an embedder re-ranks


class Embedder(Protocol):
    """Turns texts into vectors (any model; the store never needs to know which)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity (0 for a zero vector)."""
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _rounded(value: float) -> float:
    return round(value, 6)


def _even(value: float) -> float:
    """A relevance to 12 decimals: the backends compute BM25 in different orders (FTS5 in C,
    the others in Python), a few units of the last bit apart; rounded, equal documents tie
    exactly everywhere and their order is their ids'."""
    return round(value, 12)


def node_view(node: MemoryNode) -> dict[str, Any]:
    """A node as retrieval shows it (no access statistics: they change with every call)."""
    return {
        "id": node.id,
        "content": node.content,
        "node_type": node.node_type,
        "confidence": node.confidence,
        "source": node.source,
        "metadata": node.metadata,
    }


#: the most lexical matches looked at to find ``top_k`` seeds of the wanted types
MAX_POOL = 20_000


def _matches(
    store: Store, query: str, wanted: int, node_types: set[str] | None
) -> tuple[list[tuple[str, float]], dict[str, MemoryNode]]:
    """The ``wanted`` best matches of the given types (a larger pool while filtering removes some)."""
    pool = wanted
    while True:
        found = store.search(query, pool)
        nodes = store.get_nodes(i for i, _ in found)
        kept = [(i, s) for i, s in found if node_types is None or nodes[i].node_type in node_types]
        if len(kept) >= wanted or len(found) < pool or pool >= MAX_POOL:
            return kept[:wanted], nodes
        pool = min(pool * 4, MAX_POOL)


def _seeds(
    store: Store, query: str, top_k: int, embedder: Embedder | None, node_types: set[str] | None
) -> tuple[dict[str, float], dict[str, MemoryNode], float]:
    """The seeds' relevance, the nodes read, and the best BM25 score (relevance 1)."""
    found, nodes = _matches(store, query, top_k * 4 if embedder is not None else top_k, node_types)
    if not found:
        return {}, {}, 0.0
    best = found[0][1]
    relevance = {node_id: _even(score / best) for node_id, score in found}
    if embedder is not None:
        ids = sorted(relevance)
        vectors = embedder.embed([query] + [nodes[i].content for i in ids])
        query_vector = vectors[0]
        for node_id, vector in zip(ids, vectors[1:], strict=True):
            similarity = max(0.0, cosine(query_vector, vector))
            relevance[node_id] = (1 - EMBED_BLEND) * relevance[node_id] + EMBED_BLEND * similarity
        kept = sorted(relevance.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
        relevance = dict(kept)
    return relevance, nodes, best


def loop_names(topology: Mapping[str, Any], nodes: Mapping[str, MemoryNode]) -> dict[str, str]:
    """A short form of the content of every node in a loop of ``topology``, by id (what an
    agent reads beside the ids of a deliberation task)."""
    return {n: short_name(nodes[n].content) for scc in topology["sccs"] for n in scc["nodes"] if n in nodes}


def _whole_loops(
    store: Store, chosen: list[str], bound: int, wanted: set[str] | None
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The loops (from the loop index) that the window ``chosen`` cut: the members to bring
    in (by id: their loop's id), the loops with the best-ranked member first, while at most
    ``bound`` members in all are added; and the loops left cut (too large, or holding
    members of types not wanted), each ``{loop, node_count, kappa, approximate,
    returned}``."""
    labels = store.node_loops(chosen)
    if not labels:
        return {}, []
    loops = store.get_loops(set(labels.values()))
    rank = {node_id: k for k, node_id in enumerate(chosen)}
    order = sorted(loops.values(), key=lambda loop: (min(rank[n] for n in loop.nodes if n in rank), loop.id))
    inside = set(chosen)
    added: dict[str, str] = {}
    cut = []
    for loop in order:
        missing = [n for n in loop.nodes if n not in inside]
        if not missing:
            continue
        types_ok = wanted is None or all(n.node_type in wanted for n in store.get_nodes(missing).values())
        if types_ok and len(added) + len(missing) <= bound:
            added.update(dict.fromkeys(missing, loop.id))
            continue
        cut.append(
            {
                "loop": loop.id,
                "node_count": len(loop.nodes),
                "kappa": loop.kappa,
                "approximate": loop.approximate,
                "returned": [n for n in loop.nodes if n in inside],
            }
        )
    return added, cut


def _max_kappa(topology: Mapping[str, Any], cut: list[dict[str, Any]]) -> int:
    return max([int(topology["max_kappa"]), *(int(loop["kappa"]) for loop in cut)])


def _damping(degree: int) -> float:
    """How much of its relevance a node passes along each of its edges: all of it up to
    HUB edges, then less, as 1/√(degree / HUB) — so a hub's hundreds of neighbours do not
    flood the answer.

    >>> _damping(3), _damping(8), round(_damping(800), 3)
    (1.0, 1.0, 0.1)
    """
    return 1.0 if degree <= HUB else math.sqrt(HUB / degree)


def retrieve_context(
    store: Store,
    query: str,
    *,
    telemetry: Telemetry,
    now: Callable[[], str],
    limit: int = DEFAULT_LIMIT,
    top_k: int | None = None,
    expand_hops: int = 1,
    decay: float = DECAY,
    node_types: Iterable[str] | None = None,
    embedder: Embedder | None = None,
    trigger: str = "retrieve_context",
    record: bool = True,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    loop_limit: int = LOOP_LIMIT,
    expand_limit: int | None = None,
) -> dict[str, Any]:
    """The retrieval response: ``status, retrieval_id, query, count, results, causal_context,
    stats, topology, route, loops_cut``. O(search + expansion + the topology of the returned
    nodes)."""
    top_k = limit if top_k is None else top_k
    expand_limit = limit if expand_limit is None else expand_limit
    wanted = None if node_types is None else set(node_types)
    with store.reading():  # one snapshot; what is recorded is written after it, on its own
        relevance, nodes, best = _seeds(store, query, top_k, embedder, wanted)
        seeds = len(relevance)
        matched = set(relevance)  # nodes with relevance of their own (direct hits)
        via: dict[str, dict[str, Any]] = {}
        hop_of = dict.fromkeys(relevance, 0)
        frontier = sorted(relevance)
        for hop in range(1, expand_hops + 1):
            if not frontier:
                break
            parents = {i: relevance[i] for i in frontier}  # this hop expands from these, as they were
            edges = store.edges_touching(frontier)
            degree: Counter[str] = Counter()
            for edge in edges:
                degree.update({edge.source_id, edge.target_id} & parents.keys())
            reached: dict[str, float] = {}
            for edge in edges:
                ends = ((edge.source_id, edge.target_id, "out"), (edge.target_id, edge.source_id, "in"))
                for parent, child, direction in ends:
                    if parent not in parents or child == parent:
                        continue
                    if child in hop_of and hop_of[child] < hop:
                        continue  # reached at an earlier hop: breadth first, it keeps its place
                    candidate = parents[parent] * decay * _damping(degree[parent])
                    if candidate > reached.get(child, 0.0) + 1e-12:  # the best way to this node at this hop
                        reached[child] = candidate
                        hop_of[child] = hop
                        via[child] = {
                            "node_id": parent,
                            "edge_id": edge.id,
                            "edge_type": edge.edge_type,
                            "direction": direction,
                        }
            own = store.score(query, reached) if reached and best > 0 else {}
            for child, inherited in reached.items():
                if child in own:  # a neighbour that matches the query is ranked by its own relevance
                    relevance[child] = _even(min(1.0, own[child] / best))
                    matched.add(child)
                else:
                    relevance[child] = inherited
            frontier = sorted(reached)
        missing = [i for i in relevance if i not in nodes]
        if missing:
            nodes.update(store.get_nodes(missing))
        kept = [i for i in relevance if i in nodes and (wanted is None or nodes[i].node_type in wanted)]

        def ranked(ids: Iterable[str], count: int) -> list[str]:
            return sorted(ids, key=lambda i: (-relevance[i] * nodes[i].confidence, i))[:count]

        # the best direct hits, then what only an edge brought after them (never displacing one)
        direct = ranked((i for i in kept if i in matched), limit)
        context = ranked((i for i in kept if i not in matched), expand_limit)
        chosen = direct + context
        completing, cut = _whole_loops(store, chosen, loop_limit, wanted)
        added = sorted(completing)
        if added:
            nodes.update(store.get_nodes(added))
            own = store.score(query, added) if best > 0 else {}
            for node_id in added:
                relevance[node_id] = _even(min(1.0, own.get(node_id, 0.0) / best)) if best > 0 else 0.0
                matched.discard(node_id)
                hop_of.pop(node_id, None)
                via[node_id] = {"loop": completing[node_id]}
            added.sort(key=lambda i: (-relevance[i] * nodes[i].confidence, i))
            chosen += added
        edges = store.list_edges_between(chosen)
        topology = analyze_nodes(chosen, edges, telemetry=telemetry, trigger=trigger, exact_limit=exact_limit)
        arcs = [(e.source_id, e.target_id) for e in edges if e.edge_type in DIRECTED_KINDS]
        results = [
            {
                **node_view(nodes[i]),
                "score": _rounded(relevance[i] * nodes[i].confidence),
                "relevance": _rounded(relevance[i]),
                "matched": i in matched,
                "hop": hop_of.get(i),  # (None: brought in to keep its loop whole)
                "via": via.get(i),
            }
            for i in chosen
        ]
    route = kappa_route(topology, arcs, loop_names(topology, nodes))
    if cut:
        route["routing"] = "deliberate"  # (the window holds part of a loop too large to bring whole)
    route["loops_cut"] = [{**loop, "budget": deliberation_budget(loop["kappa"])} for loop in cut]
    recorded = False
    retrieval_id = None
    if record and not store.read_only:
        when = now()
        budget = max((s["deliberation_budget"]["max_iterations"] for s in topology["sccs"]), default=0)
        budget = max([budget, *(b["budget"]["max_iterations"] for b in route["loops_cut"])])
        made = retrieval_id_for(query, route["routing"], _max_kappa(topology, cut), budget, chosen)
        log = RetrievalRecord(made, when, query, route["routing"], _max_kappa(topology, cut), budget, tuple(chosen))
        try:
            walked = [via[i]["edge_id"] for i in chosen if "edge_id" in via.get(i, {})]
            store.record_retrieval(chosen, walked, when, log)
            retrieval_id = made
            recorded = True
        except StoreUnavailable as exc:  # (a full disk): the answer stands, its statistics wait
            logger.warning("retrieval not recorded: %s", exc)
    return {
        "status": "ok",
        "retrieval_id": retrieval_id,
        "query": query,
        "count": len(results),
        "results": results,
        "causal_context": causal_context(chosen, edges),
        "stats": {
            "seeds": seeds,
            "candidates": len(relevance),
            "returned": len(results),
            "matched": len(direct),
            "context_added": len(context),
            "loop_members_added": len(added),
            "edges_between_results": len(edges),
            "recorded": recorded,
            "expand_hops": expand_hops,
            "decay": decay,
        },
        "topology": topology,
        "route": route,
        "loops_cut": cut,
    }


def causal_context(node_ids: Iterable[str], edges: Iterable[MemoryEdge]) -> list[str]:
    """The ids among ``node_ids`` joined to another of them by a causal or temporal edge, sorted."""
    members = set(node_ids)
    linked: set[str] = set()
    for edge in edges:
        directed = edge.edge_type in DIRECTED_KINDS and edge.source_id != edge.target_id
        if directed and edge.source_id in members and edge.target_id in members:
            linked.update((edge.source_id, edge.target_id))
    return sorted(linked)
