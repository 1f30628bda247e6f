"""The tools that learn and keep the memory tidy: outcomes, consolidation."""

from __future__ import annotations

from ...core import requests
from .spec import ToolSpec, output

LEARNING = (
    ToolSpec(
        "learn_from_outcome",
        "Report how an answer went: the used nodes' confidence and the causal/temporal edge weights among them "
        "move a fifth of the way toward the outcome (success 1, partial 0.5, timeout 0.25, failure 0). Credited: "
        "node_ids (of retrieval_id's results), else its results.",
        requests.LearnFromOutcome,
        output(("status", "outcome_id", "outcome", "decision", "routing", "deliberated", "nodes", "edges")),
        lambda memory, asked: memory.learn_from_outcome(asked),
    ),
    ToolSpec(
        "consolidate",
        "Decay unused nodes' confidence, merge duplicates, prune weak nodes, in one transaction, never changing a "
        "feedback loop.",
        requests.Consolidate,
        output(
            ("status", "dry_run", "decayed", "merged", "pruned", "kept_for_loops", "topology_before", "topology_after")
        ),
        lambda memory, asked: memory.consolidate(asked),
    ),
)
