"""The longest step of loading an imported file, in CPython: each format's reader
(``graphformats.read_graph_steps``) and a whole ``LoadJob`` (read, checked, laid out, counted),
stepped one pause at a time.

    PYTHONPATH=py python bench/bench_import_steps.py [--sizes 1000,3000] [--runs 3]

Prints per format and size: characters, the reader's total and longest step (ms), the load's
total and longest step (ms), medians of ``--runs``. Pyodide runs the same Python some 2–3×
slower; a step of a few ms here is one well within a frame there.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "py"))

from shape_graphs import as_format, held_out_document  # noqa: E402

from bendscope.bend.editor.loading import LoadJob  # noqa: E402
from bendscope.bend.render.textlayout import approx_measure  # noqa: E402
from bendscope.shared import graphformats  # noqa: E402


def stepped(steps: Generator[Any, None, Any]) -> tuple[float, float]:
    """Total and longest step of ``steps`` (ms)."""
    longest = total = 0.0
    while True:
        start = time.perf_counter()
        try:
            next(steps)
        except StopIteration:
            ms = (time.perf_counter() - start) * 1000
            return total + ms, max(longest, ms)
        ms = (time.perf_counter() - start) * 1000
        total, longest = total + ms, max(longest, ms)


def job_steps(text: str, fmt: str) -> Generator[None, None, None]:
    job = LoadJob(text, approx_measure, name=f"g.{'mmd' if fmt == 'mermaid' else fmt}")
    while job.advance(0.0):
        yield
    assert job.error is None, job.error


def reader_steps(text: str, fmt: str) -> Generator[Any, None, Any]:
    if hasattr(graphformats, "read_graph_steps"):
        return graphformats.read_graph_steps(text, fmt)  # type: ignore[no-any-return]

    def once() -> Generator[None, None, Any]:  # (a reader in one step)
        return graphformats.read_graph(text, fmt)
        yield

    return once()


def median_of(runs: int, make: Callable[..., Generator[Any, None, Any]]) -> tuple[float, float]:
    figures = [stepped(make()) for _ in range(runs)]
    return statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,3000")
    parser.add_argument("--formats", default="json,csv,graphml,dot,mermaid")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    print("format   cards    chars   read ms (longest)   load ms (longest)")
    for n in [int(s) for s in args.sizes.split(",")]:
        doc = held_out_document(n)
        for fmt in args.formats.split(","):
            text = json.dumps(doc, separators=(",", ":")) if fmt == "json" else as_format(doc, fmt)
            read = (0.0, 0.0) if fmt == "json" else median_of(args.runs, lambda t=text, f=fmt: reader_steps(t, f))
            load = median_of(args.runs, lambda t=text, f=fmt: job_steps(t, f))
            out[f"{fmt}-{n}"] = {"chars": len(text), "read": read, "load": load}
            print(f"{fmt:8} {n:5} {len(text):8}   {read[0]:7.1f} ({read[1]:5.1f})   {load[0]:7.1f} ({load[1]:5.1f})")
    return out


if __name__ == "__main__":
    main()
