"""The page's Python work per live change, in CPython: an agent's writes into a memory of one
giant loop, brought into the page's editor as the page brings them (``?since=`` deltas).

    PYTHONPATH=py python bench/bench_live_work.py [--cards 2000] [--changes 30] [--per 8]

Per change (``--per`` writes: a card and an edge joining it to the one before, each its own
transaction), the thread's CPU time of: the merge as ``app.live_mode`` makes it (the memory's
whole view brought to the new version, its ended items, then ``LiveSync.fetched_changes`` with
the ended cards left out), κ brought up to date (the topology cache, no time limit), and
the scene plan's update for the frame after it (a local reheat moving the new cards). Thread CPU
time, medians: less sensitive to a busy machine than wall time, and comparable between two
versions of the code run in the same minutes (a version whose planner takes no ``touched``
is given none). ``--calls``: also the Python function calls of the merge per change (a count:
the same on a busy machine; the times then include the counting's). Not a test: nothing passes or fails here.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_live import preload  # noqa: E402

from bendscope.bend.editor.editor import Editor  # noqa: E402
from bendscope.bend.live import delta  # noqa: E402
from bendscope.bend.live.delta import Remote, apply_to, holding_changes  # noqa: E402
from bendscope.bend.live.ended import ended_after, ended_of  # noqa: E402
from bendscope.bend.live.sync import LiveSync  # noqa: E402
from bendscope.bend.live.time_travel import holding_only  # noqa: E402
from bendscope.bend.render.sceneplan import ScenePlanner  # noqa: E402
from bendscope.memory.core.service import Memory  # noqa: E402
from bendscope.memory.store.inmemory import InMemoryStore  # noqa: E402
from bendscope.memory.web.deltas import ViewLog  # noqa: E402
from bendscope.memory.web.editor_site import graph_answer, graph_view, versioned  # noqa: E402
from bendscope.memory.web.timeline import Moment  # noqa: E402


def work(cards: int, changes: int, per: int, calls: bool = False) -> dict[str, list[float]]:
    """Per change, the ms of CPU of each part (module doc)."""
    memory = Memory(InMemoryStore())
    preload(memory, cards)
    log, editor = ViewLog(), Editor()
    sync = LiveSync(editor)
    sync.next_step()
    answer = json.loads(json.dumps(versioned(graph_view(memory, None, log=log)[1], log, None)))
    sync.fetched(holding_only(answer["document"])[0], None, None, answer["version"])
    served, ended = Remote.of_document(answer["document"], answer["version"]), ended_of(answer["document"])
    editor.topology_cache.shown(editor.plane, editor.exact_limit, 1e9)
    planner = ScenePlanner()
    touched = {"touched": editor.cards_touched_since} if hasattr(editor, "cards_touched_since") else {}

    def plan(moving: set[str] | None) -> None:
        planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                       measure=editor.measure, viewport=editor.viewport, moving=moving, **touched)  # fmt: skip

    plan(None)
    times: dict[str, list[float]] = {"merge": [], "kappa": [], "plan": [], "calls": []}
    written = 0
    for _ in range(changes):
        for _ in range(per):
            with memory.store.transaction():
                memory.store_node({"id": f"w{written}", "content": f"Observation {written} from the agent"})
                if written:
                    memory.store_edge({"id": f"e{written}", "source_id": f"w{written - 1}",
                                       "target_id": f"w{written}", "edge_type": "causal"})  # fmt: skip
            written += 1
        sync.next_step()
        answer = json.loads(json.dumps(graph_answer(memory, None, Moment(), log, sync.since())[1]))
        assert sync.remote is not None and "changes" in answer
        counter = cProfile.Profile()
        t0 = time.thread_time()
        if calls:
            counter.enable()
        # (as app.live_mode: one reading of the delta's records for both views, where the code has it)
        reads = {"reads": delta.Reads()} if hasattr(delta, "Reads") else {}
        served = apply_to(served, answer["changes"], answer["version"], *reads.values())
        ended = ended_after(ended, {"nodes": served.nodes, "edges": served.edges}, answer["changes"])
        changes = holding_changes(answer["changes"], sync.remote)
        brought = sync.fetched_changes(changes, answer["version"], None, *reads.values())
        counter.disable()
        t1 = time.thread_time()
        if calls:
            times["calls"].append(sum(row[1] for row in pstats.Stats(counter).stats.values()))  # type: ignore[attr-defined]
        editor.topology_cache.shown(editor.plane, editor.exact_limit, 1e9)
        t2 = time.thread_time()
        plan(set(brought.added))
        t3 = time.thread_time()
        for part, ms in (("merge", t1 - t0), ("kappa", t2 - t1), ("plan", t3 - t2)):  # (the merge's counted)
            times[part].append(ms * 1000)
    return times


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=2000, help="cards in the memory before the page opens")
    parser.add_argument("--changes", type=int, default=30, help="changes brought in, one after another")
    parser.add_argument("--per", type=int, default=8, help="writes per change (a card and an edge each)")
    parser.add_argument("--calls", action="store_true", help="count the merge's Python calls too")
    args = parser.parse_args(argv)
    times = work(args.cards, args.changes, args.per, args.calls)
    medians = {part: statistics.median(values) for part, values in times.items() if values}
    load = os.getloadavg()[0]
    print(f"{args.cards:,} cards, {args.per} writes a change, {args.changes} changes; load {load:.2f}")
    print("ms of CPU per change, median (max): " + ", ".join(
        f"{part} {medians[part]:.2f} ({max(v):.2f})" for part, v in times.items() if part != "calls"))  # fmt: skip
    calls = medians.pop("calls", None)
    print(f"all three: {sum(medians.values()):.2f} ms" + (f"; the merge's Python calls per change, median: {calls:,.0f}"
                                                         if calls is not None else ""))  # fmt: skip
    return medians


if __name__ == "__main__":
    main()
