"""Load → rest as the page's main thread works it: CPU time per task and per frame interval.

    python bench/bench_load_cpu.py [--sizes 1000] [--pages 4] [--shape mixed|held|one|sparse|long|regions]
                                   [--against ../other-tree]

The same load as ``bench_hand --only-load`` (``window.bendscope.load``, then ``fit-view``, on a
fresh page; ``bench.graphs.giant_scc_document`` for ``mixed``, else ``bench.shape_graphs``'
shapes), traced with Chromium's tracing (``devtools.timeline``): of each task the renderer's
main thread ran between the load call and the rest, its *thread* time (``tdur``: the CPU it
used, not the wall time a busy machine stretches), and of each frame interval (between two
``BeginMainFrame``) the thread time of the tasks that began in it. Figures per page and the
median over pages: the longest task, tasks over 16 and 50 ms, the frame intervals' p95 and
longest, intervals over 16.7 ms, the frames and the whole CPU time; the wall-clock frame
p95 beside them (what ``bench_hand`` reports). Work figures, for comparing two versions of the
code run alternately on a machine too busy for the intervals themselves. Never pass/fail.

Of the frames that drew (a commit that updated the canvas's layer), the median and p95 of their
parts' thread time: the raster at commit (``LayerTreeHost::DoUpdateLayers``: the canvas's
recorded drawing rasterised), the page's animation-frame callbacks (``FireAnimationFrame``) and
style and layout (``UpdateLayoutTree``, ``Layout``). ``regions``: ``probe_graphs.regions_graph``
(loop regions of 50 cards). ``--against`` serves another tree in the same run, page by page
alternately.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import statistics
import sys
from bisect import bisect_left
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in ("e2e", "bench"):
    sys.path.insert(0, str(ROOT / folder))

from bench_hand import LOAD, p95  # noqa: E402
from graphs import giant_scc_document  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "blink", "cc"]
#: a mark at a known performance.now(): the trace's clock against the page's
MARK = "(() => { performance.mark('bench-load-cpu'); return performance.now(); })()"
TOP = ("ThreadControllerImpl::RunTask", "RunTask")
#: the parts of a frame that drew (module doc)
FRAME_PARTS = ("LayerTreeHost::DoUpdateLayers", "FireAnimationFrame", "UpdateLayoutTree", "Layout")


def document(shape: str, n: int) -> dict:
    if shape == "mixed":
        return giant_scc_document(n)
    import shape_graphs

    makers = {
        "regions": __import__("probe_graphs").regions_graph,
        "held": shape_graphs.held_out_document,
        "one": shape_graphs.one_region_document,
        "sparse": shape_graphs.sparse_loops_document,
        "long": shape_graphs.long_text_document,
    }
    return makers[shape](n)


def figures(events: list[dict], mark_now: float, run: dict) -> dict:
    """The main thread's CPU between the load call and the rest (module doc)."""
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"
    }
    count = collections.Counter((e.get("pid"), e.get("tid")) for e in events)
    main = max((k for k, v in names.items() if v == "CrRendererMain"), key=lambda k: count[k])
    mark = min(e["ts"] for e in events if e.get("name") == "bench-load-cpu")

    def trace_us(now_ms: float) -> float:
        return mark + (now_ms - mark_now) * 1000.0

    start, end = trace_us(run["t0"]), trace_us(run["t0"] + (run["rest"] or run["stamps"][-1] - run["t0"]))
    spans = [
        e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X" and start <= e["ts"] <= end
    ]
    tasks = sorted((e["ts"], e.get("tdur", 0) / 1000.0) for e in spans if e["name"] in TOP)
    frames = sorted(e["ts"] for e in spans if e["name"] == "ProxyMain::BeginMainFrame")
    intervals = sorted(sum(ms for at, ms in tasks if a <= at < b) for a, b in itertools.pairwise(frames))
    cpu = [ms for _, ms in tasks]
    parts = {"raster": ("LayerTreeHost::DoUpdateLayers",), "callback": ("FireAnimationFrame",),
             "style": ("UpdateLayoutTree", "Layout")}  # fmt: skip
    drawn: dict[str, list[float]] = {part: [] for part in parts}
    named = sorted((e["ts"], e["name"], e.get("tdur", 0) / 1000.0) for e in spans if e["name"] in FRAME_PARTS)
    stamps = [ts for ts, _, _ in named]
    for a, b in itertools.pairwise(frames):
        inside = [
            {"name": name, "tdur": ms * 1000.0}
            for _, name, ms in named[bisect_left(stamps, a) : bisect_left(stamps, b)]
        ]
        if not any(e["name"] == parts["raster"][0] for e in inside):
            continue
        for part, wanted in parts.items():
            drawn[part].append(sum(e.get("tdur", 0) / 1000.0 for e in inside if e["name"] in wanted))
    gaps = [b - a for a, b in itertools.pairwise(run["stamps"])]
    return {
        "task_max": max(cpu, default=0.0),
        "tasks_16": sum(ms > 16 for ms in cpu),
        "tasks_50": sum(ms > 50 for ms in cpu),
        "interval_p95": p95(intervals) if intervals else 0.0,
        "interval_max": max(intervals, default=0.0),
        "intervals_16": sum(ms > 1000 / 60 for ms in intervals),
        "frames": len(frames),
        "cpu": sum(cpu),
        "wall_p95": p95(gaps),
        "drawn": len(drawn["raster"]),
        **{f"{part}_median": statistics.median(v) if v else 0.0 for part, v in drawn.items()},
        **{f"{part}_p95": p95(v) if v else 0.0 for part, v in drawn.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="card counts")
    parser.add_argument("--pages", type=int, default=4, help="fresh pages per size")
    parser.add_argument("--shape", default="mixed", choices=("mixed", "held", "one", "sparse", "long", "regions"))
    parser.add_argument("--against", default="", help="another tree, served in the same run (alternately)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds to wait for the layout to rest")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; shape {args.shape}")
    trees = [("this", ROOT)] + ([("against", Path(args.against).resolve())] if args.against else [])
    servers = [(name, *start_in_thread(root)) for name, root in trees]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for n in [int(s) for s in args.sizes.split(",") if s]:
                text = json.dumps(document(args.shape, n))
                rows: dict[str, list[dict]] = {name: [] for name, _, _ in servers}
                for _ in range(args.pages):
                    for name, _server, base in servers:
                        app = open_app(
                            browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"}
                        )
                        browser.start_tracing(page=app.page, categories=CATEGORIES)
                        mark_now = app.api(MARK)
                        run = app.api(LOAD, [text, args.limit * 1000])
                        trace = json.loads(browser.stop_tracing())
                        app.page.context.close()
                        events = trace["traceEvents"] if isinstance(trace, dict) else trace
                        rows[name].append(figures(events, mark_now, run))
                        got = rows[name][-1]
                        print(
                            f"  {name} {n:,} cards, page {len(rows[name])}: "
                            + ", ".join(f"{k} {v:.1f}" for k, v in got.items())
                        )
                for name, _, _ in servers:
                    mid = {k: statistics.median(r[k] for r in rows[name]) for k in rows[name][0]}
                    print(f"{name}: load → rest {n:,} cards ({args.shape}), medians of {len(rows[name])} pages: "
                          f"main-thread CPU longest task {mid['task_max']:.1f} ms (over 16 ms: {mid['tasks_16']:.0f}, "
                          f"over 50: {mid['tasks_50']:.0f}); "
                          f"frame intervals p95 {mid['interval_p95']:.1f} / longest {mid['interval_max']:.1f} ms, over "
                          f"16.7 ms: {mid['intervals_16']:.0f} of {mid['frames']:.0f} frames; CPU {mid['cpu']:.0f} ms; "
                          f"wall-clock frame p95 {mid['wall_p95']:.1f} ms; of {mid['drawn']:.0f} frames that drew, "
                          f"median / p95 ms: raster at commit {mid['raster_median']:.1f} / {mid['raster_p95']:.1f}, "
                          f"callbacks {mid['callback_median']:.1f} / {mid['callback_p95']:.1f}, style and layout "
                          f"{mid['style_median']:.1f} / {mid['style_p95']:.1f}")  # fmt: skip
            browser.close()
    finally:
        for _, server, _ in servers:
            server.shutdown()
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
