"""The scene plan: everything the page draws for a plane that does not depend on where its
nodes are — node order and card sizes, each card's art, edges with their styles and
labels, halos, and per-node flags (selected, pulsing, faded, being edited).

The page keeps the plan in JS (static/scene.js) and computes each frame's geometry from it
and the frame's positions, so Python never walks every node and edge per frame. The
:class:`ScenePlanner` knows what the page's plan holds; :meth:`ScenePlanner.update` returns
only the parts whose inputs changed, as calls ``(name, args)`` of the page's plan API, with
flat arrays. Colours and fonts are interned in one string table (ids sent once).

DOM-free: tests/test_scene_geometry.py hands the same calls to static/scene.js in node and
checks its geometry against ``draw_list(build_scene(...))``.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable
from typing import Any

from bendscope.bend.kappa_view.explain import kappa_span
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Camera, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.drawlist import card_art
from bendscope.bend.render.edge_paths import _WIDTHS, parallel_offsets
from bendscope.bend.render.halos import badge_text, halo_fill, halo_trees
from bendscope.bend.render.scene import (
    BAND_MEMBERS,
    DIRECTED,
    EDGE_DETAIL_LIMIT,
    FAR_ZOOM,
    GREEK_ZOOM,
    HALO_DETAIL_LIMIT,
    LONG_BAND,
    LONG_BANDS,
    MARKER_ARC,
    MARKER_DISK,
    MARKER_HEAD,
    MARKER_RADIUS,
    LoopMarker,
    level_of_detail,
)
from bendscope.bend.render.textlayout import CardLayout, Measure

#: per-node flags (the page's plan reads the same bits)
SELECTED, PULSING, DIMMED, EDITING = 1, 2, 4, 8

Call = tuple[str, tuple[Any, ...]]


def constants() -> dict[str, Any]:
    """Sizes, thresholds and the active theme's colours the page's geometry and drawing use."""
    return {
        "greekZoom": GREEK_ZOOM,
        "farZoom": FAR_ZOOM,
        "edgeDetailLimit": EDGE_DETAIL_LIMIT,
        "haloDetailLimit": HALO_DETAIL_LIMIT,
        "bandMembers": BAND_MEMBERS,
        "longBand": LONG_BAND,
        "longBands": LONG_BANDS,
        "haloPad": theme.HALO_PAD,
        "haloBand": theme.HALO_BAND,
        "haloRadius": theme.HALO_RADIUS,
        "cardRadius": theme.CARD_RADIUS,
        "noDash": [],
        "faultDash": list(theme.FAULT_DASH),
        "faultColor": theme.FAULT_COLOR,
        "edgeSelected": theme.EDGE_SELECTED,
        "labelFont": theme.LABEL_FONT,
        "labelFill": theme.LABEL_FILL,
        "labelText": theme.LABEL_TEXT,
        "polarityFont": theme.POLARITY_FONT,
        "polaritySize": theme.POLARITY_SIZE,
        "polarityColor": dict(theme.POLARITY_COLOR),
        "badgeFont": theme.BADGE_FONT,
        "badgeFill": theme.BADGE_FILL,
        "badgeText": theme.BADGE_TEXT,
        "headerFill": dict(theme.HEADER_FILL),
        "cardFill": theme.CARD_FILL,
        "cardBorder": theme.CARD_BORDER,
        "cardShadow": theme.CARD_SHADOW,
        "stargateBorder": theme.STARGATE_BORDER,
        "pinMark": theme.PIN_MARK,
        "selection": theme.SELECTION,
        "greekBar": theme.GREEK_BAR,
        "dimFill": theme.DIM_FILL,
        "pulseBorder": theme.PULSE_BORDER,
        "cutColor": theme.CUT_COLOR,
        "loopFont": theme.LOOP_FONT,
        "markerFill": theme.MARKER_FILL,
        "markerRadius": MARKER_RADIUS,
        "markerDisk": MARKER_DISK,
        "markerArc": list(MARKER_ARC),
        "markerHead": list(MARKER_HEAD),
    }


class ScenePlanner:
    """What the page's scene plan holds, and the calls that bring it up to date."""

    def __init__(self) -> None:
        self.strings: dict[str, int] = {}
        self._added: list[str] = []
        self._theme: str | None = None
        self._nodes_key: tuple[Any, ...] | None = None
        self._edges_key: tuple[Any, ...] | None = None
        self._halos_key: tuple[Any, ...] | None = None
        self._flags_key: tuple[Any, ...] | None = None
        self._markers_key: tuple[Any, ...] | None = None
        self._art: dict[str, tuple[Any, ...]] = {}  # node id → the key of the art the page holds
        self._plane: Plane | None = None
        self._plane_gen = 0
        self._result: object = None
        self._result_gen = 0
        self.ids: list[str] = []
        self.index: dict[str, int] = {}
        self.edge_index: dict[str, int] = {}  # edge id → index in the page's edge arrays
        self._edge_ids: tuple[dict[str, int], list[str]] | None = None

    def edge_ids(self) -> list[str]:
        """Edge ids by their index in the page's edge arrays (what it reports back). O(m) once per edge set."""
        cached = self._edge_ids
        if cached is None or cached[0] is not self.edge_index:
            cached = self._edge_ids = (self.edge_index, [""] * len(self.edge_index))
            for edge_id, k in self.edge_index.items():
                cached[1][k] = edge_id
        return cached[1]

    def _intern(self, text: str) -> int:
        found = self.strings.get(text)
        if found is None:
            found = self.strings[text] = len(self.strings)
            self._added.append(text)
        return found

    def _taken(self) -> list[str]:
        added, self._added = self._added, []
        return added

    def invalidate(self) -> None:
        """Forget everything the page's plan holds (a new plan was made)."""
        self.__init__()  # type: ignore[misc]

    def update(
        self,
        plane: Plane,
        card_of: Callable[[Node], CardLayout],
        *,
        doc_version: int,
        topology: Topology | None,
        selection: Iterable[str] = (),
        selected_edge: str | None = None,
        dimmed: Iterable[str] = (),
        editing: str | None = None,
        measure: Measure,
        viewport: tuple[float, float] | None = None,
        camera: Camera | None = None,
        markers: Iterable[LoopMarker] = (),
        loop_edges: Iterable[str] = (),
        loop_class: str = "?",
        cut_edges: Iterable[str] = (),
        tree_epoch: int = 0,
    ) -> list[Call]:
        """The calls that make the page's plan show ``plane`` in this state (seen through its
        camera — or ``camera``, an export's — in ``viewport``; None: everything is in view).
        O(n + m) for a part whose inputs changed (structure, texts, kinds, the topology, the
        theme), O(1) for the parts that did not; a selection change is O(n) small work. Cards'
        art is made only for the cards in or near the view, and not at all at the far level of
        detail (boxes only): O(n) to find them. ``markers``, ``loop_edges``, ``loop_class`` and
        ``cut_edges`` and ``tree_epoch`` as for ``bend.render.scene.build_scene``."""
        calls: list[Call] = []
        if self._theme != theme.NAME:
            self._theme = theme.NAME
            self._art.clear()  # every card's colours change
            self._edges_key = self._halos_key = None
            calls.append(("setConstants", (constants(),)))
        # the plane and the topology result are held (compared by identity, never by id(),
        # which a later object may reuse once the first is gone)
        if plane is not self._plane:
            self._plane = plane
            self._plane_gen += 1
        result = None if topology is None else topology.result
        if result is not self._result:
            self._result = result
            self._result_gen += 1
        nodes_key = (self._plane_gen, plane.version, doc_version, theme.NAME)
        if nodes_key != self._nodes_key:
            self._nodes_key = nodes_key
            calls.extend(self._nodes(plane))
        art = self._visible_art(plane, card_of, viewport, camera or plane.camera)
        if art is not None:
            calls.append(art)
        edges_key = (self._plane_gen, plane.version, theme.NAME)
        if edges_key != self._edges_key:
            self._edges_key = edges_key
            self._halos_key = self._flags_key = None
            calls.append(self._edges(plane, measure))
        halos_key = (self._plane_gen, plane.version, self._result_gen, theme.NAME, tree_epoch)
        if halos_key != self._halos_key:
            self._halos_key = halos_key
            self._flags_key = None
            calls.append(("setHalos", (self._halos(plane, topology, measure, tree_epoch),)))
        marks = tuple(markers)
        markers_key = (self._plane_gen, plane.version, marks, theme.NAME)
        if markers_key != self._markers_key:
            self._markers_key = markers_key
            calls.append(("setMarkers", (self._markers(marks),)))
        selection = frozenset(selection)
        dimmed = frozenset(dimmed)
        shown = (frozenset(loop_edges), loop_class, frozenset(cut_edges))
        flags_key = (self._plane_gen, plane.version, self._result_gen, selection, selected_edge, dimmed, editing, shown)
        if flags_key != self._flags_key:
            self._flags_key = flags_key
            calls.append(self._flags(plane, topology, selection, selected_edge, dimmed, editing, *shown))
        return calls

    # ---------------------------------------------------------------- parts
    def _nodes(self, plane: Plane) -> list[Call]:
        ids = list(plane.nodes)
        nodes = list(plane.nodes.values())
        calls: list[Call] = []
        if ids != self.ids:
            on_plane = set(ids)
            gone = [n for n in self._art if n not in on_plane]
            for n in gone:
                del self._art[n]
            if gone:
                calls.append(("forgetArt", (gone,)))
            self.ids = ids
            self.index = {node_id: i for i, node_id in enumerate(ids)}
        sizes = array("d")
        for node in nodes:
            sizes.extend((node.width, node.height))
        stargate = bytes(1 if node.type == "stargate" else 0 for node in nodes)
        pinned = bytes(1 if node.pinned else 0 for node in nodes)
        calls.append(("setNodes", (ids, sizes, stargate, pinned)))
        return calls

    def _visible_art(
        self,
        plane: Plane,
        card_of: Callable[[Node], CardLayout],
        viewport: tuple[float, float] | None,
        cam: Camera,
    ) -> Call | None:
        """The art of the cards in or near the view of ``cam`` that the page lacks or holds stale."""
        if level_of_detail(cam.zoom) == "far":
            return None  # boxes only: no card shows its art
        if viewport is None:
            x0 = y0 = -math.inf
            x1 = y1 = math.inf
        else:  # the view and half of it again on each side (what a pan brings in soon)
            half_w, half_h = viewport[0] / cam.zoom, viewport[1] / cam.zoom
            x0, x1, y0, y1 = cam.x - half_w, cam.x + half_w, cam.y - half_h, cam.y + half_h
        art_ids: list[str] = []
        nums = array("d")
        texts: list[str] = []
        held = self._art
        for node in plane.nodes.values():
            hw, hh = node.width / 2, node.height / 2
            if node.x + hw < x0 or node.x - hw > x1 or node.y + hh < y0 or node.y - hh > y1:
                continue
            layout = card_of(node)
            header = "STARGATE" if node.type == "stargate" else ""
            key = (node.text, node.type, header, node.width, layout.lines)
            if held.get(node.id) == key:
                continue
            held[node.id] = key
            art = card_art(layout.lines, node.type, header, not node.text.strip(), node.width)
            art_ids.append(node.id)
            nums.extend((len(art.items), 1.0 if header else 0.0, len(art.bars) // 4,
                         sum(len(r) // 4 for _, r in art.decorations)))  # fmt: skip
            for font, color, dx, dy, text in art.items:
                nums.extend((self._intern(font), self._intern(color), dx, dy))
                texts.append(text)
            nums.extend(art.bars)
            for color, rects in art.decorations:
                c = self._intern(color)
                for i in range(0, len(rects), 4):
                    nums.extend((c, rects[i], rects[i + 1], rects[i + 2], rects[i + 3]))
        if not art_ids:
            return None
        return ("setArt", (self._taken(), art_ids, nums, texts))

    def _edges(self, plane: Plane, measure: Measure) -> Call:
        index = self.index
        offsets = parallel_offsets(plane)
        a, b, color, arrow = array("i"), array("i"), array("i"), array("d")
        width, offset = array("d"), array("d")
        label_edge, label_border = array("i"), array("i")
        label_width = array("d")
        label_text: list[str] = []
        polarity = array("b")  # 0 none, 1 +, 2 −
        self.edge_index = {}
        for edge in plane.edges.values():
            i, j = index.get(edge.a), index.get(edge.b)
            if i is None or j is None or i == j:
                continue
            k = len(a)
            self.edge_index[edge.id] = k
            kind = edge.props.kind
            a.append(i)
            b.append(j)
            color.append(self._intern(theme.EDGE_COLOR[kind]))
            width.append(_WIDTHS[edge.props.strength])
            arrow.append(8.0 + edge.props.strength if kind in DIRECTED else 0.0)
            shift = offsets.get(edge.id, 0.0)
            offset.append(shift if edge.a <= edge.b else -shift)
            sign = edge.props.polarity
            polarity.append(0 if sign is None or kind not in DIRECTED else 1 if sign == "+" else 2)
            if edge.props.label:
                text = edge.props.label if len(edge.props.label) <= 40 else edge.props.label[:39] + "…"
                label_edge.append(k)
                label_width.append(measure(text, theme.LABEL_FONT) + 12)
                label_border.append(self._intern(theme.EDGE_COLOR[kind]))
                label_text.append(text)
        args = (self._taken(), a, b, color, width, arrow, offset, label_edge, label_width, label_border, label_text,
                polarity)  # fmt: skip
        return ("setEdges", args)

    def _halos(self, plane: Plane, topology: Topology | None, measure: Measure, epoch: int) -> list[dict[str, Any]]:
        if topology is None:
            return []
        trees = halo_trees(plane, topology, epoch)
        index = self.index
        halos = []
        for scc in topology.result["sccs"]:
            if scc["kappa"] <= 0:
                continue
            members = array("i", (index[n] for n in scc["nodes"] if n in index))
            pairs = array("i")
            for one, other in trees.get(scc["id"], ()):
                pairs.extend((index[one], index[other]))
            fill, stroke = halo_fill(scc["kappa"])
            text = badge_text(scc["kappa"], scc["approximate"], kappa_span(scc)[0])
            halos.append(
                {
                    "members": members,
                    "pairs": pairs,
                    "fill": fill,
                    "farFill": theme.over(fill, theme.BACKGROUND),  # far zoom: opaque boxes
                    "stroke": stroke,
                    "badge": text,
                    "badgeWidth": measure(text, theme.BADGE_FONT) + 12,
                }
            )
        return halos

    def _markers(self, markers: tuple[LoopMarker, ...]) -> list[dict[str, Any]]:
        index = self.index
        out = []
        for loop in markers:
            members = array("i", (index[n] for n in loop.nodes if n in index))
            if members:
                out.append({"members": members, "label": loop.label, "color": theme.LOOP_COLOR[loop.polarity]})
        return out

    def _flags(
        self,
        plane: Plane,
        topology: Topology | None,
        selection: frozenset[str],
        selected_edge: str | None,
        dimmed: frozenset[str],
        editing: str | None,
        loop_edges: frozenset[str] = frozenset(),
        loop_class: str = "?",
        cut_edges: frozenset[str] = frozenset(),
    ) -> Call:
        index = self.index
        flags = bytearray(len(self.ids))
        for node_id in selection:
            if node_id in index:
                flags[index[node_id]] |= SELECTED
        for node_id in dimmed:
            if node_id in index:
                flags[index[node_id]] |= DIMMED
        if editing is not None and editing in index:
            flags[index[editing]] |= EDITING
        faults = array("i")
        if topology is not None:
            for scc in topology.result["sccs"]:
                if scc["kappa"] > 0:
                    for n in scc["nodes"]:
                        if n in index:
                            flags[index[n]] |= PULSING
            faults.extend(sorted(self.edge_index[e] for e in topology.fault_edges if e in self.edge_index))
        selected = self.edge_index.get(selected_edge, -1) if selected_edge is not None else -1
        edge_index = self.edge_index
        loops = array("i", sorted(edge_index[e] for e in loop_edges if e in edge_index))
        cuts = array("i", sorted(edge_index[e] for e in cut_edges if e in edge_index))
        return ("setFlags", (bytes(flags), selected, faults, loops, cuts, theme.LOOP_COLOR[loop_class]))


def positions(plane: Plane) -> array[float]:
    """The nodes' x, y in plane order (the frame's positions the page's geometry reads). O(n)."""
    xy = array("d")
    for node in plane.nodes.values():
        xy.append(node.x)
        xy.append(node.y)
    return xy
