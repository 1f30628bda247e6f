"""Loops: the elementary cycles of a graph, shortest first and bounded — what a person reads.

κ says how many arcs a region's weakest cut has; a causal-loop modeller also wants the loops
themselves: each one's nodes in order, its length, its polarity class — **R**einforcing (an
even number of ``−`` arcs), **B**alancing (odd), or ``?`` when an arc has no polarity — and
the fault-line arcs it runs through ("cutting the fault line breaks these loops").

How: loops lie inside strongly connected components, so each nontrivial SCC is searched on
its own. For length ℓ = 2, 3, … up to ``max_length``, every elementary cycle of exactly ℓ arcs
is found once, from its smallest node s, by a depth-first search over larger nodes only, in
order of their ids, extended only while it can still return to s in time (the distance back
to s is a breadth-first search over the reversed arcs, once per s). So loops come out
shortest first, then in the order of their node ids, and the search stops after
``max_loops`` loops of an SCC (``complete`` false: there are more, or longer ones). Each arc
the search takes is a unit of work for the :class:`~bendscope.kappa.steps.Meter`, so a page
can run it in slices (:func:`loops_steps`); ``max_work`` bounds it in all.

Parallel edges are one arc (as for κ); its polarity is theirs when they agree, else ``?``.

>>> result = find_loops(["a", "b", "c"], [
...     {"source": "a", "target": "b", "polarity": "+"}, {"source": "b", "target": "a", "polarity": "-"},
...     {"source": "b", "target": "c", "polarity": "+"}, {"source": "c", "target": "a", "polarity": "+"}])
>>> [(loop["nodes"], loop["polarity"]) for loop in result["sccs"][0]["loops"]]
[(['a', 'b'], 'B'), (['a', 'b', 'c'], 'R')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .analyze import DEFAULT_EXACT_LIMIT, DEFAULT_WORK_BUDGET, analyze_digraph
from .digraph import DIRECTED_KINDS, Digraph, build_digraph, build_digraph_steps
from .steps import Meter, Steps, finish

__all__ = [
    "MAX_LENGTH",
    "MAX_LOOPS",
    "MAX_WORK",
    "find_loops",
    "find_loops_steps",
    "loops_steps",
    "polarity_class",
    "topology_loops_steps",
]

#: the loops listed per SCC, their longest length, and the arcs a whole search may take
MAX_LOOPS = 100
MAX_LENGTH = 12
MAX_WORK = 2_000_000
POLARITIES = ("+", "-")


def polarity_class(signs: Iterable[str | None]) -> str:
    """R (an even number of ``-``), B (odd), or ``?`` when a sign is missing.

    >>> polarity_class(["+", "-", "-"]), polarity_class(["-", "+"]), polarity_class(["+", None])
    ('R', 'B', '?')
    """
    negative = 0
    for sign in signs:
        if sign not in POLARITIES:
            return "?"
        negative += sign == "-"
    return "B" if negative % 2 else "R"


def _arc_signs(
    graph: Digraph, edges: Iterable[Mapping[str, Any]], meter: Meter
) -> Steps[dict[tuple[int, int], str | None]]:
    """The polarity of each arc: its edges' when they all carry the same one, else None. O(m)."""
    signs: dict[tuple[int, int], str | None] = {}
    for i, edge in enumerate(edges):
        if i and not i & 1023 and meter.spend(1024):
            yield
        kind = edge.get("kind")
        if kind is not None and kind not in DIRECTED_KINDS:
            continue
        u, v = graph.index.get(edge["source"]), graph.index.get(edge["target"])
        if u is None or v is None or u == v:
            continue
        sign = edge.get("polarity")
        sign = sign if sign in POLARITIES else None
        signs[(u, v)] = sign if signs.get((u, v), sign) == sign else None
    return signs


def loops_steps(
    graph: Digraph,
    sccs: list[list[int]],
    *,
    max_loops: int = MAX_LOOPS,
    max_length: int = MAX_LENGTH,
    max_work: int = MAX_WORK,
    meter: Meter | None = None,
) -> Steps[list[tuple[list[list[int]], bool]]]:
    """The loops of each SCC (node indices), shortest first, as (loops, complete): a loop is
    its node indices in order from its smallest; ``complete`` when every loop of the SCC is
    listed — none past max_loops, the work bound not reached, and the SCC no larger than
    max_length (so no loop of it is longer). Lengths are taken in turn over all the SCCs
    (every SCC's 2-loops, then 3-loops, …), so a giant SCC cannot use up the work before the
    others' short loops are found. A unit of work is an arc followed. O(max_work).

    >>> from bendscope.kappa.digraph import digraph_of_arcs
    >>> ring = digraph_of_arcs("abcd", [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("b", "a")])
    >>> finish(loops_steps(ring, [[0, 1, 2, 3]]))
    [([[0, 1], [0, 1, 2, 3]], True)]
    """
    meter = meter or Meter()
    work = 0
    wanted = max_loops + 1  # (one more than listed: whether there are more)
    searches: list[tuple[list[int], dict[int, list[int]], dict[int, list[int]]]] = []
    for members in sccs:
        inside = set(members)
        out = {v: [w for w in graph.out[v] if w in inside] for v in members}
        into: dict[int, list[int]] = {v: [] for v in members}
        for v in members:
            for w in out[v]:
                into[w].append(v)
        searches.append((sorted(members), out, into))
    found: list[list[list[int]]] = [[] for _ in sccs]
    searched = [1] * len(sccs)  # the length each SCC's loops are all found up to
    stopped = False  # the work bound was reached
    for length in range(2, max_length + 1):
        for k, (members, out, into) in enumerate(searches):
            loops = found[k]
            if len(loops) >= wanted or length > len(members):
                continue
            for start in members:
                # the distance back to start of each larger node, as far as a loop of this length reaches
                back = {start: 0}
                frontier = [start]
                for distance in range(1, length):
                    reached = []
                    spent = len(frontier)
                    for v in frontier:
                        work += len(into[v])
                        spent += len(into[v])
                        for u in into[v]:
                            if u > start and u not in back:
                                back[u] = distance
                                reached.append(u)
                    frontier = reached
                    if meter.spend(spent):
                        yield  # (a pause here too: on a large region these searches are most of the work)
                path = [start]
                on_path = {start}
                stack = [iter(out[start])]
                while stack:
                    if work > max_work:
                        stopped = True
                        break
                    step = next(stack[-1], None)
                    if step is None:
                        stack.pop()
                        on_path.discard(path.pop())
                        continue
                    work += 1
                    if meter.spend(1):
                        yield
                    depth = len(path)  # (arcs taken so far + 1 with this one)
                    if step == start:
                        if depth == length:
                            loops.append(list(path))
                            if len(loops) >= wanted:
                                break
                        continue
                    if step < start or step in on_path or depth + back.get(step, length + 1) > length:
                        continue
                    path.append(step)
                    on_path.add(step)
                    stack.append(iter(out[step]))
                if stopped or len(loops) >= wanted:
                    break
            if stopped:
                break
            searched[k] = length
        if stopped:
            break
    return [
        (loops[:max_loops], len(loops) <= max_loops and searched[k] >= len(members) and len(members) <= max_length)
        for k, (loops, (members, _, _)) in enumerate(zip(found, searches, strict=True))
    ]


def find_loops(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    *,
    max_loops: int = MAX_LOOPS,
    max_length: int = MAX_LENGTH,
    max_work: int = MAX_WORK,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    work_budget: int = DEFAULT_WORK_BUDGET,
) -> dict[str, Any]:
    """The loops of the graph (``edges``: mappings with ``source``, ``target`` and optional
    ``kind`` and ``polarity``), by SCC as the canonical topology numbers them::

        {"sccs": [{"id", "kappa", "nodes", "loops": [{"nodes", "length", "polarity",
                   "fault_lines"}], "counts": {"R", "B", "?"}, "complete"}],
         "loop_count", "complete", "max_loops", "max_length"}

    O(max_work) on top of ``analyze`` (for the SCCs, κ and fault lines; ``exact_limit`` and
    ``work_budget`` as there)."""
    return finish(
        find_loops_steps(
            nodes,
            edges,
            max_loops=max_loops,
            max_length=max_length,
            max_work=max_work,
            exact_limit=exact_limit,
            work_budget=work_budget,
        )
    )


def find_loops_steps(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    *,
    max_loops: int = MAX_LOOPS,
    max_length: int = MAX_LENGTH,
    max_work: int = MAX_WORK,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    work_budget: int = DEFAULT_WORK_BUDGET,
    meter: Meter | None = None,
) -> Steps[dict[str, Any]]:
    """:func:`find_loops` in steps (the loop search pauses; the analysis before it runs whole)."""
    edge_list = list(edges)
    node_list = list(nodes)
    topology = analyze_digraph(build_digraph(node_list, edge_list), exact_limit=exact_limit, work_budget=work_budget)
    return (
        yield from topology_loops_steps(
            node_list, edge_list, topology, max_loops=max_loops, max_length=max_length, max_work=max_work, meter=meter
        )
    )


def topology_loops_steps(
    nodes: Iterable[str],
    edges: Iterable[Mapping[str, Any]],
    topology: Mapping[str, Any],
    *,
    max_loops: int = MAX_LOOPS,
    max_length: int = MAX_LENGTH,
    max_work: int = MAX_WORK,
    meter: Meter | None = None,
    trusted: bool = False,
) -> Steps[dict[str, Any]]:
    """:func:`find_loops` in steps for a graph whose canonical ``topology`` is known (an
    editor has it already): its SCCs, κ and fault lines are taken from there; building the
    graph pauses too. ``trusted`` as for :func:`~bendscope.kappa.digraph.build_digraph_steps`.
    O(n log n + m log m + max_work)."""
    edge_list = list(edges)
    meter = meter or Meter()
    graph = yield from build_digraph_steps(nodes, edge_list, meter, trusted=trusted)
    sccs = [[graph.index[n] for n in scc["nodes"]] for scc in topology["sccs"]]
    faults = [
        {(graph.index[f["source"]], graph.index[f["target"]]) for f in scc["fault_line_edges"]}
        for scc in topology["sccs"]
    ]
    signs = yield from _arc_signs(graph, edge_list, meter)
    found = yield from loops_steps(
        graph, sccs, max_loops=max_loops, max_length=max_length, max_work=max_work, meter=meter
    )
    ids = graph.ids
    out = []
    for scc, fault, (loops, complete) in zip(topology["sccs"], faults, found, strict=True):
        listed = []
        counts = {"R": 0, "B": 0, "?": 0}
        for loop in loops:
            arcs = [(loop[k], loop[(k + 1) % len(loop)]) for k in range(len(loop))]
            polarity = polarity_class(signs.get(arc) for arc in arcs)
            counts[polarity] += 1
            listed.append(
                {
                    "nodes": [ids[v] for v in loop],
                    "length": len(loop),
                    "polarity": polarity,
                    "fault_lines": [{"source": ids[u], "target": ids[v]} for u, v in arcs if (u, v) in fault],
                }
            )
        out.append(
            {
                "id": scc["id"],
                "kappa": scc["kappa"],
                "nodes": scc["nodes"],
                "loops": listed,
                "counts": counts,
                "complete": complete,
            }
        )
    return {
        "sccs": out,
        "loop_count": sum(len(s["loops"]) for s in out),
        "complete": all(s["complete"] for s in out),
        "max_loops": max_loops,
        "max_length": max_length,
    }
