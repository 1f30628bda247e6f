"""Load test of the shared store: several MCP server processes, each driven by its own
client over stdio (the official SDK), all on one PostgreSQL database, making mixed tool
calls at once. Reports throughput, latency percentiles per tool, errors (the target is
0), and checks at the end that every acknowledged write is in the database.

    python bench/load_memory.py                          # 8 servers × 2,000 calls (a few minutes)
    python bench/load_memory.py --servers 2 --calls 50   # a quick run

Everything listens on 127.0.0.1 only: a throwaway PostgreSQL server (``tests/pg_cluster``:
initdb + pg_ctl in a temporary directory, a free port, stopped at the end) unless
``--postgres-url`` names a database; the MCP servers speak stdio to their clients.

The calls (each client makes them one after another, as an agent does): 25 % new nodes,
10 % new content for one of the client's own nodes, 5 % new content for a node every
client shares, 15 % edges, 3 % deleting one of the client's own edges, 30 %
``retrieve_context``, 6 % ``analyze_topology`` by query, 6 % by 20 node ids.

The consistency check: every node a client created or changed holds the content of its
last acknowledged write; each shared node holds one of the contents acknowledged for it;
every acknowledged edge exists between its ends, every acknowledged deletion is gone;
the access counts add up to exactly the results the acknowledged retrievals returned
(no increment lost); the search statistics equal those recomputed from the nodes.

Then, whatever the machine's load: how many updates of ``nodes`` and ``edges`` PostgreSQL made in
place (HOT, no new index entries: a retrieval's access counts, when the rows' indexed columns stay)
and how many bytes of write-ahead log the run wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

T = "2026-11-30T10:00:00.000Z"
WORDS = [
    f"{a}{b}"
    for a in ("ka", "ro", "mi", "tel", "an", "ve", "so", "dra")
    for b in ("lin", "pe", "or", "zu", "ish", "ne")
]
SEED_NODES = 2_000
SHARED = 20  # seed nodes every client rewrites now and then


def text(rng: random.Random, low: int = 5, high: int = 15) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def seed(url: str) -> None:
    """The graph the clients start from: SEED_NODES nodes, ~2 edges each, some loops."""
    from bendscope.memory.core.records import MemoryEdge, MemoryNode
    from bendscope.memory.store.postgres import PostgresStore

    rng = random.Random(1)
    with PostgresStore(url) as store, store.transaction():
        for i in range(SEED_NODES):
            store.put_node(MemoryNode(f"s{i}", text(rng), created_at=T, updated_at=T))
        for i in range(SEED_NODES):
            for k in range(2):
                j = rng.randrange(SEED_NODES)
                kind = rng.choice(["causal", "related", "temporal", "supports"])
                store.put_edge(MemoryEdge(f"s{i}-{k}", f"s{i}", f"s{j}", kind, created_at=T))


# ---------------------------------------------------------------- one client and its server
async def drive(index: int, url: str, calls: int, pool_size: int) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    rng = random.Random(100 + index)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bendscope.memory", "serve", "--store", url, "--pool-size", str(pool_size)],
        env=env,
    )
    own_nodes: dict[str, str] = {}  # id → last acknowledged content
    shared: dict[str, list[str]] = {}
    edges: dict[str, tuple[str, str]] = {}
    deleted: list[str] = []
    latencies: dict[str, list[float]] = {}
    errors: list[str] = []
    returned = 0
    acknowledged = 0  # write calls that succeeded
    async with Client(params, cache=None) as client:
        await client.call_tool("get_metrics", {})  # the server is up and connected
        start = time.time()
        for k in range(calls):
            roll = rng.random()
            if roll < 0.25 or not own_nodes:
                name, args = "store_node", {"id": f"c{index}-n{k}", "content": text(rng)}
            elif roll < 0.35:
                name, args = "store_node", {"id": rng.choice(sorted(own_nodes)), "content": text(rng)}
            elif roll < 0.40:
                name, args = "store_node", {"id": f"s{rng.randrange(SHARED)}", "content": f"c{index} {text(rng)}"}
            elif roll < 0.55:
                target = rng.choice(sorted(own_nodes)) if rng.random() < 0.5 else f"s{rng.randrange(SEED_NODES)}"
                kind = rng.choice(["causal", "related", "temporal"])
                source = rng.choice(sorted(own_nodes))
                if source == target:  # (a causal or temporal edge to itself is refused: no loop runs through one node)
                    kind = "related"
                args = {"id": f"c{index}-e{k}", "source_id": source, "target_id": target}
                name, args = "store_edge", {**args, "edge_type": kind}
            elif roll < 0.58 and edges:
                name, args = "delete_edge", {"id": rng.choice(sorted(edges))}
            elif roll < 0.88:
                name, args = "retrieve_context", {"query": text(rng, 2, 3), "limit": 10}
            elif roll < 0.94:
                name, args = "analyze_topology", {"query": text(rng, 2, 3)}
            else:
                pool = sorted(own_nodes) + [f"s{i}" for i in range(0, SEED_NODES, 7)]
                name, args = "analyze_topology", {"node_ids": rng.sample(pool, min(20, len(pool)))}
            t0 = time.perf_counter()
            try:
                result = await client.call_tool(name, args)
            except Exception as exc:  # the session broke: an error, and the count says so
                errors.append(f"{name}: {type(exc).__name__}: {exc}")
                break
            latencies.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
            if result.is_error:
                errors.append(f"{name}: {result.content[0].text if result.content else '?'}")
                continue
            answer = result.structured_content or {}
            acknowledged += name in ("store_node", "store_edge", "delete_edge")
            if name == "store_node":
                node_id = answer["id"]
                if node_id.startswith("s"):
                    shared.setdefault(node_id, []).append(args["content"])
                else:
                    own_nodes[node_id] = args["content"]
            elif name == "store_edge":
                edges[answer["id"]] = (args["source_id"], args["target_id"])
            elif name == "delete_edge":
                edges.pop(args["id"])
                deleted.append(args["id"])
            elif name == "retrieve_context":
                topology = answer["topology"]  # (the nodes it counted an access of: results and loops named)
                returned += len(topology["dag_nodes"]) + sum(len(scc["nodes"]) for scc in topology["sccs"])
        end = time.time()
    return {
        "start": start,
        "end": end,
        "latencies": latencies,
        "errors": errors,
        "own_nodes": own_nodes,
        "shared": shared,
        "edges": edges,
        "deleted": deleted,
        "returned": returned,
        "acknowledged": acknowledged,
    }


def worker_main(index: int, url: str, calls: int, pool_size: int, out: str) -> None:
    import anyio

    result = anyio.run(drive, index, url, calls, pool_size)
    Path(out).write_text(json.dumps(result))


# ---------------------------------------------------------------- the check
def check(url: str, results: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the database after the run (empty: every acknowledged write is there)."""
    import psycopg

    from bendscope.memory.store.postgres import PostgresStore

    problems: list[str] = []
    with PostgresStore(url) as store:
        own = {i: c for r in results for i, c in r["own_nodes"].items()}
        found = store.get_nodes(list(own) + [f"s{i}" for i in range(SHARED)])
        for node_id, content in own.items():
            if node_id not in found or found[node_id].content != content:
                problems.append(f"node {node_id}: its last acknowledged content is missing")
        for i in range(SHARED):
            written = [c for r in results for c in r["shared"].get(f"s{i}", [])]
            if written and found[f"s{i}"].content not in written:
                problems.append(f"shared node s{i} holds content nobody acknowledged last")
        acknowledged = {e: tuple(ends) for r in results for e, ends in r["edges"].items()}
        stored = store.get_edges(list(acknowledged))
        for edge_id, (source, target) in acknowledged.items():
            got = stored.get(edge_id)
            if got is None or (got.source_id, got.target_id) != (source, target):
                problems.append(f"edge {edge_id} is missing or wrong")
        gone = store.get_edges([e for r in results for e in r["deleted"]])
        problems += [f"deleted edge {e} is still there" for e in gone]
        accesses = sum(n.access_count for n in store.get_nodes(store.node_ids()).values())
        expected = sum(r["returned"] for r in results)
        if accesses != expected:
            problems.append(f"access counts add up to {accesses}, retrievals returned {expected} results")
    with psycopg.connect(url) as conn:
        kept = dict(conn.execute("SELECT term, df FROM terms").fetchall())
        fresh = dict(
            conn.execute("SELECT k, count(*) FROM nodes, jsonb_object_keys(term_counts) AS k GROUP BY k").fetchall()
        )
        if kept != fresh:
            problems.append("the term frequencies differ from those recomputed from the nodes")
        totals = conn.execute("SELECT nodes, tokens, edges FROM corpus").fetchone()
        counted = conn.execute(
            "SELECT (SELECT count(*) FROM nodes), (SELECT coalesce(sum(term_total), 0) FROM nodes), "
            "(SELECT count(*) FROM edges)"
        ).fetchone()
        if totals != counted:
            problems.append(f"corpus totals {totals} differ from the counted {counted}")
    return problems


def percentile(values: list[float], q: float) -> float:
    from bendscope.memory.core.telemetry import percentile as nearest_rank

    return nearest_rank(sorted(values), q)


def run(servers: int, calls: int, pool_size: int, postgres_url: str | None) -> dict[str, Any]:
    """Run the load test; returns the summary (also printed)."""
    cluster = None
    if postgres_url is None:
        from pg_cluster import Cluster

        cluster = Cluster()
        url = cluster.create_database("load")
    else:
        url = postgres_url
    try:
        seed(url)
        wal_before = wal_position(url)
        load_before = os.getloadavg()
        with tempfile.TemporaryDirectory() as tmp:
            outs = [str(Path(tmp) / f"w{i}.json") for i in range(servers)]
            procs = [
                subprocess.Popen(
                    [sys.executable, __file__, "--worker", str(i), url, str(calls), str(pool_size), outs[i]]
                )
                for i in range(servers)
            ]
            try:
                deadline = time.monotonic() + 3_600
                codes = [p.wait(timeout=max(0.0, deadline - time.monotonic())) for p in procs]
            finally:  # a worker that timed out, or an interrupt: none is left running
                for p in procs:
                    if p.poll() is None:
                        p.kill()
                        p.wait()
            results = [json.loads(Path(o).read_text()) for o, c in zip(outs, codes, strict=True) if c == 0]
        load_after = os.getloadavg()
        rows = rows_written(url, wal_before)
        problems = check(url, results)
    finally:
        if cluster is not None:
            cluster.stop()
    crashed = sum(1 for c in codes if c != 0)
    everything = [ms for r in results for values in r["latencies"].values() for ms in values]
    by_tool: dict[str, list[float]] = {}
    for r in results:
        for name, values in r["latencies"].items():
            by_tool.setdefault(name, []).extend(values)
    window = max(r["end"] for r in results) - min(r["start"] for r in results) if results else 0.0
    errors = [e for r in results for e in r["errors"]]
    summary = {
        "servers": servers,
        "calls": len(everything),
        "seconds": window,
        "throughput": len(everything) / window if window else 0.0,
        "p50": statistics.median(everything) if everything else 0.0,
        "p95": percentile(everything, 95),
        "p99": percentile(everything, 99),
        "errors": len(errors) + crashed,
        "error_samples": errors[:5],
        "by_tool": {name: (len(v), statistics.median(v), percentile(v, 95)) for name, v in sorted(by_tool.items())},
        "acknowledged_writes": sum(r["acknowledged"] for r in results),
        "checked": sum(len(r["own_nodes"]) + len(r["edges"]) + len(r["deleted"]) for r in results)
        + sum(1 for i in range(SHARED) if any(f"s{i}" in r["shared"] for r in results)),
        "problems": problems,
    }
    print(f"load test: {servers} MCP server processes (stdio, pool {pool_size}) × {calls} mixed calls, one PostgreSQL")
    print(f"machine: {os.cpu_count()} cores; load before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    print(
        f"calls {summary['calls']:,} in {window:.1f} s: {summary['throughput']:.0f} calls/s; "
        f"latency p50 {summary['p50']:.2f} ms, p95 {summary['p95']:.2f} ms, p99 {summary['p99']:.2f} ms; "
        f"errors {summary['errors']}"
    )
    print("| tool | calls | p50 ms | p95 ms |")
    print("| --- | ---: | ---: | ---: |")
    for name, (count, p50, p95) in summary["by_tool"].items():
        print(f"| {name} | {count:,} | {p50:.2f} | {p95:.2f} |")
    for sample in summary["error_samples"]:
        print(f"error: {sample}")
    print(
        f"consistency: {summary['acknowledged_writes']:,} acknowledged writes; the final state of "
        f"{summary['checked']:,} nodes, edges and deletions and the access counts checked: "
        + ("all present" if not problems else f"{len(problems)} problems")
    )
    for problem in problems[:10]:
        print(f"problem: {problem}")
    summary["rows"] = rows
    print(
        f"rows: nodes updated {rows['nodes_upd']:,}, in place (HOT) {rows['nodes_hot']:,}; edges updated "
        f"{rows['edges_upd']:,}, in place {rows['edges_hot']:,}; WAL written {rows['wal'] / 1e6:,.1f} MB"
    )
    return summary


def wal_position(url: str) -> str:
    """The server's write-ahead log position now."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    return str(row[0]) if row else "0/0"


def rows_written(url: str, wal_before: str) -> dict[str, int]:
    """How the run wrote its rows, whatever the load: the updates of ``nodes`` and ``edges`` and how
    many of them were made in place (HOT: no new index entries), and the WAL bytes written since
    ``wal_before`` (the servers have exited: their statistics are flushed)."""
    import psycopg

    with psycopg.connect(url) as conn:
        stats = dict.fromkeys(("nodes_upd", "nodes_hot", "edges_upd", "edges_hot"), 0)
        for name, upd, hot in conn.execute(
            "SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('nodes', 'edges')"
        ).fetchall():
            stats[f"{name}_upd"], stats[f"{name}_hot"] = int(upd), int(hot)
        row = conn.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s::pg_lsn)::bigint", (wal_before,)).fetchone()
        stats["wal"] = int(row[0]) if row else 0
    return stats


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=2_000, help="tool calls per server")
    parser.add_argument("--pool-size", type=int, default=2, help="connections per server process")
    parser.add_argument("--postgres-url", help="use this (empty) database instead of a throwaway server")
    args = parser.parse_args(argv)
    return run(args.servers, args.calls, args.pool_size, args.postgres_url)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker_main(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        summary = main()
        sys.exit(1 if summary["errors"] or summary["problems"] else 0)
