"""Independent oracles for κ, kept out of the engine on purpose.

``brute_force_kappa`` is the spec's bitmask enumeration of bipartitions, written
from the definition: it shares no code with bendscope.kappa.
"""

from __future__ import annotations


def brute_force_kappa(nodes: list[str], arcs: set[tuple[str, str]]) -> int:
    """min over nontrivial bipartitions (A, B) of min(|A→B|, |B→A|). O(2^n · m)."""
    n = len(nodes)
    if n <= 1:
        return 0
    pos = {v: i for i, v in enumerate(nodes)}
    bits = [(1 << pos[u], 1 << pos[v]) for u, v in arcs if u in pos and v in pos]
    best = None
    for mask in range(1, (1 << n) - 1):
        ab = ba = 0
        for bu, bv in bits:
            in_u = bool(mask & bu)
            in_v = bool(mask & bv)
            if in_u and not in_v:
                ab += 1
            elif in_v and not in_u:
                ba += 1
        cut = min(ab, ba)
        if best is None or cut < best:
            best = cut
            if best == 0:
                break
    return best


def reference_topology(nodes: list[str], arcs: set[tuple[str, str]]) -> list[tuple[list[str], int]]:
    """(sorted SCC nodes, brute-force κ) for every nontrivial SCC, via Kosaraju."""
    succ: dict[str, list[str]] = {v: [] for v in nodes}
    pred: dict[str, list[str]] = {v: [] for v in nodes}
    for u, v in arcs:
        if u != v and u in succ and v in succ:
            succ[u].append(v)
            pred[v].append(u)
    seen: set[str] = set()
    finish: list[str] = []
    for root in nodes:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(succ[root]))]
        while stack:
            v, it = stack[-1]
            for w in it:
                if w not in seen:
                    seen.add(w)
                    stack.append((w, iter(succ[w])))
                    break
            else:
                stack.pop()
                finish.append(v)
    comp: dict[str, int] = {}
    groups: list[list[str]] = []
    for root in reversed(finish):
        if root in comp:
            continue
        group = [root]
        comp[root] = len(groups)
        i = 0
        while i < len(group):
            for w in pred[group[i]]:
                if w not in comp:
                    comp[w] = len(groups)
                    group.append(w)
            i += 1
        groups.append(sorted(group))
    result = []
    for group in groups:
        if len(group) > 1:
            inner = {(u, v) for u, v in arcs if u in group and v in group and u != v}
            result.append((group, brute_force_kappa(group, inner)))
    return sorted(result)


def is_acyclic(nodes: list[str], arcs: set[tuple[str, str]]) -> bool:
    """Kahn's algorithm: every node can be removed as a source in turn. O(n + m)."""
    indeg = dict.fromkeys(nodes, 0)
    succ: dict[str, list[str]] = {v: [] for v in nodes}
    for u, v in arcs:
        succ[u].append(v)
        indeg[v] += 1
    ready = [v for v in nodes if indeg[v] == 0]
    removed = 0
    while ready:
        v = ready.pop()
        removed += 1
        for w in succ[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    return removed == len(nodes)


def brute_force_feedback_arc_set(nodes: list[str], arcs: set[tuple[str, str]]) -> int:
    """The fewest arcs whose removal leaves the digraph acyclic: every subset of the arcs
    (self-loops left out), in increasing size, until one leaves no cycle. O(2^m · (n + m))."""
    from itertools import combinations

    plain = sorted((u, v) for u, v in arcs if u != v)
    for size in range(len(plain) + 1):
        for removed in combinations(plain, size):
            if is_acyclic(nodes, set(plain) - set(removed)):
                return size
    raise AssertionError("removing every arc leaves no cycle")


def ordering_feedback_arc_set(nodes: list[str], arcs: set[tuple[str, str]]) -> int:
    """The same optimum by dynamic programming over vertex orderings: the best order of a set
    S of nodes costs best(S ∖ {v}) plus v's arcs back into S ∖ {v}, for the best last node v
    (an acyclic digraph is one whose arcs all point forwards in some order). O(2^n · n)."""
    n = len(nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    succ = [0] * n
    for u, v in arcs:
        if u != v:
            succ[pos[u]] |= 1 << pos[v]
    best = [0] + [n * n] * ((1 << n) - 1)
    for subset in range(1, 1 << n):
        for v in range(n):
            if subset >> v & 1:
                rest = subset ^ (1 << v)
                best[subset] = min(best[subset], best[rest] + bin(succ[v] & rest).count("1"))
    return best[(1 << n) - 1]
