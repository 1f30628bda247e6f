"""Agent-memory benchmark: ``retrieve_context`` on stores of 10,000 and 100,000 nodes,
SQLite and PostgreSQL side by side. Medians and tails measured in one process, never
pass/fail.

    python bench/bench_memory.py                       # both backends, 10,000 and 100,000 nodes (minutes)
    python bench/bench_memory.py --backends sqlite     # one backend
    python bench/bench_memory.py --quick               # 2,000 nodes, for a smoke test

PostgreSQL: a throwaway server is started on 127.0.0.1 (``tests/support/pg_cluster.py``: initdb +
pg_ctl in a temporary directory, fsync off) and stopped at the end, unless
``--postgres-url`` names a database to use (the memory tables of each size go in a schema
of their own, ``bench_10000`` and ``bench_100000``, dropped and created afresh). The
client is this process, over loopback TCP: the PostgreSQL numbers include a network
round trip per query, as they would for a server process next to the database.

The graph: nodes of 8–20 words drawn from a 6,000-word vocabulary (Zipf-like, so some
words are common), about 2 edges per node (mostly related/associative, a quarter causal,
some of the causal ones closing small loops). Queries are 2–4 words drawn the same way.

Reported per store and result limit (10, 50, 100): the whole call (p50/p95/p99), the lexical
search alone as the baseline (the same queries, same process) and the ratio, and the
topology step (the ``topology.analyze`` telemetry durations, which cover the κ analysis
of the retrieved subgraph) with the retrieved subgraph sizes. Targets: whole call p50 < 10 ms
and p95 < 25 ms; topology step p95 < 1 ms on subgraphs of ≤ 50 nodes.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from bendscope.memory import Memory
from bendscope.memory.core.records import MemoryEdge, MemoryNode
from bendscope.memory.core.telemetry import ANALYZE
from bendscope.memory.core.telemetry import percentile as nearest_rank
from bendscope.memory.store.base import Store
from bendscope.memory.store.sqlite import SQLiteStore

T = "2026-11-30T10:00:00.000Z"
VOCABULARY = 6_000


def words(rng: random.Random) -> list[str]:
    syllables = ["ka", "ro", "mi", "tel", "an", "ve", "so", "quu", "dra", "lin", "pe", "or", "zu", "ish", "ne"]
    seen: set[str] = set()
    out = []
    while len(out) < VOCABULARY:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            out.append(word)
    return out


def zipf_picker(vocabulary: list[str], rng: random.Random) -> Callable[[], str]:
    weights = [1.0 / (rank + 1) ** 0.9 for rank in range(len(vocabulary))]
    cumulative = []
    total = 0.0
    for w in weights:
        total += w
        cumulative.append(total)

    def pick() -> str:
        x = rng.random() * total
        lo, hi = 0, len(cumulative) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cumulative[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return vocabulary[lo]

    return pick


def build(store: Store, n: int, seed: int = 1) -> Store:
    rng = random.Random(seed)
    pick = zipf_picker(words(rng), rng)
    kinds = ["related", "associative", "related", "causal", "supports", "temporal", "related", "causal"]
    with store.transaction():
        for i in range(n):
            text = " ".join(pick() for _ in range(rng.randint(8, 20)))
            store.put_node(
                MemoryNode(f"n{i}", text, confidence=round(rng.uniform(0.3, 1.0), 2), created_at=T, updated_at=T)
            )
        for i in range(n):
            for k in range(2):
                j = rng.randrange(n)
                if j != i:
                    store.put_edge(MemoryEdge(f"e{i}-{k}", f"n{i}", f"n{j}", rng.choice(kinds), created_at=T))
        for i in range(0, n - 5, 40):  # small causal loops among neighbours
            size = rng.randint(2, 5)
            for k in range(size):
                a, b = f"n{i + k}", f"n{i + (k + 1) % size}"
                store.put_edge(MemoryEdge(f"loop{i}-{k}", a, b, "causal", created_at=T))
    return store


def percentile(values: list[float], q: float) -> float:
    return nearest_rank(sorted(values), q)


def schema_url(url: str, schema: str) -> str:
    """``url`` with its search_path set to ``schema``, which is dropped and created afresh
    (so each store size starts empty, however often the benchmark ran before)."""
    import psycopg
    import psycopg.conninfo

    from bendscope.memory.store.postgres import query_start, split_url

    if "options" in psycopg.conninfo.conninfo_to_dict(split_url(url)[0]):
        raise SystemExit("--postgres-url must not set options: the benchmark sets the search_path itself")
    with psycopg.connect(split_url(url)[0], autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return url + ("&" if query_start(url) >= 0 else "?") + f"options=-c%20search_path%3D{schema}"


def open_backend(backend: str, tmp: str, n: int, postgres: Callable[[str], str]) -> Store:
    if backend == "sqlite":
        return SQLiteStore(Path(tmp) / f"bench-{n}.sqlite3")
    from bendscope.memory.store.postgres import PostgresStore

    return PostgresStore(postgres(f"bench_{n}"))


def run(
    n: int, calls: int, limits: tuple[int, ...], backend: str, postgres: Callable[[str], str]
) -> list[dict[str, Any]]:
    rng = random.Random(2)
    pick = zipf_picker(words(random.Random(1)), rng)
    queries = [" ".join(pick() for _ in range(rng.randint(2, 4))) for _ in range(calls)]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        store = build(open_backend(backend, tmp, n, postgres), n)
        built = time.perf_counter() - start
        memory = Memory(store)
        durations: list[float] = []
        sizes: list[int] = []
        memory.telemetry.attach(
            "bench", ANALYZE, lambda e, m, meta: (durations.append(m["duration_ms"]), sizes.append(m["node_count"]))
        )
        rows = []
        for limit in limits:
            for q in queries[:20]:  # warm the caches
                memory.retrieve_context({"query": q, "limit": limit})
            durations.clear()
            sizes.clear()
            whole: list[float] = []
            for q in queries:
                t0 = time.perf_counter()
                memory.retrieve_context({"query": q, "limit": limit})
                whole.append((time.perf_counter() - t0) * 1000)
            search: list[float] = []
            for q in queries:
                t0 = time.perf_counter()
                store.search(q, limit)
                search.append((time.perf_counter() - t0) * 1000)
            rows.append(
                {
                    "backend": backend,
                    "nodes": n,
                    "limit": limit,
                    "build_s": built,
                    "whole_p50": statistics.median(whole),
                    "whole_p95": percentile(whole, 95),
                    "whole_p99": percentile(whole, 99),
                    "search_p50": statistics.median(search),
                    "topology_p50": statistics.median(durations),
                    "topology_p95": percentile(durations, 95),
                    "subgraph_max": max(sizes),
                    "subgraph_p50": statistics.median(sizes),
                }
            )
        store.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--backends", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--postgres-url", help="use this database instead of starting a throwaway server")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or any(b not in ("sqlite", "postgresql") for b in backends):
        parser.error("--backends takes sqlite and/or postgresql")
    sizes = [2_000] if args.quick else [10_000, 100_000]
    calls = 60 if args.quick else args.calls
    cluster = None

    def postgres(name: str) -> str:
        nonlocal cluster
        if args.postgres_url:
            return schema_url(str(args.postgres_url), name)
        if cluster is None:
            from pg_cluster import Cluster

            cluster = Cluster()
        return cluster.create_database(name)

    load = os.getloadavg()
    print(f"retrieve_context on {' and '.join(backends)} ({calls} calls per store, CPython {sys.version.split()[0]})")
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print("| store | nodes | limit | build s | whole p50 ms | p95 | p99 | search p50 ms (baseline) | whole/search | "
          "topology p50 ms | topology p95 | subgraph nodes p50/max |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    try:
        for n in sizes:
            for backend in backends:
                for r in run(n, calls, (10, 50, 100), backend, postgres):
                    print(
                        f"| {backend} | {n:,} | {r['limit']} | {r['build_s']:.1f} | {r['whole_p50']:.2f} | "
                        f"{r['whole_p95']:.2f} | {r['whole_p99']:.2f} | {r['search_p50']:.2f} | "
                        f"{r['whole_p50'] / r['search_p50']:.1f}× | {r['topology_p50']:.3f} | "
                        f"{r['topology_p95']:.3f} | {r['subgraph_p50']:.0f}/{r['subgraph_max']} |",
                        flush=True,
                    )
    finally:
        if cluster is not None:
            cluster.stop()
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
