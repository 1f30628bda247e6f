"""The MCP tools: their names, descriptions and JSON Schemas, and the dispatch of a
call to ``Memory``. Independent of the MCP SDK, so it is tested directly too.

``analyze_topology`` is exactly as the κ implementation prompt words it (name,
description, input schema); its result is the canonical topology schema plus
``recommendation``. Every tool checks its arguments itself and answers bad ones with an
``InvalidInput`` whose message names the problem; nothing is written then.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .answer_budget import DEFAULT_MAX_CHARS, DEFAULT_MAX_TOTAL_CHARS, MAX_TOTAL_CHARS
from .errors import InvalidInput
from .records import EDGE_TYPES, MAX_CONTENT, NODE_TYPES, OUTCOMES, ROUTES
from .retrieval import MAX_HOPS, MAX_LIMIT
from .service import (
    MAX_BATCH,
    MAX_ITERATIONS,
    MAX_NODE_IDS,
    MAX_PAGE,
    MAX_QUERY,
    Memory,
)

#: the most characters a call's arguments may take as JSON
MAX_ARGUMENTS = 8 * 1024 * 1024

ANALYZE_DESCRIPTION = (
    "Compute topological structure (SCCs, κ values, routing decision) for a set of nodes in the knowledge "
    "graph. Use this to determine whether a knowledge region requires iterative deliberation (κ > 0) or can "
    "be answered with simple retrieval (κ = 0)."
)

_STRING_LIST = {"type": "array", "items": {"type": "string"}}
_EDGE_REF = {
    "type": "object",
    "properties": {"source": {"type": "string"}, "target": {"type": "string"}},
    "required": ["source", "target"],
}
_BUDGET = {
    "type": "object",
    "properties": {
        "max_iterations": {"type": "integer"},
        "agent_count": {"type": "integer"},
        "timeout_multiplier": {"type": "number"},
        "confidence_threshold": {"type": "number"},
    },
    "required": ["max_iterations", "agent_count", "timeout_multiplier", "confidence_threshold"],
}
_ROUTING = {"type": "string", "enum": ["fast", "deliberate"]}
TOPOLOGY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sccs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "nodes": _STRING_LIST,
                    "kappa": {"type": "integer", "minimum": 1},
                    "approximate": {"type": "boolean"},
                    "fault_line_edges": {"type": "array", "items": _EDGE_REF},
                    "routing": _ROUTING,
                    "deliberation_budget": _BUDGET,
                },
                "required": [
                    "id",
                    "nodes",
                    "kappa",
                    "approximate",
                    "fault_line_edges",
                    "routing",
                    "deliberation_budget",
                ],
            },
        },
        "dag_nodes": _STRING_LIST,
        "routing": _ROUTING,
        "max_kappa": {"type": "integer", "minimum": 0},
        "scc_count": {"type": "integer", "minimum": 0},
    },
    "required": ["sccs", "dag_nodes", "routing", "max_kappa", "scc_count"],
}
_NODE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "content": {"type": "string"},
        "node_type": {"type": "string", "enum": list(NODE_TYPES)},
        "confidence": {"type": "number"},
        "metadata": {"type": "object"},
        "source": {"type": "string"},
        "access_count": {"type": "integer"},
        "created_at": {"type": "string"},
        "updated_at": {"type": "string"},
        "last_accessed_at": {"type": ["string", "null"]},
        "valid_from": {"type": ["string", "null"]},
        "valid_until": {"type": ["string", "null"]},
    },
    "required": ["id", "content", "node_type", "confidence", "metadata", "source"],
}
_EDGE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "source_id": {"type": "string"},
        "target_id": {"type": "string"},
        "edge_type": {"type": "string", "enum": list(EDGE_TYPES)},
        "weight": {"type": "number"},
        "metadata": {"type": "object"},
        "created_at": {"type": "string"},
        "last_activated_at": {"type": ["string", "null"]},
        "valid_from": {"type": ["string", "null"]},
        "valid_until": {"type": ["string", "null"]},
    },
    "required": ["id", "source_id", "target_id", "edge_type", "weight", "metadata"],
}
_STATUS = {"type": "string"}
_LOOP = {
    "type": "object",
    "properties": {
        "kappa": {"type": "integer"},
        "approximate": {"type": "boolean"},
        "node_count": {"type": "integer"},
        "nodes": {"type": "array", "items": {"type": "string"}},
        "nodes_omitted": {"type": "integer"},
    },
    "required": ["kappa", "approximate", "node_count", "nodes"],
}
#: what a write did to the loops around the nodes it touched (memory.write_effect)
_WRITE_TOPOLOGY = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "changed": {"type": "boolean"},
        "kappa_before": {"type": "integer"},
        "kappa_after": {"type": "integer"},
        "loops_before": {"type": "array", "items": _LOOP},
        "loops_after": {"type": "array", "items": _LOOP},
    },
    "required": ["description", "changed", "kappa_before", "kappa_after", "loops_before", "loops_after"],
}
_EFFECT_NOTE = (
    " The answer's topology says what the write did to the feedback loops around the nodes it touches: "
    "κ before → after and the loops on each side (creates feedback loop, enlarges / merges / strengthens / "
    "weakens / shrinks / splits loop, breaks feedback loop, or no topological change)."
)


_BUDGET_ARGS = {
    "max_chars": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_CONTENT,
        "description": f"Characters of one node's content, and of one item's metadata as JSON, in the answer "
        f"({DEFAULT_MAX_CHARS:,}). Longer content is cut and says by how much (`truncated`); metadata that does not "
        "fit is left out whole and says its size (`metadata_omitted`).",
    },
    "max_total_chars": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_TOTAL_CHARS,
        "description": f"Characters of content and metadata in the whole answer ({DEFAULT_MAX_TOTAL_CHARS:,}), "
        "counted in the order the answer lists them.",
    },
}
_VALIDITY_ARGS = {
    "valid_from": {
        "type": ["string", "null"],
        "description": "When the fact began to hold (an ISO 8601 UTC time or a date; null: always).",
    },
    "valid_until": {
        "type": ["string", "null"],
        "description": "When it stopped holding (excluded; null: it still holds). A fact that no longer holds "
        "stays in the memory: retrieval and topology leave it out, as_of a time it held sees it.",
    },
}
_AS_OF = {
    "as_of": {
        "type": "string",
        "description": "Read the memory as it was at this time (an ISO 8601 UTC time or a date): the facts valid "
        "then and recorded by then. Default: the facts valid now.",
    }
}
_NODE_ARGS = {
    "id": {"type": "string", "description": "Node id (optional)."},
    "content": {"type": "string", "maxLength": MAX_CONTENT, "description": "The knowledge itself."},
    "node_type": {"type": "string", "enum": list(NODE_TYPES), "description": "semantic by default."},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1, "description": "0.5 by default."},
    "metadata": {"type": "object", "description": "Any JSON object (at most 16 KB)."},
    "source": {"type": "string", "description": "Where the knowledge comes from."},
    **_VALIDITY_ARGS,
}
_EDGE_ARGS = {
    "id": {"type": "string", "description": "Edge id (optional; one per source, target and type)."},
    "source_id": {"type": "string"},
    "target_id": {"type": "string"},
    "edge_type": {"type": "string", "enum": list(EDGE_TYPES), "description": "related by default."},
    "weight": {"type": "number", "minimum": 0, "description": "1.0 by default."},
    "metadata": {"type": "object"},
    **_VALIDITY_ARGS,
}
_DONE = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"status": {"type": "string"}, "id": {"type": "string"}},
        "required": ["status", "id"],
    },
}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    run: Callable[[Memory, dict[str, Any]], dict[str, Any]]
    #: writes nothing at all
    read_only: bool = False
    #: changes no knowledge (it may count accesses, which a read-only store skips): served read-only too
    reads: bool = False


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "analyze_topology",
        ANALYZE_DESCRIPTION,
        {
            "type": "object",
            "properties": {
                "node_ids": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Node IDs to analyze. If omitted, analyzes the full graph.",
                },
                "query": {
                    "type": "string",
                    "description": "Optional query text. If provided, retrieves relevant nodes first, then "
                    "analyzes their topology.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "With query: how many nodes to retrieve (10); the loops they belong to are "
                    "kept whole (loops_cut lists those too large to bring in).",
                },
                **_AS_OF,
            },
        },
        {
            **TOPOLOGY_SCHEMA,
            "properties": {
                **TOPOLOGY_SCHEMA["properties"],
                "recommendation": {"type": "string"},
                "loops_cut": {"type": "array", "items": {"type": "object"}},
            },
        },
        lambda memory, args: memory.analyze_topology(args),
        read_only=True,
    ),
    ToolSpec(
        "retrieve_context",
        "Retrieve what the knowledge graph holds about a query: the `limit` best matches (BM25 over stems, "
        "stop words left out), ranked by relevance × confidence; then, as context, up to `expand_limit` "
        "neighbours one hop along edges that match nothing themselves (their parent's relevance × 0.85, "
        "damped for hubs); then the rest of any feedback loop the results cut (`loop_limit`). The answer carries "
        "`topology` (SCCs, κ, fault lines, routing) of the returned nodes and a `route` plan: if "
        "topology.routing is 'fast' (κ = 0) one pass over retrieval_context answers; if 'deliberate' (κ > 0), "
        "reason over each deliberation task's loop and fault lines before answering. route.reading_order gives "
        "the whole region once, causes first, each loop one block with its budget. Report how the answer went "
        "with learn_from_outcome and the answer's retrieval_id.",
        _object(
            {
                "query": {"type": "string", "description": "What to look for (free text)."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "Results (10)."},
                "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "Seeds (= limit)."},
                "expand_hops": {"type": "integer", "minimum": 0, "maximum": MAX_HOPS, "description": "Hops (1)."},
                "expand_limit": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_LIMIT,
                    "description": "Nodes the expansion adds after the matches: neighbours that match nothing "
                    "themselves (= limit).",
                },
                "loop_limit": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_LIMIT,
                    "description": "Loop members brought in to keep whole the loops the results cut (50).",
                },
                "node_types": {"type": "array", "items": {"type": "string", "enum": list(NODE_TYPES)}},
                **_AS_OF,
                **_BUDGET_ARGS,
            },
            ("query",),
        ),
        _object(
            {
                "status": _STATUS,
                "retrieval_id": {"type": ["string", "null"]},
                "query": {"type": "string"},
                "count": {"type": "integer"},
                "results": {"type": "array", "items": {"type": "object"}},
                "causal_context": _STRING_LIST,
                "stats": {"type": "object"},
                "topology": TOPOLOGY_SCHEMA,
                "route": {
                    "type": "object",
                    "properties": {
                        "retrieval_context": _STRING_LIST,
                        "deliberation_tasks": {"type": "array", "items": {"type": "object"}},
                        "reading_order": {"type": "array", "items": {"type": "object"}},
                        "loops_cut": {"type": "array", "items": {"type": "object"}},
                        "routing": _ROUTING,
                    },
                    "required": ["retrieval_context", "deliberation_tasks", "reading_order", "loops_cut", "routing"],
                },
                "loops_cut": {"type": "array", "items": {"type": "object"}},
            },
            (
                "status",
                "retrieval_id",
                "query",
                "count",
                "results",
                "causal_context",
                "stats",
                "topology",
                "route",
                "loops_cut",
            ),
        ),
        lambda memory, args: memory.retrieve_context(args),
        reads=True,
    ),
    ToolSpec(
        "store_node",
        "Store a piece of knowledge as a node, or update the node with the given id (fields left out keep "
        "their values). Without an id, the id is derived from the content (128 bits), so storing the same "
        "content again finds that node; a different fact is never stored over it.",
        _object(_NODE_ARGS),
        _object({"status": _STATUS, "node": _NODE}, ("status", "node")),
        lambda memory, args: memory.store_node(args),
    ),
    ToolSpec(
        "store_edge",
        "Connect two stored nodes, or update the edge with the given id. Only causal and temporal edges take "
        "part in κ (they are directed: source → target); the other types are associations. derived_from edges "
        "may form no cycle: one that would close a cycle of them is refused, naming it." + _EFFECT_NOTE,
        _object(_EDGE_ARGS, ("source_id", "target_id")),
        _object({"status": _STATUS, "edge": _EDGE, "topology": _WRITE_TOPOLOGY}, ("status", "edge", "topology")),
        lambda memory, args: memory.store_edge(args),
    ),
    ToolSpec(
        "query_graph",
        "List nodes (with the edges among them, at most 1,000: edges_total says how many there are, and "
        "list_edges pages them all): by ids, by text (BM25), or all, filtered by node_type and source, a page "
        "at a time (limit, offset).",
        _object(
            {
                "node_ids": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_NODE_IDS},
                "text": {"type": "string", "maxLength": MAX_QUERY},
                "node_type": {"type": "string", "enum": list(NODE_TYPES)},
                "source": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                "offset": {"type": "integer", "minimum": 0},
                "include_edges": {"type": "boolean"},
                **_BUDGET_ARGS,
            }
        ),
        _object(
            {
                "count": {"type": "integer"},
                "nodes": {"type": "array", "items": _NODE},
                "edges": {"type": "array", "items": _EDGE},
                "edges_total": {"type": "integer"},
                "store": {"type": "object"},
                "truncated": {"type": "integer"},
            },
            ("count", "nodes", "edges", "store"),
        ),
        lambda memory, args: memory.query_graph(args),
        read_only=True,
    ),
    ToolSpec(
        "delete_node",
        "Delete a node and every edge touching it." + _EFFECT_NOTE,
        _object({"id": {"type": "string"}}, ("id",)),
        _object(
            {"status": _STATUS, "id": {"type": "string"}, "deleted_edges": _STRING_LIST, "topology": _WRITE_TOPOLOGY},
            ("status", "id", "deleted_edges", "topology"),
        ),
        lambda memory, args: memory.delete_node(args.get("id")),
    ),
    ToolSpec(
        "invalidate_node",
        "End a node's validity (at `at`, now by default) without deleting it: it stays in the memory and "
        "as_of an earlier time sees it, but retrieval and topology of the present leave it out, and its edges "
        "with it. (delete_node is for what must be erased.)" + _EFFECT_NOTE,
        _object({"id": {"type": "string"}, "at": {"type": "string"}}, ("id",)),
        _object({"status": _STATUS, "node": _NODE, "topology": _WRITE_TOPOLOGY}, ("status", "node", "topology")),
        lambda memory, args: memory.invalidate_node(args),
    ),
    ToolSpec(
        "invalidate_edge",
        "End an edge's validity (at `at`, now by default) without deleting it: yesterday's causal link no longer "
        "forms today's loop, and as_of an earlier time still sees it. (delete_edge is for what must be "
        "erased.)" + _EFFECT_NOTE,
        _object({"id": {"type": "string"}, "at": {"type": "string"}}, ("id",)),
        _object({"status": _STATUS, "edge": _EDGE, "topology": _WRITE_TOPOLOGY}, ("status", "edge", "topology")),
        lambda memory, args: memory.invalidate_edge(args),
    ),
    ToolSpec(
        "delete_edge",
        "Delete an edge." + _EFFECT_NOTE,
        _object({"id": {"type": "string"}}, ("id",)),
        _object(
            {"status": _STATUS, "id": {"type": "string"}, "topology": _WRITE_TOPOLOGY}, ("status", "id", "topology")
        ),
        lambda memory, args: memory.delete_edge(args.get("id")),
    ),
    ToolSpec(
        "store_many",
        "Store many nodes and then many edges in one call, all or nothing: each item is what store_node or "
        "store_edge takes (edges may join nodes of the same call). If any item is wrong nothing is stored and "
        "the error names every wrong item (nodes[3]: …).",
        _object(
            {
                "nodes": {"type": "array", "items": _object(_NODE_ARGS), "maxItems": MAX_BATCH},
                "edges": {
                    "type": "array",
                    "items": _object(_EDGE_ARGS, ("source_id", "target_id")),
                    "maxItems": MAX_BATCH,
                },
            }
        ),
        _object({"status": _STATUS, "nodes": _DONE, "edges": _DONE}, ("status", "nodes", "edges")),
        lambda memory, args: memory.store_many(args),
    ),
    ToolSpec(
        "append_observation",
        "Add an observation to the end of a stored node's content (on a new line): what was learned about "
        "a fact the memory already holds.",
        _object(
            {"id": {"type": "string"}, "observation": {"type": "string", "maxLength": MAX_CONTENT}},
            ("id", "observation"),
        ),
        _object({"status": _STATUS, "node": _NODE}, ("status", "node")),
        lambda memory, args: memory.append_observation(args),
    ),
    ToolSpec(
        "delete_many",
        "Delete many nodes (with every edge touching them) and edges, all or nothing: an id that names "
        "nothing is an error and nothing is deleted.",
        _object({"node_ids": _STRING_LIST, "edge_ids": _STRING_LIST}),
        _object(
            {
                "status": _STATUS,
                "nodes": {"type": "integer"},
                "edges": {"type": "integer"},
                "edges_with_the_nodes": {"type": "integer"},
            },
            ("status", "nodes", "edges", "edges_with_the_nodes"),
        ),
        lambda memory, args: memory.delete_many(args),
    ),
    ToolSpec(
        "list_edges",
        "List every edge a page at a time (by id; next_offset starts the next page, null after the last), or "
        "the edges touching node_ids, optionally of one edge_type.",
        _object(
            {
                "node_ids": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_NODE_IDS},
                "edge_type": {"type": "string", "enum": list(EDGE_TYPES)},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                "offset": {"type": "integer", "minimum": 0},
                **_BUDGET_ARGS,
            }
        ),
        _object(
            {
                "count": {"type": "integer"},
                "total": {"type": "integer"},
                "next_offset": {"type": ["integer", "null"]},
                "edges": {"type": "array", "items": _EDGE},
                "truncated": {"type": "integer"},
            },
            ("count", "total", "next_offset", "edges"),
        ),
        lambda memory, args: memory.list_edges(args),
        read_only=True,
    ),
    ToolSpec(
        "get_metrics",
        "Topology telemetry of this server: analysis latency percentiles (p50/p95/p99 ms), subgraph sizes, "
        "fast/deliberate routing counts and the deliberate ratio (overall and per trigger); the outcomes agents "
        "reported (kept in the store, every server's): by routing decision and by κ (counts, success rate, mean "
        "iterations), unnecessary deliberation (κ = 0 routes deliberated on anyway), iterations against the "
        "budget; and the store size.",
        {"type": "object", "properties": {}},
        _object(
            {
                "topology.analyze": {"type": "object"},
                "topology.route": {"type": "object"},
                "outcomes": {"type": "object"},
                "store": {"type": "object"},
            },
            ("topology.analyze", "topology.route", "outcomes", "store"),
        ),
        lambda memory, args: memory.get_metrics(),
        read_only=True,
    ),
    ToolSpec(
        "learn_from_outcome",
        "Report what happened after answering, so the memory learns: the outcome (success, partial, failure, "
        "timeout) of an answer that used the nodes retrieval_id returned (or node_ids). Their confidence moves "
        "a fifth of the way toward the outcome (success 1, partial 0.5, timeout 0.25, failure 0), and so does "
        "the strength of the causal and temporal edges among them; every value before and after is listed. "
        "Optionally the route taken (fast or deliberate), whether the agent deliberated and the iterations it "
        "spent: get_metrics measures the routing with them.",
        _object(
            {
                "retrieval_id": {"type": "string", "description": "The retrieval_id retrieve_context answered with."},
                "node_ids": {
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": MAX_PAGE,
                    "description": "The nodes the answer used (default: all that retrieval_id returned).",
                },
                "outcome": {"type": "string", "enum": list(OUTCOMES)},
                "routing": {"type": "string", "enum": list(ROUTES), "description": "The route taken."},
                "deliberated": {"type": "boolean", "description": "Whether the agent deliberated."},
                "iterations": {"type": "integer", "minimum": 0, "maximum": MAX_ITERATIONS},
            },
            ("outcome",),
        ),
        _object(
            {
                "status": _STATUS,
                "outcome_id": {"type": "string"},
                "outcome": {"type": "string"},
                "retrieval_id": {"type": ["string", "null"]},
                "decision": _ROUTING,
                "routing": _ROUTING,
                "deliberated": {"type": "boolean"},
                "iterations": {"type": ["integer", "null"]},
                "max_kappa": {"type": "integer"},
                "max_iterations": {"type": "integer"},
                "rule": {"type": "object"},
                "gone": _STRING_LIST,
                "nodes": {"type": "array", "items": {"type": "object"}},
                "edges": {"type": "array", "items": {"type": "object"}},
            },
            ("status", "outcome_id", "outcome", "decision", "routing", "deliberated", "nodes", "edges"),
        ),
        lambda memory, args: memory.learn_from_outcome(args),
    ),
    ToolSpec(
        "consolidate",
        "Upkeep of the memory, in one transaction: decay the confidence of nodes not used for a while (half "
        "life 30 days after 7 idle), merge duplicates (the same content; by embedding similarity when an "
        "embedder is configured), prune nodes below a confidence threshold (0.05) — never changing a feedback "
        "loop: a node whose deletion or merge would change a loop is kept, and the report says which. "
        "dry_run reports exactly what a real run would do and writes nothing. The report holds the loops' "
        "summary before and after (always equal).",
        _object(
            {
                "dry_run": {"type": "boolean", "description": "Report only (false)."},
                "half_life_days": {"type": "number", "exclusiveMinimum": 0, "description": "30."},
                "idle_days": {"type": "number", "minimum": 0, "description": "Days before decay starts (7)."},
                "prune_below": {"type": "number", "minimum": 0, "maximum": 1, "description": "0.05."},
                "merge": {"type": "boolean", "description": "Merge duplicates (true)."},
                "similarity": {"type": "number", "minimum": 0.5, "maximum": 1, "description": "Cosine (0.95)."},
                "forget_retrievals_days": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Retrievals kept for outcomes this many days (90).",
                },
            }
        ),
        _object(
            {
                "status": _STATUS,
                "dry_run": {"type": "boolean"},
                "at": {"type": "string"},
                "previous_run": {"type": ["string", "null"]},
                "rules": {"type": "object"},
                "decayed": {"type": "object"},
                "merged": {"type": "object"},
                "pruned": {"type": "object"},
                "kept_for_loops": {"type": "object"},
                "kept_apart": {"type": "object"},
                "retrievals_forgotten": {"type": "integer"},
                "topology_before": {"type": "object"},
                "topology_after": {"type": "object"},
                "loops_unchanged": {"type": "boolean"},
            },
            ("status", "dry_run", "decayed", "merged", "pruned", "kept_for_loops", "topology_before", "topology_after"),
        ),
        lambda memory, args: memory.consolidate(args),
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def call(memory: Memory, name: str, arguments: Any) -> dict[str, Any]:
    """Run tool ``name``; raises InvalidInput for an unknown tool or bad arguments."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise InvalidInput(f"unknown tool {name!r}; the tools are {', '.join(BY_NAME)}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise InvalidInput("the arguments must be a JSON object")
    allowed = tool.input_schema.get("properties", {})
    unknown = [key for key in arguments if key not in allowed]
    if unknown:
        raise InvalidInput(f"{name} has no argument {unknown[0]!r}; it takes {', '.join(allowed) or 'no arguments'}")
    try:
        size = len(json.dumps(arguments, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        raise InvalidInput("the arguments must be plain JSON values") from None
    if size > MAX_ARGUMENTS:
        raise InvalidInput(f"the arguments are {size:,} characters as JSON; the limit is {MAX_ARGUMENTS:,}")
    return tool.run(memory, dict(arguments))


def encode(result: Mapping[str, Any]) -> str:
    """The text form of a result: compact JSON, keys in the order the result has them."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
