"""Other graph formats: CSV, GraphML, Graphviz DOT and Mermaid flowcharts in and out
of the editor — round trips (random graphs for the three that carry every field), files as
other tools write them, and refusals that name the line or element and change nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.shared.graphformats import format_of, read_graph, write_graph

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


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
NOT_XML = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r")


def xml_kept(text: str) -> str:
    """What an XML file can carry of a text (control characters become U+FFFD)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # (XML parsers end every line with \n)
    return "".join("\ufffd" if c in NOT_XML else c for c in text)


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
            edges.append((f"node {a}", f"node {b}", kind, label, polar))
    editor = editor_with(nodes, edges)
    again = make_editor()
    error = again.load(editor.export_as(fmt), name=EXTENSION[fmt])
    assert error is None, error
    got_nodes, got_edges = shape(again)
    want_nodes, want_edges = shape(editor)
    if fmt == "graphml":  # (XML cannot carry control characters)
        want_nodes = [(i, xml_kept(t)) for i, t in want_nodes]
        want_edges = [(a, b, k, xml_kept(label), p) for a, b, k, label, p in want_edges]
    assert (got_nodes, got_edges) == (want_nodes, want_edges)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.sampled_from(["", "class", "style", "end", "click", "direction"]))
def test_random_graphs_go_out_and_come_back_as_mermaid(graph, word):
    """Mermaid renames ids that are not plain words (and keywords), so the cards are matched
    by their order; every text, label and polarity comes back, whatever characters it holds
    (quotes, ``|``, ``%%``, ``#35;``, ``<br>``, a leading ``+``)."""
    node_texts, edge_list = graph
    ids = [word or f"node {k}" if k == 0 else f"node {k}" for k in range(len(node_texts))]
    nodes = [(ids[k], text.replace("\r", "")) for k, text in enumerate(node_texts)]
    edges, seen = [], set()
    for a, b, kind, label, sign in edge_list:
        if a != b and (a, b, kind) not in seen:
            seen.add((a, b, kind))
            edges.append((ids[a], ids[b], kind, label.replace("\r", "").strip(),
                          sign if kind in ("causal", "temporal") else None))  # fmt: skip
    editor = editor_with(nodes, edges)
    text = editor.export_as("mermaid")
    again = make_editor()
    assert again.load(text, name="g.mmd") is None, text
    order = {n: k for k, n in enumerate(again.plane.nodes)}
    got = [again.plane.nodes[n].text.strip() for n in again.plane.nodes]
    assert got == [t.strip() for _, t in nodes]
    renamed = {old: new for old, new in zip(ids, again.plane.nodes, strict=True)}
    got_edges = sorted((order[e.a], order[e.b], e.props.kind, e.props.label, e.props.polarity)
                       for e in again.plane.edges.values())  # fmt: skip
    mermaid_kind = {"causal": "causal", "temporal": "temporal"}  # (Mermaid's other links are all context)
    want = sorted((order[renamed[a]], order[renamed[b]], mermaid_kind.get(k, "context"), label, p)
                  for a, b, k, label, p in edges)  # fmt: skip
    assert got_edges == want


def test_hostile_files_are_refused_with_a_message_never_an_exception():
    """Deep DOT nesting (recursion), a 5,000-digit Mermaid entity (int()'s
    digit limit), a CSV field past the csv module's limit and XML entities all escaped
    Editor.load as exceptions; a link's content reaches the same readers."""
    editor = editor_with(SAMPLE_NODES, SAMPLE_EDGES)
    before = editor.export()
    hostile = [
        ("digraph {" + "{" * 2000 + "}" * 2000 + "}", "g.dot", "DOT line 1: subgraphs nested more than 64 deep"),
        ('source,target,label\na,b,"' + "x" * 200_000 + "\n", "g.csv", "CSV: field larger than field limit"),
        ('<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n'
         "<graphml><graph><node id='n'><data key='t'>&b;</data></node></graph></graphml>", "g.graphml",
         "GraphML line 2: a <!DOCTYPE> declaration is not accepted"),
    ]  # fmt: skip
    for text, name, message in hostile:
        error = editor.load(text, name=name)
        assert error is not None and message in error, error
        assert editor.export() == before
    digits = read_graph('flowchart LR\n  A["#' + "9" * 5000 + ';"] --> B\n', "mermaid")
    assert digits["nodes"][0]["text"].startswith("#999")  # (not an entity: kept as written)


def test_control_characters_stay_well_formed_and_keywords_stay_ids():
    import xml.etree.ElementTree as ElementTree

    editor = editor_with([("a", "form\x0cfeed"), ("node", "N"), ("graph", "G"), ("b", "B")],
                         [("node", "graph", "causal", "bell\x07", "+"), ("a", "b", "causal", "", None)])  # fmt: skip
    graphml = editor.export_as("graphml")
    ElementTree.fromstring(graphml)  # (well-formed)
    again = make_editor()
    assert again.load(graphml, name="g.graphml") is None
    assert again.plane.nodes["a"].text == "form\ufffdfeed"
    dot = make_editor()
    assert dot.load(editor.export_as("dot"), name="g.dot") is None
    assert sorted(dot.plane.nodes) == ["a", "b", "graph", "node"]  # (quoted keywords are ids)
    assert next((e.a, e.b, e.props.polarity) for e in dot.plane.edges.values()) == ("node", "graph", "+")


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
        ("start,end\na,b\n", "g.csv", "line 1: a header names source and target"),
        ("source,target,polarity\na,b,+\nb,c,maybe\n", "g.csv", "line 3: polarity must be + or -"),
        ("id,text,x\na,A,far\n", "g.csv", "line 2: x is not a number"),
        ("source,target,kind\na,b,causl\n", "g.csv", "line 2: kind must be one of"),
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


@pytest.mark.parametrize("fmt", ["csv", "graphml", "dot", "mermaid"])
def test_spaces_empty_texts_and_line_breaks_come_back_as_they_were(fmt):
    nodes = [("a", "  leading space"), ("b", "trailing space  "), ("c", ""), ("d", "two\nlines")]
    edges = [("a", "b", "causal", "  spaced label  ", "+"), ("b", "c", "causal", "line1\nline2", None),
             ("c", "d", "temporal", "", "-")]  # fmt: skip
    editor = editor_with(nodes, edges)
    again = make_editor()
    assert again.load(editor.export_as(fmt), name=EXTENSION[fmt]) is None
    got_nodes, got_edges = shape(again)
    if fmt == "mermaid":  # (ids renamed in order; a Mermaid label's leading spaces go with its polarity mark)
        assert [t for _, t in got_nodes] == [t for _, t in nodes]
        assert sorted(label.strip() for *_, label, _ in got_edges) == ["", "line1\nline2", "spaced label"]
    else:
        assert (got_nodes, got_edges) == shape(editor)


def test_csv_as_sheets_write_it_and_json_as_d3_writes_it():
    sheet = read_graph("From;To;Type;Label\nrain;flood;Causal;raises\n", "csv")
    assert sheet["edges"] == [{"a": "rain", "b": "flood", "props": {"kind": "causal", "label": "raises"}}]
    both = read_graph("source,target,from,type,kind\na,b,x,y,temporal\n", "csv")  # (the real names win)
    assert both["edges"][0]["props"] == {"kind": "temporal"}
    mermaid = read_graph("graph TD\n  A[Stock]:::hot --> B:::cold\n", "mermaid")
    assert [(n["id"], n["text"]) for n in mermaid["nodes"]] == [("A", "Stock"), ("B", "B")]
    editor = editor_with([], [])
    d3 = {"nodes": [{"id": "a", "label": "A"}, {"id": "b"}], "links": [{"source": "a", "target": "b"}]}
    assert editor.load(json.dumps(d3)) is None
    assert sorted(n.text for n in editor.plane.nodes.values()) == ["A", "b"] and len(editor.plane.edges) == 1
