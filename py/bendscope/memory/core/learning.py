"""Learning from outcomes: how a reported outcome moves confidence and edge weights, and
what the kept outcomes say about the κ router (``get_metrics``' ``outcomes``).

**The rule.** Each outcome has a target: success 1, partial 0.5, timeout 0.25 (the answer
ran out of budget: weak evidence against what it used), failure 0. The confidence c of
every node the answer used moves a fixed share of the way toward it:

    c' = c + RATE · (target − c),   RATE = 0.2

and so does the strength s = min(w, 1) of every causal or temporal edge among those nodes
(w' = s'; a weight above 1, which the editor draws as full strength, is kept by a success,
whose target it already exceeds). The rule is bounded (c and target in [0, 1] give c' in
[0, 1]), monotone (c' grows with c and with the outcome), and repeated identical reports
converge: |c_n − target| = (1 − RATE)^n · |c_0 − target|.

>>> round(learned(0.5, "success"), 6), round(learned(0.5, "failure"), 6), learned(1.0, "success")
(0.6, 0.4, 1.0)
>>> c = 0.3
>>> for _ in range(60):
...     c = learned(c, "partial")
>>> round(c, 6)
0.5
>>> learned_weight(4.0, "success"), round(learned_weight(4.0, "failure"), 6), round(learned_weight(0.5, "success"), 6)
(4.0, 0.8, 0.6)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .records import OUTCOMES, ROUTES

RATE = 0.2
TARGETS = {"success": 1.0, "partial": 0.5, "timeout": 0.25, "failure": 0.0}
#: the spec's Gate D: deliberation on κ = 0 routes should stay under this share
UNNECESSARY_TARGET = 0.2

Group = tuple[str, str, int, bool, str, int | None, int, int]


def learned(confidence: float, outcome: str) -> float:
    """A confidence after one outcome (see the module's docstring)."""
    value = confidence + RATE * (TARGETS[outcome] - confidence)
    return min(1.0, max(0.0, value))


def learned_weight(weight: float, outcome: str) -> float:
    """An edge's weight after one outcome: its strength min(w, 1) moves as a confidence does;
    a weight above 1 stays when the outcome would not lower it."""
    strength = learned(min(weight, 1.0), outcome)
    return weight if weight > 1.0 and strength >= 1.0 else strength


def _percentile(pairs: list[tuple[float, int]], q: float) -> float:
    """The nearest-rank ``q`` percentile of values given as (value, count), sorted.

    >>> _percentile([(1.0, 2), (5.0, 2)], 50), _percentile([(1.0, 2), (5.0, 2)], 95)
    (1.0, 5.0)
    """
    total = sum(count for _, count in pairs)
    if not total:
        return 0.0
    rank = max(1, -(-total * q // 100))
    seen = 0
    for value, count in pairs:
        seen += count
        if seen >= rank:
            return value
    return pairs[-1][0]


def _summary(groups: Iterable[Group]) -> dict[str, Any]:
    """Counts by outcome, success rate, and the mean of the iterations reported."""
    outcomes = dict.fromkeys(OUTCOMES, 0)
    iterations = reported = 0
    for *_, outcome, spent, _budget, count in groups:
        outcomes[outcome] += count
        if spent is not None:
            iterations += spent * count
            reported += count
    total = sum(outcomes.values())
    return {
        "count": total,
        "outcomes": outcomes,
        "success_rate": round(outcomes["success"] / total, 4) if total else 0.0,
        "mean_iterations": round(iterations / reported, 4) if reported else None,
    }


def outcome_metrics(groups: list[Group]) -> dict[str, Any]:
    """What the kept outcomes say about routing (groups from ``Store.outcome_groups``):
    outcomes by the router's decision and by κ; the spec's "unnecessary deliberation", counted
    over every outcome: the agent deliberated although the route had no loop (κ = 0), or
    deliberated and reported at most one iteration — an answer a single pass would have given
    (so a router that sends lookups to deliberation shows here even when each has a loop);
    "deliberate only when κ > 0" as counts; and the iterations spent against the budget's
    ``max_iterations``. O(groups)."""
    by_decision = {d: _summary(g for g in groups if g[0] == d) for d in ROUTES}
    kappas = sorted({g[2] for g in groups})
    by_kappa = {str(k): _summary(g for g in groups if g[2] == k) for k in kappas}
    flat = sum(g[7] for g in groups if g[2] == 0)
    flat_deliberated = sum(g[7] for g in groups if g[2] == 0 and g[3])
    looped = sum(g[7] for g in groups if g[2] > 0)
    looped_deliberated = sum(g[7] for g in groups if g[2] > 0 and g[3])
    spent = sorted((float(g[5]), g[7]) for g in groups if g[5] is not None)
    deliberations = [g for g in groups if g[3] and g[5] is not None and g[6] > 0]
    shares = sorted((g[5] / g[6], g[7]) for g in deliberations if g[5] is not None)
    budgets = sorted((float(g[6]), g[7]) for g in deliberations)
    total = sum(g[7] for g in groups)
    one_pass = sum(g[7] for g in groups if g[3] and g[2] > 0 and g[5] is not None and g[5] <= 1)
    unnecessary = flat_deliberated + one_pass
    ratio = round(unnecessary / total, 4) if total else 0.0
    return {
        "count": total,
        "by_decision": by_decision,
        "by_kappa": by_kappa,
        "unnecessary_deliberation": {
            "count": unnecessary,
            "of": total,
            "ratio": ratio,
            "at_kappa_0": flat_deliberated,
            "in_one_iteration": one_pass,
            "rule": "deliberated on a route without a loop (κ 0), or deliberated in at most one iteration",
            "target": UNNECESSARY_TARGET,
            "met": ratio < UNNECESSARY_TARGET,
        },
        "deliberation_by_kappa": {
            "deliberated_at_kappa_0": flat_deliberated,
            "deliberated_at_kappa_positive": looped_deliberated,
            "single_pass_at_kappa_0": flat - flat_deliberated,
            "single_pass_at_kappa_positive": looped - looped_deliberated,
            "only_when_kappa_positive": flat_deliberated == 0,
        },
        "iterations": {
            "reported": sum(count for _, count in spent),
            "p50": _percentile(spent, 50),
            "p95": _percentile(spent, 95),
            "against_budget": sum(g[7] for g in deliberations),
            "max_iterations_p50": _percentile(budgets, 50),
            "max_iterations_p95": _percentile(budgets, 95),
            "share_of_budget_p50": round(_percentile(shares, 50), 4),
            "share_of_budget_p95": round(_percentile(shares, 95), 4),
            "over_budget": sum(g[7] for g in deliberations if g[5] is not None and g[5] > g[6]),
        },
    }
