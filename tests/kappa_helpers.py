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
