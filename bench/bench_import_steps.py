"""The longest step of loading an imported file, in CPython: each format's reader
(``graphformats.read_graph_steps``) and a whole ``LoadJob`` (read, checked, laid out, counted,
and the page's first frame prepared: ``ScenePlanner.prepare_edges``, ``KernelAhead.steps``),
stepped one pause at a time.

    PYTHONPATH=py python bench/bench_import_steps.py [--sizes 1000,3000] [--runs 3] [--awkward]

Prints per format and size: characters, the reader's total and longest step (ms), the load's
total and longest step (ms), medians of ``--runs``, and the most function calls made in one
step of the load (Python and C calls, counted with ``sys.setprofile``: a figure the machine's
load does not change). Pyodide runs the same Python some 2–3× slower; a step of a few ms here
is one well within a frame there.

``--awkward`` adds valid files a person brings that the exporter never writes
(:data:`AWKWARD`): DOT group statements ``{a b …} -> {x y …}``, a whole DOT or Mermaid file on
one line, Mermaid ``&`` groups and long chains, GraphML with many attributes, CSV with quoted
multi-line fields, long card texts and unicode.
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

from awkward_files import AWKWARD  # noqa: E402
from shape_graphs import as_format, held_out_document  # noqa: E402

from bendscope.bend.editor.loading import LoadJob  # noqa: E402
from bendscope.bend.layout.forces import KernelAhead  # noqa: E402
from bendscope.bend.model.elements import Document  # noqa: E402
from bendscope.bend.render.sceneplan import ScenePlanner  # noqa: E402
from bendscope.bend.render.textlayout import approx_measure  # noqa: E402
from bendscope.shared import graphformats  # noqa: E402


def stepped(steps: Generator[Any, None, Any]) -> tuple[float, float]:
    """Total and longest step of ``steps`` (ms)."""
    longest = total = 0.0
    while True:
        start = time.thread_time()
        try:
            next(steps)
        except StopIteration:
            ms = (time.thread_time() - start) * 1000
            return total + ms, max(longest, ms)
        ms = (time.thread_time() - start) * 1000
        total, longest = total + ms, max(longest, ms)


def most_calls(steps: Generator[Any, None, Any]) -> int:
    """The most function calls (Python and C) made in one step of ``steps``."""
    calls = most = 0

    def count(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    while True:
        calls = 0
        sys.setprofile(count)
        try:
            next(steps)
        except StopIteration:
            return max(most, calls)
        finally:
            sys.setprofile(None)
        most = max(most, calls)


def prepare(doc: Document, kept: list[Any]) -> Generator[None, None, None]:
    """What the page makes ahead of its first frame in a load's slices (``App._prepare_install``);
    what it made is put in ``kept`` (the page keeps it: it is not let go of in a step)."""
    plane = doc.planes[doc.active_plane_id]
    planner = ScenePlanner()
    kept.append(planner)
    yield from planner.prepare_edges(plane, approx_measure)
    yield
    kept.append((yield from KernelAhead.steps(plane, 8.0)))


def job_steps(text: str, fmt: str) -> Generator[None, None, tuple[LoadJob, list[Any]]]:
    """A load stepped one pause at a time; the job and what it prepared are returned (let go of
    after the last step is timed, as a page keeps them)."""
    kept: list[Any] = []
    job = LoadJob(text, approx_measure, name=f"g.{'mmd' if fmt == 'mermaid' else fmt}",
                  prepare=lambda doc: prepare(doc, kept))  # fmt: skip
    while job.advance(0.0):
        yield
    assert job.error is None, job.error
    return job, kept


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
    parser.add_argument("--awkward", action="store_true", help="also the awkward files (AWKWARD)")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    print("file              cards    chars   read ms (longest)   load ms (longest)   most calls a step")
    for n in [int(s) for s in args.sizes.split(",")]:
        doc = held_out_document(n)
        files = [(fmt, fmt, json.dumps(doc, separators=(",", ":")) if fmt == "json" else as_format(doc, fmt))
                 for fmt in args.formats.split(",")]  # fmt: skip
        if args.awkward:
            files += [(name, fmt, make(n)) for name, (fmt, make) in AWKWARD.items()]
        for name, fmt, text in files:
            read = (0.0, 0.0) if fmt == "json" else median_of(args.runs, lambda t=text, f=fmt: reader_steps(t, f))
            load = median_of(args.runs, lambda t=text, f=fmt: job_steps(t, f))
            calls = most_calls(job_steps(text, fmt))
            out[f"{name}-{n}"] = {"chars": len(text), "read": read, "load": load, "calls": calls}
            print(f"{name:16} {n:5} {len(text):8}   {read[0]:7.1f} ({read[1]:5.1f})   {load[0]:7.1f} ({load[1]:5.1f})"
                  f"   {calls:9,}")  # fmt: skip
    return out


if __name__ == "__main__":
    main()
