"""The draw list: a scene grouped into what one canvas call each draws, in draw order.

``draw_list(scene)`` is the reference the page's own geometry (static/scene.js) is tested
against: the page computes the same lists from a scene plan (bend.render.sceneplan) and the
positions of the frame, without Python building a Scene per frame. Everything here is
flat float lists in world units, grouped by style, so the number of canvas calls grows
with the number of styles, never with the number of items.

A card's *art* — its text items, greek bars and decorations relative to its top-left
corner — is the same for every frame, so it is made once per card (``card_art``) and
only offset here (and in the page).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bendscope.bend.render import theme
from bendscope.bend.render.scene import Card, Halo, Marker, Pill, Scene, _decorations
from bendscope.bend.render.textlayout import FONTS, HEADER, TextLine, run_font

#: a text item of a card: font, colour, dx, dy (baseline) from the card's top-left, text
TextItem = tuple[str, str, float, float, str]


@dataclass(frozen=True)
class CardArt:
    """What a card shows apart from its box, relative to its top-left corner."""

    items: tuple[TextItem, ...]  # text runs, list markers, then the header (detail zoom)
    bars: tuple[float, ...]  # x, y, w, h per line: the greek level of detail
    decorations: tuple[tuple[str, tuple[float, ...]], ...]  # (colour, flat x, y, w, h …): detail zoom


def card_art(lines: tuple[TextLine, ...], node_type: str, header: str, placeholder: bool, width: float) -> CardArt:
    """The art of a card of ``width`` showing ``lines`` (in the active theme). O(lines + runs).

    >>> from bendscope.bend.render.textlayout import TextLine
    >>> art = card_art((TextLine("Hi", "body", 10.0, 30.0),), "stargate", "STARGATE", False, 140.0)
    >>> [item[4] for item in art.items], art.bars
    (['Hi', 'STARGATE'], (10.0, 23.0, 11.0, 6.0))
    """
    items: list[TextItem] = []
    bars: list[float] = []
    body_font = FONTS["body"]
    limit = width - 20
    for line in lines:
        color = theme.PLACEHOLDER_TEXT if placeholder else theme.TEXT[line.style]
        for run in line.runs:  # inline markup: each run in its own font and colour
            items.append((run_font(line.style, run.kind), theme.RUN_COLOR.get(run.kind, color), line.x + run.dx,
                          line.y, run.text))  # fmt: skip
        if not line.runs:
            items.append((FONTS[line.style], color, line.x, line.y, line.text))
        if line.marker:
            items.append((body_font, color, line.x - 10, line.y, line.marker))
        length = min(limit - line.x + 10, len(line.text) * (7.5 if line.style == "h1" else 5.5))
        if length > 0:
            bars.extend((line.x, line.y - 7, length, 6.0))
    if header:
        items.append((theme.HEADER_FONT, theme.HEADER_TEXT[node_type], 10.0, HEADER - 4, header))
    decorations = tuple((d.color, tuple(d.rects)) for d in _decorations(lines, 0.0, 0.0, width))
    return CardArt(tuple(items), tuple(bars), decorations)


def art_of(card: Card) -> CardArt:
    return card_art(card.lines, card.node_type, card.header, card.placeholder, card.width)


@dataclass
class HaloLayer:
    """The halos of one κ level: member boxes and bands in one path (a nonzero union).
    ``simple`` (level of detail): filled only, plain corners, no outline."""

    fill: str
    stroke: str
    rects: list[float] = field(default_factory=list)
    quads: list[float] = field(default_factory=list)
    simple: bool = False


@dataclass
class CardLayer:
    """Every visible card, grouped. ``far``: the far level of detail (boxes only)."""

    far: bool = False
    normal: list[float] = field(default_factory=list)  # x, y, w, h
    stargate: list[float] = field(default_factory=list)
    headers: dict[str, list[float]] = field(default_factory=dict)  # fill → x, y, w
    decorations: dict[str, list[float]] = field(default_factory=dict)  # colour → x, y, w, h
    pulses: dict[float, list[float]] = field(default_factory=dict)  # alpha → x, y, w, h
    pins: list[float] = field(default_factory=list)  # x, y
    selected: list[float] = field(default_factory=list)  # x, y, w, h (the ring)
    bars: list[float] = field(default_factory=list)  # x, y, w, h
    texts: dict[tuple[str, str], tuple[list[str], list[float]]] = field(default_factory=dict)


@dataclass
class DrawList:
    halos: list[HaloLayer]
    edges: list[tuple[str, float, tuple[float, ...], list[float]]]  # colour, width, dash, segments
    arrows: list[tuple[str, list[float]]]  # colour, triangles
    labels: list[Pill]
    cards: CardLayer
    dim: list[float]
    badges: list[Pill]
    markers: list[Marker] = field(default_factory=list)
    tags: list[Pill] = field(default_factory=list)


def halo_layers(halos: list[Halo]) -> list[HaloLayer]:
    """Halos merged per (fill, stroke), in first-seen order. O(parts)."""
    layers: dict[tuple[str, str], HaloLayer] = {}
    for halo in halos:
        layer = layers.get((halo.fill, halo.stroke))
        if layer is None:
            layer = layers[(halo.fill, halo.stroke)] = HaloLayer(halo.fill, halo.stroke, simple=halo.simple)
        layer.rects.extend(halo.rects)
        layer.quads.extend(halo.links)
        layer.simple = layer.simple or halo.simple
    return list(layers.values())


def card_layer(cards: list[Card], far: bool) -> CardLayer:
    """The visible cards grouped by what draws them. O(cards + their text items)."""
    layer = CardLayer(far=far)
    for c in cards:
        x0, y0, cw, ch = c.x, c.y, c.width, c.height
        (layer.stargate if c.node_type == "stargate" else layer.normal).extend((x0, y0, cw, ch))
        if c.selected:
            layer.selected.extend((x0 - 4, y0 - 4, cw + 8, ch + 8))
        if far:
            continue
        layer.headers.setdefault(c.header_fill, []).extend((x0, y0, cw))
        if c.pulse:
            layer.pulses.setdefault(c.pulse, []).extend((x0, y0, cw, ch))
        if c.pinned:
            layer.pins.extend((x0 + cw - 10, y0 + 7))
        if not c.lines:
            if c.header and not c.greek:
                art = art_of(c)
                _add_texts(layer, art.items[-1:], x0, y0)
            continue
        art = art_of(c)
        if c.greek:  # level of detail: bars instead of glyphs
            bars = art.bars
            layer.bars.extend(bars[i] + (x0 if i % 4 == 0 else y0 if i % 4 == 1 else 0.0) for i in range(len(bars)))
            continue
        for color, rects in art.decorations:
            layer.decorations.setdefault(color, []).extend(
                rects[i] + (x0 if i % 4 == 0 else y0 if i % 4 == 1 else 0.0) for i in range(len(rects))
            )
        _add_texts(layer, art.items, x0, y0)
    return layer


def _add_texts(layer: CardLayer, items: tuple[TextItem, ...], x0: float, y0: float) -> None:
    for font, color, dx, dy, text in items:
        group = layer.texts.get((font, color))
        if group is None:
            group = layer.texts[(font, color)] = ([], [])
        group[0].append(text)
        group[1].extend((x0 + dx, y0 + dy))


def draw_list(scene: Scene) -> DrawList:
    """The scene grouped for drawing (see the module docstring). O(size of the scene)."""
    return DrawList(
        halo_layers(scene.halos),
        [(b.color, b.width, b.dash, b.segments) for b in scene.edges],
        [(b.color, b.triangles) for b in scene.arrows],
        list(scene.labels),
        card_layer(scene.cards, scene.lod == "far"),
        list(scene.dim),
        [halo.badge for halo in scene.halos],
        list(scene.markers),
        list(scene.tags),
    )
