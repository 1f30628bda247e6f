"""The whole memory as JSON Lines: the backup and rescue format, with no editor limits.

A Bendscope document is what a person opens in the editor (at most 20,000 nodes and
10 MB); a dump is what a store needs to be rebuilt, of any size, read and written one
line at a time. The first line says what it is and how many items follow; then one
node per line, then one edge per line (their current versions), then the past versions of
nodes and of edges (each with ``recorded_until``), then the merges consolidation made, every
field kept (access counts and times too)::

    {"format": "bendscope-memory-dump", "version": 2, "nodes": 2, "edges": 1, "node_versions": 1,
     "edge_versions": 0, "merges": 0}
    {"node": {"id": "a", "content": "Rain", ..., "recorded_at": "2026-12-02T…", "recorded_until": null}}
    {"node": {"id": "b", "content": "Wet streets", ...}}
    {"edge": {"id": "e", "source_id": "a", "target_id": "b", ...}}
    {"node_version": {"id": "a", "content": "Rain?", ..., "recorded_until": "2026-12-02T…"}}
    {"merge": {"id": "c", "into": "a", "at": "2026-12-03T…"}}

A dump of version 1 (before versions were kept) is read too: its nodes recorded when last
updated, its edges when created.

>>> from bendscope.memory.core.records import new_edge, new_node
>>> t = "2026-12-01T00:00:00.000Z"
>>> a, b = new_node({"id": "a", "content": "Rain"}, now=t), new_node({"id": "b", "content": "Wet"}, now=t)
>>> lines = list(dump_lines(Dump([a, b], [new_edge({"source_id": "a", "target_id": "b"}, now=t)])))
>>> lines[0]
'{"format":"bendscope-memory-dump","version":2,"nodes":2,"edges":1,"node_versions":0,"edge_versions":0,"merges":0}'
>>> dump = read_dump(line.encode() for line in lines)
>>> [n.id for n in dump.nodes] == ["a", "b"] and dump.nodes[0] == a and dump.edges[0].target_id == "b"
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from bendscope.shared.jsonsafe import Refused, loads

from ..core.errors import InvalidInput
from ..core.records import (
    EDGE_FIELDS,
    NODE_FIELDS,
    MemoryEdge,
    MemoryNode,
    check_id,
    check_timestamp,
    new_edge,
    new_node,
    with_activation,
    with_statistics,
)

FORMAT = "bendscope-memory-dump"
VERSION = 2
#: the versions read
READS = (1, 2)
#: what each line kind holds, as the header counts it
KINDS = {"node": "nodes", "edge": "edges", "node_version": "node_versions", "edge_version": "edge_versions",
         "merge": "merges"}  # fmt: skip
#: the longest line read (a node holds at most 100,000 characters and 16 KB of metadata)
MAX_LINE = 2 * 1024 * 1024


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass
class Dump:
    """What a dump holds: the current versions, the past ones, and the merges (merged id →
    (the node it went into, when))."""

    nodes: list[MemoryNode]
    edges: list[MemoryEdge]
    node_versions: list[MemoryNode] = field(default_factory=list)
    edge_versions: list[MemoryEdge] = field(default_factory=list)
    merges: dict[str, tuple[str, str]] = field(default_factory=dict)


def dump_lines(dump: Dump) -> Iterator[str]:
    """The dump's lines (without newlines): the header, the nodes, the edges, the past
    versions, the merges. O(items)."""
    counts = {name: len(getattr(dump, name)) for name in KINDS.values()}
    yield _line({"format": FORMAT, "version": VERSION, **counts})
    for node in dump.nodes:
        yield _line({"node": node.to_dict()})
    for edge in dump.edges:
        yield _line({"edge": edge.to_dict()})
    for node in dump.node_versions:
        yield _line({"node_version": node.to_dict()})
    for edge in dump.edge_versions:
        yield _line({"edge_version": edge.to_dict()})
    for merged, (into, at) in sorted(dump.merges.items()):
        yield _line({"merge": {"id": merged, "into": into, "at": at}})


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


_RECORDED = ("recorded_at", "recorded_until")


def _node(fields: Any, where: str, now: str, past: bool = False) -> MemoryNode:
    if not isinstance(fields, dict):
        raise InvalidInput(f"{where}: a node must be an object")
    known = {*NODE_FIELDS, "created_at", "updated_at", *_RECORDED}
    given = {k: v for k, v in fields.items() if k in known}
    given.setdefault("recorded_at", fields.get("updated_at"))  # (version 1: recorded when last updated)
    try:
        if past and given.get("recorded_until") is None:
            raise InvalidInput("a past version has a recorded_until")
        if not past:
            given["recorded_until"] = None
        node = new_node(given, now=now)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    return with_statistics(node, fields.get("access_count", 0), fields.get("last_accessed_at"), where)


def _edge(fields: Any, where: str, now: str, past: bool = False) -> MemoryEdge:
    if not isinstance(fields, dict):
        raise InvalidInput(f"{where}: an edge must be an object")
    known = {*EDGE_FIELDS, "created_at", *_RECORDED}
    given = {k: v for k, v in fields.items() if k in known}
    given.setdefault("recorded_at", fields.get("created_at"))  # (version 1: recorded when created)
    try:
        if past and given.get("recorded_until") is None:
            raise InvalidInput("a past version has a recorded_until")
        if not past:
            given["recorded_until"] = None
        edge = new_edge(given, now=now)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    return with_activation(edge, fields.get("last_activated_at"), where)


def _merge(fields: Any, where: str) -> tuple[str, str, str]:
    if not isinstance(fields, dict) or set(fields) != {"id", "into", "at"}:
        raise InvalidInput(f'{where}: a merge is {{"id", "into", "at"}}')
    try:
        return check_id(fields["id"]), check_id(fields["into"], "into"), check_timestamp(fields["at"], "at", "")
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None


def read_dump(lines: Iterable[bytes], now: str = "1970-01-01T00:00:00.000Z") -> Dump:
    """What a dump holds, every line checked (InvalidInput names the first bad one, and
    nothing is returned); the header's counts must match. ``now`` stands in for a missing
    timestamp. O(size)."""
    dump = Dump([], [])
    header: dict[str, Any] | None = None
    seen: dict[str, set[Any]] = {kind: set() for kind in KINDS}
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
            if type(value.get("version")) is not int or value.get("version") not in READS:
                raise InvalidInput(f"{where}: dump version {value.get('version')!r}; this version reads 1 and 2")
            header = value
            continue
        kind = next(iter(value)) if isinstance(value, dict) and len(value) == 1 else None
        if kind not in KINDS or (header["version"] == 1 and kind not in ("node", "edge")):
            raise InvalidInput(f'{where}: expected {{"node": …}} or {{"edge": …}}')
        body = value[kind]
        if kind == "merge":
            merged, into, at = _merge(body, where)
            key: Any = merged
            dump.merges[merged] = (into, at)
        elif kind in ("node", "node_version"):
            node = _node(body, where, now, past=kind == "node_version")
            key = node.id if kind == "node" else (node.id, node.recorded_at, node.recorded_until)
            (dump.nodes if kind == "node" else dump.node_versions).append(node)
        else:
            edge = _edge(body, where, now, past=kind == "edge_version")
            key = edge.id if kind == "edge" else (edge.id, edge.recorded_at, edge.recorded_until)
            (dump.edges if kind == "edge" else dump.edge_versions).append(edge)
        if key in seen[kind]:
            named = key if isinstance(key, str) else key[0]
            raise InvalidInput(f"{where}: a second {kind.replace('_', ' ')} with id {named!r}")
        seen[kind].add(key)
    if header is None:
        raise InvalidInput("the dump is empty")
    counted = [(name, header.get(name, 0 if header["version"] == 1 else None)) for name in KINDS.values()]
    held = {name: len(getattr(dump, name)) for name in KINDS.values()}
    if any(type(count) is not int or count != held[name] for name, count in counted):
        said = ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in counted if count)
        have = ", ".join(f"{held[name]} {name.replace('_', ' ')}" for name in KINDS.values() if held[name])
        raise InvalidInput(
            f"the dump is incomplete: its header counts {said or 'nothing'}, it holds {have or 'nothing'}"
        )
    if header["version"] == 1:  # (merges were kept in the survivor's metadata only: as a store's migration reads them)
        present = {node.id for node in dump.nodes}
        for node in sorted(dump.nodes, key=lambda n: n.id):
            merged_ids = node.metadata.get("merged_ids")
            for merged in merged_ids if isinstance(merged_ids, list) else ():
                if isinstance(merged, str) and merged not in present and merged not in dump.merges:
                    dump.merges[merged] = (node.id, node.updated_at)
    return dump
