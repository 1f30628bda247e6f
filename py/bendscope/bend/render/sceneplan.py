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
import operator
from array import array
from collections.abc import Callable, Collection, Generator, Iterable
from operator import attrgetter
from typing import Any, NamedTuple

from bendscope.bend.kappa_view.explain import kappa_span
from bendscope.bend.kappa_view.topology_cache import Topology
from bendscope.bend.model.elements import Camera, Edge, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.drawlist import card_art
from bendscope.bend.render.edge_paths import _WIDTHS, PARALLEL_SPACING, label_text
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
from bendscope.bend.render.textlayout import CardLayout, Measure, tag_name
from bendscope.kappa.steps import finish

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
        "tagFont": theme.TAG_FONT,
        "tagHeight": theme.TAG_HEIGHT,
        "tagPad": theme.TAG_PAD,
        "tagText": theme.TEXT["body"],
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
        self._tags_key: tuple[Any, ...] = ()  # (no tags: the page's plan starts with none)
        self._art: dict[str, tuple[Any, ...]] = {}  # node id → the key of the art the page holds
        self._plane: Plane | None = None
        self._plane_gen = 0
        self._result: object = None
        self._result_gen = 0
        self.ids: list[str] = []
        self.index: dict[str, int] = {}
        self.edge_index: dict[str, int] = {}  # edge id → index in the page's edge arrays
        self._edge_ids: list[str] | None = None
        # what the page's node and edge arrays hold, to send only what changed (see _nodes, _edges)
        self._sent_nodes = False  # the page's node arrays hold this plane's nodes
        self._rebuilt = True  # the edges must be sent whole (nodes renumbered, a new theme)
        self._dangling = 0  # edges not drawn because a card of theirs is not on the plane
        self._appended: list[str] = []  # cards appended since the edges were last brought up to date
        self._plane_edges: list[Edge] = []  # the plane's edges as of the last edge update, in its order
        self._pairs: dict[tuple[str, str], list[str]] = {}  # unordered card pair → its edges' ids, in order
        self._offsets: dict[str, float] = {}  # edge id → parallel offset as sent
        self._labels: dict[int, int] = {}  # edge index → its label's index in the page's label arrays
        self._halo_epoch = 0  # bumped when the halos must be made again for the same topology
        self._regions: list[Any] = []  # the κ > 0 regions of the last topology result
        self._regions_gen = 0
        self._comp: tuple[int, dict[str, str]] = (-1, {})  # (regions' gen, node → its κ > 0 region's id)
        self._nodes_gen = 0  # bumped when the page's node arrays are sent whole (indices change)
        self._pulsing: tuple[tuple[int, int], bytearray, list[str]] = ((-1, -1), bytearray(), [])  # see _pulse_flags
        self._faults: tuple[object, set[str], array[int]] = (None, set(), array("i"))  # see _fault_indices
        self._prepared: _Prepared | None = None  # a plane's edges made ahead (see prepare_edges)
        self._looks: list[tuple[Any, ...]] = []  # each card's (width, height, type, pinned) as sent
        self._art_key: tuple[Any, ...] | None = None  # what the last scan for art saw besides positions
        self._art_moved: Collection[str] = ()  # the cards given as moving at that scan

    def edge_ids(self) -> list[str]:
        """Edge ids by their index in the page's edge arrays (what it reports back). O(m) once per edge set."""
        cached = self._edge_ids
        if cached is None:
            cached = self._edge_ids = [""] * len(self.edge_index)
            for edge_id, k in self.edge_index.items():
                cached[k] = edge_id
        return cached

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
        moving: Collection[str] | None = None,
        touched: Callable[[int], set[str] | None] | None = None,
        tags: Iterable[str] = (),
    ) -> list[Call]:
        """The calls that make the page's plan show ``plane`` in this state (seen through its
        camera — or ``camera``, an export's — in ``viewport``; None: everything is in view).
        O(n + m) for a part whose inputs changed (structure, texts, kinds, the topology, the
        theme), O(1) for the parts that did not; a selection change is O(n) small work. Cards'
        art is made only for the cards in or near the view, and not at all at the far level of
        detail (boxes only): O(n) to find them. ``markers``, ``loop_edges``, ``loop_class`` and
        ``cut_edges`` and ``tree_epoch`` as for ``bend.render.scene.build_scene``. ``moving``:
        the only cards that moved since the last update (a local reheat holds the others): when
        nothing else the art depends on changed, only they are looked at for art — O(len(moving));
        ``touched``: see :meth:`_visible_art`; ``tags``: the cards whose names the page draws
        readable where their text cannot be read (a shown loop's: :meth:`_tags`)."""
        calls: list[Call] = []
        if self._theme != theme.NAME:
            self._theme = theme.NAME
            self._art.clear()  # every card's colours change
            self._edges_key = self._halos_key = None
            self._rebuilt = True
            calls.append(("setConstants", (constants(),)))
        # the plane and the topology result are held (compared by identity, never by id(),
        # which a later object may reuse once the first is gone)
        if plane is not self._plane:
            self._plane = plane
            self._plane_gen += 1
            self._sent_nodes = False  # (another plane: everything is sent afresh)
        result = None if topology is None else topology.result
        if result is not self._result:
            self._result = result
            self._result_gen += 1
            regions = [] if result is None else [scc for scc in result["sccs"] if scc["kappa"] > 0]
            if regions != self._regions:  # (a new result with the same loop regions keeps its halos)
                self._regions = regions
                self._regions_gen += 1
        nodes_key = (self._plane_gen, plane.version, doc_version, theme.NAME)
        if nodes_key != self._nodes_key:
            self._nodes_key = nodes_key
            calls.extend(self._nodes(plane))
        cam = camera or plane.camera
        art = self._visible_art(plane, card_of, viewport, cam, measure, moving, doc_version, touched)
        if art is not None:
            calls.append(art)
        edges_key = (self._plane_gen, plane.version, theme.NAME)
        if edges_key != self._edges_key or self._rebuilt:
            self._edges_key = edges_key
            self._flags_key = None
            calls.extend(self._edges(plane, measure, topology))
        halos_key = (self._plane_gen, self._halo_epoch, self._regions_gen, theme.NAME, tree_epoch)
        if halos_key != self._halos_key:
            self._halos_key = halos_key
            self._flags_key = None
            calls.append(("setHalos", (self._halos(plane, topology, measure, tree_epoch),)))
        marks = tuple(markers)
        markers_key = (self._plane_gen, plane.version, marks, theme.NAME)
        if markers_key != self._markers_key:
            self._markers_key = markers_key
            calls.append(("setMarkers", (self._markers(marks),)))
        tagged = tuple(tags)
        tags_key = (self._plane_gen, plane.version, doc_version, tagged, theme.NAME) if tagged else ()
        if tags_key != self._tags_key:
            self._tags_key = tags_key
            calls.append(("setTags", (self._tags(plane, tagged, measure),)))
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
        """The calls that bring the page's node arrays to ``plane``: the cards appended at the
        end and those whose size or flags changed, or all of them again when cards went or were
        reordered (indices change). O(n) to compare (one tuple per card, compared in C), O(changes)
        sent."""
        ids = list(plane.nodes)
        looks = list(map(_LOOKS, plane.nodes.values()))
        held = len(self.ids)
        calls: list[Call] = []
        if not self._rebuilt_needed(ids, held):
            old = self._looks
            if (looks if len(looks) == held else looks[:held]) != old:
                changed = array("i", (i for i in range(held) if looks[i] != old[i]))
                calls.append(("patchNodes", (changed, *_node_arrays([looks[i] for i in changed]))))
            if len(ids) > held:
                calls.append(("appendNodes", (ids[held:], *_node_arrays(looks[held:]))))
                self._appended += ids[held:]
                for i in range(held, len(ids)):
                    self.index[ids[i]] = i
                self.ids = ids
                if self._dangling:  # (an edge waiting for one of these cards: its index is among the others')
                    self._rebuilt = True
        else:
            self._rebuilt = True
            on_plane = set(ids)
            gone = [n for n in self._art if n not in on_plane]
            for n in gone:
                del self._art[n]
            if gone:
                calls.append(("forgetArt", (gone,)))
            self.ids = ids
            ready = self._prepared
            if ready is not None and ready.holds(plane) and ready.looks == looks and list(ready.cards) == ids:
                self.index, arrays = ready.cards, ready.node_arrays  # (made ahead: see prepare_edges)
            else:
                self.index, arrays = {node_id: i for i, node_id in enumerate(ids)}, _node_arrays(looks)
            calls.append(("setNodes", (ids, *arrays)))
            self._nodes_gen += 1
        self._looks = looks
        self._sent_nodes = True
        return calls

    def _rebuilt_needed(self, ids: list[str], held: int) -> bool:
        """Whether the node arrays must be sent whole: nothing sent yet, or a card went or moved
        in the plane's order (the cards held are not the first of ``ids``, in order)."""
        return not self._sent_nodes or len(ids) < held or ids[:held] != self.ids

    def _visible_art(
        self,
        plane: Plane,
        card_of: Callable[[Node], CardLayout],
        viewport: tuple[float, float] | None,
        cam: Camera,
        measure: Measure,
        moving: Collection[str] | None = None,
        doc_version: int = 0,
        touched: Callable[[int], set[str] | None] | None = None,
    ) -> Call | None:
        """The art of the cards in or near the view of ``cam`` that the page lacks or holds stale.
        Every card is looked at, unless ``moving`` is given and nothing else the art depends on
        (the plane, its words, the document, the view, the theme, the measure) changed since the
        last look: then only ``moving`` and the cards that moved at the last update — and the
        cards the document's changes touched, when only the document changed and ``touched``
        (``Editor.cards_touched_since``: the cards the changes after a document version
        touched, or None if not known) knows them. O(n), or O(moving + touched)."""
        if level_of_detail(cam.zoom) == "far":
            self._art_key = None
            return None  # boxes only: no card shows its art
        seen = (self._plane_gen, plane.version, plane.words_version, doc_version, theme.NAME, viewport,
                cam.x, cam.y, cam.zoom, measure, card_of)  # fmt: skip
        nodes: Iterable[Node]
        last, by_id = self._art_key, plane.nodes
        if moving is not None and seen == last:
            nodes = [by_id[n] for n in {*moving, *self._art_moved} if n in by_id]
        elif (
            moving is not None
            and last is not None
            and touched is not None
            and _same_view(seen, last)
            and (cards := touched(last[3])) is not None
        ):  # (document changes since, whose cards are known — an agent's, say): those and what moves
            nodes = [by_id[n] for n in dict.fromkeys([*sorted(cards), *moving, *self._art_moved]) if n in by_id]
        else:
            nodes = plane.nodes.values()
        self._art_key = seen
        self._art_moved = () if moving is None else moving
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
        for node in nodes:
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

    def _row(
        self, edge: Edge, k: int, shift: float, measure: Measure, rows: _Rows, index: dict[str, int] | None = None
    ) -> None:
        """Edge ``edge`` (index ``k``) into ``rows``, its label too when it has one (its cards'
        indices from ``index``, else the plan's)."""
        kind = edge.props.kind
        index = self.index if index is None else index
        rows.a.append(index[edge.a])
        rows.b.append(index[edge.b])
        rows.color.append(self._intern(theme.EDGE_COLOR[kind]))
        rows.width.append(_WIDTHS[edge.props.strength])
        rows.arrow.append(8.0 + edge.props.strength if kind in DIRECTED else 0.0)
        rows.offset.append(shift if edge.a <= edge.b else -shift)
        sign = edge.props.polarity
        rows.polarity.append(0 if sign is None or kind not in DIRECTED else 1 if sign == "+" else 2)
        if edge.props.label:
            text = label_text(edge.props.label)
            rows.label_edge.append(k)
            rows.label_width.append(measure(text, theme.LABEL_FONT) + 12)
            rows.label_border.append(self._intern(theme.EDGE_COLOR[kind]))
            rows.label_text.append(text)

    def _drawn(self, edge: Edge) -> bool:
        i, j = self.index.get(edge.a), self.index.get(edge.b)
        return i is not None and j is not None and i != j

    def _edges(self, plane: Plane, measure: Measure, topology: Topology | None) -> list[Call]:
        """The calls that bring the page's edge arrays to ``plane``: edges appended at the end
        of the plane's order and edges replaced in place are sent alone (with the edges whose
        parallel offset they change); all of them again when an edge went, moved in the order
        or changed its cards, or the nodes were renumbered. O(m) identity checks, O(changes) sent."""
        edges = list(plane.edges.values())
        held = self._plane_edges
        comp = self._components()
        if any(node_id in comp for node_id in self._appended):  # (a card its region names, back)
            self._halo_epoch += 1
        self._appended = []
        if self._rebuilt or len(edges) < len(held):
            self._rebuilt = False
            return [self._all_edges(plane, edges, measure)]
        changed: list[Edge] = []
        if edges[: len(held)] != held:
            for was, now in zip(held, edges, strict=False):
                if was is not now and was != now:
                    if (was.id, was.a, was.b) != (now.id, now.a, now.b) or bool(was.props.label) != bool(
                        now.props.label
                    ):
                        return [self._all_edges(plane, edges, measure)]
                    changed.append(now)
        added = edges[len(held) :]
        if not changed and not added:
            self._plane_edges = edges
            return []
        touched: set[tuple[str, str]] = set()
        for edge in added:
            pair = (edge.a, edge.b) if edge.a <= edge.b else (edge.b, edge.a)
            self._pairs.setdefault(pair, []).append(edge.id)
            touched.add(pair)
        for edge in (*changed, *added):
            region = comp.get(edge.a)
            if region is not None and region == comp.get(edge.b):
                self._halo_epoch += 1  # (an arc inside a loop region: its halo's tree may change)
                break
        for pair in touched:
            self._offsets.update(_pair_offsets(self._pairs[pair]))
        by_id = plane.edges
        patched = dict.fromkeys(e.id for e in changed)
        for pair in touched:
            for edge_id in self._pairs[pair]:
                if edge_id in self.edge_index:
                    patched[edge_id] = None  # (an edge already sent whose offset may have changed)
        calls: list[Call] = []
        if patched:
            rows, ks = _Rows(), array("i")
            label_at = array("i")
            for edge_id in patched:
                k = self.edge_index.get(edge_id)
                if k is None:
                    continue
                ks.append(k)
                self._row(by_id[edge_id], k, self._offsets.get(edge_id, 0.0), measure, rows)
            label_at.extend(self._labels[k] for k in rows.label_edge)
            if ks:
                calls.append(("patchEdges", (self._taken(), ks, rows.a, rows.b, rows.color, rows.width, rows.arrow,
                                             rows.offset, rows.polarity, label_at, rows.label_width,
                                             rows.label_border, rows.label_text)))  # fmt: skip
        if added:
            rows = _Rows()
            k = len(self.edge_index)
            labels = len(self._labels)
            for edge in added:
                if not self._drawn(edge):
                    self._dangling += edge.a != edge.b
                    continue
                self.edge_index[edge.id] = k
                self._row(edge, k, self._offsets.get(edge.id, 0.0), measure, rows)
                k += 1
            for k in rows.label_edge:
                self._labels[k] = labels
                labels += 1
            self._edge_ids = None
            if len(rows.a):
                calls.append(("appendEdges", (self._taken(), *rows.args())))
        self._plane_edges = edges
        return calls

    def prepare_edges(self, plane: Plane, measure: Measure, chunk: int = 256) -> Generator[None, None, None]:
        """Make the edge and card arrays for the first plan of ``plane`` ahead, as steps (a
        pause after every ``chunk`` edges or cards): a document coming in (``Editor.start_load``)
        has them ready before its first frame, which then sends them without making them. They
        are used only if the plane has not changed since, with the same theme and its cards in
        the same order and of the same sizes; else they are made again as always. O(n + m)."""
        self._prepared = None
        index = {node_id: i for i, node_id in enumerate(plane.nodes)}
        edges = list(plane.edges.values())
        made = yield from self._edge_rows(edges, index, measure, chunk)
        looks = list(map(_LOOKS, plane.nodes.values()))
        yield
        arrays = _node_arrays(looks)
        self._prepared = _Prepared(plane, plane.version, theme.NAME, index, edges, *made, looks, arrays)

    def _edge_rows(
        self, edges: list[Edge], index: dict[str, int], measure: Measure, chunk: int = 0
    ) -> Generator[None, None, tuple[dict[tuple[str, str], list[str]], dict[str, float], _Rows, dict[str, int], int]]:
        """The edge arrays of ``edges`` between the cards of ``index``: the parallel pairs, their
        offsets, the rows, each drawn edge's row and how many edges are not drawn (an end not a
        card); a pause after every ``chunk`` edges (none when 0). O(m)."""
        pairs: dict[tuple[str, str], list[str]] = {}
        for k, edge in enumerate(edges):
            pair = (edge.a, edge.b) if edge.a <= edge.b else (edge.b, edge.a)
            pairs.setdefault(pair, []).append(edge.id)
            if chunk and k % (chunk * 4) == chunk * 4 - 1:
                yield
        offsets: dict[str, float] = {}
        for k, ids in enumerate(pairs.values()):
            if len(ids) > 1:
                offsets.update(_pair_offsets(ids))
            if chunk and k % (chunk * 2) == chunk * 2 - 1:
                yield
        rows = _Rows()
        edge_index: dict[str, int] = {}
        dangling = 0
        for k, edge in enumerate(edges):
            i, j = index.get(edge.a), index.get(edge.b)
            if i is None or j is None or i == j:
                dangling += edge.a != edge.b
            else:
                edge_index[edge.id] = len(rows.a)
                self._row(edge, len(rows.a), offsets.get(edge.id, 0.0), measure, rows, index)
            if chunk and k % chunk == chunk - 1:
                yield
        return pairs, offsets, rows, edge_index, dangling

    def _take_prepared(self, plane: Plane, edges: list[Edge]) -> _Prepared | None:
        """The edges made ahead for ``plane`` if they still hold (see :meth:`prepare_edges`)."""
        ready, self._prepared = self._prepared, None
        if ready is None or not ready.holds(plane):
            return None
        if ready.cards != self.index or len(ready.edges) != len(edges):
            return None
        if any(a is not b for a, b in zip(ready.edges, edges, strict=True)):
            return None
        return ready

    def _all_edges(self, plane: Plane, edges: list[Edge], measure: Measure) -> Call:
        """Every edge of ``plane`` again (what the page's edge arrays hold is replaced). O(m)."""
        ready = self._take_prepared(plane, edges)
        pairs, offsets, rows, edge_index, dangling = (
            finish(self._edge_rows(edges, self.index, measure)) if ready is None
            else (ready.pairs, ready.offsets, ready.rows, ready.edge_index, ready.dangling)
        )  # fmt: skip
        self._halo_epoch += 1
        self._pairs, self._offsets, self.edge_index, self._dangling = pairs, offsets, edge_index, dangling
        self._edge_ids = None
        self._labels = {k: i for i, k in enumerate(rows.label_edge)}
        self._plane_edges = edges
        return ("setEdges", (self._taken(), *rows.args()))

    def _components(self) -> dict[str, str]:
        """Node id → the id of its κ > 0 region in the last topology (held while its loop
        regions stay the same: a result that only gained cards outside them costs nothing)."""
        if self._comp[0] != self._regions_gen:
            comp = {}
            for scc in self._regions:
                for n in scc["nodes"]:
                    comp[n] = scc["id"]
            self._comp = (self._regions_gen, comp)
        return self._comp[1]

    def _halos(self, plane: Plane, topology: Topology | None, measure: Measure, epoch: int) -> dict[str, Any]:
        """The κ > 0 regions' halos packed in flat arrays (one crossing to the page however many:
        static/scene.js ``setHalos``): the regions' member indices one after another, where each
        ends (``memberEnds``), the same for their trees' index pairs, each one's style (an index
        into ``styles``: fill, far fill, stroke by κ), badge text and width. O(cards + regions)."""
        members, member_ends, pairs, pair_ends = array("i"), array("i"), array("i"), array("i")
        style, widths = array("i"), array("d")
        badges: list[str] = []
        styles: list[dict[str, str]] = []
        packed: dict[str, Any] = {
            "members": members, "memberEnds": member_ends, "pairs": pairs, "pairEnds": pair_ends,
            "style": style, "styles": styles, "badges": badges, "badgeWidths": widths,
        }  # fmt: skip
        if topology is None:
            return packed
        trees = halo_trees(plane, topology, epoch)
        index = self.index
        by_kappa: dict[int, int] = {}
        for scc in topology.result["sccs"]:
            kappa = scc["kappa"]
            if kappa <= 0:
                continue
            members.extend([index[n] for n in scc["nodes"] if n in index])
            member_ends.append(len(members))
            for one, other in trees.get(scc["id"], ()):
                pairs.extend((index[one], index[other]))
            pair_ends.append(len(pairs))
            if kappa not in by_kappa:
                by_kappa[kappa] = len(styles)
                fill, stroke = halo_fill(kappa)
                styles.append({"fill": fill, "farFill": theme.over(fill, theme.BACKGROUND), "stroke": stroke})
            style.append(by_kappa[kappa])  # (far zoom: opaque boxes, farFill)
            text = badge_text(kappa, scc["approximate"], kappa_span(scc)[0])
            badges.append(text)
            widths.append(measure(text, theme.BADGE_FONT) + 12)
        return packed

    def _markers(self, markers: tuple[LoopMarker, ...]) -> list[dict[str, Any]]:
        index = self.index
        out = []
        for loop in markers:
            members = array("i", (index[n] for n in loop.nodes if n in index))
            if members:
                out.append({"members": members, "label": loop.label, "color": theme.LOOP_COLOR[loop.polarity]})
        return out

    def _tags(self, plane: Plane, node_ids: tuple[str, ...], measure: Measure) -> list[dict[str, Any]]:
        """The name tags of ``node_ids`` (the first ``theme.TAG_MAX``): each card's index, its
        name (the first line of its text, at most ``theme.TAG_CHARS`` characters) and that name's
        width in ``theme.TAG_FONT`` (screen px). The page draws them, at that size on the screen,
        over the cards whose text is bars or boxes (``static/scene.js``); a card without text has
        none. O(TAG_MAX)."""
        index, out = self.index, []
        for node_id in node_ids[: theme.TAG_MAX]:
            node = plane.nodes.get(node_id)
            name = tag_name(node.text) if node is not None and node_id in index else ""
            if name:
                out.append({"node": index[node_id], "text": name, "width": measure(name, theme.TAG_FONT)})
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
            pulsing = self._pulse_flags()
            flags = bytearray(map(operator.or_, flags, pulsing)) if any(flags) else pulsing
            faults = self._fault_indices(topology.fault_edges)
        selected = self.edge_index.get(selected_edge, -1) if selected_edge is not None else -1
        edge_index = self.edge_index
        loops = array("i", sorted(edge_index[e] for e in loop_edges if e in edge_index))
        cuts = array("i", sorted(edge_index[e] for e in cut_edges if e in edge_index))
        return ("setFlags", (bytes(flags), selected, faults, loops, cuts, theme.LOOP_COLOR[loop_class]))

    def _fault_indices(self, fault_edges: set[str]) -> array[int]:
        """The page's indices of the fault-line edges ``fault_edges``, sorted: the last ones
        when the edges are the same and each was sent then, with the edge arrays only grown
        since (O(fault lines) compared in C), else found again."""
        held_index, held_edges, held = self._faults
        if held_index is self.edge_index and len(held) == len(held_edges) and held_edges == fault_edges:
            return held
        edge_index = self.edge_index
        found = array("i", sorted(edge_index[e] for e in fault_edges if e in edge_index))
        self._faults = (edge_index, set(fault_edges), found)
        return found

    def _pulse_flags(self) -> bytearray:
        """A flag per card, PULSING for the cards of the last topology's κ > 0 regions: made
        again when those regions or the cards' indices change, else the last one grown by the
        cards appended since (O(new cards), and a copy in C).

        >>> planner = ScenePlanner()
        >>> planner.ids, planner.index = ["a", "b", "c"], {"a": 0, "b": 1, "c": 2}
        >>> planner._regions = [{"id": "scc_0", "nodes": ["a", "b", "d"], "kappa": 1}]
        >>> list(planner._pulse_flags())
        [2, 2, 0]
        >>> planner.ids, planner.index["d"] = [*planner.ids, "d"], 3
        >>> list(planner._pulse_flags())
        [2, 2, 0, 2]
        """
        index, key = self.index, (self._regions_gen, self._nodes_gen)
        held_key, held, waiting = self._pulsing
        if held_key != key:
            held, waiting = bytearray(len(self.ids)), []
            for scc in self._regions:
                for n in scc["nodes"]:
                    if n in index:
                        held[index[n]] |= PULSING
                    else:
                        waiting.append(n)  # (a card not on the page yet)
        if len(held) < len(self.ids):
            held.extend(bytes(len(self.ids) - len(held)))
            for n in waiting:
                if n in index:
                    held[index[n]] |= PULSING
            waiting = [n for n in waiting if n not in index]
        self._pulsing = (key, held, waiting)
        return bytearray(held)


def _same_view(seen: tuple[Any, ...], last: tuple[Any, ...]) -> bool:
    """Whether two scans for art saw the same plane, theme, view and measure (its document
    and its cards may differ).

    >>> key = (1, 5, 2, 7, "light", (800, 600), 0.0, 0.0, 1.0, None, None)
    >>> _same_view((1, 6, 3, 8, *key[4:]), key), _same_view((1, 6, 3, 8, "dark", *key[5:]), key)
    (True, False)
    """
    return seen[0] == last[0] and seen[4:] == last[4:]


class _Prepared(NamedTuple):
    """A plane's edge arrays made ahead (``ScenePlanner.prepare_edges``) and what they hold for."""

    plane: Plane
    version: int
    theme: str
    cards: dict[str, int]  # card id → its index in the page's node arrays
    edges: list[Edge]
    pairs: dict[tuple[str, str], list[str]]
    offsets: dict[str, float]
    rows: _Rows
    edge_index: dict[str, int]
    dangling: int
    looks: list[tuple[Any, ...]]  # each card's (width, height, type, pinned), in the plane's order
    node_arrays: tuple[array[float], bytes, bytes]  # the card arrays of those looks

    def holds(self, plane: Plane) -> bool:
        """Whether they were made for ``plane`` as it is (not changed since) in the theme shown."""
        return self.plane is plane and self.version == plane.version and self.theme == theme.NAME


class _Rows:
    """Edge rows as the page's plan takes them (see static/scene.js ``setEdges``)."""

    def __init__(self) -> None:
        self.a, self.b, self.color = array("i"), array("i"), array("i")
        self.width, self.arrow, self.offset = array("d"), array("d"), array("d")
        self.label_edge, self.label_border = array("i"), array("i")
        self.label_width = array("d")
        self.label_text: list[str] = []
        self.polarity = array("b")  # 0 none, 1 +, 2 −

    def args(self) -> tuple[Any, ...]:
        return (self.a, self.b, self.color, self.width, self.arrow, self.offset, self.label_edge, self.label_width,
                self.label_border, self.label_text, self.polarity)  # fmt: skip


def _pair_offsets(edge_ids: list[str]) -> dict[str, float]:
    """The parallel offsets of the edges between one pair of cards, in the plane's order
    (``bend.render.edge_paths.parallel_offsets``, for one pair).

    >>> _pair_offsets(["x", "y", "z"])
    {'x': -7.0, 'y': 0.0, 'z': 7.0}
    """
    count = len(edge_ids)
    return {edge_id: (i - (count - 1) / 2) * PARALLEL_SPACING for i, edge_id in enumerate(edge_ids)}


#: what the page's node arrays hold of a card besides its id
_LOOKS = attrgetter("width", "height", "_type", "_pinned")  # (the slots: read in C, not through properties)


def _node_arrays(looks: list[tuple[Any, ...]]) -> tuple[array[float], bytes, bytes]:
    """The sizes (w, h, …), stargate and pinned flags of cards as the page's node arrays take them.

    >>> sizes, gate, pin = _node_arrays([(180.0, 60.0, "stargate", False), (90.0, 30.0, "normal", True)])
    >>> list(sizes), gate, pin
    ([180.0, 60.0, 90.0, 30.0], b'\\x01\\x00', b'\\x00\\x01')
    """
    return (  # (list comprehensions: one call each, not one per card)
        array("d", [value for look in looks for value in look[:2]]),
        bytes([1 if look[2] == "stargate" else 0 for look in looks]),
        bytes([1 if look[3] else 0 for look in looks]),
    )


def positions(plane: Plane) -> array[float]:
    """The nodes' x, y in plane order (the frame's positions the page's geometry reads). O(n)."""
    xy = array("d")
    for node in plane.nodes.values():
        xy.append(node.x)
        xy.append(node.y)
    return xy
