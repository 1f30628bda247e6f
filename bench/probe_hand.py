"""An independent probe of the hand's targets on graphs the benchmarks never try.

    python bench/probe_hand.py [--shapes ours,hubs,regions,dense,long,import,phone] [--size 2000]
                               [--check 12] [--json out.json] [--quick]

Written apart from ``bench_hand.py`` and ``bench_shapes.py`` (its own graphs, page scripts, card
choices and figures; only the test server, Chromium's settings and the guarded page of
``e2e/harness.py`` are shared). Headless Debian Chromium (``--disable-gpu``), Pyodide, motion
on, each page a fresh browser context; every figure is per page, never pooled. Everything is
measured from the moment the user acts:

* **load → rest**: from the load call (``window.bendscope.load``, then ``fit-view``) — or, for the
  *import* shape, from the ``change`` event of the real Import… chooser — to the first animation
  frame at which the layout is still; frame intervals from the probe's own
  ``requestAnimationFrame`` loop, long tasks > 50 ms from a ``longtask`` observer.
* **drag**: the view centred on the card by the find bar (Ctrl+F, its id, Enter, Esc), zoom 1
  (``0``); the pointer rests 250 ms, then 200 px in 20 real mouse moves (``page.mouse``, one
  every 16 ms), or on the *phone* shape (390×844, touch) a finger (CDP touch events). Frame
  intervals from the press to two frames after the release; input → next frame from each
  move's ``event.timeStamp``.
* **Connect to…**: the card clicked, ``c`` 300 ms later; keydown ``timeStamp`` → the first frame
  with the submenu's items in the DOM; the longest task meanwhile.
* **Arrange**: Shift+L; keydown → the frame the page's arranging ends; the result's aspect (long
  / short side of the cards' box) and the cards' total area over the box's; the longest task.

Work figures next to every interval figure (the machine may be shared): the main thread's CPU
(Chromium's ``Performance.getMetrics`` ``ThreadTime``), the page's own work per frame interval
(its ``frame_log`` — layout step and paint — and ``task_log``: κ, loading and layout slices,
collections) and how many intervals held more than 16 ms of it, the long tasks' total.

Correctness on every shape: κ as the page shows it — the HUD pill, the halos' badges (the
canvas's ``fillText`` calls of the last whole frame), the inspector of a region card — and the
page's topology equal the engine's κ computed in CPython (``bendscope.kappa.analyze``) on the
page's own export; the Connect-to previews (``κ: a→b — words``) equal a full recomputation
with the arc added; no console error, page error or request outside the origin
(``harness.Guard``). The machine's 1-minute load is printed before and after each page.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "py"))

from harness import CHROMIUM, CHROMIUM_ARGS, PHONE, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from probe_graphs import (  # noqa: E402
    bipartite_graph,
    chords_graph,
    degrees,
    dense_graph,
    graph_input,
    hubs_graph,
    long_graph,
    ours_graph,
    pairs_graph,
    regions_graph,
    stars_graph,
    strong_graph,
    texts_graph,
)

from bendscope.kappa import analyze  # noqa: E402

# --------------------------------------------------------------------------- figures


def pct(values: list[float], q: float) -> float:
    """Nearest-rank quantile.

    >>> pct([1.0, 2.0, 3.0, 4.0], 0.95), pct([], 0.5)
    (4.0, nan)
    """
    if not values:
        return float("nan")
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def spans(start: float, frames: list[float]) -> list[tuple[float, float]]:
    """Consecutive frame intervals from ``start``.

    >>> spans(0.0, [16.0, 40.0])
    [(0.0, 16.0), (16.0, 40.0)]
    """
    out, last = [], start
    for f in frames:
        out.append((last, f))
        last = f
    return out


def work_in(a: float, b: float, log: list[dict], own: list[list[Any]]) -> float:
    """The page's own logged work that began in [a, b): painted frames (layout step + paint) and tasks.

    >>> work_in(0, 20, [{"at": 1, "tick": 2, "paint": 10}], [[5, 7, "kappa"], [30, 9, "gc"]])
    19
    """
    return sum(f["tick"] + f["paint"] for f in log if a <= f["at"] < b) + sum(t[1] for t in own if a <= t[0] < b)


def summary(start: float, end: float, seen: dict) -> dict:
    """Intervals and work between ``start`` and ``end`` (page time)."""
    frames = [f for f in seen["frames"] if start < f <= end + 1e-6]
    ivs = spans(start, frames)
    lengths = [b - a for a, b in ivs]
    work = [work_in(a, b, seen["log"], seen["own"]) for a, b in ivs]
    longs = [d for s, d in seen["longs"] if s + d > start and s < end]
    kinds: dict[str, float] = {}
    for t in seen["own"]:
        if start <= t[0] < end:
            k = str(t[2]).split(" ")[0]
            kinds[k] = kinds.get(k, 0.0) + t[1]
    painted = [f for f in seen["log"] if start <= f["at"] < end]
    parts = {k: round(statistics.median([f[k] for f in painted]), 1) if painted else float("nan")
             for k in ("tick", "scene", "paint")}  # fmt: skip
    return {
        "painted": len(painted),
        "parts": parts,  # medians of the painted frames: worker positions taken in, Python scene, whole paint
        "layered": sum(1 for f in painted if f.get("patch") == "kept"),  # (only the moving part drawn)
        "ms": end - start,
        "frames": len(lengths),
        "median": statistics.median(lengths) if lengths else float("nan"),
        "p95": pct(lengths, 0.95),
        "max": max(lengths, default=float("nan")),
        "long": len(longs),
        "long_max": max(longs, default=0.0),
        "long_total": sum(longs),
        "busy16": sum(1 for w in work if w > 16),
        "work_p95": pct(work, 0.95),
        "work_max": max(work, default=0.0),
        "own_kinds": {k: round(v, 1) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:6]},
        "slow": [
            (round(a - start), round(b - a, 1), round(w, 1)) for (a, b), w in zip(ivs, work, strict=True) if b - a > 34
        ][:12],
    }


def lag(inputs: list[list[Any]], frames: list[float], types: tuple[str, ...]) -> list[float]:
    """Each input's ``timeStamp`` → the first frame callback after it.

    >>> lag([["pointermove", 5.0], ["pointermove", 17.0]], [0.0, 16.0, 33.0], ("pointermove",))
    [11.0, 16.0]
    """
    out = []
    for kind, stamp, *_ in inputs:
        if kind in types:
            later = [f for f in frames if f >= stamp]
            if later:
                out.append(later[0] - stamp)
    return out


# --------------------------------------------------------------------------- page scripts

#: the probe's own watch: rAF stamps, inputs (capturing), long tasks, κ texts drawn on the canvas
INSTALL = """() => {
  if (window.__probe) return;
  const P = window.__probe = {frames: [], inputs: [], longs: [], texts: [], on: false, menu: null, arr: null};
  new PerformanceObserver(l => { for (const e of l.getEntries()) P.longs.push([e.startTime, e.duration]); })
    .observe({type: 'longtask'});
  for (const t of ['pointerdown', 'pointermove', 'pointerup', 'touchstart', 'touchmove', 'touchend', 'keydown',
                   'change'])
    window.addEventListener(t, e => { if (P.on) P.inputs.push([t, e.timeStamp]); }, {capture: true, passive: true});
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    if (typeof text === 'string' && text.startsWith('κ')) {
      const m = this.getTransform(), x = rest[0], y = rest[1], r = window.devicePixelRatio || 1;
      P.texts.push([text, (m.a * x + m.c * y + m.e) / r, (m.b * x + m.d * y + m.f) / r, this.canvas.id]);
    }
    return fill.call(this, text, ...rest);
  };
  const step = () => {
    if (!P.on) return;
    const now = performance.now();
    P.frames.push(now);
    const b = window.bendscope;
    if (P.menu === 0 && document.querySelector("#menu-1 [role='menuitem']")) P.menu = now;
    if (P.arr !== null) {
      const st = b.layout_state();
      if (st.arranging) P.arr.seen = true;
      else if (P.arr.seen && P.arr.done === null) P.arr.done = now;
    }
    if (P.rest === 0 && !b.layout_active()) P.rest = now;
    if (P.kappa === 0 && !b.topology_state().pending) P.kappa = now;
    requestAnimationFrame(step);
  };
  P.start = () => {
    P.frames = []; P.inputs = []; P.longs = []; P.on = true; P.t0 = performance.now();
    requestAnimationFrame(step);
  };
}"""

START = "() => { window.__probe.start(); return window.__probe.t0; }"

STOP = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const P = window.__probe; P.on = false;
  return {frames: P.frames, inputs: P.inputs, longs: P.longs, t0: P.t0,
          log: JSON.parse(window.bendscope.frame_log()).filter(f => f.at >= P.t0),
          own: JSON.parse(window.bendscope.task_log()).filter(t => t[0] >= P.t0)};
}"""

#: the load call, then fit; wait (each frame) until the layout rests and κ is known
LOAD = """async ([text, limit]) => {
  const P = window.__probe, b = window.bendscope;
  P.rest = null; P.kappa = null; P.start();
  const t0 = performance.now();
  const error = await b.load(text);
  b.action('fit-view');
  const call = performance.now() - t0;
  P.rest = 0; P.kappa = 0;
  while ((P.rest === 0 || P.kappa === 0) && performance.now() - t0 < limit) await new Promise(r => setTimeout(r, 30));
  return {t0, call, error, rest: P.rest, kappa: P.kappa};
}"""

WAIT_REST = """async ([limit, cards]) => {
  const P = window.__probe, b = window.bendscope, t0 = performance.now();
  while (b.stats().nodes !== cards && performance.now() - t0 < limit) await new Promise(r => setTimeout(r, 10));
  P.rest = 0; P.kappa = 0;
  while ((P.rest === 0 || P.kappa === 0) && performance.now() - t0 < limit) await new Promise(r => setTimeout(r, 30));
  return {rest: P.rest, kappa: P.kappa};
}"""

QUIET = """async ([limit]) => {
  const b = window.bendscope, t0 = performance.now();
  while (performance.now() - t0 < limit && (b.layout_active() || b.topology_state().pending))
    await new Promise(r => setTimeout(r, 50));
  await new Promise(r => setTimeout(r, 300));
}"""


class Cpu:
    """The renderer main thread's CPU ms (``Performance.getMetrics``'s ``ThreadTime``)."""

    def __init__(self, page: Any) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def now(self) -> float:
        metrics = {m["name"]: m["value"] for m in self.cdp.send("Performance.getMetrics")["metrics"]}
        return metrics.get("ThreadTime", float("nan")) * 1000


def load1() -> float:
    return os.getloadavg()[0]


# --------------------------------------------------------------------------- gestures


def centre_on(app: Any, node: str) -> tuple[float, float]:
    """Zoom 1 (``0``), then the find bar: its id, Enter (the view centres on it), Escape."""
    page = app.page
    page.keyboard.press("Escape")
    page.keyboard.press("0")
    page.keyboard.press("Control+f")
    page.keyboard.type(node)
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    app.api(QUIET, [60_000])
    x, y = app.node_xy(node)
    return x, y


def drag(app: Any, cpu: Cpu, node: str, touch: bool = False) -> dict:
    page = app.page
    x, y = centre_on(app, node)
    dx, dy = (0.0, 200.0) if touch else (200.0, 0.0)
    if touch:
        cdp = page.context.new_cdp_session(page)

        def finger(kind: str, px: float, py: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": px, "y": py, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    else:
        page.mouse.move(x, y)
    time.sleep(0.25)
    before = json.loads(app.api("window.bendscope.export()"))
    c0 = cpu.now()
    app.api(START)
    if touch:
        finger("touchStart", x, y)
    else:
        page.mouse.down()
    for k in range(1, 21):
        time.sleep(0.016)
        px, py = x + dx * k / 20, y + dy * k / 20
        finger("touchMove", px, py) if touch else page.mouse.move(px, py)
    finger("touchEnd", 0, 0) if touch else page.mouse.up()
    seen = app.api(STOP)
    c1 = cpu.now()
    kinds = ("touchstart", "pointerdown") if touch else ("pointerdown",)
    press = next((s for k, s in seen["inputs"] if k in kinds), seen["t0"])
    ups = [s for k, s in seen["inputs"] if k in ("pointerup", "touchend")]
    end = seen["frames"][-1] if seen["frames"] else press
    out = summary(press, end, seen)
    moves = ("touchmove",) if touch else ("pointermove",)
    lags = lag(seen["inputs"], seen["frames"], moves)
    out.update(lag_p95=pct(lags, 0.95), lag_median=statistics.median(lags) if lags else float("nan"),
               cpu=c1 - c0, moves=len(lags), held=(ups[-1] - press) if ups else float("nan"))  # fmt: skip
    after = json.loads(app.api("window.bendscope.export()"))
    moved = _moved(before, after, node)
    out["moved_px"] = round(moved, 1)
    page.keyboard.press("Control+z")  # (the card back: the next drag starts from the same layout)
    app.api(QUIET, [60_000])
    return out


def _moved(before: dict, after: dict, node: str) -> float:
    def at(doc: dict) -> tuple[float, float]:
        nd = next(n for n in doc["planes"][0]["nodes"] if n["id"] == node)
        return nd["x"], nd["y"]

    (ax, ay), (bx, by) = at(before), at(after)
    return math.hypot(bx - ax, by - ay)


MENU_ITEMS = "() => [...document.querySelectorAll(\"#menu-1 [role='menuitem']\")].map(e => e.textContent)"


def connect(app: Any, cpu: Cpu, node: str) -> dict:
    page = app.page
    x, y = centre_on(app, node)
    page.mouse.click(x, y)
    time.sleep(0.3)
    c0 = cpu.now()
    app.api(START)
    app.api("() => { window.__probe.menu = 0; }")
    page.keyboard.press("c")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not app.api("() => window.__probe.menu"):
        time.sleep(0.02)
    shown = app.api("() => window.__probe.menu")
    seen = app.api(STOP)
    cpu_ms = cpu.now() - c0
    items = app.api(MENU_ITEMS)
    export = json.loads(app.api("window.bendscope.export()"))
    key = next((s for k, s in seen["inputs"] if k == "keydown"), None)
    out = {"ms": float("nan"), "long_max": float("nan"), "items": items, "cpu": cpu_ms, "export": export}
    if key is not None and shown:
        longs = [d for s, d in seen["longs"] if s + d > key and s < shown]
        out.update(ms=shown - key, long_max=max(longs, default=0.0))
    # the edit itself (a real click on the item that changes κ most), then Undo: κ shown against CPython each time
    order = ("strengthens loop", "merges feedback loops", "enlarges loop", "creates feedback loop")
    chosen = min((k for k, t in enumerate(items) if any(w in t for w in order) and not t.startswith("✓")),
                 key=lambda k: next(i for i, w in enumerate(order) if w in items[k]), default=None)  # fmt: skip
    if chosen is None:
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        return out
    out["edit"] = items[chosen]
    page.locator("#menu-1 [role='menuitem']").nth(chosen).click()
    app.api(QUIET, [60_000])
    out["after_edit"] = kappa_checks(app, node)["problems"]
    page.keyboard.press("Escape")
    page.keyboard.press("Control+z")
    app.api(QUIET, [60_000])
    out["after_undo"] = kappa_checks(app, node)["problems"]
    return out


def arrange(app: Any, cpu: Cpu) -> dict:
    page = app.page
    page.keyboard.press("Escape")
    c0 = cpu.now()
    app.api(START)
    app.api("() => { window.__probe.arr = {seen: false, done: null}; }")
    page.keyboard.press("Shift+L")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and app.api("() => window.__probe.arr.done") is None:
        time.sleep(0.05)
    done = app.api("() => window.__probe.arr.done")
    seen = app.api(STOP)
    cpu_ms = cpu.now() - c0
    app.api("() => { window.__probe.arr = null; }")
    key = next((s for k, s in seen["inputs"] if k == "keydown"), seen["t0"])
    out = summary(key, done or seen["frames"][-1], seen) if seen["frames"] else {}
    out["done"] = done is not None
    out["cpu"] = cpu_ms
    boxes = app.api("() => { const d = JSON.parse(window.bendscope.export()).planes[0].nodes;"
                    " return d.map(n => window.bendscope.world_box(n.id)); }")  # fmt: skip
    left = min(b[0] for b in boxes)
    top = min(b[1] for b in boxes)
    right = max(b[0] + b[2] for b in boxes)
    bottom = max(b[1] + b[3] for b in boxes)
    w, h = right - left, bottom - top
    out["aspect"] = max(w, h) / max(1e-9, min(w, h))
    out["area"] = sum(b[2] * b[3] for b in boxes) / max(1e-9, w * h)
    out["box"] = (round(w), round(h))
    page.keyboard.press("f")
    time.sleep(0.3)
    out["fit_zoom"] = app.pill("zoom")
    return out


# --------------------------------------------------------------------------- correctness

#: κ as the page writes it: ``2``, or past the exact bound a range of bounds ``1–3``
KAPPA = r"(\d+)(?:–(\d+))?"


def holds(text: str, kappa: int) -> bool:
    """Whether κ written as ``text`` (``2`` or ``1–3``) is, or bounds, the engine's ``kappa``."""
    m = re.fullmatch(KAPPA, text)
    return m is not None and int(m.group(1)) <= kappa <= int(m.group(2) or m.group(1))


PREVIEW = re.compile(r"→ (k\d{4})\S*.*\(κ: ([0-9–]+)→([0-9–]+) — ([^)]*)\)")
#: an arc that merges loops: "→ k0012 … (merges 2 loop regions, of κ 1 each, into one of κ 1)"
MERGE = re.compile(r"→ (k\d{4})\S*.*\(merges (\d+) loop regions, .*, into one of κ ([0-9–]+)\)")


def kappa_checks(app: Any, node: str | None) -> dict:
    """κ shown (HUD, badges, inspector, the page's topology) against CPython's engine on the
    page's own export. Returns the mismatches (empty: all equal) and what was compared."""
    export = json.loads(app.api("window.bendscope.export()"))
    truth = analyze(*graph_input(export))
    page_topo = json.loads(app.api("window.bendscope.topology()"))
    problems: list[str] = []

    def canon(t: dict) -> list[tuple]:
        return sorted((tuple(sorted(s["nodes"])), s["kappa"], bool(s.get("approximate"))) for s in t["sccs"])

    if canon(truth) != canon(page_topo):
        problems.append(f"topology differs: page max κ {page_topo['max_kappa']}, CPython {truth['max_kappa']}")
    hud = app.pill("kappa")
    if not hud.strip().startswith("κ: ") or not holds(hud.strip()[3:], truth["max_kappa"]):
        problems.append(f"HUD {hud!r}, CPython max κ {truth['max_kappa']}")
    app.api("() => { window.__probe.texts = []; window.bendscope.paint(); }")
    drawn = [t for t in app.api("() => window.__probe.texts") if re.fullmatch("κ=" + KAPPA, t[0])]
    values = sorted({t[0][2:] for t in drawn}, key=lambda v: [int(b) for b in v.split("–")])
    problems += badge_problems(app, truth, drawn)
    inspector = None
    if node is not None:
        app.api("id => window.bendscope.select(id)", node)
        time.sleep(0.2)
        inspector = app.page.locator("#inspector").inner_text()
        scc = next((s for s in truth["sccs"] if node in s["nodes"]), None)
        m = re.search(r"κ = (\d+)", inspector)
        said = int(m.group(1)) if m else None
        if (scc["kappa"] if scc else None) != said:
            problems.append(f"inspector says κ {said} for {node}, CPython {scc['kappa'] if scc else None}")
        app.page.keyboard.press("Escape")
    return {"problems": problems, "badges": len(drawn), "badge_values": values, "hud": hud,
            "max_kappa": truth["max_kappa"], "regions": len(truth["sccs"]),
            "biggest": max((len(s["nodes"]) for s in truth["sccs"]), default=0), "inspector": inspector}  # fmt: skip


#: each region's members' boxes on the screen (left, top, width, height)
BOXES = "groups => groups.map(ids => ids.map(id => window.bendscope.card_box(id)))"


def badge_problems(app: Any, truth: dict, drawn: list[list[Any]]) -> list[str]:
    """Each badge drawn (its text and spot on the screen) against the κ of the region it is
    drawn for: the region whose top member's top-right corner is nearest (the painter puts a
    region's badge there). Every region with κ > 0 whose top member is on the screen has one."""
    regions = [s for s in truth["sccs"] if s["kappa"] > 0]
    boxes = app.api(BOXES, [s["nodes"] for s in regions])
    width, height = app.page.viewport_size["width"], app.page.viewport_size["height"]
    corners = []
    for scc, members in zip(regions, boxes, strict=True):
        top = min(members, key=lambda b: (round(b[1], 1), -b[0]))
        corners.append((top[0] + top[2], top[1], scc))
    problems = []
    for text, x, y, _canvas in drawn:
        near = min(corners, key=lambda c: math.hypot(c[0] - x, c[1] - y))
        if not holds(text[2:], near[2]["kappa"]):
            problems.append(f"badge {text} at ({x:.0f}, {y:.0f}) on a region of κ {near[2]['kappa']}")
    shown = sum(1 for x, y, _ in corners if 0 <= x <= width and 0 <= y <= height)
    if len(drawn) < shown - 2 or len(drawn) > len(corners):  # (a badge's own spot may lie just off the screen)
        spots = [(t[0], round(t[1]), round(t[2]), t[3] or "(layer)") for t in drawn]
        problems.append(f"{len(drawn)} badges drawn for {len(corners)} regions, {shown} of them on the screen: {spots}")
    return problems


def preview_checks(export: dict, source: str, items: list[str], limit: int) -> dict:
    """Each previewed ``source → target`` (causal, the default kind) against κ computed afresh
    with that arc added (CPython). Up to ``limit`` items."""
    nodes, edges = graph_input(export)
    base = analyze(nodes, edges)
    where = {n: s for s in base["sccs"] for n in s["nodes"]}
    problems, checked = [], 0
    for item in items:
        if checked >= limit:
            continue
        if (merge := MERGE.search(item)) is not None:
            target, count, after = merge.group(1), int(merge.group(2)), merge.group(3)
            checked += 1
            new = analyze(nodes, [*edges, {"source": source, "target": target, "kind": "causal"}])
            scc = next((s for s in new["sccs"] if source in s["nodes"] and target in s["nodes"]), None)
            loops = {where[n]["id"] for n in scc["nodes"] if n in where and where[n]["kappa"] > 0} if scc else set()
            if scc is None or len(loops) != count or ("–" not in after and int(after) != scc["kappa"]):
                said = f"merges {count} into κ {after}"
                problems.append(
                    f"{source}→{target}: says {said!r}, recomputed {len(loops)} loops → {scc and scc['kappa']}"
                )
            continue
        m = PREVIEW.search(item)
        if m is None:
            continue
        target, before, after, words = m.group(1), m.group(2), m.group(3), m.group(4)
        if "–" in before or "–" in after:
            continue  # (bounds: past the engine's work budget)
        checked += 1
        new = analyze(nodes, [*edges, {"source": source, "target": target, "kind": "causal"}])
        scc = next((s for s in new["sccs"] if source in s["nodes"] and target in s["nodes"]), None)
        old = where.get(source)
        if scc is not None:
            if int(after) != scc["kappa"]:
                problems.append(f"{source}→{target}: shown after {after}, recomputed {scc['kappa']}")
            same = old is not None and old is where.get(target)
            if same and int(before) != old["kappa"]:
                problems.append(f"{source}→{target}: shown before {before}, was {old['kappa']}")
            rose = same and scc["kappa"] > old["kappa"]
            if rose != (words == "strengthens loop"):
                problems.append(f"{source}→{target}: says {words!r}, κ {old['kappa'] if old else 0}→{scc['kappa']}")
        elif words != "no change" or before != after:
            problems.append(f"{source}→{target}: says {words!r} ({before}→{after}), the arc closes no loop")
    return {"checked": checked, "problems": problems}


# --------------------------------------------------------------------------- a page


def pick(truth_sccs: list[dict], doc: dict) -> dict:
    """The cards to act on: a card of the biggest region (median degree in it) and the card with the most edges."""
    deg = degrees(doc)
    biggest = max(truth_sccs, key=lambda s: len(s["nodes"]))["nodes"] if truth_sccs else [doc["nodes"][0]["id"]]
    inside = sorted(biggest, key=lambda n: (deg.get(n, 0), n))
    hub = max(deg, key=lambda n: (deg[n], n))
    return {"region": inside[len(inside) // 2], "hub": hub, "hub_degree": deg[hub], "region_size": len(biggest)}


def run_page(browser: Any, base: str, label: str, doc: dict, mode: str, args: argparse.Namespace) -> dict:
    phone = mode == "phone"
    ctx = {"reduced_motion": "no-preference", **(PHONE if phone else {})}
    app = open_app(browser, base, "seed=1&fresh=1", context_args=ctx)
    out: dict = {"label": label, "cards": len(doc["nodes"]), "edges": len(doc["edges"]), "load1_before": load1()}
    try:
        cpu = Cpu(app.page)
        app.api(INSTALL)
        text = json.dumps(doc)
        c0 = cpu.now()
        if mode == "import":
            app.api(START)
            app.api("() => { window.__probe.rest = null; window.__probe.kappa = null; }")
            with app.page.expect_file_chooser() as chooser:
                app.page.click("#btn-import")
            chosen = {"name": f"{label}.json", "mimeType": "application/json", "buffer": text.encode()}
            chooser.value.set_files([chosen])
            r = app.api(WAIT_REST, [args.limit * 1000, len(doc["nodes"])])
            seen = app.api(STOP)
            t0 = next((s for k, s in seen["inputs"] if k == "change"), seen["t0"])
            r["t0"], r["call"], r["error"] = t0, float("nan"), None
        else:
            r = app.api(LOAD, [text, args.limit * 1000])
            seen = app.api(STOP)
        cpu_load = cpu.now() - c0
        rest = r["rest"] or float("nan")
        load = summary(r["t0"], rest if r["rest"] else seen["frames"][-1], seen)
        load.update(rest_s=(rest - r["t0"]) / 1000, kappa_s=((r["kappa"] or math.nan) - r["t0"]) / 1000,
                    call=r["call"], error=r["error"], cpu=cpu_load)  # fmt: skip
        out["load"] = load
        app.api(QUIET, [args.limit * 1000])
        export = json.loads(app.api("window.bendscope.export()"))
        truth = analyze(*graph_input(export))
        cards = pick(truth["sccs"], doc)
        out["cards_picked"] = cards
        out["kappa"] = kappa_checks(app, cards["region"])
        if mode in ("full", "phone") and "drag" in args.gestures:
            out["drags"] = {"region": drag(app, cpu, cards["region"], touch=phone)}
            if cards["hub_degree"] >= 100 and not phone:
                out["drags"]["hub"] = drag(app, cpu, cards["hub"])
        if mode == "full" and "connect" in args.gestures:
            out["connect"] = []
            for node in dict.fromkeys([cards["region"], cards["hub"]]):
                c = connect(app, cpu, node)
                c["check"] = preview_checks(c.pop("export"), node, c["items"], args.check)
                c["said"] = dict(Counter(
                    "merges loops" if MERGE.search(t) else m.group(4) if (m := PREVIEW.search(t)) else "other"
                    for t in c["items"]
                ))  # fmt: skip
                c["items"] = len(c["items"])
                out["connect"].append(c)
        if mode == "full" and "arrange" in args.gestures:
            app.api(QUIET, [args.limit * 1000])
            out["arrange"] = arrange(app, cpu)
            app.api(QUIET, [args.limit * 1000])
            out["kappa_after_arrange"] = kappa_checks(app, None)["problems"]
        out["guard"] = {"foreign": app.guard.foreign, "console_errors": app.guard.console_errors[:5],
                        "page_errors": app.guard.page_errors[:5]}  # fmt: skip
    finally:
        out["load1_after"] = load1()
        app.page.context.close()
    return out


# --------------------------------------------------------------------------- report


def f(v: Any, d: int = 1) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def report(r: dict, baseline: dict | None) -> None:
    print(f"\n### {r['label']}: {r['cards']:,} cards, {r['edges']:,} edges (1-min load {r['load1_before']:.1f} → "
          f"{r['load1_after']:.1f})")  # fmt: skip
    pk = r.get("cards_picked", {})
    print(f"- biggest region {pk.get('region_size')} cards; most edges on a card {pk.get('hub_degree')}")
    ld = r.get("load")
    if ld:
        ratio = ""
        if baseline and baseline.get("load"):
            b = baseline["load"]
            ratio = (f" — against {baseline['label']} in this run: p95 ×{ld['p95'] / b['p95']:.2f}, CPU "
                     f"×{ld['cpu'] / b['cpu']:.2f}")  # fmt: skip
        print(f"- load → rest: {f(ld['rest_s'], 2)} s (κ known {f(ld['kappa_s'], 2)} s), frame median / p95 / max "
              f"{f(ld['median'])} / **{f(ld['p95'])}** / {f(ld['max'])} ms over {ld['frames']} frames; long tasks "
              f"{ld['long']} (max {f(ld['long_max'], 0)}, total {f(ld['long_total'], 0)}); main-thread CPU "
              f"{f(ld['cpu'], 0)} ms; frames with > 16 ms own work {ld['busy16']} (max {f(ld['work_max'], 0)}); "
              f"own work by kind {ld['own_kinds']}; load call {f(ld['call'], 0)} ms{ratio}")  # fmt: skip
        if ld["slow"]:
            print(f"  slow intervals (at ms, length, own work): {ld['slow']}")
    for name, d in r.get("drags", {}).items():
        print(f"- drag {name}: frame median / p95 / max {f(d['median'])} / **{f(d['p95'])}** / {f(d['max'])} ms "
              f"({d['frames']} frames, held {f(d['held'], 0)} ms); input → next frame median / p95 "
              f"{f(d['lag_median'])} / **{f(d['lag_p95'])}** ms ({d['moves']} moves); long tasks {d['long']} "
              f"(max {f(d['long_max'], 0)}); CPU {f(d['cpu'], 0)} ms; frames > 16 ms own work {d['busy16']} "
              f"(p95 {f(d['work_p95'])}, max {f(d['work_max'], 0)}); moved {d['moved_px']} px; "
              f"own {d['own_kinds']}")  # fmt: skip
        print(f"  painted frames {d['painted']} (over the kept layer {d['layered']}), medians ms {d['parts']}")
        if d["slow"]:
            print(f"  slow intervals: {d['slow']}")
    for c in r.get("connect", []):
        print(f"- Connect to…: submenu shown **{f(c['ms'], 0)}** ms, longest task {f(c['long_max'], 0)} ms, CPU "
              f"{f(c['cpu'], 0)} ms, {c['items']} items; previews checked {c['check']['checked']}, wrong "
              f"{len(c['check']['problems'])} {c['check']['problems'][:3]}; said {c['said']}")  # fmt: skip
        if "edit" in c:
            print(f"  chosen {c['edit']!r}: κ shown after it {c['after_edit'] or 'right'}, after Undo "
                  f"{c['after_undo'] or 'right'}")  # fmt: skip
    a = r.get("arrange")
    if a:
        print(f"- Arrange: aspect **{f(a.get('aspect'), 2)}**, area **{100 * a.get('area', 0):.1f} %**, box "
              f"{a.get('box')}, done {a.get('done')} after {f(a.get('ms'), 0)} ms, longest task "
              f"{f(a.get('long_max'), 0)} ms ({a.get('long')} > 50), CPU {f(a.get('cpu'), 0)} ms, Fit → "
              f"{a.get('fit_zoom')}")  # fmt: skip
    k = r.get("kappa")
    if k:
        print(
            f"- κ: max {k['max_kappa']}, {k['regions']} regions; HUD {k['hud']!r}; {k['badges']} badges drawn "
            f"{k['badge_values']}; mismatches {k['problems'] or 'none'}"
            f"{'; after Arrange ' + str(r['kappa_after_arrange']) if r.get('kappa_after_arrange') else ''}"
        )
    g = r.get("guard", {})
    print(f"- console errors {g.get('console_errors')}, page errors {g.get('page_errors')}, foreign requests "
          f"{g.get('foreign')}")  # fmt: skip


SHAPES = """shapes (--shapes, in order; each a fresh page):
  ours     bench_hand's mixed graph (giant_scc_document): the baseline every shape is compared with
  hubs     preferential attachment, hubs of 200+ edges (the hub dragged too)
  regions  size/50 loop regions of 50 cards, κ 1–3, joined by forward arcs
  dense    1.5×size cards, 3 arcs a card (with ours at that size)
  long     texts of 60–120 characters at size/2 and size (with ours at size/2, load only)
  strong   one region of every card, κ 3
  import   the regions graph through the real Import… chooser (load → rest and κ only)
  phone    390×844, touch, 2× pixels: ours and regions, a finger's drag
  chords   one directed cycle through every card plus size/20 chords (one region, κ 1)
  stars    a star of 40 stars, every arc both ways (one region, κ 1; a centre of 80 arcs)
  bipartite  two halves, every arc between them: 2 alternating cycles plus an arc a card (κ 2)
  texts    the dense arcs with long unbroken texts, emoji, right-to-left and mixed scripts, markup
  pairs    1.5×size cards as two-way pairs joined by forward arcs (0.75×size regions of κ 1)"""


def plan(args: argparse.Namespace) -> list[tuple[str, dict, str]]:
    n = args.size
    s = 200 if args.quick else n
    table = {
        "ours": [(f"ours {s}", lambda: ours_graph(s), "full")],
        "hubs": [(f"hubs {s}", lambda: hubs_graph(s), "full")],
        "regions": [(f"regions {s // 50}×50", lambda: regions_graph(s), "full")],
        "dense": [(f"ours {3 * s // 2}", lambda: ours_graph(3 * s // 2), "full"),
                  (f"dense {3 * s // 2}", lambda: dense_graph(3 * s // 2), "full")],
        "long": [(f"ours {s // 2}", lambda: ours_graph(s // 2), "load"),
                 (f"long {s // 2}", lambda: long_graph(s // 2), "full"), (f"long {s}", lambda: long_graph(s), "full")],
        "strong": [(f"strong {s}", lambda: strong_graph(s), "full")],
        "import": [(f"import regions {s}", lambda: regions_graph(s), "import")],
        "phone": [(f"phone ours {s}", lambda: ours_graph(s), "phone"),
                  (f"phone regions {s}", lambda: regions_graph(s), "phone")],
        "chords": [(f"chords {s}", lambda: chords_graph(s), "full")],
        "stars": [(f"stars {s}", lambda: stars_graph(s), "full")],
        "bipartite": [(f"bipartite {s}", lambda: bipartite_graph(s), "full")],
        "texts": [(f"texts {s}", lambda: texts_graph(s), "full")],
        "pairs": [(f"pairs {3 * s // 2}", lambda: pairs_graph(3 * s // 2), "full")],
    }  # fmt: skip
    out = []
    for shape in args.shapes.split(","):
        out += [(label, make(), mode) for label, make, mode in table[shape]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=SHAPES)  # fmt: skip
    parser.add_argument("--shapes", default="ours,hubs,regions,dense,long,strong,import,phone,ours")
    parser.add_argument("--size", type=int, default=2000, help="cards of the main shapes (dense: 1.5×)")
    parser.add_argument("--check", type=int, default=12, help="Connect-to previews recomputed in CPython per menu")
    parser.add_argument("--limit", type=int, default=120, help="seconds a page may take to rest")
    parser.add_argument(
        "--gestures",
        default="drag,connect,arrange",
        help="what to do after load → rest and the κ checks (drag, connect, arrange)",
    )
    parser.add_argument("--json", default="", help="write every figure to this file")
    parser.add_argument("--quick", action="store_true", help="200 cards, a smoke test")
    args = parser.parse_args(argv)
    print(f"machine load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    server, base = start_in_thread(ROOT)
    results: list[dict] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for label, doc, mode in plan(args):
                r = run_page(browser, base, label, doc, mode, args)
                results.append(r)
                size = r["cards"]
                base_run = next((b for b in results if b["label"].startswith("ours") and b["cards"] == size
                                 and b is not r), None)  # fmt: skip
                report(r, base_run)
                sys.stdout.flush()
                if args.json:
                    Path(args.json).write_text(json.dumps(results, indent=1, default=str))
            browser.close()
    finally:
        server.shutdown()
    print(f"\nmachine load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
