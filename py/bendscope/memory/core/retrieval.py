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
from dataclasses import dataclass, field
from typing import Any, Protocol

from bendscope.kappa import DEFAULT_EXACT_LIMIT
from bendscope.kappa.budget import deliberation_budget
from bendscope.kappa.recommend import short_name

from ..store.base import Store
from .analysis import analyze_nodes
from .conversations.recall import about_turns, conversation_seeds
from .embedders import normalised, pack, similarities, unpack
from .errors import StoreUnavailable
from .loop_index import kappa_of
from .records import DIRECTED_KINDS, MemoryEdge, MemoryNode, RetrievalRecord, retrieval_id_for
from .routing.intent import Asked, asked_relation, intent
from .routing.router import FOCUS_SHARE, FOCUS_SIZE, Route, question_route
from .telemetry import ROUTE, Telemetry

logger = logging.getLogger(__name__)

DECAY = 0.85
DEFAULT_LIMIT = 10
MAX_LIMIT = 200
MAX_HOPS = 3
#: the most loop members a retrieval brings in to keep the loops it cut whole (loop_limit)
LOOP_LIMIT = 50
#: characters of a loop member's content named beside its id in an answer's loops
NAME_LIMIT = 60
#: a node with more edges than this passes on less relevance (see _damping)
HUB = 8
#: nodes the searches for the loops of a window may reach when the loop index cannot say
#: (the past, as_of; or a read-only store whose index is not current)
PAST_LOOPS_BUDGET = 20_000
#: the weight of cosine similarity beside lexical relevance when an embedder is configured
#: (chosen on SciFact's training claims: see bench/bench_retrieval.py)
SEMANTIC_WEIGHT = 0.5


class Embedder(Protocol):
    """Turns texts into vectors (any model). Its ``name`` (if it has one) names its vectors
    in the store: vectors of another model are never compared with its own."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def model_name(embedder: Embedder) -> str:
    """The name an embedder's vectors are kept under."""
    return str(getattr(embedder, "name", type(embedder).__name__))


class VectorCache:
    """Every stored vector of one model, in memory, for dense seeding: reloaded when the
    store's vectors version changes. Uses NumPy when it is installed (the [semantic] extra
    brings it), else plain Python. O(vectors · dimensions) a search."""

    def __init__(self) -> None:
        self.state: tuple[int, list[str], Any] = (-1, [], None)  # (version, ids, matrix): swapped whole

    def nearest(self, store: Store, model: str, query: Sequence[float], count: int) -> list[tuple[str, float]]:
        """The ``count`` stored vectors most similar to the unit vector ``query``."""
        version = store.vectors_version()
        cached, ids, matrix = self.state
        if version != cached:
            rows = store.all_vectors(model)
            ids = [i for i, _ in rows]
            try:
                import numpy

                width = len(query) * 4
                rows = [(i, b) for i, b in rows if len(b) == width]  # (vectors of another size: not comparable)
                ids = [i for i, _ in rows]
                matrix = numpy.frombuffer(b"".join(b for _, b in rows), dtype="<f4").reshape(len(rows), -1)
            except ImportError:  # pragma: no cover - numpy ships with the [semantic] extra
                matrix = [unpack(b) for _, b in rows]
            self.state = (version, ids, matrix)
        if not ids or count <= 0:
            return []
        if isinstance(matrix, list):
            scores = [sum(a * b for a, b in zip(row, query, strict=False)) for row in matrix]
            order = sorted(range(len(scores)), key=lambda k: (-scores[k], ids[k]))[:count]
            return [(ids[k], float(scores[k])) for k in order]
        import numpy

        scores = matrix @ numpy.asarray(query, dtype="<f4")
        top = numpy.argpartition(-scores, min(count, len(scores) - 1))[:count]
        return sorted(((ids[k], float(scores[k])) for k in top), key=lambda kv: (-kv[1], kv[0]))


@dataclass
class Semantic:
    """How retrieval uses an embedder: cosine similarity weighs ``weight`` beside lexical
    relevance; ``dense`` nearest stored vectors join the lexical candidates (0: re-rank only)."""

    embedder: Embedder
    weight: float = SEMANTIC_WEIGHT
    dense: int = 0
    cache: VectorCache = field(default_factory=VectorCache)


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
    store: Store, query: str, wanted: int, node_types: set[str] | None, holds: Callable[[MemoryNode], bool]
) -> tuple[list[tuple[str, float]], dict[str, MemoryNode]]:
    """The ``wanted`` best matches of the given types that hold (a larger pool while filtering
    removes some)."""
    pool = wanted
    while True:
        found = store.search(query, pool)
        nodes = store.get_nodes(i for i, _ in found)
        kept = [
            (i, s) for i, s in found if (node_types is None or nodes[i].node_type in node_types) and holds(nodes[i])
        ]
        if len(kept) >= wanted or len(found) < pool or pool >= MAX_POOL:
            return kept[:wanted], nodes
        pool = min(pool * 4, MAX_POOL)


def _seeds(
    store: Store,
    query: str,
    top_k: int,
    semantic: Semantic | None,
    node_types: set[str] | None,
    holds: Callable[[MemoryNode], bool],
) -> tuple[dict[str, float], dict[str, MemoryNode], float]:
    """The seeds' relevance, the nodes read, and the best BM25 score (relevance 1). With an
    embedder: the lexical candidates (4·top_k) and the ``dense`` nearest stored vectors, each
    ranked by (1 − weight) · lexical relevance + weight · cosine similarity (stored vectors;
    a node without one is embedded for the call), the best top_k kept."""
    found, nodes = _matches(store, query, top_k * 4 if semantic is not None else top_k, node_types, holds)
    best = found[0][1] if found else 0.0
    relevance = {node_id: _even(score / best) for node_id, score in found}
    if semantic is None:
        return relevance, nodes, best
    model = model_name(semantic.embedder)
    query_vector = normalised(semantic.embedder.embed([query])[0])
    if semantic.dense > 0:
        near = [i for i, _ in semantic.cache.nearest(store, model, query_vector, semantic.dense) if i not in nodes]
        nodes.update(store.get_nodes(near))
        fresh = [i for i in near if i in nodes and holds(nodes[i])]
        fresh = [i for i in fresh if node_types is None or nodes[i].node_type in node_types]
        own = store.score(query, fresh) if fresh and best > 0 else {}
        relevance.update({i: _even(own.get(i, 0.0) / best) if best > 0 else 0.0 for i in fresh})
    if not relevance:
        return {}, {}, 0.0
    ids = sorted(relevance)
    stored = store.get_vectors(model, ids)
    unstored = [i for i in ids if i not in stored]
    if unstored:  # (a node stored without this embedder: embedded for the call, not kept)
        made = semantic.embedder.embed([nodes[i].content for i in unstored])
        stored.update(zip(unstored, map(pack, made), strict=True))
    for node_id, similarity in zip(ids, similarities(query_vector, [stored[i] for i in ids]), strict=True):
        relevance[node_id] = _even((1 - semantic.weight) * relevance[node_id] + semantic.weight * max(0.0, similarity))
    kept = sorted(relevance.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
    return dict(kept), nodes, best


def loop_names(topology: Mapping[str, Any], nodes: Mapping[str, MemoryNode]) -> dict[str, str]:
    """A short form of the content of every node in a loop of ``topology``, by id (what an
    agent reads beside the ids of a deliberation task)."""
    return {n: short_name(nodes[n].content) for scc in topology["sccs"] for n in scc["nodes"] if n in nodes}


@dataclass
class WindowLoops:
    """The loops that hold nodes of a retrieval's window: the loop id of each such node
    (a loop is named by its smallest member), each loop's (node count, κ, approximate), and
    its members when they are known without a read (``members``; else read on demand)."""

    loop_of: dict[str, str]
    sizes: dict[str, tuple[int, int, bool]]
    members: dict[str, list[str]] = field(default_factory=dict)

    def members_of(self, store: Store, loop_id: str) -> list[str]:
        """The sorted members of ``loop_id`` (read from the loop index when not known)."""
        if loop_id not in self.members:
            self.members[loop_id] = list(store.get_loops([loop_id])[loop_id].nodes)
        return self.members[loop_id]


def _indexed_loops(store: Store, window: list[str]) -> WindowLoops:
    """The window's loops from the loop index: one lookup, sizes without members."""
    labels = store.node_loops(window)
    return WindowLoops(labels, store.loop_sizes(set(labels.values())) if labels else {})


def _searched_loops(store: Store, window: list[str], holds: Callable[[Any], bool], exact_limit: int) -> WindowLoops:
    """The window's loops without the loop index, for the graph of the nodes and edges that
    ``holds`` (as of a past time, or now on a read-only store whose index is not current): the
    SCC of each window node (a forward and a backward search, side by side), at most
    PAST_LOOPS_BUDGET nodes reached in all — past it, the loops found so far; κ of each loop
    found computed on its arcs."""
    nodes: dict[str, MemoryNode] = {}

    def step(front: set[str], forward: bool) -> set[str]:
        far = set()
        for e in store.edges_touching(front):
            near, there = (e.source_id, e.target_id) if forward else (e.target_id, e.source_id)
            if e.directed and near in front and there != near and holds(e):
                far.add(there)
        missing = [n for n in far if n not in nodes]
        nodes.update(store.get_nodes(missing))
        return {n for n in far if n in nodes and holds(nodes[n])}

    nodes.update(store.get_nodes(window))
    found: list[set[str]] = []
    seen_in: set[str] = set()
    spent = 0
    for start in window:
        if start in seen_in or spent > PAST_LOOPS_BUDGET or start not in nodes or not holds(nodes[start]):
            continue
        reached = {True: {start}, False: {start}}
        front = {True: {start}, False: {start}}
        while front[True] and front[False] and spent <= PAST_LOOPS_BUDGET:
            for forward in (True, False):
                ahead = step(front[forward], forward) - reached[forward]
                reached[forward] |= ahead
                front[forward] = ahead
                spent += len(ahead)
        if front[True] and front[False]:
            break  # (over budget)
        done = not front[True]
        within = reached[done]
        scc, frontier = {start}, {start}
        while frontier:
            frontier = (step(frontier, not done) & within) - scc
            scc |= frontier
        seen_in |= scc
        if len(scc) > 1:
            found.append(scc)
    loops = WindowLoops({}, {})
    inside = set(window)
    for scc in found:
        members = sorted(scc)
        arcs = [
            (e.source_id, e.target_id)
            for e in store.list_edges_between(members)
            if e.directed and holds(e) and e.source_id != e.target_id
        ]
        kappa, approximate = kappa_of(members, arcs, exact_limit)
        loops.sizes[members[0]] = (len(members), kappa, approximate)
        loops.members[members[0]] = members
        loops.loop_of.update(dict.fromkeys((n for n in members if n in inside), members[0]))
    return loops


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
    semantic: Semantic | None = None,
    trigger: str = "retrieve_context",
    record: bool = True,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    loop_limit: int = LOOP_LIMIT,
    expand_limit: int | None = None,
    as_of: str | None = None,
    index_current: bool = True,
    gather: bool = False,
    detail: str = "compact",
) -> dict[str, Any]:
    """The retrieval answer (see ``answer``), over the facts valid now — or ``as_of`` a time,
    those valid then (a fact without ``valid_from`` held from an unknown past) — of ``store``
    (a ``store.past.PastView`` reads them as the memory knew them at a past time).

    The results are the ``limit`` best direct matches, then what only an edge brought
    (at most ``expand_limit`` of those), ``limit`` in all; the router (``router``) decides the
    route from the question's focus and intent, and the question's loops are brought in whole
    (``loop_limit`` members at most). ``gather``: for the callers that want a node set rather
    than an answer (analyze_topology with a query, export, the editor's views) — ``limit``
    matches plus ``expand_limit`` neighbours, and every loop they touch brought in whole,
    among the results. O(search + expansion + the topology of the region)."""
    top_k = limit if top_k is None else top_k
    expand_limit = limit if expand_limit is None else expand_limit
    wanted = None if node_types is None else set(node_types)
    moment = as_of if as_of is not None else now()

    def holds(record: Any) -> bool:
        return bool(record.valid_at(moment))

    def keep(node: MemoryNode) -> bool:
        return (wanted is None or node.node_type in wanted) and holds(node)

    with store.reading():  # one snapshot; what is recorded is written after it, on its own
        relevance, nodes, best = _seeds(store, query, top_k, semantic, wanted, holds)
        if not gather and about_turns([nodes[i] for i in relevance]):  # (a question about a conversation)
            embed = semantic.embedder.embed if semantic is not None else None
            model = model_name(semantic.embedder) if semantic is not None else None
            talk = conversation_seeds(store, query, top_k, keep, embed, model)
            if talk is not None:
                relevance, nodes, best = talk
                expand_hops = 0  # (the session's neighbours are weighed already)
        seeds = len(relevance)
        matched = set(relevance)  # nodes with relevance of their own (direct hits)
        via: dict[str, dict[str, Any]] = {}
        hop_of = dict.fromkeys(relevance, 0)
        frontier = sorted(relevance)
        for hop in range(1, expand_hops + 1):
            if not frontier:
                break
            parents = {i: relevance[i] for i in frontier}  # this hop expands from these, as they were
            edges = [e for e in store.edges_touching(frontier) if holds(e)]
            degree: Counter[str] = Counter()
            for edge in edges:
                degree.update({edge.source_id, edge.target_id} & parents.keys())
            reached: dict[str, float] = {}
            ways: dict[str, dict[str, Any]] = {}
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
                        ways[child] = {
                            "node_id": parent,
                            "edge_id": edge.id,
                            "edge_type": edge.edge_type,
                            "direction": direction,
                        }
            unread = [i for i in reached if i not in nodes]
            if unread:
                nodes.update(store.get_nodes(unread))
            reached = {i: r for i, r in reached.items() if i in nodes and holds(nodes[i])}  # (no way through the rest)
            for child in reached:
                hop_of[child] = hop
                via[child] = ways[child]
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
        kept = [
            i for i in relevance if i in nodes and (wanted is None or nodes[i].node_type in wanted) and holds(nodes[i])
        ]

        def score(i: str) -> float:
            return relevance[i] * nodes[i].confidence

        def ranked(ids: Iterable[str], count: int) -> list[str]:
            return sorted(ids, key=lambda i: (-score(i), i))[:count]

        # the best direct hits, then what only an edge brought after them (never displacing one)
        direct = ranked((i for i in kept if i in matched), limit)
        context = ranked((i for i in kept if i not in matched), expand_limit)
        focus = [i for i in direct[:FOCUS_SIZE] if direct and score(i) >= FOCUS_SHARE * score(direct[0])]
        relation = None if gather else asked_relation(query)
        if relation is not None and intent(query) != "dynamics":  # a cause or an effect asked: read beside its fact
            linked = _causal_links(store, focus, relation, holds)
            unread = [j for js in linked.values() for j, _ in js if j not in nodes]
            nodes.update(store.get_nodes(unread))
            order: list[str] = []
            for i in direct:
                order.append(i)
                for j, edge in linked.get(i, []):
                    if j in order or j not in nodes or not holds(nodes[j]):
                        continue
                    if wanted is not None and nodes[j].node_type not in wanted:
                        continue
                    order.append(j)
                    if j not in relevance:  # brought by the asked edge: ranked as an edge brings
                        relevance[j] = relevance[i] * decay
                        hop_of[j] = 1
                    if j not in matched:
                        via[j] = {"node_id": i, "edge_id": edge.id, "edge_type": edge.edge_type,
                                  "direction": "in" if relation == "cause" else "out"}  # fmt: skip
            direct = list(dict.fromkeys(order))
            context = [i for i in context if i not in direct]
        window = direct + context if gather else (direct + context)[:limit]
        near: dict[str, list[str]] = {}
        acting: dict[str, list[str]] = {}  # (only what acts on the focus: an edge into it)
        if not gather and intent(query) == "dynamics":  # (what the focus acts on, or is acted on by)
            for e in store.edges_touching(focus):
                if holds(e) and e.source_id != e.target_id:
                    for a, b in ((e.source_id, e.target_id), (e.target_id, e.source_id)):
                        if a in focus:
                            near.setdefault(a, []).append(b)
                            if a == e.target_id:
                                acting.setdefault(a, []).append(b)
            unread = [n for ns in near.values() for n in ns if n not in nodes]
            nodes.update(store.get_nodes(unread))
            near = {f: sorted({n for n in ns if n in nodes and holds(nodes[n])}) for f, ns in near.items()}
            acting = {f: sorted({n for n in ns if n in nodes and holds(nodes[n])}) for f, ns in acting.items()}
        looked = list(dict.fromkeys([*window, *(n for ns in near.values() for n in ns)]))
        if as_of is None and index_current:
            loops = _indexed_loops(store, looked)
        else:  # (the past, or an index a read-only store could not bring up to date: searched for)
            loops = _searched_loops(store, looked, holds, exact_limit)
        touched = list(dict.fromkeys(loops.loop_of[i] for i in window if i in loops.loop_of))
        # a focus node on a loop: the loops that act on it are the question's too, never one it
        # only feeds (that one cannot change how it behaves); one on none: any loop one edge away
        near = {f: acting.get(f, []) if f in loops.loop_of else ns for f, ns in near.items()}
        route = question_route(query, focus, loops.loop_of, loops.sizes, touched, near)
        added: dict[str, str] = {}  # loop member brought in → its loop
        cut: list[str] = []
        inside = set(window)
        for loop_id in touched if gather else route.loops:
            count = loops.sizes[loop_id][0]
            present = sum(1 for i in inside if loops.loop_of.get(i) == loop_id)
            if count - present and len(added) + count - present <= loop_limit:  # (only then are members read)
                missing = [n for n in loops.members_of(store, loop_id) if n not in inside and n not in added]
                fresh = store.get_nodes(n for n in missing if n not in nodes)
                nodes.update(fresh)
                if all(n in nodes and (wanted is None or nodes[n].node_type in wanted) for n in missing):
                    added.update(dict.fromkeys(missing, loop_id))
                    continue
            if count - present:
                cut.append(loop_id)
        why = route.why
        too_large = [loop for loop in cut if loop in route.loops]
        if too_large:
            why += (
                f" {', '.join(too_large)} {'is' if len(too_large) == 1 else 'are'} larger than loop_limit "
                f"({loop_limit}): not every member is named; its κ and budget are in loops."
            )
        brought = sorted(added)
        if brought:
            own = store.score(query, brought) if best > 0 else {}
            for node_id in brought:
                relevance[node_id] = _even(min(1.0, own.get(node_id, 0.0) / best)) if best > 0 else 0.0
                matched.discard(node_id)
                hop_of.pop(node_id, None)
                via[node_id] = {"loop": added[node_id]}
            brought.sort(key=lambda i: (-score(i), i))
        region = window + brought
        edges = [e for e in store.list_edges_between(region) if holds(e)]
        topology = analyze_nodes(
            region,
            edges,
            telemetry=telemetry,
            trigger=trigger,
            exact_limit=exact_limit,
            route=gather,
            feedback_arc_set=trigger == "analyze_topology",
        )
    routing = route.routing if not gather else topology["routing"]
    if not gather:
        telemetry.execute(ROUTE, {}, {"decision": routing, "max_kappa": _asked_kappa(loops, route), "trigger": trigger})
    shown = region if gather else window
    recorded = False
    retrieval_id = None
    if record and not store.read_only:
        when = now()
        kappa = _asked_kappa(loops, route)
        budget = int(deliberation_budget(kappa)["max_iterations"]) if kappa else 0
        made = retrieval_id_for(query, routing, kappa, budget, region, len(shown))
        log = RetrievalRecord(made, when, query, routing, kappa, budget, tuple(region), results=len(shown))
        try:
            walked = [via[i]["edge_id"] for i in region if "edge_id" in via.get(i, {})]
            store.record_retrieval(region, walked, when, log)
            retrieval_id = made
            recorded = True
        except StoreUnavailable as exc:  # (a full disk): the answer stands, its statistics wait
            logger.warning("retrieval not recorded: %s", exc)
    full = detail == "full" or gather
    results = [
        result_view(nodes[i], score(i), loops.loop_of.get(i) or added.get(i), via.get(i))
        if not full
        else {
            **node_view(nodes[i]),
            "score": _rounded(score(i)),
            "relevance": _rounded(relevance[i]),
            "matched": i in matched,
            "hop": hop_of.get(i),  # (None: brought in to keep its loop whole)
            "via": via.get(i),
            **({"loop": loops.loop_of.get(i) or added[i]} if i in loops.loop_of or i in added else {}),
        }
        for i in shown
    ]
    answer: dict[str, Any] = {
        "status": "ok",
        "retrieval_id": retrieval_id,
        "query": query,
        "routing": routing,
        "why": why,
        "count": len(results),
        "results": results,
        "loops": _loops_view(loops, route, touched, added, cut, topology, nodes, edges),
        "topology": topology,
    }
    if full:
        answer["stats"] = {
            "intent": route.intent,
            "focus": focus,
            "seeds": seeds,
            "candidates": len(relevance),
            "returned": len(results),
            "matched": len(direct),
            "context_added": len([i for i in window if i not in matched]),
            "loop_members_added": len(brought),
            "edges_between_results": len(edges),
            "recorded": recorded,
            "expand_hops": expand_hops,
            "decay": decay,
        }
    return answer


def _causal_links(
    store: Store, focus: Sequence[str], relation: Asked, holds: Callable[[Any], bool]
) -> dict[str, list[tuple[str, MemoryEdge]]]:
    """For each focus node, the other ends of its causal edges that hold, in the asked direction
    (``cause``: the edges into it; ``effect``: out of it), strongest edge first, then by id.
    O(edges touching the focus)."""
    linked: dict[str, list[tuple[str, MemoryEdge]]] = {}
    for edge in store.edges_touching(list(focus)):
        if edge.edge_type != "causal" or edge.source_id == edge.target_id or not holds(edge):
            continue
        node, other = (edge.target_id, edge.source_id) if relation == "cause" else (edge.source_id, edge.target_id)
        if node in focus:
            linked.setdefault(node, []).append((other, edge))
    for ends in linked.values():
        ends.sort(key=lambda end: (-end[1].weight, end[0]))
    return linked


def _asked_kappa(loops: WindowLoops, route: Route) -> int:
    """The largest κ of the question's loops (0: a fast route)."""
    return max((loops.sizes[loop][1] for loop in route.loops), default=0)


def result_view(node: MemoryNode, score: float, loop: str | None, via: Mapping[str, Any] | None) -> dict[str, Any]:
    """A result as an answer shows it: id, content, score and confidence; its type, source and
    metadata when they say something (not semantic, not empty); the loop it is on; and, for a
    node an edge brought, the node it came from (``via``)."""
    view: dict[str, Any] = {"id": node.id, "content": node.content, "score": round(score, 4)}
    view["confidence"] = node.confidence
    if node.node_type != "semantic":
        view["node_type"] = node.node_type
    if node.source:
        view["source"] = node.source
    if node.metadata:
        view["metadata"] = node.metadata
    if loop is not None:
        view["loop"] = loop
    if via is not None and "node_id" in via:
        view["via"] = via["node_id"]
    return view


def _loops_view(
    loops: WindowLoops,
    route: Route,
    touched: list[str],
    added: Mapping[str, str],
    cut: list[str],
    topology: Mapping[str, Any],
    nodes: Mapping[str, MemoryNode],
    edges: Iterable[MemoryEdge] = (),
) -> list[dict[str, Any]]:
    """The loops an answer names: the question's first (``asked``: the topology's SCC that
    holds it, when brought whole, a short name of each member that is not among the results,
    and its ``arcs`` — each causal or temporal edge between its members as [source, target,
    polarity or None], so that a reinforcing loop can be told from a balancing one; or
    ``whole: false`` with its budget when too large to bring), then the others the results
    touch (id, κ, size). Each id is the loop's smallest member. O(edges of the region)."""
    scc_of = {n: scc["id"] for scc in topology["sccs"] for n in scc["nodes"]}
    region_edges = list(edges)
    shown = []
    for loop_id in [*route.loops, *(t for t in touched if t not in route.loops)]:
        count, kappa, approximate = loops.sizes[loop_id]
        entry: dict[str, Any] = {"id": loop_id, "kappa": kappa, "approximate": approximate, "node_count": count}
        entry["asked"] = loop_id in route.loops
        if loop_id in cut:
            entry["whole"] = False
            entry["budget"] = deliberation_budget(kappa)
        elif entry["asked"]:
            members = sorted(n for n, loop in added.items() if loop == loop_id)
            held = members[:1] or [n for n, loop in loops.loop_of.items() if loop == loop_id][:1]
            entry["scc"] = scc_of.get(held[0]) if held else None
            entry["names"] = {n: short_name(nodes[n].content, NAME_LIMIT) for n in members}
            scc = next((s for s in topology["sccs"] if s["id"] == entry["scc"]), None)
            inside = set(scc["nodes"]) if scc is not None else set()
            arcs = [
                [e.source_id, e.target_id, _sign(e.metadata.get("polarity"))]
                for e in region_edges
                if e.edge_type in DIRECTED_KINDS and e.source_id in inside and e.target_id in inside
                and e.source_id != e.target_id
            ]  # fmt: skip
            entry["arcs"] = sorted(arcs, key=lambda arc: (arc[0], arc[1], arc[2] or ""))
        shown.append(entry)
    return shown


def _sign(polarity: Any) -> str | None:
    """An edge's polarity as the loops say it: "+", "-" or None (not said)."""
    return polarity if polarity in ("+", "-") else "-" if polarity == "−" else None


def causal_context(node_ids: Iterable[str], edges: Iterable[MemoryEdge]) -> list[str]:
    """The ids among ``node_ids`` joined to another of them by a causal or temporal edge, sorted."""
    members = set(node_ids)
    linked: set[str] = set()
    for edge in edges:
        directed = edge.edge_type in DIRECTED_KINDS and edge.source_id != edge.target_id
        if directed and edge.source_id in members and edge.target_id in members:
            linked.update((edge.source_id, edge.target_id))
    return sorted(linked)
