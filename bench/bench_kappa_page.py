"""κ of one large loop region in the browser, as the page computes it: in slices between frames.

    python bench/bench_kappa_page.py [--sizes 3000,10000] [--runs 3] [--quick]

Headless Chromium (Debian's, ``--disable-gpu``), Pyodide 314, a 1280×800 page. Each graph is
one strongly connected region of n cards (a Hamiltonian cycle plus random arcs, ≈ 3n causal
edges, ≈ 2n below 100 cards: ``bench.graphs.random_strong``), loaded with positions (no layout runs). For each: the
time from the load call until the HUD shows κ, the engine's computing time summed over its
slices and their number (``topology_state()``), the interval between animation frames while
κ was being computed (the page's own ``requestAnimationFrame`` loop: what a user sees), and
the longest task; then K (show the fewest edges that break every loop): the time until the
page holds them (``loop_cuts()``, searched in slices with the page's budget per region) and
the frame intervals meanwhile. Baseline in the same run: the same engine in this CPython
process on the same graph (``kappa.analyze``; the arc set with the page's budget), so the
page / CPython ratio is measured, not assumed. A small region (30 cards, ≈ 2n arcs) shows an exact
count; the large ones a range. Medians and p95 over fresh pages; the machine's load before
and after is printed. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "py"))

from bench_engine import hamiltonian_union  # noqa: E402
from graphs import random_strong  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bendscope.bend.kappa_view.loop_cuts import PAGE_ARCSET_BUDGET  # noqa: E402
from bendscope.kappa import analyze, feedback_arc_set_field  # noqa: E402
from bendscope.kappa.digraph import build_digraph  # noqa: E402

#: load the document, then follow every animation frame until the HUD shows the exact κ; the
#: frame intervals and long tasks after the first frame (the load call and the first paint of
#: every card come before it: ``first``)
RUN = """async ([text, limitMs]) => {
  const long = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) long.push([e.startTime, e.duration]); });
  obs.observe({type: 'longtask'});
  const b = window.bendscope, stamps = [];
  const t0 = performance.now();
  const error = await b.load(text);  // (a promise when it comes in between frames)
  const loaded = performance.now();
  return await new Promise(resolve => {
    function frame(ts) {
      stamps.push(ts);
      const now = performance.now(), state = b.topology_state();
      const shown = document.getElementById('hud-kappa').textContent;
      if ((stamps.length >= 2 && !state.pending && !shown.includes('computing')) || now - t0 > limitMs) {
        obs.disconnect();
        const gaps = stamps.slice(2).map((t, i) => t - stamps[i + 1]);
        const after = long.filter(e => e[0] >= stamps[1]).map(e => e[1]);
        resolve({error, load: loaded - t0, first: stamps[1] - t0, shown: now - t0, hud: shown, state, gaps,
                 long: after});
      } else requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  });
}"""


#: press K (show the fewest edges that break every loop) and follow every frame until the page has them
CUTS = """async (limitMs) => {
  const long = [];
  const obs = new PerformanceObserver(l => { for (const e of l.getEntries()) long.push(e.duration); });
  obs.observe({type: 'longtask'});
  const b = window.bendscope, stamps = [];
  const t0 = performance.now();
  b.action('show-cuts');
  return await new Promise(resolve => {
    function frame(ts) {
      stamps.push(ts);
      const now = performance.now(), cuts = JSON.parse(b.loop_cuts());
      if (!cuts.pending || now - t0 > limitMs) {
        obs.disconnect();
        const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
        resolve({ms: now - t0, cuts, gaps, long});
      } else requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  });
}"""


#: the regions: "random" (a Hamiltonian cycle plus random arcs: κ 1, a card with one way in or
#: out) and "cycles" (3 random Hamiltonian cycles: every card 2 or 3 ways in and out, κ up to 3)
KINDS = ("random", "cycles")


def document(n: int, seed: int, kind: str = "random") -> tuple[dict, list[str], list[dict[str, str]]]:
    """One loop region of ``n`` cards laid out on a grid (so no layout runs), and its κ input."""
    # (a small random region: ≈ 2n arcs)
    arcs = hamiltonian_union(n, 3, seed) if kind == "cycles" else random_strong(n, 2 if n < 100 else 3, seed)
    nodes = [{"id": f"n{i}", "text": f"card {i}", "x": (i % 100) * 200.0, "y": (i // 100) * 120.0} for i in range(n)]
    edges = [{"id": f"e{k}", "a": f"n{u}", "b": f"n{v}", "props": {"kind": "causal"}} for k, (u, v) in enumerate(arcs)]
    graph = [{"source": f"n{u}", "target": f"n{v}", "kind": "causal"} for u, v in arcs]
    return {"nodes": nodes, "edges": edges}, [n["id"] for n in nodes], graph


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="30,3000,10000", help="loop region sizes")
    parser.add_argument("--runs", type=int, default=3, help="fresh pages per size")
    parser.add_argument("--kinds", default=",".join(KINDS), help="region kinds: random, cycles")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds to wait for κ")
    parser.add_argument("--quick", action="store_true", help="a tiny region, one run (a smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.runs, args.limit, args.kinds = "30,300", 1, 120.0, "random"
    load = os.getloadavg()
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print(f"chromium {CHROMIUM} {' '.join(CHROMIUM_ARGS)}")
    print(
        "\n| region | cards / arcs | κ (exact) | CPython analyze ms (median) | "
        "page: load call and first paint s | page: κ on screen after s (median / p95) | page: κ computing ms "
        "(median) | page / CPython | slices | frame interval after the first paint while computing median / "
        "**p95** ms (frames) | longest task after the first paint ms |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    server, base = start_in_thread(ROOT)
    summary: dict = {"rows": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            plans = [(kind, int(s)) for kind in args.kinds.split(",") if kind for s in args.sizes.split(",") if s]
            for kind, n in plans:
                doc, ids, graph = document(n, seed=n, kind=kind)
                cpython = []
                for _ in range(3):
                    start = time.perf_counter()
                    expected = analyze(ids, graph)
                    cpython.append((time.perf_counter() - start) * 1000)
                (scc,) = expected["sccs"]
                runs = []
                for _ in range(args.runs):
                    app = open_app(browser, base, "seed=1&fresh=1")
                    out = app.api(RUN, [json.dumps(doc), args.limit * 1000])
                    assert out["error"] is None, out["error"]
                    got = json.loads(app.api("window.bendscope.topology()"))
                    assert got["sccs"][0]["kappa"] == scc["kappa"], (got["sccs"][0]["kappa"], scc["kappa"])
                    out["k"] = app.api(CUTS, args.limit * 1000)
                    runs.append(out)
                    app.page.context.close()
                digraph = build_digraph(ids, graph)
                start = time.perf_counter()
                field = feedback_arc_set_field(digraph, list(range(n)), work_budget=PAGE_ARCSET_BUDGET)
                fas_ms = (time.perf_counter() - start) * 1000
                (region,) = runs[0]["k"]["cuts"]["regions"]
                assert (region["lower"], region["size"]) == (field["lower_bound"], field["size"]), region
                cut_gaps = [g for r in runs for g in r["k"]["gaps"]] or [0.0]
                cut_ms = [r["k"]["ms"] for r in runs]
                summary.setdefault("cuts", []).append(
                    {"kind": kind, "cards": n, "lower": region["lower"], "size": region["size"], "cpython_ms": fas_ms,
                     "page_s": statistics.median(cut_ms) / 1000, "page_p95_s": p95(cut_ms) / 1000,
                     "gap_median": statistics.median(cut_gaps), "gap_p95": p95(cut_gaps), "frames": len(cut_gaps),
                     "long": max((max(r["k"]["long"], default=0.0) for r in runs), default=0.0)}
                )  # fmt: skip
                gaps = [g for r in runs for g in r["gaps"]] or [0.0]
                shown = [r["shown"] for r in runs]
                busy = [r["state"]["duration_ms"] for r in runs]
                row = {
                    "kind": kind, "cards": n, "arcs": len(graph), "kappa": scc["kappa"],
                    "approximate": scc["approximate"],
                    "cpython_ms": statistics.median(cpython), "shown_s": statistics.median(shown) / 1000,
                    "shown_p95_s": p95(shown) / 1000, "busy_ms": statistics.median(busy),
                    "slices": statistics.median(r["state"]["slices"] for r in runs),
                    "first_s": statistics.median(r["first"] for r in runs) / 1000,
                    "gap_median": statistics.median(gaps), "gap_p95": p95(gaps), "frames": len(gaps),
                    "long": max((max(r["long"], default=0.0) for r in runs), default=0.0),
                }  # fmt: skip
                summary["rows"].append(row)
                print(
                    f"| {kind} | {n:,} / {len(graph):,} | {row['kappa']}{' (bounds)' if row['approximate'] else ''} "
                    f"| {row['cpython_ms']:.0f} | {row['first_s']:.2f} | "
                    f"{row['shown_s']:.2f} / {row['shown_p95_s']:.2f} | "
                    f"{row['busy_ms']:.0f} | "
                    f"{row['busy_ms'] / row['cpython_ms']:.2f}x | {row['slices']:.0f} | {row['gap_median']:.1f} / "
                    f"**{row['gap_p95']:.1f}** ({row['frames']}) | {row['long']:.0f} |",
                    flush=True,
                )
            print(
                f"\n| region | cards | fewest edges that break every loop (page budget {PAGE_ARCSET_BUDGET:,} units) | "
                "CPython ms | page: shown after K s (median / p95) | frame interval meanwhile median / **p95** ms "
                "(frames) | longest task ms |"
            )
            print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for c in summary.get("cuts", []):
                count = str(c["size"]) + " (exact)" if c["lower"] == c["size"] else f"{c['lower']}–{c['size']}"
                print(
                    f"| {c['kind']} | {c['cards']:,} | {count} | {c['cpython_ms']:.0f} | "
                    f"{c['page_s']:.2f} / {c['page_p95_s']:.2f} | "
                    f"{c['gap_median']:.1f} / **{c['gap_p95']:.1f}** ({c['frames']}) | {c['long']:.0f} |"
                )
            browser.close()
    finally:
        server.shutdown()
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return summary


if __name__ == "__main__":
    main()
