"""The audit's live burst: an agent writes SciFact notes into a memory of LoCoMo turns while the page watches.

    python bench/audit_live.py [--backends sqlite,postgresql] [--rate 100] [--seconds 5] [--json out.json]

The memory holds :func:`audit_graphs.locomo`'s graph (1,451 turns, three loop regions of
366–663 cards); the page (the real memory server, ``serve --http 0 --editor``, headless
Chromium, 1280×800, motion on) opens it and its layout rests; then a writer — its own store
connection, another process's view — stores ``rate`` notes a second for ``seconds``, one
transaction each: a SciFact abstract's title and first sentence, joined to the note before it,
and every fourth note also pointing back at a turn of the biggest region, so that writes keep
joining loops to it (κ and the layout have work). Change → page: the moment a card first shows
on the page (``live_arrivals``, ``Date.now()``) minus its transaction's return; frame intervals
from the page's own animation frames during the burst, long tasks from a ``PerformanceObserver``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for sub in ("e2e", "bench", "py", "tests/support", ""):
    sys.path.insert(0, str(ROOT / sub))

import audit_figures as fig  # noqa: E402
import audit_graphs as graphs  # noqa: E402
from bench_live import TOKEN, open_writer, store_location  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, new_context  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bendscope.kappa import analyze  # noqa: E402
from bendscope.memory.web.editor_site import Admission  # noqa: E402
from tests.memory.web.test_editor_site import _Served  # noqa: E402

WATCH = """() => { const W = window.__burst = {stamps: [], longs: [], on: true};
  W.obs = new PerformanceObserver(l => { for (const e of l.getEntries()) W.longs.push([e.startTime, e.duration]); });
  W.obs.observe({type: 'longtask'});
  const tick = () => { if (!W.on) return; W.stamps.push(performance.now()); requestAnimationFrame(tick); };
  requestAnimationFrame(tick); return performance.now(); }"""
STOP = """() => { const W = window.__burst; W.on = false; W.obs.disconnect();
  return {stamps: W.stamps, longs: W.longs, frames: JSON.parse(window.bendscope.frame_log()),
          tasks: JSON.parse(window.bendscope.task_log())}; }"""


def memory_document(doc: dict) -> str:
    """A bare document as the memory's import takes it (one plane)."""
    nodes = [{"id": n["id"], "text": n["text"]} for n in doc["nodes"]]
    edges = [{"id": e["id"], "a": e["source"], "b": e["target"], "props": {"kind": e["kind"]}} for e in doc["edges"]]
    return json.dumps({"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r",
                       "planes": [{"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}]})  # fmt: skip


def burst(page: Any, writer: Any, notes: list[str], anchors: list[str], rate: float) -> dict:
    start = page.evaluate(WATCH)
    committed: dict[str, float] = {}
    began = time.perf_counter()
    for k, text in enumerate(notes):
        pause = began + k / rate - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        node = f"n{k}"
        with writer.store.transaction():
            writer.store_node({"id": node, "content": text})
            before = f"n{k - 1}" if k else anchors[0]
            writer.store_edge({"id": f"ne{k}", "source_id": before, "target_id": node, "edge_type": "causal"})
            if k % 4 == 3:
                back = anchors[(k * 7) % len(anchors)]
                writer.store_edge({"id": f"nb{k}", "source_id": node, "target_id": back, "edge_type": "causal"})
        committed[node] = time.time() * 1000
    achieved = len(notes) / (time.perf_counter() - began)
    deadline = time.monotonic() + 20
    arrivals: dict[str, float] = {}
    while time.monotonic() < deadline:
        arrivals = json.loads(page.evaluate("window.bendscope.live_arrivals()"))
        if all(n in arrivals for n in committed):
            break
        page.wait_for_timeout(50)
    seen = page.evaluate(STOP)
    last = max((arrivals.get(n, 0) for n in committed), default=0)
    # the burst's frames: from the first write until the last card showed (page clock: stamps from WATCH)
    span_ms = max(0.0, last - min(committed.values())) + 1000 * (len(notes) / rate if not arrivals else 0)
    spans = fig.intervals(start, seen["stamps"], start + max(span_ms, 1000 * len(notes) / rate))
    gaps = fig.lengths(spans)
    lat = [arrivals[n] - t for n, t in committed.items() if n in arrivals]
    longs = fig.longs_in(seen["longs"], start, spans[-1][1] if spans else start)
    return {"writes": len(notes), "achieved": round(achieved, 1), "missing": len(notes) - len(lat),
            "p50": fig.median(lat), "p95": fig.p95(lat), "max": max(lat, default=float("nan")),
            "frame_p95": fig.p95(gaps), "frame_median": fig.median(gaps), "frames": len(gaps),
            "long": len([d for d in longs if d > 50]), "long_max": max(longs, default=0.0),
            "slow": fig.slow(spans, seen["frames"], seen["tasks"], seen["longs"], start, 33.4, 6)}  # fmt: skip


def run(backend: str, browser: Any, doc: dict, notes: list[str], rate: float) -> dict:
    truth = analyze(*graphs.engine_input(doc))
    biggest = max(truth["sccs"], key=lambda s: len(s["nodes"]))["nodes"]
    with store_location(backend, "auditlive") as location:
        writer = open_writer(backend, location)
        writer.import_document(memory_document(doc))
        served = _Served(location, "--token", TOKEN)  # type: ignore[arg-type]
        try:
            base = f"http://127.0.0.1:{served.port}/"
            context = new_context(browser, reduced_motion="no-preference")
            key = Admission(TOKEN, served.port).page_key.decode()
            context.add_cookies([{"name": f"bendscope_token_{served.port}", "value": key, "url": base}])
            page = context.new_page()
            opened = time.monotonic()
            page.goto(base + "index.html")
            page.wait_for_function("window.bendscope && window.bendscope.ready === true", timeout=400_000)
            page.wait_for_function(f"window.bendscope.stats().nodes >= {len(doc['nodes'])}", timeout=300_000)
            page.wait_for_function("!window.bendscope.layout_active()", timeout=300_000)
            opened = time.monotonic() - opened
            page.wait_for_timeout(1000)
            out = {"backend": backend, "load_before": round(os.getloadavg()[0], 1), "open_s": round(opened, 1),
                   **burst(page, writer, notes, sorted(biggest), rate)}  # fmt: skip
            out["load_after"] = round(os.getloadavg()[0], 1)
            context.close()
        finally:
            served.stop()
            writer.store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    doc = graphs.locomo()
    notes = graphs.scifact_titles(int(args.rate * args.seconds))
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for backend in args.backends.split(","):
            r = run(backend, browser, doc, notes, args.rate)
            results.append(r)
            goal, frames = fig.target("live_p95", 2000), fig.target("live_frames", 2000)
            print(f"\n### live {backend}: {len(doc['nodes']):,} LoCoMo turns + {r['writes']} SciFact notes at "
                  f"{r['achieved']}/s (load {r['load_before']} → {r['load_after']}, page opened in {r['open_s']} s)\n"
                  f"- change → page p50 / p95 / max {fig.median([r['p50']]):.0f} / **{r['p95']:.0f}** / "
                  f"{r['max']:.0f} ms (target ≤ {goal:.0f}: {fig.met(r['p95'], goal)}), missing {r['missing']}\n"
                  f"- frames median / p95 {r['frame_median']:.1f} / **{r['frame_p95']:.1f}** ms over {r['frames']} "
                  f"(target ≤ {frames:.0f}: {fig.met(r['frame_p95'], frames)}); long tasks {r['long']} "
                  f"(max {r['long_max']:.0f})")  # fmt: skip
            for line in r["slow"]:
                print(f"  - slow: {line}")
            sys.stdout.flush()
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1, default=str))
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
