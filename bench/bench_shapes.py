"""The hand's targets, measured again on graph shapes the hand's benchmark does not try.

    python bench/bench_shapes.py [--pages 3] [--shapes held,one,sparse,long] [--sizes 2000,3000]
                                 [--formats csv,graphml,dot,mermaid] [--pace 16] [--explain] [--quick]

Written apart from ``bench_hand.py`` (its own page scripts, its own card choices and figures:
only the server and the browser's settings are shared), so that the two can disagree.
Headless Chromium (Debian's, ``--no-sandbox --disable-gpu``), Pyodide, 1280×800, motion on; the
frame intervals are the page's own ``requestAnimationFrame`` callbacks, long tasks the
``longtask`` entries of a ``PerformanceObserver``. Every graph is seeded (``shape_graphs``).
Each *page* is a fresh browser context: figures are given per page and as the median over pages,
never pooled across pages.

* **load → rest** (each page): the load call (``window.bendscope.load``, then ``fit-view``, as
  opening a saved copy does) is timed from this script; the first interval runs from the call to
  the first animation frame, the last ends at the first frame at which the page says its layout
  is still (``layout_active()`` false); long tasks that overlap that span. Also the time until
  the loop regions are known (``topology_state().pending`` false).
* **drag** (each page, at zoom 1 after ``zoom-reset``, the layout and κ at rest): a card of a
  loop region is dragged 200 px in 20 real mouse moves (``page.mouse``), one every ``--pace``
  ms; the intervals counted are those that end after the press, up to two frames after the
  release; input → next frame is each pointer event's ``event.timeStamp`` (press, moves,
  release) to the first animation frame after it. Variants: ``arrive`` (the press as soon as
  the pointer lands on the card), ``rest`` (the pointer rests 200 ms first), ``hub`` (the
  on-screen region card with the most edges, after a 200 ms rest), ``edge`` (the region card
  nearest the right edge of the view, dragged towards and past it), ``burst`` (``rest`` with the
  20 moves sent back to back, as ``bench_hand`` does). The variants' order turns with the page.
* **Connect to…** (each page): a card is clicked (selected), 300 ms later ``c`` is pressed
  (real keys); the time from the keydown's ``event.timeStamp`` to the first animation frame at
  which the submenu's items are in the DOM, and the longest task from the keydown until then.
* **formats**: the held-out graph written as CSV, GraphML, DOT and Mermaid (the editor's own
  exporter) and loaded as above: load → rest only.

``--explain`` lists, per page and drag, each interval over the target with what ran in it: the
painted frames from the page's frame log (layout step, Python scene work, paint, and what the
kept layer did), the page's own tasks from its task log, and long tasks. Never pass/fail; the
machine's load is printed before and after.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "py"))

from graphs import giant_scc_document  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from shape_graphs import (  # noqa: E402
    as_format,
    held_out_document,
    long_text_document,
    one_region_document,
    region_sizes,
    sparse_loops_document,
)

SHAPES = {
    "ours": ("bench_hand's mixed graph, bench.graphs.giant_scc_document", giant_scc_document),
    "held": ("one region of ≈ 69 % of the cards (the held-out shape)", held_out_document),
    "one": ("every card in one region", one_region_document),
    "sparse": ("many small loops, 1.2 arcs per card", sparse_loops_document),
    "long": ("the held-out shape with 3–6-line card texts", long_text_document),
}
VARIANTS = ("arrive", "rest", "hub", "edge", "burst")
Generator = Callable[[int], dict]


def target(figure: str, n: int) -> float:
    """The issue's target for ``figure`` at ``n`` cards (NaN where it sets none).

    >>> target("drag", 2000), target("drag", 3000), target("load_long", 1000), target("connect", 1000)
    (20.0, 33.0, 0.0, nan)
    """
    table = {
        "drag": {2000: 20.0, 3000: 33.0},
        "lag": {2000: 33.0, 3000: 50.0},
        "connect": {2000: 100.0, 3000: 150.0},
        "connect_task": {2000: 100.0, 3000: 100.0},
        "load": {1000: 20.0, 2000: 33.0, 3000: 33.0},
        "load_long": {1000: 0.0, 2000: 2.0, 3000: 2.0},
    }
    return table[figure].get(n, float("nan"))


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile, nearest rank (the value at ⌈q·len⌉).

    >>> pct([float(v) for v in range(1, 21)], 0.95), pct([5.0], 0.95), pct([], 0.5)
    (19.0, 5.0, nan)
    """
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def med(values: list[float]) -> float:
    clean = [v for v in values if not math.isnan(v)]
    return statistics.median(clean) if clean else float("nan")


def intervals(start: float, stamps: list[float]) -> list[float]:
    """The intervals between ``start`` and each frame stamp in turn.

    >>> intervals(0.0, [30.0, 47.0, 63.5])
    [30.0, 17.0, 16.5]
    """
    out, last = [], start
    for s in stamps:
        out.append(s - last)
        last = s
    return out


def lags(events: list[list[Any]], frames: list[float]) -> list[float]:
    """Each event's ``timeStamp`` to the first frame stamp at or after it (events after the last
    frame are left out).

    >>> lags([["pointermove", 5.0], ["pointermove", 17.0], ["pointerup", 40.0]], [0.0, 16.0, 33.0])
    [11.0, 16.0]
    """
    out = []
    for _, stamp in events:
        later = [f for f in frames if f >= stamp]
        if later:
            out.append(later[0] - stamp)
    return out


def what_ran(a: float, b: float, log: list[dict], own: list[list[Any]], tasks: list[list[float]]) -> str:
    """What the page says ran between ``a`` and ``b``: painted frames (patch, layout step, scene,
    paint ms), its own tasks but the plain background ones, long tasks.

    >>> what_ran(0, 40, [{"at": 5, "tick": 1, "scene": 2, "paint": 30, "patch": ""}], [[1, 60, "gc 2"]], [[1, 60]])
    'paint whole 30 (layout 1, scene 2); gc 2 60; long task 60'
    """
    parts = [
        f"paint {f.get('patch') or 'whole'} {f['paint']:.0f} (layout {f['tick']:.0f}, scene {f['scene']:.0f})"
        for f in log
        if a <= f["at"] < b
    ]
    parts += [f"{t[2]} {t[1]:.0f}" for t in own if a <= t[0] < b and t[2] != "background"]
    background = [t[1] for t in own if a <= t[0] < b and t[2] == "background"]
    if background:
        parts.append(f"{len(background)} background tasks {sum(background):.0f} (max {max(background):.0f})")
    parts += [f"long task {d:.0f}" for s, d in tasks if s < b and s + d > a]
    return "; ".join(parts) or "nothing logged"


def own_ms(a: float, b: float, log: list[dict], own: list[list[Any]]) -> float:
    """The page's own logged work that began between ``a`` and ``b``: its painted frames'
    layout step and paint, and its tasks (loading, κ and layout slices, gc, prime, collect).

    >>> own_ms(0, 40, [{"at": 5, "tick": 1, "scene": 2, "paint": 30}], [[1, 6, "background"], [50, 9, "gc 0"]])
    37
    """
    frames = sum(f["tick"] + f["paint"] for f in log if a <= f["at"] < b)
    return frames + sum(t[1] for t in own if a <= t[0] < b)


def slow_split(spans: list[tuple[float, float]], log: list[dict], own: list[list[Any]]) -> tuple[int, int]:
    """Of the slow intervals ``spans``: how many the page's own logged work fills at least half
    of, and how many it does not (then the time went to what the page does not log — raster,
    the browser, JS garbage collection — or to the machine running other processes).

    >>> slow_split([(0, 40), (40, 90)], [{"at": 5, "tick": 1, "scene": 2, "paint": 30}], [])
    (1, 1)
    """
    mine = sum(1 for a, b in spans if own_ms(a, b, log, own) >= (b - a) / 2)
    return mine, len(spans) - mine


# --------------------------------------------------------------------------- page scripts

#: load ``text``, then follow each animation frame until the layout is still; then until κ is known
LOAD = """async ([text, limitMs]) => {
  const b = window.bendscope, tasks = [], stamps = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) tasks.push([e.startTime, e.duration]); });
  obs.observe({type: 'longtask'});
  let loaded = null, restAt = null;
  const t0 = performance.now();
  const still = new Promise(resolve => {
    const step = () => {
      const now = performance.now();
      stamps.push(now);
      if (loaded !== null && !b.layout_active()) { restAt = now; resolve(); }
      else if (now - t0 > limitMs) resolve();
      else requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  const call = performance.now();
  const error = await b.load(text);
  b.action('fit-view');
  loaded = performance.now();
  await still;
  let kappaAt = null;
  while (performance.now() - t0 < limitMs) {
    if (!b.topology_state().pending) { kappaAt = performance.now(); break; }
    await new Promise(r => setTimeout(r, 20));
  }
  await new Promise(r => setTimeout(r, 200));
  obs.disconnect();
  return {error: error ?? null, call, loaded, restAt, kappaAt, stamps, tasks,
          log: JSON.parse(b.frame_log()).filter(f => f.at >= call),
          own: JSON.parse(b.task_log()).filter(t => t[0] >= call)};
}"""

#: wait until the layout is still and κ known, then ``settle`` ms more
QUIET = """async ([limitMs, settle]) => {
  const b = window.bendscope, t0 = performance.now();
  while (performance.now() - t0 < limitMs && (b.layout_active() || b.topology_state().pending))
    await new Promise(r => setTimeout(r, 40));
  await new Promise(r => setTimeout(r, settle));
  return performance.now() - t0;
}"""

#: from now on: every animation frame, every pointer event and keydown (type, timeStamp), long tasks
WATCH = """() => {
  const w = window.__shapes = {stamps: [], events: [], tasks: [], on: true};
  w.obs = new PerformanceObserver(l => { for (const e of l.getEntries()) w.tasks.push([e.startTime, e.duration]); });
  w.obs.observe({type: 'longtask'});
  w.listen = e => w.events.push([e.type, e.timeStamp]);
  for (const t of ['pointerdown', 'pointermove', 'pointerup', 'keydown']) window.addEventListener(t, w.listen, true);
  const step = () => {
    w.stamps.push(performance.now());
    if (w.menu !== undefined && w.menu === null && document.querySelector("#menu-1 [role='menuitem']"))
      w.menu = performance.now();
    if (w.on) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}"""

#: two more frames, then stop watching: what was seen, the page's frame and task logs meanwhile
UNWATCH = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await new Promise(r => setTimeout(r, 120));
  const w = window.__shapes; w.on = false; w.obs.disconnect();
  for (const t of ['pointerdown', 'pointermove', 'pointerup', 'keydown']) window.removeEventListener(t, w.listen, true);
  const t0 = w.stamps[0];
  return {stamps: w.stamps, events: w.events, tasks: w.tasks, menu: w.menu ?? null,
          log: JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= t0),
          own: JSON.parse(window.bendscope.task_log()).filter(t => t[0] >= t0)};
}"""

#: each card's centre on the screen, and whether the canvas is what a press there would hit
SPOTS = """ids => ids.map(id => {
  const at = window.bendscope.screen_position(id);
  if (!at) return null;
  const hit = document.elementFromPoint(at[0], at[1]);
  return [at[0], at[1], hit !== null && hit.tagName === 'CANVAS'];
})"""


# --------------------------------------------------------------------------- measuring


class Cpu:
    """The page's CPU time from Chromium's own counters (``Performance.getMetrics``): the main
    thread's (``ThreadTime``) and the whole renderer process's (``ProcessTime``: with the layout
    worker and the raster threads), in ms. Unlike the intervals, CPU time does not grow when
    other processes share the cores."""

    def __init__(self, page: Any) -> None:
        self.session = page.context.new_cdp_session(page)
        self.session.send("Performance.enable")

    def now(self) -> tuple[float, float]:
        metrics = {m["name"]: m["value"] for m in self.session.send("Performance.getMetrics")["metrics"]}
        return metrics.get("ThreadTime", float("nan")) * 1000, metrics.get("ProcessTime", float("nan")) * 1000

    @staticmethod
    def since(before: tuple[float, float], after: tuple[float, float]) -> tuple[float, float]:
        return after[0] - before[0], after[1] - before[1]


def load_page(app: Any, cpu: Cpu, text: str, limit_s: float, over: float) -> dict:
    """One page's load → rest."""
    before = cpu.now()
    run = app.api(LOAD, [text, limit_s * 1000])
    main_ms, process_ms = Cpu.since(before, cpu.now())
    if run["error"] is not None:
        raise RuntimeError(f"the page refused the document: {run['error']}")
    end = run["restAt"]
    stamps = [s for s in run["stamps"] if end is None or s <= end]
    gaps = intervals(run["call"], stamps)
    stop = end if end is not None else stamps[-1]
    long = [d for s, d in run["tasks"] if s + d > run["call"] and s < stop and d > 50]
    slow, spans = [], []
    last = run["call"]
    for s in stamps:
        if s - last > over:
            spans.append((last, s))
            ran = what_ran(last, s, run["log"], run["own"], run["tasks"])
            slow.append(f"{last - run['call']:.0f} ms +{s - last:.0f}: {ran}")
        last = s
    busy = own_ms(run["call"], stop, run["log"], run["own"])
    return {
        "p95": pct(gaps, 0.95),
        "first": gaps[0] if gaps else float("nan"),
        "frames": len(gaps),
        "over33": sum(1 for g in gaps if g > 33.4),
        "max": max(gaps, default=float("nan")),
        "long": len(long),
        "long_max": max(long, default=0.0),
        "in_ms": run["loaded"] - run["call"],
        "rest_s": (end - run["call"]) / 1000 if end is not None else float("nan"),
        "kappa_s": (run["kappaAt"] - run["call"]) / 1000 if run["kappaAt"] is not None else float("nan"),
        "slow": slow,
        "split": slow_split(spans, run["log"], run["own"]),
        "busy": busy / max(1e-9, stop - run["call"]),
        "cpu_main": main_ms,
        "cpu_process": process_ms,
    }


def on_screen(app: Any, ids: list[str], margin: float = 60.0) -> list[tuple[str, float, float]]:
    """The cards of ``ids`` whose centres are inside the view, clear of the toolbar, the HUD and
    any panel over the canvas (a press there hits the canvas)."""
    spots = app.api(SPOTS, ids)
    return [(i, s[0], s[1]) for i, s in zip(ids, spots, strict=True)
            if s is not None and s[2] and margin <= s[0] <= 1280 - margin / 2 and 110 <= s[1] <= 740]  # fmt: skip


def degrees(doc: dict) -> dict[str, int]:
    """Each card's number of edges.

    >>> degrees({"edges": [{"source": "a", "target": "b"}, {"source": "a", "target": "c"}]})
    {'a': 2, 'b': 1, 'c': 1}
    """
    degree: dict[str, int] = {}
    for e in doc["edges"]:
        for end in (e["source"], e["target"]):
            degree[end] = degree.get(end, 0) + 1
    return degree


def pick_cards(app: Any, doc: dict, degree: dict[str, int]) -> dict[str, tuple[str, float, float]]:
    """The cards each drag variant takes (at zoom 1, the view where the layout left it)."""
    topology = json.loads(app.api("window.bendscope.topology()"))
    in_regions = sorted(n for s in topology["sccs"] for n in s["nodes"])
    shown = on_screen(app, in_regions) or on_screen(app, [n["id"] for n in doc["nodes"]])
    central = min(shown, key=lambda c: (math.hypot(c[1] - 640, c[2] - 420), c[0]))
    hub = max(shown, key=lambda c: (degree.get(c[0], 0), -math.hypot(c[1] - 640, c[2] - 420), c[0]))
    edge = min(shown, key=lambda c: (abs(c[1] - 1215) + abs(c[2] - 420) / 4, c[0]))
    return {"arrive": central, "rest": central, "hub": hub, "edge": edge, "burst": central}


def drag(app: Any, cpu: Cpu, card: tuple[str, float, float], variant: str, pace_ms: float, over: float) -> dict:
    """One drag of ``card`` (200 px in 20 moves) as ``variant`` says; its figures."""
    page = app.page
    _, x, y = card
    page.mouse.move(x - 150 if x > 200 else x + 150, y + 60)  # (the pointer comes from elsewhere)
    app.api(WATCH)
    before = cpu.now()
    page.mouse.move(x, y)
    if variant != "arrive":
        time.sleep(0.2)
    step = 10.0
    page.mouse.down()
    for k in range(1, 21):
        page.mouse.move(x + step * k, y)
        if variant != "burst" and pace_ms > 0:
            time.sleep(pace_ms / 1000)
    page.mouse.up()
    seen = app.api(UNWATCH)
    main_ms, process_ms = Cpu.since(before, cpu.now())
    pointer = [e for e in seen["events"] if e[0].startswith("pointer")]
    press = next((e[1] for e in pointer if e[0] == "pointerdown"), None)
    release = next((e[1] for e in pointer if e[0] == "pointerup"), None)
    if press is None or release is None:
        raise RuntimeError(f"the {variant} drag's press or release never reached the page")
    stamps = seen["stamps"]
    after = [k for k, s in enumerate(stamps) if s > release]
    last = after[min(1, len(after) - 1)] if after else len(stamps) - 1
    first = next(k for k, s in enumerate(stamps) if s > press)
    span = stamps[max(0, first - 1) : last + 1]
    gaps = intervals(span[0], span[1:])
    tasks = [d for s, d in seen["tasks"] if s + d > press and s < span[-1]]
    painted = [f for f in seen["log"] if span[0] <= f["at"] <= span[-1]]
    kinds: dict[str, int] = {}
    for f in painted:
        kind = (f.get("patch") or "whole").split(" (")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    slow, spans = [], []
    for a, b in itertools.pairwise(span):
        if b - a > over:
            spans.append((a, b))
            slow.append(f"{a - press:+.0f} ms +{b - a:.0f}: {what_ran(a, b, seen['log'], seen['own'], seen['tasks'])}")
    moved = app.api("id => window.bendscope.screen_position(id)", card[0])
    return {
        "p95": pct(gaps, 0.95),
        "max": max(gaps, default=float("nan")),
        "frames": len(gaps),
        "lag_p95": pct(lags(pointer, stamps), 0.95),
        "press_lag": (lags([["pointerdown", press]], stamps) or [float("nan")])[0],
        "long": sum(1 for d in tasks if d > 50),
        "long_max": max(tasks, default=0.0),
        "work": pct([f["tick"] + f["paint"] for f in painted], 0.5),
        "scene": pct([f["scene"] for f in painted], 0.5),
        "kinds": kinds,
        "followed": moved is not None and abs(moved[0] - (x + 200)) < 30,
        "slow": slow,
        "split": slow_split(spans, seen["log"], seen["own"]),
        "held_ms": release - press,
        # CPU from the arrival on the card to after the release, per frame of that time
        "cpu_main": main_ms / max(1, len(stamps)),
        "cpu_process": process_ms / max(1, len(stamps)),
    }


def connect(app: Any, card: tuple[str, float, float]) -> dict:
    """Click ``card``, press ``c`` 300 ms later: keydown → the frame that shows the submenu's items."""
    page = app.page
    page.mouse.click(card[1], card[2])
    time.sleep(0.3)
    app.api(WATCH)
    app.api("() => { window.__shapes.menu = null; }")
    page.keyboard.press("c")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and app.api("() => window.__shapes.menu") is None:
        time.sleep(0.02)
    seen = app.api(UNWATCH)
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    key = next((e[1] for e in seen["events"] if e[0] == "keydown"), None)
    if key is None or seen["menu"] is None:
        return {"ms": float("nan"), "long_max": float("nan")}
    tasks = [d for s, d in seen["tasks"] if s + d > key and s < seen["menu"]]
    return {"ms": seen["menu"] - key, "long_max": max(tasks, default=0.0)}


def measure_page(
    browser: Any, base: str, doc: dict, text: str, n: int, args: argparse.Namespace, index: int, full: bool
) -> dict:
    app = open_app(browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"})
    try:
        cpu = Cpu(app.page)
        out: dict = {"load": load_page(app, cpu, text, args.limit, 33.4 if n > 1000 else 20.0)}
        if not full:
            return out
        app.api("window.bendscope.action('zoom-reset')")
        app.api(QUIET, [args.limit * 1000, 300])
        degree = degrees(doc)
        out["hub_degree"] = degree.get(pick_cards(app, doc, degree)["hub"][0], 0)
        out["max_degree"] = max(degree.values())
        order = [*args.variants[index % len(args.variants) :], *args.variants[: index % len(args.variants)]]
        out["drags"] = {}
        for variant in order:
            app.api("window.bendscope.action('zoom-reset')")
            app.api(QUIET, [args.limit * 1000, 300])
            fresh = pick_cards(app, doc, degree)  # (the last drag moved cards)
            over = target("drag", n) if n > 1000 else 20.0
            out["drags"][variant] = drag(app, cpu, fresh[variant], variant, args.pace, over)
        out["order"] = order
        app.api(QUIET, [args.limit * 1000, 300])
        fresh = pick_cards(app, doc, degree)
        rng = random.Random(index)
        shown = on_screen(app, sorted(n_id for s in json.loads(app.api("window.bendscope.topology()"))["sccs"]
                                      for n_id in s["nodes"]))  # fmt: skip
        extra = rng.sample(shown, min(args.connects - 2, len(shown))) if args.connects > 2 else []
        out["connect"] = [connect(app, c) for c in [fresh["hub"], fresh["rest"], *extra][: args.connects]]
        return out
    finally:
        app.page.context.close()


# --------------------------------------------------------------------------- report


def fmt(v: float, digits: int = 1) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def verdict(value: float, goal: float) -> str:
    if math.isnan(goal) or math.isnan(value):
        return ""
    return " ✓" if value <= goal else " **✗**"


def each(values: list[Any], digits: int = 1) -> str:
    return ", ".join(v if isinstance(v, str) else str(v) if isinstance(v, int) else fmt(v, digits) for v in values)


def split_text(r: dict) -> str:
    return f"{r['split'][0]}/{r['split'][1]}"


def cpu_text(r: dict, digits: int = 1) -> str:
    return f"{r['cpu_main']:.{digits}f} / {r['cpu_process']:.{digits}f}"


def percent(r: dict) -> str:
    return f"{100 * r['busy']:.0f} %"


def report(label: str, n: int, pages: list[dict], explain: bool) -> None:
    """One shape's figures: per page, and the median over pages (✗: the target missed)."""
    loads = [p["load"] for p in pages]
    p95s = [r["p95"] for r in loads]
    longs = [r["long"] for r in loads]
    print(f"\n### {label}, {n:,} cards ({len(pages)} pages)")
    print(f"- load → rest frame p95 ms: median **{fmt(med(p95s))}**{verdict(med(p95s), target('load', n))} "
          f"(each page {each(p95s)}; target {fmt(target('load', n), 0)})")  # fmt: skip
    print(f"  long tasks > 50 ms per page: {each(longs)} (longest {fmt(max(r['long_max'] for r in loads), 0)} ms)"

          f"{verdict(max(longs), target('load_long', n))}; intervals > 33 ms per page: "
          f"{each([r['over33'] for r in loads])}; first interval (call → first frame) ms: "
          f"{each([r['first'] for r in loads], 0)}; longest: {each([r['max'] for r in loads], 0)}")  # fmt: skip
    print(f"  slow intervals filled ≥ half by the page's own logged work / not: "
          f"{each([split_text(r) for r in loads])}; own work / load → rest time: "
          f"{each([percent(r) for r in loads])}; CPU ms main thread / renderer process: "
          f"{each([cpu_text(r, 0) for r in loads])}")  # fmt: skip
    print(f"  load call → in ms: {each([r['in_ms'] for r in loads], 0)}; rest s: "
          f"{each([r['rest_s'] for r in loads], 2)}; κ known s: {each([r['kappa_s'] for r in loads], 2)}; "
          f"frames: {each([r['frames'] for r in loads])}")  # fmt: skip
    if explain:
        for k, r in enumerate(loads):
            print(f"  page {k + 1} slow intervals: " + ("\n    " + "\n    ".join(r["slow"]) if r["slow"] else "none"))
    full = [p for p in pages if "drags" in p]
    if not full:
        return
    orders = "; ".join(" ".join(p["order"]) for p in full)
    print(f"- drag cards: hub degree {each([p['hub_degree'] for p in full])} (the graph's max "
          f"{full[0]['max_degree']}); variants' order per page: {orders}")  # fmt: skip
    for variant in full[0]["drags"]:
        runs = [p["drags"][variant] for p in full]
        p95s = [r["p95"] for r in runs]
        lag = [r["lag_p95"] for r in runs]
        print(f"- drag {variant}: frame p95 ms median **{fmt(med(p95s))}**{verdict(med(p95s), target('drag', n))} "
              f"(each {each(p95s)}; max {each([r['max'] for r in runs], 0)}); input → frame p95 "
              f"{fmt(med(lag))}{verdict(med(lag), target('lag', n))} (each {each(lag)}; press → frame "
              f"{each([r['press_lag'] for r in runs], 0)}); long tasks {each([r['long'] for r in runs])} "
              f"(max {fmt(max(r['long_max'] for r in runs), 0)})")  # fmt: skip
        print(f"  press → release ms {each([r['held_ms'] for r in runs], 0)}; frames "
              f"{each([r['frames'] for r in runs])}; "
              f"CPU ms per frame main thread / renderer {each([cpu_text(r) for r in runs])}; "
              f"work per painted frame median {each([r['work'] for r in runs])} ms (Python scene "
              f"{each([r['scene'] for r in runs])}); slow intervals own / not "
              f"{each([split_text(r) for r in runs])}; painted "
              f"{'; '.join(' '.join(f'{k} {v}' for k, v in sorted(r['kinds'].items())) for r in runs)}"
              f"{'' if all(r['followed'] for r in runs) else '; the card did not follow the pointer'}")  # fmt: skip
        if explain:
            for k, r in enumerate(runs):
                if r["slow"]:
                    print(f"    page {k + 1}: " + "\n      ".join(["", *r["slow"]]))
    shown = [c["ms"] for p in full for c in p["connect"]]
    tasks = [c["long_max"] for p in full for c in p["connect"]]
    worst = max(tasks, default=float("nan"))
    print(f"- Connect to…: shown median **{fmt(med(shown), 0)}**{verdict(med(shown), target('connect', n))} / max "
          f"{fmt(max(shown, default=float('nan')), 0)} ms over {len(shown)} cards (each {each(shown, 0)}); longest "
          f"task {fmt(worst, 0)} ms{verdict(worst, target('connect_task', n))}")  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", default="ours,held,one,sparse,long", help=f"graph shapes: {', '.join(SHAPES)}")
    parser.add_argument(
        "--sizes", default="2000,3000", help="card counts of the held-out shape (the other shapes: the first of them)"
    )
    parser.add_argument("--load-sizes", default="1000", help="extra sizes of the held-out shape, load → rest only")
    parser.add_argument(
        "--formats", default="csv,graphml,dot,mermaid", help="import formats, load → rest at the first of --sizes"
    )
    parser.add_argument("--pages", type=int, default=3, help="fresh pages per shape and size")
    parser.add_argument("--format-pages", type=int, default=2, help="fresh pages per import format")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"drag variants: {', '.join(VARIANTS)}")
    parser.add_argument("--connects", type=int, default=4, help="cards Connect to… is opened on per page")
    parser.add_argument("--pace", type=float, default=16.0, help="ms between two mouse moves of a drag")
    parser.add_argument("--limit", type=float, default=90.0, help="seconds to wait for the layout to rest")
    parser.add_argument("--explain", action="store_true", help="each slow interval with what ran in it")
    parser.add_argument("--quick", action="store_true", help="150 cards, one page, 2 shapes, 1 format (a smoke test)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    load_sizes = [int(s) for s in args.load_sizes.split(",") if s]
    shapes = [s for s in args.shapes.split(",") if s]
    formats = [f for f in args.formats.split(",") if f]
    if args.quick:
        sizes, load_sizes, shapes, formats = [150], [], ["held", "sparse"], ["mermaid"]
        args.pages, args.format_pages, args.connects = 1, 1, 2
    args.variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(shapes) - set(SHAPES)) + sorted(set(args.variants) - set(VARIANTS))
    if unknown:
        parser.error(f"unknown shape or variant: {', '.join(unknown)}")
    before = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f} (1/5/15 min); "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")  # fmt: skip
    print(f"chromium {CHROMIUM} {' '.join(CHROMIUM_ARGS)}; 1280×800, motion on; mouse moves every {args.pace:g} ms")
    plan: list[tuple[str, str, int, bool, int]] = []  # (shape, format, cards, drags and Connect too, pages)
    big = sizes[0] if sizes else 2000
    for n in load_sizes:
        plan.append(("held", "json", n, False, args.pages))
    for shape in shapes:
        for n in sizes if shape == "held" else [big]:
            plan.append((shape, "json", n, True, args.pages))
    for fmt_name in formats:
        plan.append(("held", fmt_name, big, False, args.format_pages))
    results: dict = {}
    server, base = start_in_thread(ROOT)
    started = time.monotonic()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for shape, fmt_name, n, full, pages in plan:
                doc = SHAPES[shape][1](n)
                text = as_format(doc, fmt_name)
                label = f"{shape} ({SHAPES[shape][0]}; region {max(region_sizes(doc), default=0):,}; "
                label += f"{len(doc['edges']):,} edges) as {fmt_name}, {len(text):,} characters"
                runs = [measure_page(browser, base, doc, text, n, args, k, full) for k in range(pages)]
                results[(shape, fmt_name, n)] = runs
                report(label, n, runs, args.explain)
                sys.stdout.flush()
            browser.close()
    finally:
        server.shutdown()
    after = os.getloadavg()
    print(f"\nmachine load after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}; {time.monotonic() - started:.0f} s")
    return results


if __name__ == "__main__":
    main()
