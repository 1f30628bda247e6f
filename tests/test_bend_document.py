"""Document format: round trips, validation messages, and refusal without side effects."""

from __future__ import annotations

import contextlib
import json

import pytest
from bend_helpers import editor_with
from hypothesis import given, settings
from hypothesis import strategies as st

from bend.demo import demo_document
from bend.document import MAX_NODES, DocumentError, document_to_data, parse_document, serialize_document
from bend.editor import Editor


def test_round_trip_is_identical():
    doc = demo_document()
    text = serialize_document(doc)
    assert serialize_document(parse_document(text)) == text
    assert serialize_document(parse_document(text.encode("utf-8"))) == text


def valid() -> dict:
    return document_to_data(demo_document())


def mutate(path, value):
    data = valid()
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "Not JSON"),
        ("[1, 2]", "top level is a list"),
        ('"text"', "top level is a string"),
        ("{}", '"format" must be "bendscope"'),
        (mutate(["version"], 9), "Unsupported document version 9"),
        (mutate(["planes"], []), "no plane"),
        (mutate(["planes"], {}), "planes: must be a list"),
        (mutate(["planes", 0, "nodes", 1, "id"], "market-share"), "duplicate node id 'market-share'"),
        (mutate(["planes", 0, "edges", 1, "id"], "edge-0"), "duplicate edge id 'edge-0'"),
        (mutate(["planes", 0, "edges", 0, "b"], "ghost"), "planes[0].edges[0].b: refers to node 'ghost'"),
        (mutate(["planes", 0, "edges", 0, "props", "kind"], "magic"), "props.kind: must be one of"),
        (mutate(["planes", 0, "edges", 0, "props", "strength"], 9), "integer from 1 to 5"),
        (mutate(["planes", 0, "nodes", 0, "x"], "left"), "nodes[0].x: must be a finite number"),
        (mutate(["planes", 0, "nodes", 0, "type"], "portal"), "must be one of normal, stargate"),
        (mutate(["planes", 0, "nodes", 0, "text"], 5), "nodes[0].text: must be a string"),
        (mutate(["planes", 0, "nodes", 0, "id"], ""), "nodes[0].id: must be a non-empty string"),
        (mutate(["planes", 0, "parentPlaneId"], "nowhere"), "exactly one root plane"),
        (mutate(["settings"], {"seed": "x"}), "settings.seed"),
        (mutate(["planes", 0, "nodes", 0, "portalPlaneId"], "missing"), "portalPlaneId"),
        ("x" * (10 * 1024 * 1024 + 1), "limit is 10 MB"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_refusals_name_the_problem(text, message):
    with pytest.raises(DocumentError) as info:
        parse_document(text)
    assert message in str(info.value)


def test_too_many_nodes():
    doc = {"nodes": [f"n{i}" for i in range(MAX_NODES + 1)], "edges": []}
    with pytest.raises(DocumentError, match="limit is 20000"):
        parse_document(json.dumps(doc))


def test_bare_graph_gets_positions_and_defaults():
    doc = parse_document(
        json.dumps({"nodes": ["a", {"id": "b", "text": "B"}], "edges": [{"source": "a", "target": "b"}]})
    )
    plane = doc.root
    assert [n.id for n in plane.nodes.values()] == ["a", "b"]
    assert plane.nodes["a"].text == "a" and plane.nodes["b"].text == "B"
    assert (plane.nodes["a"].x, plane.nodes["a"].y) != (plane.nodes["b"].x, plane.nodes["b"].y)
    (edge,) = plane.edges.values()
    assert (edge.a, edge.b, edge.props.kind) == ("a", "b", "causal")


def test_hostile_text_is_kept_verbatim():
    text = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    doc = parse_document(json.dumps({"nodes": [{"id": "n", "text": text}], "edges": []}))
    assert doc.root.nodes["n"].text == text


def test_editor_load_refusal_changes_nothing():
    editor = editor_with([("a", "b"), ("b", "a")])
    editor.add_node(5, 5, "keep me")
    before = editor.export()
    undo_depth = len(editor.history.undo_stack)
    version = editor.version
    assert editor.load('{"format": "bendscope", "version": 1, "planes": []}') == "planes: the document has no plane."
    assert editor.export() == before
    assert len(editor.history.undo_stack) == undo_depth and editor.version == version


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@st.composite
def damaged_documents(draw):
    """A valid document with one value somewhere replaced by arbitrary JSON."""
    data = valid()
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, [*path, key])
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, [*path, i])

    walk(data, [])
    path = draw(st.sampled_from(paths[1:]))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = draw(json_values)
    return json.dumps(data)


@settings(max_examples=300, deadline=None)
@given(damaged_documents())
def test_damaged_documents_raise_only_document_error(text):
    editor = Editor(demo_document())
    before = editor.export()
    try:
        doc = parse_document(text)
    except DocumentError:
        assert editor.load(text) is not None
        assert editor.export() == before
        return
    # accepted: it must survive a round trip unchanged
    assert serialize_document(parse_document(serialize_document(doc))) == serialize_document(doc)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_arbitrary_json_never_crashes(value):
    with contextlib.suppress(DocumentError):
        parse_document(json.dumps(value))
