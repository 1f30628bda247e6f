"""Small builders shared by the κ tests."""

from __future__ import annotations

BUSINESS = [
    ("market-share", "revenue"),
    ("revenue", "r-and-d"),
    ("r-and-d", "product-quality"),
    ("product-quality", "market-share"),
    ("market-share", "customer-retention"),
    ("customer-retention", "revenue"),
]


def edges_of(pairs, kind: str | None = "causal") -> list[dict[str, str]]:
    """Edge mappings for (source, target) pairs, with ``kind`` unless None."""
    if kind is None:
        return [{"source": u, "target": v} for u, v in pairs]
    return [{"source": u, "target": v, "kind": kind} for u, v in pairs]


def nodes_of(pairs, extra=()) -> list[str]:
    return sorted({x for pair in pairs for x in pair} | set(extra))


def k22() -> list[tuple[str, str]]:
    """K₂,₂ with both directions: a1, a2 ↔ b1, b2 (κ = 2)."""
    return [(a, b) for a in ("a1", "a2") for b in ("b1", "b2")] + [(b, a) for a in ("a1", "a2") for b in ("b1", "b2")]


def quartets() -> list[tuple[str, str]]:
    """Two complete digraphs on 4 nodes (a0–a3, b0–b3) joined by a3 → b0 and b3 → a0: κ = 1
    while every node has in- and out-degree ≥ 3, and no degree bound settles it."""
    pairs = [(f"{g}{i}", f"{g}{j}") for g in "ab" for i in range(4) for j in range(4) if i != j]
    return [*pairs, ("a3", "b0"), ("b3", "a0")]
