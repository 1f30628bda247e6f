"""``analyze``: the canonical topology of a graph (spec §A.1 schema).

SCC ordering (documented): SCCs are numbered scc-0, scc-1, … in increasing order
of their smallest node id; node lists are sorted; ``dag_nodes`` is sorted.
Ids sort by Python string order (code points).

κ is exact at every size the work budget covers (``work_budget``, per SCC; see
``DEFAULT_WORK_BUDGET``). Past it an SCC reports bounds, never its size::

    {"id": "scc-0", "nodes": [...], "kappa": 3, "approximate": true,
     "kappa_range": [1, 3], "fault_line_edges": [3 arcs], "routing": ..., "deliberation_budget": ...}

``kappa`` is then the smallest cut the search found (an upper bound, ≥ 1: a real cut,
whose arcs are the ``fault_line_edges``) and ``kappa_range`` = [lower, upper] brackets
the true κ (lower ≥ 1; upper = ``kappa``). ``kappa_range`` appears only when
``approximate`` is true: exact results keep the canonical schema byte for byte.
``max_kappa``, ``routing`` and ``deliberation_budget`` use ``kappa`` as given.
With ``feedback_arc_set=True`` every SCC also carries the field of
``kappa.arcset.feedback_arc_set_field`` (the fewest arcs whose removal leaves it
without any cycle).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from .arcset import DEFAULT_ARCSET_BUDGET, feedback_arc_set_field_steps
from .budget import deliberation_budget
from .digraph import Digraph, build_digraph_steps
from .mincut import kappa_cut_steps
from .scc import strongly_connected_components_steps
from .steps import Meter, Steps, finish

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "DEFAULT_WORK_BUDGET",
    "KappaCache",
    "SccKappa",
    "analyze",
    "analyze_digraph",
    "analyze_digraph_steps",
    "analyze_steps",
    "local_kappa_steps",
    "scc_kappa",
    "scc_kappa_bounds",
    "scc_kappa_bounds_steps",
]

#: Units of work (see ``kappa.steps.Meter``: nodes and arcs visited) the cut search may spend
#: on one SCC before it reports bounds instead of κ. Measured in CPython 3.11 (bench_engine,
#: "κ at every size"): a 10,000-node SCC with ≈ 5n arcs and κ = 3 takes ≈ 3.6 M units
#: (0.3–0.9 s), one with ≈ 11n arcs and κ = 8 ≈ 32 M units (1.3 s). A unit took 33–350 ns
#: there, so a search that runs out has spent ≈ 2–15 s (≈ 1.7× that in Pyodide, where the
#: page spends it in slices between frames).
DEFAULT_WORK_BUDGET = 50_000_000

#: SCCs with more nodes than this get no cut search at all — only the bounds counting
#: degrees gives (exact when they meet). The default is no size limit: the work budget
#: decides. (``exact_limit`` is the CLI's ``--exact-limit`` and the page's ``?exact_limit=``.)
DEFAULT_EXACT_LIMIT = sys.maxsize

logger = logging.getLogger("bendscope.kappa")


#: one SCC's cached answer: κ (or its upper bound), its lower bound, the fault-line arcs as
#: (source, target) pairs, the work budget it was computed with and the work it took. The
#: same search with another budget gives the same answer if it is exact and took less
#: work than that budget; an approximate answer holds for its own budget only.
CachedKappa = tuple[int, int, tuple[tuple[str, str], ...], int, int]


class KappaCache:
    """Memo of per-SCC results keyed by the SCC's node ids and arcs.

    Pass one instance to successive ``analyze`` calls (the editor keeps one per
    plane) so SCCs whose arcs did not change are not cut again. Bounded: past
    ``max_entries`` the least recently used entry is dropped. Sized by need: an
    ``analyze`` of a graph with c nontrivial SCCs grows the bound to 2c (this graph's
    and the previous version's), up to ``growth_limit`` — a fixed bound smaller than
    the SCC count would evict every entry before its next use. Entries are immutable;
    every result handed out is a fresh copy, so callers may change it.

    >>> KappaCache(0)
    Traceback (most recent call last):
    ...
    ValueError: max_entries must be a positive int, got 0
    """

    def __init__(self, max_entries: int = 256, growth_limit: int = 100_000) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries must be a positive int, got {max_entries!r}")
        self.max_entries = max_entries
        self.growth_limit = max(growth_limit, max_entries)
        self._data: dict[tuple[Any, ...], CachedKappa] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def reserve(self, entries: int) -> None:
        """Make room for at least ``entries`` entries (up to ``growth_limit``)."""
        self.max_entries = max(self.max_entries, min(entries, self.growth_limit))

    def get(self, key: tuple[Any, ...]) -> CachedKappa | None:
        value = self._data.pop(key, None)
        if value is None:
            self.misses += 1
            return None
        self._data[key] = value  # most recently used goes last
        self.hits += 1
        return value

    def put(self, key: tuple[Any, ...], value: CachedKappa) -> None:
        self._data.pop(key, None)
        while len(self._data) >= self.max_entries:
            del self._data[next(iter(self._data))]
        self._data[key] = value


def _check_limit(exact_limit: int) -> None:
    if isinstance(exact_limit, bool) or not isinstance(exact_limit, int):
        raise TypeError(f"exact_limit must be an int, got {type(exact_limit).__name__}")
    if exact_limit < 0:
        raise ValueError(f"exact_limit must be >= 0, got {exact_limit}")


def _check_budget(work_budget: int, name: str = "work_budget") -> None:
    if isinstance(work_budget, bool) or not isinstance(work_budget, int):
        raise TypeError(f"{name} must be an int, got {type(work_budget).__name__}")
    if work_budget < 0:
        raise ValueError(f"{name} must be >= 0, got {work_budget}")


class SccKappa(NamedTuple):
    """One SCC's κ: ``kappa`` (exact, or the smallest cut found: an upper bound), ``lower``
    (``== kappa`` when exact) and the ``fault_line_edges`` of that cut."""

    kappa: int
    lower: int
    fault_line_edges: list[dict[str, str]]

    @property
    def approximate(self) -> bool:
        return self.lower < self.kappa


def scc_kappa(
    graph: Digraph,
    members: list[int],
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    *,
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> tuple[int, bool, list[dict[str, str]]]:
    """(κ, approximate, fault-line edges) of one nontrivial SCC: :func:`scc_kappa_bounds`
    without the lower bound."""
    result = scc_kappa_bounds(graph, members, exact_limit=exact_limit, cache=cache, work_budget=work_budget)
    return result.kappa, result.approximate, result.fault_line_edges


def scc_kappa_bounds(
    graph: Digraph,
    members: list[int],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> SccKappa:
    """κ of one nontrivial SCC, or bounds on it (see ``kappa.mincut``), with its fault line.

    ``members`` are sorted node indices of a strongly connected set of ``graph``. The cut
    search spends at most ``work_budget`` units, none when the SCC has more than
    ``exact_limit`` nodes. O(n + m) plus the budget (O(δ·n·m) worst case when it suffices).

    >>> from bendscope.kappa.digraph import digraph_of_arcs
    >>> pairs = [(a, b) for a in "abc" for b in "abc" if a != b] + [(a, b) for a in "xyz" for b in "xyz" if a != b]
    >>> g = digraph_of_arcs("abcxyz", pairs + [("c", "x"), ("z", "a")])  # two triangles, one arc each way
    >>> scc_kappa_bounds(g, list(range(6))).kappa
    1
    >>> scc_kappa_bounds(g, list(range(6)), work_budget=0)  # no search: the best single-node cut
    SccKappa(kappa=2, lower=1, fault_line_edges=[{'source': 'a', 'target': 'b'}, {'source': 'a', 'target': 'c'}])
    """
    return finish(scc_kappa_bounds_steps(graph, members, exact_limit, cache, Meter(), work_budget=work_budget))


def scc_kappa_bounds_steps(
    graph: Digraph,
    members: list[int],
    exact_limit: int,
    cache: KappaCache | None,
    meter: Meter,
    *,
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> Steps[SccKappa]:
    """:func:`scc_kappa_bounds` in steps."""
    ids = graph.ids
    local = {v: i for i, v in enumerate(members)}
    out: list[list[int]] = []
    pending = 0
    for v in members:
        succ = graph.out[v]
        out.append([local[w] for w in succ if w in local])
        pending += 2 * len(succ) + 1
        if pending > 1024:
            if meter.spend(pending):
                yield
            pending = 0
    found = yield from local_kappa_steps(
        [ids[v] for v in members], out, exact_limit, cache, meter, work_budget=work_budget
    )
    return found


def local_kappa_steps(
    ids: list[str],
    out: list[list[int]],
    exact_limit: int,
    cache: KappaCache | None,
    meter: Meter,
    *,
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> Steps[SccKappa]:
    """:func:`scc_kappa_bounds_steps` of one SCC given as its own digraph: its sorted node
    ``ids`` and ``out``, sorted adjacency lists on 0..k-1 (what that function builds from the
    whole graph). O(k + m) plus the cut search."""
    budget = 0 if len(ids) > exact_limit else work_budget
    key: tuple[Any, ...] = ()
    if cache is not None:
        key = (tuple(ids), tuple(map(tuple, out)))
        hit = cache.get(key)
        if hit is not None and (hit[3] == budget or (hit[0] == hit[1] and hit[4] < budget)):
            return SccKappa(hit[0], hit[1], [{"source": s, "target": t} for s, t in hit[2]])
    start = meter.total
    found = yield from kappa_cut_steps(out, meter, work_budget=budget)
    pairs = tuple((ids[u], ids[v]) for u, v in found.arcs)
    if cache is not None:
        cache.put(key, (found.kappa, found.lower, pairs, budget, meter.total - start))
    return SccKappa(found.kappa, found.lower, [{"source": s, "target": t} for s, t in pairs])


def scc_object(number: int, nodes: list[str], found: SccKappa) -> dict[str, Any]:
    """The canonical SCC object (``kappa_range`` only when approximate). O(size)."""
    scc: dict[str, Any] = {
        "id": f"scc-{number}",
        "nodes": nodes,
        "kappa": found.kappa,
        "approximate": found.approximate,
    }
    if found.approximate:
        scc["kappa_range"] = [found.lower, found.kappa]
    scc["fault_line_edges"] = found.fault_line_edges
    scc["routing"] = "deliberate" if found.kappa > 0 else "fast"
    scc["deliberation_budget"] = deliberation_budget(found.kappa)
    return scc


def analyze_digraph(
    graph: Digraph,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    work_budget: int = DEFAULT_WORK_BUDGET,
    feedback_arc_set: bool = False,
    arcset_budget: int = DEFAULT_ARCSET_BUDGET,
) -> dict[str, Any]:
    """``analyze`` on an already built Digraph (no validation, no logging)."""
    return finish(
        analyze_digraph_steps(
            graph,
            exact_limit=exact_limit,
            cache=cache,
            meter=Meter(),
            work_budget=work_budget,
            feedback_arc_set=feedback_arc_set,
            arcset_budget=arcset_budget,
        )
    )


def analyze_digraph_steps(
    graph: Digraph,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    meter: Meter,
    work_budget: int = DEFAULT_WORK_BUDGET,
    feedback_arc_set: bool = False,
    arcset_budget: int = DEFAULT_ARCSET_BUDGET,
) -> Steps[dict[str, Any]]:
    """:func:`analyze_digraph` in steps."""
    ids = graph.ids
    components = [c for c in (yield from strongly_connected_components_steps(graph.out, meter)) if len(c) > 1]
    components.sort(key=lambda c: c[0])
    if cache is not None:
        cache.reserve(2 * len(components))
    in_scc = bytearray(len(ids))
    sccs = []
    max_kappa = 0
    for number, members in enumerate(components):
        for v in members:
            in_scc[v] = 1
        found = yield from scc_kappa_bounds_steps(graph, members, exact_limit, cache, meter, work_budget=work_budget)
        max_kappa = max(max_kappa, found.kappa)
        scc = scc_object(number, [ids[v] for v in members], found)
        if feedback_arc_set:
            scc["feedback_arc_set"] = yield from feedback_arc_set_field_steps(
                graph, members, meter, work_budget=arcset_budget
            )
        sccs.append(scc)
    return {
        "sccs": sccs,
        "dag_nodes": [ids[v] for v in range(len(ids)) if not in_scc[v]],
        "routing": "deliberate" if max_kappa > 0 else "fast",
        "max_kappa": max_kappa,
        "scc_count": len(sccs),
    }


def analyze(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    work_budget: int = DEFAULT_WORK_BUDGET,
    feedback_arc_set: bool = False,
    arcset_budget: int = DEFAULT_ARCSET_BUDGET,
) -> dict[str, Any]:
    """The canonical topology of the graph (``nodes`` = the node universe).

    ``edges`` are mappings with ``source``, ``target`` and optional ``kind``; only
    ``causal``/``temporal`` kinds (or no kind) take part, self-loops and edges
    leaving the universe are ignored, parallel edges count once. Each SCC's cut search
    spends at most ``work_budget`` units (none for SCCs of more than ``exact_limit``
    nodes); past that its κ is approximate, with ``kappa_range`` (module doc).
    ``feedback_arc_set``: add each SCC's minimum feedback arc set (``kappa.arcset``),
    searched with at most ``arcset_budget`` units per SCC.

    >>> r = analyze(["a", "b", "c"], [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}])
    >>> r["sccs"][0]["nodes"], r["sccs"][0]["kappa"], r["dag_nodes"], r["routing"]
    (['a', 'b'], 1, ['c'], 'deliberate')

    Emits one DEBUG record on the ``kappa`` logger with duration_ms, node_count,
    edge_count, self_loops_filtered, scc_count, max_kappa and routing.
    O(n log n + m log m) plus κ per nontrivial SCC (see ``kappa.mincut``).
    """
    return finish(
        analyze_steps(
            nodes,
            edges,
            exact_limit=exact_limit,
            cache=cache,
            work_budget=work_budget,
            feedback_arc_set=feedback_arc_set,
            arcset_budget=arcset_budget,
        )
    )


def analyze_steps(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    meter: Meter | None = None,
    trusted: bool = False,
    work_budget: int = DEFAULT_WORK_BUDGET,
    feedback_arc_set: bool = False,
    arcset_budget: int = DEFAULT_ARCSET_BUDGET,
) -> Steps[dict[str, Any]]:
    """:func:`analyze` as steps that pause after every ``meter.quantum`` units of work, for a
    caller that runs it in slices (``kappa.steps.advance``). The result is the same however
    it is sliced. The DEBUG record's duration is the wall time from first step to last.
    ``trusted`` skips input validation (see ``kappa.digraph.build_digraph_steps``).

    >>> from bendscope.kappa.steps import advance
    >>> ring = [{"source": str(i), "target": str((i + 1) % 1500)} for i in range(1500)]
    >>> job = analyze_steps([str(i) for i in range(1500)], ring, meter=Meter(quantum=1))
    >>> slices = 1
    >>> while not (done := advance(job, lambda: True))[0]:  # every slice ends at its first pause
    ...     slices += 1
    >>> done[1]["max_kappa"], slices > 10
    (1, True)
    """
    _check_limit(exact_limit)
    _check_budget(work_budget)
    _check_budget(arcset_budget, "arcset_budget")
    meter = meter or Meter()
    debug = logger.isEnabledFor(logging.DEBUG)
    start = time.perf_counter() if debug else 0.0
    graph = yield from build_digraph_steps(nodes, edges, meter, trusted=trusted)
    result = yield from analyze_digraph_steps(
        graph,
        exact_limit=exact_limit,
        cache=cache,
        meter=meter,
        work_budget=work_budget,
        feedback_arc_set=feedback_arc_set,
        arcset_budget=arcset_budget,
    )
    if debug:
        duration_ms = (time.perf_counter() - start) * 1000.0
        logger.debug(
            "analyze: %.3fms, %d nodes, %d edges, max_kappa=%d, sccs=%d",
            duration_ms,
            len(graph.ids),
            graph.edge_count,
            result["max_kappa"],
            result["scc_count"],
            extra={
                "duration_ms": duration_ms,
                "node_count": len(graph.ids),
                "edge_count": graph.edge_count,
                "self_loops_filtered": graph.self_loops_filtered,
                "scc_count": result["scc_count"],
                "max_kappa": result["max_kappa"],
                "routing": result["routing"],
            },
        )
    return result
