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

from ..core.answer_budget import DEFAULT_MAX_CHARS, DEFAULT_MAX_TOTAL_CHARS, MAX_TOTAL_CHARS
from ..core.errors import InvalidInput
from ..core.records import EDGE_TYPES, MAX_CONTENT, NODE_TYPES, OUTCOMES, ROUTES
from ..core.retrieval import MAX_HOPS, MAX_LIMIT
from ..core.service import (
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
#: what every tool says once about κ and its arguments
KAPPA_NOTE = (
    " κ of a loop region (a strongly connected component of causal and temporal edges) is the fewest edges "
    "whose removal splits it; its fault lines are the edges of that weakest cut."
)
_STRICT = " Unknown arguments are refused."

_ROUTING = {"type": "string", "enum": ["fast", "deliberate"]}
#: the canonical topology's top-level fields (spec §A.1)
TOPOLOGY_FIELDS = ("sccs", "dag_nodes", "routing", "max_kappa", "scc_count")
_WRITE_EFFECT = {
    "type": "object",
    "description": "What the write did to the loops around what it touched: description, changed, kappa_before, "
    "kappa_after, loops_before, loops_after.",
}


def _arg(kind: str | list[str], description: str, **more: Any) -> dict[str, Any]:
    """One argument's schema: its JSON type, what it means, and any bounds."""
    return {"type": kind, "description": description, **more}


def _ids(description: str, most: int = MAX_NODE_IDS) -> dict[str, Any]:
    return _arg("array", description, items={"type": "string"}, maxItems=most)


def _input(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An input schema: the arguments, those required, and no others (unknown ones are refused)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _output(properties: dict[str, Any], required: tuple[str, ...] = (), typed: bool = False) -> dict[str, Any]:
    """An output schema: the fields every answer has (``typed``: and the type of each field; the
    tool's description says what they mean). Kept short: every client reads every schema."""
    schema: dict[str, Any] = {"type": "object"}
    if typed:
        schema["properties"] = properties
    if required:
        schema["required"] = list(required)
    return schema


_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_OBJECT = {"type": "object"}
_LIST = {"type": "array"}
_BUDGET_ARGS = {
    "max_chars": _arg(
        "integer",
        f"Characters per content or metadata ({DEFAULT_MAX_CHARS:,}).",
        minimum=0,
        maximum=MAX_CONTENT,
    ),
    "max_total_chars": _arg(
        "integer",
        f"Characters in all ({DEFAULT_MAX_TOTAL_CHARS:,}).",
        minimum=0,
        maximum=MAX_TOTAL_CHARS,
    ),
}
_VALIDITY_ARGS = {
    "valid_from": _arg(
        ["string", "null"],
        "Since when it holds (ISO 8601); none: an unknown past.",
    ),
    "valid_until": _arg(
        ["string", "null"],
        "Until when (excluded); none: it still holds.",
    ),
}
_AS_OF = _arg("string", "Read the memory as it was then (ISO 8601 time or date).")
_EDGE_TYPE = _arg(
    "string",
    "Required for a new edge. causal: source causes or raises target ('A causes B'); temporal: source comes "
    "first. Only these two form loops; the others are associations.",
    enum=list(EDGE_TYPES),
)
_NODE_ARGS = {
    "id": _arg("string", "Node id (default: derived from the content)."),
    "content": _arg("string", "The fact itself.", maxLength=MAX_CONTENT),
    "node_type": _arg("string", "semantic (default), episodic or procedural.", enum=list(NODE_TYPES)),
    "confidence": _arg("number", "0-1 (0.5).", minimum=0, maximum=1),
    "metadata": _arg("object", "Any JSON object (16 KB)."),
    "source": _arg("string", "Who or what it comes from."),
    **_VALIDITY_ARGS,
}
_EDGE_ARGS = {
    "id": _arg("string", "Edge id (default: derived); an existing one is updated."),
    "source_id": _arg("string", "The node the edge starts at."),
    "target_id": _arg("string", "The node it points to."),
    "edge_type": _EDGE_TYPE,
    "weight": _arg("number", "Strength (1.0).", minimum=0),
    "metadata": _arg("object", 'Any JSON object, e.g. {"polarity": "-"}.'),
    **_VALIDITY_ARGS,
}
_ID = {"id": _arg("string", "The id.")}
_DONE = _arg("array", "Each item's status and id, in the order given.", items={"type": "object"})
_WRITTEN = _output({"status": _STRING, "id": _STRING, "topology": _WRITE_EFFECT}, ("status", "id"))
_EFFECT_NOTE = " The answer says what it did to the loops around it (topology)."


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    run: Callable[[Memory, dict[str, Any]], dict[str, Any]]
    #: changes no knowledge (clients may run it without asking); ``counts``: it records access counts
    read_only: bool = False
    #: a read that records how often nodes are used (access counts, the retrieval for learn_from_outcome)
    counts: bool = False

    @property
    def reads(self) -> bool:
        """Served by a read-only store too (where it records nothing)."""
        return self.read_only


def _written(answer: dict[str, Any], key: str) -> dict[str, Any]:
    """A write's answer to a client: status, id and what it did to the loops, not the record."""
    short = {"status": answer["status"], "id": answer[key]["id"]}
    if answer[key].get("valid_until") is not None and answer["status"] == "invalidated":
        short["valid_until"] = answer[key]["valid_until"]
    if "topology" in answer:
        short["topology"] = answer["topology"]
    return short


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "retrieve_context",
        "Ask the memory a question; follow the answer's `routing` (`why` says why). 'fast': the results answer it "
        "in one pass. 'deliberate': the question is about a feedback loop's dynamics — reason over the loop its "
        "`loops` entry marked asked names (topology.sccs: members, κ, fault lines, budget; `names`: members not "
        "among the results) first. Results: the best matches, then neighbours, `limit` in all. A lookup about a "
        "loop member routes fast. Changes no knowledge; counts accesses for learn_from_outcome." + KAPPA_NOTE,
        _input(
            {
                "query": _arg("string", "The question.", maxLength=MAX_QUERY),
                "limit": _arg("integer", "Results at most (10).", minimum=1, maximum=MAX_LIMIT),
                "top_k": _arg("integer", "Seeds (= limit).", minimum=1, maximum=MAX_LIMIT),
                "expand_hops": _arg("integer", "Hops from the seeds (1).", minimum=0, maximum=MAX_HOPS),
                "expand_limit": _arg("integer", "Neighbours at most (= limit).", minimum=0, maximum=MAX_LIMIT),
                "loop_limit": _arg("integer", "Loop members named at most (50).", minimum=0, maximum=MAX_LIMIT),
                "node_types": _arg("array", "Only these types.", items={"type": "string", "enum": list(NODE_TYPES)}),
                "detail": _arg("string", "full adds stats and paths.", enum=["compact", "full"]),
                "as_of": _AS_OF,
                **_BUDGET_ARGS,
            },
            ("query",),
        ),
        _output(
            {"routing": _ROUTING, "results": _LIST, "loops": _LIST, "topology": _OBJECT},
            ("status", "retrieval_id", "query", "routing", "why", "count", "results", "loops", "topology"),
            typed=True,
        ),
        lambda memory, args: memory.retrieve_context(args),
        read_only=True,
        counts=True,
    ),
    ToolSpec(
        "analyze_topology",
        ANALYZE_DESCRIPTION + " Per loop region also feedback_arc_set: the fewest edges whose removal breaks "
        "every loop in it. (For a question, follow retrieve_context's routing.)",
        _input(
            {
                "node_ids": _ids("Node IDs to analyze. If omitted, analyzes the full graph."),
                "query": _arg(
                    "string",
                    "Optional query text. If provided, retrieves relevant nodes first, then analyzes their topology.",
                    maxLength=MAX_QUERY,
                ),
                "limit": _arg(
                    "integer",
                    "With query: nodes retrieved (10); the loops they touch are analysed whole.",
                    minimum=1,
                    maximum=MAX_LIMIT,
                ),
                "as_of": _AS_OF,
            }
        ),
        _output(
            {"routing": _ROUTING, "recommendation": _STRING},
            (*TOPOLOGY_FIELDS, "recommendation"),
            typed=True,
        ),
        lambda memory, args: memory.analyze_topology(args),
        read_only=True,
    ),
    ToolSpec(
        "store_node",
        "Store a fact as a node, or update the node with the given id (fields left out keep their values). "
        "Without an id the id derives from the content: the same content finds the same node.",
        _input(_NODE_ARGS),
        _WRITTEN,
        lambda memory, args: _written(memory.store_node(args), "node"),
    ),
    ToolSpec(
        "store_edge",
        "Connect two stored nodes, or update the edge with the given id. Say its edge_type: 'A causes B' is causal; "
        "only causal and temporal edges are directed and form loops." + _EFFECT_NOTE,
        _input(_EDGE_ARGS, ("source_id", "target_id")),
        _WRITTEN,
        lambda memory, args: _written(memory.store_edge(args, typed=True), "edge"),
    ),
    ToolSpec(
        "store_many",
        "Store many nodes, then edges (which may join them), all or nothing: a wrong item stores nothing and "
        "the error names every wrong item." + _EFFECT_NOTE,
        _input(
            {
                "nodes": _arg(
                    "array", "Nodes: objects with store_node's arguments.", items=_OBJECT, maxItems=MAX_BATCH
                ),
                "edges": _arg(
                    "array",
                    "Edges: objects with store_edge's arguments (edge_type required).",
                    items=_OBJECT,
                    maxItems=MAX_BATCH,
                ),
            }
        ),
        _output(
            {"status": _STRING, "nodes": _DONE, "edges": _DONE, "topology": _WRITE_EFFECT}, ("status", "nodes", "edges")
        ),
        lambda memory, args: memory.store_many(args, typed=True),
    ),
    ToolSpec(
        "append_observation",
        "Add an observation to the end of a stored node's content, on a new line.",
        _input(
            {
                "id": _arg("string", "The node."),
                "observation": _arg("string", "The text to add.", maxLength=MAX_CONTENT),
            },
            ("id", "observation"),
        ),
        _output({"status": _STRING, "id": _STRING, "length": _INTEGER}, ("status", "id", "length")),
        lambda memory, args: memory.append_observation(args),
    ),
    ToolSpec(
        "query_graph",
        "List nodes by ids, by text (BM25) or all, filtered by node_type and source, a page at a time, with the "
        "edges among them (at most 1,000; edges_total counts them, list_edges pages them).",
        _input(
            {
                "node_ids": _ids("These nodes."),
                "text": _arg("string", "Matching this text.", maxLength=MAX_QUERY),
                "node_type": _arg("string", "Of this type.", enum=list(NODE_TYPES)),
                "source": _arg("string", "With this source."),
                "limit": _arg("integer", "Page size (50).", minimum=1, maximum=MAX_PAGE),
                "offset": _arg("integer", "Skip (0).", minimum=0),
                "include_edges": _arg("boolean", "With edges (true)."),
                **_BUDGET_ARGS,
            }
        ),
        _output(
            {
                "count": _INTEGER,
                "nodes": _LIST,
                "edges": _LIST,
                "edges_total": _INTEGER,
                "store": _OBJECT,
                "truncated": _INTEGER,
            },
            ("count", "nodes", "edges", "store"),
        ),
        lambda memory, args: memory.query_graph(args),
        read_only=True,
    ),
    ToolSpec(
        "list_edges",
        "List every edge a page at a time (by id; next_offset starts the next page, null after the last), or the "
        "edges touching node_ids, optionally of one edge_type.",
        _input(
            {
                "node_ids": _ids("Touching these nodes."),
                "edge_type": _arg("string", "Of this type.", enum=list(EDGE_TYPES)),
                "limit": _arg("integer", "Page size (100).", minimum=1, maximum=MAX_PAGE),
                "offset": _arg("integer", "Skip (0).", minimum=0),
                **_BUDGET_ARGS,
            }
        ),
        _output(
            {
                "count": _INTEGER,
                "total": _INTEGER,
                "next_offset": {"type": ["integer", "null"]},
                "edges": _LIST,
                "truncated": _INTEGER,
            },
            ("count", "total", "next_offset", "edges"),
        ),
        lambda memory, args: memory.list_edges(args),
        read_only=True,
    ),
    ToolSpec(
        "invalidate_node",
        "End a node's validity (at `at`, now by default) without erasing it: as_of an earlier time still sees "
        "it." + _EFFECT_NOTE,
        _input({"id": _arg("string", "The node."), "at": _arg("string", "When it stopped holding (now).")}, ("id",)),
        _WRITTEN,
        lambda memory, args: _written(memory.invalidate_node(args), "node"),
    ),
    ToolSpec(
        "invalidate_edge",
        "End an edge's validity (at `at`, now by default) without erasing it: as_of an earlier time still sees "
        "it." + _EFFECT_NOTE,
        _input({"id": _arg("string", "The edge."), "at": _arg("string", "When it stopped holding (now).")}, ("id",)),
        _WRITTEN,
        lambda memory, args: _written(memory.invalidate_edge(args), "edge"),
    ),
    ToolSpec(
        "delete_node",
        "Delete a node and every edge touching it." + _EFFECT_NOTE,
        _input({"id": _arg("string", "The node.")}, ("id",)),
        _output(
            {"status": _STRING, "id": _STRING, "deleted_edges": _LIST, "topology": _WRITE_EFFECT},
            ("status", "id", "deleted_edges", "topology"),
        ),
        lambda memory, args: memory.delete_node(args.get("id")),
    ),
    ToolSpec(
        "delete_edge",
        "Delete an edge." + _EFFECT_NOTE,
        _input({"id": _arg("string", "The edge.")}, ("id",)),
        _WRITTEN,
        lambda memory, args: memory.delete_edge(args.get("id")),
    ),
    ToolSpec(
        "delete_many",
        "Delete nodes (with their edges) and edges, all or nothing.",
        _input({"node_ids": _ids("Nodes to delete."), "edge_ids": _ids("Edges to delete.")}),
        _output(
            {"status": _STRING, "nodes": _INTEGER, "edges": _INTEGER, "edges_with_the_nodes": _INTEGER},
            ("status", "nodes", "edges", "edges_with_the_nodes"),
        ),
        lambda memory, args: memory.delete_many(args),
    ),
    ToolSpec(
        "learn_from_outcome",
        "Report how an answer went: the confidence of the nodes it used (retrieval_id's, or node_ids) and the "
        "weights of the causal and temporal edges among them move a fifth of the way toward the outcome (success "
        "1, partial 0.5, timeout 0.25, failure 0). Say whether you deliberated and the iterations spent: "
        "get_metrics measures the routing with them.",
        _input(
            {
                "retrieval_id": _arg("string", "The retrieval_id retrieve_context answered with."),
                "node_ids": _ids("The nodes the answer used (default: retrieval_id's).", MAX_PAGE),
                "outcome": _arg("string", "How it went.", enum=list(OUTCOMES)),
                "routing": _arg("string", "The route taken.", enum=list(ROUTES)),
                "deliberated": _arg("boolean", "Whether you deliberated."),
                "iterations": _arg("integer", "Iterations spent (1: one pass).", minimum=0, maximum=MAX_ITERATIONS),
            },
            ("outcome",),
        ),
        _output(
            {
                "status": _STRING,
                "outcome_id": _STRING,
                "outcome": _STRING,
                "retrieval_id": {"type": ["string", "null"]},
                "decision": _ROUTING,
                "routing": _ROUTING,
                "deliberated": {"type": "boolean"},
                "iterations": {"type": ["integer", "null"]},
                "nodes": _LIST,
                "edges": _LIST,
            },
            ("status", "outcome_id", "outcome", "decision", "routing", "deliberated", "nodes", "edges"),
        ),
        lambda memory, args: memory.learn_from_outcome(args),
    ),
    ToolSpec(
        "get_metrics",
        "Analysis latency and sizes, routing counts, the outcomes reported (by routing and κ; unnecessary "
        "deliberation: deliberated on κ 0 or in one iteration), and the store (kind, location, size).",
        _input({}),
        _output(
            {"topology.analyze": _OBJECT, "topology.route": _OBJECT, "outcomes": _OBJECT, "store": _OBJECT},
            ("topology.analyze", "topology.route", "outcomes", "store"),
        ),
        lambda memory, args: memory.get_metrics(),
        read_only=True,
    ),
    ToolSpec(
        "consolidate",
        "Upkeep in one transaction: decay the confidence of unused nodes, merge duplicates, prune weak nodes — "
        "never changing a feedback loop. dry_run reports and writes nothing.",
        _input(
            {
                "dry_run": _arg("boolean", "Report only (false)."),
                "half_life_days": _arg("number", "Half life (30).", exclusiveMinimum=0),
                "idle_days": _arg("number", "Idle days before decay (7).", minimum=0),
                "prune_below": _arg("number", "Confidence pruned below (0.05).", minimum=0, maximum=1),
                "merge": _arg("boolean", "Merge duplicates (true)."),
                "similarity": _arg("number", "Duplicate cosine (0.95).", minimum=0.5, maximum=1),
                "forget_retrievals_days": _arg("number", "Days retrievals are kept (90).", exclusiveMinimum=0),
            }
        ),
        _output(
            {
                "status": _STRING,
                "dry_run": {"type": "boolean"},
                "decayed": _OBJECT,
                "merged": _OBJECT,
                "pruned": _OBJECT,
                "kept_for_loops": _OBJECT,
                "topology_before": _OBJECT,
                "topology_after": _OBJECT,
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
