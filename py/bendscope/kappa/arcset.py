"""The minimum feedback arc set of a loop region: the fewest arcs whose removal leaves it
with no cycle at all — exactly where a work budget allows, else a range.

This is not κ. κ is the fewest arcs whose removal *splits* a strongly connected region;
breaking *every* loop can take more: Births ⇄ Population, Population → Deaths,
Deaths → Population has κ = 1 (cut Births → Population and Births is no longer in the
loop) while no cycle is left only after two arcs go (one of each 2-cycle). Every feedback
arc set splits the region, so it has at least κ arcs; the degree bound below is never
smaller than κ either.

Arcs. The engine's simple digraph (``kappa.digraph``), as for κ: parallel edges between
the same two nodes in the same direction are one arc (cutting it means removing all of
them), and self-loops are not arcs: a self-loop edge is a cycle of its own that only its
own removal breaks, so it is left out of the count (``analyze`` ignores it too). Only
causal/temporal (or kind-less) edges take part.

Method, per strongly connected component (a digraph's feedback arc sets are the unions
of its SCCs' ones; ``n`` nodes, ``m`` arcs):

1. Upper bound (always, whatever the budget): the Eades–Lin–Smyth ordering (sinks to the
   back, sources to the front, else the node with the largest out − in degree), then
   local improvement within a quarter of the budget: *sifting* (move one node to the
   place among its neighbours where fewest of its arcs point backwards, until no move
   helps) and putting back every removed arc whose return closes no cycle. The arcs
   pointing backwards in the final order are a real feedback arc set.
2. Lower bounds: the degree bound — the acyclic rest has a source s and a sink t, so all
   arcs into s and out of t are removed: at least min in-degree + min out-degree − 1
   (− 1 only when an arc joins such a t to such an s; an isolated node costs both) — and
   a greedy packing of cycles with no removable arc in common (each needs its own removed
   arc), within another quarter of the budget.
3. Exact search, while the bounds differ, with what is left of the budget: iterative
   deepening over the size t = lower, lower + 1, …: "is there a set of at most t arcs?",
   answered by branch and bound. A node picks the cycle with the fewest removable arcs
   e₁…e_k; branch i removes eᵢ and forbids removing e₁…eᵢ₋₁ (every solution falls in
   exactly one branch: the one of its first arc on the cycle); what is left splits into
   strongly connected parts solved independently (memoised); a part of at most
   ``DP_NODES`` nodes is solved by dynamic programming over the subsets of its nodes
   (the best order of a set, the node placed last paying for its arcs back into the
   rest). Each node is pruned by both lower bounds. A size t that fails is a proven
   lower bound t + 1, so the range narrows even when the search cannot end.

Work is counted in units of the :class:`~bendscope.kappa.steps.Meter` (nodes and arcs
visited; one per subset and node in the dynamic programme), so a budget gives the same
answer on every machine, and the search runs in slices like the rest of the engine.
Everything is deterministic: nodes in index order (the sorted ids), ties to the
smallest. Cost: O(m log n) for the upper bound, O(n·(n + m)) per packing or search node,
exponential in the worst case for the exact search (bounded by the budget).

The field the topology carries per SCC (``analyze(..., feedback_arc_set=True)``, the CLI's
``analyze --feedback-arc-set``, and :func:`feedback_arc_set_field` for a caller of its
own such as the agent memory)::

    "feedback_arc_set": {"size": 2, "exact": true, "lower_bound": 2,
                         "edges": [{"source": "births", "target": "population"}, ...]}

``edges``: the arcs of the set, sorted by (source, target); removing them leaves the SCC
acyclic. ``size`` = len(edges), the optimum when ``exact``, else an upper bound;
``lower_bound`` ≤ the optimum ≤ ``size`` (equal iff ``exact``).

>>> from bendscope.kappa.digraph import digraph_of_arcs
>>> field = feedback_arc_set_field(
...     digraph_of_arcs(["births", "deaths", "population"], [("births", "population"),
...     ("population", "births"), ("population", "deaths"), ("deaths", "population")]), [0, 1, 2])
>>> field["size"], field["exact"], field["lower_bound"]
(2, True, 2)
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .digraph import Digraph
from .scc import strongly_connected_components, strongly_connected_components_steps
from .steps import Meter, Steps, finish

__all__ = [
    "DEFAULT_ARCSET_BUDGET",
    "DP_NODES",
    "ArcSet",
    "feedback_arc_set_field",
    "feedback_arc_set_field_steps",
    "minimum_feedback_arc_set",
    "minimum_feedback_arc_set_steps",
]

#: Units of work one SCC's feedback arc set may take (see the module doc). Measured in
#: CPython 3.11 (bench_engine, "feedback arc sets"): ≈ 100 ns a unit.
DEFAULT_ARCSET_BUDGET = 5_000_000

#: Parts of at most this many nodes are solved by the dynamic programme (n·2ⁿ units).
DP_NODES = 10

#: The exact search gives up (as out of budget) past this many nested branches.
MAX_DEPTH = 64

_INFEASIBLE = 1 << 40  # a lower bound meaning "no set avoids the forbidden arcs"

Arc = tuple[int, int]


class ArcSet(NamedTuple):
    """A feedback arc set and what is proven about the optimum.

    ``arcs``: sorted (source, target) pairs whose removal leaves the digraph acyclic;
    ``lower``: a lower bound on the fewest such arcs (``lower == size`` iff ``exact``).
    """

    arcs: list[Arc]
    lower: int

    @property
    def size(self) -> int:
        return len(self.arcs)

    @property
    def exact(self) -> bool:
        return self.lower == len(self.arcs)


class _OutOfBudget(Exception):
    """The exact search used up its budget (the bounds found so far stand)."""


def minimum_feedback_arc_set(out: list[list[int]], *, work_budget: int | None = DEFAULT_ARCSET_BUDGET) -> ArcSet:
    """A minimum feedback arc set of the digraph ``out`` (adjacency lists on 0..n-1, no
    self-loops or parallel arcs; any digraph), solved per SCC with ``work_budget`` units
    each (``None``: no limit); ``lower`` is the sum of the SCCs' lower bounds.

    >>> minimum_feedback_arc_set([[1], [0, 2], [1]])  # two 2-cycles through node 1
    ArcSet(arcs=[(1, 0), (2, 1)], lower=2)
    >>> minimum_feedback_arc_set([[1], [2], []]).exact  # acyclic already
    True
    """
    return finish(minimum_feedback_arc_set_steps(out, Meter(), work_budget=work_budget))


def minimum_feedback_arc_set_steps(
    out: list[list[int]], meter: Meter, *, work_budget: int | None = DEFAULT_ARCSET_BUDGET
) -> Steps[ArcSet]:
    """:func:`minimum_feedback_arc_set` in steps."""
    arcs: list[Arc] = []
    lower = 0
    for members in (yield from strongly_connected_components_steps(out, meter)):
        if len(members) < 2:
            continue
        local = {v: i for i, v in enumerate(members)}
        sub = [[local[w] for w in out[v] if w in local] for v in members]
        found = yield from _component_steps(sub, meter, meter.deadline(work_budget))
        arcs.extend((members[u], members[v]) for u, v in found.arcs)
        lower += found.lower
    return ArcSet(sorted(arcs), lower)


def feedback_arc_set_field(
    graph: Digraph, members: list[int], *, work_budget: int | None = DEFAULT_ARCSET_BUDGET
) -> dict[str, Any]:
    """The ``feedback_arc_set`` field (module doc) of the strongly connected set ``members``
    (sorted node indices of ``graph``, e.g. one SCC of ``analyze``), by node id."""
    return finish(feedback_arc_set_field_steps(graph, members, Meter(), work_budget=work_budget))


def feedback_arc_set_field_steps(
    graph: Digraph, members: list[int], meter: Meter, *, work_budget: int | None = DEFAULT_ARCSET_BUDGET
) -> Steps[dict[str, Any]]:
    """:func:`feedback_arc_set_field` in steps."""
    local = {v: i for i, v in enumerate(members)}
    sub = [[local[w] for w in graph.out[v] if w in local] for v in members]
    found = yield from minimum_feedback_arc_set_steps(sub, meter, work_budget=work_budget)
    ids = graph.ids
    return {
        "size": found.size,
        "exact": found.exact,
        "lower_bound": found.lower,
        "edges": [{"source": ids[members[u]], "target": ids[members[v]]} for u, v in found.arcs],
    }


def _component_steps(out: list[list[int]], meter: Meter, deadline: int) -> Steps[ArcSet]:
    """The feedback arc set of one strongly connected digraph (n ≥ 2) within ``deadline``."""
    forbidden: frozenset[Arc] = frozenset()
    lower = _degree_bound(out, forbidden)
    order = yield from _eades_order(out, meter)
    quarter = max(0, deadline - meter.total) // 4
    upper = yield from _improve(out, order, meter, min(deadline, meter.total + quarter))
    if len(upper) > lower:
        packed = yield from _packing(out, forbidden, meter, min(deadline, meter.total + quarter))
        lower = max(lower, packed)
    if len(upper) > lower:
        search = _Search(meter, deadline)
        root = _Part(list(range(len(out))), out, forbidden)
        try:
            while lower < len(upper):
                found = yield from search.solve(root, lower)
                if found is not None:
                    upper = found
                    break
                lower = max(lower + 1, search.memo[root.key()][0])  # what the search proved
        except _OutOfBudget:
            return ArcSet(sorted(upper), lower)
    return ArcSet(sorted(upper), len(upper))


# ---------------------------------------------------------------- the upper bound


def _predecessors(out: list[list[int]]) -> list[list[int]]:
    preds: list[list[int]] = [[] for _ in out]
    for u, succ in enumerate(out):
        for v in succ:
            preds[v].append(u)
    return preds


def _eades_order(out: list[list[int]], meter: Meter) -> Steps[list[int]]:
    """The Eades–Lin–Smyth order (ties to the smallest index). O(m log n)."""
    n = len(out)
    preds = _predecessors(out)
    indeg = [len(p) for p in preds]
    outdeg = [len(s) for s in out]
    removed = bytearray(n)
    sinks = [v for v in range(n) if not outdeg[v]]
    sources = [v for v in range(n) if not indeg[v]]
    best = [(indeg[v] - outdeg[v], v) for v in range(n)]  # a min-heap of in − out (lazy)
    heapq.heapify(best)
    front: list[int] = []
    back: list[int] = []

    def remove(v: int) -> int:
        removed[v] = 1
        for w in out[v]:
            if not removed[w]:
                indeg[w] -= 1
                if not indeg[w]:
                    heapq.heappush(sources, w)
                heapq.heappush(best, (indeg[w] - outdeg[w], w))
        for w in preds[v]:
            if not removed[w]:
                outdeg[w] -= 1
                if not outdeg[w]:
                    heapq.heappush(sinks, w)
                heapq.heappush(best, (indeg[w] - outdeg[w], w))
        return 1 + len(out[v]) + len(preds[v])

    work = 0
    while len(front) + len(back) < n:
        if sinks:
            v = heapq.heappop(sinks)
            if not removed[v]:
                work += remove(v)
                back.append(v)
        elif sources:
            v = heapq.heappop(sources)
            if not removed[v]:
                work += remove(v)
                front.append(v)
        else:
            key, v = heapq.heappop(best)
            if not removed[v] and key == indeg[v] - outdeg[v]:
                work += remove(v)
                front.append(v)
        if work > 1024:
            if meter.spend(work):
                yield
            work = 0
    return front + back[::-1]


def _improve(out: list[list[int]], order: list[int], meter: Meter, deadline: int) -> Steps[list[Arc]]:
    """The backward arcs of ``order`` after sifting and putting back the arcs whose return
    closes no cycle, for as long as either helps and the meter is before ``deadline``. Each
    round removes fewer arcs than the one before, so the rounds end."""
    n = len(out)
    preds = _predecessors(out)
    pos = [0.0] * n
    for i, v in enumerate(order):
        pos[v] = float(i)
    while True:
        yield from _sift(out, preds, pos, meter, deadline)
        backward = sorted((u, v) for u in range(n) for v in out[u] if pos[u] > pos[v])
        if meter.total >= deadline:
            return backward
        kept = yield from _put_back(out, preds, pos, backward, meter, deadline)
        if len(kept) == len(backward):
            return backward


def _sift(out: list[list[int]], preds: list[list[int]], pos: list[float], meter: Meter, deadline: int) -> Steps[None]:
    """Sweeps that move each node (in order) to the gap between its neighbours where fewest
    of its arcs point backwards, when that is fewer than where it is, until a sweep moves
    none (or the deadline); positions end as ranks. O(m log Δ) per sweep."""
    n = len(out)
    while meter.total < deadline:
        moved = False
        for v in sorted(range(n), key=lambda x: (pos[x], x)):
            here = pos[v]
            net: dict[float, int] = {}
            for w in out[v]:  # v → w points backwards when w is placed before v
                net[pos[w]] = net.get(pos[w], 0) + 1
            for w in preds[v]:  # w → v points backwards when w is placed after v
                net[pos[w]] = net.get(pos[w], 0) - 1
            keys = sorted(net)
            if not keys:
                continue
            cost = len(preds[v])  # before every neighbour: every in-arc points backwards
            best_cost, best_gap, current = cost, 0, cost
            for i, key in enumerate(keys):
                cost += net[key]
                if key < here:
                    current = cost
                if cost < best_cost:
                    best_cost, best_gap = cost, i + 1
            if best_cost < current:
                low = keys[best_gap - 1] if best_gap else keys[0] - 2.0
                high = keys[best_gap] if best_gap < len(keys) else keys[-1] + 2.0
                middle = (low + high) / 2
                if low < middle < high:  # (floating point: else the move waits for the next sweep's ranks)
                    pos[v] = middle
                    moved = True
            if meter.spend(len(keys) + 1):
                yield
        for rank, v in enumerate(sorted(range(n), key=lambda x: (pos[x], x))):
            pos[v] = float(rank)
        if not moved:
            return


def _put_back(
    out: list[list[int]], preds: list[list[int]], pos: list[float], backward: list[Arc], meter: Meter, deadline: int
) -> Steps[list[Arc]]:
    """``backward`` (the arcs pointing backwards in ``pos``) without those that close no
    cycle when put back, one at a time in order; ``pos`` stays a topological order of what
    is left. While ``pos`` orders the remaining arcs forwards, the head v of an arc u → v
    reaches its tail only through nodes placed between them (the set F it reaches there);
    when it does not, the nodes B that reach u from there are moved before F, each set in
    its order, onto the same positions (Pearce and Kelly's dynamic topological order).
    O(|backward|·(n + m)), much less when the arcs are short."""
    removed = set(backward)
    kept: list[Arc] = []
    for u, v in backward:
        if meter.total >= deadline:
            kept.append((u, v))
            continue
        work, reach = _window(out, removed, pos, v, u, forward=True)
        if meter.spend(work):
            yield
        if reach is None:
            kept.append((u, v))
            continue
        removed.discard((u, v))
        work, back = _window(preds, removed, pos, u, v, forward=False)
        assert back is not None  # (u does not reach v: the arcs left are acyclic)
        moved = sorted(back, key=pos.__getitem__) + sorted(reach, key=pos.__getitem__)
        for x, p in zip(moved, sorted(pos[x] for x in moved), strict=True):
            pos[x] = p
        if meter.spend(work + 2 * len(moved)):
            yield
    return kept


def _window(
    adjacent: list[list[int]], removed: set[Arc], pos: list[float], start: int, goal: int, forward: bool
) -> tuple[int, set[int] | None]:
    """The nodes ``start`` reaches over the arcs not ``removed`` (``adjacent``: successors
    when ``forward``, else predecessors) without passing ``goal``'s position, or None if it
    reaches ``goal``; with the work done first. O(what it reaches)."""
    seen = {start}
    stack = [start]
    work = 0
    while stack:
        x = stack.pop()
        work += 1 + len(adjacent[x])
        for y in adjacent[x]:
            if y in seen or ((x, y) if forward else (y, x)) in removed:
                continue
            if y == goal:
                return work, None
            if (pos[y] < pos[goal]) if forward else (pos[y] > pos[goal]):
                seen.add(y)
                stack.append(y)
    return work, seen


# ---------------------------------------------------------------- lower bounds


def _degree_bound(out: list[list[int]], forbidden: frozenset[Arc]) -> int:
    """min in-degree + min out-degree − [an arc joins such a sink to such a source], over the
    nodes that can be a source (no forbidden arc in) or a sink (none out) of the acyclic rest
    of a strongly connected digraph of ≥ 2 nodes; ``_INFEASIBLE`` when none can. O(n + m)."""
    n = len(out)
    indeg = [0] * n
    can_source = [True] * n
    can_sink = [True] * n
    for u in range(n):
        for v in out[u]:
            indeg[v] += 1
            if (u, v) in forbidden:
                can_sink[u] = False
                can_source[v] = False
    ins = [indeg[v] for v in range(n) if can_source[v]]
    outs = [len(out[v]) for v in range(n) if can_sink[v]]
    if not ins or not outs:
        return _INFEASIBLE
    low_in, low_out = min(ins), min(outs)
    for t in range(n):
        if can_sink[t] and len(out[t]) == low_out:
            for s in out[t]:
                if can_source[s] and indeg[s] == low_in:
                    return low_in + low_out - 1
    return low_in + low_out


#: arcs with their weight: (head, 1) for a removable arc, (head, 0) for a forbidden one
Weighted = list[list[tuple[int, int]]]


def _weighted(out: list[list[int]], forbidden: frozenset[Arc]) -> Weighted:
    return [[(y, 0 if (x, y) in forbidden else 1) for y in succ] for x, succ in enumerate(out)]


def _cheapest_cycle(arcs: Weighted, start: int, limit: int) -> tuple[int, int, list[int]]:
    """The cycle through ``start`` with the fewest removable arcs, if it has fewer than
    ``limit``: (the work done, that number, its nodes from ``start``), else (work, limit,
    []). A 0-1 breadth-first search. O(n + m)."""
    n = len(arcs)
    dist = [limit] * n
    via = [-1] * n
    dist[start] = 0
    queue: deque[int] = deque([start])
    best, last = limit, -1
    work = n // 8  # (the arrays)
    while queue:
        x = queue.popleft()
        d = dist[x]
        if d >= best:
            continue
        work += 1 + len(arcs[x])
        for y, w in arcs[x]:
            if y == start:
                if d + w < best:
                    best, last = d + w, x
            elif d + w < dist[y]:
                dist[y] = d + w
                via[y] = x
                if w:
                    queue.append(y)
                else:
                    queue.appendleft(y)
    if last < 0:
        return work, limit, []
    path = [last]
    while path[-1] != start:
        path.append(via[path[-1]])
    return work, best, path[::-1]


def _packing(
    out: list[list[int]], forbidden: frozenset[Arc], meter: Meter, deadline: int, rounds: bool = True
) -> Steps[int]:
    """How many cycles were found with no removable arc in common (each needs a removed arc
    of its own): cheapest cycles through each node in turn, their removable arcs then used
    up. With ``rounds``, first in rounds that search only as far as cycles of at most 2 (1
    with forbidden arcs), 3 and 4 removable arcs — short cycles first, cheap searches while
    the radius is small — then without a limit. Stops early at ``deadline`` (the count so
    far is still a lower bound); ``_INFEASIBLE`` when a cycle has forbidden arcs only.
    O(n·(n + m)) a round."""
    usable = _weighted(out, forbidden)
    n = len(out)
    count = 0
    cap = (1 if forbidden else 2) if rounds else n
    alive = list(range(n))  # the nodes a cycle may still run through
    while alive and meter.total < deadline:
        last = cap >= n
        left = []
        for start in alive:
            while True:
                if meter.total >= deadline:
                    return count
                work, free, cycle = _cheapest_cycle(usable, start, cap + 1)
                if meter.spend(work):
                    yield
                if not cycle:
                    if not last:
                        left.append(start)
                    break
                if not free:
                    return _INFEASIBLE
                for i, a in enumerate(cycle):
                    b = cycle[(i + 1) % len(cycle)]
                    if (a, b) not in forbidden:
                        usable[a].remove((b, 1))
                count += 1
        alive = left
        cap = cap + 1 if cap < 4 else n
    return count


# ---------------------------------------------------------------- the exact search


@dataclass(frozen=True)
class _Part:
    """A strongly connected part: its nodes (component indices, sorted), its arcs on local
    indices, and the arcs that may not be removed (local pairs)."""

    names: list[int]
    out: list[list[int]]
    forbidden: frozenset[Arc]

    def key(self) -> tuple[Any, ...]:
        return tuple(self.names), tuple(map(tuple, self.out)), tuple(sorted(self.forbidden))


@dataclass
class _Search:
    meter: Meter
    deadline: int
    memo: dict[tuple[Any, ...], tuple[int, list[Arc] | None]] = field(default_factory=dict)

    def spend(self, units: int) -> bool:
        if self.meter.total >= self.deadline:
            raise _OutOfBudget
        return self.meter.spend(units)

    def solve(self, part: _Part, limit: int, depth: int = 0) -> Steps[list[Arc] | None]:
        """A minimum set of removable arcs of ``part`` (component indices) whose removal
        leaves it acyclic, if it has at most ``limit`` arcs; else None. ``depth``: how many
        branches deep this part is (past ``MAX_DEPTH`` the search gives up, as out of budget:
        each level is a generator frame, and Pyodide's stack is small)."""
        if depth > MAX_DEPTH:
            raise _OutOfBudget
        key = part.key()
        known = self.memo.get(key)
        if known is not None:
            lower, solution = known
            if solution is not None:
                return solution if len(solution) <= limit else None
            if lower > limit:
                return None
        out, forbidden, names = part.out, part.forbidden, part.names
        size = len(out) + sum(map(len, out))  # the units of one pass over the part
        n = len(out)
        if self.spend(size):
            yield
        lower = _degree_bound(out, forbidden)
        if lower <= limit and n <= DP_NODES:
            solution = yield from self._ordering(part)
            self.memo[key] = (_INFEASIBLE, None) if solution is None else (len(solution), solution)
            return solution if solution is not None and len(solution) <= limit else None
        if lower <= limit:
            lower = max(lower, (yield from _packing(out, forbidden, self.meter, self.deadline, rounds=False)))
        if lower > limit:
            self.memo[key] = (lower, None)
            return None
        cycle = yield from self._branch_cycle(part)
        arcs = [(cycle[i], cycle[(i + 1) % len(cycle)]) for i in range(len(cycle))]
        free = [a for a in arcs if a not in forbidden]
        best: list[Arc] | None = None
        bound = limit
        for i, (a, b) in enumerate(free):
            if self.spend(2 * size):  # the rest, its SCCs and their degree bounds
                yield
            kept = forbidden | set(free[:i])
            rest = [[w for w in succ if (u, w) != (a, b)] for u, succ in enumerate(out)]
            parts = [_sub_part(names, rest, kept, c) for c in strongly_connected_components(rest) if len(c) > 1]
            lows = [_degree_bound(p.out, p.forbidden) for p in parts]
            if 1 + sum(lows) > bound:
                continue
            total = [(names[a], names[b])]
            room = bound - 1
            for j, sub in enumerate(parts):
                found = yield from self.solve(sub, room - sum(lows[j + 1 :]), depth + 1)
                if found is None:
                    break
                total += found
                room -= len(found)
            else:
                best, bound = total, len(total) - 1
                if len(best) <= lower:
                    break
        self.memo[key] = (limit + 1, None) if best is None else (len(best), best)
        return best

    def _branch_cycle(self, part: _Part) -> Steps[list[int]]:
        """The cycle with the fewest removable arcs (then the fewest arcs, then the first
        start), local indices. O(n·(n + m))."""
        arcs = _weighted(part.out, part.forbidden)
        best: list[int] = []
        best_key = (len(arcs) + 1, 0)
        for start in range(len(arcs)):
            work, free, cycle = _cheapest_cycle(arcs, start, best_key[0] + 1)
            if self.spend(work):
                yield
            if cycle and (free, len(cycle)) < best_key:
                best_key, best = (free, len(cycle)), cycle
        return best  # (a strongly connected part of ≥ 2 nodes has a cycle)

    def _ordering(self, part: _Part) -> Steps[list[Arc] | None]:
        """The exact optimum of a small part by dynamic programming over its node subsets:
        cost(S ∪ {v}) = cost(S) + the arcs from v back into S (v placed after S; a forbidden
        one rules the order out). None when every order breaks a forbidden arc. O(n·2ⁿ)."""
        out, names = part.out, part.names
        n = len(out)
        succ_mask = [0] * n
        forbidden_mask = [0] * n
        for u in range(n):
            for v in out[u]:
                succ_mask[u] |= 1 << v
                if (u, v) in part.forbidden:
                    forbidden_mask[u] |= 1 << v
        full = (1 << n) - 1
        cost = [_INFEASIBLE] * (full + 1)
        last = [0] * (full + 1)
        cost[0] = 0
        for subset in range(full):
            here = cost[subset]
            if here >= _INFEASIBLE:
                continue
            for v in range(n):
                bit = 1 << v
                if subset & bit or forbidden_mask[v] & subset:
                    continue
                value = here + (succ_mask[v] & subset).bit_count()
                if value < cost[subset | bit]:
                    cost[subset | bit] = value
                    last[subset | bit] = v
            if self.spend(n):
                yield
        if cost[full] >= _INFEASIBLE:
            return None
        arcs: list[Arc] = []
        subset = full
        while subset:
            v = last[subset]
            subset ^= 1 << v
            arcs.extend((names[v], names[w]) for w in out[v] if subset >> w & 1)
        return sorted(arcs)


def _sub_part(names: list[int], out: list[list[int]], forbidden: Iterable[Arc], members: list[int]) -> _Part:
    local = {v: i for i, v in enumerate(members)}
    sub = [[local[w] for w in out[v] if w in local] for v in members]
    kept = frozenset((local[u], local[v]) for u, v in forbidden if u in local and v in local)
    return _Part([names[v] for v in members], sub, kept)
