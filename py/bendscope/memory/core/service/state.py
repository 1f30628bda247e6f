"""The state every part of ``Memory`` shares — the store, the loop index, the clock, telemetry
and the embedder — the limits of its operations, and the helpers they have in common."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bendscope.kappa import DEFAULT_EXACT_LIMIT

from ...store.base import Store
from ...store.past import PastView
from ...store.scoped import ScopedView
from ..errors import NotFound
from ..loop_index import LoopIndex, Watch
from ..records import (
    MemoryEdge,
    MemoryNode,
)
from ..retrieval import (
    Embedder,
    Semantic,
)
from ..telemetry import Aggregator, Telemetry

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)

#: edge types declared acyclic unless the server is told otherwise: "derived from" is a
#: lineage, and a fact cannot derive from itself
DEFAULT_ACYCLIC_TYPES = ("derived_from",)
MAX_POOL = 20_000  # the most lexical matches looked at to fill a filtered page
MAX_ERRORS = 20  # wrong items a store_many error lists
#: analyze_topology with a query analyses the loops the retrieved nodes are in whole, up to this size
ANALYZE_LOOP_LIMIT = DEFAULT_EXACT_LIMIT
#: why a new edge without a type is refused (by the MCP tools)
TYPE_REQUIRED = (
    "edge_type is required for a new edge: causal (the source causes or raises the target) or temporal (the "
    "source comes before the target) — these two form loops — or an association (related, supports, "
    "contradicts, context, associative, derived_from, user)"
)
EMBED_BATCH = 1_000  # texts given to an embedder at once
MAX_FORWARDS = 32  # merges followed from one id (a merged node merged again, and so on)


def _unknown(ids: Sequence[str], found: Mapping[str, Any]) -> None:
    missing = [i for i in ids if i not in found]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise NotFound(f"no node with id {shown}{more}")


@dataclass
class _Batch:
    """What the writes of one transaction did to the arcs: the loops watched before them, the
    causal and temporal arcs added, and whether any was removed (``loop_index``)."""

    watch: Watch
    inserted: list[tuple[str, str]] = field(default_factory=list)
    removed: bool = False


def _in_graph(edge: MemoryEdge, ends: Mapping[str, MemoryNode], when: str) -> bool:
    """Whether an edge is in the graph at ``when``: valid then, and both its ends (of any type)."""
    source, target = ends.get(edge.source_id), ends.get(edge.target_id)
    return (
        edge.valid_at(when)
        and source is not None
        and target is not None
        and source.valid_at(when)
        and (target.valid_at(when))
    )


def _holds(edge: MemoryEdge, ends: Mapping[str, MemoryNode], now: str) -> bool:
    """Whether an edge is an arc of the current graph: causal or temporal, not a self-loop,
    valid ``now``, and both its ends valid ``now``."""
    source, target = ends.get(edge.source_id), ends.get(edge.target_id)
    return (
        edge.directed
        and edge.source_id != edge.target_id
        and edge.valid_at(now)
        and source is not None
        and target is not None
        and source.valid_at(now)
        and target.valid_at(now)
    )


def _said_merged(ids: Sequence[str], merged: Mapping[str, str]) -> list[str]:
    """``ids`` with each merged one replaced by the node it was merged into (each id once)."""
    return list(dict.fromkeys(merged.get(i, i) for i in ids))


class MemoryState:
    """What ``Memory`` holds (set by its ``__init__``)."""

    store: Store
    acyclic_types: frozenset[str]
    telemetry: Telemetry
    metrics: Aggregator
    clock: Callable[[], str]
    embedder: Embedder | None
    semantic: Semantic | None
    model: str | None
    exact_limit: int
    loops: LoopIndex
    #: the namespace this memory reads and writes (``within``; None: the whole store)
    namespace: str | None = None

    def _batch(self) -> _Batch:
        """The start of a write that changes edges (inside its transaction): the loop index
        made current, and nothing watched yet."""
        self.loops.ready()
        return _Batch(self.loops.watch(()))

    @contextlib.contextmanager
    def _known(self, known_at: str | None) -> Iterator[Store]:
        """The store as the memory knew it at ``known_at`` (``store.past``), read in one
        snapshot; the store itself for None or a time not before now."""
        if known_at is None or known_at >= self.clock():
            yield self.store
            return
        with self.store.reading():
            if isinstance(self.store, ScopedView):  # (the past of the store, then its namespace)
                yield ScopedView(PastView(self.store.store, known_at), self.store.namespace, sealed=self.store.sealed)
            else:
                yield PastView(self.store, known_at)

    def _forward(self, store: Store, ids: Sequence[str], found: dict[str, MemoryNode]) -> dict[str, str]:
        """Each of ``ids`` that names no node but was merged away by ``consolidate``: the node
        it now is (followed through later merges), added to ``found``; returns merged id →
        that node's id (``merged_into``)."""
        merged: dict[str, str] = {}
        looking = {i: i for i in ids if i not in found}
        for _ in range(MAX_FORWARDS):
            if not looking:
                break
            steps = store.forwards(set(looking.values()))
            looking = {i: steps[at][0] for i, at in looking.items() if at in steps}
            reached = store.get_nodes(set(looking.values()) - found.keys())
            found.update(reached)
            for i, at in list(looking.items()):
                if at in found:
                    merged[i] = at
                    del looking[i]
        return merged

    def _named(
        self, store: Store, ids: Sequence[str], found: dict[str, MemoryNode]
    ) -> tuple[list[str], dict[str, str]]:
        """The nodes a reading names, in ``found`` (read from ``store``): merged ids followed
        (``_forward``), then NotFound for an id that names no node — but in a reading of the
        past, an id the memory knows now or knew at another time is left out (it did not know
        it then). Returns (the ids found, merged id → the node it became)."""
        merged = self._forward(store, ids, found)
        named = _said_merged(ids, merged)
        missing = [i for i in named if i not in found]
        if missing and store is not self.store:
            now = self.store.get_nodes(missing)
            past, _ = self.store.history([i for i in missing if i not in now], [])
            _unknown(missing, {**now, **past})
            return [i for i in named if i in found], merged
        _unknown(named, found)
        return named, merged

    def _current_loops(self) -> bool:
        """Before a reading that uses the loop index: make it current if the store was written
        round the memory or a validity bound has passed; returns whether it is current (a
        read-only store's cannot be made so: its loops are then searched for)."""
        if self.loops.current():
            return True
        if self.store.read_only:
            return False
        with self.store.transaction():
            self.loops.ready()
        return True
