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


GIANT_KINDS = ("causal", "causal", "temporal", "associative", "context")


def giant_scc_document(n: int, seed: int = 7, arcs_per_node: float = 2.0) -> dict:
    """A bare editor document whose causal arcs form one giant strongly connected component
    (the common shape of a real knowledge graph): a random spanning tree of causal edges
    (each node hangs from a random earlier one) plus random arcs up to ``arcs_per_node``·n,
    kinds drawn from causal, causal, temporal, associative, context. No positions.

    >>> doc = giant_scc_document(50)
    >>> len(doc["nodes"]), len(doc["edges"])
    (50, 100)
    """
    rng = random.Random(seed)
    edges: list[dict] = []
    for i in range(1, n):
        edges.append({"id": f"e{len(edges)}", "source": f"n{rng.randrange(i)}", "target": f"n{i}", "kind": "causal"})
    while len(edges) < round(arcs_per_node * n):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            kind = GIANT_KINDS[rng.randrange(len(GIANT_KINDS))]
            edges.append({"id": f"e{len(edges)}", "source": f"n{a}", "target": f"n{b}", "kind": kind})
    nodes = [{"id": f"n{i}", "text": f"Node {i}"} for i in range(n)]
    return {"nodes": nodes, "edges": edges}
