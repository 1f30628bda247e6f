"""Other graph formats in and out: CSV, GraphML, Graphviz DOT and Mermaid flowcharts.

Each reader turns a text into the bare graph the document format accepts
(``{"nodes": [{"id", "text", "x"?, "y"?}], "edges": [{"id"?, "a", "b", "props": {"kind",
"label", "polarity"?}}]}``), which then goes through the same validation as a JSON
document (:func:`bendscope.shared.docformat.validate_document`): a bad file is refused with a
message naming its line or element, and nothing changes. Each writer writes one plane.
Standard library only (CPython and Pyodide), like ``docformat``.

* **CSV** (``csv``): an edge list with the header ``source,target`` (or ``from,to``) and
  optionally ``kind`` (or ``type``), ``label``, ``polarity``, separated by commas, tabs or
  semicolons; optionally a node list first (header ``id`` and
  optionally ``text``, ``x``, ``y``) and a blank line before the edges. Nodes an edge names
  that the node list lacks are made, their text their id.
* **GraphML** (``xml.etree``, which resolves no external entity and, with the expat
  CPython and Pyodide ship, refuses entity bombs): ``<node id>`` with ``<data>`` keys named
  ``text`` (or ``label``, ``name``), ``x``, ``y``; ``<edge source target>`` with keys
  ``kind`` (or ``type``), ``label``, ``polarity``. Keys are matched by their ``attr.name``.
* **DOT** — a subset, read by hand: ``pydot`` would bring ``pyparsing`` (some 300 KB more for
  the page to fetch) for a grammar whose useful part is this small. ``[strict] graph|digraph
  [id] { … }`` with node statements, edge statements (``->`` and ``--``, chains, ``{a b}``
  groups), attribute lists, ``node``/``edge``/``graph`` defaults, ``id = id`` lines,
  subgraphs (flattened), ports (ignored), quoted strings, HTML strings (as text) and
  ``//``, ``/* */``, ``#`` comments. A node's text is its ``label`` (else its id); an edge
  takes ``label``, ``kind`` and ``polarity``; in a digraph an edge without ``kind`` is
  causal, in a graph context.
* **Mermaid** — a subset of flowcharts, read by hand (no maintained Python parser exists):
  ``flowchart``/``graph`` with a direction, nodes with their shapes (``A[text]``,
  ``A(text)``, ``A((text))``, ``A{text}``, ``A{{text}}``, ``A([text])``, ``A[[text]]``,
  ``A[(text)]``, ``A>text]``, quoted text), links ``-->`` (causal), ``-.->`` (temporal),
  ``==>`` (causal), ``---``, ``-.-``, ``===`` (context, no arrow) with ``|label|`` or inline
  labels, chains and ``&`` groups; ``%%`` comments; ``subgraph``/``end``, ``classDef``,
  ``class``, ``style``, ``linkStyle``, ``click``, ``direction`` and ``:::class`` are skipped. A label that
  starts with ``+`` or ``−`` (``-``) then a space or its end gives the polarity.

Each reader also comes in steps (:func:`read_graph_steps`, the way ``kappa.steps`` pauses): it
pauses every :data:`READ_CHUNK` lines (CSV, Mermaid), elements (GraphML) or statements (DOT),
and within a statement that makes many cards or edges (``graphbuild.GraphBuilder.due``), so
that a page reads a large file between its frames; the graph, or the error, is the same.

>>> graph = read_graph("source,target,kind,polarity\\nrain,flood,causal,+\\n", "csv")
>>> graph["nodes"], graph["edges"][0]["props"]
([{'id': 'rain', 'text': 'rain'}, {'id': 'flood', 'text': 'flood'}], {'kind': 'causal', 'polarity': '+'})
>>> print(write_graph(graph["nodes"], graph["edges"], "mermaid"), end="")
flowchart LR
  rain["rain"]
  flood["flood"]
  rain -->|"+"| flood
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Sequence
from typing import Any

from bendscope.kappa.steps import Steps, finish

from .docformat import MAX_BYTES, MAX_EDGES, MAX_NODES, POLAR_KINDS, DocumentError
from .graphbuild import GraphBuilder as _Graph
from .graphbuild import csv_header, outside_quotes
from .graphbuild import sign as _sign

__all__ = ["EXTENSIONS", "FORMATS", "format_of", "read_graph", "read_graph_steps", "write_graph"]

FORMATS = ("json", "csv", "graphml", "dot", "mermaid")
EXTENSIONS = {
    ".json": "json",
    ".csv": "csv",
    ".tsv": "csv",
    ".graphml": "graphml",
    ".xml": "graphml",
    ".dot": "dot",
    ".gv": "dot",
    ".mmd": "mermaid",
    ".mermaid": "mermaid",
}
#: what each format is saved as: extension and MIME type
SAVED_AS = {
    "json": (".json", "application/json"),
    "csv": (".csv", "text/csv"),
    "graphml": (".graphml", "application/graphml+xml"),
    "dot": (".dot", "text/vnd.graphviz"),
    "mermaid": (".mmd", "text/plain"),
}
_NAMES = {"csv": "CSV", "graphml": "GraphML", "dot": "DOT", "mermaid": "Mermaid"}
#: characters XML 1.0 cannot carry (a writer puts U+FFFD in their place)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: subgraphs nested deeper than this are refused (DOT)
MAX_NESTING = 64
#: lines (CSV, Mermaid), elements (GraphML) or statements (DOT) read between two pauses
READ_CHUNK = 200
#: DOT tokens, and characters fed to the XML parser (GraphML) or read by the CSV reader,
#: between two pauses
TOKEN_CHUNK = 500
XML_CHUNK = 16_384
_DECLARED = re.compile(r"<!(DOCTYPE|ENTITY)\b")
_MERMAID_START = re.compile(r"^\s*(flowchart|graph)\b", re.I)
_DOT_START = re.compile(r"^\s*(strict\s+)?(di)?graph\b", re.I)


def format_of(text: str, name: str = "") -> str:
    """The format of a file: by its name's extension, else by its first words.

    >>> format_of("digraph { a -> b }"), format_of("x", "g.graphml"), format_of("flowchart LR\\n a --> b")
    ('dot', 'graphml', 'mermaid')
    """
    dot = name.rfind(".")
    if dot >= 0 and name[dot:].lower() in EXTENSIONS:
        return EXTENSIONS[name[dot:].lower()]
    head = _strip_comments(text.lstrip("\ufeff")[:4_096]).lstrip()
    if head.startswith(("{", "[")):
        return "json"
    if head.startswith("<"):
        return "graphml"
    if _DOT_START.match(head):
        return "dot"
    if _MERMAID_START.match(head):
        return "mermaid"
    first = head.split("\n", 1)[0].lower()
    if "," in first and ("source" in first or "id" in first):
        return "csv"
    return "json"


def _strip_comments(head: str) -> str:
    """The start of a file without leading comment lines (``//``, ``#``, ``%%``)."""
    lines = head.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith(("//", "#", "%%"))):
        lines.pop(0)
    return "\n".join(lines)


def read_graph(text: str, fmt: str) -> dict[str, Any]:
    """The bare graph a file in ``fmt`` (not json) holds; DocumentError naming the line or
    element of the first problem. O(size)."""
    return finish(read_graph_steps(text, fmt))


def read_graph_steps(text: str, fmt: str) -> Steps[dict[str, Any]]:
    """:func:`read_graph` in steps of a few hundred lines or elements (O(size) in all, a step
    O(:data:`READ_CHUNK`) lines, or :data:`graphbuild.GRAPH_QUANTUM` cards and edges made — a
    DOT or Mermaid group product, a long chain, a line of many statements — or
    :data:`XML_CHUNK` characters of CSV fields or GraphML)."""
    if len(text) > MAX_BYTES:
        raise DocumentError(f"The file is {len(text) / 1e6:.1f} MB; the limit is {MAX_BYTES // (1024 * 1024)} MB.")
    text = text.lstrip("\ufeff")
    readers = {"csv": _read_csv, "graphml": _read_graphml, "dot": _read_dot, "mermaid": _read_mermaid}
    if fmt not in readers:
        raise DocumentError(f"Unknown format {fmt!r}: one of {', '.join(FORMATS)}.")
    try:
        graph = yield from readers[fmt](text)
    except DocumentError:
        raise
    except RecursionError:
        raise DocumentError(f"{_NAMES[fmt]}: the file is nested too deeply") from None
    except (ValueError, csv.Error) as exc:  # (e.g. a CSV field past the csv module's limit)
        raise DocumentError(f"{_NAMES[fmt]}: {str(exc)[:200]}") from None
    except MemoryError:
        raise DocumentError(f"{_NAMES[fmt]}: the file is too large to read here") from None
    if len(graph["nodes"]) > MAX_NODES:
        raise DocumentError(f"The graph has {len(graph['nodes']):,} nodes; the limit is {MAX_NODES:,}.")
    if len(graph["edges"]) > MAX_EDGES:
        raise DocumentError(f"The graph has {len(graph['edges']):,} edges; the limit is {MAX_EDGES:,}.")
    return graph


# ---------------------------------------------------------------- CSV
def _read_csv(text: str) -> Steps[dict[str, Any]]:
    first = text[: text.find("\n")] if "\n" in text else text  # (not split: that copies the rest)
    delimiter = next((d for d in ("\t", ";") if d in first and "," not in first), ",")  # (a sheet's , \t or ;)
    graph = _Graph()
    header: list[str] | None = None
    part = ""
    read = 0  # characters read since the last pause
    for number, row in enumerate(csv.reader(_lines(text), "excel", delimiter=delimiter), 1):
        read += sum(map(len, row))
        if number % READ_CHUNK == 0 or read >= XML_CHUNK:
            read = 0
            yield
        if not any(cell.strip() for cell in row):
            header = None  # (a blank line ends a section)
            continue
        if header is None:
            header = csv_header(row)
            if "source" in header and "target" in header:
                part = "edges"
            elif "id" in header:
                part = "nodes"
            else:
                raise DocumentError(f"line {number}: a header names source and target (edges) or id (nodes)")
            continue
        # (texts and labels as they are, spaces included; ids, kinds, signs and numbers trimmed)
        cells = {name: (row[k] if name in _VERBATIM else row[k].strip()) if k < len(row) else ""
                 for k, name in enumerate(header)}  # fmt: skip
        where = f"line {number}"
        try:
            if part == "nodes":
                extra = {}
                for axis in ("x", "y"):
                    if cells.get(axis):
                        extra[axis] = _number(cells[axis], f"{where}: {axis}")
                graph.node(cells["id"], _first_text(cells), **extra)
            else:
                kind = cells.get("kind") or "causal"
                graph.edge(cells["source"], cells["target"], kind, cells.get("label", ""),
                           _sign(cells.get("polarity", ""), where))  # fmt: skip
        except ValueError as exc:
            raise DocumentError(f"{where}: {exc}") from None
    if header is None and not graph.nodes:
        raise DocumentError("line 1: the file holds no header")
    return graph.done()


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` with their ``\n`` (what iterating ``io.StringIO(text)`` gives,
    without copying the whole text first)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


#: the CSV cells read as they are (not trimmed)
_VERBATIM = frozenset(("text", "label", "name"))


def _first_text(values: dict[str, str]) -> str | None:
    """A node's text from its ``text``, else ``label``, else ``name`` column or key — an empty
    one included, so an empty text stays empty — or None (the node is then named by its id).

    >>> _first_text({"text": "", "label": "x"}), _first_text({"label": "x"}), _first_text({"id": "a"})
    ('', 'x', None)
    """
    return next((values[key] for key in ("text", "label", "name") if key in values), None)


def _number(value: str, where: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise DocumentError(f"{where} is not a number: {value[:20]!r}") from None
    if not math.isfinite(number):
        raise DocumentError(f"{where} is not a finite number")
    return number


def _csv(rows: Sequence[Sequence[str]]) -> str:
    out = io.StringIO()
    # (RFC 4180's CRLF: every Python quotes a field holding \r or \n then — with "\n" alone,
    # CPython 3.11 left a lone \r unquoted, and the file could not be read back)
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows(rows)
    return out.getvalue()


# ---------------------------------------------------------------- GraphML
def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def xml_safe(value: str) -> str:
    """``value`` with the characters XML 1.0 cannot carry (control characters but tab, line
    feed and carriage return) replaced by U+FFFD, so the file stays well-formed.

    >>> xml_safe("form\\x0cfeed\\ttab") == "form\\ufffdfeed\\ttab"
    True
    """
    return _NOT_XML.sub("\ufffd", value)


def _read_graphml(text: str) -> Steps[dict[str, Any]]:
    for start in range(0, len(text), XML_CHUNK * 16):  # (a window overlaps the next by a word)
        declared = _DECLARED.search(text, start, start + XML_CHUNK * 16 + 16)
        if declared is not None and declared.start() < start + XML_CHUNK * 16:
            # (GraphML needs no DTD; entities are how XML bombs expand)
            line = text.count("\n", 0, declared.start()) + 1
            raise DocumentError(f"GraphML line {line}: a <!{declared.group(1)}> declaration is not accepted")
        yield
    try:
        parser = ElementTree.XMLParser()
        for start in range(0, len(text), XML_CHUNK):
            parser.feed(text[start : start + XML_CHUNK])
            yield
        root = parser.close()
    except ElementTree.ParseError as exc:
        line, column = exc.position
        raise DocumentError(f"GraphML line {line}, column {column + 1}: {str(exc).split(':')[0]}") from None
    if _local(root.tag) != "graphml":
        raise DocumentError(f"GraphML: the top element is <{_local(root.tag)}>, not <graphml>")
    names: dict[str, str] = {}
    for count, key in enumerate(root.iter(), 1):
        if count % (READ_CHUNK * 4) == 0:
            yield
        if _local(key.tag) == "key" and key.get("id"):
            names[key.get("id", "")] = (key.get("attr.name") or key.get("id") or "").lower()
    graphs = [g for g in root if _local(g.tag) == "graph"]
    if not graphs:
        raise DocumentError("GraphML: no <graph> element")
    directed = graphs[0].get("edgedefault", "directed") == "directed"
    graph = _Graph()

    def data(element: ElementTree.Element) -> dict[str, str]:
        return {
            names.get(d.get("key", ""), d.get("key", "")): (d.text or "") for d in element if _local(d.tag) == "data"
        }

    for count, element in enumerate(graphs[0].iter(), 1):
        if count % READ_CHUNK == 0:
            yield
        tag = _local(element.tag)
        if tag == "node":
            node_id = element.get("id")
            if not node_id:
                raise DocumentError(f"GraphML: element {count} (<node>) has no id")
            values = data(element)
            where = {a: _number(values[a], f"GraphML node {node_id!r}: {a}") for a in ("x", "y") if values.get(a)}
            graph.node(node_id, _first_text(values), **where)
        elif tag == "edge":
            source, target = element.get("source"), element.get("target")
            if not source or not target:
                raise DocumentError(f"GraphML: element {count} (<edge>) lacks its source or target")
            values = data(element)
            kind = values.get("kind") or values.get("type") or ("causal" if directed else "context")
            edge_id = element.get("id")
            extra = {"id": edge_id} if edge_id else {}
            graph.edge(source, target, kind, values.get("label", ""),
                       _sign(values.get("polarity", ""), f"GraphML edge {source!r} → {target!r}"), **extra)  # fmt: skip
    for parent in (graphs[0], root):  # (the tree let go of a piece at a time: freed whole, it is one long step)
        while len(parent):
            del parent[-READ_CHUNK:]
            yield
    return graph.done()


def _graphml(nodes: Sequence[dict[str, Any]], edges: Sequence[dict[str, Any]]) -> str:
    root = ElementTree.Element("graphml", xmlns="http://graphml.graphdrawing.org/xmlns")
    keys = (
        ("t", "node", "text", "string"),
        ("x", "node", "x", "double"),
        ("y", "node", "y", "double"),
        ("k", "edge", "kind", "string"),
        ("l", "edge", "label", "string"),
        ("p", "edge", "polarity", "string"),
    )
    for key_id, where, name, kind in keys:
        ElementTree.SubElement(root, "key", {"id": key_id, "for": where, "attr.name": name, "attr.type": kind})
    graph = ElementTree.SubElement(root, "graph", id="G", edgedefault="directed")
    for node in nodes:
        element = ElementTree.SubElement(graph, "node", id=xml_safe(node["id"]))
        ElementTree.SubElement(element, "data", key="t").text = xml_safe(node.get("text", ""))
        for axis in ("x", "y"):
            if node.get(axis) is not None:
                ElementTree.SubElement(element, "data", key=axis).text = repr(float(node[axis]))
    for edge in edges:
        attributes = {"source": xml_safe(edge["a"]), "target": xml_safe(edge["b"])}
        if edge.get("id"):
            attributes = {"id": xml_safe(edge["id"]), **attributes}
        element = ElementTree.SubElement(graph, "edge", attributes)
        props = edge["props"]
        ElementTree.SubElement(element, "data", key="k").text = props.get("kind", "causal")
        if props.get("label"):
            ElementTree.SubElement(element, "data", key="l").text = xml_safe(props["label"])
        if props.get("polarity"):
            ElementTree.SubElement(element, "data", key="p").text = props["polarity"]
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


# ---------------------------------------------------------------- DOT
_DOT_TOKEN = re.compile(
    r"""(?P<comment>^[ \t]*\#[^\n]*|//[^\n]*|/\*.*?\*/)|(?P<space>[ \t\r\f\v]+)|(?P<newline>\n)
    |(?P<string>"(?:[^"\\]|\\.)*")|(?P<html><(?:[^<>]|<[^<>]*>)*>)
    |(?P<edgeop>->|--)|(?P<punct>[{}\[\];,=:])
    |(?P<id>-?(?:\.\d+|\d+(?:\.\d*)?)|[A-Za-z_\u0080-\U0010ffff][A-Za-z_0-9\u0080-\U0010ffff]*)
    |(?P<bad>.)""",
    re.S | re.M | re.X,
)


def _dot_tokens(text: str) -> Iterator[tuple[str, str, int]]:
    line = 1  # (a line starting with # is one of the C preprocessor's: a comment in DOT)
    for match in _DOT_TOKEN.finditer(text):
        kind, value = match.lastgroup or "bad", match.group()
        if kind == "bad":
            raise DocumentError(f"DOT line {line}: unexpected {value!r}")
        if kind == "string":  # (a quoted id: never a keyword)
            value = re.sub(r"\\(.)", lambda m: m.group(1) if m.group(1) in '"\\' else "\n" if m.group(1) == "n" else
                           m.group(0), value[1:-1])  # fmt: skip
            kind = "qid"
        elif kind == "html":
            value, kind = re.sub(r"<[^<>]*>", "", value[1:-1]), "qid"
        if kind not in ("space", "comment", "newline"):
            yield kind, value, line
        line += match.group().count("\n")


_IDS = ("id", "qid")  # an id as written, or quoted (a quoted id is never a keyword)


class _DotReader:
    def __init__(self) -> None:
        self.tokens: list[tuple[str, str, int]] = []
        self.at = 0
        self.count = 0  # statements read
        self.paused = 0  # the token read at the last pause
        self.graph = _Graph()
        self.defaults: dict[str, dict[str, str]] = {"node": {}, "edge": {}}
        self.groups: list[list[str]] = []  # the nodes each open subgraph mentions
        self.depth = 0  # subgraphs open

    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        k = self.at + offset
        return self.tokens[k] if k < len(self.tokens) else ("end", "", self.tokens[-1][2] if self.tokens else 1)

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if value is not None and token[1] != value:
            shown = "the end of the file" if token[0] == "end" else repr(token[1])
            raise DocumentError(f"DOT line {token[2]}: expected {value!r}, found {shown}")
        self.at += 1
        return token

    def read(self, text: str) -> Steps[dict[str, Any]]:
        for token in _dot_tokens(text):
            self.tokens.append(token)
            if len(self.tokens) % TOKEN_CHUNK == 0:
                yield
        if self.peek()[1].lower() == "strict":
            self.take()
        _, word, line = self.take()
        if word.lower() not in ("graph", "digraph"):
            raise DocumentError(f"DOT line {line}: a file starts with graph or digraph, not {word!r}")
        self.directed = word.lower() == "digraph"
        if self.peek()[0] in _IDS:
            self.take()
        self.take("{")
        yield from self.statements()
        self.take("}")
        if self.peek()[0] != "end":
            raise DocumentError(f"DOT line {self.peek()[2]}: text after the graph's closing brace")
        return self.graph.done()

    def statements(self) -> Steps[None]:
        while self.peek()[1] != "}" and self.peek()[0] != "end":
            self.count += 1
            if self.count % READ_CHUNK == 0 or self.at - self.paused >= TOKEN_CHUNK or self.graph.due():
                self.paused = self.at
                yield
            yield from self.statement()
            while self.peek()[1] in (";", ","):
                self.take()

    def statement(self) -> Steps[None]:
        kind, word, line = self.peek()
        if kind == "id" and word.lower() in ("node", "edge", "graph") and self.peek(1)[1] == "[":
            self.take()
            attributes = self.attributes()
            if word.lower() != "graph":
                self.defaults[word.lower()].update(attributes)
            return
        if kind in _IDS and self.peek(1)[1] == "=":
            self.take(), self.take(), self.take()  # (a graph attribute)
            return
        ends = yield from self.endpoint()
        if self.peek()[0] == "edgeop":
            chain = [ends]
            while self.peek()[0] == "edgeop":
                self.take()
                chain.append((yield from self.endpoint()))
            attributes = {**self.defaults["edge"], **(self.attributes() if self.peek()[1] == "[" else {})}
            kind_name = attributes.get("kind") or ("causal" if self.directed else "context")
            sign = _sign(attributes.get("polarity", ""), f"DOT line {line}")
            for sources, targets in itertools.pairwise(chain):
                for a in sources:
                    for b in targets:
                        self.graph.edge(a, b, kind_name, attributes.get("label", ""), sign)
                    if self.graph.due():  # (a product of two groups: thousands of edges)
                        yield
        else:
            attributes = {**self.defaults["node"], **(self.attributes() if self.peek()[1] == "[" else {})}
            for node_id in ends:
                self.graph.node(node_id, attributes.get("label"))

    def endpoint(self) -> Steps[list[str]]:
        kind, word, line = self.peek()
        if (kind == "id" and word.lower() == "subgraph") or (kind == "punct" and word == "{"):
            if word.lower() == "subgraph":
                self.take()
                if self.peek()[0] in _IDS:
                    self.take()
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise DocumentError(f"DOT line {line}: subgraphs nested more than {MAX_NESTING} deep")
            self.groups.append([])
            self.take("{")
            yield from self.statements()
            self.take("}")
            self.depth -= 1
            return list(dict.fromkeys(self.groups.pop()))
        if kind not in _IDS:
            raise DocumentError(f"DOT line {line}: expected a node id, found {word!r}")
        self.take()
        if self.peek()[1] == ":":  # (a port: ignored)
            self.take()
            self.take()
            if self.peek()[1] == ":":
                self.take()
                self.take()
        if word not in self.graph.nodes:  # (made here: the node defaults hold for it too)
            self.graph.node(word, self.defaults["node"].get("label"))
        for group in self.groups:
            group.append(word)
        return [word]

    def attributes(self) -> dict[str, str]:
        found: dict[str, str] = {}
        while self.peek()[1] == "[":
            self.take("[")
            while self.peek()[1] != "]":
                key = self.take()
                if key[0] not in _IDS:
                    raise DocumentError(f"DOT line {key[2]}: expected an attribute name, found {key[1]!r}")
                self.take("=")
                value = self.take()
                if value[0] not in _IDS:
                    raise DocumentError(f"DOT line {value[2]}: expected a value for {key[1]!r}")
                found[key[1].lower()] = value[1]
                while self.peek()[1] in (",", ";"):
                    self.take()
            self.take("]")
        return found


def _read_dot(text: str) -> Steps[dict[str, Any]]:
    try:
        return (yield from _DotReader().read(text))
    except DocumentError:
        raise
    except ValueError as exc:
        raise DocumentError(f"DOT: {exc}") from None


def _dot_id(value: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", value) and value.lower() not in ("node", "edge", "graph", "digraph",
                                                                                 "subgraph", "strict"):  # fmt: skip
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot(nodes: Sequence[dict[str, Any]], edges: Sequence[dict[str, Any]]) -> str:
    lines = ["digraph bendscope {", "  node [shape=box];"]
    for node in nodes:
        lines.append(f"  {_dot_id(node['id'])} [label={_dot_id(node.get('text', ''))}];")
    for edge in edges:
        props = edge["props"]
        attributes = [f"kind={_dot_id(props.get('kind', 'causal'))}"]
        if props.get("label"):
            attributes.append(f"label={_dot_id(props['label'])}")
        if props.get("polarity"):
            attributes.append(f'polarity="{props["polarity"]}"')
        if props.get("kind") not in POLAR_KINDS:
            attributes.append("dir=none")
        lines.append(f"  {_dot_id(edge['a'])} -> {_dot_id(edge['b'])} [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- Mermaid
_SHAPES = [("(((", ")))"), ("([", "])"), ("[[", "]]"), ("[(", ")]"), ("((", "))"), ("{{", "}}"), ("[/", "/]"),
           ("[\\", "\\]"), ("[/", "\\]"), ("[\\", "/]"), ("[", "]"), ("(", ")"), ("{", "}"), (">", "]")]  # fmt: skip
_LINK = re.compile(
    r"\s*(?:(?P<open>--|-\.|==)\s*(?P<inline>[^-.=|>\n][^\n]{0,400}?)\s*)?"
    r"(?P<arrow>-{2,}>|-\.+->|={2,}>|-{3,}|-\.+-|={3,}|--[ox]|==[ox])\s*(?:\|(?P<label>[^|]*)\|)?\s*"
)
_MERMAID_ID = re.compile(r"[A-Za-z0-9_\u0080-\U0010ffff][A-Za-z0-9_.\-\u0080-\U0010ffff]*?(?=[\s\[\](){}>&;|=-]|:::|$)")
_CLASS = re.compile(r":::[\w-]+")
_AND = re.compile(r"\s*&")
_MARK = re.compile(r"^([+\-\u2212])(\s+|$)")
_BR = re.compile(r"<br\s*/?>")
#: a line and its end (``\r\n``, ``\r`` or ``\n``: other characters ``str.splitlines`` ends a line at are text)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_SKIP = re.compile(r"^\s*(classDef|class|style|linkStyle|click|direction|subgraph|end)\b", re.I)


def _read_mermaid(text: str) -> Steps[dict[str, Any]]:
    graph = _Graph()
    started = False
    for number, found in enumerate(_LINE.finditer(text), 1):  # (not splitlines: \x1c–\x1e, \x85 are text)
        if number % READ_CHUNK == 0 or graph.due():
            yield
        line = found.group().split("%%", 1)[0].strip()
        if not line:
            continue
        if not started:
            if not _MERMAID_START.match(line):
                raise DocumentError(f"Mermaid line {number}: a flowchart starts with flowchart or graph")
            started = True
            continue
        for statement in outside_quotes(line, ";"):
            graph.spend(4)  # (reading a statement costs about as much as making four cards)
            if statement.strip() and not _SKIP.match(statement):
                yield from _mermaid_statement(statement.strip(), graph, number)
            if graph.due():  # (a long line of statements: the graph counts what they made)
                yield
    if not started:
        raise DocumentError("Mermaid line 1: a flowchart starts with flowchart or graph")
    return graph.done()


def _entities(text: str) -> str:
    """Mermaid's entity codes (``#quot;``, ``#35;``) as the characters they stand for."""
    named = {"quot": '"', "amp": "&", "lt": "<", "gt": ">", "nbsp": "\u00a0"}
    if "#" not in text:
        return text
    return re.sub(
        r"#(\d{1,7}|[a-z]{1,8});",
        lambda m: chr(int(m.group(1))) if m.group(1).isdigit() and int(m.group(1)) < 0x110000
        else named.get(m.group(1), m.group(0)),
        text,
    )  # fmt: skip


def _mermaid_statement(text: str, graph: _Graph, number: int) -> Steps[None]:
    """One statement: its nodes, then the edges of each link between two groups (a pause
    whenever the graph says, so a long chain or a product of two large groups takes steps)."""
    at = 0
    groups: list[list[str]] = []
    links: list[tuple[str, str]] = []
    while True:
        group = []
        while True:
            node_id, at = _mermaid_node(text, at, graph, number)
            group.append(node_id)
            graph.spend(1)  # (a node read costs about as much as another card made)
            if graph.due():
                yield
            more = _AND.match(text, at)
            if more is not None:
                at = more.end()
                continue
            break
        groups.append(group)
        match = _LINK.match(text, at)
        if match is None or at >= len(text) or not match.group("arrow"):
            if text[at:].strip():
                raise DocumentError(f"Mermaid line {number}: cannot read {text[at:].strip()[:30]!r}")
            break
        arrow = match.group("arrow")
        label = (match.group("label") if match.group("label") is not None else match.group("inline") or "").strip()
        kind = "temporal" if arrow.startswith("-.") and arrow.endswith(">") else (
            "causal" if arrow.endswith(">") else "context")  # fmt: skip
        links.append((kind, label.strip('"')))
        at = match.end()
    for (kind, raw), (sources, targets) in zip(links, itertools.pairwise(groups), strict=False):
        sign = None
        found = _MARK.match(raw)  # (before entities: "#43; x" is a label "+ x")
        if found and kind in POLAR_KINDS:
            sign, raw = _sign(found.group(1), f"Mermaid line {number}"), raw[found.end() :]
        label = _entities(_BR.sub("\n", raw))
        for a in sources:
            for b in targets:
                graph.edge(a, b, kind, label, sign)
            if graph.due():
                yield


def _mermaid_node(text: str, at: int, graph: _Graph, number: int) -> tuple[str, int]:
    while at < len(text) and text[at].isspace():
        at += 1
    match = _MERMAID_ID.match(text, at)
    if match is None or not match.group():
        raise DocumentError(f"Mermaid line {number}: expected a node id at {text[at : at + 20]!r}")
    node_id = match.group()
    at = match.end()
    for opening, closing in _SHAPES:
        if text.startswith(opening, at):
            end = _shape_end(text, at + len(opening), closing)
            if end < 0:
                raise DocumentError(
                    f"Mermaid line {number}: the shape {opening}…{closing} of {node_id!r} is not closed"
                )
            label = text[at + len(opening) : end].strip()
            if len(label) >= 2 and label[0] == label[-1] == '"':
                label = label[1:-1]
            graph.node(node_id, _entities(_BR.sub("\n", label)))
            return node_id, _skip_class(text, end + len(closing))
    graph.node(node_id)
    return node_id, _skip_class(text, at)


def _skip_class(text: str, at: int) -> int:
    """Past a node's ``:::class`` (a style, as ``class`` lines are: skipped), if it has one."""
    found = _CLASS.match(text, at)
    return at if found is None else found.end()


def _shape_end(text: str, start: int, closing: str) -> int:
    """Where a shape's text ends (a quoted text may hold the closing characters), or -1.
    O(len(text)), the scanning done by ``str.find``."""
    at = start
    while True:
        end = text.find(closing, at)
        quote = text.find('"', at, len(text) if end < 0 else end)
        if quote < 0:
            return end
        close = text.find('"', quote + 1)
        if close < 0:
            return -1
        at = close + 1


#: words a Mermaid line may start with that are not node ids (the reader skips such lines)
_MERMAID_WORDS = frozenset(("end", "graph", "flowchart", "subgraph", "classdef", "class", "style", "linkstyle",
                            "click", "direction"))  # fmt: skip


def _mermaid_id(value: str, used: dict[str, str], taken: set[str]) -> str:
    """The id a node is written with: its own when plain and not a keyword, else ``n<k>``.
    O(1) (``taken``: the ids written so far)."""
    if value in used:
        return used[value]
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value) and value.lower() not in _MERMAID_WORDS
    made = value if plain else f"n{len(used) + 1}"
    while made in taken:
        made += "_"
    used[value] = made
    taken.add(made)
    return made


def _mermaid_text(value: str, mark: str = "") -> str:
    """A quoted Mermaid text: characters the syntax gives a meaning (quotes, ``|`` of labels,
    ``%%`` comments, ``#`` of entities, a leading polarity sign) written as entities, lines as
    ``<br>``; ``mark``: an edge's polarity, written first."""
    escaped = value.replace("#", "#35;").replace('"', "#quot;").replace("|", "#124;").replace("%", "#37;")
    escaped = escaped.replace("<", "#lt;")  # (so a written "<br>" stays text)
    if escaped[:1] in ("+", "-", "\u2212"):  # (a label that starts like a polarity mark)
        escaped = f"#{ord(escaped[0])};" + escaped[1:]
    lines = re.sub(r"\r\n|\r|\n", "<br>", escaped)
    return '"' + " ".join(p for p in (mark, lines) if p) + '"'


def _mermaid(nodes: Sequence[dict[str, Any]], edges: Sequence[dict[str, Any]]) -> str:
    used: dict[str, str] = {}
    taken: set[str] = set()
    lines = ["flowchart LR"]
    for node in nodes:
        lines.append(f"  {_mermaid_id(node['id'], used, taken)}[{_mermaid_text(node.get('text', ''))}]")
    for edge in edges:
        props = edge["props"]
        kind = props.get("kind", "causal")
        arrow = "-.->" if kind == "temporal" else "-->" if kind in POLAR_KINDS else "---"
        mark = (props.get("polarity") or "").replace("-", "−")
        shown = f"|{_mermaid_text(props.get('label', ''), mark)}|" if mark or props.get("label") else ""
        lines.append(f"  {_mermaid_id(edge['a'], used, taken)} {arrow}{shown} {_mermaid_id(edge['b'], used, taken)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- writing
def write_graph(nodes: Sequence[dict[str, Any]], edges: Sequence[dict[str, Any]], fmt: str) -> str:
    """One plane as ``fmt``: ``nodes`` ``{id, text, x?, y?}``, ``edges`` ``{id?, a, b, props:
    {kind, label, polarity?}}``. Deterministic: the same graph gives the same bytes."""
    if fmt == "csv":
        rows: list[list[str]] = [["id", "text", "x", "y"]]
        rows += [[n["id"], n.get("text", ""), _coordinate(n.get("x")), _coordinate(n.get("y"))] for n in nodes]
        rows += [[], ["source", "target", "kind", "label", "polarity"]]
        rows += [[e["a"], e["b"], e["props"].get("kind", "causal"), e["props"].get("label", ""),
                  e["props"].get("polarity") or ""] for e in edges]  # fmt: skip
        return _csv(rows)
    if fmt == "graphml":
        return _graphml(nodes, edges)
    if fmt == "dot":
        return _dot(nodes, edges)
    if fmt == "mermaid":
        return _mermaid(nodes, edges)
    raise ValueError(f"unknown format {fmt!r}")


def _coordinate(value: Any) -> str:
    return "" if value is None else repr(round(float(value), 3))
