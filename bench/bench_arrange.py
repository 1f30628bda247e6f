"""Arrange: why dagre, measured in one run.

    python bench/bench_arrange.py [--sizes 300,1000,3000,10000] [--no-elk]
    python bench/bench_arrange.py --regions [--against OTHER_TREE]

The condensation step of Arrange — the blocks of bend.arrange's job, in layers — with the
vendored @dagrejs/dagre and with elkjs' layered algorithm (elkjs 0.12.1, installed with npm
into build/bench-node on first use: it is not part of the page), in node, on the same jobs
made from giant-SCC graphs (bench.graphs.giant_scc_document) and today's editor-like graphs.
Reports milliseconds and the crossings of the arcs drawn straight between block centres
(as the editor draws edges), and then the whole Arrange in node (static/arrange.js, as the
layout worker runs it). Medians of one run each; never pass/fail.

``--regions``: the whole Arrange on many loop regions (the hand's probe's *regions* shape,
bench/probe_graphs.py: 40 × 50, 10 × 200, 100 × 20, 400 × 5 cards, 60 × 50 at 3,000) and on
loose trees (2,000 cards, each the effect of one of the 30 before it, one in ten on its own),
the cards placed at random as a settled layout leaves them: the worker's CPU ms in node, and
the result's aspect and cards' area; ``--against`` runs another tree's static/arrange.js on
the same jobs (made by this tree's Python) in the same minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_browser import editor_graph  # noqa: E402
from graphs import giant_scc_document  # noqa: E402
from probe_graphs import regions_graph  # noqa: E402

from bendscope.bend.editor.editor import Editor  # noqa: E402
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane  # noqa: E402

ELK = "elkjs@0.12.1"
NODE_DIR = ROOT / "build" / "bench-node"
DAGRE = ROOT / "static" / "vendor" / "dagre" / "dagre.min.js"


def elk_path() -> str | None:
    main = NODE_DIR / "node_modules" / "elkjs" / "lib" / "main.js"
    if not main.exists():
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["npm", "install", "--no-save", "--prefix", str(NODE_DIR), ELK], capture_output=True,
                              text=True)  # fmt: skip
        if done.returncode != 0:
            print(f"(elkjs could not be installed: {done.stderr.strip()[:200]})")
            return None
    return str(main)


def job_for(kind: str, n: int) -> tuple[Editor, dict]:
    doc = giant_scc_document(n) if kind == "giant" else editor_graph(n)
    if kind == "editor":
        for node in doc["nodes"]:
            del node["x"], node["y"]
    editor = Editor()
    assert editor.load(json.dumps(doc), label=None) is None
    job = editor.arrange_job("LR").as_message()
    job["sizes"] = list(job["sizes"])
    return editor, job


def loose_trees(n: int, seed: int = 5) -> dict:
    rng = random.Random(seed)
    arcs = [(rng.randrange(max(0, i - 30), i), i) for i in range(1, n) if rng.random() < 0.9]
    return {"nodes": [{"id": f"k{i:04d}", "text": f"k{i:04d} words"} for i in range(n)],
            "edges": [{"id": f"x{j}", "source": f"k{a:04d}", "target": f"k{b:04d}", "kind": "causal"}
                      for j, (a, b) in enumerate(arcs)]}  # fmt: skip


REGIONS = {
    "regions 40 × 50": lambda: regions_graph(2000, 50),
    "regions 10 × 200": lambda: regions_graph(2000, 200),
    "regions 100 × 20": lambda: regions_graph(2000, 20),
    "regions 400 × 5": lambda: regions_graph(2000, 5),
    "regions 60 × 50 (3,000)": lambda: regions_graph(3000, 50),
    "loose trees 2,000": lambda: loose_trees(2000),
}

#: node's half of --regions: the whole Arrange, its CPU time, and the cards' centres
TIMED = """
const fs = require("fs"), vm = require("vm"), input = JSON.parse(fs.readFileSync(0, "utf8"));
for (const p of input.scripts) vm.runInThisContext(fs.readFileSync(p, "utf8"), { filename: p });
const c0 = process.cpuUsage(), xy = globalThis.bendscopeArrange.run(input.job, globalThis.dagre);
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ cpu: (c.user + c.system) / 1000, xy: Array.from(xy) }));
"""


def regions_table(node: str, against: str | None) -> None:
    """Arrange on many loop regions and loose trees, this tree's (and ``against``'s) arrange.js."""
    trees = [("this tree", ROOT)] + ([("against", Path(against))] if against else [])
    print("\n| graph | code | worker CPU ms (node) | aspect | cards' area | drawing w × h px |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name, make in REGIONS.items():
        doc, rng = make(), random.Random(3)
        plane = Plane("p", "P")
        for nd in doc["nodes"]:
            plane.add_node(Node(nd["id"], nd["text"], x=rng.uniform(-3000, 3000), y=rng.uniform(-3000, 3000)))
        for e in doc["edges"]:
            plane.add_edge(Edge(e["id"], e["source"], e["target"], EdgeProps("", e["kind"], 2)))
        editor = Editor(Document([plane], "p"))
        editor.refresh_sizes(editor.plane)
        job = editor.arrange_job("LR").as_message()
        job["sizes"] = list(job["sizes"])
        for label, tree in trees:
            scripts = [str(tree / "static" / "vendor" / "dagre" / "dagre.min.js"), str(tree / "static" / "arrange.js")]
            done = subprocess.run([node, "-e", TIMED], input=json.dumps({"scripts": scripts, "job": job}),
                                  capture_output=True, text=True, timeout=3600)  # fmt: skip
            assert done.returncode == 0, done.stderr
            out = json.loads(done.stdout)
            xy, cards = out["xy"], list(editor.plane.nodes.values())
            x0 = min(xy[2 * i] - c.width / 2 for i, c in enumerate(cards))
            x1 = max(xy[2 * i] + c.width / 2 for i, c in enumerate(cards))
            y0 = min(xy[2 * i + 1] - c.height / 2 for i, c in enumerate(cards))
            y1 = max(xy[2 * i + 1] + c.height / 2 for i, c in enumerate(cards))
            w, h = x1 - x0, y1 - y0
            area = sum(c.width * c.height for c in cards) / (w * h)
            print(f"| {name} | {label} | {out['cpu']:,.0f} | {max(w, h) / min(w, h):.2f} | {100 * area:.1f} % | "
                  f"{w:,.0f} × {h:,.0f} |", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="300,1000,3000,10000")
    parser.add_argument("--no-elk", action="store_true")
    parser.add_argument("--regions", action="store_true", help="Arrange on many loop regions and loose trees")
    parser.add_argument("--against", help="with --regions: another tree whose static/arrange.js runs too")
    args = parser.parse_args(argv)
    node = shutil.which("node")
    assert node and DAGRE.exists(), "needs node and `make vendor`"
    if args.regions:
        load = os.getloadavg()
        print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
        regions_table(node, args.against)
        load = os.getloadavg()
        print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        return
    elk = None if args.no_elk else elk_path()
    load = os.getloadavg()
    print(f"machine load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print("\n| graph | nodes | blocks / arcs | library | ms | crossings | drawing w × h px |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    whole = []
    for n in (int(s) for s in args.sizes.split(",")):
        for kind in ("giant", "editor"):
            _editor, job = job_for(kind, n)
            payload = {"dagre": str(DAGRE), "arrange": str(ROOT / "static" / "arrange.js"), "elk": elk, "job": job,
                       "libraries": ["dagre", "elk"]}  # fmt: skip
            done = subprocess.run([node, str(ROOT / "bench" / "arrange_compare.js")], input=json.dumps(payload),
                                  capture_output=True, text=True, timeout=3600)  # fmt: skip
            assert done.returncode == 0, done.stderr
            for library, r in json.loads(done.stdout).items():
                print(
                    f"| {kind} | {n:,} | {len(job['blocks']):,} / {len(job['arcs']) // 2:,} | {library} | "
                    f"{r['ms']:,.0f} | {r['crossings']:,} | {r['width']:,.0f} × {r['height']:,.0f} |",
                    flush=True,
                )
            t0 = time.perf_counter()
            run = subprocess.run(
                [node, str(ROOT / "tests" / "support" / "arrange_job.js")],
                input=json.dumps({"scripts": [str(DAGRE), str(ROOT / "static" / "arrange.js")], "job": job}),
                capture_output=True, text=True, timeout=3600,
            )  # fmt: skip
            assert run.returncode == 0, run.stderr
            whole.append((kind, n, time.perf_counter() - t0))
    print("\n| whole Arrange in node (static/arrange.js, node start included) | nodes | s |")
    print("| --- | ---: | ---: |")
    for kind, n, seconds in whole:
        print(f"| {kind} | {n:,} | {seconds:.2f} |")
    load = os.getloadavg()
    print(f"\nmachine load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
