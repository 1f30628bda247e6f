"""The whole memory as JSON Lines: the backup and rescue format, with no editor limits.

A Bendscope document is what a person opens in the editor (at most 20,000 nodes and
10 MB); a dump is what a store needs to be rebuilt, of any size, read and written one
line at a time. The first line says what it is and how many items follow; then one
node per line, then one edge per line, every field kept (access counts and times too)::

    {"format": "bendscope-memory-dump", "version": 1, "nodes": 2, "edges": 1}
    {"node": {"id": "a", "content": "Rain", ...}}
    {"node": {"id": "b", "content": "Wet streets", ...}}
    {"edge": {"id": "e", "source_id": "a", "target_id": "b", ...}}

>>> from bendscope.memory.core.records import new_edge, new_node
>>> t = "2026-12-01T00:00:00.000Z"
>>> a, b = new_node({"id": "a", "content": "Rain"}, now=t), new_node({"id": "b", "content": "Wet"}, now=t)
>>> lines = list(dump_lines([a, b], [new_edge({"source_id": "a", "target_id": "b"}, now=t)]))
>>> lines[0]
'{"format":"bendscope-memory-dump","version":1,"nodes":2,"edges":1}'
>>> nodes, edges = read_dump(line.encode() for line in lines)
>>> [n.id for n in nodes] == ["a", "b"] and nodes[0] == a and edges[0].target_id == "b"
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

from bendscope.jsonsafe import Refused, loads

from ..core.errors import InvalidInput
from ..core.records import (
    EDGE_FIELDS,
    NODE_FIELDS,
    MemoryEdge,
    MemoryNode,
    new_edge,
    new_node,
    with_activation,
    with_statistics,
)

FORMAT = "bendscope-memory-dump"
VERSION = 1
#: the longest line read (a node holds at most 100,000 characters and 16 KB of metadata)
MAX_LINE = 2 * 1024 * 1024


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dump_lines(nodes: Iterable[MemoryNode], edges: Iterable[MemoryEdge]) -> Iterator[str]:
    """The dump's lines (without newlines): the header, the nodes, the edges. O(items)."""
    node_list, edge_list = list(nodes), list(edges)
    yield _line({"format": FORMAT, "version": VERSION, "nodes": len(node_list), "edges": len(edge_list)})
    for node in node_list:
        yield _line({"node": node.to_dict()})
    for edge in edge_list:
        yield _line({"edge": edge.to_dict()})


def is_dump(head: bytes) -> bool:
    r"""Whether a file starting with ``head`` is a dump (not a Bendscope document): its first
    object opens with ``"format": "bendscope-memory-dump"`` (spaces, newlines, a BOM allowed).

    >>> is_dump(b'\xef\xbb\xbf{\n  "format" : "bendscope-memory-dump"'), is_dump(b'{"format": "bendscope"}')
    (True, False)
    """
    return re.match(rb'(\xef\xbb\xbf)?\s*\{\s*"format"\s*:\s*"' + FORMAT.encode() + rb'"', head) is not None


def lines_of(stream: IO[bytes]) -> Iterator[bytes]:
    """A binary stream's lines, none read past MAX_LINE + 1 bytes (a longer one is refused by
    ``read_dump`` without being held whole). O(size)."""
    while line := stream.readline(MAX_LINE + 1):
        yield line


def _node(fields: Any, where: str, now: str) -> MemoryNode:
    if not isinstance(fields, dict):
        raise InvalidInput(f"{where}: a node must be an object")
    known = {*NODE_FIELDS, "created_at", "updated_at"}
    try:
        node = new_node({k: v for k, v in fields.items() if k in known}, now=now)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    return with_statistics(node, fields.get("access_count", 0), fields.get("last_accessed_at"), where)


def _edge(fields: Any, where: str, now: str) -> MemoryEdge:
    if not isinstance(fields, dict):
        raise InvalidInput(f"{where}: an edge must be an object")
    known = {*EDGE_FIELDS, "created_at"}
    try:
        edge = new_edge({k: v for k, v in fields.items() if k in known}, now=now)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    return with_activation(edge, fields.get("last_activated_at"), where)


def read_dump(
    lines: Iterable[bytes], now: str = "1970-01-01T00:00:00.000Z"
) -> tuple[list[MemoryNode], list[MemoryEdge]]:
    """The nodes and edges of a dump, every line checked (InvalidInput names the first bad
    one, and nothing is returned); the header's counts must match. ``now`` stands in for a
    missing timestamp. O(size)."""
    nodes: list[MemoryNode] = []
    edges: list[MemoryEdge] = []
    header: dict[str, Any] | None = None
    node_ids: set[str] = set()
    edge_ids: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        where = f"line {number}"
        if len(raw) > MAX_LINE:
            raise InvalidInput(f"{where} is longer than {MAX_LINE:,} bytes")
        if not raw.strip():
            continue
        try:
            value = loads(raw.decode("utf-8"), max_depth=64, max_digits=30)
        except UnicodeDecodeError:
            raise InvalidInput(f"{where} is not UTF-8 text") from None
        except Refused as exc:
            raise InvalidInput(f"{where}: {exc}") from None
        if header is None:
            if not isinstance(value, dict) or value.get("format") != FORMAT:
                raise InvalidInput(f"{where}: not a memory dump (its first line names the format {FORMAT!r})")
            if type(value.get("version")) is not int or value.get("version") != VERSION:
                raise InvalidInput(f"{where}: dump version {value.get('version')!r}; this version reads {VERSION}")
            header = value
        elif isinstance(value, dict) and set(value) == {"node"}:
            nodes.append(_node(value["node"], where, now))
            if nodes[-1].id in node_ids:
                raise InvalidInput(f"{where}: a second node with id {nodes[-1].id!r}")
            node_ids.add(nodes[-1].id)
        elif isinstance(value, dict) and set(value) == {"edge"}:
            edges.append(_edge(value["edge"], where, now))
            if edges[-1].id in edge_ids:
                raise InvalidInput(f"{where}: a second edge with id {edges[-1].id!r}")
            edge_ids.add(edges[-1].id)
        else:
            raise InvalidInput(f'{where}: expected {{"node": …}} or {{"edge": …}}')
    if header is None:
        raise InvalidInput("the dump is empty")
    counts = (header.get("nodes"), header.get("edges"))
    if any(type(count) is not int for count in counts) or counts != (len(nodes), len(edges)):
        raise InvalidInput(
            f"the dump is incomplete: its header counts {header.get('nodes')} nodes and {header.get('edges')} edges, "
            f"it holds {len(nodes)} and {len(edges)}"
        )
    return nodes, edges
