"""A drag's frames as the page's main thread works them: CPU time per frame interval.

    python bench/bench_drag_cpu.py [--sizes 2000] [--pages 2] [--drags 3] [--dwell 0] [--against ../other-tree]

The drag of ``bench_hand`` (the loop region's card nearest the middle, 200 px in 20 real mouse
moves, zoom 1, after the layout rested; ``--dwell`` ms resting on the card before the press,
0: the press as the pointer lands), on fresh pages, traced with Chromium's tracing as
``bench_load_cpu`` traces a load: of each frame interval (between two ``BeginMainFrame``) from
the press to the release, the *thread* time of the tasks the renderer's main thread began in it
(the CPU it used, which a busy machine does not stretch as it stretches wall time). Figures
per drag and pooled: the press's interval (the first), the longest, the p95, and how many
intervals took over 14 ms of CPU (a frame of 16.7 ms with the compositor's share left). The
first drag of each page is given apart (a page's first drag). ``--against`` serves another
tree's code in the same run, drags alternating page by page (the "before" column). Work
figures for comparing versions on a machine too busy for frame intervals; never pass/fail.
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

from bench_hand import DWELL, LOAD, WAIT_REST, central, p95, region_nodes  # noqa: E402
from bench_load_cpu import CATEGORIES, MARK, TOP  # noqa: E402
from graphs import giant_scc_document  # noqa: E402
from harness import CHROMIUM, CHROMIUM_ARGS, open_app, start_in_thread  # noqa: E402

OVER_MS = 14.0  # an interval's CPU over this leaves the compositor too little of a 16.7 ms frame
#: note the page time of the next pointerdown and pointerup (``event.timeStamp``: when the input came)
DOWN = """() => {
  const w = window.__dragCpu = {};
  window.addEventListener('pointerdown', e => { w.down = e.timeStamp; }, {capture: true, once: true});
  window.addEventListener('pointerup', e => { w.up = e.timeStamp; }, {capture: true, once: true});
}"""


def intervals(events: list[dict], mark_now: float, t0: float, t1: float, explain: list | None = None) -> list[float]:
    """The main thread's CPU (ms) per frame interval between page times ``t0`` and ``t1``;
    the first interval begins with the first frame after the press (the press's frame); ``explain``
    gets its tasks over 1 ms (page time of their start, CPU ms)."""
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"
    }
    count = collections.Counter((e.get("pid"), e.get("tid")) for e in events)
    main = max((k for k, v in names.items() if v == "CrRendererMain"), key=lambda k: count[k])
    mark = min(e["ts"] for e in events if e.get("name") == "bench-load-cpu")
    start, end = mark + (t0 - mark_now) * 1000.0, mark + (t1 - mark_now) * 1000.0
    spans = [e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"]
    tasks = sorted((e["ts"], e.get("tdur", 0) / 1000.0) for e in spans if e["name"] in TOP)
    frames = sorted(e["ts"] for e in spans if e["name"] == "ProxyMain::BeginMainFrame")
    frames = [f for f in frames if f >= start - 17_000 and f <= end + 17_000]
    # (the interval holding the press begins at the last frame before it)
    first = max([i for i, f in enumerate(frames) if f <= start], default=0)
    frames = frames[first + 1 :]  # (from the first frame after the press: the press's)
    if explain is not None and len(frames) > 1:
        explain += [
            (round(mark_now + (at - mark) / 1000.0, 1), round(ms, 1))
            for at, ms in tasks
            if frames[0] <= at < frames[1] and ms > 1.0
        ]
    return [sum(ms for at, ms in tasks if a <= at < b) for a, b in itertools.pairwise(frames) if a <= end]


def drag(app, browser, node: str, dwell: float, sign: int, explain: bool = False) -> list[float]:
    page = app.page
    x, y = app.node_xy(node)
    browser.start_tracing(page=page, categories=CATEGORIES)
    mark_now = app.api(MARK)
    app.api(DOWN)
    page.mouse.move(x, y)  # (then nothing but the press, unless it is to rest there first)
    if dwell > 0:
        app.api(DWELL, dwell)
    page.mouse.down()
    for k in range(1, 21):
        page.mouse.move(x + sign * 10.0 * k, y)
    page.mouse.up()
    app.api("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    t0, t1 = app.api("() => [window.__dragCpu.down, window.__dragCpu.up]")
    trace = json.loads(browser.stop_tracing())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    why: list = []
    out = intervals(events, mark_now, t0, t1, why if explain else None)
    if explain:
        log = json.loads(app.api("window.bendscope.task_log()"))
        own = [
            (round(t[0], 1), round(t[1], 1), t[2]) for t in log if t0 - 40 <= t[0] <= t0 + 40 and t[2] != "background"
        ]
        print(f"    press at {t0:.1f}: tasks of its interval (start, CPU ms) {why}; the page's own {own}")
    return out


def summary(runs: list[list[float]]) -> str:
    pooled = [v for r in runs for v in r]
    return (
        f"press interval median {statistics.median(r[0] for r in runs):.1f} ms (each "
        f"{', '.join(f'{r[0]:.1f}' for r in runs)}); intervals p95 {p95(pooled):.1f}, longest "
        f"{max(pooled):.1f} ms; over {OVER_MS:.0f} ms: {sum(v > OVER_MS for v in pooled)} of {len(pooled)} "
        f"(each drag {', '.join(str(sum(v > OVER_MS for v in r)) for r in runs)})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000", help="card counts")
    parser.add_argument("--pages", type=int, default=2, help="fresh pages per size (and per tree)")
    parser.add_argument("--drags", type=int, default=3, help="drags per page")
    parser.add_argument("--dwell", type=float, default=0.0, help="ms the pointer rests on the card before the press")
    parser.add_argument("--explain", action="store_true", help="the press interval's tasks")
    parser.add_argument("--against", default="", help="another tree, served in the same run (alternately)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    loads = f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    print(f"machine: {os.cpu_count()} cores; load before {loads} (1/5/15 min); dwell {args.dwell:.0f} ms")
    trees = [("this", ROOT)] + ([("against", Path(args.against).resolve())] if args.against else [])
    servers = [(name, *start_in_thread(root)) for name, root in trees]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for n in [int(s) for s in args.sizes.split(",") if s]:
                text = json.dumps(giant_scc_document(n))
                got: dict[str, dict[str, list[list[float]]]] = {
                    name: {"first": [], "all": []} for name, _, _ in servers
                }
                for _ in range(args.pages):
                    for name, _server, base in servers:
                        app = open_app(
                            browser, base, "seed=1&fresh=1", context_args={"reduced_motion": "no-preference"}
                        )
                        app.api(LOAD, [text, 120_000])
                        app.api("window.bendscope.action('zoom-reset')")
                        app.api(WAIT_REST, 10_000)
                        region = region_nodes(app)
                        for k in range(args.drags):
                            app.page.mouse.move(4, 796)  # (off the cards: a press with no rest on its card)
                            app.api(WAIT_REST, 30_000)
                            run = drag(
                                app, browser, central(app, region), args.dwell, 1 if k % 2 == 0 else -1, args.explain
                            )
                            got[name]["all"].append(run)
                            if k == 0:
                                got[name]["first"].append(run)
                            print(
                                f"  {name} {n:,} drag {k + 1}: CPU per interval " + ", ".join(f"{v:.1f}" for v in run)
                            )
                        app.api(WAIT_REST, 30_000)
                        app.page.context.close()
                for name, _, _ in servers:
                    print(f"{name}, {n:,} cards, every drag: {summary(got[name]['all'])}")
                    print(f"{name}, {n:,} cards, a page's first drag: {summary(got[name]['first'])}")
            browser.close()
    finally:
        for _, server, _ in servers:
            server.shutdown()
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
