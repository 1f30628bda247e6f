"""The whole plane (or a selection of it) as an image with its legend: the view an export
draws (:func:`image_view`) and that view as SVG (:func:`plane_svg`).

The SVG is drawn from the same scene the canvas draws (``bend.render.scene.build_scene`` at zoom 1
over the graph's bounds, every edge in full detail) in the canvas's order: halos (their
outlines, then the fill), edges, arrowheads, edge labels and polarity marks, cards (shadow,
box, header band, decorations, border, text), badges, then the legend below. Text stays
text (``<text>``, fonts named as in the page); each card is a ``<g data-node>``, each
edge a ``<g data-edge>`` and each loop marker (when the Loops panel's markers are on) a
``<g data-loop>`` at the loop's centre, so a reader (or a test) finds them. Numbers are written with at
most two decimals and attributes in a fixed order: the same graph gives the same bytes.

>>> from bendscope.bend.editor.editor import Editor
>>> from bendscope.bend.model.elements import Document, Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> plane.add_node(Node("a", "Rain & wind", x=0.0, y=0.0))
>>> plane.add_node(Node("b", "<Flood>", x=300.0, y=0.0))
>>> plane.add_edge(Edge("e", "a", "b", EdgeProps(kind="causal", polarity="+")))
>>> svg = plane_svg(Editor(Document([plane], "p")))
>>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"'), "&lt;Flood&gt;" in svg, svg.count("data-node=")
(True, True, 2)
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Camera, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.drawlist import art_of
from bendscope.bend.render.legend import (
    LEGEND_FONT,
    SWATCH,
    TITLE_FONT,
    LegendLayout,
    Placed,
    legend_entries,
    legend_layout,
)
from bendscope.bend.render.scene import Halo, LoopMarker, Marker, Pill, Scene, build_scene
from bendscope.shared.graphformats import xml_safe

MARGIN = 24.0  # px around the graph (past the halos)
MIN_WIDTH = 360.0  # px: room for the legend however small the graph
SVG_NS = "http://www.w3.org/2000/svg"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


@dataclass(frozen=True)
class ImageView:
    """What an exported image shows: the scene at zoom 1, the graph's box in world
    coordinates (``x``, ``y``: its top-left; the image's origin), the image size in px
    and the legend below the graph (at ``y + graph_height``)."""

    scene: Scene
    x: float
    y: float
    width: float
    graph_height: float
    legend: LegendLayout
    plane: Plane  # what is drawn: the plane, or the selection's cards and the edges among them
    topology: Topology
    camera: Camera
    markers: tuple[LoopMarker, ...] = ()  # the loops marked (drawn by the scene where they are)

    @property
    def height(self) -> float:
        return self.graph_height + self.legend.height


def _subplane(plane: Plane, node_ids: Iterable[str]) -> Plane:
    """A plane holding only ``node_ids`` and the edges among them (the same objects, read only)."""
    sub = Plane(plane.id, plane.name)
    keep = [n for n in node_ids if n in plane.nodes]
    inside = set(keep)
    for node_id in plane.nodes:  # (in the plane's order)
        if node_id in inside:
            sub.add_node(plane.nodes[node_id])
    for edge in plane.edges.values():
        if edge.a in inside and edge.b in inside:
            sub.add_edge(edge)
    return sub


def image_view(editor: Editor, node_ids: Iterable[str] | None = None, markers: Sequence[LoopMarker] = ()) -> ImageView:
    """The image of the active plane, or of ``node_ids`` (with the edges among them and the
    topology they induce), with the loop ``markers`` the canvas shows. O(n + m)."""
    plane = editor.plane
    topology: Topology
    if node_ids is None:
        shown = plane
        topology = editor.topology()
    else:
        ids = sorted(set(node_ids) & set(plane.nodes))
        shown = _subplane(plane, ids)
        topology = editor.topology_cache.induced(plane, ids, editor.exact_limit)
    nodes = list(shown.nodes.values())
    if nodes:
        pad = MARGIN + (theme.HALO_PAD if topology.result["sccs"] else 0.0) + 12.0  # (badges sit above halos)
        x0 = min(n.x - n.width / 2 for n in nodes) - pad
        y0 = min(n.y - n.height / 2 for n in nodes) - pad
        x1 = max(n.x + n.width / 2 for n in nodes) + pad
        y1 = max(n.y + n.height / 2 for n in nodes) + pad
    else:
        x0, y0, x1, y1 = 0.0, 0.0, MIN_WIDTH, 120.0
    width = max(MIN_WIDTH, math.ceil(x1 - x0))
    graph_height = float(math.ceil(y1 - y0))
    x0 -= (width - (x1 - x0)) / 2  # (centred when the legend makes it wider)
    camera = Camera(x0 + width / 2, y0 + graph_height / 2, 1.0)
    scene = build_scene(
        shown,
        editor.card,
        viewport=(width, graph_height),
        topology=topology,
        still=True,
        measure=editor.measure,
        pins=False,
        camera=camera,
        detail=True,
        markers=markers,
        tree_epoch=editor.rests,
    )
    drawn = {m.label for m in scene.markers}
    marked = [m.polarity for m in markers if m.label in drawn]
    legend = legend_layout(legend_entries(shown, topology, marked=marked), width, editor.measure)
    return ImageView(scene, x0, y0, float(width), graph_height, legend, shown, topology, camera, tuple(markers))


def _n(value: float) -> str:
    """A coordinate: at most two decimals, no trailing zeros.

    >>> _n(1.0), _n(-0.004), _n(2.345)
    ('1', '0', '2.35')
    """
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


_FONT = re.compile(r"^(italic\s+)?(\d+)\s+([\d.]+)px\s+(.+)$")


def _font(font: str) -> dict[str, str]:
    """A canvas font ("600 13px Inter", "italic 400 12px Inter") as SVG attributes.

    >>> _font("italic 600 13px Inter")
    {'font-family': 'Inter, sans-serif', 'font-size': '13', 'font-weight': '600', 'font-style': 'italic'}
    """
    match = _FONT.match(font)
    if match is None:
        return {"font-family": font}
    italic, weight, size, family = match.groups()
    family = family.strip().strip("'\"")
    generic = "monospace" if "Mono" in family else "sans-serif"
    out = {"font-family": f"{family}, {generic}", "font-size": size, "font-weight": weight}
    if italic:
        out["font-style"] = "italic"
    return out


def _color(element: ElementTree.Element, attribute: str, color: str) -> None:
    """``color`` as SVG paint: rgba(…) split into the colour and its opacity (SVG 1.1 readers)."""
    match = re.match(r"rgba\((\d+),\s*(\d+),\s*(\d+),\s*([\d.]+)\)", color)
    if match is None:
        element.set(attribute, color)
        return
    r, g, b, a = match.groups()
    element.set(attribute, f"#{int(r):02x}{int(g):02x}{int(b):02x}")
    element.set(f"{attribute}-opacity", _n(float(a)) if float(a) >= 0.01 else f"{float(a):.3f}")


def _sub(parent: ElementTree.Element, tag: str, **attributes: str) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, tag)
    for key, value in attributes.items():
        element.set(key.replace("_", "-"), xml_safe(value))  # (ids are user text too)
    return element


def _rect(parent: ElementTree.Element, x: float, y: float, w: float, h: float, r: float = 0.0) -> ElementTree.Element:
    element = _sub(parent, "rect", x=_n(x), y=_n(y), width=_n(w), height=_n(h))
    if r:
        element.set("rx", _n(r))
    return element


def _text(parent: ElementTree.Element, x: float, y: float, text: str, font: str, color: str, **extra: str) -> None:
    element = _sub(parent, "text", x=_n(x), y=_n(y), **_font(font), **extra)
    _color(element, "fill", color)
    element.set(_XML_SPACE, "preserve")  # (code keeps its spaces)
    element.text = xml_safe(text)  # (escaped by the writer: user text is never markup)


def _pill(parent: ElementTree.Element, p: Pill) -> None:
    box = _rect(parent, p.x - p.width / 2, p.y - p.height / 2, p.width, p.height, p.height / 2)
    _color(box, "fill", p.fill)
    if p.border:
        _color(box, "stroke", p.border)
        box.set("stroke-width", "1")
    _text(parent, p.x, p.y + 0.5, p.text, p.font, p.color, text_anchor="middle", dominant_baseline="central")


def _halo_parts(parent: ElementTree.Element, halo: Halo) -> None:
    r = theme.HALO_RADIUS
    rects, links = halo.rects, halo.links
    for i in range(0, len(rects), 4):
        _rect(parent, rects[i], rects[i + 1], rects[i + 2], rects[i + 3], min(r, rects[i + 2] / 2, rects[i + 3] / 2))
    for i in range(0, len(links), 8):
        quad = links[i : i + 8]
        _sub(parent, "polygon", points=" ".join(f"{_n(quad[k])},{_n(quad[k + 1])}" for k in range(0, 8, 2)))


def _legend(root: ElementTree.Element, view: ImageView) -> None:
    legend = view.legend
    top = view.y + view.graph_height
    group = _sub(root, "g", id="legend")
    line = _sub(group, "line", x1=_n(view.x), y1=_n(top), x2=_n(view.x + view.width), y2=_n(top), stroke_width="1")
    _color(line, "stroke", theme.CARD_BORDER)
    _text(group, view.x + 12, top + 12 + 11, legend.title, TITLE_FONT, theme.TEXT["body"])
    for placed in legend.items:
        _legend_entry(group, placed, view.x, top)


def _legend_entry(group: ElementTree.Element, placed: Placed, x0: float, y0: float) -> None:
    entry = placed.entry
    x, y = x0 + placed.x, y0 + placed.y
    mid = y + 7
    if entry.kind in ("card", "stargate", "halo"):
        box = _rect(group, x + 2, mid - 6, SWATCH - 4, 12, 3)
        _color(box, "fill", entry.fill)
        _color(box, "stroke", entry.color)
        box.set("stroke-width", "2" if entry.kind == "stargate" else "1")
    elif entry.kind in ("sign", "loop"):
        box = _rect(group, x + 4, mid - 6.5, 13, 13, 6.5)
        _color(box, "fill", entry.fill)
        _color(box, "stroke", theme.EDGE_COLOR["causal"] if entry.kind == "sign" else entry.color)
        box.set("stroke-width", "1")
        _text(group, x + 10.5, mid + 0.5, entry.sign, "700 11px Inter", entry.color, text_anchor="middle",
              dominant_baseline="central")  # fmt: skip
    else:
        line = _sub(group, "line", x1=_n(x), y1=_n(mid), x2=_n(x + SWATCH - 2), y2=_n(mid), stroke_width="2")
        _color(line, "stroke", entry.color)
        if entry.kind == "dashed":
            line.set("stroke-dasharray", " ".join(_n(d) for d in theme.FAULT_DASH))
    _text(group, x + SWATCH + 8, mid + 4, entry.text, LEGEND_FONT, theme.TEXT["body"])


def _marker(parent: ElementTree.Element, marker: Marker) -> None:
    """A loop marker as the canvas draws it: the disk with its label, the arc, the arrowhead."""
    group = _sub(parent, "g", data_loop=marker.label)
    _pill(group, marker.disk)
    cx, cy, r, start, end = marker.arc
    sx, sy = cx + r * math.cos(start), cy + r * math.sin(start)
    ex, ey = cx + r * math.cos(end), cy + r * math.sin(end)
    sweep = "1" if marker.clockwise else "0"  # (SVG's positive angles turn clockwise on screen, y down)
    arc = _sub(group, "path", d=f"M{_n(sx)} {_n(sy)}A{_n(r)} {_n(r)} 0 1 {sweep} {_n(ex)} {_n(ey)}", fill="none",
               stroke_width="2")  # fmt: skip
    _color(arc, "stroke", marker.color)
    h = marker.head
    head = _sub(group, "polygon", points=" ".join(f"{_n(h[k])},{_n(h[k + 1])}" for k in range(0, 6, 2)))
    _color(head, "fill", marker.color)


def plane_svg(editor: Editor, node_ids: Iterable[str] | None = None, markers: Sequence[LoopMarker] = ()) -> str:
    """The image of the active plane (or of ``node_ids``) with its legend and the loop
    ``markers``, as an SVG document. O(n + m + text)."""
    view = image_view(editor, node_ids, markers)
    scene = view.scene
    root = ElementTree.Element("svg")
    root.set("xmlns", SVG_NS)
    root.set("width", _n(view.width))
    root.set("height", _n(view.height))
    root.set("viewBox", f"{_n(view.x)} {_n(view.y)} {_n(view.width)} {_n(view.height)}")
    title = _sub(root, "title")
    title.text = xml_safe(f"{editor.plane.name} — Bendscope")
    back = _rect(root, view.x, view.y, view.width, view.height)
    _color(back, "fill", theme.BACKGROUND)
    # halos: every part's outline, the inside repainted with the background, then the fill
    for halo in scene.halos:
        group = _sub(root, "g", data_scc=halo.scc_id)
        if not halo.simple:
            outline = _sub(group, "g", stroke_width="4", stroke_linejoin="round")
            _color(outline, "stroke", halo.stroke)
            _halo_parts(outline, halo)
            inside = _sub(group, "g")
            _color(inside, "fill", theme.BACKGROUND)
            _halo_parts(inside, halo)
        fill = _sub(group, "g")
        _color(fill, "fill", halo.fill)
        _halo_parts(fill, halo)
    edges = _sub(root, "g", id="edges", fill="none", stroke_linecap="round", stroke_linejoin="round")
    for path in scene.edge_paths:
        group = _sub(edges, "g", data_edge=path.edge_id)
        segs = path.segments
        d = " ".join(
            f"M{_n(segs[i])} {_n(segs[i + 1])}L{_n(segs[i + 2])} {_n(segs[i + 3])}" for i in range(0, len(segs), 4)
        )
        line = _sub(group, "path", d=d, stroke_width=_n(path.width))
        _color(line, "stroke", path.color)
        if path.dash:
            line.set("stroke-dasharray", " ".join(_n(v) for v in path.dash))
            line.set("stroke-linecap", "butt")
        if path.arrow:
            a = path.arrow
            head = _sub(group, "polygon", points=" ".join(f"{_n(a[k])},{_n(a[k + 1])}" for k in range(0, 6, 2)))
            _color(head, "fill", path.color)
    labels = _sub(root, "g", id="labels")
    for pill in scene.labels:
        _pill(labels, pill)
    cards = _sub(root, "g", id="cards")
    r = theme.CARD_RADIUS
    for card in scene.cards:
        group = _sub(cards, "g", data_node=card.node_id)
        shadow = _rect(group, card.x + 0.5, card.y + 2, card.width, card.height, r)
        _color(shadow, "fill", theme.CARD_SHADOW)
        box = _rect(group, card.x, card.y, card.width, card.height, r)
        _color(box, "fill", theme.CARD_FILL)
        x, y, w = card.x, card.y, card.width
        band = _sub(group, "path", d=f"M{_n(x)} {_n(y + 14)}V{_n(y + r)}A{_n(r)} {_n(r)} 0 0 1 {_n(x + r)} {_n(y)}"
                    f"H{_n(x + w - r)}A{_n(r)} {_n(r)} 0 0 1 {_n(x + w)} {_n(y + r)}V{_n(y + 14)}Z")  # fmt: skip
        _color(band, "fill", card.header_fill)
        art = art_of(card)
        for color, rects in art.decorations:
            for i in range(0, len(rects), 4):
                deco = _rect(group, x + rects[i], y + rects[i + 1], rects[i + 2], rects[i + 3])
                _color(deco, "fill", color)
        border = _rect(group, card.x, card.y, card.width, card.height, r)
        border.set("fill", "none")
        _color(border, "stroke", card.border)
        border.set("stroke-width", _n(card.border_width))
        if card.pulse:  # a card in a loop, its border as a still frame shows it
            ring = _rect(group, card.x, card.y, card.width, card.height, r)
            ring.set("fill", "none")
            _color(ring, "stroke", f"rgba({theme.PULSE_BORDER},{card.pulse:.3f})")
            ring.set("stroke-width", "2.5")
        items = art.items if card.lines else art.items[-1:] if card.header else ()
        for font, color, dx, dy, text in items:
            _text(group, x + dx, y + dy, text, font, color)
    badges = _sub(root, "g", id="badges")
    for halo in scene.halos:
        _pill(badges, halo.badge)
    if scene.markers:
        marks = _sub(root, "g", id="loop-markers")
        for marker in scene.markers:
            _marker(marks, marker)
    _legend(root, view)
    ElementTree.indent(root, space="")
    return ElementTree.tostring(root, encoding="unicode") + "\n"
