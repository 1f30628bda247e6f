"""A conversation stored in one ``store_many`` call (its ``turns``: the LoCoMo dev
conversations' turns, speaker, text, time and session, repeated as later sessions up to
``--turns``), into a fresh SQLite file and a fresh PostgreSQL database: turns per second, the
writer's CPU, and on PostgreSQL the statements it sent (round trips) and the server's CPU (its
processes' user + system time, from ``/proc``).

    python bench/bench_turns.py [--turns 2000] [--rounds 3] [--backend sqlite|postgresql|both]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from bench_locomo import DATA, as_conversation, turns  # noqa: E402

from bendscope.memory import Memory  # noqa: E402
from bendscope.memory.store.sqlite import SQLiteStore  # noqa: E402


def conversation(size: int) -> list[dict[str, Any]]:
    """The dev conversations' turns one after another (sessions renumbered), the first ``size``."""
    items: list[dict[str, Any]] = []
    for path in sorted(DATA.glob("*.json")):
        loaded = json.loads(path.read_text(encoding="utf-8"))
        last = max((t["session"] for t in items), default=0)
        items += [{**t, "session": last + t["session"]} for t in as_conversation(turns(loaded, path.stem), loaded)]
    if not items:  # (without the dataset: a conversation of the same shape, made up)
        items = [{"id": f"t{k}", "speaker": ("Ann", "Bob")[k % 2], "text": f"We met Carol at the lake on day {k}.",
                  "time": "2026-05-01T10:00:00Z", "session": 1 + k // 20} for k in range(100)]  # fmt: skip
    base = list(items)
    while len(items) < size:  # (more: the same conversations again, as other turns in later sessions)
        last = max(t["session"] for t in items)
        again = len(items) // len(base)
        items += [{**t, "id": f"{t['id']}+{again}", "session": last + t["session"]} for t in base]
    return items[:size]


def server_cpu(port: int) -> float:
    """CPU seconds (user + system, with reaped children's) of the PostgreSQL cluster listening
    on ``port``: its postmaster and the processes it started."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    master = None
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(pid)] = (int(stat[1]), sum(int(v) for v in stat[11:15]) / tick)
        if b"postgres" in cmd and f"port={port}".encode() in cmd:
            master = int(pid)
    if master is None:
        return 0.0
    return sum(cpu for pid, (parent, cpu) in stats.items() if pid == master or parent == master)


def count_statements() -> list[int]:
    """Count, from now on, the statements psycopg sends (``Cursor.execute`` / ``executemany``) and
    the round trips they take (one per statement, or one per pipeline for those in one):
    ``[statements, round trips]``."""
    import psycopg

    counter = [0, 0]
    for name in ("execute", "executemany"):
        original = getattr(psycopg.Cursor, name)

        def counted(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            counter[0] += 1
            counter[1] += self.connection._pipeline is None
            return _original(self, *args, **kwargs)

        setattr(psycopg.Cursor, name, counted)
    pipeline = psycopg.Connection.pipeline

    @contextlib.contextmanager
    def piped(self: Any) -> Any:
        outer = self._pipeline is None
        with pipeline(self) as made:
            yield made
        counter[1] += outer

    psycopg.Connection.pipeline = piped  # type: ignore[method-assign,assignment]
    return counter


def live_work(cluster: Any, writes: int, cards: int, statements: list[int]) -> dict[str, float]:
    """The live editor's burst on PostgreSQL, as work: ``writes`` writes as ``bench_live``'s
    writer makes them (a node and an edge to the one before, one transaction) into a memory of
    ``cards`` cards in one giant loop, each followed by the page's fetch of the changes since
    its version (``answer_since``); per write and per fetch the statements, round trips, the
    calling thread's CPU and the server's."""
    from bench_live import preload

    from bendscope.memory.store.postgres import PostgresStore
    from bendscope.memory.web.deltas import ViewLog
    from bendscope.memory.web.editor_site import LIVE_MAX_NODES, graph_answer
    from bendscope.memory.web.since import answer_since
    from bendscope.memory.web.timeline import Moment

    url = cluster.create_database(f"live{os.getpid()}_{time.monotonic_ns()}")
    writer, reader = Memory(PostgresStore(url, pool_size=2)), Memory(PostgresStore(url, pool_size=4))
    preload(writer, cards)
    log = ViewLog()
    version = graph_answer(reader, None, Moment(), log, None)[1]["version"]
    sums = dict.fromkeys(("write", "fetch"), (0, 0, 0.0, 0.0))
    for k in range(writes):
        for what in ("write", "fetch"):
            sent, trips = statements
            server, cpu = server_cpu(cluster.port), time.thread_time()
            if what == "write":
                with writer.store.transaction():
                    writer.store_node({"id": f"w{k}", "content": f"Observation {k} from the agent"})
                    if k:
                        writer.store_edge({"id": f"e{k}", "source_id": f"w{k - 1}", "target_id": f"w{k}",
                                           "edge_type": "causal"})  # fmt: skip
            else:
                with log.making:
                    version = answer_since(reader, log, version, LIVE_MAX_NODES)["version"]
            used = (
                statements[0] - sent,
                statements[1] - trips,
                time.thread_time() - cpu,
                server_cpu(cluster.port) - server,
            )
            sums[what] = tuple(a + b for a, b in zip(sums[what], used, strict=True))  # type: ignore[assignment]
    writer.store.close()
    reader.store.close()
    out: dict[str, float] = {}
    for what, (sent, trips, cpu, server) in sums.items():
        out |= {f"{what} statements": sent / writes, f"{what} round trips": trips / writes,
                f"{what} CPU ms": cpu * 1000 / writes, f"{what} server CPU ms": server * 1000 / writes}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--live-writes", type=int, default=0, help="the live burst's work on PostgreSQL instead")
    parser.add_argument("--live-cards", type=int, default=2000)
    args = parser.parse_args(argv)
    if args.live_writes:
        live(args.live_writes, args.live_cards, args.rounds)
        return
    items = conversation(args.turns)
    print(f"machine load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    cluster = None
    statements = count_statements()
    results: dict[str, list[tuple[float, float, float, int, int]]] = {b: [] for b in backends}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for round_ in range(args.rounds):
                for backend in backends:
                    if backend == "postgresql":
                        if cluster is None:
                            from pg_cluster import Cluster

                            cluster = Cluster()
                        from bendscope.memory.store.postgres import PostgresStore

                        store: Any = PostgresStore(cluster.create_database(f"turns{round_}"))
                    else:
                        store = SQLiteStore(Path(tmp) / f"turns{round_}.sqlite3")
                    with store:
                        memory = Memory(store)
                        before = server_cpu(cluster.port) if backend == "postgresql" and cluster else 0.0
                        sent, trips = statements
                        start, cpu = time.perf_counter(), time.process_time()
                        answer = memory.store_many({"turns": items})
                        wall, used = time.perf_counter() - start, time.process_time() - cpu
                        after = server_cpu(cluster.port) if backend == "postgresql" and cluster else 0.0
                        assert len(answer["turns"]) == len(items)
                        results[backend].append(
                            (wall, used, after - before, statements[0] - sent, statements[1] - trips)
                        )
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"{len(items):,} turns in one store_many call, median of {args.rounds}:")
    print("| store | turns/s | wall s | writer CPU s | server CPU s | statements | round trips |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for backend in backends:
        wall, used, server, sent, trips = (statistics.median(v) for v in zip(*results[backend], strict=True))
        print(
            f"| {backend} | {len(items) / wall:,.0f} | {wall:.2f} | {used:.2f} | {server:.2f} | {sent:,.0f} | "
            f"{trips:,.0f} |"
        )
    print(f"machine load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")


def live(writes: int, cards: int, rounds: int) -> None:
    """``--live-writes``: ``live_work``'s figures, the median of ``rounds``."""
    from pg_cluster import Cluster

    print(f"machine load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")
    statements = count_statements()
    cluster = Cluster()
    try:
        runs = [live_work(cluster, writes, cards, statements) for _ in range(rounds)]
    finally:
        cluster.stop()
    print(f"{writes} writes (a node and an edge each) into {cards:,} cards in one loop, each then fetched; "
          f"per write and per fetch, median of {rounds}:")  # fmt: skip
    for key in runs[0]:
        print(f"  {key}: {statistics.median(r[key] for r in runs):.2f}")
    print(f"machine load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")


if __name__ == "__main__":
    main()
