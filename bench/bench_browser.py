"""Browser benchmarks: κ and drawing costs measured in headless Chromium (Pyodide).

    python bench/bench_browser.py            (make bench-browser)

Reports medians of the editor's own "[κ] topology: X ms" console timings after
structural edits on 100 / 300 / 1,000-node editor-like graphs, the time to open
the Connect-to submenu (previews for up to 50 candidates) at 100 nodes, and the
frame time (scene + paint; the layout runs in slices between frames) while the
layout runs at 300 nodes / 600 edges. Numbers are medians and percentiles, never
pass/fail. bench_large.py covers 1,000 and 3,000 nodes and dense loops.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "scripts"))

from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

TIMING = re.compile(r"\[κ\] topology: ([0-9.]+)ms")


def editor_graph(n: int, edges_per_node: float = 2.0, seed: int = 11, spread: float = 90.0) -> dict:
    """Clusters of nearby nodes, mostly local causal/temporal edges plus other kinds: small loops."""
    rng = random.Random(seed)
    kinds = ["causal"] * 6 + ["temporal"] * 2 + ["context", "associative", "user"]
    side = max(1, round(n**0.5))
    nodes = [
        {"id": f"n{i}", "text": f"Node {i}", "x": (i % side) * spread * 2.2, "y": (i // side) * spread}
        for i in range(n)
    ]
    edges = []
    target = round(n * edges_per_node)
    while len(edges) < target:
        i = rng.randrange(n)
        j = min(n - 1, max(0, i + rng.choice((-side, -1, 1, side, side + 1, -side - 1, 2))))
        if i != j:
            edges.append({"id": f"e{len(edges)}", "source": f"n{i}", "target": f"n{j}", "kind": rng.choice(kinds)})
    return {"nodes": nodes, "edges": edges}


def timings(app) -> list[float]:
    return [float(m.group(1)) for line in app.guard.debug if (m := TIMING.search(line))]


def topology_bench(app, n: int, edits: int = 21) -> tuple[float, float, dict]:
    doc = editor_graph(n)
    app.guard.debug.clear()
    assert app.api("t => window.bendscope.load(t)", json.dumps(doc)) is None
    app.api("window.bendscope.topology()")
    cold = timings(app)[-1]
    topo = json.loads(app.api("window.bendscope.topology()"))
    app.guard.debug.clear()
    for k in range(edits):
        # a structural edit per step: add an edge, then remove it again (both recompute)
        edge = app.api(
            "([a, b]) => window.bendscope.action('connect', {node_id: a}, {to: b})", [f"n{k}", f"n{(k * 7 + 3) % n}"]
        )
        app.api("window.bendscope.topology()")
        if edge:
            app.api("e => window.bendscope.action('delete-edge', {edge_id: e})", edge)
            app.api("window.bendscope.topology()")
    warm = statistics.median(timings(app))
    return cold, warm, {"sccs": topo["scc_count"], "max_kappa": topo["max_kappa"], "edges": len(doc["edges"])}


def connect_bench(app, repeats: int = 15) -> tuple[float, int]:
    doc = editor_graph(100, spread=40.0)
    app.api("t => window.bendscope.load(t)", json.dumps(doc))
    app.api("window.bendscope.settle()")
    times = []
    count = 0
    for k in range(repeats):
        node = f"n{(k * 13) % 100}"
        app.api("id => window.bendscope.select(id)", node)
        ms = app.page.evaluate(
            """() => {
                const t = performance.now();
                window.dispatchEvent(new KeyboardEvent('keydown', {key: 'c', bubbles: true}));
                return performance.now() - t;
            }"""
        )
        count = max(count, app.page.locator("#menu-1 [role='menuitem']").count())
        app.page.keyboard.press("Escape")
        app.page.keyboard.press("Escape")
        times.append(ms)
    return statistics.median(times), count


def frame_bench(app, n: int = 300, edges: int = 600) -> tuple[float, float, int]:
    doc = editor_graph(n, edges_per_node=edges / n)
    for node in doc["nodes"]:  # no positions: the layout starts from the seeded spiral and runs
        del node["x"], node["y"]
    app.api("window.bendscope.frame_times().length")
    before = len(app.api("window.bendscope.frame_times()"))
    app.api("t => window.bendscope.load(t)", json.dumps(doc))
    app.page.wait_for_timeout(4000)
    frames = app.api("window.bendscope.frame_times()")[before:]
    parts = app.api("window.bendscope.frame_parts()")[before:]
    slices = app.api("window.bendscope.layout_state()")["slices"]
    frames.sort()
    p95 = frames[int(0.95 * (len(frames) - 1))] if frames else float("nan")
    split = [statistics.median(p[k] for p in parts) for k in (2, 3)] if parts else [float("nan")] * 2
    split.append(statistics.median(slices) if slices else float("nan"))
    return statistics.median(frames), p95, len(frames), split


def main() -> None:
    load = os.getloadavg()
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    server, base = start_in_thread(ROOT)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            app = open_app(browser, base, "seed=1&still=1&fresh=1")
            print("## κ topology recompute in the browser (Pyodide), medians of [κ] timings")
            print(f"{'nodes':<7}{'edges':>7}{'SCCs':>6}{'max κ':>7}{'after load ms':>15}{'after an edit ms':>18}")
            for n in (100, 300, 1000):
                cold, warm, info = topology_bench(app, n)
                print(f"{n:<7}{info['edges']:>7}{info['sccs']:>6}{info['max_kappa']:>7}{cold:>15.2f}{warm:>18.2f}")
            ms, count = connect_bench(app)
            print("\n## Connect-to submenu at 100 nodes (previews + menu DOM), median")
            print(f"{count} candidates: {ms:.2f} ms")
            app.page.context.close()
            moving = open_app(browser, base, "seed=1&fresh=1")
            median, p95, frames, (scene, paint, layout) = frame_bench(moving)
            print("\n## frame time while the layout runs (300 nodes, 600 edges)")
            print(f"{frames} frames: median {median:.2f} ms, p95 {p95:.2f} ms")
            slices = (
                "the layout runs in the worker: no slices on the main thread"
                if math.isnan(layout)
                else f"layout slices between frames {layout:.2f} ms"
            )
            print(f"median split: scene {scene:.2f} ms, painter {paint:.2f} ms; {slices}")
            moving.page.context.close()
            browser.close()
    finally:
        server.shutdown()
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
