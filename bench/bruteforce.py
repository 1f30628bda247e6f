"""The spec's κ method, for comparison only: enumerate every bipartition by bitmask.

Written with the spec's own suggested optimisation (out-neighbour bitmasks and
popcounts), so the comparison is with a fair implementation of that method.
O(2^n · n) per SCC.
"""

from __future__ import annotations


def bitmask_kappa(out: list[list[int]]) -> int:
    """min over masks of min(|A→B|, |B→A|) for the digraph ``out`` on 0..n-1."""
    n = len(out)
    if n <= 1:
        return 0
    succ = [sum(1 << v for v in s) for s in out]
    full = (1 << n) - 1
    best = n * n
    for mask in range(1, full):
        rest = full ^ mask
        ab = ba = 0
        for u in range(n):
            if mask >> u & 1:
                ab += (succ[u] & rest).bit_count()
            else:
                ba += (succ[u] & mask).bit_count()
        cut = ab if ab < ba else ba
        if cut < best:
            best = cut
            if best == 0:
                break
    return best
