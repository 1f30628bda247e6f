"""What the memory learns from: the outcomes an agent reports, and consolidation."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph

from ..consolidation import consolidate
from ..errors import InvalidInput, NotFound
from ..learning import RATE, TARGETS, learned, learned_weight
from ..records import (
    OutcomeRecord,
    RetrievalRecord,
)
from ..requests import Consolidate, LearnFromOutcome
from .state import MemoryState, _holds, _said_merged, _unknown

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)


class Outcomes(MemoryState):
    """What the memory learns from."""

    def learn_from_outcome(self, request: LearnFromOutcome | Mapping[str, Any]) -> dict[str, Any]:
        """What happened after the agent answered: the confidence of the nodes it used and the
        weights of the causal and temporal edges among them move toward the outcome
        (``learning``), and the outcome is kept for ``get_metrics``. The nodes credited are
        ``node_ids`` — with ``retrieval_id``, only nodes that retrieval returned (its results,
        or the loop members its answer named): naming another is an error — or else the
        retrieval's results alone (not the loop members it only named: a loop is brought whole
        whatever each member did for the answer). An id merged away by ``consolidate`` credits
        the node it was merged into (``merged_into``). The router's decision, κ and budget are
        the retrieval's (or, for node_ids alone, those of the nodes' own topology). One
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
            named = list(used) if used is not None else list(retrieval.result_ids) if retrieval is not None else []
            found = self.store.get_nodes(named)
            merged = self._forward(self.store, named, found)
            ids = _said_merged(named, merged)
            gone: list[str] = []
            if used is not None:
                _unknown(ids, found)
                if retrieval is not None:
                    self._check_returned(retrieval, used, merged)
            else:  # (a retrieval's nodes may have gone since: deleted, pruned)
                gone = [i for i in ids if i not in found]
                ids = [i for i in ids if i in found]
            found = {i: found[i] for i in ids}
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
        answer: dict[str, Any] = {
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
        if merged:
            answer["merged_into"] = merged
        return answer

    def _check_returned(self, retrieval: RetrievalRecord, used: list[str], merged: Mapping[str, str]) -> None:
        """Refuse (InvalidInput) node ids the retrieval did not return, as named or as the nodes
        they were merged into since."""
        returned = list(retrieval.node_ids)
        now = self.store.get_nodes(returned)
        returned_now = set(_said_merged(returned, self._forward(self.store, returned, now)))
        outside = [i for i in used if i not in retrieval.node_ids and merged.get(i, i) not in returned_now]
        if outside:
            shown = ", ".join(repr(i) for i in outside[:5]) + (
                f" and {len(outside) - 5} more" if len(outside) > 5 else ""
            )
            raise InvalidInput(
                f"retrieval {retrieval.id!r} did not return {shown}: node_ids names the nodes of it the answer used "
                "(its results, or loop members it named); nothing was learned. Leave out retrieval_id to credit "
                "other nodes"
            )

    def consolidate(self, request: Consolidate | Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Decay, merge duplicates, prune — never changing a loop (``consolidation``)."""
        return consolidate(self, Consolidate.parse(request or {}))
