"""What the layer of a drag costs the page's thread: the CPU time of drawing (and rasterising) the
scene without the cards a drag moves, by part, for this tree's ``static/scene.js`` and, with
``--against``, another tree's, alternately in the same page.

    python bench/bench_raster.py [--sizes 2000] [--rounds 8] [--repeats 6] [--against ../other-tree]
                                 [--graph mixed|regions] [--view drag|fit]

The mixed graph of ``bench_hand`` (``bench.graphs.giant_scc_document``) at zoom 1 (``zoom-reset``)
after the layout rested; the loop region's card nearest the middle is pressed and released to
learn the cards its drag moves (the kept layer leaves them out), then each round draws that
layer ``--repeats`` times per variant into a canvas of the page's size and reads one pixel
(the software raster is done then, not at the end of a frame). The figure is the page's main
thread CPU time per draw from Chromium's own counters (``Performance.getMetrics``'s
``ThreadTime``): unlike a frame interval it does not grow when other processes share the cores.
Median over the rounds (each round's figure printed too); parts: the layer with every part, and
each of edges, halos and cards alone (the rest left out, as ``bench_large``'s raster split does).

``--graph regions`` loads ``probe_graphs.regions_graph`` instead (40 loop regions of 50 cards at
2,000); ``--view fit`` draws the whole scene (no drag) with the view fitted as a load leaves it —
far out on a large graph, where the halos are plain fills — and prints the bands in view.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_hand  # noqa: E402
from bench_shapes import Cpu  # noqa: E402
from graphs import giant_scc_document  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from probe_graphs import regions_graph  # noqa: E402

#: keep the page's scene plan, positions and drawing environment of one whole paint
CAPTURE = """() => {
  const S = window.bendscopeScene, g0 = S.geometry, d0 = S.draw, cap = window.__raster = {};
  S.geometry = function (plan, xy, view) {
    if (!view.only) { cap.plan = plan; cap.xy = Float64Array.from(xy); }
    return g0(plan, xy, view);
  };
  S.draw = function (ctx, plan, g, env) { if (ctx.canvas.isConnected) cap.env = env; return d0(ctx, plan, g, env); };
  try { window.bendscope.paint(); } finally { S.geometry = g0; S.draw = d0; }
  return cap.plan.n;
}"""

#: another tree's scene.js, evaluated beside the page's (the same plan format)
AGAINST = """text => {
  const into = {Path2D: window.Path2D, document: window.document};
  new Function('globalThis', text)(into);
  window.__rasterAgainst = into.bendscopeScene;
}"""

#: draw the layer ``repeats`` times: [scene ("page" or "against"), parts left out]
DRAW = """([repeats, scene, skip, moving]) => {
  const S = scene === 'against' ? window.__rasterAgainst : window.bendscopeScene;
  const {plan, xy, env} = window.__raster;
  const canvas = window.__rasterCanvas || (window.__rasterCanvas = document.createElement('canvas'));
  canvas.width = env.width * env.dpr; canvas.height = env.height * env.dpr;
  const only = new Uint8Array(plan.n);
  for (const id of moving) if (plan.at.has(id)) only[plan.at.get(id)] = 1;
  const view = {only, side: 0};
  for (const k of ['cx', 'cy', 'zoom', 'width', 'height', 'pulse', 'pins']) view[k] = env[k];
  const flat = Object.assign({}, env, {layered: true, skip});
  for (let r = 0; r < repeats; r++) {
    const ctx = canvas.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = env.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    S.draw(ctx, plan, S.geometry(plan, xy, view), flat);
    ctx.getImageData(0, 0, 1, 1);
  }
}"""

#: the halo parts of one whole frame's geometry: [boxes, bands]
COUNT = """() => {
  const S = window.bendscopeScene, {plan, xy, env} = window.__raster, view = {};
  for (const k of ['cx', 'cy', 'zoom', 'width', 'height', 'pulse', 'pins']) view[k] = env[k];
  const g = S.geometry(plan, xy, view);
  return [g.halos.reduce((s, l) => s + l.rects.length / 4, 0), g.halos.reduce((s, l) => s + l.quads.length / 8, 0)];
}"""

PARTS = ("halos", "edges", "arrows", "labels", "cards")


def variants(against: bool) -> list[tuple[str, str, dict[str, int]]]:
    """(name, scene, parts left out) of each figure.

    >>> [v[0] for v in variants(False)]
    ['layer', 'edges', 'halos', 'cards']
    >>> variants(True)[1]
    ('layer, against', 'against', {})
    """
    out = []
    for part in ("layer", "edges", "halos", "cards"):
        skip = {} if part == "layer" else {p: 1 for p in PARTS if p != part}
        out.append((part, "page", skip))
        if against:
            out.append((f"{part}, against", "against", skip))
    return out


def measure(app, rounds: int, repeats: int, moving: list[str], against: bool) -> dict[str, list[float]]:
    cpu = Cpu(app.page)
    figures: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, scene, skip in variants(against):
            before = cpu.now()
            app.api(DRAW, [repeats, scene, skip, moving])
            figures.setdefault(name, []).append((cpu.now()[0] - before[0]) / repeats)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000", help="card counts")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=6, help="draws per variant and round")
    parser.add_argument("--against", default="", help="another tree whose static/scene.js is measured alternately")
    parser.add_argument("--quick", action="store_true", help="a tiny graph, one round (a smoke test)")
    parser.add_argument("--graph", default="mixed", choices=("mixed", "regions"))
    parser.add_argument("--view", default="drag", choices=("drag", "fit"), help="a drag's layer, or all fitted")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.rounds, args.repeats = "150", 1, 1
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    against = Path(args.against) / "static" / "scene.js" if args.against else None
    server, base = start_in_thread(ROOT)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for n in [int(s) for s in args.sizes.split(",") if s]:
                app = open_app(browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"})
                doc = giant_scc_document(n) if args.graph == "mixed" else regions_graph(n)
                app.api(bench_hand.LOAD, [json.dumps(doc), 120_000])
                moving: list[str] = []
                if args.view == "drag":
                    app.api("window.bendscope.action('zoom-reset')")
                    app.api(bench_hand.WAIT_REST, 10_000)
                    node = bench_hand.central(app, bench_hand.region_nodes(app))
                    x, y = app.node_xy(node)
                    app.page.mouse.move(x, y)
                    app.page.mouse.down()
                    app.api("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                    moving = app.api("window.bendscope.patch_state()")["left_out"]
                    app.page.mouse.up()
                    app.page.mouse.move(2, 2)
                app.api(bench_hand.WAIT_REST, 30_000)
                app.api(CAPTURE)
                if against is not None:
                    app.api(AGAINST, against.read_text())
                figures = measure(app, args.rounds, args.repeats, moving, against is not None)
                zoom = app.stats()["zoom"]
                boxes, bands = app.api(COUNT)
                print(f"{n:,} cards, zoom {zoom:.2f} ({args.graph} graph), the drag moves {len(moving)} cards, halos "
                      f"{boxes} boxes and {bands} bands in view: main-thread CPU ms per draw")  # fmt: skip
                for name, values in figures.items():
                    each = ", ".join(f"{v:.1f}" for v in values)
                    print(f"  {name:16s} median {statistics.median(values):5.1f} (each round {each})")
                app.page.context.close()
            browser.close()
    finally:
        server.shutdown()
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
