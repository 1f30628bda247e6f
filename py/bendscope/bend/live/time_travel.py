"""The live page's time control, DOM-free: what the page shows of the memory's time and what
it says about it (the page's ``app.timecontrol`` only moves bytes and shows words).

* **What holds.** A document the memory serves marks every card and edge with
  ``data.memory.holds``; :func:`holding_only` leaves out those that do not hold (ended, or an
  edge with an ended card), so κ, the halos, the loops and the HUD count what holds, as
  ``analyze_topology`` does.
* **A moment shown** (:class:`Shown`): now, or a time on one of the memory's two axes —
  ``recorded`` (what the memory knew then: ``known_at``) or ``valid`` (what held then, as
  known now: ``as_of``) — with the query the page fetches it by and the words it says.
* **The slider's scale** (:class:`Scale`): the times the memory changed on that axis (the
  recorded times of its versions; the validity bounds of its facts), oldest first, and now
  last.
* **A diff's and a loop's words** (:func:`diff_rows`, :func:`closure_words`).
* **Editing while away** (:func:`edit_refusal`): only moving and pinning cards (the page's
  own layout) are allowed.

>>> scale = Scale.of({"now": "2026-01-03T00:00:00.000Z", "moments": [
...     {"at": "2026-01-01T00:00:00.000Z", "changes": 2}, {"at": "2026-01-02T00:00:00.000Z", "changes": 1}],
...     "valid": []}, "recorded")
>>> scale.last, scale.shown(1).query()
(2, {'known_at': '2026-01-02T00:00:00.000Z'})
>>> scale.shown(2).live
True
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..layout.arrange import DIRECTIONS

#: the two axes a moment is taken on
AXES = ("recorded", "valid")
#: edits allowed while the page shows another moment: they change only the page's layout
LAYOUT_EDITS = frozenset({"Move node", "Move nodes", "Pin", "Unpin", *DIRECTIONS.values()})
#: items of each kind a diff row names at most (its count is always said)
NAMED = 8
#: tick marks the slider shows at most (its stops are all there)
MAX_MARKS = 400

_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$",
    re.IGNORECASE,
)


def _iso(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def read_time(text: str) -> str | None:
    """The time a person types, as the memory writes times (UTC, to the millisecond); None for
    ``now`` or nothing. A date is its midnight (UTC); a time without a zone is UTC. ValueError
    with a clear message otherwise.

    >>> read_time("2026-01-31"), read_time(" now ")
    ('2026-01-31T00:00:00.000Z', None)
    >>> read_time("2026-01-31 12:30:05.25+01:00")
    '2026-01-31T11:30:05.250Z'
    >>> read_time("31/01/2026")
    Traceback (most recent call last):
    ...
    ValueError: “31/01/2026” is not a date: write 2026-01-31, 2026-01-31T12:30 or 2026-01-31T12:30:05Z (UTC), or now
    """
    text = text.strip()
    if text.lower() in ("", "now"):
        return None
    found = _TIME.match(text)
    problem = f"“{text[:40]}” is not a date: write 2026-01-31, 2026-01-31T12:30 or 2026-01-31T12:30:05Z (UTC), or now"
    if found is None:
        raise ValueError(problem)
    year, month, day, hour, minute, second, fraction, zone = found.groups()
    offset = dt.timedelta(0)
    if zone and zone.upper() not in ("Z", "UTC"):
        digits = zone.replace(":", "")
        offset = (1 if digits[0] == "+" else -1) * dt.timedelta(hours=int(digits[1:3]), minutes=int(digits[3:5]))
    try:
        when = dt.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
            int((fraction or "0").ljust(6, "0")),
        )  # fmt: skip
    except ValueError:
        raise ValueError(problem) from None
    return _iso(when - offset)


def say_time(when: str | None) -> str:
    """A time as the page says it: ``2026-01-31 12:30:05 UTC`` (milliseconds when not 0).

    >>> say_time("2026-01-31T12:30:05.000Z"), say_time("2026-01-31T12:30:05.120Z"), say_time(None)
    ('2026-01-31 12:30:05 UTC', '2026-01-31 12:30:05.120 UTC', 'now')
    """
    if when is None:
        return "now"
    text = when.replace("T", " ").removesuffix("Z")
    return f"{text.removesuffix('.000')} UTC"


def _before(when: str) -> str:
    """The millisecond before ``when`` (a time the memory wrote)."""
    parsed = dt.datetime.strptime(when, "%Y-%m-%dT%H:%M:%S.%fZ")
    return _iso(parsed - dt.timedelta(milliseconds=1))


@dataclass(frozen=True)
class Shown:
    """The moment the page shows: ``at`` on ``axis`` (None: now)."""

    axis: str = "recorded"
    at: str | None = None

    def __post_init__(self) -> None:
        if self.axis not in AXES:
            raise ValueError(f"the axis is one of {', '.join(AXES)}, not {self.axis!r}")

    @property
    def live(self) -> bool:
        return self.at is None

    def query(self) -> dict[str, str]:
        """The moment as the memory's endpoints take it (``/api/graph``'s parameters,
        ``/api/view``'s and ``/api/diff``'s fields): ``{}`` for now."""
        if self.at is None:
            return {}
        return {"known_at" if self.axis == "recorded" else "as_of": self.at}

    def words(self) -> str:
        """What the page says it shows.

        >>> Shown("valid", "2026-01-01T00:00:00.000Z").words()
        'what held at 2026-01-01 00:00:00 UTC (as the memory knows it now)'
        """
        if self.at is None:
            return "now"
        if self.axis == "recorded":
            return f"the memory as it was at {say_time(self.at)} (what it knew then)"
        return f"what held at {say_time(self.at)} (as the memory knows it now)"

    def banner(self) -> str:
        return f"Showing {self.words()}. Editing is off until you go back to now."


@dataclass(frozen=True)
class Scale:
    """The slider's stops on one axis: the times the memory changed, oldest first; the stop
    after the last (``last``) is now. On the recorded axis a stop is the moment a change was
    recorded (the state just after it); on the valid axis, each validity bound and the
    millisecond before the first (what held before anything began or ended)."""

    axis: str
    stops: tuple[str, ...] = ()
    changes: tuple[int, ...] = ()
    now: str | None = None
    more: bool = False  # earlier changes exist than the scale shows

    @classmethod
    def of(cls, history: Mapping[str, Any], axis: str) -> Scale:
        """The scale of ``GET /api/history``'s answer on ``axis``."""
        if axis not in AXES:
            raise ValueError(f"the axis is one of {', '.join(AXES)}, not {axis!r}")
        now = history.get("now")
        if axis == "recorded":
            moments = [m for m in history.get("moments", []) if isinstance(m, Mapping) and isinstance(m.get("at"), str)]
            stops = tuple(m["at"] for m in moments)
            changes = tuple(int(m.get("changes", 1)) for m in moments)
            return cls(axis, stops, changes, now if isinstance(now, str) else None, bool(history.get("more")))
        bounds = sorted({t for t in history.get("valid", []) if isinstance(t, str)})
        if isinstance(now, str):
            bounds = [t for t in bounds if t <= now]  # (a bound still to come: the slider stops at now)
        valid = tuple([_before(bounds[0]), *bounds]) if bounds else ()
        return cls(axis, valid, tuple(1 for _ in valid), now if isinstance(now, str) else None)

    @property
    def last(self) -> int:
        """The slider's last position: now."""
        return len(self.stops)

    def shown(self, index: int) -> Shown:
        """The moment at slider position ``index`` (clamped)."""
        index = max(0, min(index, self.last))
        return Shown(self.axis, None if index == self.last else self.stops[index])

    def index_of(self, at: str | None) -> int:
        """The slider position showing ``at``: the last stop at or before it (0 if none; now:
        ``last``).

        >>> scale = Scale("recorded", ("2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"))
        >>> scale.index_of("2026-01-01T12:00:00.000Z"), scale.index_of(None)
        (0, 2)
        """
        if at is None:
            return self.last
        found = 0
        for index, stop in enumerate(self.stops):
            if stop <= at:
                found = index
        return found

    def label(self, index: int) -> str:
        """The slider's spoken value at ``index`` (its ``aria-valuetext``)."""
        index = max(0, min(index, self.last))
        if index == self.last:
            return "now"
        changes = self.changes[index] if index < len(self.changes) else 1
        what = "change" if self.axis == "recorded" else "validity bound"
        many = f", {changes} changes" if self.axis == "recorded" and changes > 1 else ""
        return f"{say_time(self.stops[index])} ({what} {index + 1} of {len(self.stops)}{many})"

    def marks(self) -> list[int]:
        """The positions marked on the slider (every stop, thinned evenly to MAX_MARKS)."""
        count = self.last + 1
        if count <= MAX_MARKS:
            return list(range(count))
        step = count / MAX_MARKS
        return sorted({min(count - 1, round(k * step)) for k in range(MAX_MARKS)} | {count - 1})


def holding_only(document: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy of a served document without its cards and edges that do not hold
    (``data.memory.holds`` false; an edge also goes with a card left out), and the ids left
    out. O(cards + edges).

    >>> doc = {"planes": [{"nodes": [{"id": "a", "data": {"memory": {"holds": True}}},
    ...                              {"id": "b", "data": {"memory": {"holds": False}}}],
    ...                    "edges": [{"id": "ab", "a": "a", "b": "b", "data": {"memory": {"holds": True}}}]}]}
    >>> kept, ended = holding_only(doc)
    >>> [n["id"] for n in kept["planes"][0]["nodes"]], kept["planes"][0]["edges"], ended
    (['a'], [], ['b', 'ab'])
    """
    ended: list[str] = []
    planes = []
    for plane in document.get("planes", []):
        if not isinstance(plane, Mapping):
            planes.append(plane)
            continue
        nodes, gone = [], set()
        for card in plane.get("nodes") or []:
            if holds(card):
                nodes.append(card)
            else:
                gone.add(card.get("id"))
                ended.append(str(card.get("id")))
        edges = []
        for edge in plane.get("edges") or []:
            if holds(edge) and not (isinstance(edge, Mapping) and (edge.get("a") in gone or edge.get("b") in gone)):
                edges.append(edge)
            else:
                ended.append(str(edge.get("id")) if isinstance(edge, Mapping) else "?")
        planes.append({**plane, "nodes": nodes, "edges": edges})
    return {**document, "planes": planes}, ended


def holds(item: Any) -> bool:
    """Whether a served card or edge holds: False only for one the memory marks so
    (``data.memory.holds`` false); anything else is read as usual."""
    if not isinstance(item, Mapping):
        return True
    data = item.get("data")
    fields = data.get("memory") if isinstance(data, Mapping) else None
    return not (isinstance(fields, Mapping) and fields.get("holds") is False)


def edit_refusal(shown: Shown, label: str) -> str | None:
    """Why an edit (an undo step's or a transaction's ``label``) is refused while the page shows
    ``shown``, or None: away from now only the layout may change (moving, pinning, arranging).

    >>> edit_refusal(Shown("recorded", "2026-01-01T00:00:00.000Z"), "Move node") is None
    True
    >>> edit_refusal(Shown("recorded", "2026-01-01T00:00:00.000Z"), "Edit text")
    'Editing is off while the page shows the memory at 2026-01-01 00:00:00 UTC: go back to now (Time → Now).'
    """
    if shown.live or label in LAYOUT_EDITS:
        return None
    return f"Editing is off while the page shows the memory at {say_time(shown.at)}: go back to now (Time → Now)."


@dataclass(frozen=True)
class Row:
    """One line of a diff as the page lists it: its words, and the cards it highlights."""

    kind: str  # "nodes", "edges", "closed", "broke", "none"
    text: str
    nodes: tuple[str, ...] = ()
    edges: tuple[str, ...] = ()
    #: a loop's members (the loop closed or broke), for "when did it close?"
    loop: tuple[str, ...] = field(default=())


def _name(node_id: str, texts: Mapping[str, str]) -> str:
    text = " ".join(texts.get(node_id, "").split())
    if not text:
        return node_id
    return text if len(text) <= 40 else text[:39] + "…"


def _names(ids: Sequence[str], texts: Mapping[str, str], count: int | None = None) -> str:
    shown = [f"“{_name(i, texts)}”" for i in ids[:NAMED]]
    more = (count if count is not None else len(ids)) - len(shown)
    return ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")


def _edge_words(edge: Mapping[str, Any], texts: Mapping[str, str]) -> str:
    source = edge.get("source") or "unknown"
    return (
        f"{_name(str(edge.get('source_id')), texts)} → {_name(str(edge.get('target_id')), texts)} "
        f"({edge.get('edge_type')}, written by {source}, recorded {say_time(edge.get('recorded_at'))})"
    )


def diff_rows(
    answer: Mapping[str, Any], texts: Mapping[str, str] | None = None, ends: Mapping[str, tuple[str, str]] | None = None
) -> list[Row]:
    """``POST /api/diff``'s answer as the page lists it: cards and edges added, ended and
    changed, then the loops that closed and broke with the edges that did it. ``texts``:
    card id → text, to name cards by what they say; ``ends``: edge id → its cards (the edges
    the page knows are named by their ends, and their rows highlight those cards).

    >>> answer = {"nodes": {"added": {"count": 0, "ids": []}, "ended": {"count": 0, "ids": []},
    ...                     "changed": {"count": 1, "ids": ["x"]}},
    ...           "edges": {"added": {"count": 0, "ids": []}, "ended": {"count": 1, "ids": ["y>x"]},
    ...                     "changed": {"count": 0, "ids": []}},
    ...           "loops": {"closed": [], "broke": [{"nodes": ["x", "y"], "kappa": 1, "broken_by": [
    ...               {"id": "y>x", "source_id": "y", "target_id": "x", "edge_type": "causal", "source": "agent",
    ...                "recorded_at": "2026-01-01T00:00:00.000Z"}]}], "before": 1, "after": 0}}
    >>> rows = diff_rows(answer, {"x": "Ice", "y": "Albedo"})
    >>> [row.text for row in rows[:2]]
    ['1 card changed: “Ice”', '1 edge ended: y>x']
    >>> print(*rows[2].text.split(" — "), sep="\\n")
    Loop broke (κ 1): “Albedo”, “Ice”
    by y>x: Albedo → Ice (causal, written by agent, recorded 2026-01-01 00:00:00 UTC)
    """
    texts = texts or {}
    ends = ends or {}

    def edge_name(edge_id: str) -> str:
        known = ends.get(edge_id)
        return edge_id if known is None else f"{edge_id} ({_name(known[0], texts)} → {_name(known[1], texts)})"

    rows: list[Row] = []
    for kind, what in (("nodes", "card"), ("edges", "edge")):
        part = answer.get(kind) or {}
        for change in ("added", "ended", "changed"):
            listed = part.get(change) or {}
            count = int(listed.get("count", 0))
            if not count:
                continue
            ids = [str(i) for i in listed.get("ids", [])]
            plural = what if count == 1 else what + "s"
            if kind == "nodes":
                named, cards = _names(ids, texts, count), tuple(ids)
            else:
                more = count - min(len(ids), NAMED)
                named = ", ".join(edge_name(i) for i in ids[:NAMED]) + (f" and {more:,} more" if more > 0 else "")
                cards = tuple(dict.fromkeys(end for i in ids if i in ends for end in ends[i]))
            rows.append(
                Row(kind, f"{count:,} {plural} {change}: {named}", cards, tuple(ids) if kind == "edges" else ())
            )
    loops = answer.get("loops") or {}
    for change, by in (("closed", "closed_by"), ("broke", "broken_by")):
        for loop in loops.get(change, []):
            members = tuple(str(n) for n in loop.get("nodes", []))
            edges = [e for e in loop.get(by, []) if isinstance(e, Mapping)]
            ordered = sorted(members, key=lambda i: (_name(i, texts), i))
            text = f"Loop {change} (κ {loop.get('kappa')}): {_names(ordered, texts)}"
            if edges:
                text += " — by " + "; ".join(f"{e.get('id')}: {_edge_words(e, texts)}" for e in edges[:NAMED])
            rows.append(Row(change, text, members, tuple(str(e.get("id")) for e in edges), members))
    if not rows:
        rows.append(Row("none", "Nothing changed between these moments."))
    return rows


def highlighted(rows: Iterable[Row]) -> list[str]:
    """The cards a diff highlights: every card its rows name, once, in order."""
    return list(dict.fromkeys(n for row in rows for n in row.nodes))


def closure_words(answer: Mapping[str, Any], texts: Mapping[str, str] | None = None) -> str:
    """``POST /api/loop``'s answer in words: when the loop closed and who or what wrote the edge
    that closed it.

    >>> words = closure_words({"nodes": ["x", "y"], "closed_at": "2026-01-02T00:00:00.000Z", "first_recorded":
    ...     "2026-01-01T00:00:00.000Z", "closed_by": [{"id": "y>x", "source_id": "y", "target_id": "x",
    ...     "edge_type": "causal", "source": "agent", "recorded_at": "2026-01-02T00:00:00.000Z"}]})
    >>> print(words[:80])
    The loop “x”, “y” closed at 2026-01-02 00:00:00 UTC, by edge y>x: y → x (causal,
    >>> print(words[80:])
     written by agent, recorded 2026-01-02 00:00:00 UTC).
    """
    texts = texts or {}
    members = _names([str(n) for n in answer.get("nodes", [])], texts)
    closed_at = answer.get("closed_at")
    edges = [e for e in answer.get("closed_by", []) if isinstance(e, Mapping)]
    if closed_at is None:
        first = answer.get("first_recorded")
        text = f"The loop {members} has been one since its cards were first recorded ({say_time(first)})"
    else:
        text = f"The loop {members} closed at {say_time(closed_at)}"
    if edges:
        what = "edge" if len(edges) == 1 else "edges"
        text += f", by {what} " + "; ".join(f"{e.get('id')}: {_edge_words(e, texts)}" for e in edges[:NAMED])
    return text + "."
