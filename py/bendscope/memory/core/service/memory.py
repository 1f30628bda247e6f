"""``Memory``: the operations the MCP tools, the editor's site and the CLI share, over one store."""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable

from bendscope.kappa import DEFAULT_EXACT_LIMIT

from ...store.base import Store
from ...store.scoped import ScopedView
from ..errors import InvalidInput
from ..loop_index import LoopIndex
from ..records import (
    EDGE_TYPES,
    utc_now,
)
from ..retrieval import (
    SEMANTIC_WEIGHT,
    Embedder,
    Semantic,
    model_name,
)
from ..telemetry import Aggregator, Telemetry
from .exchange import Exchange
from .outcomes import Outcomes
from .state import (
    DEFAULT_ACYCLIC_TYPES,
)

logger = logging.getLogger(__name__)
logger = logging.getLogger(__name__)


class Memory(Exchange, Outcomes):
    """A knowledge-graph memory: store, retrieval with topology, κ router, telemetry."""

    def __init__(
        self,
        store: Store,
        *,
        telemetry: Telemetry | None = None,
        clock: Callable[[], str] = utc_now,
        embedder: Embedder | None = None,
        exact_limit: int = DEFAULT_EXACT_LIMIT,
        acyclic_types: Iterable[str] = DEFAULT_ACYCLIC_TYPES,
        semantic_weight: float = SEMANTIC_WEIGHT,
        dense_seeds: int = 0,
    ) -> None:
        self.store = store
        unknown = [t for t in acyclic_types if t not in EDGE_TYPES]
        if unknown:
            raise ValueError(
                f"unknown edge type {unknown[0]!r} declared acyclic; the types are {', '.join(EDGE_TYPES)}"
            )
        #: edge types no cycle may form among (store_edge refuses an edge closing one)
        self.acyclic_types = frozenset(acyclic_types)
        self.telemetry = telemetry or Telemetry()
        self.metrics = Aggregator(self.telemetry)
        self.clock = clock
        self.embedder = embedder
        #: how retrieval uses the embedder (None without one); its vectors' name in the store
        self.semantic = Semantic(embedder, semantic_weight, dense_seeds) if embedder is not None else None
        self.model = model_name(embedder) if embedder is not None else None
        self.exact_limit = exact_limit
        #: the memory's feedback loops with their κ, kept in the store (``loop_index``)
        self.loops = LoopIndex(store, exact_limit, clock=clock)

    def within(self, namespace: str | None, *, sealed: bool = False) -> Memory:
        """This memory as one namespace of its store (``store.scoped``): it reads and writes the
        nodes of that namespace alone; the loop index, telemetry and embedder stay shared.
        None: this memory. A memory of one namespace (a server serving one) never reads
        another: naming another is refused. ``sealed``: its caller may know nothing of another
        namespace (``ScopedView.sealed``: a server for one namespace)."""
        if namespace is None or namespace == self.namespace:
            return self
        if self.namespace is not None:
            raise InvalidInput(f"this memory is namespace {self.namespace!r}'s alone: it cannot read {namespace!r}")
        scoped = copy.copy(self)
        base = self.store.store if isinstance(self.store, ScopedView) else self.store
        scoped.store = ScopedView(base, namespace, sealed=sealed)
        scoped.namespace = scoped.store.namespace
        return scoped
