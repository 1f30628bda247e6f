"""Load → rest as the page's main thread works it: CPU time per task and per frame interval.

    python bench/bench_load_cpu.py [--sizes 1000] [--pages 4] [--shape mixed|held|one|sparse|long]

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
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import statistics
import sys
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


def document(shape: str, n: int) -> dict:
    if shape == "mixed":
        return giant_scc_document(n)
    import shape_graphs

    makers = {
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
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="card counts")
    parser.add_argument("--pages", type=int, default=4, help="fresh pages per size")
    parser.add_argument("--shape", default="mixed", choices=("mixed", "held", "one", "sparse", "long"))
    parser.add_argument("--limit", type=float, default=60.0, help="seconds to wait for the layout to rest")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; shape {args.shape}")
    server, base = start_in_thread(ROOT)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for n in [int(s) for s in args.sizes.split(",") if s]:
                text = json.dumps(document(args.shape, n))
                rows = []
                for _ in range(args.pages):
                    app = open_app(browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"})
                    browser.start_tracing(page=app.page, categories=CATEGORIES)
                    mark_now = app.api(MARK)
                    run = app.api(LOAD, [text, args.limit * 1000])
                    trace = json.loads(browser.stop_tracing())
                    app.page.context.close()
                    events = trace["traceEvents"] if isinstance(trace, dict) else trace
                    rows.append(figures(events, mark_now, run))
                    print(f"  {n:,} cards, page {len(rows)}: " + ", ".join(f"{k} {v:.1f}" for k, v in rows[-1].items()))
                mid = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
                print(f"load → rest {n:,} cards ({args.shape}), medians of {len(rows)} pages: main-thread CPU longest "
                      f"task {mid['task_max']:.1f} ms (over 16 ms: {mid['tasks_16']:.0f}, over 50: "
                      f"{mid['tasks_50']:.0f}); "
                      f"frame intervals p95 {mid['interval_p95']:.1f} / longest {mid['interval_max']:.1f} ms, over "
                      f"16.7 ms: {mid['intervals_16']:.0f} of {mid['frames']:.0f} frames; CPU {mid['cpu']:.0f} ms; "
                      f"wall-clock frame p95 {mid['wall_p95']:.1f} ms")  # fmt: skip
            browser.close()
    finally:
        server.shutdown()
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
