"""Command line: ``python -m bendscope.kappa analyze FILE`` prints the canonical topology
(``--feedback-arc-set``: with each SCC's minimum feedback arc set, ``kappa.arcset``);
``… loops FILE`` the feedback loops (``kappa.loops``: per SCC, shortest first, bounded).
κ is exact within ``--work-budget`` units of work per SCC, else a range (``kappa_range``).

Input is JSON: ``{"nodes": [...], "edges": [...]}`` (nodes as id strings or
objects with ``id``; edges as ``{source, target, kind?}`` or the editor's
``{a, b, props: {kind}}``), or a whole editor document ``{"planes": [...]}``
(the root plane, or ``--plane ID``). Malformed input: exit code 2 and one line
on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from json import JSONDecodeError, dumps, loads
from typing import Any, TextIO

from .analyze import DEFAULT_EXACT_LIMIT, DEFAULT_WORK_BUDGET, analyze
from .arcset import DEFAULT_ARCSET_BUDGET
from .loops import MAX_LENGTH, MAX_LOOPS, MAX_WORK, find_loops
from .recommend import recommendation

__all__ = ["DEFAULT_MAX_BYTES", "graph_from_json", "main"]

#: input larger than this is refused before it is parsed (``--max-bytes`` changes it)
DEFAULT_MAX_BYTES = 256 * 1024 * 1024


class InputError(Exception):
    """The input file is not a graph we can read."""


def _plane(doc: dict[str, Any], plane_id: str | None) -> dict[str, Any]:
    planes = doc["planes"]
    if not isinstance(planes, list) or not planes:
        raise InputError("'planes' must be a non-empty list")
    checked: list[dict[str, Any]] = []
    for i, plane in enumerate(planes):
        if not isinstance(plane, dict):
            raise InputError(f"planes[{i}] must be an object")
        checked.append(plane)
    if plane_id is not None:
        for plane in checked:
            if plane.get("id") == plane_id:
                return plane
        raise InputError(f"no plane with id {plane_id!r}")
    for plane in checked:
        if plane.get("parentPlaneId") is None:
            return plane
    return checked[0]


def graph_from_json(
    doc: Any, plane_id: str | None = None, polarity: bool = False
) -> tuple[list[str], list[dict[str, str]]]:
    """Turn a decoded JSON graph or editor document into (nodes, edges) for analyze;
    ``polarity``: keep each edge's polarity too (``+`` or ``-``; ``−`` read as ``-``) for
    ``loops`` — ``analyze`` ignores it, as κ does."""
    if not isinstance(doc, dict):
        raise InputError(f"top level must be a JSON object, got {type(doc).__name__}")
    if "planes" in doc:
        doc = _plane(doc, plane_id)
    elif plane_id is not None:
        raise InputError("--plane given but the input has no 'planes'")
    if "nodes" not in doc:
        raise InputError("missing 'nodes'")
    raw_nodes = doc["nodes"]
    raw_edges = doc.get("edges", [])
    if not isinstance(raw_nodes, list):
        raise InputError("'nodes' must be a list")
    if not isinstance(raw_edges, list):
        raise InputError("'edges' must be a list")
    nodes: list[str] = []
    for i, node in enumerate(raw_nodes):
        if isinstance(node, dict):
            node = node.get("id")
        if not isinstance(node, str):
            raise InputError(f"nodes[{i}] must be an id string or an object with a string 'id'")
        nodes.append(node)
    edges: list[dict[str, str]] = []
    for i, edge in enumerate(raw_edges):
        if not isinstance(edge, dict):
            raise InputError(f"edges[{i}] must be an object")
        if "source" in edge or "target" in edge:
            source, target, kind = edge.get("source"), edge.get("target"), edge.get("kind")
            sign = edge.get("polarity")
        else:
            props = edge.get("props", {})
            if not isinstance(props, dict):
                raise InputError(f"edges[{i}].props must be an object")
            source, target, kind = edge.get("a"), edge.get("b"), props.get("kind")
            sign = props.get("polarity")
        if not isinstance(source, str) or not isinstance(target, str):
            raise InputError(f"edges[{i}] needs string 'source'/'target' (or 'a'/'b') node ids")
        if kind is not None and not isinstance(kind, str):
            raise InputError(f"edges[{i}] kind must be a string")
        item = {"source": source, "target": target}
        if kind is not None:
            item["kind"] = kind
        if polarity and sign is not None:
            mapped = {"+": "+", "-": "-", "\u2212": "-"}.get(sign) if isinstance(sign, str) else None
            if mapped is None:
                raise InputError(f"edges[{i}] polarity must be '+' or '-'")
            item["polarity"] = mapped
        edges.append(item)
    return nodes, edges


def _read(path: str, max_bytes: int) -> Any:
    """Decoded JSON of ``path`` ('-' = stdin), refusing more than ``max_bytes`` bytes
    before parsing (so a 1 GiB file never costs gigabytes of memory)."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputError(f"{path} is larger than {max_bytes:,} bytes (--max-bytes raises the limit)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text") from None
    del data
    try:
        return loads(text)
    except JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise InputError(f"{path} is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        raise InputError(f"{path} is not usable JSON: {exc}") from None


def _encode(result: dict[str, Any], pretty: bool) -> str:
    """JSON text that any UTF-8 stream can carry: ids with unpaired surrogates (valid
    JSON escapes, not valid UTF-8) are written as \\u escapes."""
    indent = 2 if pretty else None
    text = dumps(result, indent=indent, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = dumps(result, indent=indent, ensure_ascii=True)
    return text


def _write(stream: TextIO, text: str) -> None:
    """Write UTF-8 whatever the locale says the stream's encoding is."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text + "\n")
        stream.flush()
        return
    buffer.write((text + "\n").encode("utf-8"))
    buffer.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input or usage)."""
    parser = argparse.ArgumentParser(prog="kappa", description="κ topology analysis")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("analyze", help="print the canonical topology JSON of a graph file")
    cmd.add_argument("file", help="JSON graph or editor document, '-' for stdin")
    cmd.add_argument("--pretty", action="store_true", help="indent the JSON")
    cmd.add_argument("--plane", help="plane id, for editor documents (default: the root plane)")
    _budget_options(cmd)
    cmd.add_argument("--recommendation", action="store_true", help="add the 'recommendation' sentence")
    cmd.add_argument(
        "--feedback-arc-set",
        action="store_true",
        help="add each SCC's minimum feedback arc set: the fewest edges whose removal leaves it with no cycle",
    )
    cmd.add_argument(
        "--arcset-budget",
        type=int,
        default=DEFAULT_ARCSET_BUDGET,
        help=f"units of work per SCC for its feedback arc set; past it, a range (default {DEFAULT_ARCSET_BUDGET:,})",
    )
    cmd.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="refuse larger input (default 256 MiB)")
    loops = sub.add_parser("loops", help="print the feedback loops of a graph file, per SCC, shortest first")
    loops.add_argument("file", help="JSON graph or editor document, '-' for stdin")
    loops.add_argument("--pretty", action="store_true", help="indent the JSON")
    loops.add_argument("--plane", help="plane id, for editor documents (default: the root plane)")
    _budget_options(loops)
    loops.add_argument("--max-loops", type=int, default=MAX_LOOPS, help=f"loops listed per SCC (default {MAX_LOOPS})")
    loops.add_argument("--max-length", type=int, default=MAX_LENGTH, help=f"longest loop listed (default {MAX_LENGTH})")
    loops.add_argument("--max-work", type=int, default=MAX_WORK, help=f"arcs to follow at most (default {MAX_WORK:,})")
    loops.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="refuse larger input (default 256 MiB)")
    args = parser.parse_args(argv)
    try:
        if args.exact_limit < 0:
            raise InputError("--exact-limit must be >= 0")
        if args.work_budget < 0:
            raise InputError("--work-budget must be >= 0")
        if args.command == "analyze" and args.arcset_budget < 0:
            raise InputError("--arcset-budget must be >= 0")
        if args.max_bytes < 1:
            raise InputError("--max-bytes must be >= 1")
        nodes, edges = graph_from_json(_read(args.file, args.max_bytes), args.plane, args.command == "loops")
        if args.command == "loops":
            for name in ("max_loops", "max_length", "max_work"):
                if getattr(args, name) < 1:
                    raise InputError(f"--{name.replace('_', '-')} must be >= 1")
            result = find_loops(nodes, edges, max_loops=args.max_loops, max_length=args.max_length,
                                max_work=args.max_work, exact_limit=args.exact_limit,
                                work_budget=args.work_budget)  # fmt: skip
        else:
            result = analyze(nodes, edges, exact_limit=args.exact_limit, work_budget=args.work_budget,
                             feedback_arc_set=args.feedback_arc_set, arcset_budget=args.arcset_budget)  # fmt: skip
            if args.recommendation:
                result["recommendation"] = recommendation(result)
        text = _encode(result, args.pretty)
    except (InputError, TypeError, ValueError) as exc:
        return _error(str(exc))
    except MemoryError:
        return _error("out of memory: the graph is too large for this machine")
    try:
        _write(sys.stdout, text)
    except BrokenPipeError:
        # the reader went away (``| head``): not an error of ours, and no traceback on exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0


def _budget_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--work-budget",
        type=int,
        default=DEFAULT_WORK_BUDGET,
        help=f"units of work per SCC for an exact κ; past it, a range (default {DEFAULT_WORK_BUDGET:,})",
    )
    cmd.add_argument(
        "--exact-limit",
        type=int,
        default=DEFAULT_EXACT_LIMIT,
        help="SCCs with more nodes get no cut search, only the bounds their degrees give (default: no limit)",
    )


def _error(message: str) -> int:
    print(f"kappa: error: {message}", file=sys.stderr)
    return 2
