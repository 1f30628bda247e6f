"""What the graph readers of :mod:`bendscope.shared.graphformats` share: the graph as they
find it, paced (:class:`GraphBuilder` counts the cards and edges it is given and says when a
reader should pause, so that one statement making thousands of edges, ``{a b …} -> {x y …}``
in DOT or ``a & b & … --> x & y & …`` in Mermaid, is read over several steps), a polarity
read from text, and a line cut at separators outside quotes without a Python loop per
character. Standard library only.

>>> graph = GraphBuilder(quantum=2)
>>> graph.edge("a", "b", "causal"), graph.due(), graph.due()
(None, True, False)
>>> graph.done()["edges"]
[{'a': 'a', 'b': 'b', 'props': {'kind': 'causal'}}]
>>> list(outside_quotes('a --> b; c["x; y"] --> d;', ";"))
['a --> b', ' c["x; y"] --> d', '']
>>> csv_header(["From", " To ", "Type"]), edge_kind(" Causal")
(['source', 'target', 'kind'], 'causal')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .docformat import EDGE_KINDS, DocumentError

__all__ = ["GRAPH_QUANTUM", "GraphBuilder", "csv_header", "edge_kind", "outside_quotes", "sign"]

#: cards and edges a reader makes between two pauses, at most (besides its own count of lines,
#: elements or statements)
GRAPH_QUANTUM = 250


class GraphBuilder:
    """Nodes (in order of first mention) and edges as a reader finds them; :meth:`due` says
    when ``quantum`` more of them were made since the last pause."""

    def __init__(self, quantum: int | None = None) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: list[dict[str, Any]] = []
        self.quantum = GRAPH_QUANTUM if quantum is None else quantum
        self.spent = 0

    def spend(self, units: int) -> None:
        """Count ``units`` of a reader's own work (as many cards' worth) towards the next pause."""
        self.spent += units

    def due(self) -> bool:
        """Whether a reader should pause now (then the count starts again). O(1)."""
        if self.spent < self.quantum:
            return False
        self.spent = 0
        return True

    def node(self, node_id: str, text: str | None = None, **extra: Any) -> None:
        if not node_id:
            raise ValueError("a node id is empty")
        self.spent += 1
        node = self.nodes.setdefault(node_id, {"id": node_id, "text": node_id})
        if text is not None:
            node["text"] = text
        if extra:
            node.update(extra)

    def edge(self, a: str, b: str, kind: str, label: str = "", polarity: str | None = None, **extra: Any) -> None:
        self.node(a)
        self.node(b)
        self.spent += 1
        props: dict[str, Any] = {"kind": edge_kind(kind)}
        if label:
            props["label"] = label
        if polarity is not None:
            props["polarity"] = polarity
        self.edges.append({**extra, "a": a, "b": b, "props": props})

    def done(self) -> dict[str, Any]:
        return {"nodes": list(self.nodes.values()), "edges": self.edges}


def edge_kind(value: str) -> str:
    """An edge kind as a file may write it (``Causal``, `` temporal``): trimmed and in lower case;
    ValueError naming the kinds when it is none of them."""
    kind = value.strip().lower()
    if kind not in EDGE_KINDS:
        raise ValueError(f"kind must be one of {', '.join(EDGE_KINDS)}, got {value[:40]!r}")
    return kind


#: the other names a CSV header gives the edge list's columns (Kumu's and many a sheet's)
_CSV_ALIASES = {"from": "source", "to": "target", "type": "kind"}


def csv_header(row: list[str]) -> list[str]:
    """A CSV header's column names, trimmed, in lower case, ``from``/``to``/``type`` read as
    ``source``/``target``/``kind`` (unless the header has those too). O(len(row))."""
    names = [cell.strip().lower() for cell in row]
    return [_CSV_ALIASES[n] if n in _CSV_ALIASES and _CSV_ALIASES[n] not in names else n for n in names]


def sign(value: str, where: str) -> str | None:
    """A polarity as written (``+``, ``-``, ``−``, ``plus``, ``minus``), or None when empty;
    DocumentError naming ``where`` otherwise."""
    value = value.strip()
    if not value:
        return None
    found = {"+": "+", "-": "-", "\u2212": "-", "plus": "+", "minus": "-"}.get(value.lower())
    if found is None:
        raise DocumentError(f"{where}: polarity must be + or -, got {value[:20]!r}.")
    return found


def outside_quotes(text: str, separator: str) -> Iterator[str]:
    """``text`` cut at each ``separator`` (one character) that is not inside double quotes (an
    unclosed quote runs to the end). O(len(text)), the scanning done by ``str.find``."""
    start = at = 0
    quote = text.find('"')
    while True:
        cut = text.find(separator, at)
        if cut < 0:
            yield text[start:]
            return
        if 0 <= quote < cut:
            close = text.find('"', quote + 1)
            if close < 0:
                yield text[start:]
                return
            at = close + 1
            quote = text.find('"', at)
            continue
        yield text[start:cut]
        start = at = cut + 1
