"""The tools that read: ask a question, analyse a region, list nodes and edges, the metrics."""

from __future__ import annotations

from ...core import requests
from .spec import KAPPA_NOTE, ROUTING, TOPOLOGY_FIELDS, ToolSpec, output

#: analyze_topology's description, as the κ implementation prompt words it
ANALYZE_DESCRIPTION = (
    "Compute topological structure (SCCs, κ values, routing decision) for a set of nodes in the knowledge "
    "graph. Use this to determine whether a knowledge region requires iterative deliberation (κ > 0) or can "
    "be answered with simple retrieval (κ = 0)."
)

_ARRAY = {"type": "array"}

READING = (
    ToolSpec(
        "retrieve_context",
        "Ask the memory a question; follow the answer's `routing` (`why` says why). 'fast': the results answer it "
        "in one pass. 'deliberate': it is about a feedback loop's dynamics: first reason over the loop its `loops` "
        "entry marked asked names (topology.sccs: members, κ, fault lines, budget; `names`: members not among the "
        "results; `whole: false`: too large, κ and budget in the entry). Counts accesses for "
        "learn_from_outcome." + KAPPA_NOTE,
        requests.RetrieveContext,
        output(
            ("status", "retrieval_id", "query", "routing", "why", "count", "results", "loops", "topology"),
            {"routing": ROUTING},
        ),
        lambda memory, asked: memory.retrieve_context(asked),
        read_only=True,
        counts=True,
    ),
    ToolSpec(
        "analyze_topology",
        ANALYZE_DESCRIPTION + " Per loop region also feedback_arc_set: the fewest edges whose removal breaks "
        "every loop in it. (For a question, follow retrieve_context's routing.)",
        requests.AnalyzeTopology,
        output((*TOPOLOGY_FIELDS, "recommendation"), {"routing": ROUTING, "recommendation": {"type": "string"}}),
        lambda memory, asked: memory.analyze_topology(asked),
        read_only=True,
    ),
    ToolSpec(
        "query_graph",
        "List nodes by ids, by text (BM25) or all, filtered, a page at a time, with the edges among them "
        "(list_edges pages past 1,000).",
        requests.QueryGraph,
        output(("count", "nodes", "edges", "store")),
        lambda memory, asked: memory.query_graph(asked),
        read_only=True,
    ),
    ToolSpec(
        "list_edges",
        "Edges a page at a time by id (next_offset: the next page or null): all, or touching node_ids.",
        requests.ListEdges,
        output(("count", "total", "next_offset", "edges")),
        lambda memory, asked: memory.list_edges(asked),
        read_only=True,
    ),
    ToolSpec(
        "history",
        "Every version of a node or edge, oldest first, with its valid (valid_from/until) and recorded "
        "(recorded_at/until) times.",
        requests.History,
        output(("id", "kind", "versions")),
        lambda memory, asked: memory.history(asked),
        read_only=True,
    ),
    ToolSpec(
        "get_metrics",
        "Analysis latency, routing counts, reported outcomes (by routing and κ), the store's size.",
        requests.GetMetrics,
        output(("topology.analyze", "topology.route", "outcomes", "store")),
        lambda memory, asked: memory.get_metrics(),
        read_only=True,
    ),
)
