"""What a document may hold — the loader's limits — kept while editing, so the editor
never makes a document that ``parse_document`` (and so autosave's restore) refuses.

The editor checks every transaction here: node, edge and plane counts exactly, and the
size of the compact JSON export by an estimate from the history's snapshots (each new
node counted with a margin for the fields snapshots leave out). Near the limit the
estimate is replaced by the exact size, so the check is exact where it matters and
cheap elsewhere.

>>> from bendscope.bend.model.demo import demo_document
>>> capacity = Capacity(demo_document())
>>> capacity.nodes, capacity.edges, capacity.planes
(10, 10, 1)
"""

from __future__ import annotations

import json
import math
from typing import Any

from bendscope.bend.model.document import (
    MAX_BYTES,
    MAX_EDGES,
    MAX_NODES,
    MAX_PLANES,
    serialize_document,
    serialized_pieces,
)
from bendscope.bend.model.elements import Document
from bendscope.bend.model.history import Entry
from bendscope.kappa.steps import Steps

#: room left for the document's top-level fields
LIMIT = MAX_BYTES - 8192
#: characters a node's export holds beyond its history snapshot (vx, vy, width, height)
NODE_MARGIN = 128
#: … and a plane's (camera, the node and edge list brackets)
PLANE_MARGIN = 130
#: above this share of LIMIT the size is measured exactly
EXACT_FROM = 0.8


def _size(kind: str, snapshot: dict[str, Any] | None) -> int:
    if snapshot is None:
        return 0
    margin = NODE_MARGIN if kind == "node" else PLANE_MARGIN if kind == "plane" else 0
    return len(json.dumps(snapshot, ensure_ascii=False)) + 2 + margin


def size_change(kind: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> int:
    """``_size(kind, after) - _size(kind, before)``, reading only the fields that changed when
    both have the same fields (a move, a pin: Arrange moves every card). O(what changed).

    >>> a, b = {"id": "n", "x": 1.5, "text": "Hi"}, {"id": "n", "x": -120.25, "text": "Hi"}
    >>> size_change("node", a, b) == _size("node", b) - _size("node", a) == 4
    True
    """
    if before is None or after is None or before.keys() != after.keys():
        return _size(kind, after) - _size(kind, before)
    change = 0
    for key, value in after.items():
        was = before[key]
        if value is was:
            continue
        kind_of = type(value)
        if kind_of is type(was):
            if kind_of is float and value - value == 0.0 and was - was == 0.0:  # (finite: a place, mostly)
                change += len(float.__repr__(value)) - len(float.__repr__(was))
                continue
            if (kind_of is str or kind_of is bool) and value == was:
                continue  # (0 == 0.0 and {"a": 0} == {"a": 0.0}, but not in JSON: those are written out)
        change += _json_len(value) - _json_len(was)
    return change


def _json_len(value: Any) -> int:
    """``len(json.dumps(value, ensure_ascii=False))``, numbers and flags without the encoder."""
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if type(value) is int:
        return len(int.__repr__(value))
    if type(value) is float and math.isfinite(value):
        return len(float.__repr__(value))
    return len(json.dumps(value, ensure_ascii=False))


class Capacity:
    """Counts and the export size of one document."""

    def __init__(self, doc: Document, size: int | None = None) -> None:
        self.size = self.nodes = self.edges = self.planes = 0
        self._checked: tuple[Entry, tuple[int, int, int, int]] | None = None  # (``problem``'s, for ``apply``)
        self.measure(doc, size)

    @classmethod
    def steps(cls, doc: Document, chunk: int = 128) -> Steps[Capacity]:
        """The capacity of ``doc`` as steps (``kappa.steps``): its export is measured a piece
        at a time (``serialized_pieces``), a pause after every ``chunk`` pieces; ``doc`` must
        not change meanwhile. O(size of the document)."""
        size = 0
        for k, piece in enumerate(serialized_pieces(doc)):
            size += len(piece)
            if k % chunk == chunk - 1:
                yield
        return cls(doc, size)

    def measure(self, doc: Document, size: int | None = None) -> None:
        """Exact counts and size (``size``: the export's length, when it is known). O(size of
        the document)."""
        self.size = len(serialize_document(doc)) if size is None else size
        self.planes = len(doc.planes)
        self.nodes = sum(len(p.nodes) for p in doc.planes.values())
        self.edges = sum(len(p.edges) for p in doc.planes.values())

    def _delta(self, entry: Entry, side: int) -> tuple[int, int, int, int]:
        size = nodes = edges = planes = 0
        for (kind, _plane_id, _item_id), states in entry.changes.items():
            before, after = states[1 - side], states[side]
            size += size_change(kind, before, after)
            step = (after is not None) - (before is not None)
            if kind == "node":
                nodes += step
            elif kind == "edge":
                edges += step
            else:
                planes += step
        return size, nodes, edges, planes

    def problem(self, doc: Document, entry: Entry) -> str | None:
        """Why ``doc`` — with ``entry`` already applied — may not be kept, or None."""
        delta = self._delta(entry, 1)
        self._checked = (entry, delta)  # (``apply`` of the same entry next takes it as it is)
        size, nodes, edges, planes = delta
        for count, limit, what in (
            (self.nodes + nodes, MAX_NODES, "nodes"),
            (self.edges + edges, MAX_EDGES, "edges"),
            (self.planes + planes, MAX_PLANES, "planes"),
        ):
            if count > limit:
                return f"A graph holds at most {limit:,} {what}; this edit would make {count:,}."
        estimate = self.size + size
        if estimate > EXACT_FROM * LIMIT:
            estimate = len(serialize_document(doc))
        if estimate > LIMIT:
            return (
                f"A graph's file holds at most {MAX_BYTES // (1024 * 1024)} MB; this edit would make it "
                f"{estimate / 1e6:.1f} MB. Shorten some texts, or move part of the graph to another document."
            )
        return None

    def apply(self, doc: Document, entry: Entry, side: int) -> None:
        """Account for ``entry`` applied on ``side`` (1 = done or redone, 0 = undone)."""
        checked, self._checked = self._checked, None
        done = checked is not None and checked[0] is entry and side == 1
        size, nodes, edges, planes = checked[1] if done and checked is not None else self._delta(entry, side)
        self.size += size
        self.nodes += nodes
        self.edges += edges
        self.planes += planes
        if self.size > EXACT_FROM * LIMIT:
            self.size = len(serialize_document(doc))
