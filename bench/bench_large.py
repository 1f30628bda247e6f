"""Large graphs in the browser (issue 11): frame times while the layout runs, layout to rest
and the longest task meanwhile, topology after one structural edit, Connect-to previews.

    python bench/bench_large.py [--sizes 300,1000,3000]

Headless Chromium (Debian's), Pyodide 314. Medians and p95 of what the page measures
itself; the longest main-thread task comes from a PerformanceObserver ("longtask").
Never pass/fail.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))  # (demo_docs shares the spec's examples with tests/)
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_browser import TIMING, editor_graph  # noqa: E402
from demo_docs import dense_document  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

OBSERVE = """() => {
  window.__long = [];
  new PerformanceObserver(list => { for (const e of list.getEntries()) window.__long.push(e.duration); })
    .observe({type: 'longtask', buffered: false});
}"""


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan")


LAYOUT = """async ([text, limitMs]) => {
  const t0 = performance.now();
  const error = window.bendscope.load(text);
  const loaded = performance.now();
  const stamps = [];
  return await new Promise(resolve => {
    function frame(ts) {
      stamps.push(ts);
      const now = performance.now();
      if (!window.bendscope.layout_state().active) resolve({error, load: loaded - t0, rest: now - t0, stamps});
      else if (now - t0 > limitMs) resolve({error, load: loaded - t0, rest: null, stamps});
      else requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  });
}"""


def layout_run(app, n: int, limit_s: float) -> dict[str, float]:
    """Load n nodes without positions and let the layout run to rest (or ``limit_s``): the
    page's own paint times, the intervals between animation frames (what the user sees) and
    the longest task meanwhile. Measured inside the page: no polling from outside."""
    doc = editor_graph(n, edges_per_node=2.0)
    for node in doc["nodes"]:
        del node["x"], node["y"]
    app.api(OBSERVE)
    before = len(app.api("window.bendscope.frame_times()"))
    run = app.api(LAYOUT, [json.dumps(doc), limit_s * 1000])
    assert run["error"] is None, run["error"]
    frames = app.api("window.bendscope.frame_times()")[before:]
    stamps = run["stamps"]
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    long_tasks = app.api("window.__long")
    return {
        "frames": frames,
        "gaps": gaps,
        "load_ms": run["load"],
        "rest_s": run["rest"] / 1000 if run["rest"] is not None else float("nan"),
        "longest_task": max(long_tasks, default=0.0),
    }


def pooled(runs: list[dict]) -> dict[str, float]:
    """Several runs of one size: paint times and frame intervals pooled (median, p95),
    the median load and rest time, the longest task of all."""
    frames = [f for r in runs for f in r["frames"]]
    gaps = [g for r in runs for g in r["gaps"]]
    return {
        "runs": len(runs),
        "frames": len(frames),
        "median": statistics.median(frames) if frames else float("nan"),
        "p95": p95(frames),
        "gap_median": statistics.median(gaps) if gaps else float("nan"),
        "gap_p95": p95(gaps),
        "load_ms": statistics.median(r["load_ms"] for r in runs),
        "rest_s": statistics.median(r["rest_s"] for r in runs),
        "longest_task": max(r["longest_task"] for r in runs),
    }


def timings(app) -> list[float]:
    return [float(m.group(1)) for line in app.guard.debug if (m := TIMING.search(line))]


def edit_run(app, n: int, edits: int = 11) -> float:
    """Median topology recompute after one structural edit (add an edge, remove it)."""
    app.api("window.bendscope.settle()")
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
    return statistics.median(found) if found else float("nan")


DENSEST_JS = """(radius) => {
    const b = window.bendscope, ids = JSON.parse(b.export()).planes[0].nodes.map(n => n.id);
    const at = ids.map(id => b.screen_position(id));
    const near = i => at.filter(p => Math.hypot(p[0] - at[i][0], p[1] - at[i][1]) <= radius).length - 1;
    const counts = ids.map((id, i) => [near(i), id]);
    counts.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1));
    return counts.map(c => c[1]);
}"""


def connect_run(app, repeats: int = 7) -> tuple[float, int]:
    """Connect-to on the ``repeats`` nodes with the most neighbours within the menu's radius
    (at zoom 1 a CSS pixel is a world unit), so the menu lists as close to its 50 as the
    layout allows; returns the median time and the largest candidate count."""
    times, count = [], 0
    app.api("window.bendscope.action('zoom-reset')")
    densest = app.page.evaluate(DENSEST_JS, 500)[:repeats]
    for node_id in densest:
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
    return statistics.median(times), count


DENSE = """async ([text, limitMs]) => {
  const t0 = performance.now();
  const error = window.bendscope.load(text);
  const loaded = performance.now();
  return await new Promise(resolve => {
    function check() {
      const now = performance.now();
      const state = window.bendscope.topology_state();
      const shown = document.getElementById('hud-kappa').textContent !== 'κ: computing…';
      if ((!state.pending && shown) || now - t0 > limitMs) resolve({error, load: loaded - t0, shown: now - t0, state});
      else setTimeout(check, 20);
    }
    check();
  });
}"""


def dense_run(app, n: int, arcs: int) -> dict[str, float]:
    """Load one dense loop: how long until its κ is on screen, the κ computing time, the
    slices it took and the longest task meanwhile (loading and painting included)."""
    app.api(OBSERVE)
    run = app.api(DENSE, [dense_document(n, arcs), 120_000])
    assert run["error"] is None, run["error"]
    long_tasks = app.api("window.__long")
    return {
        "load_ms": run["load"],
        "shown_s": run["shown"] / 1000,
        "kappa_ms": run["state"]["duration_ms"],
        "slices": run["state"]["slices"],
        "longest_task": max(long_tasks, default=0.0),
        "max_kappa": json.loads(app.api("window.bendscope.topology()"))["max_kappa"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="300,1000,3000")
    parser.add_argument("--layouts", default="d3,python", help="d3 (the page's), python (the pure-Python baseline)")
    parser.add_argument("--dense", default="300:20000,400:100000", help="dense loops as nodes:arcs, or ''")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds to wait for the layout to rest")
    parser.add_argument("--runs", type=int, default=3, help="fresh pages per size for the page's own layout")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print(
        "| layout | nodes | runs / frames | paint median ms | paint p95 ms | frame interval median / p95 ms | "
        "load ms | import to rest s | longest task ms | topology after an edit ms | Connect-to ms (candidates) |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    server, base = start_in_thread(ROOT)
    rest: dict[tuple[str, int], float] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for n in (int(s) for s in args.sizes.split(",")):
                for layout in args.layouts.split(","):
                    runs, app = [], None
                    for _ in range(args.runs if layout != "python" else 1):  # the baseline: one run
                        if app is not None:
                            app.page.context.close()
                        app = open_app(browser, base, f"seed=1&fresh=1&layout={layout}")
                        runs.append(layout_run(app, n, args.limit))
                    lay = pooled(runs)  # the last page goes on to the edits and Connect-to
                    rest[(layout, n)] = lay["rest_s"]
                    edit = edit_run(app, n)
                    connect, count = connect_run(app)
                    print(
                        f"| {layout} | {n:,} | {lay['runs']} / {lay['frames']} | {lay['median']:.2f} | "
                        f"{lay['p95']:.2f} | "
                        f"{lay['gap_median']:.1f} / {lay['gap_p95']:.1f} | {lay['load_ms']:.0f} | "
                        f"{lay['rest_s']:.2f} | {lay['longest_task']:.0f} | {edit:.2f} | {connect:.2f} ({count}) |",
                        flush=True,
                    )
                    app.page.context.close()
            for (layout, n), seconds in sorted(rest.items()):
                if layout != "python" and ("python", n) in rest:
                    print(f"import to rest at {n:,} nodes: python / {layout} = {rest[('python', n)] / seconds:.1f}x")
            if args.dense:
                print("\n| dense loop (nodes / arcs) | load ms | κ on screen after s | κ computing ms | slices | "
                      "longest task ms | max κ |")  # fmt: skip
                print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
                for spec in args.dense.split(","):
                    n, arcs = (int(v) for v in spec.split(":"))
                    app = open_app(browser, base, "seed=1&fresh=1")
                    d = dense_run(app, n, arcs)
                    print(
                        f"| {n:,} / {arcs:,} | {d['load_ms']:.0f} | {d['shown_s']:.2f} | {d['kappa_ms']:.0f} | "
                        f"{d['slices']} | {d['longest_task']:.0f} | {d['max_kappa']} |",
                        flush=True,
                    )
                    app.page.context.close()
            browser.close()
    finally:
        server.shutdown()
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
