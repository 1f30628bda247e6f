"""The requests of the memory's operations, typed: one dataclass per MCP tool, each argument
defined once (type, meaning, bounds, check) — the service takes them, the MCP schemas and the
tools' reference page are generated from them (``memory.mcp.schema``).

>>> RetrieveContext.parse({"query": "why does revenue keep growing", "limit": 3}).limit
3
>>> AnalyzeTopology.parse({"limit": 3})
Traceback (most recent call last):
...
bendscope.memory.core.errors.InvalidInput: limit goes with query (how many nodes it retrieves)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..store.scoped import check_namespace
from .answer_budget import DEFAULT_MAX_CHARS, DEFAULT_MAX_TOTAL_CHARS, MAX_TOTAL_CHARS, Budget
from .arguments import (
    UNSET,
    Check,
    Request,
    a_moment,
    an_id,
    arg,
    boolean,
    choice,
    id_list,
    kind_of,
    number_between,
    text,
    whole_number,
)
from .consolidation import FORGET_RETRIEVALS_DAYS, HALF_LIFE_DAYS, IDLE_DAYS, PRUNE_BELOW
from .errors import InvalidInput
from .records import EDGE_TYPES, MAX_CONTENT, MAX_SOURCE, NODE_TYPES, OUTCOMES, ROUTES, check_text
from .retrieval import DEFAULT_LIMIT, LOOP_LIMIT, MAX_HOPS, MAX_LIMIT

#: the most node ids one call may name
MAX_NODE_IDS = 100_000
#: the longest query text
MAX_QUERY = 2_000
#: the most nodes or edges on one page, and named by one outcome
MAX_PAGE = 1_000
#: nodes and edges in one store_many call
MAX_BATCH = 2_000
#: iterations an outcome may report
MAX_ITERATIONS = 1_000_000
#: how much an answer of retrieve_context says (``detail``)
DETAILS = ("compact", "full")
_DAYS = 36_500.0


def _nullable(check: Check, json_type: str | list[str] | None = None) -> Check:
    """``check``, with null read as None (as if the argument were left out); its schema type is
    ``json_type`` (default: ``check``'s — null is accepted, not advertised)."""

    def read(value: Any, name: str) -> Any:
        return None if value is None else check(value, name)

    read.json_type = json_type or getattr(check, "json_type", "string")  # type: ignore[attr-defined]
    return read


def _namespace(value: Any, name: str) -> str:
    return check_namespace(value)


_namespace.json_type = "string"  # type: ignore[attr-defined]


def _node_types(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(v in NODE_TYPES for v in value):
        raise InvalidInput(f"node_types must be a list of {', '.join(NODE_TYPES)}")
    return list(value)


_node_types.json_type = "array"  # type: ignore[attr-defined]


def _objects(value: Any, name: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise InvalidInput(f"{name} must be a list of objects")
    return list(value)


_objects.json_type = "array"  # type: ignore[attr-defined]


def _as_given(json_type: str | list[str]) -> Check:
    """A value passed on as given: the record's own rules check it (``records.new_node`` /
    ``new_edge``, which also merge it with the record it updates)."""

    def read(value: Any, name: str) -> Any:
        return value

    read.json_type = json_type  # type: ignore[attr-defined]
    return read


_ID_ARGS = "The id."
_AS_OF = "Valid time: what held then (ISO time/date)."
_KNOWN = "Recorded time: as known then."
_KNOWN_AT = "Recorded time: as known then (as_of too)."
_BUDGET_CHARS = f"Characters per text ({DEFAULT_MAX_CHARS:,})."
_BUDGET_TOTAL = f"Total ({DEFAULT_MAX_TOTAL_CHARS:,})."
_VALID_FROM = "Holds from (ISO 8601; none: always)."
_VALID_UNTIL = "Holds until (excluded)."
_SOURCE = "Its origin."
_NAMESPACE = "Scope."


def _max_chars() -> Any:
    return arg(_BUDGET_CHARS, whole_number(0, MAX_CONTENT), default=DEFAULT_MAX_CHARS, minimum=0, maximum=MAX_CONTENT)


def _max_total_chars() -> Any:
    return arg(_BUDGET_TOTAL, whole_number(0, MAX_TOTAL_CHARS), default=None, minimum=0, maximum=MAX_TOTAL_CHARS)


class Budgeted:
    """A reading whose answer carries stored text: how much of it (``answer_budget``), from its
    ``max_chars`` and ``max_total_chars`` arguments (the last ones it takes)."""

    max_chars: int
    max_total_chars: int | None

    def budget(self) -> Budget:
        """The response budget asked for. A larger ``max_chars`` alone raises the total to at
        least twice it, so asking for one node with ``max_chars`` 100,000 gives all of it."""
        floor = max(DEFAULT_MAX_TOTAL_CHARS, min(2 * self.max_chars, MAX_TOTAL_CHARS))
        return Budget(self.max_chars, floor if self.max_total_chars is None else self.max_total_chars)


@dataclass(frozen=True, kw_only=True)
class RetrieveContext(Request, Budgeted):
    """retrieve_context's arguments."""

    query: str = arg("The question.", text(MAX_QUERY), required=True, maxLength=MAX_QUERY)
    as_of: str | None = arg(_AS_OF, _nullable(a_moment), default=None)
    known_at: str | None = arg(_KNOWN_AT, _nullable(a_moment), default=None)
    limit: int = arg(
        "Results at most (10).", whole_number(1, MAX_LIMIT), default=DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT
    )
    top_k: int | None = arg("Seeds (= limit).", whole_number(1, MAX_LIMIT), default=None, minimum=1, maximum=MAX_LIMIT)
    expand_hops: int = arg(
        "Hops from the seeds (1).", whole_number(0, MAX_HOPS), default=1, minimum=0, maximum=MAX_HOPS
    )
    loop_limit: int = arg(
        "Loop members named at most (50).", whole_number(0, MAX_LIMIT), default=LOOP_LIMIT, minimum=0, maximum=MAX_LIMIT
    )
    expand_limit: int | None = arg(
        "Neighbours at most (= limit).", whole_number(0, MAX_LIMIT), default=None, minimum=0, maximum=MAX_LIMIT
    )
    node_types: list[str] | None = arg(
        "Only these types.", _node_types, default=None, items={"type": "string", "enum": list(NODE_TYPES)}
    )
    detail: str = arg("full adds stats and paths.", choice(DETAILS), default="compact", enum=list(DETAILS))
    max_chars: int = _max_chars()
    max_total_chars: int | None = _max_total_chars()
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)


@dataclass(frozen=True, kw_only=True)
class AnalyzeTopology(Request):
    """analyze_topology's arguments: the spec's two, then the memory's."""

    node_ids: list[str] | None = arg(
        "Node IDs to analyze. If omitted, analyzes the full graph.",
        _nullable(id_list(MAX_NODE_IDS), "array"),
        default=None,
        items={"type": "string"},
        maxItems=MAX_NODE_IDS,
    )
    query: str | None = arg(
        "Optional query text. If provided, retrieves relevant nodes first, then analyzes their topology.",
        _nullable(text(MAX_QUERY), "string"),
        default=None,
        maxLength=MAX_QUERY,
    )
    limit: int | None = arg(
        "With query: nodes retrieved (10).",
        _nullable(whole_number(1, MAX_LIMIT), "integer"),
        default=None,
        minimum=1,
        maximum=MAX_LIMIT,
    )
    as_of: str | None = arg(_AS_OF, _nullable(a_moment, "string"), default=None)
    known_at: str | None = arg(_KNOWN_AT, _nullable(a_moment, "string"), default=None)
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)

    def validate(self) -> None:
        if self.node_ids is not None and self.query is not None:
            raise InvalidInput("give node_ids or query, not both")
        if self.limit is not None and self.query is None:
            raise InvalidInput("limit goes with query (how many nodes it retrieves)")


@dataclass(frozen=True, kw_only=True)
class QueryGraph(Request, Budgeted):
    """query_graph's arguments."""

    limit: int = arg("Page size (50).", whole_number(1, MAX_PAGE), default=50, minimum=1, maximum=MAX_PAGE)
    offset: int = arg("Skip (0).", whole_number(0, 10**9), default=0, minimum=0)
    include_edges: bool = arg("With edges (true).", boolean, default=True)
    node_type: str | None = arg("Of this type.", choice(NODE_TYPES, nullable=True), default=None, enum=list(NODE_TYPES))
    source: str | None = arg(
        "With this source.", _nullable(lambda v, n: check_text(v, n, MAX_SOURCE), "string"), default=None
    )
    node_ids: list[str] | None = arg(
        "These nodes.",
        _nullable(id_list(MAX_NODE_IDS), "array"),
        default=None,
        items={"type": "string"},
        maxItems=MAX_NODE_IDS,
    )
    text: str | None = arg(
        "Matching this text.", _nullable(text(MAX_QUERY), "string"), default=None, maxLength=MAX_QUERY
    )
    as_of: str | None = arg("Only what held then.", _nullable(a_moment, "string"), default=None)
    known_at: str | None = arg(_KNOWN, _nullable(a_moment, "string"), default=None)
    max_chars: int = _max_chars()
    max_total_chars: int | None = _max_total_chars()
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)


@dataclass(frozen=True, kw_only=True)
class ListEdges(Request, Budgeted):
    """list_edges' arguments."""

    limit: int = arg("Page size (100).", whole_number(1, MAX_PAGE), default=100, minimum=1, maximum=MAX_PAGE)
    offset: int = arg("Skip (0).", whole_number(0, 10**9), default=0, minimum=0)
    edge_type: str | None = arg("Of this type (store_edge's).", choice(EDGE_TYPES, nullable=True), default=None)
    node_ids: list[str] | None = arg(
        "Touching these nodes.",
        _nullable(id_list(MAX_NODE_IDS), "array"),
        default=None,
        items={"type": "string"},
        maxItems=MAX_NODE_IDS,
    )
    known_at: str | None = arg(_KNOWN, _nullable(a_moment, "string"), default=None)
    max_chars: int = _max_chars()
    max_total_chars: int | None = _max_total_chars()
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)


@dataclass(frozen=True, kw_only=True)
class StoreNode(Request):
    """store_node's arguments: the node's fields, those given (fields left out keep their values)."""

    id: str = arg("Node id (default: from the content).", _as_given("string"))
    key: str = arg("A name (instead of id).", _as_given("string"))
    content: str = arg("The fact itself.", _as_given("string"), maxLength=MAX_CONTENT)
    node_type: str = arg("Type (semantic).", _as_given("string"), enum=list(NODE_TYPES))
    confidence: float = arg("0-1 (0.5).", _as_given("number"), minimum=0, maximum=1)
    metadata: dict[str, Any] = arg("Any JSON object (16 KB).", _as_given("object"))
    source: str = arg(_SOURCE, _as_given("string"))
    valid_from: str | None = arg(_VALID_FROM, _as_given(["string", "null"]))
    valid_until: str | None = arg(_VALID_UNTIL, _as_given(["string", "null"]))
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)


_EDGE_TYPE = (
    "Required for a new edge. causal: source causes/raises target; temporal: source comes first. Only these "
    "two form loops."
)


@dataclass(frozen=True, kw_only=True)
class StoreEdge(Request):
    """store_edge's arguments: the edge's fields, those given."""

    id: str = arg("Edge id (default: derived).", _as_given("string"))
    source_id: str = arg("The node the edge starts at.", _as_given("string"))
    target_id: str = arg("The node it points to.", _as_given("string"))
    source_key: str = arg("Or its key.", _as_given("string"))
    target_key: str = arg("Or its key.", _as_given("string"))
    edge_type: str = arg(_EDGE_TYPE, _as_given("string"), enum=list(EDGE_TYPES))
    weight: float = arg("Strength (1.0).", _as_given("number"), minimum=0)
    metadata: dict[str, Any] = arg('Any JSON object, e.g. {"polarity": "-"}.', _as_given("object"))
    source: str = arg(_SOURCE, _as_given("string"))
    valid_from: str | None = arg(_VALID_FROM, _as_given(["string", "null"]))
    valid_until: str | None = arg(_VALID_UNTIL, _as_given(["string", "null"]))
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)


@dataclass(frozen=True, kw_only=True)
class StoreMany(Request):
    """store_many's arguments."""

    nodes: list[Mapping[str, Any]] = arg(
        "Nodes: objects with store_node's arguments.",
        _objects,
        default=(),
        items={"type": "object"},
        maxItems=MAX_BATCH,
    )
    edges: list[Mapping[str, Any]] = arg(
        "Edges: objects with store_edge's arguments (edge_type required).",
        _objects,
        default=(),
        items={"type": "object"},
        maxItems=MAX_BATCH,
    )
    turns: list[Mapping[str, Any]] = arg(
        "Turns: {speaker, text, time, session, id?, caption?}.",
        _objects,
        default=(),
        items={"type": "object"},
        maxItems=MAX_BATCH,
    )
    namespace: str | None = arg(_NAMESPACE, _nullable(_namespace, "string"), default=None)


def _observation(value: Any, name: str) -> str:
    observation = check_text(value, name, MAX_CONTENT, empty_ok=False)
    if not observation.strip():
        raise InvalidInput(f"{name} must hold some text")
    return observation


_observation.json_type = "string"  # type: ignore[attr-defined]


@dataclass(frozen=True, kw_only=True)
class AppendObservation(Request):
    """append_observation's arguments."""

    id: str = arg("The node.", an_id, required=True)
    observation: str = arg("The text to add.", _observation, required=True, maxLength=MAX_CONTENT)


@dataclass(frozen=True, kw_only=True)
class InvalidateNode(Request):
    """invalidate_node's arguments."""

    id: str = arg("The node.", an_id, required=True)
    at: str | None = arg("When it stopped holding (now).", _nullable(a_moment, "string"), default=None)


@dataclass(frozen=True, kw_only=True)
class InvalidateEdge(Request):
    """invalidate_edge's arguments."""

    id: str = arg("The edge.", an_id, required=True)
    at: str | None = arg("When it stopped holding (now).", _nullable(a_moment, "string"), default=None)


@dataclass(frozen=True, kw_only=True)
class History(Request):
    """history's arguments."""

    id: str = arg("A node's or an edge's id.", an_id, required=True)


@dataclass(frozen=True, kw_only=True)
class DeleteNode(Request):
    """delete_node's arguments."""

    id: str = arg("The node.", an_id, required=True)


@dataclass(frozen=True, kw_only=True)
class DeleteEdge(Request):
    """delete_edge's arguments."""

    id: str = arg("The edge.", an_id, required=True)


@dataclass(frozen=True, kw_only=True)
class DeleteMany(Request):
    """delete_many's arguments."""

    node_ids: list[str] = arg(
        "Nodes to delete.",
        _nullable(id_list(MAX_NODE_IDS), "array"),
        default=None,
        items={"type": "string"},
        maxItems=MAX_NODE_IDS,
    )
    edge_ids: list[str] = arg(
        "Edges to delete.",
        _nullable(id_list(MAX_NODE_IDS), "array"),
        default=None,
        items={"type": "string"},
        maxItems=MAX_NODE_IDS,
    )

    def validate(self) -> None:
        if not self.node_ids and not self.edge_ids:
            raise InvalidInput("give node_ids and/or edge_ids")


def _retrieval_id(value: Any, name: str) -> str:
    retrieval_id = str(an_id(value, name))
    if not retrieval_id.startswith("retrieval-"):
        raise InvalidInput(
            f"retrieval_id must be an id retrieve_context answered with (retrieval-…), got {retrieval_id!r:.60}"
        )
    return retrieval_id


def _used(value: Any, name: str) -> list[str]:
    ids: list[str] = id_list(MAX_NODE_IDS)(value, name)
    if len(ids) > MAX_PAGE:
        raise InvalidInput(f"node_ids has {len(ids):,} ids; one outcome names at most {MAX_PAGE:,}")
    return ids


def _outcome(value: Any, name: str) -> str:
    if value not in OUTCOMES:
        shown = repr(value)[:40] if isinstance(value, str) else kind_of(value)
        raise InvalidInput(f"outcome must be one of {', '.join(OUTCOMES)}, got {shown}")
    return str(value)


_outcome.json_type = "string"  # type: ignore[attr-defined]


@dataclass(frozen=True, kw_only=True)
class LearnFromOutcome(Request):
    """learn_from_outcome's arguments."""

    outcome: str = arg("How it went.", _outcome, required=True, enum=list(OUTCOMES))
    retrieval_id: str | None = arg("From retrieve_context.", _nullable(_retrieval_id, "string"), default=None)
    node_ids: list[str] | None = arg(
        "The nodes the answer used: of retrieval_id's, its results by default.",
        _nullable(_used, "array"),
        default=None,
        items={"type": "string"},
        maxItems=MAX_PAGE,
    )
    routing: str | None = arg("The route taken.", choice(ROUTES, nullable=True), default=None, enum=list(ROUTES))
    deliberated: bool | None = arg("Whether you deliberated.", _nullable(boolean, "boolean"), default=None)
    iterations: int | None = arg(
        "Iterations spent (1: one pass).",
        _nullable(whole_number(0, MAX_ITERATIONS), "integer"),
        default=None,
        minimum=0,
        maximum=MAX_ITERATIONS,
    )

    def validate(self) -> None:
        if self.retrieval_id is None and not self.node_ids:
            raise InvalidInput(
                "give retrieval_id (the id retrieve_context answered with) and/or node_ids (the nodes the answer used)"
            )
        if self.routing == "fast" and self.deliberated:
            raise InvalidInput("routing 'fast' is one pass without deliberation: it cannot have deliberated")
        if self.routing == "deliberate" and self.deliberated is False:
            raise InvalidInput("routing 'deliberate' deliberates: deliberated cannot be false")


@dataclass(frozen=True, kw_only=True)
class GetMetrics(Request):
    """get_metrics takes no arguments."""


@dataclass(frozen=True, kw_only=True)
class Consolidate(Request):
    """consolidate's arguments."""

    dry_run: bool = arg("Report only (false).", boolean, default=False)
    half_life_days: float = arg(
        "Half life (30).", number_between(0.0, _DAYS, above=True), default=HALF_LIFE_DAYS, exclusiveMinimum=0
    )
    idle_days: float = arg("Idle days before decay (7).", number_between(0.0, _DAYS), default=IDLE_DAYS, minimum=0)
    prune_below: float = arg(
        "Confidence pruned below (0.05).", number_between(0.0, 1.0), default=PRUNE_BELOW, minimum=0, maximum=1
    )
    similarity: float | None = arg(
        "Duplicate cosine (0.95).", number_between(0.5, 1.0), default=None, minimum=0.5, maximum=1
    )
    forget_retrievals_days: float = arg(
        "Days retrievals are kept (90).",
        number_between(0.0, _DAYS, above=True),
        default=FORGET_RETRIEVALS_DAYS,
        exclusiveMinimum=0,
    )
    merge: bool = arg("Merge duplicates (true).", boolean, default=True)


__all__ = [
    "DEFAULT_LIMIT",
    "DETAILS",
    "LOOP_LIMIT",
    "MAX_BATCH",
    "MAX_HOPS",
    "MAX_ITERATIONS",
    "MAX_LIMIT",
    "MAX_NODE_IDS",
    "MAX_PAGE",
    "MAX_QUERY",
    "UNSET",
    "AnalyzeTopology",
    "AppendObservation",
    "Budgeted",
    "Consolidate",
    "DeleteEdge",
    "DeleteMany",
    "DeleteNode",
    "GetMetrics",
    "History",
    "InvalidateEdge",
    "InvalidateNode",
    "LearnFromOutcome",
    "ListEdges",
    "QueryGraph",
    "RetrieveContext",
    "StoreEdge",
    "StoreMany",
    "StoreNode",
]
