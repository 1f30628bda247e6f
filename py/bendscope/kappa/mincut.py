"""κ of one strongly connected digraph: its arc-strong connectivity, exactly (or bounds on it
within a work budget).

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

Work budget. :func:`kappa_cut` takes a budget in units of the
:class:`~bendscope.kappa.steps.Meter` (nodes and arcs visited). When the passes
end within it the result is exact. When they do not, the search stops and
reports bounds: the smallest cut found so far (a real cut, at most δ: its arcs
are returned) as the upper bound and 1 as the lower bound (a strongly connected
digraph needs at least one arc cut). Bounds that meet (δ = 1, or the degree
bound above) are exact with any budget, 0 included.

What one more arc can do (:func:`raising_targets`). Adding u → v changes every
cut X by +1 if u ∈ X and v ∉ X, else by 0; so κ rises (by exactly 1) iff every
minimum cut has u inside and v outside. Whether some minimum cut leaves u out is
one pass over the cuts X ∌ u (the reverse pass rooted at u, stopping at its
first stage of value κ). If none does, every minimum cut is found at a forward
stage rooted at u whose value is κ, and the minimum S–t cuts of such a stage are
the sets between S's residual reach and V minus T, T = the nodes that reach t in
the residual graph of its maximum flow (T is the same for every maximum flow, and
V ∖ T is itself a minimum cut). So v lies outside every minimum cut iff v is in
the T of every such stage: one structure per (digraph, u), then O(1) per target.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from .steps import Meter, Steps, finish

__all__ = [
    "KappaCut",
    "arc_strong_connectivity",
    "arc_strong_connectivity_steps",
    "kappa_cut",
    "kappa_cut_steps",
    "raising_targets",
    "raising_targets_steps",
]

_NEVER = Meter()  # the meter of the one-go functions: never pauses
_NO_DEADLINE = 1 << 62


class KappaCut(NamedTuple):
    """κ of a strongly connected digraph, or bounds on it.

    ``kappa``: the value of the smallest cut found — κ itself when ``exact``, else an upper
    bound; ``lower``: a proven lower bound (``lower == kappa`` iff exact); ``arcs``: the
    ``kappa`` arcs leaving one side of that cut, sorted (a real cut either way).
    """

    kappa: int
    lower: int
    arcs: list[tuple[int, int]]

    @property
    def exact(self) -> bool:
        return self.lower == self.kappa


def arc_strong_connectivity(out: list[list[int]], *, degree_bound: bool = True) -> tuple[int, list[tuple[int, int]]]:
    """κ of the strongly connected digraph ``out`` and one minimum cut, exactly (no budget).

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
    result = yield from kappa_cut_steps(out, meter, degree_bound=degree_bound)
    return result.kappa, result.arcs


def kappa_cut(out: list[list[int]], *, work_budget: int | None = None, degree_bound: bool = True) -> KappaCut:
    """κ of the strongly connected digraph ``out`` (as for :func:`arc_strong_connectivity`)
    within ``work_budget`` units of work (``None``: no limit), else bounds on it (see the
    module doc). The same cut as :func:`arc_strong_connectivity` when exact.

    >>> halves = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2, 4], [5, 6, 7], [4, 6, 7], [4, 5, 7], [4, 5, 6, 0]]
    >>> kappa_cut(halves)  # two complete quartets joined by one arc each way
    KappaCut(kappa=1, lower=1, arcs=[(3, 4)])
    >>> found = kappa_cut(halves, work_budget=0)  # no stage: the best single-node cut, and κ ≥ 1
    >>> found, found.exact
    (KappaCut(kappa=3, lower=1, arcs=[(0, 1), (0, 2), (0, 3)]), False)
    """
    return finish(kappa_cut_steps(out, Meter(), work_budget=work_budget, degree_bound=degree_bound))


def kappa_cut_steps(
    out: list[list[int]], meter: Meter, *, work_budget: int | None = None, degree_bound: bool = True
) -> Steps[KappaCut]:
    """:func:`kappa_cut` in steps; a unit of work is a node or arc visited. O(n + m) whatever
    the budget, plus at most ``work_budget`` units (up to one augmenting path more)."""
    n = len(out)
    deadline = meter.deadline(work_budget)
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
    complete = True
    if best > 1 and stages > 0:
        best, cut, complete = yield from _pass(n, tail, head, out_arcs, in_arcs, best, cut, stages, meter, deadline)
    if complete and best > 1 and stages > 0:
        best, cut, complete = yield from _pass(n, head, tail, in_arcs, out_arcs, best, cut, stages, meter, deadline)
    if not complete and best > 1:
        return KappaCut(best, 1, sorted((tail[e], head[e]) for e in cut))
    far = (yield from _bfs_order(n, 0, head, out_arcs, meter, farthest=True))[-1]
    for orient in ((tail, head, out_arcs, in_arcs), (head, tail, in_arcs, out_arcs)):
        preferred = yield from _pair_cut(n, *orient, far, best, meter)
        if preferred is not None:
            cut = preferred
            break
    return KappaCut(best, best, sorted((tail[e], head[e]) for e in cut))


Arcs = tuple[list[int], list[int], list[list[int]], list[list[int]]]


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


def raising_targets(
    out: list[list[int]], kappa: int, u: int, *, work_budget: int | None = None
) -> frozenset[int] | None:
    """The nodes v for which adding the arc u → v to the strongly connected digraph ``out``
    (κ = ``kappa``, exact) raises κ — to κ + 1, never more — or None when ``work_budget``
    (units of work; ``None``: no limit) ran out first. See the module doc: the nodes outside
    every minimum cut when u is inside every one, else none. A node with the arc u → v
    already may be listed (adding it again adds nothing: callers skip those).
    O(n + m) plus at most two Hao–Orlin passes with flows capped at κ + 1.

    >>> raising_targets([[1], [2], [0]], 1, 0)  # a cycle: many minimum cuts leave 0 out
    frozenset()
    >>> sorted(raising_targets([[1, 2], [0, 2, 3], [0, 1, 3], [0]], 1, 3))  # {3} is the only minimum cut
    [0, 1, 2]
    """
    return finish(raising_targets_steps(out, kappa, u, Meter(), work_budget=work_budget))


def raising_targets_steps(
    out: list[list[int]], kappa: int, u: int, meter: Meter, *, work_budget: int | None = None
) -> Steps[frozenset[int] | None]:
    """:func:`raising_targets` in steps; a unit of work is a node or arc visited."""
    n = len(out)
    deadline = meter.deadline(work_budget)
    tail, head, out_arcs, in_arcs = yield from _arcs_steps(out, meter)
    if len(in_arcs[u]) == kappa or any(len(out_arcs[w]) == kappa for w in range(n) if w != u):
        return frozenset()  # V ∖ {u}, or {w}, is a minimum cut without u
    delta = min(min(len(a) for a in out_arcs), min(len(a) for a in in_arcs))
    stages = n - delta - 1 if kappa < delta else n - 1  # with κ < δ, later stages hold no cut of value κ
    found = False

    def stop_at_first(sink_side: list[int]) -> bool:
        nonlocal found
        found = True
        return True

    # cuts X ∌ u: the reverse pass rooted at u (its cuts are the complements)
    ended = yield from _stages_of_value(
        n, head, tail, in_arcs, out_arcs, u, kappa, stages, stop_at_first, meter, deadline
    )
    if not ended:
        return None
    if found:
        return frozenset()
    outside: set[int] | None = None  # the nodes in the sink side T of every stage of value κ so far

    def narrow(sink_side: list[int]) -> bool:
        nonlocal outside
        outside = set(sink_side) if outside is None else outside.intersection(sink_side)
        return not outside

    ended = yield from _stages_of_value(n, tail, head, out_arcs, in_arcs, u, kappa, stages, narrow, meter, deadline)
    if not ended:
        return None
    return frozenset(outside or ())


def _stages_of_value(
    n: int,
    tail: list[int],
    head: list[int],
    out_arcs: list[list[int]],
    in_arcs: list[list[int]],
    root: int,
    kappa: int,
    stages: int,
    visit: Callable[[list[int]], bool],
    meter: Meter,
    deadline: int,
) -> Steps[bool]:
    """One pass rooted at ``root`` (the orientation tail → head) with flows capped at κ + 1:
    ``visit(T)`` for each of the first ``stages`` stages whose value is κ (T: the nodes that
    reach its t in the residual graph), until ``visit`` returns True. Returns False when out
    of budget, else True."""
    order = yield from _bfs_order(n, root, head, out_arcs, meter)
    flow = bytearray(len(tail))
    in_s = bytearray(n)
    in_s[root] = 1
    scratch = [[0] * n, [0] * n, [0]]
    for t in order[1 : 1 + stages]:
        if meter.total >= deadline:
            return False
        k, sink_side = yield from _augment(
            t, kappa + 1, flow, in_s, tail, head, out_arcs, in_arcs, scratch, meter, deadline
        )
        if k < 0:
            return False
        if sink_side is not None and visit(sink_side):
            return True
        in_s[t] = 1
    return True


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
    deadline: int,
) -> Steps[tuple[int, list[int], bool]]:
    """One pass over the cuts X ∋ 0, in the orientation given by tail/head; the first
    ``stages`` stages (later ones hold only cuts the degree bound rules out). Returns the
    best cut and whether the pass ended (False: out of budget, the best cut found so far)."""
    order = yield from _bfs_order(n, 0, head, out_arcs, meter)
    flow = bytearray(len(tail))
    in_s = bytearray(n)
    in_s[0] = 1
    scratch = [[0] * n, [0] * n, [0]]
    for t in order[1 : 1 + stages]:
        if meter.total >= deadline:
            return best, cut, False
        k, sink_side = yield from _augment(t, best, flow, in_s, tail, head, out_arcs, in_arcs, scratch, meter, deadline)
        if k < 0:
            return best, cut, False
        if sink_side is not None:
            best = k
            inside = set(sink_side)
            cut = [e for y in sink_side for e in in_arcs[y] if tail[e] not in inside]
            if best <= 1:
                break
        in_s[t] = 1
    return best, cut, True


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
    deadline: int = _NO_DEADLINE,
) -> Steps[tuple[int, list[int] | None]]:
    """Augment unit paths from the set S (``in_s``) to t until ``cap`` or failure.

    ``flow`` may hold a circulation from earlier stages. Returns (k, None) when k
    reached ``cap``, else (k, sink side): the nodes that can reach t in the residual
    graph, whose entering arcs form a minimum cut of value k; (-1, None) when the meter's
    total passed ``deadline`` first (the flow is then unfinished). ``scratch`` is
    [mark, via, [stamp]] shared by the calls of one pass. O(k·(n + m)).
    """
    mark, via, counter = scratch
    if meter.spend(len(in_arcs[t]) + 16):  # the direct arcs, and the call's own cost
        yield
    stamp = counter[0]
    k = 0
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
        scanned = 0  # arcs of the nodes searched through (the meter's unit: what the search really read)
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
            scanned += len(in_arcs[y]) + len(out_arcs[y])
        if meter.spend(scanned + len(queue)):
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
        if meter.total >= deadline:
            counter[0] = stamp
            return -1, None
    counter[0] = stamp
    return k, None


def _bfs_order(
    n: int, root: int, head: list[int], out_arcs: list[list[int]], meter: Meter, farthest: bool = False
) -> Steps[list[int]]:
    """BFS order from ``root`` over out-arcs (arcs in sorted order).

    With ``farthest`` the order is re-sorted by (distance, index), so its last node
    is the farthest one with the smallest index.
    """
    seen = bytearray(n)
    seen[root] = 1
    dist = [0] * n
    order = [root]
    queue = deque(order)
    pending = 0
    while queue:
        x = queue.popleft()
        arcs = out_arcs[x]
        for e in arcs:
            v = head[e]
            if not seen[v]:
                seen[v] = 1
                dist[v] = dist[x] + 1
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
