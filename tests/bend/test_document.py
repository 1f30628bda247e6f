"""Document format: round trips, validation messages, and refusal without side effects."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from bend_helpers import editor_with
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import MAX_NODES, DocumentError, document_to_data, parse_document, serialize_document

ROOT = Path(__file__).resolve().parents[2]


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
        (mutate(["version"], 9), "newer Bendscope (format version 9)"),
        (mutate(["planes"], []), "no plane"),
        (mutate(["planes"], {}), "planes: must be a list"),
        (mutate(["planes", 0, "nodes", 1, "id"], "market-share"), "duplicate node id 'market-share'"),
        (mutate(["planes", 0, "edges", 1, "id"], "edge-0"), "duplicate edge id 'edge-0'"),
        (mutate(["planes", 0, "edges", 0, "b"], "ghost"), "planes[0].edges[0].b: refers to node 'ghost'"),
        (mutate(["planes", 0, "edges", 0, "props", "kind"], "magic"), "props.kind: must be one of"),
        (mutate(["planes", 0, "edges", 0, "props", "strength"], 9), "integer from 1 to 5"),
        (mutate(["planes", 0, "nodes", 0, "x"], "left"), "nodes[0].x: must be a number, got a string"),
        (mutate(["planes", 0, "nodes", 0, "type"], "portal"), "must be one of normal, stargate"),
        (mutate(["planes", 0, "nodes", 0, "text"], 5), "nodes[0].text: must be a string"),
        (mutate(["planes", 0, "nodes", 0, "id"], ""), "nodes[0].id: must be a non-empty string"),
        (mutate(["planes", 0, "parentPlaneId"], "nowhere"), "exactly one root plane"),
        (mutate(["settings"], {"seed": "x"}), "settings.seed"),
        (mutate(["planes", 0, "nodes", 0, "portalPlaneId"], "missing"), "portalPlaneId"),
        ("x" * (10 * 1024 * 1024 + 1), "limit is 10 MB"),
        ("[" * 100_000, "nested more than 64 levels"),
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


def multi_plane() -> dict:
    """The demo with a stargate plane holding a loop and a stargate of its own (3 planes)."""
    editor = Editor(demo_document())
    editor.enter_stargate("research-notes")
    a = editor.add_node(0, 0, "# Inner a")
    b = editor.add_node(200, 0, "inner b")
    editor.add_edge(a, b)
    editor.add_edge(b, a, kind="temporal", label="back")
    gate = editor.add_node(0, 200, "deeper", "stargate")
    editor.enter_stargate(gate)
    editor.add_node(0, 0, "bottom")
    editor.set_pinned(editor.selection[0], True)
    return json.loads(editor.export())


MULTI = multi_plane()
BARE = {
    "nodes": ["a", {"id": "b", "text": "B", "data": {"node_type": "semantic"}}, {"id": "c", "x": 5, "y": 6}],
    "edges": [{"source": "a", "target": "b"}, {"id": "e1", "source": "b", "target": "c", "kind": "supports"}],
}
TEXT_DAMAGE = st.sampled_from(
    [
        lambda t: t[: len(t) // 2],
        lambda t: t.replace('"x": 0.0', '"x": 1' + "0" * 5000, 1),
        lambda t: t.replace('"x": 0.0', '"x": NaN', 1),
        lambda t: t.replace('"y": 0.0', '"y": -Infinity', 1),
        lambda t: t.replace('"x": 0.0', '"x": 1e308', 1),
        lambda t: t.replace('"nodes": [', '"nodes": [' + "[" * 10_000 + "]" * 10_000 + ",", 1),
        lambda t: t.replace('"camera": {', '"camera": ' + "{" * 500 + "}" * 499 + ", ", 1),
        lambda t: t.replace('"text": "', '"text": "\\ud800', 1),
        lambda t: t.replace("plane-root", "plane-gone", 1),
        lambda t: t + "garbage",
    ]
)


def all_paths(data) -> list[list]:
    """Every key/index path into ``data`` (the root included, first)."""
    paths: list[list] = []
    stack: list[tuple[object, list]] = [(data, [])]
    while stack:
        node, path = stack.pop()
        paths.append(path)
        if isinstance(node, dict):
            stack.extend((value, [*path, key]) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, [*path, i]) for i, value in enumerate(node))
    return paths


@st.composite
def damaged_documents(draw):
    """A valid multi-plane document with one to three values anywhere replaced by arbitrary
    JSON or removed, or its text damaged (cut, huge or non-finite numbers, deep nesting…)."""
    data = json.loads(json.dumps(draw(st.sampled_from([valid(), MULTI, BARE, bendscript_planes()]))))
    if draw(st.integers(0, 5)) == 0:
        return draw(TEXT_DAMAGE)(json.dumps(data))
    for _ in range(draw(st.integers(1, 3))):
        paths = all_paths(data)
        if len(paths) < 2:  # everything was removed already
            break
        path = draw(st.sampled_from(paths[1:]))
        target = data
        for key in path[:-1]:
            target = target[key]
        if isinstance(target, dict) and draw(st.booleans()):
            del target[path[-1]]
        else:
            target[path[-1]] = draw(json_values)
    return json.dumps(data)


@settings(max_examples=1200, deadline=None)
@given(damaged_documents())
def test_damaged_documents_are_refused_or_round_trip(text):
    """Hostile documents through Editor.load: never an exception; a refusal changes nothing
    (document, history, version); an accepted one survives export → load unchanged."""
    editor = Editor(demo_document())
    editor.add_node(1, 1, "unsaved work")
    before = editor.export()
    history = len(editor.history.undo_stack)
    version = editor.version
    error = editor.load(text)
    if error is not None:
        assert isinstance(error, str) and error
        assert editor.export() == before
        assert len(editor.history.undo_stack) == history and editor.version == version
        return
    exported = editor.export()
    assert Editor(parse_document(exported)).export() == exported


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_arbitrary_json_never_crashes(value):
    with contextlib.suppress(DocumentError):
        parse_document(json.dumps(value))


def test_bare_graph_edges_without_ids_never_collide_with_given_ids():
    text = json.dumps(
        {
            "nodes": ["a", "b"],
            "edges": [{"source": "a", "target": "b"}, {"id": "edge-0", "source": "b", "target": "a"}],
        }
    )
    doc = parse_document(text)
    assert sorted(doc.root.edges) == ["edge-0", "edge-1"]
    assert doc.root.edges["edge-0"].a == "b"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"nodes": [{"id": "a", "x": 1' + "0" * 5000 + "}]}", "more than 30 digits"),
        ('{"nodes": [{"id": "a", "x": NaN}]}', "NaN is not a number JSON allows"),
        ('{"nodes": [{"id": "a", "x": 1e308}]}', "between -1e+07 and 1e+07"),
        ('{"nodes": [{"id": "a", "vx": 1e9}]}', "nodes[0].vx"),
        ('{"nodes": [{"id": "a", "text": "\\ud800"}]}', "unpaired surrogate"),
        ("[" * 10_000 + "]" * 10_000, "nested more than 64 levels"),
    ],
)
def test_hostile_values_are_refused_with_a_message(text, message):
    with pytest.raises(DocumentError) as info:
        parse_document(text)
    assert message in str(info.value)


def test_a_plane_whose_grandparent_is_missing_is_refused():
    data = valid()
    data["planes"].append({"id": "p1", "parentPlaneId": "p2", "nodes": [], "edges": []})
    data["planes"].append({"id": "p2", "parentPlaneId": "p3", "nodes": [], "edges": []})
    with pytest.raises(DocumentError, match="leads to a missing plane 'p3'"):
        parse_document(json.dumps(data))


def test_bare_graphs_with_unhashable_ids_are_refused():
    for text in (
        '{"nodes": [{"id": []}]}',
        '{"nodes": [{"id": {}}]}',
        '{"nodes": ["a"], "edges": [{"id": [1], "a": "a", "b": "a"}]}',
    ):
        with pytest.raises(DocumentError, match="must be a non-empty string"):
            parse_document(text)


def test_the_nesting_check_is_linear_for_unclosed_strings():
    """``"\\"\\"…`` took 53 s at 160 KB (quadratic); 4 MB must be refused at once."""
    import subprocess
    import sys

    code = (
        "import sys; sys.path.insert(0, 'py'); from bendscope.shared.jsonsafe import nesting_depth; "
        "print(nesting_depth('\"' + '\\\\\"' * 2_000_000), nesting_depth('\"' * 1_000_001 + '[['))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "2"]  # brackets after an unclosed quote still count


def bendscript_planes() -> list[dict]:
    """A file as the original BendScript keeps it: planes without a Bendscope header."""
    node = {"vx": 0.0, "vy": 0.0, "pulse": 0.4, "width": 180, "height": 60, "scrollY": 0, "createdAt": 1711000000000}
    return [
        {"id": "p1", "name": "Main", "parentPlaneId": None, "parentNodeId": None, "tick": 812,
         "camera": {"x": 10, "y": 20, "zoom": 1.5},
         "nodes": [
             {**node, "id": "n1", "text": "# Price", "type": "normal", "x": 5, "y": 6, "fx": 100, "fy": 200,
              "pinned": True, "portalPlaneId": None},
             {**node, "id": "n2", "text": "Demand", "type": "normal", "x": 300, "y": 40, "fx": 0.0, "fy": 0.0,
              "pinned": False, "portalPlaneId": None},
             {**node, "id": "n3", "text": "Notes", "type": "stargate", "x": 0, "y": 300, "fx": 0.0, "fy": 0.0,
              "pinned": False, "portalPlaneId": "p2"},
         ],
         "edges": [
             {"id": "e1", "a": "n1", "b": "n2", "props": {"label": "drives", "kind": "causal", "strength": 3}},
             {"id": "e2", "a": "n2", "b": "n1", "props": {"label": "", "kind": "causal", "strength": 9}},
             {"id": "e3", "a": "n2", "b": "n3", "props": {"label": "", "kind": "mystery", "strength": 2}},
         ]},
        {"id": "p2", "name": "Notes", "parentPlaneId": "p1", "parentNodeId": "n3",
         "camera": {"x": 0, "y": 0, "zoom": 1},
         "nodes": [{**node, "id": "m1", "text": "inside", "type": "normal", "x": 1, "y": 2, "fx": 0, "fy": 0,
                    "pinned": False, "portalPlaneId": None}],
         "edges": []},
    ]  # fmt: skip


def test_an_original_bendscript_planes_file_imports():
    for data in (bendscript_planes(), {"planes": bendscript_planes(), "activePlaneId": "p2"}):
        doc = parse_document(json.dumps(data))
        main = doc.planes["p1"]
        n1 = main.nodes["n1"]
        assert (n1.x, n1.y, n1.pinned, n1.text) == (100, 200, True, "# Price")  # fx/fy: where it is pinned
        assert (main.nodes["n2"].x, main.nodes["n2"].y, main.nodes["n2"].pinned) == (300, 40, False)
        assert main.nodes["n3"].portal_plane_id == "p2" and doc.planes["p2"].parent_node_id == "n3"
        assert main.edges["e1"].props.label == "drives" and main.edges["e2"].props.strength == 5
        assert main.edges["e3"].props.kind == "context"
        assert (main.camera.x, main.camera.zoom) == (10, 1.5)
    assert doc.active_plane_id == "p2"
    # the result is a Bendscope document: it exports with the header and reloads the same
    again = parse_document(serialize_document(doc))
    assert serialize_document(again) == serialize_document(doc)


def test_a_broken_bendscript_file_gets_a_clear_message():
    broken = bendscript_planes()
    broken[0]["edges"][0]["b"] = "nowhere"
    with pytest.raises(DocumentError, match="nowhere"):
        parse_document(json.dumps(broken))
    with pytest.raises(DocumentError):
        parse_document(json.dumps({"planes": "not a list"}))


def test_a_cards_words_change_its_planes_words_version_and_a_move_never_does():
    """What the outline words (cards' texts and types) is versioned apart from where cards lie."""
    from bendscope.bend.model.elements import Node, Plane

    plane = Plane("p", "P")
    plane.add_node(Node("a", text="A"))
    before = plane.words_version
    plane.update_node("a", x=40.0, y=-12.0, pinned=True)
    assert plane.words_version == before
    plane.update_node("a", text="A")  # (the same text: no change)
    assert plane.words_version == before
    plane.update_node("a", text="B")
    plane.update_node("a", type="stargate")
    assert plane.words_version == before + 2
