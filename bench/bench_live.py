"""The live editor's latency: from an agent's write committed to the card on the open page.

    python bench/bench_live.py [--backend sqlite|postgresql|both] [--seconds S]   (make bench-live)

A real memory server (``serve --http 0 --editor``) serves the real page in headless
Chromium, motion on. A writer — another process's view of the store: its own SQLite
connection, or its own PostgreSQL pool with the page's server a separate process — stores
cards at 1, 10 and 100 writes per second (from when the page shows the memory and its
layout rests; ``--while-opening``: as soon as it listens), each joined to the card before it (a node and an
edge per write, one transaction each). The page notes when each card first arrives
(``window.bendscope.live_arrivals()``, ``Date.now()``); the latency of a write is that time
minus the moment its transaction returned. Reported: p50 / p95 / max per rate, cards that
never arrived, the page's fetches in that rate's run with the medians of its own timings (reading
a fetched state's JSON, merging it), and the frame intervals (rAF) while the writes arrive —
what a person watching feels. The machine's load is printed with the numbers. Not a test:
nothing passes or fails here.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT))  # (the served memory of tests/memory)

from harness import CHROMIUM, CHROMIUM_ARGS, new_context  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bendscope.memory.core.service import Memory  # noqa: E402
from bendscope.memory.web.editor_site import Admission  # noqa: E402
from tests.memory.web.test_editor_site import _Served  # noqa: E402

TOKEN = "bench-live-token-0123456789abcdef"
RATES = (1, 10, 100)
FRAMES = """
() => { window.__frames = []; window.__stamps = []; window.__long = []; let last = performance.now();
  performance.clearResourceTimings(); performance.setResourceTimingBufferSize(100000);
  window.__obs = new PerformanceObserver(l => {
    for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); });
  window.__obs.observe({type: 'longtask'});
  const step = (t) => { window.__frames.push(t - last); window.__stamps.push(t); last = t;
    window.__raf = requestAnimationFrame(step); };
  window.__raf = requestAnimationFrame(step); }
"""
#: the frame stamps, long tasks, painted frames' parts and background tasks of the burst
FRAMES_END = """() => { cancelAnimationFrame(window.__raf); window.__obs.disconnect();
  const s = window.__stamps, t0 = s[0], t1 = s[s.length - 1], b = window.bendscope;
  const inside = (at) => at >= t0 - 50 && at <= t1;
  return {frames: window.__frames.slice(1), stamps: s, long: window.__long,
    painted: JSON.parse(b.frame_log()).filter(f => inside(f.at)),
    tasks: b.task_log ? JSON.parse(b.task_log()).filter(t => inside(t[0])) : [],
    net: performance.getEntriesByType('resource').filter(r => r.name.includes('/api/graph'))
      .map(r => [r.startTime, r.responseStart - r.startTime, r.responseEnd - r.startTime])}; }"""


def change_frames(painted: list[dict]) -> dict:
    """The painted frames that showed a live change: how many, and the medians of their main
    thread's ms (the layout step, the scene work, the whole paint) and of the changes' merges.

    >>> change_frames([{"tick": 1.0, "scene": 2.0, "paint": 5.0, "applied": [3.0]},
    ...                {"tick": 0.5, "scene": 0.0, "paint": 1.0, "applied": []}])
    {'frames': 1, 'tick': 1.0, 'scene': 2.0, 'paint': 5.0, 'applied': 3.0}
    """
    shown = [f for f in painted if f["applied"]]
    if not shown:
        return {"frames": 0}
    out: dict = {"frames": len(shown)}
    for part in ("tick", "scene", "paint"):
        out[part] = statistics.median(f[part] for f in shown)
    out["applied"] = statistics.median(a for f in shown for a in f["applied"])
    return out


def explain(burst: dict, over: float = 20.0) -> list[str]:
    """Each frame interval of a burst longer than ``over`` ms with what ran in it: the frames
    painted (the layout step, Python's scene work, the whole paint, the live changes brought
    in since the frame before), the page's background tasks (fetches with the cards they
    brought, κ and layout slices) and long tasks.

    >>> explain({"stamps": [0.0, 10.0, 45.0], "long": [[12.0, 51.0]], "tasks": [[11.0, 9.0, "fetch +2"]],
    ...          "painted": [{"at": 30.0, "tick": 1.0, "scene": 4.0, "paint": 12.0, "applied": [8.0]}]})
    ['#1 35.0 ms: frame tick 1.0 scene 4.0 paint 12.0 (whole) applied 8.0; fetch +2 9.0; long 51.0']
    """
    stamps, out = burst["stamps"], []
    for i, (a, b) in enumerate(itertools.pairwise(stamps)):
        if b - a <= over:
            continue
        parts = [
            f"frame tick {f['tick']:.1f} scene {f['scene']:.1f} paint {f['paint']:.1f} ({f.get('patch') or 'whole'})"
            + "".join(f" {k} {v:.1f}" for k, v in f.get("plan", {}).items() if v >= 1.0)
            + (" applied " + "+".join(f"{x:.1f}" for x in f["applied"]) if f["applied"] else "")
            for f in burst["painted"]
            if a <= f["at"] < b
        ]
        parts += [f"{what} {ms:.1f}" for at, ms, what in burst["tasks"] if a - ms <= at < b]
        parts += [f"long {ms:.1f}" for at, ms in burst["long"] if a - ms <= at < b]
        out.append(f"#{i} {b - a:.1f} ms: " + "; ".join(parts))
    return out


def task_ms(burst: dict, label: str) -> float:
    """The page's tasks whose label begins with ``label``: their ms per second of the burst.

    >>> task_ms({"stamps": [0.0, 2000.0], "tasks": [[5.0, 12.0, "background"], [9.0, 4.0, "fetch +3"]]}, "back")
    6.0
    """
    stamps = burst["stamps"]
    seconds = (stamps[-1] - stamps[0]) / 1000 if len(stamps) > 1 else 0.0
    busy = sum(ms for _at, ms, what in burst["tasks"] if what.startswith(label))
    return busy / seconds if seconds > 0 else float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def open_writer(backend: str, location: str) -> Memory:
    if backend == "sqlite":
        from bendscope.memory.store.sqlite import SQLiteStore

        return Memory(SQLiteStore(location))
    from bendscope.memory.store.postgres import PostgresStore

    return Memory(PostgresStore(location, pool_size=2))


def _stat(pid: int) -> tuple[str, int, float] | None:
    """A process's name, parent and CPU seconds (user + system) from /proc; None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
    return name, int(rest[1]), (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def _cmdline(pid: int) -> str:
    """A process's command line, or "" if it has ended meanwhile (a PostgreSQL backend does)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def cpu_by_part(server_pid: int, location: str) -> dict[str, float]:
    """CPU seconds used so far by the parts of one run (Linux /proc): the browser (this
    process's chromium), the page's server, the PostgreSQL cluster of ``location`` (its
    postmaster, found by its port, and every backend) and this process (the writer)."""
    procs = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None:
            procs[int(entry.name)] = found
    children: dict[int, list[int]] = {}
    for pid, (_name, parent, _cpu) in procs.items():
        children.setdefault(parent, []).append(pid)

    def tree(root: int) -> list[int]:
        out, todo = [], [root]
        while todo:
            pid = todo.pop()
            out.append(pid)
            todo += children.get(pid, [])
        return out

    port = location.rsplit(":", 1)[-1].split("/")[0] if location.startswith("postgresql") else None
    master = next((pid for pid, (name, _p, _c) in procs.items() if name == "postgres" and port
                   and f"port={port}" in _cmdline(pid)), None)  # fmt: skip
    mine = tree(os.getpid())
    parts = {
        "browser": sum(procs[p][2] for p in mine if "chrom" in procs[p][0] or "headless" in procs[p][0]),
        "server": sum(procs[p][2] for p in tree(server_pid) if p in procs),
        "postgres": sum(procs[p][2] for p in tree(master) if p in procs) if master else 0.0,
        "writer": sum(os.times()[:2]),
    }
    return parts


def run_rate(page, writer: Memory, rate: int, seconds: float, start: int, cpu=None) -> dict:
    count = max(3, round(rate * seconds))
    cpu_before = cpu() if cpu else {}
    fetched_before = json.loads(page.evaluate("window.bendscope.live_state()"))["fetches"]
    page.evaluate(FRAMES)
    committed: dict[str, float] = {}
    began = time.perf_counter()
    for k in range(count):
        due = began + k / rate
        pause = due - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        node_id = f"w{start + k}"
        with writer.store.transaction():
            writer.store_node({"id": node_id, "content": f"Observation {start + k} from the agent"})
            if start + k > 0:
                writer.store_edge(
                    {
                        "id": f"e{start + k}",
                        "source_id": f"w{start + k - 1}",
                        "target_id": node_id,
                        "edge_type": "causal",
                    }
                )
        committed[node_id] = time.time() * 1000
    achieved = count / (time.perf_counter() - began)
    cpu_after = cpu() if cpu else {}
    wall = time.perf_counter() - began
    deadline = time.monotonic() + 15
    arrivals: dict[str, float] = {}
    while time.monotonic() < deadline:
        arrivals = json.loads(page.evaluate("window.bendscope.live_arrivals()"))
        if all(n in arrivals for n in committed):
            break
        page.wait_for_timeout(50)
    burst = page.evaluate(FRAMES_END)
    frames = burst["frames"]
    latencies = [arrivals[n] - t for n, t in committed.items() if n in arrivals]
    state = json.loads(page.evaluate("window.bendscope.live_state()"))
    fetches = state["fetches"] - fetched_before
    parts = state["timings"][-fetches:] if fetches else []  # (the page's own ms: JSON read, merge; ≤ 50 kept)
    asked = state["asked"][-fetches:] if fetches else []  # (when each fetch began, ms until its answer's text)
    starts = [a[0] for a in asked]
    return {
        "rate": rate,
        "achieved": achieved,
        "writes": count,
        "missing": count - len(latencies),
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p95": percentile(latencies, 0.95) if latencies else float("nan"),
        "max": max(latencies) if latencies else float("nan"),
        "fetches": fetches,
        "read_p50": statistics.median(p[0] for p in parts) if parts else float("nan"),
        "merge_p50": statistics.median(p[1] for p in parts) if parts else float("nan"),
        "ask_p50": statistics.median(a[1] for a in asked) if asked else float("nan"),
        # (the browser's network timing of the same fetches: until the answer's first byte, and its last)
        "net_p50": statistics.median(n[2] for n in burst["net"]) if burst["net"] else float("nan"),
        "ttfb_p50": statistics.median(n[1] for n in burst["net"]) if burst["net"] else float("nan"),
        "gap_p50": statistics.median(b - a for a, b in itertools.pairwise(starts)) if len(starts) > 1 else float("nan"),
        "frame_p50": statistics.median(frames) if frames else float("nan"),
        "frame_p95": percentile(frames, 0.95) if frames else float("nan"),
        "explained": explain(burst),
        "change_frames": change_frames(burst["painted"]),
        "cpu": {k: (cpu_after[k] - cpu_before[k]) / wall for k in cpu_after},  # (cores busy during the writes)
        "brought": [int(t[2].split("+")[1]) for t in burst["tasks"] if t[2].startswith("fetch +")],
        # (the page's main-thread ms per second of the burst in its background slices — κ, loop searches —
        # and in bringing fetched changes in: work, where the frame intervals are what it leaves)
        "background_ms_s": task_ms(burst, "background"),
        "fetch_ms_s": task_ms(burst, "fetch +"),
    }


def preload(writer: Memory, cards: int) -> None:
    """``cards`` cards already in the memory when the page opens: one giant loop (a ring with
    a chord back every 7 cards), the hardest shape for κ and for the layout."""
    if cards <= 0:
        return
    nodes = [{"id": f"p{i}", "text": f"Prior fact {i} of the memory"} for i in range(cards)]
    edges = [
        {"id": f"pe{i}", "a": f"p{i}", "b": f"p{(i + 1) % cards}", "props": {"kind": "causal"}} for i in range(cards)
    ]
    edges += [
        {"id": f"pc{i}", "a": f"p{i}", "b": f"p{max(0, i - 5)}", "props": {"kind": "causal"}}
        for i in range(6, cards, 7)
    ]
    document = {"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r",
                "planes": [{"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}]}  # fmt: skip
    writer.import_document(json.dumps(document))


@contextlib.contextmanager
def store_location(backend: str, name: str) -> Iterator[str]:
    """Where a fresh store of ``backend`` lives for the length of the block: an SQLite file in a
    temporary folder, or a database ``name`` of a PostgreSQL cluster of its own."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield str(Path(folder) / "m.sqlite3")
        return
    from pg_cluster import Cluster

    cluster = Cluster()
    try:
        yield cluster.create_database(name)
    finally:
        cluster.stop()


def bench(
    backend: str,
    seconds: float,
    browser,
    cards: int = 0,
    quick: bool = False,
    rates: tuple[int, ...] = RATES,
    while_opening: bool = False,
) -> list[dict]:
    with store_location(backend, "benchlive") as location:
        return _bench(backend, location, seconds, browser, cards, quick, rates, while_opening)


def _bench(
    backend: str,
    location: str,
    seconds: float,
    browser,
    cards: int,
    quick: bool,
    rates: tuple[int, ...],
    while_opening: bool,
) -> list[dict]:
    writer = open_writer(backend, location)
    preload(writer, cards)
    served = _Served(location, "--token", TOKEN)  # type: ignore[arg-type]
    rows: list[dict] = []
    try:
        base = f"http://127.0.0.1:{served.port}/"
        context = new_context(browser, reduced_motion="no-preference")
        key = Admission(TOKEN, served.port).page_key.decode()
        context.add_cookies([{"name": f"bendscope_token_{served.port}", "value": key, "url": base}])
        # (not the tests' guarded page: its request routing runs in this thread, which sleeps
        # between writes, and would hold the page's requests until it wakes)
        page = context.new_page()
        page.goto(base + "index.html")
        page.wait_for_function("window.bendscope && window.bendscope.ready === true", timeout=120_000)
        page.wait_for_function("JSON.parse(window.bendscope.live_state()).events >= 1", timeout=30_000)
        waited = time.monotonic()
        if not while_opening:  # (the memory open on the page, its layout at rest: else the burst measures the opening)
            page.wait_for_function(f"window.bendscope.stats().nodes >= {cards}", timeout=120_000)
            page.wait_for_function("!window.bendscope.layout_active()", timeout=180_000)
        waited = time.monotonic() - waited
        start = 0
        for rate in rates:
            cpu = lambda: cpu_by_part(served.proc.pid, location)  # noqa: E731
            row = run_rate(page, writer, rate, seconds if rate > 1 or quick else max(seconds, 10), start, cpu)
            start += row["writes"]
            rows.append({"backend": backend, "cards": cards, "opening_s": waited, **row})
            waited = 0.0
            page.wait_for_timeout(1000)
        context.close()
    finally:
        served.stop()
        writer.store.close()
    return rows


def server_answers(backend: str, cards: int, writes: int = 40) -> dict:
    """The server's answer to ``?since=V`` after one write (a node and an edge), in the same run
    both ways: from the store's change numbers (``since.answer_since``) and from the whole
    memory read, made and compared (what the server did before); median and max ms of the
    answering thread's CPU time and of wall time, no page."""
    with store_location(backend, "benchanswer") as location:
        times = _answer_times(backend, location, cards, writes)
    row: dict = {"backend": backend, "cards": cards, "writes": writes}
    for way, pairs in times.items():
        for part, index in (("cpu", 0), ("wall", 1)):
            values = [p[index] for p in pairs]
            row[f"{way}_{part}_p50"], row[f"{way}_{part}_max"] = statistics.median(values), max(values)
    return row


def _answer_times(backend: str, location: str, cards: int, writes: int) -> dict[str, list[tuple[float, float]]]:
    """Per write, (CPU ms, wall ms) of the answer both ways (``server_answers``)."""
    from bendscope.memory.web.deltas import ViewLog
    from bendscope.memory.web.editor_site import graph_answer, graph_view, versioned
    from bendscope.memory.web.timeline import Moment

    writer, server = open_writer(backend, location), None
    try:
        preload(writer, cards)
        server = open_writer(backend, location)
        logs = {"numbers": ViewLog(), "whole": ViewLog()}
        versions = {k: versioned(graph_view(server, None, log=log)[1], log, None)["version"] for k, log in logs.items()}
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in logs}
        for k in range(writes):
            with writer.store.transaction():
                writer.store_node({"id": f"s{k}", "content": f"Observation {k}"})
                if k:
                    writer.store_edge({"id": f"se{k}", "source_id": f"s{k - 1}", "target_id": f"s{k}"})
            for way, log in logs.items():
                wall, cpu = time.perf_counter(), time.thread_time()
                if way == "numbers":
                    answer = graph_answer(server, None, Moment(), log, versions[way])[1]
                else:
                    answer = versioned(graph_view(server, None, log=log)[1], log, versions[way])
                times[way].append(((time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000))
                assert "changes" in answer and answer["changes"]["nodes"]
                versions[way] = answer["version"]
    finally:
        writer.store.close()
        if server is not None:
            server.store.close()
    return times


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of writes per rate (1/s: at least 10)")
    parser.add_argument(
        "--cards",
        type=int,
        nargs="*",
        default=[0, 2000],
        help="cards in the memory before the page opens (one giant loop)",
    )
    parser.add_argument("--rates", default="1,10,100", help="writes per second, one run each")
    parser.add_argument("--answers", action="store_true", help="only the server's answers to ?since=V, both ways")
    parser.add_argument("--quick", action="store_true", help="a few writes per rate, small memories (a smoke run)")
    parser.add_argument(
        "--while-opening", action="store_true", help="write as soon as the page listens (it opens the memory)"
    )
    args = parser.parse_args(argv)
    rates = tuple(int(r) for r in args.rates.split(",") if r)
    if args.quick:
        args.seconds, args.cards = 0.3, [0, 60]
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    load_before = os.getloadavg()
    if args.answers:
        found = [server_answers(b, c) for b in backends for c in args.cards if c]
        load_after = os.getloadavg()
        print(f"machine: {os.cpu_count()} cores; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
        print("the server's answer to ?since=V after one write, ms (the answering thread's CPU / wall; median, max)")
        for r in found:
            print(f"{r['backend']:<11}{r['cards']:>6} cards: from the change numbers {r['numbers_cpu_p50']:.2f} / "
                  f"{r['numbers_wall_p50']:.2f} (max {r['numbers_wall_max']:.1f}); whole memory read and compared "
                  f"{r['whole_cpu_p50']:.2f} / {r['whole_wall_p50']:.2f} (max {r['whole_wall_max']:.1f})")  # fmt: skip
        return found
    rows: list[dict] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for backend in backends:
            for cards in args.cards:
                rows += bench(backend, args.seconds, browser, cards, args.quick, rates, args.while_opening)
        browser.close()
    load_after = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    print("change-to-page latency (ms): an agent's write committed → its card on the open page (motion on)")
    print(
        f"{'backend':<11}{'cards':>6}{'rate/s':>7}{'got/s':>7}{'writes':>7}{'lost':>5}{'p50':>8}{'p95':>8}{'max':>8}"
        f"{'fetches':>8}{'ask p50':>8}{'net p50':>8}{'gap p50':>8}{'read p50':>9}{'merge p50':>10}"
        f"{'frame p50':>10}{'frame p95':>10}"
    )
    for r in rows:
        print(
            f"{r['backend']:<11}{r['cards']:>6}{r['rate']:>7}{r['achieved']:>7.1f}{r['writes']:>7}{r['missing']:>5}"
            f"{r['p50']:>8.0f}{r['p95']:>8.0f}{r['max']:>8.0f}{r['fetches']:>8}{r['ask_p50']:>8.0f}{r['net_p50']:>8.0f}"
            f"{r['gap_p50']:>8.0f}"
            f"{r['read_p50']:>9.1f}{r['merge_p50']:>10.1f}"
            f"{r['frame_p50']:>10.1f}{r['frame_p95']:>10.1f}"
        )
    print("the page's main thread during each burst, ms per second: background slices (κ, loop searches); fetches")
    for r in rows:
        print(f"{r['backend']:<11}{r['cards']:>6}{r['rate']:>7}: {r['background_ms_s']:.0f}; {r['fetch_ms_s']:.0f}")
    print("CPU ms per write during each burst: the browser, the page's server, the PostgreSQL cluster, the writer")
    for r in rows:
        per = {k: v * 1000 / r["achieved"] for k, v in r["cpu"].items()}  # (cores busy × seconds per write)
        print(f"{r['backend']:<11}{r['cards']:>6}{r['rate']:>7}: " + ", ".join(f"{k} {v:.2f}" for k, v in per.items()))
    print(f"machine load after: {load_after[0]:.2f}")
    print(json.dumps(rows))
    return rows


if __name__ == "__main__":
    main()
