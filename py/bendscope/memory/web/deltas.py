"""What changed in the memory's document since the page last had it: the live editor's deltas.

The page opens the whole memory (``GET /api/graph``); the answer carries a ``version``. After
that, at each change event, the page asks ``GET /api/graph?since=V`` and gets only what
changed since version V::

    {"changes": {"since": V, "nodes": [card, …], "edges": [edge, …],
                 "removed_nodes": [id, …], "removed_edges": [id, …]},
     "version": W, "view": …, "at": …}

cards and edges (new or changed) exactly as the whole document holds them, and the ids of
those it no longer holds. A :class:`ViewLog` keeps, for the last ``keep`` versions it handed
out, each card and edge (the records unchanged from one version to the next shared), so the server
can answer from the document it reads now; a page further behind, or one whose version this
server never gave (it restarted), gets the whole document again. Versions are numbered by the
server process; the same document twice is the same version.

>>> log = ViewLog(keep=2)
>>> doc = {"planes": [{"nodes": [{"id": "a", "text": "A"}], "edges": []}]}
>>> log.record(doc)
1
>>> doc2 = {"planes": [{"nodes": [{"id": "a", "text": "A!"}, {"id": "b", "text": "B"}], "edges": []}]}
>>> changes, version = log.changes_since(1, doc2)
>>> version, [n["id"] for n in changes["nodes"]], changes["removed_nodes"]
(2, ['a', 'b'], [])
>>> log.changes_since(7, doc2)[0] is None  # (a version this log does not hold: the whole document)
True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from ..io.documents import Reuse
from .timeline import Marked

__all__ = ["KEEP_VERSIONS", "UNMARKED", "Items", "Mark", "ViewLog"]

#: versions a log keeps (a page more versions behind gets the whole document)
KEEP_VERSIONS = 64

Items = tuple[dict[str, Mapping[str, Any]], dict[str, Mapping[str, Any]]]
#: what a version was read at: the store's change number (None: the store numbers none), the
#: valid time its items' ``holds`` are for, and how many of its items do not hold
Mark = tuple[int | None, str, int]
UNMARKED: Mark = (None, "", 0)


def _items(document: Mapping[str, Any]) -> tuple[dict[str, Mapping[str, Any]], dict[str, Mapping[str, Any]]]:
    nodes: dict[str, Mapping[str, Any]] = {}
    edges: dict[str, Mapping[str, Any]] = {}
    for plane in document.get("planes", []):
        for node in plane.get("nodes", []):
            nodes[str(node["id"])] = node
        for edge in plane.get("edges", []):
            edges[str(edge["id"])] = edge
    return nodes, edges


class ViewLog:
    """The cards and edges of the whole-memory documents handed out, by version (module doc).
    A version holds the records themselves, each one equal to the version before's shared with
    it (so a version costs a dict of ids, and the records that changed). Thread-safe: answers
    are made in worker threads. O(n + m) comparisons per call."""

    def __init__(self, keep: int = KEEP_VERSIONS) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep!r}")
        self.keep = keep
        self.version = 0
        self._versions: OrderedDict[int, Items] = OrderedDict()
        self._lock = threading.Lock()
        #: the records of the last whole document made for this log (``to_document``'s ``reuse``,
        #: then ``marked_holding``'s): a card unchanged since is the same object, compared at
        #: once; held while a document is made (``making``)
        self.made: tuple[Reuse, Marked] = (({}, {}), ({}, {}))
        self.making = threading.Lock()
        #: the mark of the whole document being made (set while it is read, under ``making``)
        self.pending: Mark = UNMARKED
        self._marks: dict[int, Mark] = {}

    def _record(self, items: Items, mark: Mark, shared: bool = False) -> int:
        last = next(reversed(self._versions.values())) if self._versions else None
        if last is not None and _same_items(last, items):
            if mark[0] is not None:  # (the same items, read later: a later mark holds for them)
                self._marks[self.version] = mark
            return self.version
        if last is not None and not shared:
            items = (_shared(items[0], last[0]), _shared(items[1], last[1]))
        self.version += 1
        self._versions[self.version] = items
        self._marks[self.version] = mark
        while len(self._versions) > self.keep:
            self._marks.pop(self._versions.popitem(last=False)[0], None)
        return self.version

    def record(self, document: Mapping[str, Any], mark: Mark = UNMARKED) -> int:
        """The version of ``document`` (a new one unless it equals the last recorded), read at ``mark``."""
        items = _items(document)
        with self._lock:
            return self._record(items, mark)

    def record_items(self, items: Items, mark: Mark) -> int:
        """The version of a document of these cards and edges (``since``: made from a version
        this log holds, sharing its records), read at ``mark``."""
        with self._lock:
            return self._record(items, mark, shared=True)

    def held(self, version: int) -> tuple[Items, Mark] | None:
        """A version's cards and edges and its mark, or None when this log no longer holds it."""
        with self._lock:
            items = self._versions.get(version)
            return None if items is None else (items, self._marks.get(version, UNMARKED))

    def changes_since(
        self, since: int, document: Mapping[str, Any], mark: Mark = UNMARKED
    ) -> tuple[dict[str, Any] | None, int]:
        """(the changes from version ``since`` to ``document``, or None when this log no longer
        holds ``since``; ``document``'s version)."""
        nodes, edges = _items(document)
        with self._lock:
            old = self._versions.get(since)
            version = self._record((nodes, edges), mark)
        if old is None:
            return None, version
        changes: dict[str, Any] = {
            "since": since,
            "nodes": [v for k, v in nodes.items() if not _same(old[0].get(k), v)],
            "edges": [v for k, v in edges.items() if not _same(old[1].get(k), v)],
            "removed_nodes": [k for k in old[0] if k not in nodes],
            "removed_edges": [k for k in old[1] if k not in edges],
        }
        return changes, version


def _same_items(last: Items, now: Items) -> bool:
    """Whether two versions hold the same records. O(n + m), at once for records shared."""
    return all(
        len(a) == len(b) and all(_same(a.get(k), v) for k, v in b.items()) for a, b in zip(last, now, strict=True)
    )


def _shared(now: dict[str, Mapping[str, Any]], last: dict[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """``now``'s records, each one equal to ``last``'s under its id replaced by that one. O(n)."""
    out: dict[str, Mapping[str, Any]] = {}
    for key, record in now.items():
        before = last.get(key)
        out[key] = before if before is not None and _same(before, record) else record
    return out


def _same(before: Mapping[str, Any] | None, now: Mapping[str, Any]) -> bool:
    """Whether a record is unchanged: the same object (made again from the same node or edge), or equal."""
    return before is now or (before is not None and before == now)
