"""The agent's loop on stores of 10,000 and 100,000 nodes holding one 1,000-node
SCC: ``store_edge`` and ``delete_edge`` with the topological effect they report (kept up to
date in the loop index), ``learn_from_outcome`` and ``consolidate`` (dry run and real run).
Medians and tails, never pass/fail; the baseline is the same write made straight on the
store (no index, no report), in the same run.

    python bench/bench_write_effect.py            # SQLite, 10,000 and 100,000 nodes (minutes)
    python bench/bench_write_effect.py --quick    # 2,000 nodes, a smoke test

The store is bench_memory's (8–20-word nodes, about 2 edges per node, some causal loops of
2–5 nodes) plus a ring of 1,000 nodes with 500 causal chords — one SCC of 1,000 nodes — and
1 % of the nodes stated twice (a duplicate for consolidate to merge). Writes:
  inside  — a causal chord between two nodes of the big SCC (its κ is recomputed: that SCC is
            the component the write touches), then deleting it again;
  across  — a causal edge between two random nodes (mostly a small or empty component);
  related — an association between two random nodes (no κ part).
learn_from_outcome reports a success on what a retrieval (limit 10) returned. consolidate
runs with a clock 90 days after the nodes were written (so every node decays, and some fall
below the pruning threshold).
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

from bench_memory import T, build, percentile, words, zipf_picker

from bendscope.memory import Memory
from bendscope.memory.core.records import MemoryEdge, MemoryNode
from bendscope.memory.store.sqlite import SQLiteStore

RING = 1_000
LATER = "2027-02-28T10:00:00.000Z"  # 90 days after T


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


def add_duplicates(store: SQLiteStore, n: int, rng: random.Random) -> int:
    """1 % of the nodes stated again under an id of their own (with one edge each)."""
    twins = rng.sample(range(n), n // 100)
    with store.transaction():
        for i in twins:
            original = store.get_node(f"n{i}")
            assert original is not None
            store.put_node(MemoryNode(f"twin{i}", original.content.upper(), created_at=T, updated_at=T))
            store.put_edge(MemoryEdge(f"twin-edge{i}", f"twin{i}", f"n{rng.randrange(n)}", "related", created_at=T))
    return len(twins)


def timed(call, *args, **kwargs) -> tuple[float, dict]:
    t0 = time.perf_counter()
    answer = call(*args, **kwargs)
    return (time.perf_counter() - t0) * 1000, answer


def straight(store: SQLiteStore, edge: MemoryEdge) -> float:
    """The baseline: the same write straight on the store, then undone the same way (the loop
    index is told the arcs are as they were: unmeasured)."""
    t0 = time.perf_counter()
    with store.transaction():
        store.put_edge(edge)
    ms = (time.perf_counter() - t0) * 1000
    with store.transaction():
        store.delete_edge(edge.id)
        store.set_loops_version(store.arc_versions()[0])
    return ms


def run(n: int, calls: int) -> tuple[list[dict], dict]:
    rng = random.Random(5)
    rows = []
    extra: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = build(SQLiteStore(Path(tmp) / f"bench-{n}.sqlite3"), n)
        members = add_big_scc(store, n, rng)
        extra["duplicates"] = add_duplicates(store, n, rng)
        memory = Memory(store)
        t0 = time.perf_counter()
        with store.transaction():
            memory.loops.ready()
        extra["index_ms"] = (time.perf_counter() - t0) * 1000
        extra["loops"] = len(store.all_loops())
        for case in ("inside", "across", "related"):
            with_effect: list[float] = []
            alone: list[float] = []
            removal: list[float] = []
            descriptions: dict[str, int] = {}
            for k in range(calls):
                if case == "inside":
                    a, b = rng.sample(members, 2)
                else:
                    a, b = f"n{rng.randrange(n)}", f"n{rng.randrange(n)}"
                kind = "related" if case == "related" else "causal"
                if a == b:
                    continue
                ms, answer = timed(memory.store_edge, {"source_id": a, "target_id": b, "edge_type": kind})
                with_effect.append(ms)
                said = answer["topology"]["description"]
                descriptions[said] = descriptions.get(said, 0) + 1
                if answer["status"] == "created":
                    ms, _ = timed(memory.delete_edge, answer["edge"]["id"])
                    removal.append(ms)
                    alone.append(straight(store, MemoryEdge(f"plain{k}", a, b, kind, created_at=T)))
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
        pick = zipf_picker(words(random.Random(1)), rng)
        learning: list[float] = []
        for _ in range(calls):
            query = " ".join(pick() for _ in range(rng.randint(2, 4)))
            retrieved = memory.retrieve_context({"query": query, "limit": 10})
            if retrieved["retrieval_id"] is None or not retrieved["count"]:
                continue
            ms, _ = timed(memory.learn_from_outcome, {"retrieval_id": retrieved["retrieval_id"], "outcome": "success"})
            learning.append(ms)
        extra["learn"] = (len(learning), statistics.median(learning), percentile(learning, 95))
        later = Memory(store, clock=lambda: LATER)
        dry = [timed(later.consolidate, {"dry_run": True})[0] for _ in range(3)]
        ms, report = timed(later.consolidate, {})
        extra["consolidate"] = (statistics.median(dry), ms, report)
        store.close()
    return rows, extra


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--calls", type=int, default=None, help="writes per case (200; --quick: 30)")
    args = parser.parse_args(argv)
    sizes = [2_000] if args.quick else [10_000, 100_000]
    calls = args.calls or (30 if args.quick else 200)
    load = os.getloadavg()
    print(f"the agent's loop on SQLite ({calls} calls per case, CPython {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores)")  # fmt: skip
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    extras = []
    print("| nodes | write | store_edge p50 ms | p95 | the write alone p50 (baseline) | p95 | ratio p50 | "
          "delete_edge p50 | p95 | what the writes did |")  # fmt: skip
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for n in sizes:
        rows, extra = run(n, calls)
        extras.append((n, extra))
        for r in rows:
            said = ", ".join(f"{k} {v}" for k, v in sorted(r["descriptions"].items(), key=lambda kv: -kv[1]))
            print(
                f"| {n:,} | {r['case']} | {r['p50']:.2f} | {r['p95']:.2f} | {r['alone_p50']:.2f} | "
                f"{r['alone_p95']:.2f} | {r['p50'] / r['alone_p50']:.1f}× | {r['delete_p50']:.2f} | "
                f"{r['delete_p95']:.2f} | {said} |",
                flush=True,
            )
    print()
    print("| nodes | loop index made from scratch ms (loops) | learn_from_outcome p50 ms | p95 | "
          "consolidate dry run ms | real run ms | decayed | merged away | pruned | kept for loops |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, extra in extras:
        _, l50, l95 = extra["learn"]
        dry, real, report = extra["consolidate"]
        print(
            f"| {n:,} | {extra['index_ms']:.0f} ({extra['loops']:,}) | {l50:.2f} | {l95:.2f} | {dry:.0f} | "
            f"{real:.0f} | "
            f"{report['decayed']['count']:,} | {report['merged']['nodes_merged_away']:,} | "
            f"{report['pruned']['count']:,} | {report['kept_for_loops']['count']:,} |"
        )
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
