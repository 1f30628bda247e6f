"""What durability costs an SQLite store: store_node calls, one transaction each,
with ``synchronous = FULL`` (a write acknowledged survives a power loss: the default) and
``NORMAL`` (it survives a crash of the process), alternated in rounds in one run; medians
and the ratio, with the machine load. The disk is the one under the temporary folder.

    python bench/bench_durability.py [--writes 300] [--rounds 5]
    python bench/bench_durability.py --bulk [--rounds 3]   # a bulk import, SQLite and PostgreSQL

``--bulk``: what the change numbers cost a bulk import (the live editor's deltas: the
triggers of SQLite's schema 10 and 11, PostgreSQL's 9 and 10): 10,000 nodes, then 20,000
edges between them, by ``store_many`` calls of 2,000 items (one transaction each), into a fresh store with the
triggers and into one they were dropped from, alternated in rounds; medians and the ratio.
PostgreSQL: a throwaway server on 127.0.0.1 (``tests/support/pg_cluster.py``, fsync off).
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from bendscope.memory import Memory
from bendscope.memory.store.base import Store
from bendscope.memory.store.sqlite import SQLiteStore

GRAPH_TRIGGERS = ("graph_node_insert", "graph_node_delete", "graph_node_update",
                  "graph_edge_insert", "graph_edge_delete", "graph_edge_update")  # fmt: skip
#: the triggers that number changes (dropped from a throwaway store to price them)
SQLITE_CHANGE_TRIGGERS = tuple(f"{t}_changed_{op}" for t in ("nodes", "edges") for op in ("insert", "update", "delete"))
POSTGRES_CHANGE_TRIGGERS = tuple(
    f"{name} ON {t}" for t in ("nodes", "edges") for name in (f"{t}_changed", f"{t}_removed")
)
BULK_NODES, BULK_EDGES, BATCH = 10_000, 20_000, 2_000


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


def bulk_import_s(store: Store, numbered: bool) -> tuple[float, float]:
    """Seconds (wall, and this process's CPU: the SQLite store's whole work, less swayed by
    other processes on the machine) to store BULK_NODES nodes, then BULK_EDGES edges between them (each node joined
    to the next two), by store_many calls of BATCH items; ``numbered=False``: the change
    numbers' triggers dropped first (a throwaway store: to price them in the same run)."""
    if not numbered:
        if isinstance(store, SQLiteStore):
            for name in SQLITE_CHANGE_TRIGGERS:
                store._conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        else:
            with store.transaction():
                for name in POSTGRES_CHANGE_TRIGGERS:
                    store._conn.execute(f"DROP TRIGGER IF EXISTS {name}")  # type: ignore[attr-defined]
    memory = Memory(store)
    nodes = [{"id": f"n{i}", "content": f"fact number {i}: the bulk import writes this"} for i in range(BULK_NODES)]
    edges = [
        {"id": f"e{i}-{k}", "source_id": f"n{i}", "target_id": f"n{(i + k) % BULK_NODES}", "edge_type": "related"}
        for i in range(BULK_NODES)
        for k in (1, 2)
    ][:BULK_EDGES]
    start, cpu = time.perf_counter(), time.process_time()
    for at in range(0, BULK_NODES, BATCH):
        memory.store_many({"nodes": nodes[at : at + BATCH]})
    for at in range(0, len(edges), BATCH):
        memory.store_many({"edges": edges[at : at + BATCH]})
    return time.perf_counter() - start, time.process_time() - cpu


def bulk(rounds: int) -> None:
    """``--bulk``: the import with and without the change numbers' triggers, on both stores."""
    from pg_cluster import Cluster

    from bendscope.memory.store.postgres import PostgresStore

    made = 0
    times: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    cluster = Cluster()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(rounds):
                for backend in ("sqlite", "postgresql"):
                    for numbered in (True, False):
                        made += 1
                        store: Store = (
                            SQLiteStore(Path(tmp) / f"bulk{made}.sqlite3")
                            if backend == "sqlite"
                            else PostgresStore(cluster.create_database(f"bulk{made}"))
                        )
                        with store:
                            times.setdefault((backend, numbered), []).append(bulk_import_s(store, numbered))
    finally:
        cluster.stop()
    print(f"\n{BULK_NODES:,} nodes + {BULK_EDGES:,} edges by store_many ({BATCH:,} a call), median of {rounds}:")
    print("| store | with the change numbers' triggers s | without s | with / without | CPU s with / without |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for backend in ("sqlite", "postgresql"):
        (a, ac), (b, bc) = ([statistics.median(v) for v in zip(*times[backend, k], strict=True)] for k in (True, False))
        print(f"| {backend} | {a:.2f} | {b:.2f} | {a / b:.2f}x | {ac:.2f} / {bc:.2f} = {ac / bc:.2f}x |")
    print(f"machine load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bulk", action="store_true", help="the change numbers' cost on a bulk import instead")
    args = parser.parse_args()
    if args.bulk:
        print(f"machine load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")
        bulk(args.rounds)
        return
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
