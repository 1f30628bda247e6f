"""What the memory learns from: the outcomes an agent reports, and consolidation."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph

from ..consolidation import consolidate
from ..errors import NotFound
from ..learning import RATE, TARGETS, learned, learned_weight
from ..records import (
    OutcomeRecord,
)
from ..requests import Consolidate, LearnFromOutcome
from .state import MemoryState, _holds, _unknown

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)


class Outcomes(MemoryState):
    """What the memory learns from."""

    def learn_from_outcome(self, request: LearnFromOutcome | Mapping[str, Any]) -> dict[str, Any]:
        """What happened after the agent answered: the confidence of the nodes it used and the
        weights of the causal and temporal edges among them move toward the outcome
        (``learning``), and the outcome is kept for ``get_metrics``. The nodes are ``node_ids``
        or those ``retrieval_id`` returned; the router's decision, κ and budget are the
        retrieval's (or, for node_ids alone, those of the nodes' own topology). One
        transaction: bad ids or values are an error and nothing is written."""
        asked = LearnFromOutcome.parse(request)
        outcome, retrieval_id, used = asked.outcome, asked.retrieval_id, asked.node_ids
        routing, deliberated, iterations = asked.routing, asked.deliberated, asked.iterations
        with self.store.transaction():
            retrieval = None
            if retrieval_id is not None:
                retrieval = self.store.get_retrievals([retrieval_id]).get(retrieval_id)
                if retrieval is None:
                    raise NotFound(
                        f"no retrieval {retrieval_id!r} is kept (an id from another store, or a retrieval forgotten by "
                        "consolidate); name the nodes the answer used with node_ids"
                    )
            ids = list(used) if used is not None else list(retrieval.node_ids) if retrieval is not None else []
            found = self.store.get_nodes(ids)
            gone: list[str] = []
            if used is not None:
                _unknown(ids, found)
            else:  # (a retrieval's nodes may have gone since: deleted, pruned or merged away)
                gone = [i for i in ids if i not in found]
                ids = [i for i in ids if i in found]
            now = self.clock()
            edges = [e for e in self.store.list_edges_between(ids) if _holds(e, found, now)]
            if retrieval is not None:
                decision, max_kappa, budget = retrieval.routing, retrieval.max_kappa, retrieval.max_iterations
            else:
                topology = analyze_digraph(
                    build_digraph(ids, [{"source": e.source_id, "target": e.target_id} for e in edges]),
                    exact_limit=self.exact_limit,
                )
                decision, max_kappa = topology["routing"], topology["max_kappa"]
                budget = max((s["deliberation_budget"]["max_iterations"] for s in topology["sccs"]), default=0)
            if routing is not None:
                taken = routing
            elif deliberated is not None:
                taken = "deliberate" if deliberated else "fast"
            else:
                taken = decision
            record = OutcomeRecord(
                0,
                self.clock(),
                retrieval_id,
                outcome,
                decision,
                taken,
                deliberated if deliberated is not None else taken == "deliberate",
                iterations,
                max_kappa,
                budget,
                len(ids),
            )
            confidences = {i: learned(found[i].confidence, outcome) for i in sorted(found)}
            weights = {e.id: learned_weight(e.weight, outcome) for e in edges}
            self.store.set_confidences({i: v for i, v in confidences.items() if v != found[i].confidence})
            self.store.set_weights({e.id: weights[e.id] for e in edges if weights[e.id] != e.weight})
            number = self.store.add_outcome(record)
        return {
            "status": "learned",
            "outcome_id": f"outcome-{number}",
            "outcome": outcome,
            "retrieval_id": retrieval_id,
            "decision": decision,
            "routing": taken,
            "deliberated": record.deliberated,
            "iterations": iterations,
            "max_kappa": max_kappa,
            "max_iterations": budget,
            "rule": {"target": TARGETS[outcome], "rate": RATE},
            "gone": gone,
            "nodes": [
                {"id": i, "confidence_before": found[i].confidence, "confidence_after": confidences[i]}
                for i in sorted(found)
            ],
            "edges": [
                {
                    "id": e.id,
                    "source_id": e.source_id,
                    "target_id": e.target_id,
                    "edge_type": e.edge_type,
                    "weight_before": e.weight,
                    "weight_after": weights[e.id],
                }
                for e in edges
            ],
        }

    def consolidate(self, request: Consolidate | Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Decay, merge duplicates, prune — never changing a loop (``consolidation``)."""
        return consolidate(self, Consolidate.parse(request or {}))
