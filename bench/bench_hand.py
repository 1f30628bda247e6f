"""What a person does with their hands on a large graph, measured as they feel it.

    python bench/bench_hand.py [--sizes 2000,3000] [--runs 3] [--live sqlite,postgresql] [--only-load] [--only-live]
                               [--quick]
    python bench/bench_hand.py --only-drag [--drags 5] [--explain]
    python bench/bench_hand.py --only-load --sizes 1000 --live "" [--explain] [--shape dense]

Headless Chromium (Debian's, ``--disable-gpu``), Pyodide, a 1280×800 page, motion on. Graphs:
``bench.graphs.giant_scc_document`` (a random spanning tree of causal edges plus random arcs up to
2n — ``--arcs`` times n: one giant loop region, 876 of 2,000 cards (1,363 with ``--arcs 2.6``) —
and tree-like parts around it: the "mixed" graph; ``--shape dense``: ``--arcs 2.7``, a loop region
of about 70 % of the cards — 694 of 1,000 — as in documents denser than ours) and, for Arrange,
also a single loop region (``bench.graphs.random_strong``, every card in it). Each figure of the target table:

* **drag**: at zoom 1 (``zoom-reset``), the region's card nearest the middle of the view is dragged
  200 px in 20 real mouse moves (``page.mouse``), the pointer resting ``--dwell`` ms (200) on the
  card first, as a hand aims before it presses; the page's own ``requestAnimationFrame`` loop
  gives the frame intervals from the press to the release, and a capturing ``pointermove``
  listener the time from each move's ``event.timeStamp`` to the next animation frame callback
  (``performance.now()`` there): input received → next frame; the drags' painted frames
  tallied by what they drew (``whole``; over the kept layer: ``kept`` only copied it, else the
  reason it was drawn again) and by their work on the page's thread (layout step + paint, and the
  Python scene work in it: less sensitive to a busy machine than the intervals), and with
  ``--explain`` each interval over 20 ms with what ran in it (``--only-load --explain``: the
  same for each page's load → rest);
* **Connect to…**: the region's cards with the most neighbours within 500 px are selected and
  ``c`` pressed; the time until the submenu's items are in the DOM (polled each animation frame)
  and the longest task meanwhile;
* **Arrange** (``arrange-lr``): the time until applied, the longest task from the keypress on, the
  result's aspect (long / short side of the cards' bounding box) and the cards' total area over
  that box's area;
* **load → rest**: each run's frames from the load call (the first interval runs from the call to
  the first frame) until the layout rests, p95 per run, and the long tasks (> 50 ms) that end
  after the load call; medians over fresh pages (never pooled);
* **live**: ``bench_live`` at 100 writes/s into a 2,000-card memory (one giant loop), SQLite and
  PostgreSQL: change → page p95 and the frame intervals during the burst, which begins once the
  page shows the memory and its layout rests (``--while-opening``: as soon as the page listens,
  so that the burst overlaps the opening: load → rest as well);

Same-run baselines: hovering the same moves over empty canvas at zoom 1 (what moving the pointer
costs: the drag's), and the page at rest after its last load, 2 s of its animation frames with
nothing to do (what a frame costs the machine now: load → rest's, Connect to…'s and Arrange's).
Medians and p95; the machine's load is printed. Never pass/fail.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))  # (bench_live imports tests.memory)

import harness  # noqa: E402
from graphs import giant_scc_document, random_strong  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402

harness.BOOT_TIMEOUT_MS = max(harness.BOOT_TIMEOUT_MS, 180_000)  # (a page boots in over 60 s at a load of 25–30)
from playwright.sync_api import sync_playwright  # noqa: E402


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


#: random arcs per card of each ``--shape`` of ``giant_scc_document`` (its loop region: 420 of 1,000
#: cards and 876 of 2,000 for "mixed", 694 of 1,000 for "dense")
SHAPES = {"mixed": 2.0, "dense": 2.7}


def region_document(n: int, seed: int = 3) -> dict:
    """Every card in one loop region: a Hamiltonian cycle plus random causal arcs (≈ 2n).

    >>> doc = region_document(20)
    >>> len(doc["nodes"]), len(doc["edges"]) >= 20
    (20, True)
    """
    arcs = random_strong(n, 2, seed)
    edges = [{"id": f"e{i}", "source": f"n{a}", "target": f"n{b}", "kind": "causal"} for i, (a, b) in enumerate(arcs)]
    return {"nodes": [{"id": f"n{i}", "text": f"Node {i}"} for i in range(n)], "edges": edges}


#: load the document (as Import… does: load, then fit the view), then follow every animation
#: frame until the layout rests; frames from the load call, long tasks ending after it
LOAD = """async ([text, limitMs]) => {
  const long = [];
  const tasks = new PerformanceObserver(l => {
    for (const e of l.getEntries()) long.push({start: e.startTime, duration: e.duration});
  });
  tasks.observe({type: 'longtask'});
  const b = window.bendscope;
  const stamps = [];
  let done = false;
  const rest = new Promise(resolve => {
    function frame(ts) {
      const now = performance.now();
      stamps.push(now);
      if (done && !b.layout_active()) resolve(now - t0);
      else if (now - t0 > limitMs) resolve(null);
      else requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  });
  const t0 = performance.now();
  stamps.push(t0);
  // (a large document may come in between frames: the load's promise is kept once it is in)
  const error = await b.load(text);
  b.action('fit-view');
  done = true;
  const loaded = performance.now();
  const restMs = await rest;
  await new Promise(r => setTimeout(r, 300));
  tasks.disconnect();
  return {error, t0, load: loaded - t0, rest: restMs, stamps,
          long: long.filter(t => t.start + t.duration > t0).map(t => [t.start - t0, t.duration])};
}"""

WAIT_REST = """async (limitMs) => {
  const t0 = performance.now();
  const b = window.bendscope;
  while (b.layout_active() && performance.now() - t0 < limitMs) await new Promise(r => setTimeout(r, 50));
  return performance.now() - t0;
}"""

#: frame stamps and input → next frame, from now until ``__hand_stop()``
WATCH = """() => {
  const w = window.__hand = {frames: [], lags: [], pending: [], long: [], tasks: [], events: [], run: true};
  w.obs = new PerformanceObserver(l => {
    for (const e of l.getEntries()) { w.long.push(e.duration); w.tasks.push([e.startTime, e.duration]); }
  });
  w.obs.observe({type: 'longtask'});
  w.evs = new PerformanceObserver(l => {
    for (const e of l.getEntries()) {
      if (e.name.startsWith('pointer')) w.events.push([e.name, e.processingStart, e.processingEnd - e.processingStart]);
    }
  });
  w.evs.observe({type: 'event', durationThreshold: 16, buffered: false});
  w.onmove = e => w.pending.push(e.timeStamp);
  window.addEventListener('pointermove', w.onmove, true);
  const step = () => {
    const now = performance.now();
    w.frames.push(now);
    for (const t of w.pending) w.lags.push(now - t);
    w.pending = [];
    if (w.run) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}"""

STOP = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const w = window.__hand; w.run = false; w.obs.disconnect(); w.evs.disconnect();
  window.removeEventListener('pointermove', w.onmove, true);
  const gaps = w.frames.slice(1).map((t, i) => t - w.frames[i]);
  const t0 = w.frames[0], t1 = w.frames[w.frames.length - 1];
  const painted = JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= t0 && f.at <= t1)
    .map(f => [f.at, f.tick, f.scene, f.paint,
      f.patch + (f.widgets > 1 ? ' (widgets ' + f.widgets.toFixed(1) + ')' : ''),
      Object.entries(f.plan).filter(([k, v]) => k !== 'update' || v > 1)
        .map(([k, v]) => k + ' ' + v.toFixed(1)).join(', ')]);
  const own = window.bendscope.task_log ? JSON.parse(window.bendscope.task_log())
    .filter(t => t[0] >= t0 && t[0] <= t1) : [];
  return {gaps, lags: w.lags, long: w.long, frames: w.frames, tasks: w.tasks, events: w.events, painted, own};
}"""

#: wait ``ms`` after an animation frame (the pointer resting where it is)
DWELL = "ms => new Promise(r => requestAnimationFrame(() => setTimeout(r, ms)))"


#: the page's painted frames between two times, as ``explain`` reads them
PAINTED = """([t0, t1]) => JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= t0 && f.at <= t1)
  .map(f => [f.at, f.tick, f.scene, f.paint, f.patch + (f.widgets > 1 ? ' (widgets ' + f.widgets.toFixed(1) + ')' : ''),
    Object.entries(f.plan).filter(([k, v]) => k !== 'update' || v > 1)
      .map(([k, v]) => k + ' ' + v.toFixed(1)).join(', ')])"""


#: ``ms`` of animation frames with nothing to do: their intervals
REST = """async (ms) => {
  const stamps = [], t0 = performance.now();
  await new Promise(resolve => {
    function frame(now) { stamps.push(now); if (now - t0 < ms) requestAnimationFrame(frame); else resolve(); }
    requestAnimationFrame(frame);
  });
  return stamps.slice(1).map((t, i) => t - stamps[i]);
}"""


def rest_run(app, ms: float = 2000.0) -> dict:
    """The page at rest (its layout still, nothing pressed): its frame intervals for ``ms`` — the
    same-run baseline of the figures that have no gesture of their own to compare with."""
    app.api(WAIT_REST, 30_000)
    gaps = app.api(REST, ms)
    return {"p95": p95(gaps), "median": median(gaps), "frames": len(gaps)}


def region_nodes(app) -> list[str]:
    """The nodes of the largest loop region."""
    topology = json.loads(app.api("window.bendscope.topology()"))
    sccs = sorted(topology["sccs"], key=lambda s: -len(s["nodes"]))
    return list(sccs[0]["nodes"]) if sccs else []


def central(app, candidates: list[str]) -> str:
    """The candidate whose card is nearest the middle of the 1280×800 view."""
    spots = app.api("ids => ids.map(id => window.bendscope.screen_position(id))", candidates)
    return min(zip(candidates, spots, strict=True), key=lambda c: (math.hypot(c[1][0] - 640, c[1][1] - 400), c[0]))[0]


def gesture(app, start: tuple[float, float], moves: int, step: float, button: bool, dwell: float = 0.0) -> dict:
    """``moves`` real mouse moves of ``step`` px right from ``start``, the button held if
    ``button``; the frame intervals, input → next frame lags and long tasks meanwhile (from the
    press on, after the pointer rested ``dwell`` ms at ``start``, as a hand aims before it presses)."""
    page = app.page
    x, y = start
    page.mouse.move(x, y)
    if dwell > 0:
        app.api(DWELL, dwell)
    app.api(WATCH)
    if button:
        page.mouse.down()
    for k in range(1, moves + 1):
        page.mouse.move(x + step * k, y)
    if button:
        page.mouse.up()
    return app.api(STOP)


def explain(run: dict, over: float = 20.0) -> list[str]:
    """Each frame interval longer than ``over`` ms of a gesture, with what ran in it: the frames
    painted (the layer's reason: "" a whole frame, "kept" the layer only copied, else why it was
    drawn again; Python's scene work and the paint in ms), pointer events handled for > 16 ms and
    long tasks (start, duration).

    >>> explain({"frames": [0.0, 10.0, 45.0], "painted": [[12.0, 0.1, 2.0, 30.0, "nothing kept", ""]],
    ...          "events": [["pointerdown", 11.0, 20.0]], "tasks": [[11.0, 33.0]]})
    ['#1 35.0 ms: paint nothing kept 30.0 (layout 0.1, scene 2.0); pointerdown 20.0; task 33.0']
    """
    frames = run["frames"]
    out = []
    for i, (a, b) in enumerate(itertools.pairwise(frames)):
        if b - a <= over:
            continue
        parts = [
            f"paint {p[4] or 'whole'} {p[3]:.1f} (layout {p[1]:.1f}, scene {p[2]:.1f}{': ' + p[5] if p[5] else ''})"
            for p in run["painted"]
            if a <= p[0] < b
        ]
        parts += [f"{name} {ms:.1f}" for name, at, ms in run["events"] if a <= at < b]
        parts += [f"task {ms:.1f}" for at, ms in run["tasks"] if a <= at < b]
        parts += [f"{what} {ms:.1f}" for at, ms, what in run.get("own", []) if a <= at < b and what != "background"]
        out.append(f"#{i} {b - a:.1f} ms: " + "; ".join(parts))
    return out


def drag_run(app, region: list[str], drags: int = 1, moves: int = 20, step: float = 10.0, dwell: float = 0.0) -> dict:
    """Drag the region's most central card 200 px in 20 moves at zoom 1, ``drags`` times (each
    after the layout rested again, the pointer resting ``dwell`` ms on the card before the press;
    the figures pooled, and each drag's p95); and the baseline: hovering the same moves over
    empty canvas (what moving the pointer costs)."""
    app.api("window.bendscope.action('zoom-reset')")
    app.api(WAIT_REST, 5_000)
    gaps: list[float] = []
    lags: list[float] = []
    long: list[float] = []
    each = []
    explained: list[list[str]] = []
    painted: dict[str, int] = {}  # the drags' painted frames by what they drew ("whole", the layer's reason)
    work: list[float] = []  # each painted frame's work on the page's thread (layout step + paint), ms
    scene: list[float] = []  # and its Python scene work
    press: list[float] = []  # each drag's press frame's work (the first over the layer: drawn then unless ahead)
    for k in range(drags):
        node = central(app, region)
        drag = gesture(app, app.node_xy(node), moves, step if k % 2 == 0 else -step, True, dwell)
        gaps += drag["gaps"]
        lags += drag["lags"]
        long += drag["long"]
        each.append(p95(drag["gaps"]))
        explained.append(explain(drag))
        over = [f for f in drag["painted"] if f[4]]  # (frames over the layer: the first is the press's)
        press += [over[0][1] + over[0][3]] if over else []
        for frame in drag["painted"]:
            kind = frame[4].split(" (")[0] or "whole"
            painted[kind] = painted.get(kind, 0) + 1
            work.append(frame[1] + frame[3])
            scene.append(frame[2])
        app.api(WAIT_REST, 30_000)
    pan = gesture(app, (8.0, 790.0), moves, step, False)  # (hover only: what moving the pointer costs)
    return {
        "zoom": app.stats()["zoom"],
        "drags": drags,
        "each_p95": each,
        "explained": explained,
        "painted": painted,
        "work_median": median(work),
        "work_p95": p95(work),
        "scene_median": median(scene),
        "press_work": press,
        "frame_median": median(gaps),
        "frame_p95": p95(gaps),
        "lag_median": median(lags),
        "lag_p95": p95(lags),
        "long": sum(1 for t in long if t > 50),
        "long_max": max(long, default=0.0),
        "hover_frame_p95": p95(pan["gaps"]),
        "hover_lag_p95": p95(pan["lags"]),
    }


DENSEST = """([ids, radius]) => {
  const b = window.bendscope, at = ids.map(id => b.screen_position(id));
  const near = i => at.filter(p => Math.hypot(p[0] - at[i][0], p[1] - at[i][1]) <= radius).length - 1;
  const counts = ids.map((id, i) => [near(i), id]);
  counts.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1));
  return counts.map(c => c[1]);
}"""

#: press c on the selected card; every animation frame until the submenu's items are there
CONNECT = """async (limitMs) => {
  const long = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) long.push(e.duration); });
  obs.observe({type: 'longtask'});
  const t0 = performance.now();
  window.dispatchEvent(new KeyboardEvent('keydown', {key: 'c', bubbles: true}));
  const shown = await new Promise(resolve => {
    function frame() {
      const items = document.querySelectorAll("#menu-1 [role='menuitem']").length;
      if (items) resolve([performance.now() - t0, items]);
      else if (performance.now() - t0 > limitMs) resolve([null, 0]);
      else requestAnimationFrame(frame);
    }
    frame();
  });
  await new Promise(r => setTimeout(r, 100));
  obs.disconnect();
  return {ms: shown[0], items: shown[1], long};
}"""


def connect_run(app, region: list[str], repeats: int) -> dict:
    """Connect to… on the region's cards with the most neighbours within 500 px at zoom 1."""
    app.api("window.bendscope.action('zoom-reset')")
    visible = [n for n, (x, y) in zip(region, app.api(
        "ids => ids.map(id => window.bendscope.screen_position(id))", region), strict=True)
        if 0 <= x <= 1280 and 0 <= y <= 800]  # fmt: skip
    times, longest, items = [], 0.0, 0
    for node_id in app.api(DENSEST, [visible or region, 500])[:repeats]:
        app.api("id => window.bendscope.select(id)", node_id)
        out = app.api(CONNECT, 30_000)
        app.page.keyboard.press("Escape")
        app.page.keyboard.press("Escape")
        times.append(out["ms"] if out["ms"] is not None else float("nan"))
        longest = max([longest, *out["long"]])
        items = max(items, out["items"])
    return {"median": median(times), "max": max(times, default=float("nan")), "long_max": longest, "items": items}


ARRANGE = """async (limitMs) => {
  const long = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) long.push([e.startTime, e.duration]); });
  obs.observe({type: 'longtask'});
  const b = window.bendscope, t0 = performance.now(), frame = () => new Promise(r => requestAnimationFrame(r));
  b.action('arrange-lr');
  let applied = null;
  while (performance.now() - t0 < limitMs) {
    await frame();
    if (!b.layout_state().arranging) { applied = performance.now(); break; }
  }
  await frame();  // (the frame that drew the arranged cards has ended)
  const shown = performance.now();
  await new Promise(r => setTimeout(r, 300));
  obs.disconnect();
  const after = long.filter(t => t[0] + t[1] > t0);
  return {ms: (applied || shown) - t0, shown: shown - t0, t0, end: performance.now(),
          long: after.map(t => t[1]), over: after.filter(t => t[1] > 50).length};
}"""

#: the shapes ``--only-arrange`` arranges: one loop region of every card, the mixed graph, and
#: ``probe_graphs.regions_graph`` (loop regions of 50 cards)
ARRANGE_SHAPES = ("region", "mixed", "regions")


def arrange_document(kind: str, n: int, arcs: float = 2.0) -> dict:
    if kind == "region":
        return region_document(n)
    if kind == "regions":
        from probe_graphs import regions_graph

        return regions_graph(n)
    return giant_scc_document(n, arcs_per_node=arcs)


def arrange_page(browser, base: str, kind: str, n: int, limit: float) -> dict:
    """Arrange on a fresh page that loaded ``kind`` at ``n`` cards and rests, fitted: ``arrange_run``'s
    figures, and the main thread's CPU of its longest task from the key until the arranged drawing
    was shown (Chromium's tracing, ``bench_load_cpu``: thread time, less sensitive to a busy machine)."""
    from bench_load_cpu import CATEGORIES, MARK, TOP

    app = open_app(browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"})
    app.api(LOAD, [json.dumps(arrange_document(kind, n)), limit * 1000])
    app.api(WAIT_REST, limit * 1000)
    app.api("window.bendscope.action('fit-view')")
    browser.start_tracing(page=app.page, categories=CATEGORIES)
    mark_now = app.api(MARK)
    out = arrange_run(app)
    events = json.loads(browser.stop_tracing())
    events = events["traceEvents"] if isinstance(events, dict) else events
    app.page.context.close()
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"
    }
    main = [k for k, v in names.items() if v == "CrRendererMain"]
    mark = min(e["ts"] for e in events if e.get("name") == "bench-load-cpu")
    start, end = (mark + (out[key] - mark_now) * 1000.0 for key in ("t0", "end"))
    cpu = [e.get("tdur", 0) / 1000.0 for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X"
           and e["name"] in TOP and start <= e["ts"] <= end]  # fmt: skip
    return {**out, "cpu_max": max(cpu, default=0.0), "cpu_50": sum(ms > 50 for ms in cpu)}


def arrange_figures(browser, trees: list[tuple[str, str]], sizes: list[int], runs: int, limit: float,
                    kinds: list[str]) -> dict:  # fmt: skip
    """``--only-arrange``: each shape and size, ``runs`` fresh pages per tree, the trees alternately."""
    out: dict = {}
    for n in sizes:
        for kind in kinds:
            for _ in range(runs):
                for name, base in trees:
                    got = arrange_page(browser, base, kind, n, limit)
                    out.setdefault((name, kind, n), []).append(got)
                    print(f"  {name} {kind} {n:,}: applied {got['ms'] / 1000:.2f} s, "
                          f"shown {got['shown'] / 1000:.2f} s, "
                          f"longest task {got['long_max']:.0f} ms (CPU {got['cpu_max']:.0f}), tasks > 50 ms "
                          f"{got['over']} (CPU {got['cpu_50']}), aspect {got['aspect']:.2f}, area "
                          f"{100 * got['area']:.1f} %; load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    return out


def report_arrange(figures: dict) -> None:
    print("\n| tree | shape | cards | key → applied s | key → shown s | longest task ms (CPU) | tasks > 50 ms (CPU) | "
          "aspect / area |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for (name, kind, n), rows in figures.items():

        def mid(key: str, rows: list[dict] = rows) -> float:
            return median([float(r[key]) for r in rows])

        print(f"| {name} | {kind} | {n:,} | {mid('ms') / 1000:.2f} | {mid('shown') / 1000:.2f} | "
              f"{mid('long_max'):.0f} ({mid('cpu_max'):.0f}) | {mid('over'):.0f} ({mid('cpu_50'):.0f}) | "
              f"{mid('aspect'):.2f} / {100 * mid('area'):.1f} % |")  # fmt: skip
    print(f"\n(medians of {max(len(r) for r in figures.values())} pages each; each tree's pages alternately)")


def shape(nodes: list[dict]) -> tuple[float, float]:
    """The aspect (long / short side) of the cards' bounding box and their total area over its area.

    >>> shape([{"x": 0, "y": 0, "width": 10, "height": 10}, {"x": 30, "y": 0, "width": 10, "height": 10}])
    (4.0, 0.5)
    """
    x0 = min(n["x"] - n["width"] / 2 for n in nodes)
    x1 = max(n["x"] + n["width"] / 2 for n in nodes)
    y0 = min(n["y"] - n["height"] / 2 for n in nodes)
    y1 = max(n["y"] + n["height"] / 2 for n in nodes)
    w, h = x1 - x0, y1 - y0
    area = sum(n["width"] * n["height"] for n in nodes)
    return round(max(w, h) / max(1e-9, min(w, h)), 3), round(area / max(1e-9, w * h), 3)


def arrange_run(app) -> dict:
    out = app.api(ARRANGE, 600_000)
    plane = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    aspect, ratio = shape(plane["nodes"])
    return {**out, "long_max": max(out["long"], default=0.0), "aspect": aspect, "area": ratio,
            "pinned": sum(1 for n in plane["nodes"] if n["pinned"])}  # fmt: skip


def load_run(app, doc: dict, limit_s: float, first: int = 60, explaining: bool = False) -> dict:
    run = app.api(LOAD, [json.dumps(doc), limit_s * 1000])
    assert run["error"] is None, run["error"]
    gaps = [b - a for a, b in itertools.pairwise(run["stamps"])]
    explained = []
    if explaining:  # (each long interval with the frames painted in it, as for a drag)
        t0, t1 = run["stamps"][0], run["stamps"][-1]
        painted = app.api(PAINTED, [t0, t1])
        tasks = [[at + run["t0"], ms] for at, ms in run["long"]]
        explained = explain({"frames": run["stamps"], "painted": painted, "events": [], "tasks": tasks})
    head = gaps[:first]
    long = [d for _, d in run["long"] if d > 50]
    early = [d for s, d in run["long"] if d > 50 and s < sum(head)]
    return {
        "rest_s": run["rest"] / 1000 if run["rest"] is not None else float("nan"),
        "frames": len(gaps),
        "p95": p95(gaps),
        "head_p95": p95(head),
        "long": len(long),
        "long_max": max(long, default=0.0),
        "head_long": len(early),
        "load_ms": run["load"],
        "explained": explained,
    }


def fmt(v: float, digits: int = 1) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def page_figures(
    browser,
    base: str,
    sizes: list[int],
    runs: int,
    limit: float,
    repeats: int,
    drags: int = 1,
    parts: str = "all",
    explaining: bool = False,
    dwell: float = 0.0,
    arcs: float = 2.0,
) -> dict:
    out: dict = {"load": {}, "drag": {}, "connect": {}, "arrange": {}, "rest": {}}

    def fresh():
        return open_app(browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"})

    for n in sizes:
        doc = giant_scc_document(n, arcs_per_node=arcs)
        loads, app = [], None
        for _ in range(runs):
            if app is not None:
                app.page.context.close()
            app = fresh()
            loads.append(load_run(app, doc, limit, explaining=explaining))
        out["load"][n] = loads
        assert app is not None
        out["rest"][n] = rest_run(app)
        if parts == "load":
            app.page.context.close()
            continue
        region = region_nodes(app)
        out["drag"][n] = drag_run(app, region, drags, dwell=dwell)
        out["drag"][n]["region"] = len(region)
        if parts == "drag":
            app.page.context.close()
            continue
        out["connect"][n] = connect_run(app, region, repeats)
        app.api("window.bendscope.action('fit-view')")
        out["arrange"][("mixed", n)] = arrange_run(app)
        app.page.context.close()
        app = fresh()
        app.api(LOAD, [json.dumps(region_document(n)), limit * 1000])
        out["arrange"][("region", n)] = arrange_run(app)
        app.page.context.close()
    return out


def live_figures(backends: list[str], seconds: float, cards: int, browser, while_opening: bool = False) -> list[dict]:
    import bench_live

    rows: list[dict] = []
    for backend in backends:
        rows += bench_live.bench(backend, seconds, browser, cards, rates=(100,), while_opening=while_opening)
    return rows


def report(figures: dict, live: list[dict], sizes: list[int]) -> None:
    print("\n| figure | " + " | ".join(f"{n:,} cards" for n in sizes) + " |")
    print("| --- |" + " ---: |" * len(sizes))

    def line(label: str, cell) -> None:
        print(f"| {label} | " + " | ".join(cell(n) for n in sizes) + " |")

    d, c, a, ld = figures["drag"], figures["connect"], figures["arrange"], figures["load"]
    line("loop region (cards)", lambda n: f"{d[n]['region']:,}")
    line("drags (pooled)", lambda n: str(d[n]["drags"]))
    line("drag at zoom ≈ 1: frame interval median / **p95** ms",
         lambda n: f"{fmt(d[n]['frame_median'])} / **{fmt(d[n]['frame_p95'])}** (zoom {d[n]['zoom']})")  # fmt: skip
    line("drag: input → next frame median / **p95** ms",
         lambda n: f"{fmt(d[n]['lag_median'])} / **{fmt(d[n]['lag_p95'])}**")  # fmt: skip
    line("drag: long tasks > 50 ms (max ms)", lambda n: f"{d[n]['long']} ({fmt(d[n]['long_max'], 0)})")
    line("baseline, hover moves: frame p95 / input → frame p95 ms",
         lambda n: f"{fmt(d[n]['hover_frame_p95'])} / {fmt(d[n]['hover_lag_p95'])}")  # fmt: skip
    line("Connect to…: submenu shown median / max ms (items)",
         lambda n: f"**{fmt(c[n]['median'], 0)}** / {fmt(c[n]['max'], 0)} ({c[n]['items']})")  # fmt: skip
    line("Connect to…: longest task ms", lambda n: f"**{fmt(c[n]['long_max'], 0)}**")
    for kind in ("region", "mixed"):
        line(f"Arrange, {kind}: aspect / area ratio",
             lambda n, k=kind: f"**{a[(k, n)]['aspect']:.2f}** / **{100 * a[(k, n)]['area']:.1f} %**")  # fmt: skip
        line(f"Arrange, {kind}: applied after s / longest task ms",
             lambda n, k=kind: f"{a[(k, n)]['ms'] / 1000:.2f} / **{fmt(a[(k, n)]['long_max'], 0)}**")  # fmt: skip

    def runs_of(n: int, key: str) -> list[float]:
        return [r[key] for r in ld[n]]

    line("load call → rest: frame p95 ms (median of runs; each run)",
         lambda n: f"**{fmt(median(runs_of(n, 'p95')))}** ({', '.join(map(fmt, runs_of(n, 'p95')))})")  # fmt: skip
    line("load: first 60 frames p95 ms (median of runs)", lambda n: fmt(median([r["head_p95"] for r in ld[n]])))
    line("load call → rest: long tasks > 50 ms (each run; max ms)",
         lambda n: ", ".join(f"**{r['long']}** ({fmt(r['long_max'], 0)})" for r in ld[n]))  # fmt: skip
    line("baseline, the page at rest (2 s): frame median / p95 ms",
         lambda n: f"{fmt(figures['rest'][n]['median'])} / {fmt(figures['rest'][n]['p95'])}")  # fmt: skip
    line("load call ms / rest s (median)",
         lambda n: f"{fmt(median(runs_of(n, 'load_ms')), 0)} / {fmt(median(runs_of(n, 'rest_s')), 2)}")  # fmt: skip
    report_live(live)


def report_live(live: list[dict], while_opening: bool = False) -> None:
    if live:
        print("\n| live, 100 writes/s | cards | writes (lost) | change → page p50 / **p95** / max ms | fetches | "
              "frame interval p50 / **p95** ms during the burst |")  # fmt: skip
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for r in live:
            print(f"| {r['backend']} | {r['cards']:,} | {r['writes']} ({r['missing']}) | {r['p50']:.0f} / "
                  f"**{r['p95']:.0f}** / {r['max']:.0f} | {r['fetches']} | {r['frame_p50']:.1f} / "
                  f"**{r['frame_p95']:.1f}** |")  # fmt: skip
        if while_opening:
            print("\n(the burst began as the page listened, while it opened the memory and laid it out)")
            return
        waits = ", ".join(f"{r['backend']} {r['opening_s']:.1f} s" for r in live)
        print(f"\n(the page opened the memory and its layout came to rest before the burst: {waits})")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="2000,3000", help="card counts")
    parser.add_argument("--runs", type=int, default=3, help="fresh pages per size for load → rest")
    parser.add_argument("--limit", type=float, default=90.0, help="seconds to wait for the layout to rest")
    parser.add_argument("--connects", type=int, default=5, help="cards Connect to… is opened on per size")
    parser.add_argument("--live", default="sqlite,postgresql", help="backends for the live burst ('' for none)")
    parser.add_argument("--live-cards", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of the live burst")
    parser.add_argument("--drags", type=int, default=3, help="drags per size (pooled)")
    parser.add_argument("--only-drag", action="store_true", help="only load and drag (the drag's figures)")
    parser.add_argument("--dwell", type=float, default=200.0, help="ms the pointer rests on a card before its press")
    parser.add_argument(
        "--arcs",
        type=float,
        default=2.0,
        help="edges per card of the mixed graph (2: its loop region holds 876 of 2,000 cards; 2.6: 1,363)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="with --only-drag, --only-load or --only-live: each drag's, page's or burst's long frames and why",
    )
    parser.add_argument("--only-load", action="store_true", help="only load → rest (the load's figures)")
    parser.add_argument("--only-arrange", action="store_true", help="only Arrange, on --arrange-shapes (--runs pages)")
    parser.add_argument("--arrange-shapes", default=",".join(ARRANGE_SHAPES), help="region, mixed and/or regions")
    parser.add_argument("--against", default="", help="with --only-arrange: another tree, its pages alternately")
    parser.add_argument("--only-live", action="store_true", help="only the live burst (--live, --live-cards)")
    parser.add_argument("--while-opening", action="store_true", help="the burst while the page opens the memory")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one run each (a smoke test)")
    parser.add_argument(
        "--shape", choices=sorted(SHAPES), default="mixed", help="dense: a loop region of ~70 %% of the cards"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.runs, args.limit, args.connects, args.drags = "150", 1, 30.0, 1, 1
        args.live, args.live_cards, args.seconds = "sqlite", 40, 0.3
    sizes = [int(s) for s in args.sizes.split(",") if s]
    random.seed(0)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print(f"chromium {CHROMIUM} {' '.join(CHROMIUM_ARGS)}; graph shape {args.shape}")
    server, base = start_in_thread(ROOT)
    servers = [server]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            parts = "drag" if args.only_drag else "load" if args.only_load else "all"
            figures: dict = {}
            if args.only_arrange:
                trees = [("this", base)]
                if args.against:
                    other, other_base = start_in_thread(Path(args.against).resolve())
                    servers.append(other)
                    trees.append(("against", other_base))
                kinds = [k for k in args.arrange_shapes.split(",") if k]
                figures = arrange_figures(browser, trees, sizes, args.runs, args.limit, kinds)
            elif not args.only_live:
                figures = page_figures(
                    browser,
                    base,
                    sizes,
                    args.runs,
                    args.limit,
                    args.connects,
                    args.drags,
                    parts,
                    args.explain,
                    args.dwell,
                    SHAPES[args.shape] if args.shape != "mixed" else args.arcs,
                )
            backends = [] if parts != "all" or args.only_arrange else [b for b in args.live.split(",") if b]
            live = live_figures(backends, args.seconds, args.live_cards, browser, args.while_opening)
            browser.close()
    finally:
        for running in servers:
            running.shutdown()
    if args.only_arrange:
        report_arrange(figures)
    elif args.only_drag:
        for n in sizes:
            d = figures["drag"][n]
            each = ", ".join(map(fmt, d["each_p95"]))
            print(f"drag {n:,} cards (loop region {d['region']:,}, dwell {args.dwell:.0f} ms): frame p95 "
                  f"{d['frame_p95']:.1f} ms (each drag {each}); input → frame p95 {d['lag_p95']:.1f} ms; long tasks "
                  f"{d['long']} (max {d['long_max']:.0f}); hovering the same moves: frame p95 "
                  f"{d['hover_frame_p95']:.1f} ms")  # fmt: skip
            print(f"  painted frames: {', '.join(f'{k} {v}' for k, v in sorted(d['painted'].items()))}; work per "
                  f"frame (layout step + paint) median {d['work_median']:.1f} / p95 {d['work_p95']:.1f} ms, Python "
                  f"scene work median {d['scene_median']:.2f} ms; the press's frame's work each drag "
                  f"{', '.join(map(fmt, d['press_work']))} ms")  # fmt: skip
            for k, lines in enumerate(d["explained"] if args.explain else []):
                print(f"  drag {k + 1}: " + ("\n    ".join(["", *lines]) if lines else "no frame over 20 ms"))
    elif args.only_load:
        for n in sizes:
            runs = figures["load"][n]
            print(f"load → rest {n:,} cards: frame p95 median {median([r['p95'] for r in runs]):.1f} ms (each "
                  f"{', '.join(fmt(r['p95']) for r in runs)}); first 60 frames p95 "
                  f"{median([r['head_p95'] for r in runs]):.1f}; long tasks > 50 ms each run "
                  f"{', '.join(str(r['long']) for r in runs)} (longest {max(r['long_max'] for r in runs):.0f} ms); "
                  f"load → in {median([r['load_ms'] for r in runs]):.0f} ms, rest "
                  f"{median([r['rest_s'] for r in runs]):.2f} s; the page at rest after: frame p95 "
                  f"{fmt(figures['rest'][n]['p95'])} ms")  # fmt: skip
            for k, r in enumerate(runs if args.explain else []):
                lines = r["explained"]
                print(f"  page {k + 1}: " + ("\n    ".join(["", *lines]) if lines else "no frame over 20 ms"))
    elif args.only_live:
        report_live(live, args.while_opening)
        for r in live if args.explain else []:
            brought = r["brought"]
            print(
                f"\n{r['backend']}: {len(brought)} fetches brought cards {sum(brought)} (per fetch median "
                f"{median([float(b) for b in brought]) if brought else 0:.0f}, max {max(brought, default=0)})"
            )
            print(f"  fetch asked → answered p50 {r['ask_p50']:.0f} ms, between fetches p50 {r['gap_p50']:.0f} ms, "
                  f"JSON read p50 {r['read_p50']:.1f} ms, merge p50 {r['merge_p50']:.1f} ms")  # fmt: skip
            c = r["change_frames"]
            if c["frames"]:
                print(
                    f"  {c['frames']} frames showed a change: median ms layout step {c['tick']:.1f}, scene "
                    f"{c['scene']:.1f}, paint {c['paint']:.1f} (scene included); merge {c['applied']:.1f}"
                )
            print("  cores busy during the writes: " + ", ".join(f"{k} {v:.2f}" for k, v in r["cpu"].items()))
            print("  " + ("\n  ".join(r["explained"]) if r["explained"] else "no frame over 20 ms"))
    else:
        report(figures, live, sizes)
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return {"figures": figures, "live": live}


if __name__ == "__main__":
    main()
