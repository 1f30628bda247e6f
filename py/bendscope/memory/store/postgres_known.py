"""What a PostgreSQL write transaction keeps while it runs: the search statistics it changes,
applied once (``Delta``), and what it remembers of the rows it read or wrote (``Known``), so
that reading them again costs no round trip to the server.

>>> kept: dict[str, int | None] = {}
>>> reads = []
>>> def read(ids):
...     reads.append(ids)
...     return {i: len(i) for i in ids if i != "gone"}
>>> remembered(kept, ["ab", "gone"], read), remembered(kept, ["gone", "ab", "c"], read)
({'ab': 2}, {'ab': 2, 'c': 1})
>>> reads  # (each id read once: "gone" is remembered as absent)
[['ab', 'gone'], ['c']]
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TypeVar

from ..core.records import MemoryEdge, MemoryNode
from .postgres_schema import BOUNDS_BETWEEN, CHANGED_AND_HORIZON
from .sql import SQLStore

__all__ = ["Delta", "Known", "RememberingStore", "remembered"]


class Delta:
    """What a write transaction changes in the search statistics, applied once at commit."""

    def __init__(self) -> None:
        self.df: Counter[str] = Counter()
        self.nodes = 0
        self.tokens = 0
        self.edges = 0
        self.arcs = 0  # changes to causal and temporal edges (the arc version)
        self.vectors = 0  # vectors kept or gone (the vectors version)
        self.applied_rows = 0  # nodes and edges changed by parts already applied (see ``PostgresStore._flush``)
        self.loops_version: int | None = None  # the loop index's version set (None: unchanged)

    @property
    def rows(self) -> int:
        """How many nodes and edges the transaction added or removed, in all."""
        return self.applied_rows + abs(self.nodes) + abs(self.edges)

    def add(self, counts: dict[str, int], total: int, sign: int) -> None:
        for term in counts:
            self.df[term] += sign
        self.nodes += sign
        self.tokens += sign * total

    def __bool__(self) -> bool:
        return (
            bool(self.nodes or self.tokens or self.edges or self.arcs or self.vectors or any(self.df.values()))
            or self.loops_version is not None
        )


class Known:
    """The rows a write transaction has read or written, by id (None: read, and not there), so
    that reading them again costs no round trip. Exact while the transaction holds the store's
    write lock: no other transaction writes these tables meanwhile (the access counters'
    transactions wait for that lock too), and every statement of this one that may write
    anything else forgets them all (``PostgresStore._conn``); a write of a node or an edge
    tells the row it left (``put_node``, ``put_edge``). Each record is handed out as a copy."""

    def __init__(self) -> None:
        self.nodes: dict[str, MemoryNode | None] = {}
        self.edges: dict[str, MemoryEdge | None] = {}
        self.forwards: dict[str, tuple[str, str] | None] = {}
        self.loops: dict[str, str | None] = {}
        #: the corpus's arc and loops versions (``arc_versions``), None until read
        self.versions: tuple[int, int] | None = None
        #: the store's state values (``get_state``) by key, None: not set
        self.state: dict[str, str | None] = {}

    def forget(self) -> None:
        for kept in (self.nodes, self.edges, self.forwards, self.loops, self.state):
            kept.clear()
        self.versions = None


Found = TypeVar("Found")


def remembered(
    kept: dict[str, Found | None], ids: Iterable[str], read: Callable[[list[str]], dict[str, Found]]
) -> dict[str, Found]:
    """The records of ``ids`` (those that exist), by id in id order: what ``kept`` holds, the
    rest read at once (one statement) and kept, absent ones as None. O(ids) and one round trip
    at most."""
    wanted = list(dict.fromkeys(ids))
    missing = [i for i in wanted if i not in kept]
    if missing:
        found = read(missing)
        for i in missing:
            kept[i] = found.get(i)
    return {i: copy.deepcopy(v) for i in sorted(wanted) if (v := kept[i]) is not None}


class RememberingStore(SQLStore):
    """An SQL store whose reads take few round trips: its write transactions read nodes, edges,
    merges and loop members through ``Known`` (``_known``: what the open write transaction
    remembers, None outside one), and the live editor's change reads are one statement each."""

    #: a write transaction remembers the rows it read or wrote: reading them again is free
    remembers = True

    @property
    def _known(self) -> Known | None:
        """What the open write transaction remembers of its rows, or None outside one."""
        return None

    def get_nodes(self, node_ids: Iterable[str]) -> dict[str, MemoryNode]:
        known = self._known
        if known is None:
            return super().get_nodes(node_ids)
        return remembered(known.nodes, node_ids, super().get_nodes)

    def get_edges(self, edge_ids: Iterable[str]) -> dict[str, MemoryEdge]:
        known = self._known
        if known is None:
            return super().get_edges(edge_ids)
        return remembered(known.edges, edge_ids, super().get_edges)

    def forwards(self, node_ids: Iterable[str] | None = None) -> dict[str, tuple[str, str]]:
        known = self._known
        if known is None or node_ids is None:
            return super().forwards(node_ids)
        return remembered(known.forwards, node_ids, super().forwards)

    def node_loops(self, node_ids: Iterable[str]) -> dict[str, str]:
        known = self._known
        if known is None:
            return super().node_loops(node_ids)
        found = remembered(known.loops, node_ids, super().node_loops)
        return dict(found)

    def changed_since(self, number: int) -> tuple[list[str], list[str]] | None:
        """(``SQLStore.changed_since`` in one statement: one snapshot for the changes and the horizon)"""
        nodes: list[str] = []
        edges: list[str] = []
        horizon = 0
        for kind, found in self._query(CHANGED_AND_HORIZON, {"number": number}):
            if kind == "horizon":
                horizon = int(found)
            else:
                (nodes if kind == "node" else edges).append(found)
        return None if number < horizon else (nodes, edges)

    def bounds_between(self, after: str, until: str) -> tuple[list[str], list[str]]:
        rows = self._query(BOUNDS_BETWEEN, {"after": after, "until": until})
        return [r[1] for r in rows if r[0] == "node"], [r[1] for r in rows if r[0] == "edge"]
