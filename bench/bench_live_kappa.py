"""κ on the page while an agent writes as the page opens its memory, in CPython: the page's
frames and slices replayed against a clock, cards arriving at a steady rate.

    PYTHONPATH=py python bench/bench_live_kappa.py [--cards 2000] [--every 50] [--seconds 3]

The plane: ``--cards`` cards in one giant loop (``bench_live.preload``'s shape). As the page
does after opening it, each frame (one every 16.7 ms of wall time, or after the one before
if that took longer) asks for the topology to draw with a 6 ms budget (``TopologyCache.shown``),
then, while it is not exact, one 12 ms slice goes on with the computation
(``compute_topology``); every ``--every`` ms of wall time a card arrives, joined to the one
before (an agent's chain). Reported for ``--seconds`` of such a burst: when κ was first exact
(ms from the start; never: not during the burst), the computations begun, and the ms of κ work
on the main thread per second of the burst. In the page Python runs ~3× slower than here, so
``--every 40`` stands for a card every ~120 ms there (an application of a burst's changes).
Not a test: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from bendscope.bend.editor.editor import Editor  # noqa: E402
from bendscope.bend.model.document import document_from_data  # noqa: E402

FRAME_MS, SLICE_MS = 6.0, 12.0  # (app.app's TOPOLOGY_FRAME_MS and KAPPA_SLICE_MS)
INTERVAL_MS = 1000 / 60


def loop_document(cards: int) -> dict:
    """One giant loop: a ring with a chord back every 7 cards."""
    nodes = [{"id": f"p{i}", "text": f"Prior fact {i} of the memory"} for i in range(cards)]
    edges = [{"id": f"pe{i}", "a": f"p{i}", "b": f"p{(i + 1) % cards}", "props": {"kind": "causal"}}
             for i in range(cards)]  # fmt: skip
    edges += [{"id": f"pc{i}", "a": f"p{i}", "b": f"p{max(0, i - 5)}", "props": {"kind": "causal"}}
              for i in range(6, cards, 7)]  # fmt: skip
    return {"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r",
            "planes": [{"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}]}  # fmt: skip


def burst(cards: int, every_ms: float, seconds: float) -> dict[str, float]:
    editor = Editor()  # (opened as the live page opens the memory: LiveSync.fetched)
    editor.replace_document(document_from_data(loop_document(cards)), alpha=1.0)
    cache = editor.topology_cache
    assert cache.pending(editor.plane)
    began = time.perf_counter()
    due, last, exact_at, busy, frame = 0.0, "p0", float("nan"), 0.0, 0.0
    while (now := (time.perf_counter() - began) * 1000) < seconds * 1000:
        if now < frame:
            time.sleep((frame - now) / 1000)
            continue
        frame = max(frame + INTERVAL_MS, now)
        if now >= due:  # a card from the agent
            card = editor.add_node(0, 0)
            editor.add_edge(last, card, kind="causal")
            last, due = card, due + every_ms
        t0 = time.perf_counter()
        shown = editor.shown_topology(FRAME_MS)  # a frame
        if cache.pending(editor.plane):
            editor.compute_topology(SLICE_MS)  # a slice after it
        busy += (time.perf_counter() - t0) * 1000
        if not shown.pending and exact_at != exact_at:
            exact_at = now
    return {"exact_at_ms": exact_at, "recomputes": cache.recomputes, "kappa_ms_per_s": busy / seconds}


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--every", type=float, default=40.0, help="ms between two cards")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    found = burst(args.cards, args.every, args.seconds)
    exact = "never" if found["exact_at_ms"] != found["exact_at_ms"] else f"at {found['exact_at_ms']:.0f} ms"
    print(f"{args.cards:,} cards, a card every {args.every:g} ms for {args.seconds:g} s; load {os.getloadavg()[0]:.2f}")
    print(f"κ first exact {exact}; topologies made {found['recomputes']:.0f}; "
          f"κ work {found['kappa_ms_per_s']:.0f} ms per second")  # fmt: skip
    return found


if __name__ == "__main__":
    main()
