"""One structural edit's topology update on a plane of 2,000 cards in one giant loop region.

    PYTHONPATH=py python bench/bench_topology_edit.py [--cards 2000] [--repeats 40] [--quick]
    python bench/bench_topology_edit.py --py /tmp/base/py     # the same on another tree's code

CPython, the editor's own TopologyCache on a model Plane (no page): the plane's topology is
computed once, then each edit is made through the plane's mutators and the time of
``TopologyCache.get`` after it (what the page's frame or its slices spend before the new
topology can be shown) is measured, ``repeats`` times per kind of edit. Two planes: a ring
with a chord back every 7 cards (κ = 1 everywhere) and ``bench_hand.region_document`` (a
Hamiltonian cycle plus random causal arcs, ≈ 2n). Kinds: a card added; an arc from a new
card into the region (closes no cycle); an arc added inside the region, then removed; a ring
arc of the cycle removed (the region may split), then put back (the pieces merge); the new card removed;
30 live writes brought at once (a card joined to the card before it, each: what one fetch
brings at 100 writes/s).
Also: how often the exact topology is ready within a frame's κ budget (6 ms, the page's
``TOPOLOGY_FRAME_MS``). Medians and p95 in ms; the load (``os.getloadavg``) before and
after. ``--py`` runs the code of another tree (e.g. ``git archive 44d4328 py | tar -x -C
/tmp/base``) for a before/after in the same conditions. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

FRAME_BUDGET_MS = 6.0


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def ring_with_chords(n: int, every: int = 7) -> list[tuple[int, int]]:
    """A ring 0 → 1 → … → n-1 → 0 and a chord back from every ``every``-th card to the card
    ``every`` before it: one loop region, κ = 1."""
    arcs = [(i, (i + 1) % n) for i in range(n)]
    arcs += [(i, i - every) for i in range(every, n, every)]
    return arcs


def region_arcs(n: int) -> list[tuple[int, int]]:
    from graphs import random_strong

    return random_strong(n, 2, 3)


def make_plane(n: int, arcs: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane

    plane = Plane("p")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"Node {i}"))
    for k, (a, b) in enumerate(arcs):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}", EdgeProps(kind="causal")))
    return plane


def run(n: int, arcs: list[tuple[int, int]], repeats: int, seed: int = 1) -> dict[str, dict[str, float]]:
    from bendscope.bend.kappa_view.topology_cache import TopologyCache
    from bendscope.bend.model.elements import Edge, EdgeProps, Node

    plane = make_plane(n, arcs)
    cache = TopologyCache()
    start = time.perf_counter()
    cache.get(plane)
    first_ms = (time.perf_counter() - start) * 1000
    rng = random.Random(seed)
    times: dict[str, list[float]] = {}
    in_frame: list[bool] = []
    present = set(arcs)
    ring = [(a, b) for a, b in arcs if b == (a + 1) % n] or arcs
    counter = [len(arcs)]

    def timed(kind: str) -> None:
        shown_start = time.perf_counter()
        shown = cache.shown(plane, budget_ms=FRAME_BUDGET_MS)
        in_frame.append(not shown.pending)
        cache.get(plane)
        times.setdefault(kind, []).append((time.perf_counter() - shown_start) * 1000)

    def edge(a: str, b: str) -> str:
        counter[0] += 1
        edge_id = f"x{counter[0]}"
        plane.add_edge(Edge(edge_id, a, b, EdgeProps(kind="causal")))
        return edge_id

    by_pair = {(f"n{a}", f"n{b}"): f"e{k}" for k, (a, b) in enumerate(arcs)}
    for r in range(repeats):
        card = f"new{r}"
        plane.add_node(Node(card, card))
        timed("card added")
        into = edge(card, f"n{rng.randrange(n)}")
        timed("arc into the region (no cycle)")
        while True:
            a, b = rng.randrange(n), rng.randrange(n)
            if a != b and (a, b) not in present:
                break
        inside = edge(f"n{a}", f"n{b}")
        timed("arc added inside the region")
        plane.remove_edge(inside)
        timed("arc removed inside the region")
        a, b = ring[rng.randrange(len(ring))]
        edge_id = by_pair[(f"n{a}", f"n{b}")]
        old = plane.remove_edge(edge_id)
        timed("cycle arc removed (may split the region)")
        plane.add_edge(old)
        timed("cycle arc put back (merges the pieces)")
        plane.remove_edge(into)
        plane.remove_node(card)
        timed("card and its arc removed")
        previous = f"n{rng.randrange(n)}"
        for w in range(30):  # what a live fetch brings at 100 writes/s: cards, each joined to the one before
            card = f"live{r}-{w}"
            plane.add_node(Node(card, card))
            edge(card, previous)
            previous = card
        timed("30 live writes at once (card + arc each)")
    figures = {kind: {"median": statistics.median(v), "p95": p95(v), "count": len(v)} for kind, v in times.items()}
    figures["(first, whole)"] = {"median": first_ms, "p95": first_ms, "count": 1}
    figures["(ready within a frame's 6 ms)"] = {"median": sum(in_frame) / len(in_frame), "p95": 0.0, "count": 0}
    return figures


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--py", default=None, help="a tree's py/ folder whose code to run (default: this one's)")
    parser.add_argument("--quick", action="store_true", help="200 cards, 5 repeats (a smoke test)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.py or str(ROOT / "py"))
    cards, repeats = (200, 5) if args.quick else (args.cards, args.repeats)
    load_before = os.getloadavg()
    out: dict = {"cards": cards, "repeats": repeats, "code": args.py or str(ROOT / "py")}
    for name, arcs in (("ring + chord back every 7", ring_with_chords(cards)), ("region_document", region_arcs(cards))):
        figures = run(cards, arcs, repeats)
        out[name] = figures
        print(f"\n{name}: {cards} cards, {len(arcs)} arcs, {repeats} edits of each kind (ms)")
        for kind, f in figures.items():
            if kind.startswith("(ready"):
                print(f"  {kind:42} {100 * f['median']:.0f} % of the edits")
            else:
                print(f"  {kind:42} median {f['median']:7.2f}   p95 {f['p95']:7.2f}")
    out["load"] = {"before": load_before, "after": os.getloadavg()}
    print(f"\nload (1/5/15 min) before {load_before}, after {os.getloadavg()}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
