"""What the second time axis costs: writes and retrieval on a 100,000-node store, the memory of
this tree against the memory of a git revision from before versions were kept (loaded from
git, as ``bench_engine.py --before`` loads the engine), in the same run, the calls interleaved
(one on each, turn by turn) so both see the same machine load. Medians and tails, never
pass/fail.

    python bench/bench_time.py                          # SQLite, 100,000 nodes, against 1217e83
    python bench/bench_time.py --backends sqlite,postgresql
    python bench/bench_time.py --before REV --nodes 20000 --calls 300
    python bench/bench_time.py --quick                  # 2,000 nodes, a smoke test

Each version builds its own store of the same graph (``bench_memory.build``: 8–20 words a node,
~2 edges a node, small causal loops). Then, through ``Memory`` (the tools' own calls, the loop
index kept by every write):

* **writes**: an edit of an existing node's content (a new version kept: the old one moves to
  the versions table), a new node, a new causal edge, an invalidation of an edge back-dated a
  year (a new version) — per call, p50/p95, and the ratio new/old;
* **retrieval**: ``retrieve_context`` of the same queries (limit 10) on the store the writes
  left (the new one holding the versions they made) — p50/p95/p99 and the ratio (target: p95
  ≤ 1.3×);
* **the past** (new only): the same queries ``known_at`` a time before the writes (read through
  ``store.past``: the versions replaced since, then the same retrieval) and ``as_of`` a year ago.

The machine's load (1/5/15 min) is printed before and after.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_memory  # noqa: E402
from bench_memory import build, percentile, schema_url, words, zipf_picker  # noqa: E402

import bendscope.memory as current  # noqa: E402

#: the revision before versions were kept
BEFORE = "1217e83"


def memory_at(revision: str) -> ModuleType:
    """The memory package of git revision ``revision``, imported as ``memory_before`` from a
    temporary folder (its imports of the engine and the formats are this tree's: unchanged, the formats read from
    ``bendscope.shared`` where they now live)."""
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", revision, "py/bendscope/memory/"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    folder = Path(tempfile.mkdtemp()) / "memory_before"
    for name in names:
        if not name.endswith(".py"):
            continue
        text = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=ROOT, capture_output=True, check=True).stdout
        for moved in (b"docformat", b"graphformats", b"jsonsafe"):  # (now in bendscope.shared)
            text = text.replace(b"bendscope." + moved, b"bendscope.shared." + moved)
            text = text.replace(b"from bendscope import " + moved, b"from bendscope.shared import " + moved)
        target = folder / Path(name).relative_to("py/bendscope/memory")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
    sys.path.insert(0, str(folder.parent))
    return importlib.import_module("memory_before")


class Side:
    """One version of the memory on its own store of the benchmark's graph."""

    def __init__(self, name: str, package: ModuleType, store: Any, n: int) -> None:
        records = importlib.import_module(f"{package.__name__}.core.records")
        fields = {f.name for f in dataclasses.fields(records.MemoryNode)}
        recorded = {"recorded_at": bench_memory.T} if "recorded_at" in fields else {}

        class Nodes:  # (bench_memory.build makes records of the package it is given)
            MemoryNode = functools.partial(records.MemoryNode, **recorded)
            MemoryEdge = functools.partial(records.MemoryEdge, **recorded)

        self.name = name
        started = time.perf_counter()
        self.store = _build(store, n, Nodes)
        self.built = time.perf_counter() - started
        self.memory = package.Memory(self.store)
        self.times: dict[str, list[float]] = {}

    def timed(self, what: str, method: str, arguments: dict[str, Any]) -> Any:
        """``Memory.<method>(arguments)``, timed under ``what``."""
        call = getattr(self.memory, method)
        started = time.perf_counter()
        answer = call(arguments)
        self.times.setdefault(what, []).append((time.perf_counter() - started) * 1000)
        return answer


def _build(store: Any, n: int, records: Any) -> Any:
    """``bench_memory.build`` with the records of one version of the memory."""
    saved = bench_memory.MemoryNode, bench_memory.MemoryEdge
    bench_memory.MemoryNode, bench_memory.MemoryEdge = records.MemoryNode, records.MemoryEdge
    try:
        return build(store, n)
    finally:
        bench_memory.MemoryNode, bench_memory.MemoryEdge = saved


def open_store(package: ModuleType, backend: str, folder: str, tag: str, postgres: Callable[[str], str]) -> Any:
    if backend == "sqlite":
        return importlib.import_module(f"{package.__name__}.store.sqlite").SQLiteStore(Path(folder) / f"{tag}.sqlite3")
    return importlib.import_module(f"{package.__name__}.store.postgres").PostgresStore(postgres(f"bench_time_{tag}"))


def run(n: int, calls: int, backend: str, before: ModuleType, postgres: Callable[[str], str]) -> dict[str, Any]:
    rng = random.Random(7)
    pick = zipf_picker(words(random.Random(1)), rng)
    queries = [" ".join(pick() for _ in range(rng.randint(2, 4))) for _ in range(calls)]
    with tempfile.TemporaryDirectory() as folder:
        sides = [
            Side("before", before, open_store(before, backend, folder, "before", postgres), n),
            Side("now", current, open_store(current, backend, folder, "now", postgres), n),
        ]
        for side in sides:  # (the loop index made, and the caches warm)
            side.memory.store_node({"id": "warm", "content": "warm up"})
            for q in queries[:20]:
                side.memory.retrieve_context({"query": q, "limit": 10})
        time.sleep(0.01)
        past = current.core.records.utc_now()  # (a time before the writes, for the readings of the past)
        time.sleep(0.01)
        for i in range(calls):
            text = " ".join(pick() for _ in range(12))
            j = rng.randrange(n)
            for side in sides if i % 2 else reversed(sides):  # (each first in turn)
                side.timed("edit node", "store_node", {"id": f"n{j}", "content": f"{text} {side.name}"})
                side.timed("new node", "store_node", {"id": f"fresh{i}", "content": text})
                link = {"source_id": f"fresh{i}", "target_id": f"n{j}", "edge_type": "causal"}
                edge = side.timed("new edge", "store_edge", link)["edge"]["id"]
                side.timed("invalidate edge", "invalidate_edge", {"id": edge, "at": "2025-06-01"})
        for i, q in enumerate(queries):
            for side in sides if i % 2 else reversed(sides):
                side.timed("retrieve", "retrieve_context", {"query": q, "limit": 10})
        now = sides[1]
        for q in queries:
            now.timed("retrieve known_at", "retrieve_context", {"query": q, "known_at": past})
            now.timed("retrieve as_of", "retrieve_context", {"query": q, "as_of": "2025-01-01"})
        versions = len(now.store.all_versions()[0]) + len(now.store.all_versions()[1])
        result = {"backend": backend, "nodes": n, "built": [s.built for s in sides], "versions": versions}
        result["times"] = [s.times for s in sides]
        for side in sides:
            side.store.close()
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--before", default=BEFORE, metavar="REV", help=f"the revision to compare with ({BEFORE})")
    parser.add_argument("--backends", default="sqlite", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--postgres-url", help="use this database instead of starting a throwaway server")
    args = parser.parse_args(argv)
    n, calls = (2_000, 60) if args.quick else (args.nodes, args.calls)
    before = memory_at(args.before)
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
    print(f"the second time axis: this tree against {args.before}, {n:,} nodes, {calls} calls of each kind")
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min), {os.cpu_count()} cores")
    print("| store | call | before p50 ms | p95 | now p50 ms | p95 | p99 | ratio p50 | ratio p95 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    try:
        for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
            result = run(n, calls, backend, before, postgres)
            old, new = result["times"]
            for what in ("edit node", "new node", "new edge", "invalidate edge", "retrieve"):
                a, b = old[what], new[what]
                ratio50 = statistics.median(b) / statistics.median(a)
                ratio95 = percentile(b, 95) / percentile(a, 95)
                print(
                    f"| {backend} | {what} | {statistics.median(a):.2f} | {percentile(a, 95):.2f} | "
                    f"{statistics.median(b):.2f} | {percentile(b, 95):.2f} | {percentile(b, 99):.2f} | "
                    f"{ratio50:.2f}× | {ratio95:.2f}× |",
                    flush=True,
                )
            for what in ("retrieve known_at", "retrieve as_of"):
                b = new[what]
                print(
                    f"| {backend} | {what} (now only) | | | {statistics.median(b):.2f} | {percentile(b, 95):.2f} | "
                    f"{percentile(b, 99):.2f} | | |",
                    flush=True,
                )
            print(f"({backend}: built in {result['built'][0]:.0f} s / {result['built'][1]:.0f} s; "
                  f"{result['versions']:,} past versions after the writes)")  # fmt: skip
    finally:
        if cluster is not None:
            cluster.stop()
    load = os.getloadavg()
    print(f"machine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
