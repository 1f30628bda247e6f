"""The Python work of placing one status message (``bend.editor.viewfit``): the boxes of the
cards in sight (``card_rects``) and the spot that covers the least of them and the panels
(``toast_cover``), with every card of a random plane in sight (the densest view).

    PYTHONPATH=py python bench/bench_toast_spot.py [--cards 2000] [--repeats 15] [--width 320]

Thread CPU time, medians of ``--repeats`` placements, and the card boxes read per card
(a tuple that counts its reads: a work figure that does not depend on the machine's load).
Run it against the old code with the same file (the old code has ``toast_spot`` only). Not a
test: nothing passes or fails here.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from bendscope.bend.editor import viewfit  # noqa: E402
from bendscope.bend.editor.editor import Editor  # noqa: E402

WINDOW = (1280.0, 800.0)
PANELS = [(0.0, 0.0, 1280.0, 48.0), (10.0, 58.0, 370.0, 300.0)]


class Counted(tuple):  # type: ignore[type-arg]
    """A box that counts how often it is read."""

    reads = 0

    def __getitem__(self, k: Any) -> Any:
        Counted.reads += 1
        return tuple.__getitem__(self, k)

    def __iter__(self) -> Any:
        Counted.reads += 1
        return tuple.__iter__(self)


def plane(cards: int, zoom: float = 0.25, seed: int = 1) -> Editor:
    """``cards`` cards at random over a 5,000 × 3,000 world, all in sight at zoom 0.25."""
    rng = random.Random(seed)
    editor = Editor()
    editor.viewport = WINDOW
    for i in range(cards):
        editor.add_node(rng.uniform(-2400.0, 2400.0), rng.uniform(-1400.0, 1400.0), f"card {i}")
    editor.plane.camera.zoom = zoom
    return editor


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--zoom", type=float, default=0.25, help="0.25: every card in sight; more: fewer")
    parser.add_argument("--width", type=float, default=320.0, help="the message's width (CSS px)")
    args = parser.parse_args(argv)
    toast = (args.width, 34.0)
    editor = plane(args.cards, args.zoom)
    boxes_ms, spot_ms, place_ms = [], [], []
    for _ in range(args.repeats):
        t0 = time.thread_time()
        boxes = viewfit.card_rects(editor)
        t1 = time.thread_time()
        viewfit.toast_spot(*WINDOW, toast, boxes, PANELS)
        t2 = time.thread_time()
        place(boxes, toast)
        t3 = time.thread_time()
        boxes_ms.append((t1 - t0) * 1e3)
        spot_ms.append((t2 - t1) * 1e3)
        place_ms.append((t1 - t0 + t3 - t2) * 1e3)
    counted = [Counted(b) for b in viewfit.card_rects(editor)]
    Counted.reads = 0
    place(counted, toast)
    result = {
        "cards_in_sight": float(len(counted)),
        "card_boxes_ms": statistics.median(boxes_ms),
        "spot_ms": statistics.median(spot_ms),
        "place_ms": statistics.median(place_ms),
        "reads_per_box": Counted.reads / max(1, len(counted)),
    }
    print(
        f"{args.cards:,} cards, {len(counted):,} in sight, a {args.width:.0f} px message: card boxes "
        f"{result['card_boxes_ms']:.2f} ms, spot {result['spot_ms']:.2f} ms, the whole placement "
        f"{result['place_ms']:.2f} ms (thread CPU, medians of {args.repeats}); "
        f"{result['reads_per_box']:.1f} reads a box"
    )
    return result


def place(boxes: list[viewfit.Rect], toast: tuple[float, float]) -> bool:
    """The page's placement after the card boxes (``app.widgets.Toast.place``): the spot, and
    whether it covers nothing (the old code looked again at every box for that)."""
    cover = getattr(viewfit, "toast_cover", None)
    if cover is not None:
        return bool(cover(*WINDOW, toast, boxes, PANELS)[0] == 0.0)
    left, top = viewfit.toast_spot(*WINDOW, toast, [*boxes, *PANELS], [])
    rect = (left, top, left + toast[0], top + toast[1])
    return not any(viewfit.overlaps(rect, box) for box in [*boxes, *PANELS])


if __name__ == "__main__":
    main()
