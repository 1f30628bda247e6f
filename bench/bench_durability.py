"""What durability costs an SQLite store: store_node calls, one transaction each,
with ``synchronous = FULL`` (a write acknowledged survives a power loss: the default) and
``NORMAL`` (it survives a crash of the process), alternated in rounds in one run; medians
and the ratio, with the machine load. The disk is the one under the temporary folder.

    python bench/bench_durability.py [--writes 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))

from bendscope.memory import Memory
from bendscope.memory.store.sqlite import SQLiteStore

GRAPH_TRIGGERS = ("graph_node_insert", "graph_node_delete", "graph_node_update",
                  "graph_edge_insert", "graph_edge_delete", "graph_edge_update")  # fmt: skip


def per_write_ms(durable: bool, writes: int, folder: Path, graph_count: bool = True) -> float:
    """Milliseconds per store_node on a fresh store (each call one transaction);
    ``graph_count=False``: without schema 6's triggers that count graph changes for the live
    editor (dropped from this throwaway store, to price them in the same run)."""
    path = folder / f"d{int(durable)}-{time.monotonic_ns()}.sqlite3"
    with SQLiteStore(path, durable=durable) as store:
        if not graph_count:
            for name in GRAPH_TRIGGERS:
                store._conn.execute(f"DROP TRIGGER {name}")
        memory = Memory(store)
        start = time.perf_counter()
        for i in range(writes):
            memory.store_node({"content": f"fact number {i}: the durability benchmark writes this"})
        return (time.perf_counter() - start) * 1000 / writes


def batched_ms(writes: int, folder: Path) -> float:
    """Milliseconds per node when ``writes`` nodes are one store_many call (one transaction,
    one flush), durable."""
    path = folder / f"b-{time.monotonic_ns()}.sqlite3"
    with SQLiteStore(path) as store:
        memory = Memory(store)
        nodes = [{"content": f"fact number {i}: the durability benchmark writes this"} for i in range(writes)]
        start = time.perf_counter()
        memory.store_many({"nodes": nodes})
        return (time.perf_counter() - start) * 1000 / writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"machine load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")
    full: list[float] = []
    normal: list[float] = []
    batched: list[float] = []
    uncounted: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"folder: {folder} ({os.statvfs(folder).f_bsize} B blocks)")
        for _ in range(args.rounds):
            full.append(per_write_ms(True, args.writes, folder))
            normal.append(per_write_ms(False, args.writes, folder))
            batched.append(batched_ms(args.writes, folder))
            uncounted.append(per_write_ms(True, args.writes, folder, graph_count=False))
    f, n, b = statistics.median(full), statistics.median(normal), statistics.median(batched)
    print(f"\n| SQLite synchronous | store_node ms (median of {args.rounds} rounds of {args.writes}) | writes/s |")
    print("| --- | ---: | ---: |")
    print(f"| FULL (the default: survives a power loss) | {f:.3f} | {1000 / f:,.0f} |")
    print(f"| NORMAL (survives a crash of the process) | {n:.3f} | {1000 / n:,.0f} |")
    print(f"| FULL, the {args.writes} nodes as one store_many call (one transaction) | {b:.3f} | {1000 / b:,.0f} |")
    u = statistics.median(uncounted)
    print(f"| FULL, without the live editor's graph change count (schema 6's triggers) | {u:.3f} | {1000 / u:,.0f} |")
    print(f"FULL / NORMAL = {f / n:.2f}x; with / without the graph change count = {f / u:.2f}x")
    print(f"one store_many / one store_node per fact (FULL) = {b / f:.2f}x")
    print(f"machine load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")


if __name__ == "__main__":
    main()
