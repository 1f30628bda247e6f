"""What the memory has ended, drawn as ended: the cards and edges of a served document that do
not hold (``data.memory.holds`` false) are never part of the page's document — so never
counted in κ, the halos, the loops or the HUD — but the person may ask to see them (Show ended
in the time panel): each ended card is drawn where the page last had it (else beside its
neighbours), faded, dashed and its text struck through; each ended edge as a faded dashed line
with a cross at its middle. The same marks go into the canvas, the PNG and the SVG images.

This module decides what is drawn where (:func:`ended_of`, :func:`place`) and writes the SVG
(:func:`ghosts_svg`); the page's ``app.timecontrol`` draws the same on its canvases.

>>> doc = {"planes": [{"nodes": [{"id": "a", "text": "Ice"}, {"id": "b", "text": "Albedo",
...     "data": {"memory": {"holds": False}}}], "edges": [{"id": "ab", "a": "a", "b": "b",
...     "props": {"kind": "causal"}, "data": {"memory": {"holds": True}}}]}]}
>>> ended_of(doc)
({'b': 'Albedo'}, {'ab': ('a', 'b', 'causal')})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

from ..render import theme
from .time_travel import holds

#: an ended card's box (world px): one line of its text, struck through
GHOST_W = 176.0
GHOST_H = 40.0
#: characters of an ended card's text drawn (the rest: …)
GHOST_CHARS = 24
#: how opaque the ended marks are
GHOST_ALPHA = 0.55
#: ended items drawn at most (the page's view of a memory is ≤ 3,000 cards)
MAX_GHOSTS = 5_000
#: how far from its neighbours an ended card without a place of its own is put (world px)
GHOST_RADIUS = 150.0

Box = tuple[float, float, float, float]  # centre x, centre y, width, height


@dataclass(frozen=True)
class GhostCard:
    """An ended card as drawn: its id, its text (one line), its box's top-left corner and size."""

    id: str
    text: str
    x: float
    y: float
    w: float = GHOST_W
    h: float = GHOST_H


@dataclass(frozen=True)
class GhostEdge:
    """An ended edge as drawn: from the edge of one box to the edge of the other."""

    id: str
    kind: str
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True)
class Ghosts:
    cards: tuple[GhostCard, ...] = ()
    edges: tuple[GhostEdge, ...] = ()

    def __len__(self) -> int:
        return len(self.cards) + len(self.edges)


def ended_of(
    document: Mapping[str, Any], ended_cards: Mapping[str, str] | None = None
) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """The ended cards (id → text) and edges (id → (a, b, kind)) of a served document: those that
    do not hold, and the edges of a card that does not (``ended_cards``: cards known to have
    ended besides the document's). O(cards + edges)."""
    cards: dict[str, str] = dict(ended_cards or {})
    edges: dict[str, tuple[str, str, str]] = {}
    for plane in document.get("planes") or []:
        if not isinstance(plane, Mapping):
            continue
        for card in plane.get("nodes") or []:
            if isinstance(card, Mapping) and not holds(card) and isinstance(card.get("id"), str):
                cards[card["id"]] = str(card.get("text") or "")
        for edge in plane.get("edges") or []:
            if not isinstance(edge, Mapping) or not isinstance(edge.get("id"), str):
                continue
            a, b = edge.get("a"), edge.get("b")
            if isinstance(a, str) and isinstance(b, str) and (not holds(edge) or a in cards or b in cards):
                props = edge.get("props")
                kind = props.get("kind") if isinstance(props, Mapping) else None
                edges[edge["id"]] = (a, b, str(kind or "associative"))
    return cards, edges


def ended_after(
    ended: tuple[dict[str, str], dict[str, tuple[str, str, str]]],
    after: Mapping[str, Mapping[str, Mapping[str, Any]]],
    changes: Mapping[str, Any],
) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """:func:`ended_of` of the served state ``after`` (its ``nodes`` and ``edges``, id → record,
    as ``bend.live.delta.Remote`` holds them), from ``ended``, the ended items before, and the
    delta that led there (``changes``, checked): O(changes), and O(edges) when a card begins or
    stops to hold (its edges follow it). Equal to ``ended_of`` as dicts.

    >>> before = {"nodes": {"a": {"id": "a"}, "b": {"id": "b"}}, "edges": {}}
    >>> gone = {"id": "b", "text": "B", "data": {"memory": {"holds": False}}}
    >>> after = {"nodes": {"a": {"id": "a"}, "b": gone}, "edges": {"ab": {"id": "ab", "a": "a", "b": "b"}}}
    >>> changes = {"nodes": [gone], "edges": [after["edges"]["ab"]], "removed_nodes": [], "removed_edges": []}
    >>> ended_after(ended_of({"planes": [{"nodes": [], "edges": []}]}), after, changes)
    ({'b': 'B'}, {'ab': ('a', 'b', 'associative')})
    """
    cards, edges = dict(ended[0]), dict(ended[1])
    flipped = False
    for node_id in changes.get("removed_nodes") or ():
        flipped |= cards.pop(node_id, None) is not None
    for card in changes.get("nodes") or ():
        node_id, was = card["id"], card["id"] in cards
        if not holds(card):
            cards[node_id] = str(card.get("text") or "")
        elif was:
            del cards[node_id]
        flipped |= was == holds(card)
    if flipped:  # (a card's edges follow it)
        return cards, ended_of({"planes": [{"nodes": [], "edges": list(after["edges"].values())}]}, cards)[1]
    for edge_id in changes.get("removed_edges") or ():
        edges.pop(edge_id, None)
    for edge in changes.get("edges") or ():
        edges.pop(edge["id"], None)
        edges.update(ended_of({"planes": [{"nodes": [], "edges": [edge]}]}, cards)[1])
    return cards, edges


def _clip(x1: float, y1: float, x2: float, y2: float, box: Box) -> tuple[float, float]:
    """Where the segment from the centre (x1, y1) of ``box`` towards (x2, y2) leaves the box."""
    _, _, w, h = box
    dx, dy = x2 - x1, y2 - y1
    if dx == 0 and dy == 0:
        return x1, y1
    scale = min(w / 2 / abs(dx) if dx else math.inf, h / 2 / abs(dy) if dy else math.inf, 1.0)
    return x1 + dx * scale, y1 + dy * scale


def place(
    boxes: Mapping[str, Box],
    cards: Mapping[str, str],
    edges: Mapping[str, tuple[str, str, str]],
    last: Mapping[str, tuple[float, float]],
) -> Ghosts:
    """Where the ended ``cards`` and ``edges`` are drawn, given the boxes of the cards shown
    (id → centre and size) and the places the page last had (``last``: id → centre). A card
    without a place goes beside its shown neighbours (at an angle of its own), or is left out
    with its edges; an edge is drawn between its ends' boxes, both shown or ended. At most
    MAX_GHOSTS items. O(cards + edges).

    >>> ghosts = place({"a": (0.0, 0.0, 100.0, 40.0)}, {"b": "Albedo"}, {"ab": ("a", "b", "causal")},
    ...                {"b": (300.0, 0.0)})
    >>> ghosts.cards[0].x, ghosts.edges[0].x1, ghosts.edges[0].x2
    (212.0, 50.0, 212.0)
    """
    where: dict[str, Box] = {}
    near: dict[str, list[Box]] = {}
    for a, b, _ in edges.values():
        for card, other in ((a, b), (b, a)):
            if card in cards and other in boxes:
                near.setdefault(card, []).append(boxes[other])
    for index, card_id in enumerate(sorted(cards)):
        if index >= MAX_GHOSTS:
            break
        at = last.get(card_id)
        if at is None and card_id in near:
            xs, ys = [b[0] for b in near[card_id]], [b[1] for b in near[card_id]]
            angle = (sum(map(ord, card_id)) % 360) / 180 * math.pi
            at = (
                sum(xs) / len(xs) + GHOST_RADIUS * math.cos(angle),
                sum(ys) / len(ys) + GHOST_RADIUS * math.sin(angle),
            )
        if at is not None and all(map(math.isfinite, at)):
            where[card_id] = (float(at[0]), float(at[1]), GHOST_W, GHOST_H)
    ghost_cards = tuple(
        GhostCard(i, _line(cards[i]), box[0] - box[2] / 2, box[1] - box[3] / 2) for i, box in where.items()
    )
    ghost_edges: list[GhostEdge] = []
    for edge_id, (a, b, kind) in sorted(edges.items()):
        one, two = where.get(a) or boxes.get(a), where.get(b) or boxes.get(b)
        if one is None or two is None or a == b or len(ghost_cards) + len(ghost_edges) >= MAX_GHOSTS:
            continue
        x1, y1 = _clip(one[0], one[1], two[0], two[1], one)
        x2, y2 = _clip(two[0], two[1], one[0], one[1], two)
        ghost_edges.append(GhostEdge(edge_id, kind, x1, y1, x2, y2))
    return Ghosts(ghost_cards, tuple(ghost_edges))


def _line(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= GHOST_CHARS else words[: GHOST_CHARS - 1] + "…"


def cross(edge: GhostEdge, size: float = 6.0) -> tuple[float, float, float, float, float, float, float, float]:
    """The two strokes of the cross at an ended edge's middle: (x1, y1, x2, y2) twice."""
    mx, my = (edge.x1 + edge.x2) / 2, (edge.y1 + edge.y2) / 2
    return (mx - size, my - size, mx + size, my + size, mx - size, my + size, mx + size, my - size)


def ghosts_svg(ghosts: Ghosts) -> ElementTree.Element:
    """The ended marks as an SVG group (``id="ended"``, world coordinates), each card's text
    as text. Colours are the active theme's."""
    group = ElementTree.Element("g", {"id": "ended", "opacity": f"{GHOST_ALPHA}"})
    lines = ElementTree.SubElement(group, "g", {"fill": "none", "stroke-width": "1.5", "stroke-dasharray": "6 4"})
    for edge in ghosts.edges:
        color = theme.EDGE_COLOR.get(edge.kind, theme.CARD_BORDER)
        line = ElementTree.SubElement(lines, "g", {"data-ended-edge": edge.id, "stroke": color})
        ElementTree.SubElement(line, "line", _xy(edge.x1, edge.y1, edge.x2, edge.y2))
        c = cross(edge)
        for k in (0, 4):
            ElementTree.SubElement(line, "line", {**_xy(*c[k : k + 4]), "stroke-dasharray": "none"})
    for card in ghosts.cards:
        node = ElementTree.SubElement(group, "g", {"data-ended-node": card.id})
        box = {"x": _n(card.x), "y": _n(card.y), "width": _n(card.w), "height": _n(card.h),
               "rx": _n(theme.CARD_RADIUS), "fill": theme.CARD_FILL, "stroke": theme.CARD_BORDER,
               "stroke-dasharray": "5 3"}  # fmt: skip
        ElementTree.SubElement(node, "rect", box)
        words = {"x": _n(card.x + 10), "y": _n(card.y + card.h / 2 + 4), "font-family": "Inter, sans-serif",
                 "font-size": "12", "fill": theme.TEXT["body"]}  # fmt: skip
        text = ElementTree.SubElement(node, "text", words)
        text.text = card.text
        strike = _xy(card.x + 8, card.y + card.h / 2, card.x + card.w - 8, card.y + card.h / 2)
        ElementTree.SubElement(node, "line", {**strike, "stroke": theme.TEXT["body"], "stroke-width": "1"})
    return group


def with_ghosts(svg: str, ghosts: Ghosts) -> str:
    """An exported SVG document with the ended marks drawn over the graph (before its legend)."""
    if not ghosts:
        return svg
    mark = svg.find('<g id="legend"')
    at = mark if mark >= 0 else svg.rfind("</svg>")
    return svg[:at] + ElementTree.tostring(ghosts_svg(ghosts), encoding="unicode") + svg[at:]


def _xy(x1: float, y1: float, x2: float, y2: float) -> dict[str, str]:
    return {"x1": _n(x1), "y1": _n(y1), "x2": _n(x2), "y2": _n(y2)}


def _n(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")
