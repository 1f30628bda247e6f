"""κ of one strongly connected digraph: its arc-strong connectivity, exactly.

κ(D) = min over nonempty proper node subsets X of |δ⁺(X)|, the number of arcs
leaving X (equivalently, min over bipartitions (A, B) of min(|A→B|, |B→A|)).

Method (Hao–Orlin's outer loop, run with unit-capacity augmenting paths):

1. Every single-node cut is a candidate: κ ≤ δ = min out/in-degree.
2. Forward pass. Fix s = node 0 (the smallest id). Visit the other nodes in BFS
   order from s: t₁, t₂, … For stage i let S = {s, t₁, …, tᵢ₋₁}; a max flow from
   the super-source S to tᵢ, capped at the best cut found so far, tells whether a
   cut X ⊇ S with tᵢ ∉ X is smaller. Every X ∋ s is examined by the stage of its
   first absent node, so the pass covers all cuts with s on the source side.
   The flow is never reset: once tᵢ joins S the old flow is a circulation, which
   does not change later maximum flows. Augmenting paths are searched backwards
   from tᵢ and stop at the first node of S, so late stages are cheap.
3. Reverse pass: the same on the reversed digraph covers the cuts with s on the
   sink side.

Tie-breaking (documented, deterministic). Let s = node 0 and t = the node
farthest from s by BFS over out-arcs (ties: the smallest id). The fault line is
  (a) the minimum s→t cut nearest to t, if λ(s→t) = κ; else
  (b) the minimum t→s cut nearest to s, if λ(t→s) = κ; else
  (c) the first minimum cut found in the search order: single-node cuts (sorted
      ids, out-arcs before in-arcs), then forward stages, then reverse stages,
      a candidate replacing the best only when strictly smaller.
"Nearest to the sink" is the set of nodes that can still reach the sink in the
residual graph, which is the same for every maximum flow; so the result depends
only on the sorted ids and the arcs. Rules (a)/(b) prefer a cut across the
middle of the component over the cut around a single node: on the spec's
business loop they pick product-quality→market-share, whose removal leaves no
cycle, where (c) alone would pick customer-retention→revenue, which only
shrinks the loop.

Degree bound (what cuts can beat δ). In a simple digraph whose in- and
out-degrees are all ≥ δ, a set X of k nodes has at least k(δ − k + 1) arcs
leaving it (each of its nodes sends at most k − 1 arcs inside) and at least
(n − k)(δ − (n − k) + 1) arcs entering its complement. Both are ≥ δ when k ≤ δ,
resp. n − k ≤ δ, so only cuts with δ < |X| < n − δ can be smaller than δ. Hence
  * if n < 2δ + 2 (δ ≥ ⌊n/2⌋) no such X exists and κ = δ without any flow (dense
    components: 400 nodes with ≈ 100,000 arcs are O(m) instead of seconds);
  * a pass stops once |S| ≥ n − δ: every cut it has left to examine has at most
    δ nodes outside X, so it cannot beat the best cut (≤ δ).
Both are exact: the cut chosen is the one the full search would choose.

Cost: O(n + m) per augmenting path, at most κ⁺ paths per stage (κ⁺ = the best
cut so far, ≤ δ), at most 2(n − δ − 1) stages: O(δ·n·m) worst case; in practice
the backward searches stop after a few arcs once S is large.
"""

from __future__ import annotations

from collections import deque

from .steps import Meter, Steps, finish

__all__ = ["arc_strong_connectivity", "arc_strong_connectivity_steps", "minimum_cut_sides"]

_NEVER = Meter()  # the meter of the one-go functions: never pauses


def arc_strong_connectivity(out: list[list[int]], *, degree_bound: bool = True) -> tuple[int, list[tuple[int, int]]]:
    """κ of the strongly connected digraph ``out`` and one minimum cut.

    ``out`` holds adjacency lists on nodes 0..n-1 (n ≥ 2, strongly connected,
    no self-loops or parallel arcs). Returns ``(kappa, arcs)`` where ``arcs`` is the
    complete, sorted list of the κ arcs leaving one side of a minimum cut.
    ``degree_bound=False`` runs every stage (the tests prove both give the same answer).

    >>> arc_strong_connectivity([[1], [2], [0]])  # the cut nearest t = 2, farthest from s = 0
    (1, [(1, 2)])
    >>> arc_strong_connectivity([[2, 3], [2, 3], [0, 1], [0, 1]])[0]
    2
    """
    return finish(arc_strong_connectivity_steps(out, Meter(), degree_bound=degree_bound))


def arc_strong_connectivity_steps(
    out: list[list[int]], meter: Meter, *, degree_bound: bool = True
) -> Steps[tuple[int, list[tuple[int, int]]]]:
    """:func:`arc_strong_connectivity` in steps; a unit of work is a node or arc visited."""
    n = len(out)
    tail, head, out_arcs, in_arcs = yield from _arcs_steps(out, meter)
    best = len(tail) + 1
    cut: list[int] = []
    for v in range(n):
        if len(out_arcs[v]) < best:
            best, cut = len(out_arcs[v]), out_arcs[v]
        if len(in_arcs[v]) < best:
            best, cut = len(in_arcs[v]), in_arcs[v]
    delta = best  # the minimum semi-degree: see "Degree bound" above
    # the stages whose S may still hide a cut below δ (none when δ < |X| < n − δ is empty)
    stages = (n - delta - 1 if n >= 2 * delta + 2 else 0) if degree_bound else n - 1
    if best > 1 and stages > 0:
        best, cut = yield from _pass(n, tail, head, out_arcs, in_arcs, best, cut, stages, meter)
    if best > 1 and stages > 0:
        best, cut = yield from _pass(n, head, tail, in_arcs, out_arcs, best, cut, stages, meter)
    far = (yield from _bfs_order(n, head, out_arcs, meter, farthest=True))[-1]
    for orient in ((tail, head, out_arcs, in_arcs), (head, tail, in_arcs, out_arcs)):
        preferred = yield from _pair_cut(n, *orient, far, best, meter)
        if preferred is not None:
            cut = preferred
            break
    arcs = sorted((tail[e], head[e]) for e in cut)
    return best, arcs


Arcs = tuple[list[int], list[int], list[list[int]], list[list[int]]]


def _arcs(out: list[list[int]]) -> Arcs:
    return finish(_arcs_steps(out, _NEVER))


def _arcs_steps(out: list[list[int]], meter: Meter) -> Steps[Arcs]:
    """Arc arrays: tail, head, and per node the indices of its out- and in-arcs. O(n + m)."""
    n = len(out)
    tail: list[int] = []
    head: list[int] = []
    out_arcs: list[list[int]] = [[] for _ in range(n)]
    in_arcs: list[list[int]] = [[] for _ in range(n)]
    pending = 0
    for u in range(n):
        for v in out[u]:
            e = len(tail)
            tail.append(u)
            head.append(v)
            out_arcs[u].append(e)
            in_arcs[v].append(e)
        pending += len(out[u]) + 1
        if pending > 1024:
            if meter.spend(pending):
                yield
            pending = 0
    return tail, head, out_arcs, in_arcs


def minimum_cut_sides(out: list[list[int]], kappa: int) -> tuple[frozenset[int], frozenset[int]]:
    """(the nodes inside every minimum cut, the nodes inside some minimum cut), where a
    minimum cut is a set X with exactly ``kappa`` = κ arcs leaving it.

    What one more arc can do: adding u → v raises κ (by exactly 1) iff every minimum
    cut has u inside and v outside, i.e. u is in the first set and v not in the second
    — so previews inside a strongly connected component need no new cut per candidate.

    Every minimum cut appears in one Hao–Orlin stage (see the module doc) whose flow
    value is κ; the minimum S–t cuts of that stage are the sets between the nodes the
    source side reaches in the residual graph (the smallest) and all but the nodes that
    reach t (the largest). Flows are capped at κ + 1. When the minimum semi-degree
    δ ≥ n/2 (and n ≠ 2δ), the degree bound leaves only single-node cuts and their
    complements, read off the degrees. O(n·(n + m)) worst case.

    >>> sorted(map(sorted, minimum_cut_sides([[1], [2], [0]], 1)))  # a cycle: every proper subset is a cut
    [[], [0, 1, 2]]
    >>> minimum_cut_sides([[1, 2], [0, 2], [0, 1]], 2)  # complete on 3: {x} and V∖{y}
    (frozenset(), frozenset({0, 1, 2}))
    """
    n = len(out)
    tail, head, out_arcs, in_arcs = _arcs(out)
    delta = min(min(len(a) for a in out_arcs), min(len(a) for a in in_arcs))
    if kappa == delta and 2 * delta >= n and n != 2 * delta:
        singles = [frozenset({v}) for v in range(n) if len(out_arcs[v]) == kappa]
        complements = [frozenset(range(n)) - {v} for v in range(n) if len(in_arcs[v]) == kappa]
        cuts = singles + complements
        return frozenset.intersection(*cuts), frozenset.union(*cuts)
    every = set(range(n))
    some: set[int] = set()
    stages = n - delta - 1 if kappa < delta else n - 1  # with κ < δ, later stages hold no cut of value κ
    for forward in (True, False):
        t_of, h_of, outs, ins = (tail, head, out_arcs, in_arcs) if forward else (head, tail, in_arcs, out_arcs)
        order = finish(_bfs_order(n, h_of, outs, _NEVER))
        flow = bytearray(len(t_of))
        in_s = bytearray(n)
        in_s[0] = 1
        scratch = [[0] * n, [0] * n, [0]]
        for t in order[1 : 1 + stages]:
            k, sink_side = finish(_augment(t, kappa + 1, flow, in_s, t_of, h_of, outs, ins, scratch, _NEVER))
            if sink_side is not None and k == kappa:
                smallest = _residual_reach(n, in_s, flow, t_of, h_of, outs, ins)
                largest = set(range(n)) - set(sink_side)
                if forward:  # X ⊇ S with t outside
                    every &= smallest
                    some |= largest
                else:  # in the reversed digraph: the cut of the original is the complement
                    every -= largest
                    some |= set(range(n)) - smallest
            in_s[t] = 1
    return frozenset(every), frozenset(some)


def _residual_reach(
    n: int,
    in_s: bytearray,
    flow: bytearray,
    tail: list[int],
    head: list[int],
    out_arcs: list[list[int]],
    in_arcs: list[list[int]],
) -> set[int]:
    """Nodes reachable from the set S in the residual graph of ``flow``. O(n + m)."""
    reach = {v for v in range(n) if in_s[v]}
    stack = list(reach)
    while stack:
        y = stack.pop()
        for e in out_arcs[y]:
            if not flow[e] and head[e] not in reach:
                reach.add(head[e])
                stack.append(head[e])
        for e in in_arcs[y]:
            if flow[e] and tail[e] not in reach:
                reach.add(tail[e])
                stack.append(tail[e])
    return reach


def _pair_cut(
    n: int,
    tail: list[int],
    head: list[int],
    out_arcs: list[list[int]],
    in_arcs: list[list[int]],
    t: int,
    kappa: int,
    meter: Meter,
) -> Steps[list[int] | None]:
    """The min 0→t cut nearest to t if λ(0→t) = κ, else None. O(κ·(n + m))."""
    in_s = bytearray(n)
    in_s[0] = 1
    flow = bytearray(len(tail))
    scratch = [[0] * n, [0] * n, [0]]
    k, sink_side = yield from _augment(t, kappa + 1, flow, in_s, tail, head, out_arcs, in_arcs, scratch, meter)
    if k != kappa or sink_side is None:
        return None
    inside = set(sink_side)
    return [e for y in sink_side for e in in_arcs[y] if tail[e] not in inside]


def _pass(
    n: int,
    tail: list[int],
    head: list[int],
    out_arcs: list[list[int]],
    in_arcs: list[list[int]],
    best: int,
    cut: list[int],
    stages: int,
    meter: Meter,
) -> Steps[tuple[int, list[int]]]:
    """One pass over the cuts X ∋ 0, in the orientation given by tail/head; the first
    ``stages`` stages (later ones hold only cuts the degree bound rules out)."""
    order = yield from _bfs_order(n, head, out_arcs, meter)
    flow = bytearray(len(tail))
    in_s = bytearray(n)
    in_s[0] = 1
    scratch = [[0] * n, [0] * n, [0]]
    for t in order[1 : 1 + stages]:
        k, sink_side = yield from _augment(t, best, flow, in_s, tail, head, out_arcs, in_arcs, scratch, meter)
        if sink_side is not None:
            best = k
            inside = set(sink_side)
            cut = [e for y in sink_side for e in in_arcs[y] if tail[e] not in inside]
            if best <= 1:
                break
        in_s[t] = 1
    return best, cut


def _augment(
    t: int,
    cap: int,
    flow: bytearray,
    in_s: bytearray,
    tail: list[int],
    head: list[int],
    out_arcs: list[list[int]],
    in_arcs: list[list[int]],
    scratch: list[list[int]],
    meter: Meter,
) -> Steps[tuple[int, list[int] | None]]:
    """Augment unit paths from the set S (``in_s``) to t until ``cap`` or failure.

    ``flow`` may hold a circulation from earlier stages. Returns (k, None) when k
    reached ``cap``, else (k, sink side): the nodes that can reach t in the residual
    graph, whose entering arcs form a minimum cut of value k. ``scratch`` is
    [mark, via, [stamp]] shared by the calls of one pass. O(k·(n + m)).
    """
    mark, via, counter = scratch
    stamp = counter[0]
    k = 0
    degree = 1 + len(tail) // max(1, len(mark))  # arcs scanned per node searched, on average (the meter's unit)
    # Direct arcs from S need no search.
    for e in in_arcs[t]:
        if k >= cap:
            break
        if not flow[e] and in_s[tail[e]]:
            flow[e] = 1
            k += 1
    while k < cap:
        stamp += 1
        mark[t] = stamp
        queue = [t]
        found = -1
        for y in queue:
            for e in in_arcs[y]:
                if not flow[e]:
                    x = tail[e]
                    if mark[x] != stamp:
                        mark[x] = stamp
                        via[x] = e
                        if in_s[x]:
                            found = x
                            break
                        queue.append(x)
            if found >= 0:
                break
            for e in out_arcs[y]:
                if flow[e]:
                    x = head[e]
                    if mark[x] != stamp:
                        mark[x] = stamp
                        via[x] = e
                        if in_s[x]:
                            found = x
                            break
                        queue.append(x)
            if found >= 0:
                break
        if meter.spend(len(queue) * degree + 1):
            counter[0] = stamp
            yield  # the marks are stamped: nothing else may use this pass's scratch meanwhile
        if found < 0:
            counter[0] = stamp
            return k, queue
        x = found
        while x != t:
            e = via[x]
            if tail[e] == x:
                flow[e] = 1
                x = head[e]
            else:
                flow[e] = 0
                x = tail[e]
        k += 1
    counter[0] = stamp
    return k, None


def _bfs_order(
    n: int, head: list[int], out_arcs: list[list[int]], meter: Meter, farthest: bool = False
) -> Steps[list[int]]:
    """BFS order from node 0 over out-arcs (arcs in sorted order).

    With ``farthest`` the order is re-sorted by (distance, index), so its last node
    is the farthest one with the smallest index.
    """
    seen = bytearray(n)
    seen[0] = 1
    dist = [0] * n
    order = [0]
    queue = deque(order)
    pending = 0
    while queue:
        u = queue.popleft()
        arcs = out_arcs[u]
        for e in arcs:
            v = head[e]
            if not seen[v]:
                seen[v] = 1
                dist[v] = dist[u] + 1
                order.append(v)
                queue.append(v)
        pending += len(arcs) + 1
        if pending > 1024:
            if meter.spend(pending):
                yield
            pending = 0
    if farthest:
        deepest = max(dist[v] for v in order)
        return [min(v for v in order if dist[v] == deepest)]
    return order
