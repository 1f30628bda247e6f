"""The legend of an exported image: what its marks mean, laid out once (positions in image
pixels) so the SVG and the PNG draw the same legend.

Only what the image shows is explained: the edge kinds present, stargates if any, the
fault line and loop halos if there are loops, the polarity marks if an edge has one, the
loop markers' classes if loops are marked.

>>> from bendscope.bend.model.elements import Edge, EdgeProps, Node, Plane
>>> plane = Plane("p")
>>> plane.add_node(Node("a", "A"))
>>> plane.add_node(Node("b", "B"))
>>> plane.add_edge(Edge("e", "a", "b", EdgeProps(kind="causal", polarity="+")))
>>> [entry.text for entry in legend_entries(plane, None)]
['card', 'causal →', '+ same direction', '− opposite direction']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import EDGE_KINDS, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.textlayout import Measure

LEGEND_FONT = "400 12px Inter"
TITLE_FONT = "600 12px Inter"
ROW = 20.0  # px between rows
SWATCH = 22.0  # px a swatch takes
PAD = 12.0
#: what the dashed line means (the weakest cut splits a region; it need not break every loop)
FAULT_LINE = "fault line (weakest cut: removing it splits the region)"


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a swatch of ``kind`` ("card", "stargate", "edge", "dashed",
    "halo", "sign", "loop": a marker's class in a ring of its colour) in ``color`` (``fill``
    for a halo, card or ring, the text for a sign) and its text."""

    kind: str
    color: str
    text: str
    fill: str = ""
    sign: str = ""


@dataclass(frozen=True)
class Placed:
    """An entry at (x, y): the top-left of its row in image pixels."""

    entry: LegendEntry
    x: float
    y: float


@dataclass(frozen=True)
class LegendLayout:
    """The legend in a box ``width`` × ``height`` px: a title line and its entries in columns."""

    width: float
    height: float
    title: str
    items: tuple[Placed, ...]


def legend_entries(
    plane: Plane, topology: Topology | None, node_ids: Iterable[str] | None = None, marked: Iterable[str] = ()
) -> list[LegendEntry]:
    """What the image of ``plane`` (or of ``node_ids`` of it) shows, explained; ``marked``: the
    classes ("R", "B", "?") of the loops it marks. O(n + m)."""
    shown = set(plane.nodes) if node_ids is None else {n for n in node_ids if n in plane.nodes}
    entries = [LegendEntry("card", theme.CARD_BORDER, "card", theme.CARD_FILL)]
    if any(plane.nodes[n].type == "stargate" for n in shown):
        entries.append(
            LegendEntry("stargate", theme.STARGATE_BORDER, "stargate (a plane inside)", theme.HEADER_FILL["stargate"])
        )
    edges = [e for e in plane.edges.values() if e.a in shown and e.b in shown]
    kinds = {e.props.kind for e in edges}
    for kind in EDGE_KINDS:
        if kind in kinds:
            entries.append(
                LegendEntry(
                    "edge",
                    theme.EDGE_COLOR[kind],
                    kind.replace("_", " ") + (" →" if kind in ("causal", "temporal") else ""),
                )
            )
    signs = {e.props.polarity for e in edges if e.props.polarity is not None}
    if signs:
        entries.append(LegendEntry("sign", theme.POLARITY_COLOR["+"], "+ same direction", theme.LABEL_FILL, "+"))
        entries.append(LegendEntry("sign", theme.POLARITY_COLOR["-"], "− opposite direction", theme.LABEL_FILL, "−"))
    if topology is not None and topology.result["sccs"]:
        drawn = [s for s in topology.result["sccs"] if set(s["nodes"]) & shown]
        levels = sorted({min(3, int(s["kappa"])) for s in drawn})
        if levels:
            entries.append(LegendEntry("dashed", theme.FAULT_COLOR, FAULT_LINE))
        for level in levels:  # (a halo's colour is its κ's upper bound past the work budget: said so)
            label = f"feedback loop, κ{'≥' if level == 3 else '='}{level}"
            if any(s["approximate"] and min(3, int(s["kappa"])) == level for s in drawn):
                label += f" or a range up to {level}{' or more' if level == 3 else ''}"
            entries.append(LegendEntry("halo", theme.HALO_STROKE[level], label, theme.HALO_FILL[level]))
    classes = set(marked)
    for mark, words in (
        ("R", "reinforcing loop (R1, R2…)"),
        ("B", "balancing loop (B1…)"),
        ("?", "loop without polarity (L1…)"),
    ):
        if mark in classes:  # (a loop without polarity is marked L1, L2…: ``loops_panel.MARK_LETTER``)
            sign = "L" if mark == "?" else mark
            entries.append(LegendEntry("loop", theme.LOOP_COLOR[mark], words, theme.MARKER_FILL, sign))
    return entries


def legend_layout(entries: list[LegendEntry], width: float, measure: Measure, title: str = "Legend") -> LegendLayout:
    """The entries in as many columns as fit ``width`` px (at least one), row by row. O(entries)."""
    widest = max((measure(e.text, LEGEND_FONT) for e in entries), default=0.0)
    column = SWATCH + 8 + widest + 18
    columns = max(1, min(len(entries), int((width - 2 * PAD) // column)))
    rows = -(-len(entries) // columns)
    placed = tuple(
        Placed(entry, PAD + (k % columns) * column, PAD + ROW + (k // columns) * ROW) for k, entry in enumerate(entries)
    )
    return LegendLayout(width, 2 * PAD + ROW * (rows + 1) - 4, title, placed)
