"""The Bendscope document format, read by both faces: the editor core builds its model
from what this module validates, and the agent memory reads and writes documents with
it, so neither face imports the other. Standard library only (CPython and Pyodide).

Format (version 1)::

    {"format": "bendscope", "version": 1, "rootPlaneId": "...", "activePlaneId": "...",
     "settings": {"seed": 1, "exactLimit": null},
     "planes": [{"id", "name", "parentPlaneId", "parentNodeId", "camera": {"x", "y", "zoom"},
                 "nodes": [{"id", "text", "type", "x", "y", "vx", "vy", "pinned", "width", "height",
                            "portalPlaneId", "data"}],
                 "edges": [{"id", "a", "b", "props": {"label", "kind", "strength", "polarity"}, "data"}]}]}

An edge's ``polarity`` — ``"+"`` (the target moves the same way as the source) or ``"-"``
(the opposite way) — is optional and only for causal and temporal edges; κ ignores it
(loops are classed by it: ``kappa.loops``). ``"−"`` (the minus sign) is read as ``"-"``.

A bare graph ``{"nodes": [...], "edges": [...]}`` is accepted too (one plane; nodes may
omit positions — a node without ``text`` is named by its ``label``, ``name`` or id —, edges
may be ``{source, target, kind}``, under ``links`` as d3 and networkx write them), and so is an original
BendScript planes file. :func:`read_document` validates a text into plain records
(:class:`DocumentRecord` of :class:`PlaneRecord` of :class:`CardRecord` and
:class:`LinkRecord`) or raises :class:`DocumentError` naming the first problem; it
touches nothing else, so a refused import leaves every graph exactly as it was.

>>> doc = read_document('{"nodes": ["a", "b"], "edges": [{"source": "a", "target": "b"}]}')
>>> [(c.id, c.x) for c in doc.planes[0].nodes], doc.planes[0].edges[0].kind
([('a', None), ('b', None)], 'causal')
>>> read_document('{"nodes": [{"id": "a", "type": "box"}]}')
Traceback (most recent call last):
...
bendscope.shared.docformat.DocumentError: nodes[0].type: must be one of normal, stargate, got 'box'
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Generator
from typing import Any, NamedTuple, TypeVar

from bendscope.shared.jsonsafe import Refused, loads_steps

FORMAT = "bendscope"
VERSION = 1
NODE_TYPES = ("normal", "stargate")
#: the editor's own edge kinds (always in the legend) …
BASE_EDGE_KINDS = ("context", "causal", "temporal", "associative", "user")
#: … and the agent memory's (the Graphonomous spec's), so both edit the same graphs
MEMORY_EDGE_KINDS = ("related", "contradicts", "supports", "derived_from")
EDGE_KINDS = BASE_EDGE_KINDS + MEMORY_EDGE_KINDS
DEFAULT_KIND = "causal"
#: far enough out for Fit to show any document whole, even one spread over ±COORD_LIMIT
#: (cards are boxes below zoom 0.2, never smaller than a dot)
MIN_ZOOM = 2e-5
MAX_ZOOM = 2.8
MAX_TEXT = 100_000  # characters of node text
MAX_LABEL = 500  # characters of an edge label or plane name
#: |x|, |y| of nodes and cameras stay within this (the layout's arithmetic is exact far beyond it)
COORD_LIMIT = 1e7
#: |vx|, |vy| stay within this
SPEED_LIMIT = 1e4
MAX_BYTES = 10 * 1024 * 1024
MAX_NODES = 20_000
MAX_EDGES = 100_000
MAX_PLANES = 5_000
MAX_ID = 200
#: characters of a node's or edge's ``data`` object as JSON
MAX_DATA = 65_536
#: deepest bracket nesting accepted (a document needs 6; JSON parsers recurse per level)
MAX_DEPTH = 64
#: longest integer literal accepted (Python refuses > 4,300 digits with a bare ValueError)
MAX_INT_DIGITS = 30
MAX_SEED = 2**63

_SURROGATE = re.compile("[\ud800-\udfff]")


class DocumentError(ValueError):
    """The text is not a valid document; the message says why, for the user."""


class NewerVersion(DocumentError):
    """The document is in a format version newer than this editor reads."""


class CardRecord(NamedTuple):
    """A validated node. ``x``/``y`` are None when the document gave no position."""

    id: str
    text: str
    type: str
    x: float | None
    y: float | None
    vx: float
    vy: float
    pinned: bool
    portal_plane_id: str | None
    data: dict[str, Any] | None


class LinkRecord(NamedTuple):
    """A validated edge a → b, its endpoints on the same plane."""

    id: str
    a: str
    b: str
    label: str
    kind: str
    strength: int
    data: dict[str, Any] | None
    polarity: str | None = None


class PlaneRecord(NamedTuple):
    """A validated plane; ``camera`` is (x, y, zoom) with the zoom clamped to the range."""

    id: str
    name: str
    parent_plane_id: str | None
    parent_node_id: str | None
    camera: tuple[float, float, float]
    nodes: tuple[CardRecord, ...]
    edges: tuple[LinkRecord, ...]


class DocumentRecord(NamedTuple):
    """A validated document: ids unique, every plane reached from the root through its stargate."""

    planes: tuple[PlaneRecord, ...]
    root_plane_id: str
    active_plane_id: str
    seed: int
    exact_limit: int | None


def _fail(where: str, message: str) -> DocumentError:
    return DocumentError(f"{where}: {message}" if where else message)


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object, got {_type(value)}")
    return value


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(where, "must be a non-empty string")
    if len(value) > MAX_ID:
        raise _fail(where, f"is longer than {MAX_ID} characters")
    _unicode(value, where)
    return value


def _unicode(value: str, where: str) -> None:
    if _SURROGATE.search(value):
        raise _fail(where, "contains an unpaired surrogate (\\ud800–\\udfff), which is not valid Unicode")


def _str(d: dict[str, Any], key: str, where: str, default: str = "", limit: int = MAX_TEXT) -> str:
    value = d.get(key, default)
    if value is None:
        value = default
    if not isinstance(value, str):
        raise _fail(f"{where}.{key}", f"must be a string, got {_type(value)}")
    if len(value) > limit:
        raise _fail(f"{where}.{key}", f"is longer than {limit} characters")
    _unicode(value, f"{where}.{key}")
    return value


def _opt_num(d: dict[str, Any], key: str, where: str, bound: float = COORD_LIMIT) -> float | None:
    """A number in [-bound, bound], or None when the key is missing or null."""
    value = d.get(key)
    if value is None:
        return None
    return _num(d, key, where, 0.0, bound)


def _num(d: dict[str, Any], key: str, where: str, default: float = 0.0, bound: float = COORD_LIMIT) -> float:
    """A number in [-bound, bound] (``default`` when missing or null)."""
    value = d.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(f"{where}.{key}", f"must be a number, got {_type(value)}")
    number = float(value)  # ints are at most MAX_INT_DIGITS long, so this cannot overflow
    if not math.isfinite(number) or abs(number) > bound:
        raise _fail(f"{where}.{key}", f"must be a number between -{bound:g} and {bound:g}, got {value!r:.40}")
    return number


def _bool(d: dict[str, Any], key: str, where: str) -> bool:
    value = d.get(key, False)
    if not isinstance(value, bool):
        raise _fail(f"{where}.{key}", "must be true or false")
    return value


def _list(d: dict[str, Any], key: str, where: str, limit: int) -> list[Any]:
    value = d.get(key, [])
    if not isinstance(value, list):
        raise _fail(f"{where}.{key}", f"must be a list, got {_type(value)}")
    if len(value) > limit:
        raise _fail(f"{where}.{key}", f"has {len(value)} items; the limit is {limit}")
    return value


def _data(d: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The optional ``data`` object, kept as it is (bounded in size)."""
    value = d.get("data")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _fail(f"{where}.data", f"must be an object, got {_type(value)}")
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > MAX_DATA:
        raise _fail(f"{where}.data", f"is {len(text):,} characters as JSON; the limit is {MAX_DATA:,}")
    _unicode(text, f"{where}.data")
    return value


def _camera(d: dict[str, Any], where: str) -> tuple[float, float, float]:
    cam = _obj(d.get("camera") or {}, f"{where}.camera")
    zoom = _num(cam, "zoom", f"{where}.camera", 1.0, bound=1e6)
    return _num(cam, "x", f"{where}.camera"), _num(cam, "y", f"{where}.camera"), min(MAX_ZOOM, max(MIN_ZOOM, zoom))


def _card(raw: Any, where: str) -> CardRecord:
    d = _obj(raw, where)
    node_type = d.get("type", "normal")
    if node_type not in NODE_TYPES:
        raise _fail(f"{where}.type", f"must be one of {', '.join(NODE_TYPES)}, got {node_type!r:.40}")
    x = _opt_num(d, "x", where)
    y = _opt_num(d, "y", where)
    portal = d.get("portalPlaneId")
    if portal is not None:
        portal = _id(portal, f"{where}.portalPlaneId")
    return CardRecord(
        _id(d.get("id"), f"{where}.id"),
        _str(d, "text", where),
        node_type,
        x,
        y,
        _num(d, "vx", where, bound=SPEED_LIMIT),
        _num(d, "vy", where, bound=SPEED_LIMIT),
        _bool(d, "pinned", where),
        portal,
        _data(d, where),
    )


def _link(raw: Any, where: str, cards: set[str]) -> LinkRecord:
    d = _obj(raw, where)
    if "a" not in d and ("source" in d or "from" in d):  # bare graph style {source, target, kind} (or from, to)
        props = {"kind": d.get("kind", DEFAULT_KIND)}
        props.update({k: d[k] for k in ("label", "strength", "polarity") if k in d})
        a, b = (d.get("source"), d.get("target")) if "source" in d else (d.get("from"), d.get("to"))
        d = {"id": d.get("id"), "a": a, "b": b, "props": props, "data": d.get("data")}
    a = _id(d.get("a"), f"{where}.a")
    b = _id(d.get("b"), f"{where}.b")
    for key, end in (("a", a), ("b", b)):
        if end not in cards:
            raise _fail(f"{where}.{key}", f"refers to node {end!r:.60}, which is not on this plane")
    props = _obj(d.get("props") or {}, f"{where}.props")
    kind = props.get("kind", DEFAULT_KIND)
    if kind not in EDGE_KINDS:
        raise _fail(f"{where}.props.kind", f"must be one of {', '.join(EDGE_KINDS)}, got {kind!r:.40}")
    strength = props.get("strength", 2)
    if isinstance(strength, bool) or not isinstance(strength, (int, float)) or strength not in (1, 2, 3, 4, 5):
        raise _fail(f"{where}.props.strength", "must be an integer from 1 to 5")
    return LinkRecord(
        _id(d.get("id"), f"{where}.id"),
        a,
        b,
        _str(props, "label", f"{where}.props", limit=MAX_LABEL),
        kind,
        int(strength),
        _data(d, where),
        polarity_of(props.get("polarity"), kind, f"{where}.props.polarity"),
    )


def read_card(raw: Any, where: str) -> CardRecord:
    """One card as a document holds it, checked as a document's cards are (DocumentError
    naming ``where`` if not)."""
    return _card(raw, where)


def read_link(raw: Any, where: str, cards: set[str]) -> LinkRecord:
    """One edge as a document holds it (``{"id", "a", "b", "props"}``), checked as a
    document's edges are: its ends among ``cards``; DocumentError naming ``where`` if not."""
    return _link(raw, where, cards)


#: the kinds an edge's polarity is for (those κ follows)
POLAR_KINDS = ("causal", "temporal")


def polarity_of(value: Any, kind: str, where: str = "polarity") -> str | None:
    """An edge's polarity as kept: ``"+"``, ``"-"`` (``"−"`` read as ``"-"``) or None.

    >>> polarity_of("−", "causal"), polarity_of(None, "context")
    ('-', None)
    >>> polarity_of("+", "context")
    Traceback (most recent call last):
    ...
    bendscope.shared.docformat.DocumentError: polarity: is for causal and temporal edges, not context
    """
    if value is None:
        return None
    sign = {"+": "+", "-": "-", "\u2212": "-"}.get(value) if isinstance(value, str) else None
    if sign is None:
        raise _fail(where, f"must be '+' or '-', got {value!r:.20}")
    if kind not in POLAR_KINDS:
        raise _fail(where, f"is for causal and temporal edges, not {kind}")
    return sign


#: a bare graph's edge fields that hold ids
_BARE_ENDS = ("id", "source", "target", "from", "to")


def _bare_graph(data: dict[str, Any]) -> Steps[dict[str, Any]]:
    """``{"nodes", "edges"}`` as a one-plane document, a pause every :data:`CHUNK` × 4 nodes
    or edges. Edges without an id get ``edge-{i}``, skipping any id the graph already uses (so
    no user id collides)."""
    nodes = []
    for i, raw in enumerate(_list(data, "nodes", "", MAX_NODES)):
        raw = _bare_id(raw, f"nodes[{i}]") if not isinstance(raw, dict) else raw
        if isinstance(raw, dict) and "id" in raw:
            raw = {**raw, "id": _bare_id(raw["id"], f"nodes[{i}].id")}
        if isinstance(raw, dict) and "text" not in raw:  # (named as a string node is: label, name or id)
            named = next((raw[k] for k in ("label", "name", "id") if isinstance(raw.get(k), str)), None)
            raw = raw if named is None else {**raw, "text": named}
        nodes.append({"id": raw, "text": raw} if isinstance(raw, str) else raw)
        if not isinstance(nodes[-1], dict):
            raise _fail(f"nodes[{i}]", "must be an id string or an object")
        if i % (CHUNK * 4) == CHUNK * 4 - 1:
            yield
    raw_edges = []
    key = "links" if "edges" not in data and "links" in data else "edges"  # (d3's and networkx's name)
    for i, raw in enumerate(_list(data, key, "", MAX_EDGES)):
        raw = _obj(raw, f"{key}[{i}]")
        ends: dict[str, Any] = {k: _bare_id(raw[k], f"{key}[{i}].{k}") for k in _BARE_ENDS if k in raw}
        raw_edges.append({**raw, **ends} if ends else raw)
        if i % (CHUNK * 4) == CHUNK * 4 - 1:
            yield
    yield
    used: set[str] = set()
    for k, item in enumerate([*nodes, *raw_edges]):
        if isinstance(item.get("id"), str):
            used.add(item["id"])
        if k % (CHUNK * 8) == CHUNK * 8 - 1:
            yield
    edges = []
    counter = 0
    for j, raw in enumerate(raw_edges):
        if j % (CHUNK * 4) == CHUNK * 4 - 1:
            yield
        if raw.get("id") is None:
            while f"edge-{counter}" in used:
                counter += 1
            raw = {**raw, "id": f"edge-{counter}"}
            used.add(raw["id"])
        edges.append(raw)
    plane_id = "plane-root"
    while plane_id in used:
        plane_id += "-"
    plane = {"id": plane_id, "name": "Main", "nodes": nodes, "edges": edges}
    return {"format": FORMAT, "version": VERSION, "rootPlaneId": plane_id, "planes": [plane]}


def _bare_id(value: Any, where: str) -> Any:
    """A bare graph's id as a document holds it: an integer (networkx's ``node_link_data``
    writes ``{"id": 0}`` and ``{"source": 0, "target": 1}``) as its decimal string; a boolean
    or a fraction refused by name; anything else as it is (checked later).

    >>> _bare_id(0, "nodes[0].id"), _bare_id(-12, "x"), _bare_id("a", "x")
    ('0', '-12', 'a')
    >>> _bare_id(1.5, "links[0].source")
    Traceback (most recent call last):
    ...
    bendscope.shared.docformat.DocumentError: links[0].source: must be a string or an integer, got 1.5
    """
    if isinstance(value, (bool, float)):
        raise _fail(where, f"must be a string or an integer, got {json.dumps(value)}")
    return str(value) if isinstance(value, int) else value


def _bendscript_node(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw  # refused by the validation, with its place named
    node = {k: raw[k] for k in ("id", "text", "type", "x", "y", "pinned", "portalPlaneId") if k in raw}
    fx, fy = raw.get("fx"), raw.get("fy")
    fixed = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (fx, fy))
    if raw.get("pinned") is True and fixed:
        node["x"], node["y"] = fx, fy  # d3's fixed position is where a pinned card stays
    return node


def _bendscript_edge(raw: Any) -> Any:
    if not isinstance(raw, dict) or not isinstance(raw.get("props"), dict):
        return raw
    props = dict(raw["props"])
    if props.get("kind") not in EDGE_KINDS:
        props["kind"] = "context"  # an unknown kind keeps the link, undirected (no κ)
    strength = props.get("strength")
    if isinstance(strength, (int, float)) and not isinstance(strength, bool) and math.isfinite(strength):
        props["strength"] = min(5, max(1, round(strength)))
    else:
        props["strength"] = 2
    if not isinstance(props.get("label"), str):
        props["label"] = ""
    return {"id": raw.get("id"), "a": raw.get("a"), "b": raw.get("b"), "props": props}


def _bendscript(data: Any) -> dict[str, Any]:
    """An original BendScript planes file (a list of planes, or an object with
    ``planes`` and no Bendscope header) as a Bendscope document: what maps is kept
    (ids, texts, types, positions, pins — a pinned node's ``fx``/``fy`` is where it
    stays —, stargates and their planes, edges with their label, kind and strength,
    cameras); the simulation's own fields (``vx``, ``pulse``, ``scrollY``, ``tick``, …)
    are dropped. Unknown edge kinds become ``context``, strengths are clamped to 1–5."""
    raw_planes = data if isinstance(data, list) else data.get("planes")
    if not isinstance(raw_planes, list) or len(raw_planes) > MAX_PLANES:
        raise DocumentError("Not a BendScript planes file: planes must be a list.")
    planes = []
    for raw in raw_planes:
        if not isinstance(raw, dict):
            planes.append(raw)
            continue
        plane = {k: raw[k] for k in ("id", "name", "parentPlaneId", "parentNodeId", "camera") if k in raw}
        nodes, edges = raw.get("nodes", []), raw.get("edges", [])
        plane["nodes"] = [_bendscript_node(n) for n in nodes] if isinstance(nodes, list) else nodes
        plane["edges"] = [_bendscript_edge(e) for e in edges] if isinstance(edges, list) else edges
        planes.append(plane)
    ids = [p.get("id") for p in planes if isinstance(p, dict) and isinstance(p.get("id"), str)]
    roots = [p["id"] for p in planes if isinstance(p, dict) and p.get("parentPlaneId") is None and p.get("id") in ids]
    root = roots[0] if roots else None
    active = data.get("activePlaneId") if isinstance(data, dict) else None
    return {"format": FORMAT, "version": VERSION, "rootPlaneId": root,
            "activePlaneId": active if isinstance(active, str) and active in ids else root,
            "planes": planes}  # fmt: skip


#: cards or edges checked between two pauses of :func:`read_document_steps`
CHUNK = 128

T = TypeVar("T")
#: a computation that pauses by yielding None and returns a T (as ``bendscope.kappa.steps``)
Steps = Generator[None, None, T]


def finish(steps: Steps[T]) -> T:
    """Run ``steps`` to the end and return its result."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


#: byte order marks and their encodings (UTF-32's first: FF FE 00 00 begins both)
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _unmarked_utf16(head: bytes) -> bool:
    """Whether ``head`` looks like UTF-16 text without a mark: NULs at most of the odd (or
    even) bytes — the high bytes of Latin text — and (nearly) none at the others. O(len(head))."""
    pairs = len(head) // 2
    if pairs < 2:
        return False
    odd, even = head[1::2].count(0), head[::2].count(0)
    return max(odd, even) >= 0.6 * pairs and min(odd, even) <= 0.05 * pairs


def decode_file(data: bytes) -> str:
    """A file's bytes as text: UTF-8 (a leading byte order mark dropped, as a browser does), or
    UTF-16 or UTF-32 led by its byte order mark (Excel's "Unicode Text", Notepad's "Unicode"),
    or DocumentError naming where it is not — never a text with U+FFFD in place of its bytes.
    UTF-16 without a mark (a NUL at every other byte) is refused with how to save it. O(size).

    >>> decode_file("\\ufeffcafé".encode())
    'café'
    >>> decode_file("\\ufeffa\\tb".encode("utf-16-le")), decode_file("\\ufeffx".encode("utf-32-be"))
    ('a\\tb', 'x')
    >>> decode_file(b'{"nodes": ["\\xff\\xfe"]}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bendscope.shared.docformat.DocumentError: The file is not UTF-8 text (byte 0xff at offset 12, on line 1): save ...
    >>> decode_file(b"PK\\x03\\x04\\x14\\x00\\x06\\x00\\x08\\x00\\x00\\x00!\\x00\\xb5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bendscope.shared.docformat.DocumentError: The file is not text (a spreadsheet, an image, an archive?): ...
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            name = encoding[:6].upper()
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise DocumentError(
                    f"The file is not valid {name} text (at byte offset {exc.start + len(bom):,}): save it as UTF-8."
                ) from None
            if "\x00" not in text:  # (else a binary file that happens to begin so: refused below)
                return text
    if _unmarked_utf16(data[:4_096]):
        raise DocumentError(
            "The file is UTF-16 text without a byte order mark: save it as UTF-8 (from a spreadsheet: CSV UTF-8)."
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if b"\x00" in data[: max(4_096, exc.start)]:  # (no text file holds a NUL byte)
            raise DocumentError(
                "The file is not text (a spreadsheet, an image, an archive?): Import… reads JSON, CSV, GraphML, DOT "
                "and Mermaid files — save a spreadsheet as CSV."
            ) from None
        line = data.count(b"\n", 0, exc.start) + 1
        raise DocumentError(
            f"The file is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start:,}, on line {line:,}): "
            "save it as UTF-8 (from a spreadsheet: CSV UTF-8)."
        ) from None


def read_document(text: str | bytes) -> DocumentRecord:
    """Decode and validate a document; raise DocumentError on any problem. O(size)."""
    return finish(read_document_steps(text))


def read_document_steps(text: str | bytes) -> Steps[DocumentRecord]:
    """:func:`read_document` as steps (``kappa.steps``): it pauses twice while decoding the text
    (``jsonsafe.loads_steps``), after it and after every :data:`CHUNK` cards or edges checked,
    so a page can read a large document
    between its frames; the result is the same however it is sliced. O(size)."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise DocumentError(f"The file is {len(text) / 1e6:.1f} MB; the limit is {MAX_BYTES // (1024 * 1024)} MB.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise DocumentError("The file is not UTF-8 text.") from None
    if not isinstance(text, str):
        raise DocumentError("The document must be text.")
    if len(text) > MAX_BYTES:
        raise DocumentError(f"The file is {len(text) / 1e6:.1f} MB; the limit is {MAX_BYTES // (1024 * 1024)} MB.")
    try:  # (three steps: the strings set aside, the nesting counted, the text parsed)
        data = yield from loads_steps(text, max_depth=MAX_DEPTH, max_digits=MAX_INT_DIGITS)
    except Refused as exc:
        if exc.syntax:
            raise DocumentError(f"{str(exc)[0].upper()}{str(exc)[1:]}.") from None
        raise DocumentError(f"Not a usable document: {exc}.") from None
    yield
    return (yield from validate_document_steps(data))


def validate_document(data: Any) -> DocumentRecord:
    """Validate decoded JSON data (see read_document). O(size)."""
    return finish(validate_document_steps(data))


def validate_document_steps(data: Any) -> Steps[DocumentRecord]:
    """:func:`validate_document` as steps: a pause after every :data:`CHUNK` cards or edges. A
    bare graph's problem is named as its file names it (``edges[1].target``), not by the
    document made of it (``planes[0].edges[1].b``)."""
    bare = isinstance(data, dict) and "planes" not in data and "nodes" in data
    try:
        return (yield from _validate_steps(data))
    except DocumentError as exc:
        if not bare or not str(exc).startswith("planes[0]."):
            raise
        where, _, rest = str(exc).removeprefix("planes[0].").partition(": ")
        raise type(exc)(f"{_bare_where(where, data)}: {rest}") from None


def _bare_where(where: str, data: dict[str, Any]) -> str:
    """A place in the document made of a bare graph (``edges[1].b``, ``edges[1].props.kind``)
    as the file names it: under ``links`` if that is the file's key, the ends as the edge
    names them (``source``/``target``, ``from``/``to`` or ``a``/``b``), ``props.`` only where
    the edge has its own ``props``.

    >>> _bare_where("edges[0].b", {"nodes": [], "links": [{"from": "x", "to": "y"}]})
    'links[0].to'
    >>> _bare_where("edges[0].props.kind", {"nodes": [], "edges": [{"source": "x", "kind": 3}]})
    'edges[0].kind'
    """
    found = re.fullmatch(r"edges\[(\d+)\]\.(.*)", where)
    if found is None:
        return where
    key = "links" if "edges" not in data and "links" in data else "edges"
    items = data.get(key)
    j, field = int(found[1]), found[2]
    raw = items[j] if isinstance(items, list) and j < len(items) else None
    if not isinstance(raw, dict) or "a" not in raw:
        form = (
            ("from", "to") if isinstance(raw, dict) and "source" not in raw and "from" in raw else ("source", "target")
        )
        field = {"a": form[0], "b": form[1]}.get(field, field.replace("props.", "", 1))
    return f"{key}[{j}].{field}"


def _validate_steps(data: Any) -> Steps[DocumentRecord]:
    if isinstance(data, list) and data and all(isinstance(p, dict) and "nodes" in p for p in data):
        data = _bendscript(data)  # a BendScript list of planes
    if not isinstance(data, dict):
        raise DocumentError(f"Not a Bendscope document: the top level is {_type(data)}, not an object.")
    made: dict[str, Any] | None = None  # a document made here from a bare graph (let go of in steps)
    if "planes" not in data and "nodes" in data:
        data = made = yield from _bare_graph(data)
    elif "planes" in data and "format" not in data and "rootPlaneId" not in data and "version" not in data:
        data = _bendscript(data)  # (a Bendscope document that lost its header is refused below, by name)
    if data.get("format") != FORMAT:
        raise DocumentError('Not a Bendscope document: "format" must be "bendscope".')
    if data.get("version") != VERSION:
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
            raise NewerVersion(
                f"This document was written by a newer Bendscope (format version {version}); "
                f"this editor reads version {VERSION}."
            )
        raise DocumentError(f"Unsupported document version {version!r:.20}; this editor reads version 1.")
    raw_planes = _list(data, "planes", "", MAX_PLANES)
    if not raw_planes:
        raise DocumentError("planes: the document has no plane.")
    planes: list[PlaneRecord] = []
    by_id: dict[str, PlaneRecord] = {}
    node_home: set[str] = set()
    edge_ids: set[str] = set()
    total_nodes = total_edges = 0
    for i, raw in enumerate(raw_planes):
        where = f"planes[{i}]"
        d = _obj(raw, where)
        parent = d.get("parentPlaneId")
        parent_node = d.get("parentNodeId")
        plane_id = _id(d.get("id"), f"{where}.id")
        name = _str(d, "name", where, "Plane", limit=MAX_LABEL)
        parent = None if parent is None else _id(parent, f"{where}.parentPlaneId")
        parent_node = None if parent_node is None else _id(parent_node, f"{where}.parentNodeId")
        camera = _camera(d, where)
        if plane_id in by_id:
            raise _fail(f"{where}.id", f"duplicate plane id {plane_id!r:.60}")
        raw_nodes = _list(d, "nodes", where, MAX_NODES)
        raw_edges = _list(d, "edges", where, MAX_EDGES)
        total_nodes += len(raw_nodes)
        total_edges += len(raw_edges)
        if total_nodes > MAX_NODES:
            raise DocumentError(f"The document has more than {MAX_NODES} nodes.")
        if total_edges > MAX_EDGES:
            raise DocumentError(f"The document has more than {MAX_EDGES} edges.")
        cards: list[CardRecord] = []
        here: set[str] = set()
        for j, raw_node in enumerate(raw_nodes):
            card = _card(raw_node, f"{where}.nodes[{j}]")
            if card.id in node_home:
                raise _fail(f"{where}.nodes[{j}].id", f"duplicate node id {card.id!r:.60}")
            node_home.add(card.id)
            here.add(card.id)
            cards.append(card)
            if j % CHUNK == CHUNK - 1:
                yield
        links: list[LinkRecord] = []
        for j, raw_edge in enumerate(raw_edges):
            link = _link(raw_edge, f"{where}.edges[{j}]", here)
            if link.id in edge_ids:
                raise _fail(f"{where}.edges[{j}].id", f"duplicate edge id {link.id!r:.60}")
            edge_ids.add(link.id)
            links.append(link)
            if j % CHUNK == CHUNK - 1:
                yield
        plane = PlaneRecord(plane_id, name, parent, parent_node, camera, tuple(cards), tuple(links))
        by_id[plane_id] = plane
        planes.append(plane)
    root_id = _check_planes(planes, by_id, data)
    active = data.get("activePlaneId", root_id)
    settings = _obj(data.get("settings") or {}, "settings")
    seed = settings.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or abs(seed) > MAX_SEED:
        raise DocumentError("settings.seed must be an integer (at most 2^63 in size).")
    limit = settings.get("exactLimit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise DocumentError("settings.exactLimit must be null or a non-negative integer.")
    for items in [made["planes"][0]["edges"]] if made is not None else []:
        while items:  # (the copies of its edges: freed at once, tens of thousands are one long step)
            del items[-CHUNK * 16 :]
            yield
    return DocumentRecord(
        tuple(planes), root_id, active if isinstance(active, str) and active in by_id else root_id, seed, limit
    )


def _check_planes(planes: list[PlaneRecord], by_id: dict[str, PlaneRecord], data: dict[str, Any]) -> str:
    """The root plane's id, once every plane is known to hang from the root through its
    stargate (the parent node on the parent plane, whose portalPlaneId names it). O(planes + nodes)."""
    roots = [p for p in planes if p.parent_plane_id is None]
    if len(roots) != 1:
        raise DocumentError(f"planes: expected exactly one root plane (parentPlaneId null), found {len(roots)}.")
    root_id = data.get("rootPlaneId", roots[0].id)
    if root_id != roots[0].id:
        raise DocumentError(f"rootPlaneId {root_id!r:.60} is not the plane without a parent.")
    portals = {p.id: {c.id: c.portal_plane_id for c in p.nodes} for p in planes}
    rooted = {roots[0].id}  # planes whose parent chain is known to reach the root
    for i, plane in enumerate(planes):
        where = f"planes[{i}]"
        if plane.parent_plane_id is None:
            continue
        parent = by_id.get(plane.parent_plane_id)
        if parent is None:
            raise _fail(f"{where}.parentPlaneId", f"refers to a missing plane {plane.parent_plane_id!r:.60}")
        chain = [plane.id]
        walk = plane
        while walk.id not in rooted:  # each plane is walked once overall: O(planes)
            upper_id = walk.parent_plane_id
            upper = None if upper_id is None else by_id.get(upper_id)
            if upper is None:
                raise _fail(f"{where}.parentPlaneId", f"leads to a missing plane {upper_id!r:.60}")
            if upper.id in chain:
                raise _fail(f"{where}.parentPlaneId", "planes form a cycle")
            chain.append(upper.id)
            walk = upper
        rooted.update(chain)
        # every plane below the root is reached through exactly one stargate: its parent node,
        # on the parent plane, whose portalPlaneId names it (deletion and navigation rely on it)
        if plane.parent_node_id is None:
            raise _fail(f"{where}.parentNodeId", "must name the stargate on the parent plane that leads here")
        if plane.parent_node_id not in portals[parent.id]:
            raise _fail(f"{where}.parentNodeId", "refers to a node that is not on the parent plane")
        if portals[parent.id][plane.parent_node_id] != plane.id:
            raise _fail(f"{where}.parentNodeId", "names a node whose portalPlaneId does not lead to this plane")
    for plane in planes:
        for card in plane.nodes:
            if card.portal_plane_id is None:
                continue
            child = by_id.get(card.portal_plane_id)
            if child is None or child.parent_plane_id != plane.id or child.parent_node_id != card.id:
                raise DocumentError(
                    f"node {card.id!r:.60}: portalPlaneId must name a plane whose parent is this node's plane and node."
                )
    return str(root_id)
