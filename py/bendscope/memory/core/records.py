"""Memory nodes and edges: fields, defaults, limits and validation.

A node is a piece of knowledge (``content``) with a ``node_type`` (episodic, semantic,
procedural), a ``confidence`` in [0, 1], free ``metadata`` (a JSON object), a
``source`` and access statistics. An edge joins two nodes with an ``edge_type``: the
editor's kinds (causal, temporal, associative, context, user) and the Graphonomous
spec's (related, contradicts, supports, derived_from). Only causal and temporal edges
take part in κ, as everywhere (``kappa.DIRECTED_KINDS``).

Two times: a fact is **valid** from ``valid_from`` (included; none: an unknown past) until
``valid_until`` (excluded; none: it still holds) — when it held in the world —, and each
version of a node or an edge was **recorded** from ``recorded_at`` until ``recorded_until``
(none: the current version) — when the memory held it. A write that changes a fact keeps the
version it replaces (``store.base.Store.put_node``); ``created_at`` is when the id was first
recorded.

Timestamps are ISO 8601 UTC strings with milliseconds (``2026-11-30T10:00:00.000Z``),
so they sort as text.

>>> node = new_node({"content": "Revenue follows market share"}, now="2026-11-30T10:00:00.000Z")
>>> node.id, node.node_type, node.confidence
('node-43c5179f9b943c1a605d1e3176d65a7e', 'semantic', 0.5)
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from bendscope.kappa import DIRECTED_KINDS
from bendscope.shared.docformat import MAX_ID, MAX_TEXT

from .errors import InvalidInput

NODE_TYPES = ("episodic", "semantic", "procedural")
EDGE_TYPES = (
    "causal",
    "temporal",
    "associative",
    "context",
    "user",
    "related",
    "contradicts",
    "supports",
    "derived_from",
)
#: the fields a caller gives a node and an edge (store_node, store_edge, store_many items)
NODE_FIELDS = ("id", "content", "node_type", "confidence", "metadata", "source", "valid_from", "valid_until")
EDGE_FIELDS = (
    "id",
    "source_id",
    "target_id",
    "edge_type",
    "weight",
    "metadata",
    "source",
    "valid_from",
    "valid_until",
)
#: what recording a version sets, and the statistics retrieval keeps: the rest of a record is
#: the fact (``same_fact``)
RECORDING = ("updated_at", "recorded_at", "recorded_until")
STATISTICS = ("access_count", "last_accessed_at", "last_activated_at")
DEFAULT_NODE_TYPE = "semantic"
DEFAULT_EDGE_TYPE = "related"
DEFAULT_CONFIDENCE = 0.5
DEFAULT_WEIGHT = 1.0
MAX_CONTENT = MAX_TEXT  # characters: a node is a card of the document format, and back
MAX_SOURCE = 1_000
MAX_METADATA = 16_384  # characters of the metadata's JSON text
MAX_WEIGHT = 1e6
MAX_METADATA_DEPTH = 16  # nesting of metadata objects and lists
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f]")

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_EDGE_TYPE",
    "DEFAULT_NODE_TYPE",
    "DIRECTED_KINDS",
    "EDGE_FIELDS",
    "EDGE_TYPES",
    "NODE_FIELDS",
    "NODE_TYPES",
    "OUTCOMES",
    "RECORDING",
    "ROUTES",
    "LoopRecord",
    "MemoryEdge",
    "MemoryNode",
    "OutcomeRecord",
    "RetrievalRecord",
    "check_count",
    "check_id",
    "check_text",
    "check_timestamp",
    "edge_id_for",
    "moment",
    "new_edge",
    "new_node",
    "node_id_for",
    "retrieval_id_for",
    "same_fact",
    "stamp_of",
    "utc_now",
    "valid",
]


def utc_now() -> str:
    """The current time as a record timestamp."""
    now = datetime.now(UTC)
    return stamp_of(now)


def stamp_of(moment: datetime) -> str:
    """A moment as a record timestamp: milliseconds, the year in four digits (``%Y`` does
    not pad years before 1000 on every platform, and stamps must compare as text).

    >>> stamp_of(datetime(999, 6, 1, tzinfo=UTC))
    '0999-06-01T00:00:00.000Z'
    """
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class MemoryNode:
    id: str
    content: str
    node_type: str = DEFAULT_NODE_TYPE
    confidence: float = DEFAULT_CONFIDENCE
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    access_count: int = 0
    created_at: str = ""
    updated_at: str = ""
    last_accessed_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    recorded_at: str = ""
    recorded_until: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "content": self.content,
            "node_type": self.node_type,
            "confidence": self.confidence,
            "metadata": self.metadata,
            "source": self.source,
            "access_count": self.access_count,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_accessed_at": self.last_accessed_at,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "recorded_at": self.recorded_at,
            "recorded_until": self.recorded_until,
        }

    def valid_at(self, when: str) -> bool:
        """Whether the fact holds at ``when`` (a timestamp): from ``valid_from`` (included;
        none: an unknown past) to ``valid_until`` (excluded; none: it still holds)."""
        return valid(self.valid_from, self.valid_until, when)


@dataclass(frozen=True)
class MemoryEdge:
    id: str
    source_id: str
    target_id: str
    edge_type: str = DEFAULT_EDGE_TYPE
    weight: float = DEFAULT_WEIGHT
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    last_activated_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    source: str = ""
    recorded_at: str = ""
    recorded_until: str | None = None

    @property
    def directed(self) -> bool:
        """Whether the edge takes part in κ (causal or temporal)."""
        return self.edge_type in DIRECTED_KINDS

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source_id": self.source_id,
            "target_id": self.target_id,
            "edge_type": self.edge_type,
            "weight": self.weight,
            "metadata": self.metadata,
            "source": self.source,
            "created_at": self.created_at,
            "last_activated_at": self.last_activated_at,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "recorded_at": self.recorded_at,
            "recorded_until": self.recorded_until,
        }

    def valid_at(self, when: str) -> bool:
        """Whether the edge itself holds at ``when`` (its ends are not looked at)."""
        return valid(self.valid_from, self.valid_until, when)


def same_fact(old: MemoryNode | MemoryEdge, new: MemoryNode | MemoryEdge) -> bool:
    """Equal apart from when they were recorded and their access statistics (storing the same
    fact again makes no new version)."""
    blank = dict.fromkeys((*RECORDING, *STATISTICS), "")
    return old.to_dict() | blank == new.to_dict() | blank


def valid(valid_from: str | None, valid_until: str | None, when: str) -> bool:
    """Whether a fact valid from ``valid_from`` (included) to ``valid_until`` (excluded)
    holds at ``when``; timestamps compare as text.

    >>> valid(None, None, "2026-01-01T00:00:00.000Z")
    True
    >>> valid("2027-01-01T00:00:00.000Z", None, "2026-06-01T00:00:00.000Z")
    False
    >>> valid(None, "2026-06-01T00:00:00.000Z", "2026-06-01T00:00:00.000Z")
    False
    """
    return (valid_from is None or valid_from <= when) and (valid_until is None or when < valid_until)


@dataclass(frozen=True)
class LoopRecord:
    """A feedback loop as the loop index keeps it (``memory.loop_index``): a nontrivial
    strongly connected component of the causal and temporal edges, named by its smallest
    member id, with its κ."""

    id: str
    nodes: tuple[str, ...]  # sorted
    kappa: int
    approximate: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": list(self.nodes), "kappa": self.kappa, "approximate": self.approximate}


#: the routes the κ router takes, and the outcomes an agent reports (``learn_from_outcome``)
ROUTES = ("fast", "deliberate")
OUTCOMES = ("success", "partial", "failure", "timeout")


@dataclass(frozen=True)
class RetrievalRecord:
    """A retrieval as the store logs it, so that an outcome reported later can name it: what
    was returned and what the router decided. Its id derives from those (``retrieval_id_for``):
    the same retrieval made again is the same record (``count`` times, last ``at``)."""

    id: str
    at: str
    query: str
    routing: str
    max_kappa: int
    max_iterations: int  # the largest deliberation budget among its loops (0: routed fast)
    node_ids: tuple[str, ...]  # the results, then the loop members the answer named
    count: int = 1
    results: int | None = None  # how many of node_ids were the results (None: all; logged before it was kept)

    @property
    def result_ids(self) -> tuple[str, ...]:
        """The nodes the answer gave as its results."""
        return self.node_ids if self.results is None else self.node_ids[: self.results]


def retrieval_id_for(
    query: str, routing: str, max_kappa: int, max_iterations: int, node_ids: Sequence[str], results: int | None = None
) -> str:
    """The id of a retrieval: derived from what it returned and decided (128 bits), so the
    same call on the same memory answers with the same bytes; ``results``: how many of
    ``node_ids`` were its results, when not all (the others: loop members it named).

    >>> retrieval_id_for("revenue", "fast", 0, 0, ["a", "b"])
    'retrieval-f524d5d66e39dc652121a90f691deac8'
    >>> retrieval_id_for("revenue", "fast", 0, 0, ["a", "b"], 1)
    'retrieval-aafeb93943795dc38db642305f934918'
    """
    named = [query, routing, max_kappa, max_iterations, list(node_ids)]
    if results is not None and results != len(node_ids):
        named.append(results)
    parts = json.dumps(named, ensure_ascii=False)
    return f"retrieval-{_digest(parts)[:ID_HEX]}"


@dataclass(frozen=True)
class OutcomeRecord:
    """One reported outcome: what the router decided (``decision``), the route the agent
    took (``routing``), whether it deliberated, how many iterations it spent, and the κ and
    budget of what it used."""

    seq: int  # 0 until stored
    at: str
    retrieval_id: str | None
    outcome: str
    decision: str
    routing: str
    deliberated: bool
    iterations: int | None
    max_kappa: int
    max_iterations: int
    node_count: int


# ---------------------------------------------------------------- validation
def kind_of(value: Any) -> str:
    """What a JSON value is, in words, for a message.

    >>> kind_of([1]), kind_of(None), kind_of(2.5)
    ('a list', 'null', 'a number')
    """
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


def check_id(value: Any, what: str = "id") -> str:
    """A node or edge id: a non-empty string of at most MAX_ID characters, valid Unicode."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a non-empty string, got {kind_of(value)}")
    if not value.strip():
        got = "an empty string" if not value else "only spaces"
        raise InvalidInput(f"{what} must be a non-empty string, got {got}")
    if len(value) > MAX_ID:
        raise InvalidInput(f"{what} is longer than {MAX_ID} characters")
    if _SURROGATE.search(value):
        raise InvalidInput(f"{what} is not valid Unicode (an unpaired surrogate)")
    if _CONTROL.search(value):
        raise InvalidInput(f"{what} must not contain control characters")
    return value


def check_text(value: Any, what: str, limit: int, *, empty_ok: bool = True) -> str:
    r"""A text field: a string of at most ``limit`` characters, valid Unicode, without NUL
    (which no store keeps in text).

    >>> check_text("s\ud800", "source", 10)
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: source is not valid Unicode (an unpaired surrogate)
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, got {kind_of(value)}")
    if not empty_ok and not value.strip():
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > limit:
        raise InvalidInput(f"{what} has {len(value):,} characters; the limit is {limit:,}")
    if _SURROGATE.search(value):
        raise InvalidInput(f"{what} is not valid Unicode (an unpaired surrogate)")
    if "\x00" in value:
        raise InvalidInput(f"{what} must not contain NUL characters (no store keeps them in text)")
    return value


def _number(value: Any, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput(f"{what} must be a number, got {kind_of(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InvalidInput(f"{what} must be between {low:g} and {high:g}, got a number too large") from None
    if not math.isfinite(number) or not low <= number <= high:
        raise InvalidInput(f"{what} must be between {low:g} and {high:g}, got {value!r:.30}")
    return number


def _metadata(value: Any, what: str = "metadata", limit: int = MAX_METADATA) -> dict[str, Any]:
    """A JSON object as kept: bounded in depth and in ``limit`` characters of JSON, valid
    Unicode; a plain, detached copy with sorted keys (InvalidInput naming ``what``)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object, got {kind_of(value)}")
    if _depth(value) > MAX_METADATA_DEPTH:
        raise InvalidInput(f"{what} is nested more than {MAX_METADATA_DEPTH} levels deep")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"{what} must hold only JSON values ({exc})") from None
    if len(text) > limit:
        raise InvalidInput(f"{what} is {len(text):,} characters as JSON; the limit is {limit:,}")
    if _SURROGATE.search(text):
        raise InvalidInput(f"{what} is not valid Unicode (an unpaired surrogate)")
    loaded: dict[str, Any] = json.loads(text)  # a plain, detached copy with sorted keys
    return loaded


def _depth(value: Any) -> int:
    """Nesting depth of lists and dicts, without recursion (so any depth is measured safely)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_METADATA_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def whole(value: Any) -> Any:
    """An integer-valued float as the integer it is (JSON Schema counts ``2.0`` as an
    integer, and some clients send every number as a float); anything else unchanged.

    >>> whole(2.0), whole(2.5), whole(3), whole("3")
    (2, 2.5, 3, '3')
    """
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def check_count(value: Any, what: str) -> int:
    """A non-negative whole number below 2^53 (what SQLite and JSON carry exactly)."""
    value = whole(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        raise InvalidInput(f"{what} must be a whole number from 0 to 2^53")
    return value


def _choice(value: Any, what: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InvalidInput(f"{what} must be one of {', '.join(choices)}, got {value!r:.40}")
    return str(value)


def check_timestamp(value: Any, what: str, default: str) -> str:
    """A record timestamp given by a caller (or ``default`` for None), in the one form kept
    (milliseconds), so that timestamps compare as text; a date that does not exist is refused.

    >>> check_timestamp("2026-11-30T10:00:00Z", "created_at", "")
    '2026-11-30T10:00:00.000Z'
    """
    if value is None:
        return default
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z", value):
        raise InvalidInput(f"{what} must be an ISO 8601 UTC timestamp like 2026-11-30T10:00:00.000Z")
    return moment(value, what)


def moment(value: Any, what: str) -> str:
    """A point in time given by a caller (``valid_from``, ``valid_until``, ``as_of``): an ISO
    8601 UTC timestamp or a date, in the one form timestamps are kept in (milliseconds), so
    that they compare as text.

    >>> moment("2020-01-01", "as_of"), moment("2026-11-30T10:00:00Z", "as_of")
    ('2020-01-01T00:00:00.000Z', '2026-11-30T10:00:00.000Z')
    >>> moment("2026-11-30T10:00:00.123456Z", "as_of")
    '2026-11-30T10:00:00.123Z'

    A year or a month stands for its first day (a fact "from 1968" holds from its start), and
    a time with an offset is that moment in UTC:

    >>> moment("1968", "valid_from"), moment("2020-06", "valid_from")
    ('1968-01-01T00:00:00.000Z', '2020-06-01T00:00:00.000Z')
    >>> moment("2020-01-01T00:00:00+02:00", "valid_from")
    '2019-12-31T22:00:00.000Z'
    """
    given = value
    if isinstance(value, str) and re.fullmatch(r"\d{4}", value):
        value += "-01"
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d", value):
        value += "-01"
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
        value += "T00:00:00Z"
    form = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)"
    if not isinstance(value, str) or not re.fullmatch(form, value):
        raise InvalidInput(
            f"{what} must be an ISO 8601 timestamp like 2026-11-30T10:00:00.000Z (or with an offset, +02:00), "
            "a date, a month (2020-06) or a year"
        )
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidInput(f"{what} is not a date that exists: {given!r:.40}") from None
    return stamp_of(parsed)


#: hex digits of a derived id: 128 bits, so two facts meet on one id with odds ~n²/2¹²⁹
#: (a billion nodes: ~10⁻²¹). Before, ids had LEGACY_HEX digits (40 bits: a collision
#: somewhere was ~37 % likely at a million nodes); such ids stay valid, see legacy_ids_for.
ID_HEX = 32
LEGACY_HEX = 10


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def node_id_for(content: str) -> str:
    """The id a node gets when none is given: derived from its content (storing the same
    content again finds that node).

    >>> node_id_for("Revenue follows market share")
    'node-43c5179f9b943c1a605d1e3176d65a7e'
    """
    return f"node-{_digest(content)[:ID_HEX]}"


def edge_id_for(source_id: str, target_id: str, edge_type: str) -> str:
    """The id an edge gets when none is given: one per (source, target, type)."""
    return f"edge-{_digest(source_id, target_id, edge_type)[:ID_HEX]}"


def legacy_id_of(derived: str) -> str:
    """The id a store made before ids had 128 bits for what now derives ``derived`` (its
    first LEGACY_HEX digits): such a node or edge is the same one if its content (its
    endpoints and type) match.

    >>> legacy_id_of(node_id_for("Revenue follows market share"))
    'node-43c5179f9b'
    """
    kind, _, digits = derived.partition("-")
    return f"{kind}-{digits[:LEGACY_HEX]}"


def preview(text: str, limit: int = 60) -> str:
    """A short form of a text for messages: one line, at most ``limit`` characters.

    >>> preview("Customer 28300 prefers email contact")
    "'Customer 28300 prefers email contact'"
    >>> preview("a" * 100, 10)
    "'aaaaaaaaa…'"
    """
    line = " ".join(text.split())
    return repr(line if len(line) <= limit else line[: limit - 1] + "…")


def new_node(args: Mapping[str, Any], *, now: str, existing: MemoryNode | None = None) -> MemoryNode:
    """A validated node from caller arguments (``content`` required; ``id``, ``node_type``,
    ``confidence``, ``metadata``, ``source`` optional), a version recorded ``now`` (a dump
    gives ``recorded_at`` and ``recorded_until``). Over ``existing`` it keeps the creation
    time and the access statistics, and takes the other fields given."""
    if args.get("content") is None:
        raise InvalidInput("content is required: the knowledge itself, a non-empty string")
    content = check_text(args.get("content"), "content", MAX_CONTENT, empty_ok=False)
    node_id = check_id(args["id"]) if args.get("id") is not None else node_id_for(content)
    base = existing or MemoryNode(node_id, content, created_at=now, updated_at=now)
    valid_from, valid_until = _validity(args, base.valid_from, base.valid_until)
    recorded_at, recorded_until = _recording(args, now)
    return MemoryNode(
        id=node_id,
        content=content,
        node_type=_choice(args.get("node_type", base.node_type), "node_type", NODE_TYPES),
        confidence=_number(args.get("confidence", base.confidence), "confidence", 0.0, 1.0),
        metadata=_metadata(args.get("metadata", base.metadata)),
        source=check_text(args.get("source", base.source), "source", MAX_SOURCE),
        access_count=base.access_count,
        created_at=check_timestamp(args.get("created_at"), "created_at", base.created_at),
        updated_at=check_timestamp(args.get("updated_at"), "updated_at", now),
        last_accessed_at=base.last_accessed_at,
        valid_from=valid_from,
        valid_until=valid_until,
        recorded_at=recorded_at,
        recorded_until=recorded_until,
    )


def with_statistics(node: MemoryNode, count: Any, last: Any, where: str) -> MemoryNode:
    """``node`` with the access statistics a document or a dump gives (checked; ``where``
    names the item in errors)."""
    return replace(
        node,
        access_count=check_count(count, f"{where}: access_count"),
        last_accessed_at=None if last is None else check_timestamp(last, f"{where}: last_accessed_at", ""),
    )


def with_activation(edge: MemoryEdge, last: Any, where: str) -> MemoryEdge:
    """``edge`` with the last activation time a document or a dump gives (checked)."""
    if last is None:
        return edge
    return replace(edge, last_activated_at=check_timestamp(last, f"{where}: last_activated_at", ""))


def new_edge(args: Mapping[str, Any], *, now: str, existing: MemoryEdge | None = None) -> MemoryEdge:
    """A validated edge from caller arguments (``source_id``, ``target_id`` required; ``id``,
    ``edge_type``, ``weight``, ``metadata``, ``source`` optional), a version recorded ``now``."""
    source = check_id(args.get("source_id"), "source_id")
    target = check_id(args.get("target_id"), "target_id")
    base_type = existing.edge_type if existing is not None else DEFAULT_EDGE_TYPE
    edge_type = _choice(args.get("edge_type", base_type), "edge_type", EDGE_TYPES)
    edge_id = check_id(args["id"]) if args.get("id") is not None else edge_id_for(source, target, edge_type)
    valid_from, valid_until = _validity(
        args, existing.valid_from if existing else None, existing.valid_until if existing else None
    )
    recorded_at, recorded_until = _recording(args, now)
    return MemoryEdge(
        id=edge_id,
        source_id=source,
        target_id=target,
        edge_type=edge_type,
        weight=_number(args.get("weight", existing.weight if existing else DEFAULT_WEIGHT), "weight", 0.0, MAX_WEIGHT),
        metadata=_metadata(args.get("metadata", existing.metadata if existing else None)),
        created_at=check_timestamp(args.get("created_at"), "created_at", existing.created_at if existing else now),
        last_activated_at=existing.last_activated_at if existing else None,
        valid_from=valid_from,
        valid_until=valid_until,
        source=check_text(args.get("source", existing.source if existing else ""), "source", MAX_SOURCE),
        recorded_at=recorded_at,
        recorded_until=recorded_until,
    )


def _recording(args: Mapping[str, Any], now: str) -> tuple[str, str | None]:
    """When a version was recorded: from ``now``, or as a dump gives it (checked, in order)."""
    start = check_timestamp(args.get("recorded_at"), "recorded_at", now)
    end = args.get("recorded_until")
    end = None if end is None else check_timestamp(end, "recorded_until", "")
    if end is not None and end < start:
        raise InvalidInput(f"recorded_until ({end}) must not come before recorded_at ({start})")
    return start, end


def _validity(
    args: Mapping[str, Any], valid_from: str | None, valid_until: str | None
) -> tuple[str | None, str | None]:
    """``valid_from`` / ``valid_until`` from caller arguments (a timestamp or null; not given:
    as they were), checked to be in order.

    >>> _validity({"valid_from": "2026-02-01", "valid_until": "2026-01-01"}, None, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: valid_until (2026-01-01T00:00:00.000Z) must come after valid_from ...
    """
    start = args.get("valid_from", valid_from)  # (given as null: the bound is taken away)
    end = args.get("valid_until", valid_until)
    start = None if start is None else moment(start, "valid_from")
    end = None if end is None else moment(end, "valid_until")
    if start is not None and end is not None and end <= start:
        raise InvalidInput(f"valid_until ({end}) must come after valid_from ({start})")
    return start, end
