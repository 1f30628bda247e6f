"""Applying Arrange on the page's Python, in CPython: CPU ms of each part, this tree against another.

    python bench/bench_arrange_cpu.py [--sizes 2000,3000] [--shapes region,mixed,regions] [--runs 3]
                                      [--against ../other-tree]

On each graph (``bench_hand``'s: one loop region, the mixed graph, ``probe_graphs.regions_graph``)
the editor makes the Arrange job, and a grid of centres stands for the worker's drawing (the cost
of applying does not depend on it); then, in CPU ms (``time.process_time``, less sensitive to a
busy machine than wall time): the preparation between frames (``Editor.prepare_arrangement``,
where the tree has it: its total and its longest step), the step itself (``apply_arrangement``),
the next frame's scene update (``ScenePlanner.update``: the halos) and the Undo. Each run is a
process of its own, the trees alternately. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(shape: str, n: int) -> tuple[dict[str, float], str]:
    """One run in this process, on the tree ``bendscope`` is imported from (before the graphs' modules,
    which put this tree's sources first)."""
    # isort: off
    from bendscope.bend.editor.editor import Editor
    from bendscope.bend.render.sceneplan import ScenePlanner

    from bench_hand import region_document
    from graphs import giant_scc_document
    from probe_graphs import regions_graph

    # isort: on

    doc = {"regions": regions_graph, "region": region_document, "mixed": giant_scc_document}[shape](n)
    editor = Editor()
    assert editor.load(json.dumps(doc), label=None) is None
    editor.viewport = (1280, 800)
    editor.fit_view()
    job = editor.arrange_job("LR")
    xy: list[float] = []
    for k in range(len(job.ids)):
        xy += [260.0 * (k % 60) + 0.5, 90.25 * (k // 60)]
    planner = ScenePlanner()

    def update() -> None:
        planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                       measure=editor.measure, viewport=(1280, 800), tree_epoch=editor.rests,
                       touched=editor.cards_touched_since)  # fmt: skip

    update()
    clock, prepared = time.process_time, None
    out: dict[str, float] = {}
    if hasattr(editor, "prepare_arrangement"):
        steps, steps_ms = editor.prepare_arrangement(job, xy), []
        while prepared is None:
            t = clock()
            try:
                next(steps)
            except StopIteration as done:
                prepared = done.value
            steps_ms.append((clock() - t) * 1e3)
        out["prepare"], out["prepare_step"] = sum(steps_ms), max(steps_ms)
    t = clock()
    if prepared is None:
        editor.apply_arrangement(job, xy)
    else:
        editor.apply_arrangement(job, xy, prepared)
    out["step"] = (clock() - t) * 1e3
    t = clock()
    update()
    out["frame"] = (clock() - t) * 1e3
    t = clock()
    editor.undo()
    out["undo"] = (clock() - t) * 1e3
    return out, str(Path(sys.modules["bendscope"].__file__ or "").parents[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,3000")
    parser.add_argument("--shapes", default="region,mixed,regions")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", default="", help="another tree, run alternately")
    parser.add_argument("--one", default="", help=argparse.SUPPRESS)  # (a run: shape,n)
    args = parser.parse_args()
    if args.one:
        shape, n = args.one.split(",")
        print(json.dumps(measure(shape, int(n))))
        return
    trees = [("this", ROOT)] + ([("against", Path(args.against).resolve())] if args.against else [])
    load = os.getloadavg()
    print(f"load before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for n in [int(s) for s in args.sizes.split(",") if s]:
        for shape in [s for s in args.shapes.split(",") if s]:
            rows: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
            for _ in range(args.runs):
                for name, root in trees:
                    path = os.pathsep.join(str(root / p) for p in ("py", "tests/support", "bench", "e2e", "."))
                    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one", f"{shape},{n}"],
                                          cwd=root, env={**os.environ, "PYTHONPATH": path}, capture_output=True,
                                          text=True, check=True)  # fmt: skip
                    got, tree = json.loads(done.stdout.strip().splitlines()[-1])
                    assert Path(tree).resolve() == root, (tree, root)  # (the code of the tree meant)
                    rows[name].append(got)
            for name, got in rows.items():
                parts = {k: sorted(r[k] for r in got) for k in got[0]}
                print(f"{name} {shape} {n:,}: " + ", ".join(
                    f"{k} {v[len(v) // 2]:.1f} ({v[0]:.1f}–{v[-1]:.1f})" for k, v in parts.items()))  # fmt: skip
    load = os.getloadavg()
    print(f"load after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; CPU ms, median (min–max) of {args.runs} runs")


if __name__ == "__main__":
    main()
