"""The tools that learn and keep the memory tidy: outcomes, consolidation."""

from __future__ import annotations

from ...core import requests
from .spec import ToolSpec, output

LEARNING = (
    ToolSpec(
        "learn_from_outcome",
        "Report how an answer went: the confidence of the nodes it used, and the weights of causal and temporal "
        "edges among them, move a fifth of the way toward the outcome (success 1, partial 0.5, timeout 0.25, "
        "failure 0). Credited: node_ids (with retrieval_id: only nodes it returned), else its results.",
        requests.LearnFromOutcome,
        output(("status", "outcome_id", "outcome", "decision", "routing", "deliberated", "nodes", "edges")),
        lambda memory, asked: memory.learn_from_outcome(asked),
    ),
    ToolSpec(
        "consolidate",
        "Decay unused nodes' confidence, merge duplicates, prune weak nodes, in one transaction, never changing a "
        "feedback loop. dry_run writes nothing.",
        requests.Consolidate,
        output(
            ("status", "dry_run", "decayed", "merged", "pruned", "kept_for_loops", "topology_before", "topology_after")
        ),
        lambda memory, asked: memory.consolidate(asked),
    ),
)
