"""Loops readable on the canvas: each loop's mark (R1, B2) numbered per class in the Loops
panel's order and kept when a region is expanded, the markers the canvas and the images draw
at the loops' centres, and the view a chosen loop is brought into — card text drawn as text,
no card under a panel."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree

from bend_helpers import editor_with

from bendscope.bend.editor.camera import READABLE_ZOOM
from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.viewfit import free_rects, readable, show_readably
from bendscope.bend.kappa_view.loops_panel import LOOPS_SHOWN, loop_marks, panel_view
from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.render.scene import GREEK_ZOOM, MARKER_RADIUS, LoopMarker, build_scene, loop_marker
from bendscope.bend.render.svgexport import plane_svg

SVG = "{http://www.w3.org/2000/svg}"

#: the textbook population diagram
POPULATION = [("births", "population", "+"), ("population", "births", "+"), ("population", "deaths", "+"),
              ("deaths", "population", "-"), ("food", "births", "+")]  # fmt: skip


def population() -> Editor:
    plane = Plane("p", "P")
    spots = {"births": (0.0, 0.0), "population": (300.0, 0.0), "deaths": (600.0, 0.0), "food": (0.0, 250.0)}
    for node_id, (x, y) in spots.items():
        plane.add_node(Node(node_id, node_id.capitalize(), x=x, y=y, pinned=True))
    for k, (a, b, sign) in enumerate(POPULATION):
        plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(kind="causal", polarity=sign)))
    return Editor(Document([plane], "p"))


def test_marks_are_numbered_per_class_and_kept_when_a_region_is_expanded():
    # 15 two-card loops through a hub, alternately reinforcing and balancing, and a second region
    plane = Plane("p", "P")
    plane.add_node(Node("hub", "Hub"))
    for k in range(15):
        plane.add_node(Node(f"s{k:02}", f"Spoke {k}"))
        plane.add_edge(Edge(f"o{k}", "hub", f"s{k:02}", EdgeProps(kind="causal", polarity="+")))
        plane.add_edge(Edge(f"i{k}", f"s{k:02}", "hub", EdgeProps(kind="causal", polarity="+" if k % 2 else "-")))
    for node_id in ("x", "y"):
        plane.add_node(Node(node_id, node_id))
    plane.add_edge(Edge("xy", "x", "y", EdgeProps(kind="causal", polarity="-")))
    plane.add_edge(Edge("yx", "y", "x", EdgeProps(kind="causal", polarity="+")))
    editor = Editor(Document([plane], "p"))
    report = editor.loops(wait=True)
    marks = loop_marks(report)
    flat = [m for row in marks for m in row]
    assert flat[:4] == ["B1", "R1", "B2", "R2"] and flat[-1] == "B9"  # the other region's loop: the 9th B
    assert len(set(flat)) == len(flat)
    short = panel_view(editor, report)
    assert [item.mark for item in short.groups[1].items] == ["B9"]  # not renumbered though not all are shown
    assert [m.label for m in short.markers] == [*flat[:LOOPS_SHOWN], "B9"]  # the canvas marks what is listed
    wide = panel_view(editor, report, expanded={0})
    assert [m.label for m in wide.markers] == flat
    for marker, loop in zip(wide.markers, report.groups[0].loops, strict=False):
        assert marker.nodes == loop.nodes and marker.polarity == loop.polarity


def test_a_marker_sits_at_its_loops_centre_and_turns_its_way():
    editor = population()
    plane = editor.plane
    births_loop = LoopMarker("R1", "R", ("births", "population"))
    mark = loop_marker(plane, births_loop)
    assert (mark.x, mark.y, mark.label) == (150.0, 0.0, "R1")
    assert mark.clockwise  # a loop of two: clockwise
    # a triangle run clockwise on screen, and the same cards run the other way
    plane = Plane("q", "Q")
    for node_id, (x, y) in {"births": (0.0, 0.0), "population": (300.0, 0.0), "z": (300.0, 300.0)}.items():
        plane.add_node(Node(node_id, node_id, x=x, y=y))
    clockwise = loop_marker(plane, LoopMarker("B1", "B", ("births", "population", "z")))
    other = loop_marker(plane, LoopMarker("B2", "B", ("births", "z", "population")))
    assert clockwise.clockwise and not other.clockwise
    assert (clockwise.x, clockwise.y) == (other.x, other.y) == (200.0, 100.0)
    # the arrowhead sits at the arc's end, on the arc, on the mirror side for the other way
    for m in (clockwise, other):
        cx, cy, r, _start, end = m.arc
        ex, ey = cx + r * math.cos(end), cy + r * math.sin(end)
        middle = ((m.head[2] + m.head[4]) / 2, (m.head[3] + m.head[5]) / 2)
        assert math.isclose(middle[0], ex, abs_tol=1e-9) and math.isclose(middle[1], ey, abs_tol=1e-9)
    assert clockwise.head[0] - clockwise.x == -(other.head[0] - other.x)
    assert loop_marker(plane, LoopMarker("R9", "R", ("gone",))) is None


def test_the_scene_and_the_svg_draw_the_markers_where_the_loops_are():
    editor = population()
    report = editor.loops(wait=True)
    markers = panel_view(editor, report).markers
    assert [(m.label, m.nodes) for m in markers] == [("R1", ("births", "population")), ("B1", ("deaths", "population"))]
    scene = build_scene(editor.plane, editor.card, viewport=(2000.0, 1200.0), markers=markers, measure=editor.measure)
    assert [(m.label, m.x, m.y) for m in scene.markers] == [("R1", 150.0, 0.0), ("B1", 450.0, 0.0)]
    root = ElementTree.fromstring(plane_svg(editor, markers=markers))
    groups = {g.get("data-loop"): g for g in root.iter(f"{SVG}g") if g.get("data-loop")}
    assert sorted(groups) == ["B1", "R1"]
    for label, (x, y) in (("R1", (150.0, 0.0)), ("B1", (450.0, 0.0))):
        group = groups[label]
        text = group.find(f"{SVG}text")
        assert text.text == label and (float(text.get("x")), float(text.get("y"))) == (x, y + 0.5)
        arc = group.find(f"{SVG}path").get("d")
        assert f"A{MARKER_RADIUS:g} {MARKER_RADIUS:g} 0 1 1 " in arc  # clockwise (SVG's sweep flag 1)
    assert not ElementTree.fromstring(plane_svg(editor)).findall(f".//{SVG}g[@data-loop]")  # markers off: none


def test_free_rects_are_the_view_clear_of_the_panels():
    panel, inspector, toolbar = (10.0, 50.0, 370.0, 530.0), (1030.0, 10.0, 1270.0, 300.0), (10.0, 10.0, 900.0, 44.0)
    rects = free_rects(1280.0, 800.0, [panel, inspector, toolbar])
    for rect in rects:
        for box in (panel, inspector, toolbar):
            assert rect[2] <= box[0] or box[2] <= rect[0] or rect[3] <= box[1] or box[3] <= rect[1]
    areas = [(r[2] - r[0]) * (r[3] - r[1]) for r in rects]
    assert areas == sorted(areas, reverse=True)
    assert rects[0] == (370.0, 44.0, 1030.0, 800.0)
    assert free_rects(100.0, 100.0, [(0.0, 0.0, 100.0, 100.0)]) == [(0.0, 0.0, 100.0, 100.0)]  # nothing free


def _wide_plane(n: int = 1200) -> Editor:
    """A large plane laid out wide (a grid 40 cards across) with a ring through every card and
    short loops i → … → i+4 → i: fitted to the window its cards are dots."""
    plane = Plane("p", "P")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"card {i}", x=(i % 40) * 220.0, y=(i // 40) * 140.0, pinned=True))
    for i in range(n):
        plane.add_edge(Edge(f"r{i}", f"n{i}", f"n{(i + 1) % n}", EdgeProps(kind="causal", polarity="+")))
    for i in range(0, n, 30):
        plane.add_edge(Edge(f"b{i}", f"n{(i + 4) % n}", f"n{i}", EdgeProps(kind="causal", polarity="-")))
    editor = Editor(Document([plane], "p"))
    editor.viewport = (1280.0, 800.0)
    editor.fit_view()
    return editor


PANELS = [(10.0, 50.0, 370.0, 530.0), (1030.0, 10.0, 1270.0, 300.0), (10.0, 10.0, 900.0, 44.0),
          (10.0, 760.0, 700.0, 790.0)]  # fmt: skip


def test_a_chosen_loop_is_brought_to_a_readable_zoom_clear_of_the_panels():
    editor = _wide_plane()
    assert editor.plane.camera.zoom < GREEK_ZOOM  # fitted, the names are bars
    loop = ("n30", "n31", "n32", "n33", "n34")
    assert not readable(editor, loop, PANELS)
    assert show_readably(editor, loop, PANELS)
    assert editor.plane.camera.zoom >= READABLE_ZOOM > GREEK_ZOOM
    assert readable(editor, loop, PANELS)  # in view, text as text, none under a panel
    assert not show_readably(editor, loop, PANELS)  # readable already: the view stays


def test_a_loop_too_large_to_read_whole_is_shown_whole_clear_of_the_panels():
    """(At the readable zoom most of such a loop lay off the screen, and nothing said where.)"""
    editor = _wide_plane()
    loop = tuple(f"n{i}" for i in range(0, 400, 7))  # cards across ten rows of the grid
    assert show_readably(editor, loop, PANELS)
    cam = editor.plane.camera
    assert cam.zoom < READABLE_ZOOM
    for node_id in loop:  # every card in view, none under a panel
        node = editor.plane.nodes[node_id]
        x0, y0 = editor.world_to_screen(node.x - node.width / 2, node.y - node.height / 2)
        x1, y1 = editor.world_to_screen(node.x + node.width / 2, node.y + node.height / 2)
        assert x0 >= 0 and x1 <= 1280 and y0 >= 0 and y1 <= 800, node_id
        assert not any(x0 < p[2] and p[0] < x1 and y0 < p[3] and p[1] < y1 for p in PANELS), node_id
    nodes = [editor.plane.nodes[n] for n in loop]
    middle = ((min(n.x - n.width / 2 for n in nodes) + max(n.x + n.width / 2 for n in nodes)) / 2,
              (min(n.y - n.height / 2 for n in nodes) + max(n.y + n.height / 2 for n in nodes)) / 2)  # fmt: skip
    sx, sy = editor.world_to_screen(*middle)  # centred in a part of the view clear of the panels
    centres = [((r[0] + r[2]) / 2, (r[1] + r[3]) / 2) for r in free_rects(1280.0, 800.0, PANELS)]
    assert any(math.isclose(sx, x) and math.isclose(sy, y) for x, y in centres)


def test_cards_already_readable_leave_the_view_alone():
    editor = editor_with([("a", "b"), ("b", "a")])
    editor.viewport = (1280.0, 800.0)
    editor.fit_view()
    before = (editor.plane.camera.x, editor.plane.camera.y, editor.plane.camera.zoom)
    assert not show_readably(editor, ["a", "b"], [])
    assert (editor.plane.camera.x, editor.plane.camera.y, editor.plane.camera.zoom) == before


def test_the_images_legend_explains_the_markers_it_shows():
    editor = population()
    markers = panel_view(editor, editor.loops(wait=True)).markers
    root = ElementTree.fromstring(plane_svg(editor, markers=markers))
    legend = [t.text for t in root.find(f"{SVG}g[@id='legend']").iter(f"{SVG}text")]
    assert "reinforcing loop (R1, R2…)" in legend and "balancing loop (B1…)" in legend
    assert "loop without polarity (L1…)" not in legend
    plain = ElementTree.fromstring(plane_svg(editor))
    assert "reinforcing loop (R1, R2…)" not in [t.text for t in plain.iter(f"{SVG}text")]
