"""``analyze``: the canonical topology of a graph (spec §A.1 schema).

SCC ordering (documented): SCCs are numbered scc-0, scc-1, … in increasing order
of their smallest node id; node lists are sorted; ``dag_nodes`` is sorted.
Ids sort by Python string order (code points).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .budget import deliberation_budget
from .digraph import Digraph, build_digraph_steps
from .mincut import arc_strong_connectivity_steps
from .scc import strongly_connected_components_steps
from .steps import Meter, Steps, finish

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "KappaCache",
    "analyze",
    "analyze_digraph",
    "analyze_digraph_steps",
    "analyze_steps",
    "scc_kappa",
]

#: SCCs up to this many nodes get an exact κ. Measured in CPython 3.11 here:
#: a 2,000-node SCC takes 15 ms (≈ 3n arcs, κ = 2), 25 ms (hard case, κ = 3) and
#: 110 ms (≈ 10n arcs, κ = 8), so under 0.2 s in Pyodide (≈ 1.7× slower).
DEFAULT_EXACT_LIMIT = 2000

logger = logging.getLogger("bendscope.kappa")


#: one SCC's cached answer: κ, approximate, fault-line arcs as (source, target) pairs
CachedKappa = tuple[int, bool, tuple[tuple[str, str], ...]]


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


def scc_kappa(
    graph: Digraph, members: list[int], exact_limit: int, cache: KappaCache | None = None
) -> tuple[int, bool, list[dict[str, str]]]:
    """κ, approximate flag and fault-line edges of one nontrivial SCC.

    ``members`` are sorted node indices of a strongly connected set of ``graph``.
    O(δ·n·m) worst case for the SCC (see mincut); O(1) beyond ``exact_limit``.
    """
    return finish(scc_kappa_steps(graph, members, exact_limit, cache, Meter()))


def scc_kappa_steps(
    graph: Digraph, members: list[int], exact_limit: int, cache: KappaCache | None, meter: Meter
) -> Steps[tuple[int, bool, list[dict[str, str]]]]:
    """:func:`scc_kappa` in steps."""
    size = len(members)
    if size > exact_limit:
        return size, True, []
    ids = graph.ids
    local = {v: i for i, v in enumerate(members)}
    out: list[list[int]] = []
    rows: list[tuple[int, ...]] = []  # the cache key's arcs
    pending = 0
    for v in members:
        succ = graph.out[v]
        out.append([local[w] for w in succ if w in local])
        if cache is not None:
            rows.append(tuple(out[-1]))
        pending += 2 * len(succ) + 1
        if pending > 1024:
            if meter.spend(pending):
                yield
            pending = 0
    key: tuple[Any, ...] = ()
    if cache is not None:
        key = (tuple(ids[v] for v in members), tuple(rows))
        hit = cache.get(key)
        if hit is not None:
            return hit[0], hit[1], [{"source": s, "target": t} for s, t in hit[2]]
    kappa, arcs = yield from arc_strong_connectivity_steps(out, meter)
    pairs = tuple((ids[members[u]], ids[members[v]]) for u, v in arcs)
    if cache is not None:
        cache.put(key, (kappa, False, pairs))
    return kappa, False, [{"source": s, "target": t} for s, t in pairs]


def analyze_digraph(
    graph: Digraph, *, exact_limit: int = DEFAULT_EXACT_LIMIT, cache: KappaCache | None = None
) -> dict[str, Any]:
    """``analyze`` on an already built Digraph (no validation, no logging)."""
    return finish(analyze_digraph_steps(graph, exact_limit=exact_limit, cache=cache, meter=Meter()))


def analyze_digraph_steps(
    graph: Digraph, *, exact_limit: int = DEFAULT_EXACT_LIMIT, cache: KappaCache | None = None, meter: Meter
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
        kappa, approximate, faults = yield from scc_kappa_steps(graph, members, exact_limit, cache, meter)
        max_kappa = max(max_kappa, kappa)
        sccs.append(
            {
                "id": f"scc-{number}",
                "nodes": [ids[v] for v in members],
                "kappa": kappa,
                "approximate": approximate,
                "fault_line_edges": faults,
                "routing": "deliberate" if kappa > 0 else "fast",
                "deliberation_budget": deliberation_budget(kappa),
            }
        )
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
) -> dict[str, Any]:
    """The canonical topology of the graph (``nodes`` = the node universe).

    ``edges`` are mappings with ``source``, ``target`` and optional ``kind``; only
    ``causal``/``temporal`` kinds (or no kind) take part, self-loops and edges
    leaving the universe are ignored, parallel edges count once. SCCs larger than
    ``exact_limit`` get the spec's fallback (κ = size, approximate, no fault lines).

    >>> r = analyze(["a", "b", "c"], [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}])
    >>> r["sccs"][0]["nodes"], r["sccs"][0]["kappa"], r["dag_nodes"], r["routing"]
    (['a', 'b'], 1, ['c'], 'deliberate')

    Emits one DEBUG record on the ``kappa`` logger with duration_ms, node_count,
    edge_count, self_loops_filtered, scc_count, max_kappa and routing.
    O(n log n + m log m) plus κ per nontrivial SCC (see ``kappa.mincut``).
    """
    return finish(analyze_steps(nodes, edges, exact_limit=exact_limit, cache=cache))


def analyze_steps(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    cache: KappaCache | None = None,
    meter: Meter | None = None,
    trusted: bool = False,
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
    meter = meter or Meter()
    debug = logger.isEnabledFor(logging.DEBUG)
    start = time.perf_counter() if debug else 0.0
    graph = yield from build_digraph_steps(nodes, edges, meter, trusted=trusted)
    result = yield from analyze_digraph_steps(graph, exact_limit=exact_limit, cache=cache, meter=meter)
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
