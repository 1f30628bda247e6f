"""Large graphs in the browser, measured as a user feels them.

    python bench/bench_large.py [--sizes 1000,3000,10000] [--quick]

Headless Chromium (Debian's, ``--disable-gpu``: a software rasteriser), Pyodide 314, a
1280×800 page. For each graph: load it without positions (as Import… does: the view is
fitted right after), let the layout run to rest, and record meanwhile

* the interval between animation frames as the page's own ``requestAnimationFrame`` loop
  sees them (what the user sees; 16.7 ms = 60 fps), median and p95, with motion on (pulses
  animate) and with ``prefers-reduced-motion``;
* long animation frames (``long-animation-frame`` entries, > 50 ms, which include style,
  layout, paint and the canvas's raster) and long tasks (> 50 ms) — counted from the load
  call on;
* the time from the load call to rest, and the pairs of cards still overlapping at rest;
* the page's own paint time per frame (the paint script only: the secondary column).

Graphs: "giant" — a random spanning tree of causal edges plus random arcs up to 2n, kinds
drawn from causal, causal, temporal, associative, context (one giant strongly connected
component: bench.graphs.giant_scc_document) — and "editor" — today's clustered editor-like
graphs with small SCCs. Baseline in the same run: the same kernel on the main thread
(``?layout=d3``). Then, per giant graph at rest: the paint cost split (Python scene work,
canvas calls, raster), a 30 px drag (how far nodes more than two hops away move), topology
after a structural edit, the Connect-to submenu, and the Loops panel opened (its search runs
in slices between frames: frame intervals while it runs). Medians and p95; never pass/fail.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests" / "support"))  # (demo_docs shares the spec's examples with tests/)
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_browser import TIMING, editor_graph  # noqa: E402
from demo_docs import dense_document  # noqa: E402
from graphs import giant_scc_document  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

#: load the document as Import… does (load, then fit the view), then follow every animation
#: frame until the layout rests; long tasks and long animation frames observed from the load on
RUN = """async ([text, limitMs]) => {
  const long = [], loaf = [];
  const tasks = new PerformanceObserver(l => {
    for (const e of l.getEntries()) long.push({start: e.startTime, duration: e.duration});
  });
  tasks.observe({type: 'longtask'});
  const frames = new PerformanceObserver(l => {
    for (const e of l.getEntries()) {
      loaf.push({start: e.startTime, duration: e.duration, render: e.startTime + e.duration - e.renderStart});
    }
  });
  frames.observe({type: 'long-animation-frame'});
  const b = window.bendscope;
  const paintsBefore = b.frame_times().length;
  const t0 = performance.now();
  const loading = b.load(text);  // (a promise when the document comes in between frames)
  b.action('fit-view');
  const loaded = performance.now();
  const stamps = [];
  const result = await new Promise(resolve => {
    function frame(ts) {
      stamps.push(ts);
      const now = performance.now();
      // (a cheap call each frame: the loop must not add to what it measures)
      if (!b.layout_active()) resolve({rest: now - t0, state: b.layout_state()});
      else if (now - t0 > limitMs) resolve({rest: null, state: b.layout_state()});
      else requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  });
  await new Promise(r => setTimeout(r, 300));  // the last entries arrive
  tasks.disconnect(); frames.disconnect();
  const error = await loading;
  return {error, load: loaded - t0, loaded, stamps, long, loaf, paints: b.frame_times().slice(paintsBefore),
          parts: b.frame_parts().slice(paintsBefore), ...result};
}"""


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def document(kind: str, n: int) -> dict:
    if kind == "giant":
        return giant_scc_document(n)
    doc = editor_graph(n, edges_per_node=2.0)
    for node in doc["nodes"]:
        del node["x"], node["y"]
    return doc


def layout_run(app, doc: dict, limit_s: float) -> dict:
    run = app.api(RUN, [json.dumps(doc), limit_s * 1000])
    assert run["error"] is None, run["error"]
    gaps = [b - a for a, b in itertools.pairwise(run["stamps"])]
    return {
        "gaps": gaps,
        "paints": run["paints"],
        "parts": run["parts"],
        "rest_s": run["rest"] / 1000 if run["rest"] is not None else float("nan"),
        "overlaps": run["state"]["overlaps"],
        # after the load call returned (the call itself is the load column)
        "long": [t["duration"] for t in run["long"] if t["start"] >= run["loaded"]],
        "loaf": [f for f in run["loaf"] if f["start"] >= run["loaded"]],
        "load_ms": run["load"],
    }


def pooled(runs: list[dict]) -> dict:
    gaps = [g for r in runs for g in r["gaps"]]
    paints = [p for r in runs for p in r["paints"]]
    long = [t for r in runs for t in r["long"]]
    loaf = [f["duration"] for r in runs for f in r["loaf"]]
    return {
        "runs": len(runs),
        "frames": len(gaps),
        "gap_median": median(gaps),
        "gap_p95": p95(gaps),
        "paint_median": median(paints),
        "paint_p95": p95(paints),
        "rest_s": median([r["rest_s"] for r in runs]),
        "overlaps": max(r["overlaps"] for r in runs),
        "long": sum(1 for t in long if t > 50) / len(runs),
        "long_max": max(long, default=0.0),
        "loaf": sum(1 for d in loaf if d > 50) / len(runs),
        "loaf_max": max(loaf, default=0.0),
        "load_ms": median([r["load_ms"] for r in runs]),
    }


def rest_text(seconds: float) -> str:
    """A time to rest, or that the layout did not rest within the limit (nan)."""
    return "not within the limit" if math.isnan(seconds) else f"{seconds:.2f}"


def row(label: str, n: int, layout: str, motion: str, p: dict) -> str:
    return (
        f"| {label} | {n:,} | {layout} | {motion} | {p['runs']} / {p['frames']} | "
        f"{p['gap_median']:.1f} / **{p['gap_p95']:.1f}** | {rest_text(p['rest_s'])} | "
        f"{p['overlaps'] if p['overlaps'] >= 0 else 'not at rest'} | "
        f"{p['long']:.0f} (max {p['long_max']:.0f}) | {p['loaf']:.0f} (max {p['loaf_max']:.0f}) | "
        f"{p['paint_median']:.1f} / {p['paint_p95']:.1f} | {p['load_ms']:.0f} |"
    )


SPLIT = """(n) => window.bendscope.profile_paint(n)"""


def split_run(app) -> dict:
    """At rest, the view fitted: medians of the paint split, and the raster of each layer alone
    (drawn with every other layer left out, less the raster of the background and grid alone)."""
    app.api("window.bendscope.action('fit-view')")
    whole = app.api(SPLIT, 9)
    every = ("halos", "edges", "arrows", "labels", "cards")
    app.api(f"window.__skip = {json.dumps(dict.fromkeys(every, 1))}")
    base = app.api(SPLIT, 9)["raster"]
    layers = {}
    for layer in ("halos", "edges", "cards"):
        app.api(f"window.__skip = {json.dumps({k: 1 for k in every if k != layer})}")
        layers[layer] = max(0.0, app.api(SPLIT, 9)["raster"] - base)
    app.api("window.__skip = null")
    return {**whole, "layers": layers, "zoom": app.stats()["zoom"]}


def hops_from(doc: dict, start: str) -> dict[str, int]:
    around: dict[str, list[str]] = {n["id"]: [] for n in doc["nodes"]}
    for e in doc["edges"]:
        around[e["source"]].append(e["target"])
        around[e["target"]].append(e["source"])
    seen, queue = {start: 0}, [start]
    for here in queue:
        for there in around[here]:
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


WAIT_REST = """async (limitMs) => {
  const t0 = performance.now();
  return await new Promise(resolve => {
    function check() {
      const s = window.bendscope.layout_state();
      if (!s.active || performance.now() - t0 > limitMs) resolve(performance.now() - t0);
      else setTimeout(check, 20);
    }
    check();
  });
}"""


def positions(app) -> dict[str, tuple[float, float]]:
    plane = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    return {n["id"]: (n["x"], n["y"]) for n in plane["nodes"]}


def drag_run(app, doc: dict) -> dict:
    """A 30 px drag (real mouse events) of the card nearest the middle of the view at zoom 1:
    how far the nodes more than two hops away moved once the layout rested again."""
    app.api("window.bendscope.action('zoom-reset')")
    before = positions(app)
    cam = json.loads(app.api("window.bendscope.export()"))["planes"][0]["camera"]
    target = min(before, key=lambda n: math.hypot(before[n][0] - cam["x"], before[n][1] - cam["y"]))
    x, y = app.node_xy(target)
    page = app.page
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 7):
        page.mouse.move(x + 5 * k, y)
    page.mouse.up()
    rest = app.api(WAIT_REST, 60_000)
    after = positions(app)
    hops = hops_from(doc, target)
    far = [math.dist(before[n], after[n]) for n in before if hops.get(n, 99) > 2]
    # far cards move only to make way (they are soft-held) for a card that moved, all of which are within two
    # hops (though hops are not distances: in a giant loop they may be anywhere): how far each is from the nearest
    movers = [after[n] for n in before if hops.get(n, 99) <= 2 and after[n] != before[n]]
    reach = [
        min((math.dist(after[n], m) for m in movers), default=math.inf)
        for n in before
        if hops.get(n, 99) > 2 and after[n] != before[n]
    ]
    return {
        "far": len(far),
        "far_moved": sum(1 for d in far if d > 0),
        "far_reach": max(reach, default=0.0),
        "far_max": max(far, default=0.0),
        "far_median": median(far),
        "rest_ms": rest,
    }


ARRANGE = """async (limitMs) => {
  const b = window.bendscope, t0 = performance.now();
  b.action('arrange-lr');
  await new Promise(r => setTimeout(r, 10));
  while (b.layout_state().arranging && performance.now() - t0 < limitMs) await new Promise(r => setTimeout(r, 20));
  return performance.now() - t0;
}"""


def arrange_run(app) -> dict:
    """Arrange left to right (the worker runs dagre): the time until the cards are pinned in
    layers, and the pairs of cards overlapping then."""
    app.api(OVERLAPS_OBSERVE)
    ms = app.api(ARRANGE, 600_000)
    plane = json.loads(app.api("window.bendscope.export()"))["planes"][0]
    boxes = [(n["x"] - n["width"] / 2, n["y"] - n["height"] / 2, n["x"] + n["width"] / 2, n["y"] + n["height"] / 2)
             for n in plane["nodes"]]  # fmt: skip
    pinned = sum(1 for n in plane["nodes"] if n["pinned"])
    long = app.api("window.__long")
    return {"ms": ms, "overlaps": overlapping_pairs(boxes), "pinned": pinned, "long": max(long, default=0.0)}


OVERLAPS_OBSERVE = """() => {
  window.__long = [];
  new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); })
    .observe({type: 'longtask'});
}"""


def overlapping_pairs(boxes: list[tuple[float, float, float, float]]) -> int:
    """Pairs of boxes overlapping by more than half a pixel each way (a sweep over x)."""
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][0])
    count, active = 0, []
    for i in order:
        x0, y0, _, y1 = boxes[i]
        active = [j for j in active if boxes[j][2] > x0 + 0.5]
        count += sum(1 for j in active if boxes[j][1] < y1 - 0.5 and y0 < boxes[j][3] - 0.5)
        active.append(i)
    return count


def timings(app) -> list[float]:
    return [float(m.group(1)) for line in app.guard.debug if (m := TIMING.search(line))]


def edit_run(app, n: int, edits: int = 7) -> float:
    """Median topology recompute after one structural edit (add an edge, remove it)."""
    app.guard.debug.clear()
    for k in range(edits):
        edge = app.api(
            "([a, b]) => window.bendscope.action('connect', {node_id: a}, {to: b})", [f"n{k}", f"n{(k * 7 + 3) % n}"]
        )
        app.api("window.bendscope.topology()")
        if edge:
            app.api("e => window.bendscope.action('delete-edge', {edge_id: e})", edge)
            app.api("window.bendscope.topology()")
    found = timings(app)
    return median(found)


DENSEST_JS = """(radius) => {
    const b = window.bendscope, ids = JSON.parse(b.export()).planes[0].nodes.map(n => n.id);
    const at = ids.map(id => b.screen_position(id));
    const near = i => at.filter(p => Math.hypot(p[0] - at[i][0], p[1] - at[i][1]) <= radius).length - 1;
    const counts = ids.slice(0, 400).map((id, i) => [near(i), id]);
    counts.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1));
    return counts.map(c => c[1]);
}"""


def connect_run(app, repeats: int = 5) -> tuple[float, int]:
    """Connect-to on the nodes with the most neighbours within the menu's 500 px (at zoom 1 a
    CSS pixel is a world unit); the median time and the largest candidate count."""
    times, count = [], 0
    app.api("window.bendscope.action('zoom-reset')")
    for node_id in app.page.evaluate(DENSEST_JS, 500)[:repeats]:
        app.api("id => window.bendscope.select(id)", node_id)
        ms = app.page.evaluate(
            """() => { const t = performance.now();
                window.dispatchEvent(new KeyboardEvent('keydown', {key: 'c', bubbles: true}));
                return performance.now() - t; }"""
        )
        count = max(count, app.page.locator("#menu-1 [role='menuitem']").count())
        app.page.keyboard.press("Escape")
        app.page.keyboard.press("Escape")
        times.append(ms)
    return median(times), count


#: open the Loops panel on a graph at rest and follow every animation frame until the list
#: is there (the search runs in slices between frames): frame intervals, long tasks
LOOPS = """async (limitMs) => {
  const long = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) long.push(e.duration); });
  obs.observe({type: 'longtask'});
  const b = window.bendscope, stamps = [];
  const t0 = performance.now();
  document.getElementById('btn-loops').click();
  return await new Promise(resolve => {
    function frame(ts) {
      stamps.push(ts);
      const now = performance.now(), state = JSON.parse(b.loops_state());
      if ((!state.pending && state.groups.length) || now - t0 > limitMs) {
        obs.disconnect();
        const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
        resolve({ms: now - t0, gaps, long, loops: state.groups.reduce((n, g) => n + g.loops.length, 0),
                 groups: state.groups.length});
      } else requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  });
}"""


def loops_run(app) -> dict:
    """The Loops panel opened on the graph at rest: time until listed, frame intervals
    meanwhile, the longest task; the panel is closed again."""
    out = app.page.evaluate(LOOPS, 60_000)
    app.page.locator("#btn-loops").click()
    gaps = out["gaps"] or [0.0]
    return {"ms": out["ms"], "median": median(gaps), "p95": p95(gaps), "frames": len(gaps),
            "long": max(out["long"], default=0.0), "loops": out["loops"], "groups": out["groups"]}  # fmt: skip


DENSE = """async ([text, limitMs]) => {
  const long = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) long.push(e.duration); });
  obs.observe({type: 'longtask'});
  const t0 = performance.now();
  const error = await window.bendscope.load(text);  // (a promise when it comes in between frames)
  const loaded = performance.now();
  return await new Promise(resolve => {
    function check() {
      const now = performance.now();
      const state = window.bendscope.topology_state();
      const shown = document.getElementById('hud-kappa').textContent !== 'κ: computing…';
      if ((!state.pending && shown) || now - t0 > limitMs) {
        obs.disconnect();
        resolve({error, load: loaded - t0, shown: now - t0, state, long});
      }
      else setTimeout(check, 20);
    }
    check();
  });
}"""


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,3000,10000", help="giant-SCC graph sizes")
    parser.add_argument("--editor-sizes", default="300,1000,3000", help="editor-like graph sizes ('' for none)")
    parser.add_argument("--runs", type=int, default=3, help="fresh pages per giant graph, motion on, worker")
    parser.add_argument("--limit", type=float, default=90.0, help="seconds to wait for the layout to rest")
    parser.add_argument("--dense", default="300:20000,400:100000", help="dense loops as nodes:arcs, or ''")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one run each (a smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.editor_sizes, args.runs, args.dense, args.limit = "120", "80", 1, "", 30.0
    load = os.getloadavg()
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print(f"chromium {CHROMIUM} {' '.join(CHROMIUM_ARGS)}")
    print(
        "\n| graph | nodes | layout | motion | runs / frames | frame interval median / **p95** ms | "
        "load to rest s | overlapping pairs at rest | long tasks > 50 ms after the load call (max) | "
        "long animation frames > 50 ms (max) | paint script median / p95 ms | load call ms |"
    )
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    server, base = start_in_thread(ROOT)
    summary: dict = {"rows": [], "rest": {}, "splits": {}, "drags": {}}
    at_rest: dict[int, object] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)

            def page(layout: str, motion: str):
                return open_app(
                    browser, base, f"seed=1&fresh=1&layout={layout}", context_args={"reduced_motion": motion}
                )

            plans = []
            for n in (int(s) for s in args.sizes.split(",") if s):
                plans += [("giant", n, "worker", "no-preference", args.runs), ("giant", n, "worker", "reduce", 1)]
                plans += [("giant", n, "d3", "no-preference", 1)]
            for n in (int(s) for s in args.editor_sizes.split(",") if s):
                plans += [("editor", n, "worker", "no-preference", 1)]
            for kind, n, layout, motion, runs in plans:
                doc = document(kind, n)
                results, app = [], None
                for _ in range(runs):
                    if app is not None:
                        app.page.context.close()
                    app = page(layout, motion)
                    results.append(layout_run(app, doc, args.limit))
                p_ = pooled(results)
                line = row(kind, n, layout, "on" if motion == "no-preference" else "reduced", p_)
                print(line, flush=True)
                summary["rows"].append({"graph": kind, "nodes": n, "layout": layout, "motion": motion, **p_})
                summary["rest"][(kind, n, layout, motion)] = p_["rest_s"]
                if kind == "giant" and layout == "worker" and motion == "no-preference" and app is not None:
                    at_rest[n] = (app, doc)
                    app = None
                if app is not None:
                    app.page.context.close()
            for (kind, n, layout, motion), seconds in sorted(summary["rest"].items()):
                if layout == "worker" and (kind, n, "d3", motion) in summary["rest"]:
                    base_s = summary["rest"][(kind, n, "d3", motion)]
                    if math.isnan(base_s):
                        print(
                            f"load to rest, {kind} {n:,} nodes: main-thread d3 did not rest within {args.limit:.0f} s "
                            f"(worker: {seconds:.1f} s), so d3 / worker > {args.limit / seconds:.2f}x"
                        )
                    else:
                        print(f"load to rest, {kind} {n:,} nodes: main-thread d3 / worker = {base_s / seconds:.2f}x")

            print(
                "\n| giant graph at rest, view fitted | zoom | Python scene ms | canvas calls ms | raster ms "
                "(halos / edges / cards) | 30 px drag: nodes > 2 hops moved (max / median px; "
                "the farthest of them from a moved card within two hops px) | "
                "topology after an edit ms | Connect-to ms (candidates) | "
                "Arrange s (overlapping pairs, longest task ms) | Loops panel: listed after s (loops; frame "
                "interval median / p95 ms while searching; longest task ms) |"
            )
            print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for n, (app, doc) in sorted(at_rest.items()):
                split = split_run(app)
                drag = drag_run(app, doc)
                edit = edit_run(app, n)
                connect, count = connect_run(app)
                app.api("window.bendscope.action('fit-view')")
                loops = loops_run(app)
                arranged = arrange_run(app)
                assert arranged["pinned"] == n, arranged
                layers = split["layers"]
                print(
                    f"| {n:,} | {split['zoom']} | {split['scene']:.1f} | {split['canvas']:.1f} | "
                    f"{split['raster']:.1f} ({layers['halos']:.1f} / {layers['edges']:.1f} / {layers['cards']:.1f}) | "
                    f"{drag['far_moved']} of {drag['far']} ({drag['far_max']:.2f} / {drag['far_median']:.2f}; "
                    f"{drag['far_reach']:.0f}) | "
                    f"{edit:.2f} | {connect:.2f} ({count}) | {arranged['ms'] / 1000:.2f} ({arranged['overlaps']}, "
                    f"{arranged['long']:.0f}) | {loops['ms'] / 1000:.2f} ({loops['loops']}; {loops['median']:.1f} / "
                    f"{loops['p95']:.1f} over {loops['frames']} frames; {loops['long']:.0f}) |",
                    flush=True,
                )
                summary["splits"][n] = split
                summary["drags"][n] = drag
                summary.setdefault("loops", {})[n] = loops
                app.page.context.close()

            if args.dense:
                print("\n| dense loop (nodes / arcs) | load ms | κ on screen after s | κ computing ms | slices | "
                      "longest task ms | max κ |")  # fmt: skip
                print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
                for spec in args.dense.split(","):
                    n, arcs = (int(v) for v in spec.split(":"))
                    app = open_app(browser, base, "seed=1&fresh=1")
                    d = app.api(DENSE, [dense_document(n, arcs), 120_000])
                    assert d["error"] is None, d["error"]
                    max_kappa = json.loads(app.api("window.bendscope.topology()"))["max_kappa"]
                    print(
                        f"| {n:,} / {arcs:,} | {d['load']:.0f} | {d['shown'] / 1000:.2f} | "
                        f"{d['state']['duration_ms']:.0f} | {d['state']['slices']} | {max(d['long'], default=0):.0f} | "
                        f"{max_kappa} |",
                        flush=True,
                    )
                    app.page.context.close()
            browser.close()
    finally:
        server.shutdown()
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return summary


if __name__ == "__main__":
    main()
