"""An in-process event bus modelled on Elixir's ``:telemetry`` (attach / detach /
execute), and the aggregator of the κ integration spec §7.

Events (names are tuples, as Elixir's event lists):

* ``("topology", "analyze")`` — measurements ``duration_ms`` (float ms), ``node_count``,
  ``edge_count``; metadata ``scc_count``, ``max_kappa``, ``routing``,
  ``self_loops_filtered``. Emitted on every analysis.
* ``("topology", "route")`` — no measurements; metadata ``decision`` (fast |
  deliberate), ``max_kappa``, ``trigger`` (retrieve_context | analyze_topology).

A handler that raises is detached (as ``:telemetry`` does) and the error logged; the
caller never sees it. ``execute`` with no handlers costs one dict lookup.

>>> bus = Telemetry()
>>> seen = []
>>> bus.attach("demo", ("topology", "route"), lambda event, m, meta: seen.append(meta["decision"]))
>>> bus.execute(("topology", "route"), {}, {"decision": "fast", "max_kappa": 0, "trigger": "analyze_topology"})
>>> seen
['fast']
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

Event = tuple[str, ...]
Handler = Callable[[Event, Mapping[str, Any], Mapping[str, Any]], None]
ANALYZE: Event = ("topology", "analyze")
ROUTE: Event = ("topology", "route")

logger = logging.getLogger(__name__)


class Telemetry:
    """Handlers by event name; thread safe."""

    def __init__(self) -> None:
        self._handlers: dict[Event, dict[str, Handler]] = {}
        self._ids: dict[str, Event] = {}
        self._lock = threading.Lock()

    def attach(self, handler_id: str, event: Event, handler: Handler) -> None:
        """Call ``handler(event, measurements, metadata)`` on every ``event``."""
        with self._lock:
            if handler_id in self._ids:
                raise ValueError(f"a handler {handler_id!r} is already attached")
            self._ids[handler_id] = event
            self._handlers.setdefault(event, {})[handler_id] = handler

    def detach(self, handler_id: str) -> bool:
        """Remove a handler; returns whether it was attached."""
        with self._lock:
            event = self._ids.pop(handler_id, None)
            if event is None:
                return False
            self._handlers[event].pop(handler_id, None)
            return True

    def execute(self, event: Event, measurements: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        handlers = self._handlers.get(event)
        if not handlers:
            return
        for handler_id, handler in list(handlers.items()):
            try:
                handler(event, measurements, metadata)
            except Exception:
                logger.exception("telemetry handler %r failed on %s and was detached", handler_id, ".".join(event))
                self.detach(handler_id)


def percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0 < q ≤ 100) of an ascending list.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 95)
    (2.0, 4.0)
    """
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * q // 100))  # ceil(n · q / 100)
    return sorted_values[int(rank) - 1]


class Aggregator:
    """Counters and latency percentiles over the telemetry events (spec §7).

    Keeps the last ``window`` analysis durations for the percentiles; O(1) per event,
    O(window log window) per ``snapshot``.
    """

    def __init__(self, telemetry: Telemetry, window: int = 10_000, handler_prefix: str | None = None) -> None:
        self.durations: deque[float] = deque(maxlen=window)
        self.node_counts: deque[int] = deque(maxlen=window)
        self.edge_counts: deque[int] = deque(maxlen=window)
        self.analyses = 0
        self.analyses_deliberate = 0
        self.analyses_with_sccs = 0
        self.self_loops_filtered = 0
        self.routes: dict[str, dict[str, int]] = {}  # trigger → decision → count
        self._lock = threading.Lock()
        handler_prefix = handler_prefix or f"aggregator-{id(self):x}"  # several may watch one bus
        telemetry.attach(f"{handler_prefix}.analyze", ANALYZE, self._on_analyze)
        telemetry.attach(f"{handler_prefix}.route", ROUTE, self._on_route)

    def _on_analyze(self, event: Event, measurements: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        with self._lock:
            self.analyses += 1
            self.durations.append(float(measurements["duration_ms"]))
            self.node_counts.append(int(measurements["node_count"]))
            self.edge_counts.append(int(measurements["edge_count"]))
            self.analyses_deliberate += metadata["routing"] == "deliberate"
            self.analyses_with_sccs += metadata["scc_count"] > 0
            self.self_loops_filtered += int(metadata.get("self_loops_filtered", 0))

    def _on_route(self, event: Event, measurements: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        with self._lock:
            counts = self.routes.setdefault(str(metadata["trigger"]), {"fast": 0, "deliberate": 0})
            counts[str(metadata["decision"])] = counts.get(str(metadata["decision"]), 0) + 1

    def snapshot(self) -> dict[str, Any]:
        """The metrics: ``topology.analyze`` latency percentiles and sizes, ``topology.route``
        counts and deliberate ratios (overall and per trigger)."""
        with self._lock:
            durations = sorted(self.durations)
            nodes = sorted(float(n) for n in self.node_counts)
            edges = sorted(float(e) for e in self.edge_counts)
            fast = sum(c.get("fast", 0) for c in self.routes.values())
            deliberate = sum(c.get("deliberate", 0) for c in self.routes.values())
            return {
                "topology.analyze": {
                    "count": self.analyses,
                    "duration_ms": {
                        "p50": round(percentile(durations, 50), 4),
                        "p95": round(percentile(durations, 95), 4),
                        "p99": round(percentile(durations, 99), 4),
                        "max": round(durations[-1], 4) if durations else 0.0,
                        "window": len(durations),
                    },
                    "node_count": {"p50": percentile(nodes, 50), "p95": percentile(nodes, 95)},
                    "edge_count": {"p50": percentile(edges, 50), "p95": percentile(edges, 95)},
                    "scc_found_ratio": _ratio(self.analyses_with_sccs, self.analyses),
                    "deliberate_ratio": _ratio(self.analyses_deliberate, self.analyses),
                    "self_loops_filtered": self.self_loops_filtered,
                },
                "topology.route": {
                    "fast_count": fast,
                    "deliberate_count": deliberate,
                    "deliberate_ratio": _ratio(deliberate, fast + deliberate),
                    "by_trigger": {
                        trigger: {**counts, "deliberate_ratio": _ratio(counts["deliberate"], sum(counts.values()))}
                        for trigger, counts in sorted(self.routes.items())
                    },
                },
            }


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
