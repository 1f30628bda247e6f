"""Seeded graph generators shared by the benchmarks (and usable from tests)."""

from __future__ import annotations

import random


def random_strong(n: int, arcs_per_node: int = 3, seed: int = 0) -> list[tuple[int, int]]:
    """A random strongly connected digraph: a Hamiltonian cycle plus random arcs, ≈ k·n arcs."""
    rng = random.Random(seed)
    perm = list(range(n))
    rng.shuffle(perm)
    arcs = {(perm[i], perm[(i + 1) % n]) for i in range(n)}
    while len(arcs) < arcs_per_node * n:
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            arcs.add((u, v))
    return sorted(arcs)


def two_dense_halves(n: int, degree: int = 4, bridges: int = 3, seed: int = 0) -> list[tuple[int, int]]:
    """Two halves, each node with ≥ ``degree`` in- and out-arcs inside its half,
    joined by ``bridges`` arcs each way: κ = bridges while the degree bound is ``degree``."""
    rng = random.Random(seed)
    half = n // 2
    arcs: set[tuple[int, int]] = set()
    for base, size in ((0, half), (half, n - half)):
        for shift in range(1, degree + 1):
            step = shift if shift < size else 1
            for i in range(size):
                arcs.add((base + i, base + (i + step) % size))
        for _ in range(size):
            u, v = rng.randrange(size), rng.randrange(size)
            if u != v:
                arcs.add((base + u, base + v))
    a_side = rng.sample(range(half), bridges * 2)
    b_side = rng.sample(range(half, n), bridges * 2)
    for i in range(bridges):
        arcs.add((a_side[i], b_side[i]))
        arcs.add((b_side[bridges + i], a_side[bridges + i]))
    return sorted(arcs)


def adjacency(n: int, arcs: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n)]
    for u, v in arcs:
        out[u].append(v)
    return [sorted(s) for s in out]
