"""The SVG export: the whole plane or a selection with its legend, parsed back:
every card and edge present, text as text (user text escaped, never markup), halos and
badges for the loops, the legend saying what is shown, the same bytes for the same graph."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree

from bend_helpers import editor_with
from kappa_helpers import BUSINESS

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import serialize_document
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.svgexport import image_view, plane_svg

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def ids(root: ElementTree.Element, attribute: str) -> list[str]:
    return [g.get(attribute) for g in root.iter(f"{{{NS['svg']}}}g") if g.get(attribute) is not None]


def texts(element: ElementTree.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{{{NS['svg']}}}text")]


def test_every_card_and_edge_is_in_the_svg_with_its_text():
    editor = Editor(demo_document())
    editor.settle()
    root = parse(plane_svg(editor))
    plane = editor.plane
    assert sorted(ids(root, "data-node")) == sorted(plane.nodes)
    assert sorted(ids(root, "data-edge")) == sorted(e.id for e in plane.edges.values() if e.a != e.b)
    words = " ".join(texts(root))
    for node in plane.nodes.values():
        first = node.text.strip().splitlines()[0].lstrip("#").strip() if node.text.strip() else ""
        assert first.split()[0] in words, node.text
    # a directed edge has its arrowhead, an undirected one none
    for group in root.iter(f"{{{NS['svg']}}}g"):
        edge_id = group.get("data-edge")
        if edge_id is None:
            continue
        heads = group.findall("svg:polygon", NS)
        assert len(heads) == (1 if plane.edges[edge_id].props.kind in ("causal", "temporal") else 0)


def test_user_text_is_text_never_markup():
    plane = Plane("p", "P")
    hostile = ["<script>alert(1)</script>", 'A & B "quoted"', "]]><svg onload=x>"]
    for k, text in enumerate(hostile):
        plane.add_node(Node(f"n{k}", text, x=k * 260.0, y=0.0))
    plane.add_edge(Edge("e", "n0", "n1", EdgeProps(label="<b>label</b>", kind="causal")))
    svg = plane_svg(Editor(Document([plane], "p")))
    root = parse(svg)
    assert not list(root.iter("{http://www.w3.org/2000/svg}script")) and "<script>" not in svg
    assert set(hostile) <= set(texts(root)) and "<b>label</b>" in texts(root)


def test_loops_have_halos_badges_and_a_legend():
    editor = editor_with(BUSINESS)
    for edge_id in list(editor.plane.edges)[:2]:
        editor.set_edge(edge_id, polarity="+")
    editor.settle()
    root = parse(plane_svg(editor))
    sccs = editor.topology().result["sccs"]
    assert sorted(ids(root, "data-scc")) == sorted(s["id"] for s in sccs)
    badges = root.find("svg:g[@id='badges']", NS)
    assert sorted(texts(badges)) == sorted(f"κ={s['kappa']}" for s in sccs)
    legend = texts(root.find("svg:g[@id='legend']", NS))
    assert legend[0] == "Legend" and "causal →" in legend and "+ same direction" in legend
    assert "fault line (weakest cut: removing it splits the region)" in legend and "feedback loop, κ=1" in legend
    assert "temporal →" not in legend  # only what the image shows
    labels = texts(root.find("svg:g[@id='labels']", NS))
    assert labels.count("+") == 2  # the polarity marks beside the arrowheads


def test_the_same_graph_gives_the_same_bytes():
    doc = serialize_document(demo_document())
    first, second = Editor(), Editor()
    for editor in (first, second):
        assert editor.load(doc, label=None) is None
    assert plane_svg(first) == plane_svg(second)


def test_a_selection_exports_only_its_cards_and_their_edges():
    editor = editor_with(BUSINESS)
    editor.settle()
    chosen = ["market-share", "revenue", "r-and-d", "product-quality"]
    root = parse(plane_svg(editor, chosen))
    assert sorted(ids(root, "data-node")) == sorted(chosen)
    edges = {e.id for e in editor.plane.edges.values() if e.a in chosen and e.b in chosen}
    assert set(ids(root, "data-edge")) == edges
    view = image_view(editor, chosen)
    left = min(editor.plane.nodes[n].x - editor.plane.nodes[n].width / 2 for n in chosen)
    assert view.x < left and view.width >= 360


def test_every_edge_keeps_its_arrowhead_on_a_large_graph_and_the_dark_theme_is_used():
    rng = random.Random(4)
    plane = Plane("p", "P")
    for i in range(300):
        plane.add_node(Node(f"n{i}", f"node {i}", x=(i % 20) * 400.0, y=(i // 20) * 200.0))  # (no card on another)
    for k in range(2600):  # past the frame's detail limit: a frame would draw hairlines
        plane.add_edge(Edge(f"e{k}", f"n{rng.randrange(300)}", f"n{rng.randrange(300)}", EdgeProps(kind="causal")))
    editor = Editor(Document([plane], "p"))
    theme.use("dark")
    try:
        svg = plane_svg(editor)
    finally:
        theme.use("light")
    root = parse(svg)
    drawn = [g for g in root.iter(f"{{{NS['svg']}}}g") if g.get("data-edge")]
    assert len(drawn) == sum(1 for e in plane.edges.values() if e.a != e.b)
    assert all(len(g.findall("svg:polygon", NS)) == 1 for g in drawn)
    assert root.find("svg:rect", NS).get("fill") == "#0e1117"  # the dark background


def test_an_empty_plane_is_a_small_image_with_its_legend():
    root = parse(plane_svg(Editor()))
    assert float(root.get("width")) >= 360 and ids(root, "data-node") == []
    assert texts(root.find("svg:g[@id='legend']", NS))[:2] == ["Legend", "card"]
