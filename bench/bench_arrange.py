"""Arrange: why dagre, measured in one run.

    python bench/bench_arrange.py [--sizes 300,1000,3000,10000] [--no-elk]

The condensation step of Arrange — the blocks of bend.arrange's job, in layers — with the
vendored @dagrejs/dagre and with elkjs' layered algorithm (elkjs 0.12.1, installed with npm
into build/bench-node on first use: it is not part of the page), in node, on the same jobs
made from giant-SCC graphs (bench.graphs.giant_scc_document) and today's editor-like graphs.
Reports milliseconds and the crossings of the arcs drawn straight between block centres
(as the editor draws edges), and then the whole Arrange in node (static/arrange.js, as the
layout worker runs it). Medians of one run each; never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
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

from bendscope.bend.editor.editor import Editor  # noqa: E402

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="300,1000,3000,10000")
    parser.add_argument("--no-elk", action="store_true")
    args = parser.parse_args(argv)
    node = shutil.which("node")
    assert node and DAGRE.exists(), "needs node and `make vendor`"
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
