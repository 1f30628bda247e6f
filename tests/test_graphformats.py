"""Other graph formats (issue 22): CSV, GraphML, Graphviz DOT and Mermaid flowcharts in and out
of the editor — round trips (random graphs for the three that carry every field), files as
other tools write them, and refusals that name the line or element and change nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.editor import Editor
from bendscope.bend.model import Document, Edge, EdgeProps, Node, Plane
from bendscope.graphformats import format_of, read_graph, write_graph

EXTENSION = {"csv": "g.csv", "graphml": "g.graphml", "dot": "g.dot", "mermaid": "g.mmd"}


def make_editor() -> Editor:
    return Editor(Document([Plane("plane-root")], "plane-root"))


def editor_with(nodes: list[tuple[str, str]], edges: list[tuple[str, str, str, str, str | None]]) -> Editor:
    plane = Plane("plane-root")
    for k, (node_id, text) in enumerate(nodes):
        plane.add_node(Node(node_id, text, x=float(k * 10), y=float(-k)))
    for k, (a, b, kind, label, sign) in enumerate(edges):
        plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(label, kind, 2, sign)))
    return Editor(Document([plane], "plane-root"))


def shape(editor) -> tuple[list, list]:
    plane = editor.plane
    nodes = sorted((n.id, n.text) for n in plane.nodes.values())
    edges = sorted((e.a, e.b, e.props.kind, e.props.label, e.props.polarity) for e in plane.edges.values())
    return nodes, edges


SAMPLE_NODES = [("rain", "Heavy rain"), ("flood", 'The "big" flood\non two lines'), ("crops", "Crops, fields & café")]
SAMPLE_EDGES = [
    ("rain", "flood", "causal", "raises", "+"),
    ("flood", "crops", "causal", "", "-"),
    ("crops", "rain", "temporal", "later", None),
    ("rain", "crops", "context", "near", None),
]


@pytest.mark.parametrize("fmt", ["csv", "graphml", "dot", "mermaid"])
def test_a_plane_goes_out_and_comes_back(fmt):
    editor = editor_with(SAMPLE_NODES, SAMPLE_EDGES)
    text = editor.export_as(fmt)
    assert format_of(text) == fmt and format_of(text, EXTENSION[fmt]) == fmt
    again = make_editor()
    assert again.load(text, name=EXTENSION[fmt]) is None
    assert shape(again) == shape(editor)
    assert editor.export_as(fmt) == text  # (deterministic)
    if fmt in ("csv", "graphml"):  # (they carry positions)
        assert {n.id: (n.x, n.y) for n in again.plane.nodes.values()} == {
            n.id: (n.x, n.y) for n in editor.plane.nodes.values()
        }


texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
graphs = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.lists(texts, min_size=n, max_size=n),
        st.lists(
            st.tuples(
                st.integers(0, n - 1),
                st.integers(0, n - 1),
                st.sampled_from(["causal", "temporal", "context", "associative", "supports"]),
                texts,
                st.sampled_from(["+", "-", None]),
            ),
            max_size=12,
        ),
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.sampled_from(["csv", "graphml", "dot"]))
def test_random_graphs_go_out_and_come_back(graph, fmt):
    node_texts, edge_list = graph
    nodes = [(f"node {k}", text) for k, text in enumerate(node_texts)]
    seen = set()
    edges = []
    for a, b, kind, label, sign in edge_list:
        if a != b and (a, b, kind) not in seen:
            seen.add((a, b, kind))
            polar = sign if kind in ("causal", "temporal") else None
            edges.append((f"node {a}", f"node {b}", kind, label.strip(), polar))
    editor = editor_with(nodes, edges)
    again = make_editor()
    error = again.load(editor.export_as(fmt), name=EXTENSION[fmt])
    assert error is None, error
    got_nodes, got_edges = shape(again)
    want_nodes, want_edges = shape(editor)
    if fmt == "csv":  # (CSV cells are read trimmed; a node's empty text reads as its id)
        want_nodes = [(i, t.strip() or i) for i, t in want_nodes]
    if fmt == "graphml":  # (an empty <data> element reads as no text)
        want_nodes = [(i, t or i) for i, t in want_nodes]
    assert (got_nodes, got_edges) == (want_nodes, want_edges)


def test_files_as_other_tools_write_them():
    dot = """
    // a comment
    strict digraph "loops" {
      graph [rankdir=LR]; node [shape=box, label="?"];
      a [label="Births"]; b [label=<Population <b>size</b>>];
      a -> b -> c [label="more", polarity="+"];   // a chain
      # a line of the preprocessor
      subgraph cluster_0 { d; e }
      c:port -> {d e} [kind=temporal];
      /* and a block
         comment */
      rate = 3
    }"""
    graph = read_graph(dot, "dot")
    texts = {n["id"]: n["text"] for n in graph["nodes"]}
    assert texts["a"] == "Births" and texts["b"] == "Population size" and texts["c"] == "?"
    pairs = [(e["a"], e["b"], e["props"]["kind"]) for e in graph["edges"]]
    assert pairs == [("a", "b", "causal"), ("b", "c", "causal"), ("c", "d", "temporal"), ("c", "e", "temporal")]
    assert graph["edges"][0]["props"] == {"kind": "causal", "label": "more", "polarity": "+"}
    undirected = read_graph("graph { x -- y }", "dot")
    assert undirected["edges"][0]["props"]["kind"] == "context"
    mermaid = """%% a comment
    flowchart TD
      A[Start here] --> B(Round) & C{Decide}
      B -- yes --> D((Done)); C -.->|"− slows"| D
      classDef hot fill:#f00
      D ==> A
      E[("Stored")] --- A
    """
    graph = read_graph(mermaid, "mermaid")
    texts = {n["id"]: n["text"] for n in graph["nodes"]}
    assert texts == {"A": "Start here", "B": "Round", "C": "Decide", "D": "Done", "E": "Stored"}
    edges = [(e["a"], e["b"], e["props"]) for e in graph["edges"]]
    assert ("B", "D", {"kind": "causal", "label": "yes"}) in edges
    assert ("C", "D", {"kind": "temporal", "label": "slows", "polarity": "-"}) in edges
    assert ("A", "C", {"kind": "causal"}) in edges and ("E", "A", {"kind": "context"}) in edges
    graphml = """<?xml version="1.0"?>
    <graphml xmlns="http://graphml.graphdrawing.org/xmlns">
      <key id="d0" for="node" attr.name="label" attr.type="string"/>
      <key id="d1" for="edge" attr.name="sign" attr.type="string"/>
      <graph edgedefault="undirected">
        <node id="n0"><data key="d0">Rain</data></node><node id="n1"/>
        <edge source="n0" target="n1"/>
      </graph>
    </graphml>"""
    graph = read_graph(graphml, "graphml")
    assert graph["nodes"][0]["text"] == "Rain" and graph["edges"][0]["props"]["kind"] == "context"
    tabs = read_graph("source\ttarget\tlabel\na\tb\tthen\n", "csv")
    assert tabs["edges"][0]["props"] == {"kind": "causal", "label": "then"}


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        ("from,to\na,b\n", "g.csv", "line 1: a header names source and target"),
        ("source,target,polarity\na,b,+\nb,c,maybe\n", "g.csv", "line 3: polarity must be + or -"),
        ("id,text,x\na,A,far\n", "g.csv", "line 2: x is not a number"),
        ("source,target,kind\na,b,causl\n", "g.csv", "props.kind: must be one of"),
        ("source,target,kind,polarity\na,b,context,+\n", "g.csv", "is for causal and temporal edges, not context"),
        ("<graphml><graph>\n<node id='a'>\n</graph>", "g.graphml", "GraphML line 3, column 3: mismatched tag"),
        ("<graphml><graph><node/></graph></graphml>", "g.graphml", "(<node>) has no id"),
        ("<svg/>", "g.graphml", "the top element is <svg>, not <graphml>"),
        ("digraph {\n  a -> b\n  c -> ;\n}", "g.dot", "DOT line 3: expected a node id, found ';'"),
        ("digraph {\n  a -> b [label]\n}", "g.dot", "DOT line 2: expected '='"),
        ("digraph { a -> b }}", "g.dot", "text after the graph's closing brace"),
        ("flowchart LR\n  A[open --> B\n", "g.mmd", "Mermaid line 2: the shape […] of 'A' is not closed"),
        ("sequenceDiagram\n  A->>B: hi\n", "g.mmd", "Mermaid line 1: a flowchart starts with flowchart or graph"),
    ],
)
def test_a_bad_file_is_refused_naming_where_and_nothing_changes(text, name, message):
    editor = editor_with(SAMPLE_NODES, SAMPLE_EDGES)
    before = editor.export()
    error = editor.load(text, name=name)
    assert error is not None and message in error, error
    assert editor.export() == before


def test_csv_with_a_node_list_and_the_formats_by_their_first_words():
    text = "id,text\nrain,Heavy rain\nlone,A node of its own\n\nsource,target\nrain,flood\n"
    graph = read_graph(text, "csv")
    assert [n["id"] for n in graph["nodes"]] == ["rain", "lone", "flood"]
    assert format_of(text) == "csv" and format_of('{"nodes": []}') == "json"
    assert format_of("<?xml version='1.0'?><graphml/>") == "graphml"
    assert write_graph([], [], "dot") == "digraph bendscope {\n  node [shape=box];\n}\n"
    with pytest.raises(ValueError):
        write_graph([], [], "svg")
