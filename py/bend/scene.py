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
from dataclasses import dataclass, field

from . import theme
from .geometry import border_point
from .model import Edge, Plane
from .textlayout import FONTS, HEADER, CardLayout
from .topology import Topology

DIRECTED = ("causal", "temporal")


@dataclass(frozen=True)
class Grid:
    spacing: float  # screen px
    offset_x: float
    offset_y: float
    color: str


@dataclass
class StrokeBatch:
    color: str
    width: float
    dash: tuple[float, ...] = ()
    path: list[str] = field(default_factory=list)  # SVG path commands, joined by the painter


@dataclass
class FillBatch:
    color: str
    path: list[str] = field(default_factory=list)


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
class Halo:
    scc_id: str
    kappa: int
    x: float
    y: float
    width: float
    height: float
    fill: str
    stroke: str
    badge: Pill


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    font: str
    color: str


@dataclass(frozen=True)
class Card:
    node_id: str
    x: float  # top-left
    y: float
    width: float
    height: float
    node_type: str
    border: str
    border_width: float
    header_fill: str
    texts: tuple[Text, ...]
    decorations: tuple[FillBatch, ...]  # quote bars, code backgrounds
    selected: bool
    pinned: bool
    pulse: float  # 0 = none, else border emphasis 0.4..1.0 (nodes in an SCC with κ > 0)


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

    def edge_styles(self) -> dict[tuple[str, float, tuple[float, ...]], int]:
        """(colour, width, dash) → number of segments (tests and benchmarks)."""
        return {(b.color, b.width, b.dash): sum(1 for c in b.path if c.startswith("M")) for b in self.edges}


def edge_width(strength: int) -> float:
    return round(0.8 + 0.55 * strength, 2)


def parallel_offsets(plane: Plane) -> dict[str, float]:
    """Sideways offsets (world px) so edges between the same two nodes do not overlap."""
    groups: dict[tuple[str, str], list[Edge]] = {}
    for edge in plane.edges.values():
        key = (edge.a, edge.b) if edge.a <= edge.b else (edge.b, edge.a)
        groups.setdefault(key, []).append(edge)
    offsets = {}
    for edges in groups.values():
        count = len(edges)
        for i, edge in enumerate(edges):
            # measured in the frame of the sorted pair (see edge_segment), so a→b and b→a separate
            offsets[edge.id] = (i - (count - 1) / 2) * 7.0
    return offsets


def edge_segment(plane: Plane, edge: Edge, offset: float | None = None) -> tuple[float, float, float, float] | None:
    """The drawn segment of an edge: border to border, shifted by its parallel offset."""
    a = plane.nodes.get(edge.a)
    b = plane.nodes.get(edge.b)
    if a is None or b is None or a is b:
        return None
    if offset is None:
        offset = parallel_offsets(plane).get(edge.id, 0.0)
    dx, dy = b.x - a.x, b.y - a.y
    length = math.hypot(dx, dy)
    if length < 1e-6:
        return None
    # perpendicular of the sorted-pair direction, so both directions use one frame
    sign = 1.0 if edge.a <= edge.b else -1.0
    nx, ny = -dy / length * offset * sign, dx / length * offset * sign
    ax, ay = border_point(a.x, a.y, a.width, a.height, b.x, b.y)
    bx, by = border_point(b.x, b.y, b.width, b.height, a.x, a.y)
    if (bx - ax) * dx + (by - ay) * dy <= 0:  # cards overlap: nothing to draw between them
        return None
    return ax + nx, ay + ny, bx + nx, by + ny


def _round_rect(x: float, y: float, w: float, h: float, r: float) -> str:
    r = min(r, w / 2, h / 2)
    return (
        f"M{x + r:.2f} {y:.2f}H{x + w - r:.2f}Q{x + w:.2f} {y:.2f} {x + w:.2f} {y + r:.2f}"
        f"V{y + h - r:.2f}Q{x + w:.2f} {y + h:.2f} {x + w - r:.2f} {y + h:.2f}"
        f"H{x + r:.2f}Q{x:.2f} {y + h:.2f} {x:.2f} {y + h - r:.2f}"
        f"V{y + r:.2f}Q{x:.2f} {y:.2f} {x + r:.2f} {y:.2f}Z"
    )


round_rect_path = _round_rect


def halo_fill(kappa: int) -> tuple[str, str]:
    level = min(max(kappa, 1), 3)
    return theme.HALO_FILL[level], theme.HALO_STROKE[level]


def badge_text(kappa: int, approximate: bool) -> str:
    return f"κ{'≈' if approximate else '='}{kappa}"


def pulse_value(t_ms: float) -> float:
    """The spec's pulse: sin(t/1000)·0.3 + 0.7."""
    return math.sin(t_ms / 1000.0) * 0.3 + 0.7


FROZEN_PULSE = 1.0  # ?still=1: the pulse is frozen at its brightest


def build_scene(
    plane: Plane,
    cards: dict[str, CardLayout],
    *,
    viewport: tuple[float, float],
    selection: frozenset[str] | set[str] = frozenset(),
    selected_edge: str | None = None,
    topology: Topology | None = None,
    time_ms: float = 0.0,
    still: bool = False,
    editing: str | None = None,
    measure=None,
) -> Scene:
    """Decide everything drawn for ``plane`` at its camera in a ``viewport`` (CSS px).

    ``cards`` maps node id → its CardLayout; ``measure(text, font)`` sizes pills.
    O(n + m) plus culling.
    """
    width, height = viewport
    cam = plane.camera
    zoom = cam.zoom
    half_w, half_h = width / 2 / zoom, height / 2 / zoom
    view = (cam.x - half_w, cam.y - half_h, cam.x + half_w, cam.y + half_h)
    measure = measure or _rough_measure

    spacing = theme.GRID_SPACING * zoom
    while spacing < 10:
        spacing *= 2
    grid = Grid(
        round(spacing, 4),
        round((width / 2 - cam.x * zoom) % spacing, 4),
        round((height / 2 - cam.y * zoom) % spacing, 4),
        theme.GRID_DOT,
    )

    def visible(x0: float, y0: float, x1: float, y1: float) -> bool:
        return x1 >= view[0] and x0 <= view[2] and y1 >= view[1] and y0 <= view[3]

    # -- topology: halos and badges for SCCs with κ > 0
    halos: list[Halo] = []
    pulsing: set[str] = set()
    if topology is not None:
        for scc in topology.result["sccs"]:
            if scc["kappa"] <= 0:
                continue
            members = [plane.nodes[n] for n in scc["nodes"] if n in plane.nodes]
            if not members:
                continue
            pulsing.update(n.id for n in members)
            x0 = min(n.x - n.width / 2 for n in members) - theme.HALO_PAD
            y0 = min(n.y - n.height / 2 for n in members) - theme.HALO_PAD
            x1 = max(n.x + n.width / 2 for n in members) + theme.HALO_PAD
            y1 = max(n.y + n.height / 2 for n in members) + theme.HALO_PAD
            if not visible(x0, y0, x1, y1):
                continue
            text = badge_text(scc["kappa"], scc["approximate"])
            bw = measure(text, theme.BADGE_FONT) + 12
            badge = Pill(x1 - bw / 2 - 6, y0 + 10, bw, 16, text, theme.BADGE_FONT, theme.BADGE_FILL, theme.BADGE_TEXT)
            fill, stroke = halo_fill(scc["kappa"])
            halos.append(Halo(scc["id"], scc["kappa"], x0, y0, x1 - x0, y1 - y0, fill, stroke, badge))

    # -- edges
    faults = topology.fault_edges if topology is not None else set()
    offsets = parallel_offsets(plane)
    strokes: dict[tuple[str, float, tuple[float, ...]], StrokeBatch] = {}
    arrows: dict[str, FillBatch] = {}
    labels: list[Pill] = []
    for edge in plane.edges.values():
        seg = edge_segment(plane, edge, offsets.get(edge.id, 0.0))
        if seg is None:
            continue
        ax, ay, bx, by = seg
        if not visible(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)):
            continue
        kind = edge.props.kind
        w = edge_width(edge.props.strength)
        if edge.id == selected_edge:
            color, dash = theme.EDGE_SELECTED, ()
            w += 1.0
        elif edge.id in faults:
            color, dash = theme.FAULT_COLOR, theme.FAULT_DASH
            w = max(w, 2.2)
        else:
            color, dash = theme.EDGE_COLOR[kind], ()
        key = (color, w, dash)
        batch = strokes.get(key)
        if batch is None:
            batch = strokes[key] = StrokeBatch(color, w, dash)
        if kind in DIRECTED:
            length = math.hypot(bx - ax, by - ay)
            ux, uy = (bx - ax) / length, (by - ay) / length
            size = 8.0 + edge.props.strength
            # stop the line at the arrow's base so the tip stays sharp
            batch.path.append(f"M{ax:.2f} {ay:.2f}L{bx - ux * size * 0.8:.2f} {by - uy * size * 0.8:.2f}")
            px, py = -uy * size * 0.45, ux * size * 0.45
            base_x, base_y = bx - ux * size, by - uy * size
            arrow = arrows.get(color)
            if arrow is None:
                arrow = arrows[color] = FillBatch(color)
            arrow.path.append(
                f"M{bx:.2f} {by:.2f}L{base_x + px:.2f} {base_y + py:.2f}L{base_x - px:.2f} {base_y - py:.2f}Z"
            )
        else:
            batch.path.append(f"M{ax:.2f} {ay:.2f}L{bx:.2f} {by:.2f}")
        if edge.props.label:
            text = edge.props.label if len(edge.props.label) <= 40 else edge.props.label[:39] + "…"
            lw = measure(text, theme.LABEL_FONT) + 12
            labels.append(
                Pill(
                    (ax + bx) / 2,
                    (ay + by) / 2,
                    lw,
                    16,
                    text,
                    theme.LABEL_FONT,
                    theme.LABEL_FILL,
                    theme.LABEL_TEXT,
                    theme.EDGE_COLOR[kind],
                )
            )

    # -- nodes
    pulse = FROZEN_PULSE if still else pulse_value(time_ms)
    card_list: list[Card] = []
    for node in plane.nodes.values():
        x0, y0 = node.x - node.width / 2, node.y - node.height / 2
        if not visible(x0, y0, x0 + node.width, y0 + node.height):
            continue
        layout = cards.get(node.id)
        texts: list[Text] = []
        decorations: list[FillBatch] = []
        if layout is not None and node.id != editing:
            placeholder = not node.text.strip()
            quote_bars = FillBatch(theme.QUOTE_BAR)
            code_fill = FillBatch(theme.CODE_FILL)
            for line in layout.lines:
                color = theme.PLACEHOLDER_TEXT if placeholder else theme.TEXT[line.style]
                texts.append(Text(x0 + line.x, y0 + line.y, line.text, FONTS[line.style], color))
                if line.marker:
                    texts.append(Text(x0 + line.x - 10, y0 + line.y, line.marker, FONTS["body"], color))
                if line.style == "quote":
                    quote_bars.path.append(f"M{x0 + 10:.2f} {y0 + line.y - 11:.2f}h2.5v15h-2.5Z")
                elif line.style == "code":
                    code_fill.path.append(
                        f"M{x0 + 8:.2f} {y0 + line.y - 11:.2f}h{node.width - 16:.2f}v15h{16 - node.width:.2f}Z"
                    )
            decorations = [b for b in (code_fill, quote_bars) if b.path]
        header = "STARGATE" if node.type == "stargate" else ("PINNED" if node.pinned else "")
        if header:
            texts.append(Text(x0 + 10, y0 + HEADER - 4, header, theme.HEADER_FONT, theme.HEADER_TEXT[node.type]))
        stargate = node.type == "stargate"
        card_list.append(
            Card(
                node.id,
                x0,
                y0,
                node.width,
                node.height,
                node.type,
                theme.STARGATE_BORDER if stargate else theme.CARD_BORDER,
                2.0 if stargate else 1.0,
                theme.HEADER_FILL[node.type],
                tuple(texts),
                tuple(decorations),
                node.id in selection,
                node.pinned,
                round(pulse, 4) if node.id in pulsing else 0.0,
            )
        )
    return Scene(
        width,
        height,
        (cam.x, cam.y, zoom),
        theme.BACKGROUND,
        grid,
        halos,
        list(strokes.values()),
        list(arrows.values()),
        labels,
        card_list,
    )


def _rough_measure(text: str, font: str) -> float:
    size = float(font.split("px")[0].split()[-1])
    return len(text) * size * 0.6
