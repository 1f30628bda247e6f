"""A conversation stored in one ``store_many`` call (its ``turns``: the LoCoMo dev
conversations' turns, speaker, text, time and session, repeated as later sessions up to
``--turns``), into a fresh SQLite file and a fresh PostgreSQL database: turns per second, the
writer's CPU, and on PostgreSQL the statements it sent (round trips) and the server's CPU (its
processes' user + system time, from ``/proc``).

    python bench/bench_turns.py [--turns 2000] [--rounds 3] [--backend sqlite|postgresql|both]
"""

from __future__ import annotations

import argparse
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
    """CPU seconds (user + system) of the PostgreSQL processes listening on ``port``'s cluster."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if b"postgres" in cmd and (str(port).encode() in cmd or b"postgres:" in cmd):
            total += (int(stat[11]) + int(stat[12]) + int(stat[13]) + int(stat[14])) / tick
    return total


def count_statements() -> list[int]:
    """Count every statement psycopg sends (``Cursor.execute`` / ``executemany``), from now on."""
    import psycopg

    counter = [0]
    for cls in (psycopg.Cursor,):
        for name in ("execute", "executemany"):
            original = getattr(cls, name)

            def counted(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
                counter[0] += 1
                return _original(self, *args, **kwargs)

            setattr(cls, name, counted)
    return counter


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args(argv)
    items = conversation(args.turns)
    print(f"machine load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    cluster = None
    statements = count_statements()
    results: dict[str, list[tuple[float, float, float, int]]] = {b: [] for b in backends}
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
                        sent = statements[0]
                        start, cpu = time.perf_counter(), time.process_time()
                        answer = memory.store_many({"turns": items})
                        wall, used = time.perf_counter() - start, time.process_time() - cpu
                        after = server_cpu(cluster.port) if backend == "postgresql" and cluster else 0.0
                        assert len(answer["turns"]) == len(items)
                        results[backend].append((wall, used, after - before, statements[0] - sent))
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"{len(items):,} turns in one store_many call, median of {args.rounds}:")
    print("| store | turns/s | wall s | writer CPU s | server CPU s | statements |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for backend in backends:
        wall, used, server, sent = (statistics.median(v) for v in zip(*results[backend], strict=True))
        print(f"| {backend} | {len(items) / wall:,.0f} | {wall:.2f} | {used:.2f} | {server:.2f} | {sent:,.0f} |")
    print(f"machine load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())} (1/5/15 min)")


if __name__ == "__main__":
    main()
