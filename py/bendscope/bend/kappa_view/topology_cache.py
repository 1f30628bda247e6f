"""The κ topology of a plane, cached under the plane's dirty flag, computed in slices.

Only structural edits raise ``plane.topology_dirty`` (see model.Plane); moves
never do, and nothing here runs per frame. After a few edits (up to
``INCREMENTAL_EDITS`` nodes and edges changed since the last topology) the topology is
updated edit by edit (``kappa.incremental``): a new card or an arc that closes no cycle
computes no κ, an arc inside or between loop regions computes only the region it changes,
a removal only the region it may split; the result is the whole computation's, byte for
byte. More changes (a load) compute the plane whole, where each plane's KappaCache keeps
SCCs whose arcs did not change from being cut again.

Two ways to ask:

* :meth:`TopologyCache.get` — the exact topology now (menus, Bend/Unbend, export, the
  API); it finishes a running computation or runs one to the end.
* :meth:`TopologyCache.shown` — what a frame draws: the exact topology when it is ready or
  can be finished within the frame's budget; otherwise the previous one, marked
  ``pending``, while :meth:`TopologyCache.advance` goes on in slices between frames. So
  no κ work ever holds the page longer than a slice, and the HUD can say κ is being
  computed. A job works on a snapshot of the plane. An edit-by-edit job is dropped when the
  plane changes again before it ends; a whole computation already begun is finished on its
  snapshot and shown (pending), and the edits since are brought in edit by edit after it — else
  a stream of edits (an agent writing while the page opens its memory) would begin it again at
  each edit, and a computation longer than the time between two edits would never end.
"""

from __future__ import annotations

import json
import operator
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bendscope.bend.model.elements import Edge, Plane
from bendscope.kappa import DEFAULT_EXACT_LIMIT, DIRECTED_KINDS, KappaCache
from bendscope.kappa.analyze import analyze_steps
from bendscope.kappa.digraph import Digraph, build_digraph_steps, predecessors
from bendscope.kappa.incremental import IncrementalTopology
from bendscope.kappa.steps import Meter, Steps, advance, finish

#: units of engine work between pauses (~0.3 ms in CPython): a slice ends within a pause of its budget
QUANTUM = 2048
_SNAPSHOT_CHUNK = 2048  # edges copied per step when a job takes its snapshot


def plane_graph(plane: Plane) -> tuple[list[str], list[dict[str, str]]]:
    """The plane as κ engine input: a → source, b → target, props.kind → kind."""
    edges = [{"source": e.a, "target": e.b, "kind": e.props.kind} for e in plane.edges.values()]
    return list(plane.nodes), edges


@dataclass
class Topology:
    """One plane's canonical topology plus lookups the views need.

    ``pending``: a newer topology is being computed and this is the previous one (its
    SCCs may name nodes or edges that are gone).
    """

    result: dict[str, Any]
    duration_ms: float
    scc_of: dict[str, int] = field(default_factory=dict)  # node id → index in result["sccs"]
    fault_edges: set[str] = field(default_factory=set)  # edge ids on a fault line
    pending: bool = False
    slices: int = 1  # how many slices the computation took
    incremental: bool = False  # updated from the previous one edit by edit (not computed whole)

    @property
    def max_kappa(self) -> int:
        return int(self.result["max_kappa"])

    @property
    def scc_count(self) -> int:
        return int(self.result["scc_count"])

    def scc(self, node_id: str) -> dict[str, Any] | None:
        i = self.scc_of.get(node_id)
        return None if i is None else self.result["sccs"][i]

    def json(self) -> str:
        return json.dumps(self.result, ensure_ascii=False)

    def log_line(self) -> str:
        """The console.debug line of the spec's §7 (the time is the computing time)."""
        return f"[κ] topology: {self.duration_ms:.1f}ms, maxκ={self.max_kappa}, sccs={self.scc_count}"


#: what a plane shows before its first topology is known
EMPTY_RESULT: dict[str, Any] = {"sccs": [], "dag_nodes": [], "routing": "fast", "max_kappa": 0, "scc_count": 0}


class _Known:
    """What a plane's last computation saw, kept to update its topology edit by edit: the
    incremental topology, the plane's nodes and edges then (Edge objects are immutable: an
    edge changed is another object) and the edge ids of each directed arc."""

    def __init__(
        self, plane: Plane, exact_limit: int, state: IncrementalTopology, nodes: list[str], edges: dict[str, Edge]
    ) -> None:
        self.plane = plane
        self.exact_limit = exact_limit
        self.state = state
        self.order = nodes  # (the node ids and edges in the plane's order: see _appended)
        self.edge_list = list(edges.values())
        self.nodes = set(nodes)
        self.edges = edges
        self.arc_edges: dict[tuple[str, str], set[str]] = {}
        for edge in edges.values():
            if edge.props.kind in DIRECTED_KINDS:
                self.arc_edges.setdefault((edge.a, edge.b), set()).add(edge.id)

    def changes(self, plane: Plane, limit: int) -> tuple[list[str], list[str], list[Edge], list[Edge]] | None:
        """(nodes gone, nodes new, edges gone, edges new) since then, or None when more than
        ``limit`` (a whole computation is then cheaper). When the plane only gained nodes and
        edges at the end of its order (an agent's writes), O(n + m) comparisons in C and
        O(changes) work; else O(n + m), in C but one loop over the edges."""
        appended = _appended(self, plane)
        if appended is not None:
            fresh_nodes, fresh_edges = appended
            if len(fresh_nodes) + len(fresh_edges) > limit:
                return None
            return [], sorted(fresh_nodes), [], fresh_edges
        return self.diff(plane, limit)

    def diff(self, plane: Plane, limit: int) -> tuple[list[str], list[str], list[Edge], list[Edge]] | None:
        """:meth:`changes` found by comparing every node and edge. O(n + m)."""
        now = plane.nodes.keys()
        gone_nodes = sorted(self.nodes - now)
        new_nodes = sorted(now - self.nodes)
        if len(gone_nodes) + len(new_nodes) > limit:
            return None
        old = self.edges
        gone = [old[i] for i in sorted(old.keys() - plane.edges.keys())]
        new: list[Edge] = []
        for edge_id, edge in plane.edges.items():
            was = old.get(edge_id)
            if was is not edge:
                if was is not None:
                    gone.append(was)
                new.append(edge)
        if len(gone_nodes) + len(new_nodes) + len(gone) + len(new) > limit:
            return None
        return gone_nodes, new_nodes, gone, new

    def apply(self, plane: Plane, changes: tuple[list[str], list[str], list[Edge], list[Edge]], work: int) -> bool:
        """Bring the state to the plane now (``changes`` from :meth:`changes`); False when its
        searches passed ``work`` nodes first (the state is then half-way: drop it). O(the
        edits' reach, see ``kappa.incremental``)."""
        gone_nodes, new_nodes, gone, new = changes
        state = self.state
        limit = state.work + work
        for edge in gone:
            if edge.props.kind in DIRECTED_KINDS:
                state.remove_arc(edge.a, edge.b)
                ids = self.arc_edges[(edge.a, edge.b)]
                ids.discard(edge.id)
                if not ids:
                    del self.arc_edges[(edge.a, edge.b)]
        for node in gone_nodes:
            state.remove_node(node)
        for node in new_nodes:
            state.add_node(node)
        for edge in new:
            if edge.props.kind in DIRECTED_KINDS:
                state.add_arc(edge.a, edge.b)
                self.arc_edges.setdefault((edge.a, edge.b), set()).add(edge.id)
                if state.work > limit:
                    return False
        if gone_nodes or gone:
            self.order, self.nodes, self.edges = list(plane.nodes), set(plane.nodes), dict(plane.edges)
            self.edge_list = list(self.edges.values())
        else:  # (only added: O(changes) in Python)
            self.nodes.update(new_nodes)
            self.edges.update((edge.id, edge) for edge in new)
            self.order, self.edge_list = list(plane.nodes), list(plane.edges.values())
        return True

    def topology(self, result: dict[str, Any]) -> Topology:
        """The Topology of ``result`` (its lookups from the arcs' edge ids). O(n + fault lines)."""
        topology = Topology(result, 0.0)
        for i, scc in enumerate(result["sccs"]):
            topology.scc_of.update(dict.fromkeys(scc["nodes"], i))  # (in C)
            for arc in scc["fault_line_edges"]:
                topology.fault_edges.update(self.arc_edges.get((arc["source"], arc["target"]), ()))
        return topology


def _appended(known: _Known, plane: Plane) -> tuple[list[str], list[Edge]] | None:
    """The nodes and edges ``plane`` holds after those ``known`` saw, when it holds those
    (the same Edge objects) first, in the same order; else None. O(n + m) comparisons in C.

    >>> from bendscope.bend.model.elements import Node
    >>> p = Plane("p")
    >>> for i in "ab":
    ...     p.add_node(Node(i))
    >>> p.add_edge(Edge("1", "a", "b"))
    >>> known = _Known(p, 8, IncrementalTopology(), list(p.nodes), dict(p.edges))
    >>> p.add_node(Node("c"))
    >>> p.add_edge(Edge("2", "b", "c"))
    >>> ids, edges = _appended(known, p)
    >>> ids, [e.id for e in edges]
    (['c'], ['2'])
    >>> _ = p.remove_edge("1")
    >>> _appended(known, p) is None
    True
    """
    ids, edges = list(plane.nodes), list(plane.edges.values())
    held, kept = len(known.order), len(known.edge_list)
    if len(ids) < held or len(edges) < kept or ids[:held] != known.order:
        return None
    if not all(map(operator.is_, edges[:kept], known.edge_list)):  # (an edge replaced is another object)
        return None
    return ids[held:], edges[kept:]


#: at most this many nodes and edges changed since the last topology (or a quarter of the
#: plane's nodes and edges, if more): it is updated edit by edit (``kappa.incremental``),
#: unless the edits' searches pass twice the plane's nodes and edges (and ``SEARCH_FLOOR``);
#: more (a load) compute it whole, in slices
INCREMENTAL_EDITS = 64
#: the edits' searches may always pass this many nodes (a small plane's are cheap either way)
SEARCH_FLOOR = 4096


class _Job:
    """One computation in progress: its plane, the state it started from, its steps."""

    def __init__(self, plane: Plane, exact_limit: int, cache: KappaCache, known: dict[str, _Known]) -> None:
        self.plane = plane
        self.version = plane.topology_version
        self.exact_limit = exact_limit
        self.busy_ms = 0.0  # time spent computing, over all slices
        self.slices = 0
        self.incremental = False
        self.steps = self._steps(cache, known)

    def current(self, plane: Plane, exact_limit: int) -> bool:
        return self.plane is plane and self.version == plane.topology_version and self.exact_limit == exact_limit

    def outrun(self, plane: Plane, exact_limit: int) -> bool:
        """A whole computation already begun that ``plane`` changed under: it goes on to the end
        (module doc), the edits since are brought in after it."""
        fits = self.plane is plane and self.exact_limit == exact_limit and not self.incremental
        return fits and self.slices > 0 and self.version != plane.topology_version

    def _steps(self, cache: KappaCache, known: dict[str, _Known]) -> Steps[Topology]:
        plane = self.plane
        held = known.get(plane.id)
        if held is not None and held.plane is plane and held.exact_limit == self.exact_limit:
            size = len(plane.nodes) + len(plane.edges)
            changes = held.changes(plane, max(INCREMENTAL_EDITS, size // 4))
            if changes is not None:
                try:
                    done = held.apply(plane, changes, max(2 * size, SEARCH_FLOOR))  # at once: no pause half-way
                except BaseException:
                    del known[plane.id]
                    raise
                if done:
                    self.incremental = True
                    result = yield from held.state.result_steps(Meter(QUANTUM))
                    return held.topology(result)
        known.pop(plane.id, None)
        topology = yield from self._whole(cache, known)
        return topology

    def _whole(self, cache: KappaCache, known: dict[str, _Known]) -> Steps[Topology]:
        """The whole plane's topology (``analyze_steps``), and the state to update it edit by
        edit afterwards."""
        plane = self.plane
        nodes = list(plane.nodes)
        edges = list(plane.edges.values())  # Edge objects are immutable: a snapshot
        by_id = dict(plane.edges)
        directed: list[dict[str, str]] = []  # only these kinds take part (the engine would skip the rest)
        for start in range(0, len(edges), _SNAPSHOT_CHUNK):
            directed.extend(
                {"source": e.a, "target": e.b, "kind": e.props.kind}
                for e in edges[start : start + _SNAPSHOT_CHUNK]
                if e.props.kind in DIRECTED_KINDS
            )
            if start + _SNAPSHOT_CHUNK < len(edges):
                yield
        result = yield from analyze_steps(
            nodes, directed, exact_limit=self.exact_limit, cache=cache, meter=Meter(QUANTUM), trusted=True
        )
        topology = Topology(result, 0.0)
        faults: set[tuple[str, str]] = set()
        for i, scc in enumerate(result["sccs"]):
            topology.scc_of.update(dict.fromkeys(scc["nodes"], i))  # (in C)
            faults.update((f["source"], f["target"]) for f in scc["fault_line_edges"])
            if len(scc["nodes"]) > _SNAPSHOT_CHUNK:
                yield
        if faults:
            for start in range(0, len(edges), _SNAPSHOT_CHUNK):
                topology.fault_edges.update(
                    e.id
                    for e in edges[start : start + _SNAPSHOT_CHUNK]
                    if (e.a, e.b) in faults and e.props.kind in DIRECTED_KINDS
                )
                if start + _SNAPSHOT_CHUNK < len(edges):
                    yield
        yield
        state = yield from IncrementalTopology.of_result_steps(
            nodes, [(d["source"], d["target"]) for d in directed], result, exact_limit=self.exact_limit, cache=cache
        )
        yield
        known[plane.id] = _Known(plane, self.exact_limit, state, nodes, by_id)
        return topology


def induced_topology(
    plane: Plane, node_ids: list[str], exact_limit: int = DEFAULT_EXACT_LIMIT, cache: KappaCache | None = None
) -> Topology:
    """The topology of the subgraph ``node_ids`` induce on ``plane``: those nodes and the
    directed edges between two of them (the spec's node-universe rule, the meaning of the
    agent tool's ``node_ids``). Synchronous. O(k + m) plus the cuts.

    >>> from bendscope.bend.model.elements import Edge, EdgeProps, Node
    >>> p = Plane("p", "P")
    >>> for n in "abc":
    ...     p.add_node(Node(n, n))
    >>> for i, (a, b) in enumerate([("a", "b"), ("b", "a"), ("b", "c"), ("c", "b")]):
    ...     p.add_edge(Edge(f"e{i}", a, b, EdgeProps("", "causal", 2)))
    >>> t = induced_topology(p, ["a", "b"])
    >>> t.max_kappa, t.result["sccs"][0]["nodes"], sorted(t.fault_edges)
    (1, ['a', 'b'], ['e0'])
    """
    chosen = set(node_ids)
    nodes = [n for n in node_ids if n in plane.nodes]
    inside = [e for e in plane.edges.values() if e.a in chosen and e.b in chosen and e.props.kind in DIRECTED_KINDS]
    start = time.perf_counter()
    result = finish(
        analyze_steps(
            nodes,
            [{"source": e.a, "target": e.b, "kind": e.props.kind} for e in inside],
            exact_limit=exact_limit,
            cache=cache,
            trusted=True,
        )
    )
    topology = Topology(result, (time.perf_counter() - start) * 1000)
    faults: set[tuple[str, str]] = set()
    for i, scc in enumerate(result["sccs"]):
        topology.scc_of.update(dict.fromkeys(scc["nodes"], i))  # (in C)
        faults.update((f["source"], f["target"]) for f in scc["fault_line_edges"])
    topology.fault_edges = {e.id for e in inside if (e.a, e.b) in faults}
    return topology


class TopologyCache:
    """Per-plane cached topology; recomputes only when the plane is dirty."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._topology: dict[str, Topology] = {}
        self._stale: dict[str, Topology] = {}  # the pending-marked copy shown meanwhile
        self._kappa_caches: dict[str, KappaCache] = {}
        self._known: dict[str, _Known] = {}  # per plane: what its last computation saw
        self._job: _Job | None = None
        self.clock = clock
        self.shown_steps = 0  # computations :meth:`shown` ran a slice of itself (a frame's), not advance's
        self.recomputes = 0
        self.on_recompute: Callable[[Plane, Topology], None] | None = None  # e.g. console.debug
        self._induced: tuple[Plane, tuple[int, int, frozenset[str]], Topology] | None = None
        #: (plane, its topology_version, its digraph, that digraph's predecessors)
        self._digraph: tuple[Plane, int, Digraph, list[list[int]]] | None = None
        self.digraphs_made = 0  # digraphs built (by :meth:`digraph` or :meth:`digraph_steps`)

    def get(self, plane: Plane, exact_limit: int | None = None) -> Topology:
        """The exact topology of ``plane`` now (finishing or running its computation)."""
        cached = self._topology.get(plane.id)
        if cached is not None and not plane.topology_dirty:
            return cached
        while True:  # (a whole computation the plane changed under first, then the edits since)
            job = self._job_for(plane, exact_limit)
            start = self.clock()
            try:
                topology = finish(job.steps)
            except BaseException:
                self._drop(job)  # a failed job is never resumed (nor its error hidden)
                raise
            job.busy_ms += (self.clock() - start) * 1000.0
            topology = self._store(job, topology)
            if job.current(plane, job.exact_limit):
                return topology

    def shown(self, plane: Plane, exact_limit: int | None = None, budget_ms: float | None = 0.0) -> Topology:
        """What to draw now: the exact topology if it is ready or finishes within
        ``budget_ms``, else the previous one marked ``pending`` (the computation goes on
        with :meth:`advance`). ``budget_ms`` None: a computation due is set up but not begun
        (all of it runs in :meth:`advance`'s slices)."""
        cached = self._topology.get(plane.id)
        if cached is not None and not plane.topology_dirty:
            return cached
        job = self._job_for(plane, exact_limit)
        self.shown_steps += budget_ms is not None
        done = None if budget_ms is None else self._run(job, budget_ms)
        if done is not None:
            return done
        cached = self._topology.get(plane.id)  # (an outrun computation may have ended in this run)
        stale = self._stale.get(plane.id)
        if stale is None or (cached is not None and stale.result is not cached.result):
            base = cached or Topology(EMPTY_RESULT, 0.0)
            stale = self._stale[plane.id] = replace(base, pending=True)
        return stale

    def pending(self, plane: Plane) -> bool:
        """Whether ``plane``'s topology is out of date (a computation is due or running)."""
        return plane.topology_dirty or plane.id not in self._topology

    def advance(self, budget_ms: float) -> bool:
        """Go on with the running computation for up to ``budget_ms`` (at least one step);
        returns whether it is still running. Stale jobs (their plane changed) are dropped."""
        job = self._job
        if job is None:
            return False
        if job.version != job.plane.topology_version and not job.outrun(job.plane, job.exact_limit):
            job.steps.close()
            self._job = None
            return False
        return self._run(job, budget_ms) is None and self._job is not None

    def _limit(self, exact_limit: int | None) -> int:
        return DEFAULT_EXACT_LIMIT if exact_limit is None else exact_limit

    def induced(self, plane: Plane, node_ids: list[str], exact_limit: int | None = None) -> Topology:
        """The topology of the subgraph ``node_ids`` induce (a multi-selection), memoised
        until the plane's structure or the set changes; SCCs come from the plane's
        KappaCache where their arcs are the same."""
        limit = self._limit(exact_limit)
        key = (plane.topology_version, limit, frozenset(node_ids))
        cached = self._induced
        if cached is not None and cached[0] is plane and cached[1] == key:  # the plane object: ids repeat
            return cached[2]
        topology = induced_topology(plane, node_ids, limit, self._kappa_caches.setdefault(plane.id, KappaCache()))
        self._induced = (plane, key, topology)
        return topology

    def digraph(self, plane: Plane) -> Digraph:
        """The κ engine's digraph of ``plane`` (its nodes and directed arcs), built once per
        structure (``plane.topology_version``: moves and words never change it) for the
        previews that ask on it card after card (:meth:`digraph_steps` run to its end, so
        its predecessors come with it). O(n log n + m) when built, O(1) after.

        >>> from bendscope.bend.model.elements import Edge, Node
        >>> plane, cache = Plane("p"), TopologyCache()
        >>> plane.add_node(Node("a")); plane.add_node(Node("b"))
        >>> g = cache.digraph(plane)
        >>> g.ids, g.out, cache.digraph(plane) is g
        (['a', 'b'], [[], []], True)
        >>> plane.add_edge(Edge("e", "a", "b"))
        >>> cache.digraph(plane).out
        [[1], []]
        """
        if not self.digraph_ready(plane):
            finish(self.digraph_steps(plane))
        assert self._digraph is not None  # (made now: nothing changed the plane meanwhile)
        return self._digraph[2]

    def digraph_steps(self, plane: Plane) -> Steps[None]:
        """:meth:`digraph` and :meth:`predecessors` made in steps (a pause every ``QUANTUM``
        arcs) on a snapshot of the plane taken at the first step, and kept if the plane's
        structure is still that snapshot's at the end: else nothing is kept
        (:meth:`digraph_ready` stays false: ask again). O(n log n + m) in all.

        >>> from bendscope.bend.model.elements import Edge, Node
        >>> from bendscope.kappa.steps import advance
        >>> plane, cache = Plane("p"), TopologyCache()
        >>> plane.add_node(Node("a")); plane.add_node(Node("b")); plane.add_edge(Edge("e", "a", "b"))
        >>> advance(cache.digraph_steps(plane), lambda: False), cache.digraph_ready(plane), cache.predecessors(plane)
        ((True, None), True, [[], [0]])
        >>> plane.add_node(Node("c"))
        >>> steps = cache.digraph_steps(plane)
        >>> next(steps)  # (begun: the snapshot is taken)
        >>> _ = plane.remove_edge("e")
        >>> advance(steps, lambda: False), cache.digraph_ready(plane), cache.digraph(plane).out
        ((True, None), False, [[], [], []])
        """
        version, nodes, snapshot = plane.topology_version, list(plane.nodes), list(plane.edges.values())
        edges: list[dict[str, str]] = []
        for k, e in enumerate(snapshot):
            edges.append({"source": e.a, "target": e.b, "kind": e.props.kind})
            if k % QUANTUM == QUANTUM - 1:
                yield
        graph = yield from build_digraph_steps(nodes, edges, Meter(quantum=QUANTUM), trusted=True)
        yield
        self.digraphs_made += 1
        if plane.topology_version == version:  # (else a newer one may be kept: keep that)
            self._digraph = (plane, version, graph, predecessors(graph))

    def digraph_ready(self, plane: Plane) -> bool:
        """Whether :meth:`digraph` and :meth:`predecessors` of ``plane`` are made for its
        structure now (nothing to build). O(1)."""
        cached = self._digraph
        return cached is not None and cached[0] is plane and cached[1] == plane.topology_version

    def predecessors(self, plane: Plane) -> list[list[int]]:
        """:meth:`digraph`'s arcs turned around (``kappa.digraph.predecessors``), made with it
        once per structure. O(1) once made."""
        self.digraph(plane)
        assert self._digraph is not None
        return self._digraph[3]

    def _job_for(self, plane: Plane, exact_limit: int | None) -> _Job:
        limit = self._limit(exact_limit)
        job = self._job
        if job is None or not (job.current(plane, limit) or job.outrun(plane, limit)):
            if job is not None:
                job.steps.close()
            job = self._job = _Job(plane, limit, self._kappa_caches.setdefault(plane.id, KappaCache()), self._known)
        return job

    def _run(self, job: _Job, budget_ms: float) -> Topology | None:
        start = self.clock()
        deadline = start + budget_ms / 1000.0
        try:
            done, topology = advance(job.steps, lambda: self.clock() >= deadline)
        except BaseException:
            self._drop(job)
            raise
        job.busy_ms += (self.clock() - start) * 1000.0
        job.slices += 1
        if not done:
            return None
        if topology is None:  # an exhausted job (cannot happen unless a step was skipped): start over
            self._drop(job)
            return None
        topology = self._store(job, topology)
        return topology if job.current(job.plane, job.exact_limit) else None  # (outrun: the edits since follow)

    def _drop(self, job: _Job) -> None:
        job.steps.close()
        if self._job is job:
            self._job = None

    def _store(self, job: _Job, topology: Topology) -> Topology:
        if self._job is job:
            self._job = None
        topology.duration_ms = job.busy_ms
        topology.slices = max(1, job.slices)
        topology.incremental = job.incremental
        plane = job.plane
        if job.version == plane.topology_version:  # (else an outrun job's: shown pending until the edits are in)
            plane.topology_dirty = False
        self._topology[plane.id] = topology
        self._stale.pop(plane.id, None)
        self.recomputes += 1
        if self.on_recompute is not None:
            self.on_recompute(plane, topology)
        return topology

    def invalidate(self, exact_limit_changed: bool = False) -> None:
        self._topology.clear()
        self._stale.clear()
        self._known.clear()
        self._induced = None
        self._digraph = None
        if self._job is not None:
            self._job.steps.close()
            self._job = None
        if exact_limit_changed:
            self._kappa_caches.clear()
