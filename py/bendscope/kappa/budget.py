"""The deliberation budget: κ mapped to inference parameters (spec §3.2).

An engineering heuristic, not a theorem; the caps keep a large κ (or the upper bound an
approximate κ reports) from producing runaway budgets.
"""

from __future__ import annotations

__all__ = ["deliberation_budget"]


def deliberation_budget(kappa: int) -> dict[str, int | float]:
    """Return the budget for one SCC of cyclicity ``kappa``.

    >>> deliberation_budget(1)
    {'max_iterations': 2, 'agent_count': 1, 'timeout_multiplier': 1.5, 'confidence_threshold': 0.75}
    >>> deliberation_budget(25)["max_iterations"]
    4

    O(1).
    """
    if isinstance(kappa, bool) or not isinstance(kappa, int):
        raise TypeError(f"kappa must be an int, got {type(kappa).__name__}")
    if kappa < 0:
        raise ValueError(f"kappa must be >= 0, got {kappa}")
    return {
        "max_iterations": min(kappa + 1, 4),
        "agent_count": min(kappa, 3),
        "timeout_multiplier": round(min(1.0 + 0.5 * kappa, 3.5), 4),
        "confidence_threshold": round(min(0.7 + 0.05 * kappa, 0.95), 4),
    }
