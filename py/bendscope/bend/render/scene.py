"""The scene step: decide what is drawn, in draw order, without drawing anything.

Order: background (dot grid) → topology (halos and κ badges) → edges (batched by
style, fault lines dashed) → arrowheads → edge labels → nodes (cards, text,
selection, pin, pulse). Coordinates are world units; the painter applies the
camera transform once. Items outside the viewport are culled. The painter turns
each batch into one Path2D, so the number of browser calls grows with the
number of styles, not with the number of edges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from bendscope.bend.kappa_view.explain import kappa_span
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Camera, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.edge_paths import (
    _WIDTHS,
    CURVE_PIECES,
    _segment,
    curve,
    curve_label,
    label_text,
    parallel_offsets,
)
from bendscope.bend.render.halos import badge_text, band, halo_fill, halo_trees
from bendscope.bend.render.textlayout import CardLayout, Measure, TextLine, js_number, tag_name

DIRECTED = ("causal", "temporal")


@dataclass(frozen=True)
class Grid:
    spacing: float  # screen px
    offset_x: float
    offset_y: float
    color: str


@dataclass
class StrokeBatch:
    """Line segments of one style: flat [ax, ay, bx, by, …]; ``width`` 0 is a hairline."""

    color: str
    width: float
    dash: tuple[float, ...] = ()
    segments: list[float] = field(default_factory=list)
    #: the selected edge, or edges shown on request (a loop's, those breaking every loop): drawn
    #: last, and kept at their width where the others become hairlines
    keep: bool = False


@dataclass
class FillBatch:
    """Filled triangles of one colour: flat [x1, y1, x2, y2, x3, y3, …] (arrowheads)."""

    color: str
    triangles: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class EdgePath:
    """One edge as drawn (an export's record; frames draw batches): its line pieces (flat
    ax, ay, bx, by, …), style, and arrowhead triangle (empty when undirected)."""

    edge_id: str
    color: str
    width: float
    dash: tuple[float, ...]
    segments: tuple[float, ...]
    arrow: tuple[float, ...]


@dataclass
class RectBatch:
    """Filled rectangles of one colour: flat [x, y, w, h, …] (quote bars, code backgrounds)."""

    color: str
    rects: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Pill:
    """A text pill: centre (x, y) in world units."""

    x: float
    y: float
    width: float
    height: float
    text: str
    font: str
    fill: str
    color: str
    border: str = ""


@dataclass(frozen=True)
class LinkView:
    """A connection being dragged: from ``source``'s handle to ``to`` (world), over
    ``target`` (or none), with the κ preview of that edge."""

    source: str
    to: tuple[float, float]
    target: str | None
    label: str
    changes: bool  # the preview changes the topology (drawn in the κ colour)


@dataclass(frozen=True)
class InteractionView:
    """What the current gesture adds to the scene (world units)."""

    handle: str | None = None  # the node whose connection handle shows
    brush: tuple[float, float, float, float] | None = None  # x0, y0, x1, y1
    link: LinkView | None = None


@dataclass(frozen=True)
class Overlay:
    """The gesture's marks, drawn last: the handle dot (x, y, r), the rubber band and
    the dragged connection (segment, the target's ring, the preview pill)."""

    handle: tuple[float, float, float] | None = None
    brush: tuple[float, float, float, float] | None = None  # x, y, w, h
    link: tuple[float, float, float, float] | None = None
    link_color: str = ""
    ring: tuple[float, float, float, float] | None = None
    label: Pill | None = None


@dataclass(frozen=True)
class Halo:
    """An SCC's halo: the union of its members' padded card boxes (``rects``, flat x, y,
    w, h) and bands along a spanning tree of its arcs (``links``, flat quads of 4 points,
    all clockwise on screen so one nonzero fill is their union). Only members are inside
    it. ``x, y, width, height`` bound it; the badge sits on its top-most member."""

    scc_id: str
    kappa: int
    x: float
    y: float
    width: float
    height: float
    fill: str
    stroke: str
    badge: Pill
    rects: tuple[float, ...] = ()
    links: tuple[float, ...] = ()
    #: level of detail: drawn as a plain fill (no outline), for far zoom or very many parts
    simple: bool = False


@dataclass(frozen=True)
class LoopMarker:
    """A loop to mark on the canvas: its label (its class and number in the Loops panel: "R1",
    "B2", "?3"), its class and its cards in loop order."""

    label: str
    polarity: str
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class Marker:
    """A loop's marker as drawn (world units), as people who draw causal loop diagrams mark a
    loop: a circular arrow round its label at the loop's centre (the mean of its cards'
    centres), turning the way the loop runs on the canvas (clockwise when its cards, in loop
    order, go round clockwise on screen; a loop of two, clockwise). ``disk``: the pill behind
    it with the label; ``arc``: the canvas arc (centre x, y, radius, start, end angle;
    anticlockwise when not ``clockwise``); ``head``: the arrowhead triangle at its end."""

    label: str
    x: float
    y: float
    clockwise: bool
    color: str
    disk: Pill
    arc: tuple[float, float, float, float, float]
    head: tuple[float, ...]


#: a loop marker's arc radius, its disk's radius and the gap (radians, each side of the top)
#: the arrowhead sits in; all in world units, like the halo badges
MARKER_RADIUS = 13.0
MARKER_DISK = 19.0
MARKER_GAP = 0.45
#: the clockwise arc's start and end angle (canvas angles: 0 points right, y down), and its
#: arrowhead's corners relative to the centre; anticlockwise markers are their mirror image
MARKER_ARC = (-math.pi / 2 + MARKER_GAP, 3 * math.pi / 2 - MARKER_GAP)
_END = MARKER_ARC[1]
_EX, _EY = MARKER_RADIUS * math.cos(_END), MARKER_RADIUS * math.sin(_END)
_TX, _TY = -math.sin(_END), math.cos(_END)  # the way a clockwise arc runs at its end
_NX, _NY = math.cos(_END), math.sin(_END)
MARKER_HEAD = (_EX + 6.5 * _TX, _EY + 6.5 * _TY, _EX + 4.5 * _NX, _EY + 4.5 * _NY, _EX - 4.5 * _NX, _EY - 4.5 * _NY)


def loop_marker(plane: Plane, loop: LoopMarker) -> Marker | None:
    """Where and how ``loop``'s marker is drawn on ``plane`` (None: none of its cards is there).
    O(cards of the loop).

    >>> from bendscope.bend.model.elements import Node
    >>> p = Plane("p", "P")
    >>> for name, x, y in (("a", 0.0, 0.0), ("b", 200.0, 0.0), ("c", 100.0, 150.0)):
    ...     p.add_node(Node(name, name, x=x, y=y))
    >>> m = loop_marker(p, LoopMarker("R1", "R", ("a", "b", "c")))
    >>> (m.x, m.y, m.clockwise), loop_marker(p, LoopMarker("B1", "B", ("a", "c", "b"))).clockwise
    ((100.0, 50.0, True), False)
    """
    nodes = [plane.nodes[n] for n in loop.nodes if n in plane.nodes]
    if not nodes:
        return None
    count = len(nodes)
    x = sum(n.x for n in nodes) / count
    y = sum(n.y for n in nodes) / count
    area = 0.0
    for k in range(count):
        a, b = nodes[k], nodes[(k + 1) % count]
        area += a.x * b.y - b.x * a.y
    clockwise = area >= 0.0  # (y down: a positive shoelace sum goes round clockwise on screen)
    color = theme.LOOP_COLOR[loop.polarity]
    size = 2 * MARKER_DISK
    disk = Pill(x, y, size, size, loop.label, theme.LOOP_FONT, theme.MARKER_FILL, color)
    start, end = MARKER_ARC if clockwise else (math.pi - MARKER_ARC[0], math.pi - MARKER_ARC[1])
    sign = 1.0 if clockwise else -1.0
    h = MARKER_HEAD
    head = (x + sign * h[0], y + h[1], x + sign * h[2], y + h[3], x + sign * h[4], y + h[5])
    return Marker(loop.label, x, y, clockwise, color, disk, (x, y, MARKER_RADIUS, start, end), head)


class Card:
    """One node card. Text lines stay as laid out (offsets from the top-left); the
    painter adds the card's position, so no per-frame objects are made per line."""

    __slots__ = (
        "border",
        "border_width",
        "decorations",
        "greek",
        "header",
        "header_fill",
        "height",
        "lines",
        "node_id",
        "node_type",
        "pinned",
        "placeholder",
        "pulse",
        "selected",
        "width",
        "x",
        "y",
    )

    def __init__(self, node_id: str, x: float, y: float, width: float, height: float, node_type: str, border: str,
                 border_width: float, header_fill: str, lines: tuple[TextLine, ...], header: str, placeholder: bool,
                 greek: bool, decorations: tuple[RectBatch, ...], selected: bool, pinned: bool,
                 pulse: float) -> None:  # fmt: skip
        self.node_id = node_id
        self.x = x  # top-left
        self.y = y
        self.width = width
        self.height = height
        self.node_type = node_type
        self.border = border
        self.border_width = border_width
        self.header_fill = header_fill
        self.lines = lines  # tuple[TextLine, ...] (empty while the node is being edited)
        self.header = header  # "STARGATE" or ""
        self.placeholder = placeholder
        self.greek = greek  # level of detail: text drawn as bars, not glyphs
        self.decorations = decorations  # tuple[RectBatch, ...]: quote bars, code backgrounds
        self.selected = selected
        self.pinned = pinned
        self.pulse = pulse  # 0 = none, else border alpha (nodes in an SCC with κ > 0)


#: Below this zoom card text is drawn as bars (it would be under ~5 px tall).
GREEK_ZOOM = 0.45
#: Below this zoom cards are plain boxes (a 140 px card is under 28 px wide): no text, bars,
#: headers, shadows, pins or pulses; edges are hairlines and halos plain fills.
FAR_ZOOM = 0.2
#: A halo with more visible parts (member boxes and bands) than this is drawn as a plain fill.
HALO_DETAIL_LIMIT = 200
#: An SCC with more members than this shows its long bands (centres more than ``LONG_BAND``
#: apart) only when its tree has at most ``LONG_BANDS`` of them: in a large tangled loop the
#: tree's long arcs cross the whole graph by the hundred, each costing the rasteriser as much
#: as a long line across the view (all of a 3,000-card loop's doubled the raster time at
#: zoom 1), for no information (the members' boxes show who is in the loop). The tree is the
#: shortest its arcs allow (``halo_trees``): a region laid out along its loops, as Arrange
#: lays it out, needs few long bands, and reads as one shape.
BAND_MEMBERS = 50
LONG_BAND = 480.0
LONG_BANDS = 64


def level_of_detail(zoom: float) -> str:
    """ "detail", "greek" (text as bars) or "far" (boxes only) at ``zoom``.

    >>> level_of_detail(1.0), level_of_detail(0.3), level_of_detail(0.05)
    ('detail', 'greek', 'far')
    """
    return "far" if zoom < FAR_ZOOM else "greek" if zoom < GREEK_ZOOM else "detail"


@dataclass
class Scene:
    width: float
    height: float
    camera: tuple[float, float, float]  # x, y, zoom
    background: str
    grid: Grid
    halos: list[Halo]
    edges: list[StrokeBatch]
    arrows: list[FillBatch]
    labels: list[Pill]
    cards: list[Card]
    overlay: Overlay = field(default_factory=Overlay)
    dim: list[float] = field(default_factory=list)  # x, y, w, h of cards a search leaves out (faded)
    lod: str = "detail"  # level_of_detail(zoom)
    edge_paths: list[EdgePath] = field(default_factory=list)  # with ``detail`` only: each edge as drawn
    markers: list[Marker] = field(default_factory=list)  # the loop markers in view, drawn last
    tags: list[Pill] = field(default_factory=list)  # name tags of the shown loop's cards (not at detail)

    def edge_styles(self) -> dict[tuple[str, float, tuple[float, ...]], int]:
        """(colour, width, dash) → number of segments (tests and benchmarks)."""
        return {(b.color, b.width, b.dash): len(b.segments) // 4 for b in self.edges}


def polarity_pill(tip_x: float, tip_y: float, ux: float, uy: float, size: float, sign: str, border: str) -> Pill:
    """The pill that shows an edge's polarity (``+`` or ``-``, drawn ``−``): beside its
    arrowhead (tip at ``tip``, unit direction ``u``, head ``size``), on the head's left as
    the edge travels. O(1).

    >>> p = polarity_pill(100.0, 0.0, 1.0, 0.0, 9.0, "-", "#e0552f")
    >>> (p.x, p.y, p.text)
    (84.0, 9.0, '−')
    """
    back, side = size + 7.0, 9.0
    s = theme.POLARITY_SIZE
    return Pill(tip_x - ux * back - uy * side, tip_y - uy * back + ux * side, s, s, "+" if sign == "+" else "−",
                theme.POLARITY_FONT, theme.LABEL_FILL, theme.POLARITY_COLOR[sign], border)  # fmt: skip


def pulse_value(t_ms: float) -> float:
    """The spec's pulse: sin(t/1000)·0.3 + 0.7."""
    return math.sin(t_ms / 1000.0) * 0.3 + 0.7


FROZEN_PULSE = 1.0  # ?still=1: the pulse is frozen at its brightest


def grid_of(cam: Camera, viewport: tuple[float, float]) -> Grid:
    """The dot grid at ``cam`` in a ``viewport``: spacing doubled until at least 10 px. O(log 1/zoom)."""
    width, height = viewport
    zoom = cam.zoom
    spacing = theme.GRID_SPACING * zoom
    while spacing < 10:
        spacing *= 2
    return Grid(
        round(spacing, 4),
        round((width / 2 - cam.x * zoom) % spacing, 4),
        round((height / 2 - cam.y * zoom) % spacing, 4),
        theme.GRID_DOT,
    )


def build_scene(
    plane: Plane,
    cards: Mapping[str, CardLayout] | Callable[[Node], CardLayout],
    *,
    viewport: tuple[float, float],
    selection: frozenset[str] | set[str] = frozenset(),
    selected_edge: str | None = None,
    topology: Topology | None = None,
    time_ms: float = 0.0,
    still: bool = False,
    editing: str | None = None,
    measure: Measure | None = None,
    interaction: InteractionView | None = None,
    dimmed: frozenset[str] | set[str] = frozenset(),
    pins: bool = True,
    camera: Camera | None = None,
    detail: bool = False,
    markers: Sequence[LoopMarker] = (),
    loop_edges: Collection[str] = frozenset(),
    loop_class: str = "?",
    cut_edges: Collection[str] = frozenset(),
    tree_epoch: int = 0,
    tags: Sequence[str] = (),
) -> Scene:
    """Decide everything drawn for ``plane`` at its camera in a ``viewport`` (CSS px).

    ``cards`` maps node id → its CardLayout (or is a callable node → CardLayout, so only
    visible nodes are looked up); ``measure(text, font)`` sizes pills. ``pins``: whether
    pinned cards show their mark (an exported image leaves them out unless asked).
    ``camera``: instead of the plane's (an export's view); ``detail``: every edge with its
    arrowhead and label and every halo outlined, however many (an export, not a frame).
    ``markers``: loops to mark (see :class:`Marker`); ``loop_edges``: the edges of the loop
    shown, drawn in its class's colour (``loop_class``); ``cut_edges``: edges shown as those
    whose removal breaks every loop. ``tree_epoch``: see ``halo_trees``. ``tags``: cards whose
    names are drawn readable (:func:`name_tags`) where their text is bars or boxes (the shown
    loop's). O(n + m) plus culling.
    """
    width, height = viewport
    cam = camera or plane.camera
    zoom = cam.zoom
    half_w, half_h = width / 2 / zoom, height / 2 / zoom
    view = (cam.x - half_w, cam.y - half_h, cam.x + half_w, cam.y + half_h)
    measure = measure or _rough_measure

    grid = grid_of(cam, viewport)

    def visible(x0: float, y0: float, x1: float, y1: float) -> bool:
        return x1 >= view[0] and x0 <= view[2] and y1 >= view[1] and y0 <= view[3]

    # -- topology: halos and badges for SCCs with κ > 0; each part culled to the view, so the
    # cost grows with what is visible, not with the size of the SCC
    lod = level_of_detail(zoom)
    halos: list[Halo] = []
    pulsing: set[str] = set()
    if topology is not None:
        trees = halo_trees(plane, topology, tree_epoch)
        pad = theme.HALO_PAD
        band_half = theme.HALO_BAND
        # a part whose outline (2 px) could reach into the view is kept
        reach = 4.0 / zoom
        cx0, cy0, cx1, cy1 = view[0] - reach, view[1] - reach, view[2] + reach, view[3] + reach
        for scc in topology.result["sccs"]:
            if scc["kappa"] <= 0:
                continue
            members = [plane.nodes[n] for n in scc["nodes"] if n in plane.nodes]
            if not members:
                continue
            pulsing.update(n.id for n in members)
            x0 = min(n.x - n.width / 2 for n in members) - pad
            y0 = min(n.y - n.height / 2 for n in members) - pad
            x1 = max(n.x + n.width / 2 for n in members) + pad
            y1 = max(n.y + n.height / 2 for n in members) + pad
            if not visible(x0, y0, x1, y1):
                continue
            rects: list[float] = []
            for n in members:
                rx, ry = n.x - n.width / 2 - pad, n.y - n.height / 2 - pad
                rw, rh = n.width + 2 * pad, n.height + 2 * pad
                if rx + rw >= cx0 and rx <= cx1 and ry + rh >= cy0 and ry <= cy1:
                    rects += (rx, ry, rw, rh)
            links: list[float] = []
            longest = LONG_BAND * LONG_BAND if len(members) > BAND_MEMBERS else math.inf
            long_pairs: list[tuple[Node, Node]] = []
            short_pairs: list[tuple[Node, Node]] = []
            for one, other in trees.get(scc["id"], ()):
                na, nb = plane.nodes[one], plane.nodes[other]
                if (na.x - nb.x) * (na.x - nb.x) + (na.y - nb.y) * (na.y - nb.y) > longest:
                    if len(long_pairs) <= LONG_BANDS:
                        long_pairs.append((na, nb))
                else:
                    short_pairs.append((na, nb))
            if len(long_pairs) <= LONG_BANDS:  # (few long ones: drawn after the short)
                short_pairs += long_pairs
            for na, nb in short_pairs:
                if (
                    max(na.x, nb.x) + band_half >= cx0
                    and min(na.x, nb.x) - band_half <= cx1
                    and max(na.y, nb.y) + band_half >= cy0
                    and min(na.y, nb.y) - band_half <= cy1
                ):
                    links += band(na.x, na.y, nb.x, nb.y, band_half)
            top = min(members, key=lambda n: (n.y - n.height / 2, -(n.x + n.width / 2)))
            text = badge_text(scc["kappa"], scc["approximate"], kappa_span(scc)[0])
            bw = measure(text, theme.BADGE_FONT) + 12
            bx = top.x + top.width / 2 + pad - bw / 2 - 6
            by = top.y - top.height / 2 - pad + 10
            badge = Pill(bx, by, bw, 16, text, theme.BADGE_FONT, theme.BADGE_FILL, theme.BADGE_TEXT)
            fill, stroke = halo_fill(scc["kappa"])
            simple = not detail and (lod == "far" or (len(rects) // 4 + len(links) // 8) > HALO_DETAIL_LIMIT)
            halos.append(
                Halo(scc["id"], scc["kappa"], x0, y0, x1 - x0, y1 - y0, fill, stroke, badge, tuple(rects), tuple(links),
                     simple)
            )  # fmt: skip

    # -- edges (culled on the centres' box widened by the largest card, before any geometry)
    faults = topology.fault_edges if topology is not None else set()
    offsets = parallel_offsets(plane)
    strokes: dict[tuple[str, float, tuple[float, ...]], StrokeBatch] = {}
    arrows: dict[str, FillBatch] = {}
    labels: list[Pill] = []
    edge_paths: list[EdgePath] = []
    nodes = plane.nodes
    far = lod == "far"
    drawn = 0  # edges drawn (the level of detail counts edges, not the pieces of curves)
    margin = 140.0
    vx0, vy0, vx1, vy1 = view[0] - margin, view[1] - margin, view[2] + margin, view[3] + margin
    for edge in plane.edges.values():
        a = nodes.get(edge.a)
        b = nodes.get(edge.b)
        if a is None or b is None or a is b:
            continue
        if (
            (a.x < vx0 and b.x < vx0)
            or (a.x > vx1 and b.x > vx1)
            or (a.y < vy0 and b.y < vy0)
            or (a.y > vy1 and b.y > vy1)
        ):
            continue
        off = 0.0
        if far:  # centre to centre: borders and parallel offsets are under a pixel there
            if a.x == b.x and a.y == b.y:
                continue
            ax, ay, bx, by = a.x, a.y, b.x, b.y
        else:
            off = offsets.get(edge.id, 0.0)
            seg = _segment(a, b, edge, off)
            if seg is None:
                continue
            ax, ay, bx, by = seg
            if off != 0.0 and edge.a > edge.b:
                off = -off  # (signed in the frame of the edge's own direction)
        kind = edge.props.kind
        strength = edge.props.strength
        w = _WIDTHS[strength]
        dash: tuple[float, ...]
        keep = True
        if edge.id == selected_edge:
            color, dash = theme.EDGE_SELECTED, ()
            w += 1.0
        elif edge.id in cut_edges:
            color, dash = theme.CUT_COLOR, ()
            w = max(w + 1.5, 3.0)
        elif edge.id in loop_edges:
            color, dash = theme.LOOP_COLOR[loop_class], ()
            w = max(w + 1.5, 3.0)
        elif edge.id in faults:
            keep = False
            color, dash = theme.FAULT_COLOR, theme.FAULT_DASH
            w = max(w, 2.2)
        else:
            keep = False
            color, dash = theme.EDGE_COLOR[kind], ()
        key = (color, w, dash)
        batch = strokes.get(key)
        if batch is None:
            batch = strokes[key] = StrokeBatch(color, w, dash, keep=keep)
        drawn += 1
        first = len(batch.segments)
        directed = kind in DIRECTED and not far  # (far: hairlines without arrowheads)
        sx, sy = ax, ay
        if off != 0.0:  # a curve: its first pieces, then the last one as a straight edge's line
            points, ux, uy = curve(ax, ay, bx, by, off)
            segments = batch.segments
            for k in range(0, 2 * CURVE_PIECES - 2, 2):
                segments.extend((points[k], points[k + 1], points[k + 2], points[k + 3]))
            sx, sy = points[-2], points[-1]
        elif directed:
            length = math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay))
            ux, uy = (bx - ax) / length, (by - ay) / length
        if directed:
            size = 8.0 + strength
            # stop the line at the arrow's base so the tip stays sharp
            batch.segments.extend((sx, sy, bx - ux * size * 0.8, by - uy * size * 0.8))
            px, py = -uy * size * 0.45, ux * size * 0.45
            base_x, base_y = bx - ux * size, by - uy * size
            arrow = arrows.get(color)
            if arrow is None:
                arrow = arrows[color] = FillBatch(color)
            head: tuple[float, ...] = (bx, by, base_x + px, base_y + py, base_x - px, base_y - py)
            arrow.triangles.extend(head)
            if edge.props.polarity is not None and zoom >= GREEK_ZOOM:
                labels.append(polarity_pill(bx, by, ux, uy, size, edge.props.polarity, theme.EDGE_COLOR[kind]))
        else:
            batch.segments.extend((sx, sy, bx, by))
            head = ()
        if detail:
            edge_paths.append(EdgePath(edge.id, color, w, dash, tuple(batch.segments[first:]), head))
        if edge.props.label and zoom >= GREEK_ZOOM:
            text = label_text(edge.props.label)
            lw = measure(text, theme.LABEL_FONT) + 12
            lx, ly = curve_label(ax, ay, bx, by, off, lw) if off != 0.0 else ((ax + bx) / 2, (ay + by) / 2)
            labels.append(
                Pill(lx, ly, lw, 16, text, theme.LABEL_FONT, theme.LABEL_FILL, theme.LABEL_TEXT,
                     theme.EDGE_COLOR[kind])
            )  # fmt: skip

    # (the selected edge and the edges shown on request go on top)
    edge_batches = [b for b in strokes.values() if not b.keep] + [b for b in strokes.values() if b.keep]
    arrow_batches = list(arrows.values())
    if not detail and (lod == "far" or drawn > EDGE_DETAIL_LIMIT):
        edge_batches, arrow_batches, labels = _hairlines(edge_batches, lod == "far"), [], []

    # -- nodes
    card_of = cards if callable(cards) else (lambda node: cards.get(node.id))
    pulse = round(FROZEN_PULSE if still else pulse_value(time_ms), 4)
    greek = zoom < GREEK_ZOOM
    card_list: list[Card] = []
    dim: list[float] = []
    for node in plane.nodes.values():
        w, h = node.width, node.height
        x0, y0 = node.x - w / 2, node.y - h / 2
        if x0 + w < view[0] or x0 > view[2] or y0 + h < view[1] or y0 > view[3]:
            continue
        if node.id in dimmed:
            dim.extend((x0 - 1, y0 - 1, w + 2, h + 2))
        layout = card_of(node)
        lines = layout.lines if layout is not None and node.id != editing else ()
        decorations: tuple[RectBatch, ...] = ()
        if lines and not greek:
            decorations = _decorations(lines, x0, y0, w)
        stargate = node.type == "stargate"
        card_list.append(
            Card(node.id, x0, y0, w, h, node.type, theme.STARGATE_BORDER if stargate else theme.CARD_BORDER,
                 2.0 if stargate else 1.0, theme.HEADER_FILL[node.type], lines,
                 "STARGATE" if stargate else "", not node.text.strip(), greek,
                 decorations, node.id in selection, node.pinned and pins, pulse if node.id in pulsing else 0.0)
        )  # fmt: skip
    marks: list[Marker] = []
    for loop in markers:
        mark = loop_marker(plane, loop)
        if mark is not None and visible(mark.x - MARKER_DISK, mark.y - MARKER_DISK, mark.x + MARKER_DISK,
                                        mark.y + MARKER_DISK):  # fmt: skip
            marks.append(mark)
    named = name_tags(plane, tags, zoom, measure, view, theme.LOOP_COLOR[loop_class]) if lod != "detail" else []
    return Scene(
        width,
        height,
        (cam.x, cam.y, zoom),
        theme.BACKGROUND,
        grid,
        halos,
        edge_batches,
        arrow_batches,
        labels,
        card_list,
        overlay_of(plane, interaction, zoom, measure, view) if interaction is not None else Overlay(),
        dim,
        lod,
        edge_paths,
        marks,
        named,
    )


def name_tags(
    plane: Plane, node_ids: Sequence[str], zoom: float, measure: Measure, view: tuple[float, ...], border: str
) -> list[Pill]:
    """The name tags of the cards ``node_ids`` (the first ``theme.TAG_MAX``) in ``view``: each
    card's name (``tag_name``) in a pill centred on it, of ``theme.TAG_FONT``'s size on the
    screen at ``zoom`` (world units of 1 / zoom px); one that would cover a tag placed before it
    is moved down or up, clear of them when it can be. A card without text has none.
    O(TAG_MAX²) at most."""
    size, scale = float(theme.TAG_FONT.split("px")[0].rsplit(" ", 1)[-1]), 1 / zoom  # (as the page works it out)
    font = theme.TAG_FONT.replace(f"{size:g}px", f"{js_number(size * scale)}px")
    out: list[Pill] = []
    for node_id in node_ids[: theme.TAG_MAX]:
        node = plane.nodes.get(node_id)
        name = tag_name(node.text) if node is not None else ""
        if node is None or not name:
            continue
        w, h = (measure(name, theme.TAG_FONT) + 2 * theme.TAG_PAD) * scale, theme.TAG_HEIGHT * scale
        x, y = node.x, node.y
        if not (x + w / 2 >= view[0] and x - w / 2 <= view[2] and y + h / 2 >= view[1] and y - h / 2 <= view[3]):
            continue
        # (over a tag already placed: moved down, then up, a tag's height at a time, up to 4 each way)
        gap, y0 = 2 * scale, y
        for attempt in range(8):
            if not _tag_over(out, x, y, w, h, gap):
                break
            step = attempt // 2 + 1
            y = y0 + (step if attempt % 2 == 0 else -step) * (h + gap)
        out.append(Pill(x, y, w, h, name, font, theme.MARKER_FILL, theme.TEXT["body"], border))
    return out


def _tag_over(tags: list[Pill], x: float, y: float, w: float, h: float, gap: float) -> bool:
    """Whether a tag of width ``w``, height ``h`` centred at (x, y) comes within ``gap`` of one of
    ``tags``. O(len(tags))."""
    return any(abs(t.x - x) < (t.width + w) / 2 + gap and abs(t.y - y) < (t.height + h) / 2 + gap for t in tags)


#: the gap (screen px) the κ pill of a dragged connection keeps from the window's edges
PILL_MARGIN = 6.0


def overlay_of(
    plane: Plane,
    view: InteractionView,
    zoom: float,
    measure: Measure,
    bounds: tuple[float, float, float, float] | None = None,
) -> Overlay:
    """The marks of a gesture at ``zoom`` (sizes stay constant on screen). ``bounds``: the
    world box on the screen (x0, y0, x1, y1); the κ pill stays inside it (it goes below the
    target when there is no room above, and slides sideways at the left and right edges). O(1).

    >>> from bendscope.bend.model.elements import Node
    >>> p = Plane("p", "P")
    >>> p.add_node(Node("a", "a", x=0.0, y=0.0)); p.add_node(Node("b", "b", x=390.0, y=10.0))
    >>> link = InteractionView(handle="a", link=LinkView("a", (390.0, 10.0), "b", "→ b (κ: 0→1)", True))
    >>> pill = overlay_of(p, link, 1.0, lambda text, font: 100.0, (0.0, 0.0, 390.0, 844.0)).label
    >>> (pill.x + pill.width / 2, pill.y - pill.height / 2)
    (384.0, 33.0)
    """
    nodes = plane.nodes
    handle = None
    source = nodes.get(view.handle) if view.handle is not None else None
    if source is not None:
        handle = (source.x + source.width / 2, source.y, theme.HANDLE_RADIUS / zoom)
    brush = None
    if view.brush is not None:
        x0, y0, x1, y1 = view.brush
        brush = (x0, y0, x1 - x0, y1 - y0)
    link = ring = label = None
    color = ""
    if view.link is not None and source is not None:
        tx, ty = view.link.to
        link = (source.x + source.width / 2, source.y, tx, ty)
        color = theme.LINK_CHANGE if view.link.changes else theme.LINK_COLOR
        target = nodes.get(view.link.target) if view.link.target is not None else None
        if target is not None:
            pad = 4.0 / zoom
            ring = (target.x - target.width / 2 - pad, target.y - target.height / 2 - pad,
                    target.width + 2 * pad, target.height + 2 * pad)  # fmt: skip
        if view.link.label:
            size = 1.0 / zoom
            width = (measure(view.link.label, theme.LINK_FONT) + 16) * size
            lx, ly, height = tx, ty - 34 * size, 22 * size
            if bounds is not None:
                margin = PILL_MARGIN * size
                if ly - height / 2 < bounds[1] + margin:  # no room above: below the target
                    ly = ty + 34 * size
                left, right = bounds[0] + margin + width / 2, bounds[2] - margin - width / 2
                lx = left if right < left else min(max(lx, left), right)
                ly = min(max(ly, bounds[1] + margin + height / 2), bounds[3] - margin - height / 2)
            label = Pill(lx, ly, width, height, view.link.label, theme.LINK_FONT,
                         theme.LINK_FILL, color, color)  # fmt: skip
    return Overlay(handle, brush, link, color, ring, label)


#: Level of detail: with more edges than this in view, they are drawn as hairlines (one
#: device pixel, ``width`` 0; the selected edge keeps its width) without arrowheads or
#: labels. A software rasteriser draws 20,000 long hairlines in ~60 ms but the same lines
#: 1.5 px wide in ~1 s (and their arrowheads in ~0.9 s); at that density the styles are
#: not readable anyway.
EDGE_DETAIL_LIMIT = 2000
HAIRLINE = 0.0


def _hairlines(batches: list[StrokeBatch], far: bool = False) -> list[StrokeBatch]:
    """The batches merged by colour and dash, at hairline width (order kept). ``far``: no
    dashes either (a dash of a few world px is under a device pixel there, and dashing long
    lines into sub-pixel pieces costs the rasteriser hundreds of ms). O(segments)."""
    merged: dict[tuple[str, tuple[float, ...]], StrokeBatch] = {}
    kept: list[StrokeBatch] = []
    for batch in batches:
        if batch.keep:  # the selected edge and the edges shown on request keep their width
            kept.append(batch)
            continue
        dash = () if far else batch.dash
        key = (batch.color, dash)
        target = merged.get(key)
        if target is None:
            target = merged[key] = StrokeBatch(batch.color, HAIRLINE, dash)
        target.segments.extend(batch.segments)
    return [*merged.values(), *kept]


def _decorations(lines: tuple[TextLine, ...], x0: float, y0: float, width: float) -> tuple[RectBatch, ...]:
    quote: list[float] = []
    code: list[float] = []
    links: list[float] = []
    for ln in lines:
        if ln.style == "quote":
            quote.extend((x0 + 10, y0 + ln.y - 11, 2.5, 15.0))
        elif ln.style == "code":
            code.extend((x0 + 8, y0 + ln.y - 11, width - 16, 15.0))
        for run in ln.runs:
            if run.kind == "code":  # an inline code span's background
                code.extend((x0 + ln.x + run.dx - 2, y0 + ln.y - 10, run.width + 4, 13.0))
            elif run.kind == "link":  # a link's underline
                links.extend((x0 + ln.x + run.dx, y0 + ln.y + 2, run.width, 1.0))
    out = []
    if code:
        out.append(RectBatch(theme.CODE_FILL, code))
    if quote:
        out.append(RectBatch(theme.QUOTE_BAR, quote))
    if links:
        out.append(RectBatch(theme.RUN_COLOR["link"], links))
    return tuple(out)


def _rough_measure(text: str, font: str) -> float:
    size = float(font.split("px")[0].split()[-1])
    return len(text) * size * 0.6
