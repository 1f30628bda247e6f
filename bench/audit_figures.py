"""The audit's pure parts: intervals, quantiles, input → frame lags, what a slow frame held, the
Connect-to menu's words read back, and the Loops panel checked against the graph.

Nothing here touches a browser; ``tests/test_bench_audit.py`` runs it.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable
from typing import Any

#: each figure's target by the graph's size (cards), as the issue states it (None: no target)
TARGETS = {
    "drag_p95": {2000: 20.0, 3000: 33.0},
    "lag_p95": {2000: 33.0, 3000: 50.0},
    "connect_ms": {2000: 100.0, 3000: 150.0},
    "connect_task": {2000: None, 3000: 100.0},
    "arrange_aspect": {2000: 4.0, 3000: 4.0},
    "arrange_area": {2000: 0.10, 3000: 0.10},
    "arrange_task": {2000: None, 3000: 100.0},
    "load_p95": {1000: 20.0, 2000: 33.0, 3000: 33.0},
    "load_long": {1000: 0, 2000: 2, 3000: 2},
    "live_p95": {2000: 250.0},
    "live_frames": {2000: 33.0},
}


def target(figure: str, cards: int) -> float | None:
    """The target of ``figure`` for a graph of ``cards``: that of the nearest size the issue
    names at or above it (1,451 cards are held to the 2,000 targets; past 3,000, to 3,000's).

    >>> target("drag_p95", 1451), target("drag_p95", 3000), target("load_p95", 900), target("connect_task", 2000)
    (20.0, 33.0, 20.0, None)
    """
    sizes = sorted(TARGETS[figure])
    size = next((s for s in sizes if cards <= s), sizes[-1])
    return TARGETS[figure][size]


def met(value: float, goal: float | None, larger_is_better: bool = False) -> str:
    """``met`` / ``missed`` / ``—`` (no target, or nothing measured).

    >>> met(19.9, 20.0), met(20.1, 20.0), met(0.12, 0.10, True), met(float("nan"), 20.0), met(3.0, None)
    ('met', 'missed', 'met', '—', '—')
    """
    if goal is None or value != value:
        return "—"
    ok = value >= goal if larger_is_better else value <= goal
    return "met" if ok else "missed"


def p95(values: Iterable[float]) -> float:
    """Nearest-rank 95th percentile (NaN for nothing).

    >>> p95(range(1, 101)), p95([])
    (95, nan)
    """
    s = sorted(values)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)] if s else float("nan")


def median(values: Iterable[float]) -> float:
    """The median (NaN for nothing).

    >>> median([3.0, 1.0, 2.0]), median([])
    (2.0, nan)
    """
    s = list(values)
    return statistics.median(s) if s else float("nan")


def intervals(start: float, stamps: list[float], end: float | None = None) -> list[tuple[float, float]]:
    """The frame intervals a person feels from ``start`` (the act): from it to the first frame
    after it, then frame to frame, up to the first frame at or after ``end``.

    >>> intervals(5.0, [0.0, 16.0, 33.0, 50.0], end=20.0)
    [(5.0, 16.0), (16.0, 33.0)]
    """
    out: list[tuple[float, float]] = []
    last = start
    for s in stamps:
        if s <= start:
            continue
        out.append((last, s))
        last = s
        if end is not None and s >= end:
            break
    return out


def lengths(spans: list[tuple[float, float]]) -> list[float]:
    """Each interval's length.

    >>> lengths([(0.0, 16.5), (16.5, 40.0)])
    [16.5, 23.5]
    """
    return [b - a for a, b in spans]


def lags(inputs: list[list[Any]], stamps: list[float], kind: str = "pointermove") -> list[float]:
    """Each ``kind`` input's ``timeStamp`` → the first animation frame callback at or after it.

    >>> lags([["pointermove", 3.0], ["pointerdown", 1.0], ["pointermove", 20.0]], [0.0, 16.0, 40.0])
    [13.0, 20.0]
    """
    out = []
    for k, stamp, *_ in inputs:
        if k == kind:
            later = next((s for s in stamps if s >= stamp), None)
            if later is not None:
                out.append(later - stamp)
    return out


def longs_in(longs: list[list[float]], start: float, end: float) -> list[float]:
    """Durations of the long tasks that overlap [start, end].

    >>> longs_in([[0.0, 60.0], [100.0, 80.0], [300.0, 55.0]], 50.0, 200.0)
    [60.0, 80.0]
    """
    return [d for s, d in longs if s + d > start and s < end]


def held(a: float, b: float, frames: list[dict], tasks: list[list[Any]], longs: list[list[float]]) -> str:
    """What the page logged in the interval [a, b): its painted frames' parts (layout step, scene
    work, paint, whether the kept layer was drawn), its own tasks by label, the long tasks.

    >>> held(0, 50, [{"at": 10, "tick": 1.0, "scene": 2.0, "paint": 9.5, "patch": "kept"}],
    ...      [[20, 30.2, "kappa slice"], [60, 5, "gc"]], [[15, 51.0]])
    'paint(tick 1.0, scene 2.0, paint 9.5, kept) · kappa slice 30.2 · long task 51'
    """
    parts = []
    for f in frames:
        if a <= f["at"] < b:
            parts.append(f"paint(tick {f.get('tick', 0):.1f}, scene {f.get('scene', 0):.1f}, "
                         f"paint {f.get('paint', 0):.1f}, {f.get('patch', '?')})")  # fmt: skip
    for t in tasks:
        if a <= t[0] < b:
            parts.append(f"{t[2]} {t[1]:.1f}")
    parts += [f"long task {d:.0f}" for s, d in longs if a <= s < b]
    return " · ".join(parts) or "nothing the page logged (the browser's own work, or the machine)"


def slow(spans: list[tuple[float, float]], frames: list[dict], tasks: list[list[Any]], longs: list[list[float]],
         start: float, over: float = 20.0, limit: int = 8) -> list[str]:  # fmt: skip
    """The intervals longer than ``over`` ms: when (from ``start``), how long, what they held."""
    out = []
    for a, b in spans:
        if b - a > over and len(out) < limit:
            out.append(f"+{a - start:.0f} ms, {b - a:.1f} ms: {held(a, b, frames, tasks, longs)}")
    return out


# --------------------------------------------------------------------------- what the page says

#: a Connect-to preview: ``→ name (κ: 1→2 — strengthens loop)``, κ possibly bounds ``1–3``
PREVIEW = re.compile(r"^→ (.+) \(κ: ([0-9–]+)→([0-9–]+) — (.+)\)$")
#: a merge: ``→ name (merges 2 loop regions, of κ 1 each, into one of κ 1)``
MERGE = re.compile(r"^→ (.+) \(merges (\d+) loop regions, .+, into one of κ ([0-9–]+)\)$")


def read_item(text: str) -> dict[str, Any] | None:
    """A Connect-to item's words: the target's name and κ before / after (bounds as [lo, hi]).

    >>> read_item("→ Actor 7 (κ: 1→2 — strengthens loop)")
    {'name': 'Actor 7', 'before': (1, 1), 'after': (2, 2), 'words': 'strengthens loop'}
    >>> read_item("→ Actor 9 (merges 2 loop regions, of κ 1 each, into one of κ 1–2)")["after"]
    (1, 2)
    >>> read_item("✓ Actor 3 — already connected") is None
    True
    """
    m = MERGE.match(text)
    if m:
        return {"name": m.group(1), "before": None, "after": span(m.group(3)), "words": "merges",
                "merged": int(m.group(2))}  # fmt: skip
    m = PREVIEW.match(text)
    if m:
        return {"name": m.group(1), "before": span(m.group(2)), "after": span(m.group(3)), "words": m.group(4)}
    return None


def span(text: str) -> tuple[int, int]:
    """``2`` → (2, 2); ``1–3`` → (1, 3).

    >>> span("2"), span("1–3")
    ((2, 2), (1, 3))
    """
    lo, _, hi = text.partition("–")
    return int(lo), int(hi or lo)


def first_line(text: str, limit: int = 28) -> str:
    """A card's name as a menu writes it: its first non-empty line, cut to ``limit`` with "…".

    >>> first_line("\\nA very long first line of a card that goes on"), first_line("Short\\nmore")
    ('A very long first line of a…', 'Short')
    """
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def loop_problems(group: dict[str, Any], arcs: dict[str, tuple[str, str, str | None]]) -> list[str]:
    """A Loops panel group's loops checked against the graph: each loop's edges are arcs of the
    graph that go round its cards in order and close; its polarity is R for an even count of
    negative arcs, B for an odd one, ``?`` when an arc has no sign. ``arcs``: id → (a, b, polarity).

    >>> arcs = {"e1": ("a", "b", "+"), "e2": ("b", "a", "-")}
    >>> loop_problems({"loops": [{"nodes": ["a", "b"], "edges": ["e1", "e2"], "polarity": "B"}]}, arcs)
    []
    >>> loop_problems({"loops": [{"nodes": ["a", "b"], "edges": ["e1", "e2"], "polarity": "R"}]}, arcs)
    ['loop a→b: polarity R, the signs say B']
    >>> loop_problems({"loops": [{"nodes": ["a", "b"], "edges": ["e1"], "polarity": "?"}]}, arcs)
    ['loop a→b: its arcs do not close a loop through its cards']
    """
    out = []
    for loop in group.get("loops", []):
        nodes, edges = loop["nodes"], loop["edges"]
        name = "→".join(nodes[:4]) + ("…" if len(nodes) > 4 else "")
        steps = [arcs.get(e) for e in edges]
        ring = list(zip(nodes, nodes[1:] + nodes[:1], strict=True))
        if (
            any(s is None for s in steps)
            or len(steps) != len(nodes)
            or sorted((s[0], s[1]) for s in steps if s) != sorted(ring)
        ):
            out.append(f"loop {name}: its arcs do not close a loop through its cards")
            continue
        signs = [s[2] for s in steps if s]
        sign = "?" if any(p not in ("+", "-", "−") for p in signs) else "B" if sum(p != "+" for p in signs) % 2 else "R"
        if loop.get("polarity") != sign:
            out.append(f"loop {name}: polarity {loop.get('polarity')}, the signs say {sign}")
    return out
