"""κ on every write (issue 20): ``store_edge`` and ``delete_edge`` with the topological effect
they report, on stores of 10,000 and 100,000 nodes holding one 1,000-node SCC, against the
same writes without the report (``store_edge(report=False)``, the write alone: the baseline,
same store, same process). Medians and tails, never pass/fail.

    python bench/bench_write_effect.py            # SQLite, 10,000 and 100,000 nodes (minutes)
    python bench/bench_write_effect.py --quick    # 2,000 nodes, a smoke test

The store is bench_memory's (8–20-word nodes, about 2 edges per node, some causal loops of
2–5 nodes) plus a ring of 1,000 nodes with 500 causal chords: one SCC of 1,000 nodes. Writes:
  inside — a causal chord between two nodes of the big SCC (its κ is recomputed: that SCC is
           the component the write touches), then deleting it again;
  across — a causal edge between two random nodes (mostly a small or empty component);
  related — an association between two random nodes (no κ part: the searches stop at once).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bench_memory import T, build, percentile

from bendscope.memory import Memory
from bendscope.memory.records import MemoryEdge
from bendscope.memory.sqlite_store import SQLiteStore

RING = 1_000


def add_big_scc(store: SQLiteStore, n: int, rng: random.Random) -> list[str]:
    """A 1,000-node causal ring with 500 chords among nodes spread over the store."""
    members = [f"n{i}" for i in rng.sample(range(n), RING)]
    with store.transaction():
        for k in range(RING):
            store.put_edge(MemoryEdge(f"ring{k}", members[k], members[(k + 1) % RING], "causal", created_at=T))
        for k in range(RING // 2):
            a, b = rng.sample(members, 2)
            store.put_edge(MemoryEdge(f"chord{k}", a, b, "causal", created_at=T))
    return members


def timed(call, *args, **kwargs) -> tuple[float, dict]:
    t0 = time.perf_counter()
    answer = call(*args, **kwargs)
    return (time.perf_counter() - t0) * 1000, answer


def run(n: int, calls: int) -> list[dict]:
    rng = random.Random(5)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = build(SQLiteStore(Path(tmp) / f"bench-{n}.sqlite3"), n)
        members = add_big_scc(store, n, rng)
        memory = Memory(store)
        for case in ("inside", "across", "related"):
            with_effect: list[float] = []
            alone: list[float] = []
            removal: list[float] = []
            descriptions: dict[str, int] = {}
            for _ in range(calls):
                if case == "inside":
                    a, b = rng.sample(members, 2)
                else:
                    a, b = f"n{rng.randrange(n)}", f"n{rng.randrange(n)}"
                kind = "related" if case == "related" else "causal"
                if a == b:
                    continue
                ms, answer = timed(memory.store_edge, {"source_id": a, "target_id": b, "edge_type": kind})
                with_effect.append(ms)
                descriptions[answer["topology"]["description"]] = (
                    descriptions.get(answer["topology"]["description"], 0) + 1
                )
                ms, _ = timed(memory.delete_edge, answer["edge"]["id"]) if answer["status"] == "created" else (0.0, {})
                if answer["status"] == "created":
                    removal.append(ms)
                # the same write with no report (then undone the same way, unmeasured)
                ms, plain = timed(memory.store_edge, {"source_id": a, "target_id": b, "edge_type": kind}, report=False)
                alone.append(ms)
                if plain["status"] == "created":
                    with store.transaction():
                        store.delete_edge(plain["edge"]["id"])
            rows.append(
                {
                    "nodes": n,
                    "case": case,
                    "calls": len(with_effect),
                    "p50": statistics.median(with_effect),
                    "p95": percentile(with_effect, 95),
                    "alone_p50": statistics.median(alone),
                    "alone_p95": percentile(alone, 95),
                    "delete_p50": statistics.median(removal) if removal else 0.0,
                    "delete_p95": percentile(removal, 95) if removal else 0.0,
                    "descriptions": descriptions,
                }
            )
        store.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--calls", type=int, default=None, help="writes per case (200; --quick: 30)")
    args = parser.parse_args(argv)
    sizes = [2_000] if args.quick else [10_000, 100_000]
    calls = args.calls or (30 if args.quick else 200)
    load = os.getloadavg()
    print(f"store_edge / delete_edge with their topology on SQLite ({calls} writes per case, "
          f"CPython {sys.version.split()[0]}, {os.cpu_count()} cores)")  # fmt: skip
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print("| nodes | write | store_edge p50 ms | p95 | without the report p50 (baseline) | p95 | ratio p50 | "
          "delete_edge p50 | p95 | what the writes did |")  # fmt: skip
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for n in sizes:
        for r in run(n, calls):
            said = ", ".join(f"{k} {v}" for k, v in sorted(r["descriptions"].items(), key=lambda kv: -kv[1]))
            print(
                f"| {n:,} | {r['case']} | {r['p50']:.2f} | {r['p95']:.2f} | {r['alone_p50']:.2f} | "
                f"{r['alone_p95']:.2f} | {r['p50'] / r['alone_p50']:.1f}× | {r['delete_p50']:.2f} | "
                f"{r['delete_p95']:.2f} | {said} |",
                flush=True,
            )
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
