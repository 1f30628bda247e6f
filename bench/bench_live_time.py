"""The live page and the memory's time: how long an ended edge takes to leave the page's κ,
and a step of the time control to show another moment.

    python bench/bench_live_time.py [--repeats N] [--cards N] [--quick]

A real memory server (``serve --http 0 --editor``) on SQLite serves the real page in headless
Chromium, motion on; a writer (its own SQLite connection: another process's view of the store)
stores ``--cards`` cards first (a chain, no loop), then, ``--repeats`` times, a two-card loop and,
once the page's HUD says κ 1, invalidates one of its edges. Reported:

* **invalidation → HUD**: from ``invalidate_edge``'s transaction returned to the HUD's κ pill
  saying 0 (watched in the page on every animation frame);
* **slider step → HUD**: from a key press on the time control's slider (one change back, to
  the moment the loop held; then End, back to now) to the HUD's κ.

p50 / p95 / max per measure, with the machine's load. Not a test: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT))

from harness import CHROMIUM, CHROMIUM_ARGS, new_context  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from bendscope.memory.core.service import Memory  # noqa: E402
from bendscope.memory.store.sqlite import SQLiteStore  # noqa: E402
from bendscope.memory.web.editor_site import Admission  # noqa: E402
from tests.memory.web.test_editor_site import _Served  # noqa: E402

TOKEN = "bench-time-token-0123456789abcdef"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def kappa_is(page: Page, value: int, timeout_ms: float = 60_000) -> None:
    page.wait_for_function(
        f"document.getElementById('hud-kappa').textContent === 'κ: {value}'", polling="raf", timeout=timeout_ms
    )


def preload(writer: Memory, cards: int) -> None:
    """``cards`` cards in a chain (causal, no loop), so the page has that much to bring in."""
    if cards <= 0:
        return
    nodes = [{"id": f"p{i}", "text": f"Prior fact {i} of the memory"} for i in range(cards)]
    edges = [{"id": f"pe{i}", "a": f"p{i}", "b": f"p{i + 1}", "props": {"kind": "causal"}} for i in range(cards - 1)]
    document = {"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r",
                "planes": [{"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}]}  # fmt: skip
    writer.import_document(json.dumps(document))


def run(repeats: int, cards: int, browser: Any) -> dict[str, list[float]]:
    folder = tempfile.TemporaryDirectory()
    location = str(Path(folder.name) / "m.sqlite3")
    writer = Memory(SQLiteStore(location))
    preload(writer, cards)
    served = _Served(location, "--token", TOKEN)  # type: ignore[arg-type]
    found: dict[str, list[float]] = {"invalidation": [], "step back": [], "back to now": []}
    try:
        base = f"http://127.0.0.1:{served.port}/"
        context = new_context(browser, reduced_motion="no-preference")
        key = Admission(TOKEN, served.port).page_key.decode()
        context.add_cookies([{"name": f"bendscope_token_{served.port}", "value": key, "url": base}])
        page = context.new_page()
        page.goto(base + "index.html")
        page.wait_for_function("window.bendscope && window.bendscope.ready === true", timeout=120_000)
        page.wait_for_function("JSON.parse(window.bendscope.live_state()).events >= 1", timeout=30_000)
        page.locator("#btn-time").click()
        for k in range(repeats):
            a, b = f"a{k}", f"b{k}"
            writer.store_many({"nodes": [{"id": a, "content": f"Cause {k}"}, {"id": b, "content": f"Effect {k}"}]})
            writer.store_edge({"id": f"{a}>{b}", "source_id": a, "target_id": b, "edge_type": "causal"})
            writer.store_edge({"id": f"{b}>{a}", "source_id": b, "target_id": a, "edge_type": "causal"})
            kappa_is(page, 1)
            writer.invalidate_edge({"id": f"{b}>{a}"})
            committed = time.perf_counter()
            kappa_is(page, 0)
            found["invalidation"].append((time.perf_counter() - committed) * 1000)
            # the time control: one change back (the loop held), then now again
            changes = page.evaluate("fetch('api/history').then(r => r.json()).then(h => h.moments.length)")
            page.wait_for_function(f"JSON.parse(window.bendscope.live_state()).time.stops >= {changes}")
            page.locator("#time-slider").focus()
            page.keyboard.press("End")
            pressed = time.perf_counter()
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("ArrowLeft")
            kappa_is(page, 1)
            found["step back"].append((time.perf_counter() - pressed) * 1000)
            pressed = time.perf_counter()
            page.keyboard.press("End")
            kappa_is(page, 0)
            found["back to now"].append((time.perf_counter() - pressed) * 1000)
        context.close()
    finally:
        served.stop()
        writer.store.close()
        folder.cleanup()
    return found


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--cards", type=int, default=500, help="cards in the memory before the loops (a chain)")
    parser.add_argument("--quick", action="store_true", help="two repeats on a small memory (a smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.cards = 2, 20
    load_before = os.getloadavg()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        found = run(args.repeats, args.cards, browser)
        browser.close()
    load_after = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    print(f"{args.cards} cards first, {args.repeats} loops; ms from the cause to the HUD's κ (motion on)")
    print(f"{'measure':<14}{'n':>4}{'p50':>8}{'p95':>8}{'max':>8}")
    for name, values in found.items():
        print(f"{name:<14}{len(values):>4}{percentile(values, 0.5):>8.0f}{percentile(values, 0.95):>8.0f}"
              f"{max(values):>8.0f}")  # fmt: skip
    print(json.dumps(found))
    return found


if __name__ == "__main__":
    main()
