"""What the live page needs to show the memory at a moment, and how it changed: the server side
of its time control.

A **moment** is a point on each of the memory's two times: ``as_of`` (valid time: which facts
held then) and ``known_at`` (recorded time: as the memory knew them then); either may be left
out — ``as_of`` then follows ``known_at``, and both default to now (see ``store.past``).

* **Which items hold.** Every card and edge of a served document (``/api/graph``, ``/api/view``)
  says in ``data.memory.holds`` whether it holds at the view's moment: a node valid then, an
  edge valid then with both its ends (:func:`mark_holding`). An ended item (``holds: false``)
  is still served — its ``valid_until`` says since when it ended — and the page leaves it out
  of κ, the halos, the loops and the HUD, as ``analyze_topology`` does. ``view.ended`` counts
  them and ``view.time`` says the moment.
* **When the memory changed** (:func:`moments`): the recorded times at which versions began or
  ended, with how many, the latest ``limit`` before ``before``; the distinct validity bounds.
* **What changed between two moments** (:func:`diff`): cards and edges added, ended and changed,
  and the loops (nontrivial SCCs of the causal and temporal edges that hold) that closed or
  broke, each with the edges that did it — who or what wrote them (``source``) and when they
  were recorded.
* **When a loop closed** (:func:`loop_closure`): the recorded time of the edge version that last
  made the members one strongly connected region, and that edge.

>>> doc = {"planes": [{"nodes": [{"id": "a", "data": {"memory": {"valid_from": None, "valid_until": "2026-01-01"}}},
...                              {"id": "b", "data": {"memory": {"valid_from": None, "valid_until": None}}}],
...                    "edges": [{"id": "e", "a": "a", "b": "b", "data": {"memory": {"valid_from": None,
...                               "valid_until": None}}}]}]}
>>> mark_holding(doc, "2026-06-01")
2
>>> plane = doc["planes"][0]
>>> [c["data"]["memory"]["holds"] for c in plane["nodes"]], plane["edges"][0]["data"]["memory"]["holds"]
([False, True], False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bendscope.kappa import DIRECTED_KINDS
from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph

from ..core.errors import InvalidInput
from ..core.records import MemoryEdge, MemoryNode, check_id, moment, same_fact, valid
from ..core.service import Memory

#: moments ``/api/history`` lists at most at once (``limit``)
MAX_MOMENTS = 20_000
DEFAULT_MOMENTS = 2_000
#: items of each kind a diff lists at most (their counts are always given)
DIFF_LISTED = 1_000
#: nodes a diff or a loop's closure reads at most (the page's views are smaller)
MAX_REGION = 20_000


@dataclass(frozen=True)
class Moment:
    """A point on both times: ``as_of`` (valid time) and ``known_at`` (recorded time); None: now
    (``as_of``: ``known_at``, if given)."""

    as_of: str | None = None
    known_at: str | None = None

    @property
    def live(self) -> bool:
        """The present: no time given."""
        return self.as_of is None and self.known_at is None

    def valid_time(self, now: str) -> str:
        return self.as_of or self.known_at or now

    def to_dict(self) -> dict[str, str | None]:
        return {"as_of": self.as_of, "known_at": self.known_at}


def moment_of(value: Any, where: str = "moment") -> Moment:
    """A moment a request gives: an object with ``as_of`` and/or ``known_at`` (ISO 8601 times or
    dates; null or left out: now).

    >>> moment_of({"known_at": "2026-01-05"})
    Moment(as_of=None, known_at='2026-01-05T00:00:00.000Z')
    >>> moment_of({"at": "now"})
    Traceback (most recent call last):
    ...
    bendscope.memory.core.errors.InvalidInput: moment: takes as_of and known_at, not 'at'
    """
    if value is None:
        return Moment()
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{where}: must be an object with as_of and/or known_at")
    unknown = [k for k in value if k not in ("as_of", "known_at")]
    if unknown:
        raise InvalidInput(f"{where}: takes as_of and known_at, not {unknown[0]!r}")
    times = {k: None if value.get(k) is None else moment(value[k], f"{where}.{k}") for k in ("as_of", "known_at")}
    return Moment(times["as_of"], times["known_at"])


def _memory_fields(item: Mapping[str, Any]) -> Mapping[str, Any]:
    data = item.get("data")  # (a dict is told at once: the abstract class's check is slower)
    fields = data.get("memory") if type(data) is dict or isinstance(data, Mapping) else None
    return fields if type(fields) is dict or isinstance(fields, Mapping) else {}


def mark_holding(document: Mapping[str, Any], when: str) -> int:
    """Mark every card and edge of a served document with ``holds`` (in ``data.memory``): a card
    valid at ``when``, an edge valid then between two cards that hold. Returns how many do not
    hold. O(cards + edges)."""
    ended = 0
    for plane in document.get("planes", []):
        holding = set()
        for card in plane.get("nodes", []):
            fields = _memory_fields(card)
            holds = valid(fields.get("valid_from"), fields.get("valid_until"), when)
            if isinstance(card.get("data"), dict) and isinstance(card["data"].get("memory"), dict):
                card["data"]["memory"]["holds"] = holds
            if holds:
                holding.add(card["id"])
            ended += not holds
        for edge in plane.get("edges", []):
            fields = _memory_fields(edge)
            holds = valid(fields.get("valid_from"), fields.get("valid_until"), when)
            holds = holds and edge.get("a") in holding and edge.get("b") in holding
            if isinstance(edge.get("data"), dict) and isinstance(edge["data"].get("memory"), dict):
                edge["data"]["memory"]["holds"] = holds
            ended += not holds
    return ended


#: the marked records of a document served before (:func:`marked_holding`): id → (the record
#: it was marked from, whether it held, the marked record), cards and edges apart
Marked = tuple[dict[str, tuple[Any, bool, dict[str, Any]]], dict[str, tuple[Any, bool, dict[str, Any]]]]


def marked_holding(document: dict[str, Any], when: str, kept: Marked) -> int:
    """:func:`mark_holding` for a document whose records are shared with documents served
    before (``to_document``'s ``reuse``): no record is changed in place; each one is replaced
    by a marked copy — ``kept``'s, when made of the same record with the same mark. ``kept``
    then holds this document's. Returns how many do not hold. O(cards + edges).

    >>> kept = ({}, {})
    >>> card = {"id": "a", "text": "A", "data": {"memory": {"valid_until": "2026-03-01"}}}
    >>> doc = {"planes": [{"nodes": [card], "edges": []}]}
    >>> marked_holding(doc, "2026-06-01", kept), doc["planes"][0]["nodes"][0]["data"], card["data"]
    (1, {'memory': {'valid_until': '2026-03-01', 'holds': False}}, {'memory': {'valid_until': '2026-03-01'}})
    >>> again = {"planes": [{"nodes": [card], "edges": []}]}
    >>> _ = marked_holding(again, "2026-06-01", kept)
    >>> again["planes"][0]["nodes"][0] is doc["planes"][0]["nodes"][0]
    True
    """
    ended = 0
    made: Marked = ({}, {})
    for plane in document.get("planes", []):
        holding = set()
        nodes = []
        for card in plane.get("nodes", []):
            marked, holds = _marked(card, when, None, kept[0], made[0])
            nodes.append(marked)
            if holds:
                holding.add(card["id"])
            ended += not holds
        edges = []
        for edge in plane.get("edges", []):
            marked, holds = _marked(edge, when, holding, kept[1], made[1])
            edges.append(marked)
            ended += not holds
        plane["nodes"], plane["edges"] = nodes, edges
    for before, now in zip(kept, made, strict=True):
        before.clear()
        before.update(now)
    return ended


def _marked(
    record: dict[str, Any],
    when: str,
    holding: set[str] | None,
    kept: dict[str, tuple[Any, bool, dict[str, Any]]],
    made: dict[str, tuple[Any, bool, dict[str, Any]]],
) -> tuple[dict[str, Any], bool]:
    """(``record`` marked: a copy, ``kept``'s if made of it with the same mark; whether it
    holds at ``when`` — an edge only between cards ``holding``), noted in ``made``."""
    fields = _memory_fields(record)
    holds = valid(fields.get("valid_from"), fields.get("valid_until"), when)
    if holding is not None:
        holds = holds and record.get("a") in holding and record.get("b") in holding
    before = kept.get(record["id"])
    if before is not None and before[0] is record and before[1] == holds:
        made[record["id"]] = before
        return before[2], holds
    data = record.get("data")
    marked = record
    if isinstance(data, dict) and isinstance(data.get("memory"), dict):
        marked = {**record, "data": {**data, "memory": {**data["memory"], "holds": holds}}}
    made[record["id"]] = (record, holds, marked)
    return marked, holds


def moments(memory: Memory, limit: int = DEFAULT_MOMENTS, before: str | None = None) -> dict[str, Any]:
    """``GET /api/history``: when the memory changed — the recorded times at which versions of
    nodes and edges began or ended (``changes``: how many), oldest first, the latest ``limit``
    before ``before`` (``more``: earlier ones exist) — and the validity bounds of what it holds
    now (``valid``), for a control on either time. O(versions)."""
    if not 1 <= limit <= MAX_MOMENTS:
        raise InvalidInput(f"limit must be from 1 to {MAX_MOMENTS:,}")
    with memory.store.reading():
        now = memory.clock()
        found = memory.store.recorded_moments()
        nodes = memory.store.get_nodes(memory.store.node_ids())
        edges = memory.store.all_edges()
    if before is not None:
        found = [(t, n) for t, n in found if t < before]
    records: list[MemoryNode | MemoryEdge] = [*nodes.values(), *edges]
    bounds = sorted({t for r in records for t in (r.valid_from, r.valid_until) if t is not None})
    return {
        "now": now,
        "moments": [{"at": t, "changes": n} for t, n in found[-limit:]],
        "more": len(found) > limit,
        "total": len(found),
        "valid": bounds,
    }


def _state(memory: Memory, at: Moment, node_ids: Sequence[str] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The nodes and edges that hold at a moment (of ``node_ids``, or all), by id."""
    with memory._known(at.known_at) as store, store.reading():
        when = at.valid_time(memory.clock())
        if node_ids is None:
            nodes = store.get_nodes(store.node_ids())
            if len(nodes) > MAX_REGION:
                raise InvalidInput(f"the memory holds {len(nodes):,} nodes: name at most {MAX_REGION:,} (node_ids)")
        else:
            nodes = store.get_nodes(node_ids)
        held = {i: n for i, n in nodes.items() if n.valid_at(when)}
        edges = store.list_edges_between(held)
    holding = {e.id: e for e in edges if e.valid_at(when)}
    return held, holding


def _loops(nodes: Mapping[str, MemoryNode], edges: Mapping[str, MemoryEdge], exact_limit: int) -> list[dict[str, Any]]:
    """The loops (nontrivial SCCs of causal and temporal edges) of a state, with their κ."""
    arcs = [
        {"source": e.source_id, "target": e.target_id}
        for e in edges.values()
        if e.edge_type in DIRECTED_KINDS and e.source_id != e.target_id
    ]
    topology = analyze_digraph(build_digraph(sorted(nodes), arcs), exact_limit=exact_limit)
    return [{"nodes": s["nodes"], "kappa": s["kappa"], "approximate": s["approximate"]} for s in topology["sccs"]]


def _edge_said(edge: MemoryEdge) -> dict[str, Any]:
    """An edge as a diff names it: its ends and type, who or what wrote it, when recorded."""
    return {
        "id": edge.id,
        "source_id": edge.source_id,
        "target_id": edge.target_id,
        "edge_type": edge.edge_type,
        "source": edge.source,
        "recorded_at": edge.recorded_at,
    }


def _listed(ids: Iterable[str]) -> dict[str, Any]:
    items = sorted(ids)
    return {"count": len(items), "ids": items[:DIFF_LISTED]}


def diff(memory: Memory, since: Moment, until: Moment, node_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """``POST /api/diff``: what changed from moment ``since`` to moment ``until`` (of ``node_ids``,
    or the whole memory up to MAX_REGION nodes): cards and edges ``added`` (hold at ``until``
    only), ``ended`` (at ``since`` only) and ``changed`` (both, another version of the fact);
    and the loops that ``closed`` (a loop at ``until`` whose members formed none at ``since``,
    with ``closed_by``: its edges that did not hold then) or ``broke`` (the other way round,
    ``broken_by``: its edges that no longer hold). O(the region's nodes and edges, twice)."""
    ids = None if node_ids is None else list(dict.fromkeys(check_id(i, "node_ids[]") for i in node_ids))
    before_nodes, before_edges = _state(memory, since, ids)
    after_nodes, after_edges = _state(memory, until, ids)
    before_loops = _loops(before_nodes, before_edges, memory.exact_limit)
    after_loops = _loops(after_nodes, after_edges, memory.exact_limit)

    def changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
        return [i for i in old.keys() & new.keys() if not same_fact(old[i], new[i])]

    def inside(loop: Mapping[str, Any], edges: Mapping[str, MemoryEdge]) -> list[MemoryEdge]:
        members = set(loop["nodes"])
        return [e for e in edges.values() if e.edge_type in DIRECTED_KINDS and {e.source_id, e.target_id} <= members]

    before_sets = {tuple(loop["nodes"]) for loop in before_loops}
    after_sets = {tuple(loop["nodes"]) for loop in after_loops}
    closed = [
        {**loop, "closed_by": [_edge_said(e) for e in inside(loop, after_edges) if e.id not in before_edges]}
        for loop in after_loops
        if tuple(loop["nodes"]) not in before_sets
    ]
    broke = [
        {**loop, "broken_by": [_edge_said(e) for e in inside(loop, before_edges) if e.id not in after_edges]}
        for loop in before_loops
        if tuple(loop["nodes"]) not in after_sets
    ]
    return {
        "since": since.to_dict(),
        "until": until.to_dict(),
        "nodes": {
            "added": _listed(after_nodes.keys() - before_nodes.keys()),
            "ended": _listed(before_nodes.keys() - after_nodes.keys()),
            "changed": _listed(changed(before_nodes, after_nodes)),
        },
        "edges": {
            "added": _listed(after_edges.keys() - before_edges.keys()),
            "ended": _listed(before_edges.keys() - after_edges.keys()),
            "changed": _listed(changed(before_edges, after_edges)),
        },
        "loops": {"closed": closed, "broke": broke, "before": len(before_loops), "after": len(after_loops)},
    }


def _at(versions: Sequence[Any], when: str) -> Any:
    """The version of a node or an edge the memory held at ``when``, or None."""
    for version in versions:
        if version.recorded_at <= when and (version.recorded_until is None or when < version.recorded_until):
            return version
    return None


def _connected(members: Sequence[str], arcs: Iterable[tuple[str, str]]) -> bool:
    """Whether the arcs make the members one strongly connected region (a search forward and
    one backward from the first member reach them all)."""
    wanted = set(members)
    pairs = list(arcs)
    for forward in (True, False):
        step: dict[str, list[str]] = {}
        for a, b in pairs:
            near, far = (a, b) if forward else (b, a)
            step.setdefault(near, []).append(far)
        seen, front = {members[0]}, [members[0]]
        while front:
            ahead = []
            for node in front:
                for far in step.get(node, ()):
                    if far not in seen:
                        seen.add(far)
                        ahead.append(far)
            front = ahead
        if seen != wanted:
            return False
    return True


def loop_closure(memory: Memory, node_ids: Sequence[str], at: Moment | None = None) -> dict[str, Any]:
    """``POST /api/loop``: when the loop of ``node_ids`` (a loop at moment ``at``: now by
    default) last closed in recorded time — the memory's belief at each recorded time about
    that time — and the edge versions recorded then that closed it (``closed_by``: who or what
    wrote them, ``source``). ``closed_at`` null: it never was open since its members were first
    recorded (then ``closed_by`` holds the edges recorded first). O(the versions of the members
    and of the edges among them · the times they changed)."""
    members = sorted(dict.fromkeys(check_id(i, "node_ids[]") for i in node_ids))
    if len(members) < 2 or len(members) > MAX_REGION:
        raise InvalidInput(f"node_ids: the members of one loop (2 to {MAX_REGION:,} nodes)")
    at = at or Moment()
    with memory.store.reading():
        now = memory.clock()
        node_versions, _ = memory.store.history(members, [])
        current = memory.store.list_edges_between(members)
        edge_versions: dict[str, list[MemoryEdge]] = {}
        for edge in [*memory.store.edge_versions_between(members), *current]:
            edge_versions.setdefault(edge.id, []).append(edge)
    last = at.known_at or now

    def arcs_at(when: str, valid_at: str) -> dict[str, MemoryEdge]:
        nodes = {i: _at(vs, when) for i, vs in node_versions.items()}
        holding = {i for i, n in nodes.items() if n is not None and n.valid_at(valid_at)}
        found = {}
        for edge_id, versions in edge_versions.items():
            edge = _at(versions, when)
            if (
                edge is not None
                and edge.edge_type in DIRECTED_KINDS
                and edge.valid_at(valid_at)
                and edge.source_id != edge.target_id
                and {edge.source_id, edge.target_id} <= holding
            ):
                found[edge_id] = edge
        return found

    def closed(when: str, valid_at: str) -> bool:
        return _connected(members, [(e.source_id, e.target_id) for e in arcs_at(when, valid_at).values()])

    if not closed(last, at.valid_time(now)):
        raise InvalidInput("node_ids do not form one loop at that moment (a strongly connected region of causal "
                           "and temporal edges that hold)")  # fmt: skip
    every: list[MemoryNode | MemoryEdge] = [v for vs in node_versions.values() for v in vs]
    every += [v for vs in edge_versions.values() for v in vs]
    times = sorted({t for v in every for t in (v.recorded_at, v.recorded_until) if t is not None and t <= last})
    opened = None
    for index in range(len(times) - 1, -1, -1):
        if not closed(times[index], times[index]):
            opened = index
            break
    if opened is None:  # (a loop since its members were first recorded)
        closing = times[0] if times else last
    else:  # (the next recorded change; none: a validity bound passed since, not a write)
        closing = times[opened + 1] if opened + 1 < len(times) else last
    arcs = arcs_at(closing, closing)
    return {
        "nodes": members,
        "at": at.to_dict(),
        "closed_at": closing if opened is not None else None,
        "first_recorded": times[0] if times else None,
        "closed_by": [_edge_said(e) for e in sorted(arcs.values(), key=lambda e: e.id) if e.recorded_at == closing],
    }


#: the time control's endpoints and the method each answers
TIME_PATHS = {"/api/history": "GET", "/api/diff": "POST", "/api/loop": "POST"}


def _body(body: bytes, where: str) -> dict[str, Any]:
    from bendscope.shared.jsonsafe import Refused, loads

    try:
        value = loads(body.decode("utf-8"), max_depth=8, max_digits=30)
    except (UnicodeDecodeError, Refused) as exc:
        raise InvalidInput(f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}: the body must be a JSON object")
    return value


def _ids(value: Any, where: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_REGION:
        raise InvalidInput(f"{where}: node_ids must be a list of at most {MAX_REGION:,} ids")
    return [check_id(i, f"node_ids[{k}]") for k, i in enumerate(value)]


def time_request(memory: Memory, path: str, params: Mapping[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
    """One request to the time control's endpoints (``TIME_PATHS``): (status, JSON); bad input is
    InvalidInput (NotFound: an id the memory never held).

    * ``GET /api/history[?limit=N&before=T]`` → :func:`moments`;
      ``GET /api/history?id=ID`` → every version of node or edge ``ID`` (``Memory.history``);
    * ``POST /api/diff {"since": MOMENT, "until": MOMENT[, "node_ids": [...]]}`` → :func:`diff`;
    * ``POST /api/loop {"node_ids": [...][, "at": MOMENT]}`` → :func:`loop_closure`;

    where a MOMENT is ``{"as_of": T, "known_at": T}`` (either or both; ``{}``: now)."""
    if path == "/api/history":
        if "id" in params:
            return 200, memory.history({"id": params["id"]})
        unknown = [k for k in params if k not in ("limit", "before")]
        if unknown:
            raise InvalidInput(f"/api/history takes id, or limit and before; not {unknown[0]!r}")
        try:
            limit = int(params.get("limit", DEFAULT_MOMENTS))
        except ValueError:
            raise InvalidInput(f"limit must be a whole number from 1 to {MAX_MOMENTS:,}") from None
        before = None if params.get("before") is None else moment(params["before"], "before")
        return 200, moments(memory, limit, before)
    value = _body(body, path)
    if path == "/api/diff":
        unknown = [k for k in value if k not in ("since", "until", "node_ids")]
        if unknown or "since" not in value:
            raise InvalidInput('/api/diff takes {"since": {as_of, known_at}, "until": {…}, "node_ids": [...]}')
        since, until = moment_of(value["since"], "since"), moment_of(value.get("until"), "until")
        return 200, diff(memory, since, until, _ids(value.get("node_ids"), path))
    unknown = [k for k in value if k not in ("node_ids", "at")]
    ids = _ids(value.get("node_ids"), path)
    if unknown or ids is None:
        raise InvalidInput('/api/loop takes {"node_ids": [the loop\'s members], "at": {as_of, known_at}}')
    return 200, loop_closure(memory, ids, moment_of(value.get("at"), "at"))
