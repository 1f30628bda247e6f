"""The scene step: halos, badges, dashed fault lines, pulses, culling, arrowheads."""

from __future__ import annotations

import math

import pytest
from bend_helpers import K22, editor_with
from hypothesis import given
from hypothesis import strategies as st
from kappa_helpers import BUSINESS

from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.hit_testing import TOUCH_EDGE_TOLERANCE
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.edge_paths import CURVE_PIECES, edge_path, edge_segment, parallel_offsets
from bendscope.bend.render.halos import band
from bendscope.bend.render.scene import InteractionView, LinkView, build_scene, overlay_of, pulse_value


def scene_of(editor: Editor, **kw):
    editor.settle()
    editor.fit_view()
    cards = {n.id: editor.card(n) for n in editor.plane.nodes.values()}
    return build_scene(editor.plane, cards, viewport=editor.viewport, topology=editor.topology(), **kw)


def dashed_segments(scene) -> int:
    return sum(count for (color, width, dash), count in scene.edge_styles().items() if dash)


def test_business_example_scene():
    editor = editor_with(BUSINESS)
    scene = scene_of(editor, still=True)
    (halo,) = scene.halos
    assert halo.kappa == 1 and halo.badge.text == "κ=1"
    assert halo.fill == theme.HALO_FILL[1]
    members = [editor.plane.nodes[n] for n, _ in BUSINESS]
    assert halo.x == min(n.x - n.width / 2 for n in members) - 30
    assert halo.y + halo.height == max(n.y + n.height / 2 for n in members) + 30
    # the badge sits at the top-right corner of the top-most member's box
    top = min(members, key=lambda n: (n.y - n.height / 2, -(n.x + n.width / 2)))
    assert abs((halo.badge.x + halo.badge.width / 2) - (top.x + top.width / 2 + 30)) <= 8
    assert abs(halo.badge.y - (top.y - top.height / 2 - 30)) <= 12
    assert dashed_segments(scene) == 1
    assert ((theme.FAULT_COLOR, 2.2, theme.FAULT_DASH)) in scene.edge_styles()
    assert all(card.pulse == 1.0 for card in scene.cards)  # frozen under still


def test_k22_scene_kappa_two():
    editor = editor_with(K22)
    scene = scene_of(editor, still=True)
    (halo,) = scene.halos
    assert halo.badge.text == "κ=2" and halo.fill == theme.HALO_FILL[2]
    # K2,2's arcs all go both ways: each fault line is a curve of CURVE_PIECES pieces
    assert dashed_segments(scene) == 2 * CURVE_PIECES
    assert sum(1 for c in scene.cards if c.pulse) == 4


def test_three_halo_levels_and_approximate_badge():
    pairs = [("a", "b"), ("b", "a")] + [(f"k{i}", f"k{j}") for i in range(4) for j in range(4) if i != j]
    editor = editor_with(pairs)
    scene = scene_of(editor)
    fills = sorted(h.fill for h in scene.halos)
    assert fills == sorted([theme.HALO_FILL[1], theme.HALO_FILL[3]])
    editor.exact_limit_override = 3
    editor.topology_cache.invalidate()
    scene = scene_of(editor)
    assert {h.badge.text for h in scene.halos} == {"κ=1", "κ=3"}  # past the limit, but the degrees settle κ
    joined = [*pairs, *((f"r{i}", f"r{j}") for i in range(4) for j in range(4) if i != j), ("k3", "r0"), ("r3", "k0")]
    editor = editor_with(joined)
    editor.exact_limit_override = 3
    assert "κ=1–3" in {h.badge.text for h in scene_of(editor).halos}  # κ = 1, bounds [1, 3] without a search: a range


def test_dag_has_no_halo_no_dash_no_pulse():
    editor = editor_with([("a", "b"), ("b", "c")])
    scene = scene_of(editor)
    assert scene.halos == [] and dashed_segments(scene) == 0
    assert all(card.pulse == 0 for card in scene.cards)


def test_pulse_formula():
    assert pulse_value(0) == 0.7
    assert abs(pulse_value(1000 * 3.14159265 / 2) - 1.0) < 1e-6


def test_edges_batched_by_style_with_arrowheads_only_for_directed():
    editor = Editor(demo_document())
    scene = scene_of(editor)
    colors = {batch.color for batch in scene.arrows}
    assert theme.EDGE_COLOR["causal"] in colors and theme.EDGE_COLOR["temporal"] in colors
    assert theme.EDGE_COLOR["associative"] not in colors
    assert len(scene.edges) <= 5  # one batch per style, not per edge
    assert {p.text for p in scene.labels} >= {"drives", "funds", "competes for"}


def test_culling_and_selection():
    editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (5000, 0)})
    editor.select(["a"])
    cards = {n.id: editor.card(n) for n in editor.plane.nodes.values()}
    scene = build_scene(editor.plane, cards, viewport=(800, 600), selection={"a"})
    assert [c.node_id for c in scene.cards] == ["a"] and scene.cards[0].selected


def test_parallel_edges_do_not_overlap():
    editor = editor_with([("a", "b"), ("b", "a")], positions={"a": (0, 0), "b": (400, 0)})
    offsets = parallel_offsets(editor.plane)
    s0 = edge_segment(editor.plane, editor.plane.edges["e0"], offsets["e0"])
    s1 = edge_segment(editor.plane, editor.plane.edges["e1"], offsets["e1"])
    assert abs(s0[1] - s1[1]) >= 6


def test_editing_node_hides_its_text_and_hostile_text_is_plain():
    editor = editor_with([("a", "b")])
    editor.set_text("a", "<img src=x onerror=alert(1)>")
    cards = {n.id: editor.card(n) for n in editor.plane.nodes.values()}
    scene = build_scene(editor.plane, cards, viewport=(1280, 800), editing="b")
    # the painter draws exactly ``card.lines`` (with fillText, never as HTML)
    texts = {c.node_id: [line.text for line in c.lines] for c in scene.cards}
    assert texts["b"] == []
    assert texts["a"] == ["<img src=x onerror=alert(1)>"]


def test_offsets_never_leak_between_planes_of_equal_version():
    """A later plane (possibly at a reused address) must not get an earlier plane's offsets."""
    import gc

    gc.freeze()  # (the session's objects out of the collections below: each frees ``first`` alone, not the heap)
    try:
        for _ in range(50):
            first = editor_with([("a", "b"), ("b", "a")])
            assert parallel_offsets(first.plane)["e0"] != 0
            version = first.plane.version
            del first
            gc.collect()
            second = editor_with([("a", "b"), ("c", "d")])
            second.plane.version = version
            assert parallel_offsets(second.plane) == {"e0": 0.0, "e1": 0.0}
    finally:
        gc.unfreeze()


def test_many_visible_edges_become_hairlines_without_arrowheads_or_labels():
    from bendscope.bend.render.scene import EDGE_DETAIL_LIMIT, HAIRLINE

    def grid_editor(n_edges: int) -> Editor:
        pairs = [(f"n{i % 60}", f"n{(i * 7 + 1) % 60}") for i in range(n_edges)]
        editor = editor_with([p for p in pairs if p[0] != p[1]])
        for k, edge_id in enumerate(list(editor.plane.edges)[:3]):
            editor.set_edge(edge_id, label=f"label {k}", kind="associative" if k else "causal")
        return editor

    below = grid_editor(EDGE_DETAIL_LIMIT // 2)
    detailed = build_scene(below.plane, below.card, viewport=(1e6, 1e6), topology=below.topology())
    assert all(b.width > 0 for b in detailed.edges) and detailed.arrows and detailed.labels

    above = grid_editor(EDGE_DETAIL_LIMIT + 50)
    above.plane.camera.zoom = 0.32
    topology = above.topology()
    scene = build_scene(above.plane, above.card, viewport=(1e6, 1e6), topology=topology)
    visible = sum(len(b.segments) for b in scene.edges) // 4
    assert visible > EDGE_DETAIL_LIMIT
    assert all(b.width == HAIRLINE for b in scene.edges) and not scene.arrows and not scene.labels
    styles = [(b.color, b.dash) for b in scene.edges]
    assert len(styles) == len(set(styles))  # merged: one batch per colour and dash
    selected = next(iter(above.plane.edges))
    chosen = build_scene(above.plane, above.card, viewport=(1e6, 1e6), topology=topology, selected_edge=selected)
    assert [b.width > 0 for b in chosen.edges if b.color == theme.EDGE_SELECTED] == [True]
    if topology.fault_edges:  # fault lines stay dashed
        assert any(b.dash == theme.FAULT_DASH for b in scene.edges)
    # culling counts: zoomed in on one corner, few edges are in view and they keep their detail
    above.plane.camera.zoom = 2.8
    above.plane.camera.x, above.plane.camera.y = 0.0, 0.0  # on node n0
    near = build_scene(above.plane, above.card, viewport=(800, 600), topology=topology)
    assert near.edges and all(b.width > 0 for b in near.edges)


def _inside(halo, x: float, y: float) -> bool:
    """Whether (x, y) lies in the halo's union of boxes and bands (corners taken square)."""
    r = halo.rects
    for i in range(0, len(r), 4):
        if r[i] <= x <= r[i] + r[i + 2] and r[i + 1] <= y <= r[i + 1] + r[i + 3]:
            return True
    q = halo.links
    for i in range(0, len(q), 8):
        pts = [(q[i + 2 * k], q[i + 2 * k + 1]) for k in range(4)]
        crosses = [
            (bx - ax) * (y - ay) - (by - ay) * (x - ax)
            for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1], strict=True)
        ]
        if all(c >= 0 for c in crosses):
            return True
    return False


def test_halo_holds_its_members_only():
    """The halo was the members' bounding box, so a node outside the loop
    sitting between them looked like a member."""
    positions = {"a": (0, 0), "b": (800, 0), "c": (800, 600), "d": (0, 600), "outsider": (400, 300)}
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("outsider", "a")], positions=positions)
    cards = {n.id: editor.card(n) for n in editor.plane.nodes.values()}
    editor.fit_view()
    scene = build_scene(editor.plane, cards, viewport=editor.viewport, topology=editor.topology(), still=True)
    (halo,) = scene.halos
    nodes = editor.plane.nodes
    assert all(_inside(halo, nodes[n].x, nodes[n].y) for n in "abcd")
    assert not _inside(halo, nodes["outsider"].x, nodes["outsider"].y)
    assert len(halo.links) == 3 * 8  # a spanning tree of 4 members: 3 bands


def test_bands_are_clockwise_on_screen():
    for x1, y1 in [(10, 0), (0, 10), (-10, 0), (0, -10), (7, -3)]:
        q = band(0, 0, x1, y1, 2)
        area = sum(q[2 * i] * q[(2 * i + 3) % 8] - q[(2 * i + 2) % 8] * q[2 * i + 1] for i in range(4))
        assert area > 0
    assert band(1, 1, 1, 1, 2) == ()


def test_the_dark_theme_uses_the_specs_colours():
    editor = editor_with(BUSINESS)
    try:
        theme.use("dark")
        scene = scene_of(editor, still=True)
        (halo,) = scene.halos
        assert halo.fill == "rgba(0,255,200,0.06)" and scene.background == "#0e1117"
        assert (theme.FAULT_COLOR, 2.2, theme.FAULT_DASH) in scene.edge_styles()
        assert theme.FAULT_COLOR == "rgba(0,255,200,0.6)" and theme.MODE_RETRIEVAL == "#00ff88"
        assert theme.HALO_FILL == {1: "rgba(0,255,200,0.06)", 2: "rgba(0,200,255,0.08)", 3: "rgba(180,100,255,0.10)"}
    finally:
        theme.use("light")
    assert scene_of(editor, still=True).halos[0].fill == theme.HALO_FILL[1] == "rgba(0,200,160,0.13)"
    try:
        theme.use("sepia")
    except ValueError as exc:
        assert "unknown theme" in str(exc)
    assert theme.NAME == "light"


def _pair(a_xy, b_xy, labels=("+", "−")) -> Editor:
    editor = editor_with([("a", "b"), ("b", "a")], positions={"a": a_xy, "b": b_xy})
    for edge_id, label in zip(("e0", "e1"), labels, strict=True):
        editor.set_edge(edge_id, label=label)
    return editor


def _side(ax, ay, bx, by, x, y) -> float:
    """Which side of the line a→b the point is on (the sign of the cross product)."""
    return (bx - ax) * (y - ay) - (by - ay) * (x - ax)


@pytest.mark.parametrize("b_xy", [(400, 0), (0, 400), (300, 260)], ids=["across", "down", "slanted"])
def test_two_way_edges_are_separated_curves_with_their_labels_on_their_own_sides(b_xy):
    """A "+" on a→b and a "−" on b→a were one blob, the arcs 7 px apart. Now each arc
    is a curve; their middles are 35 world px apart; each label lies wholly on its own arc's
    side of the line between the centres, so the two never overlap."""
    editor = _pair((0, 0), b_xy, labels=("+", "a longer label"))
    scene = scene_of(editor, still=True)
    pills = {p.text: p for p in scene.labels}
    a, b = editor.plane.nodes["a"], editor.plane.nodes["b"]
    plus, minus = pills["+"], pills["a longer label"]
    for pill in (plus, minus):  # no corner of a pill on the far side of the centre line
        corners = [(pill.x + sx * pill.width / 2, pill.y + sy * pill.height / 2) for sx in (-1, 1) for sy in (-1, 1)]
        sides = {_side(a.x, a.y, b.x, b.y, x, y) > 0 for x, y in corners}
        assert len(sides) == 1, pill
    assert (_side(a.x, a.y, b.x, b.y, plus.x, plus.y) > 0) != (_side(a.x, a.y, b.x, b.y, minus.x, minus.y) > 0)
    middles = []
    for edge_id in ("e0", "e1"):
        path = edge_path(editor.plane, editor.plane.edges[edge_id])
        assert path is not None and len(path) == 2 * (CURVE_PIECES + 1)
        middles.append((path[CURVE_PIECES], path[CURVE_PIECES + 1]))
    (x0, y0), (x1, y1) = middles
    assert math.dist((x0, y0), (x1, y1)) >= 34.9


def test_a_single_edge_stays_straight_with_its_label_in_the_middle():
    editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (400, 0)})
    editor.set_edge("e0", label="drives")
    scene = scene_of(editor, still=True)
    (pill,) = scene.labels
    seg = edge_segment(editor.plane, editor.plane.edges["e0"])
    assert (pill.x, pill.y) == ((seg[0] + seg[2]) / 2, (seg[1] + seg[3]) / 2)
    assert len(edge_path(editor.plane, editor.plane.edges["e0"])) == 4


@pytest.mark.parametrize("zoom", [0.3, 0.6, 1.0, 2.5])
def test_each_arc_of_a_two_way_pair_is_picked_at_every_zoom(zoom):
    """At the opening zoom the two arcs were ~4 screen px apart. A click on either
    arc's middle picks that arc, at every zoom, and the reach around a line is the same number
    of screen px at every zoom (6 for a mouse, 14 for a finger)."""
    editor = _pair((0, 0), (400, 0), labels=("", ""))  # (a label is a target of its own)
    editor.plane.camera.zoom = zoom
    for edge_id in ("e0", "e1"):
        path = edge_path(editor.plane, editor.plane.edges[edge_id])
        sx, sy = editor.world_to_screen(path[CURVE_PIECES], path[CURVE_PIECES + 1])
        assert editor.edge_at(sx, sy).id == edge_id
        outward = 1 if sy > editor.world_to_screen(200, 0)[1] else -1  # away from the other arc
        assert editor.edge_at(sx, sy + outward * 5).id == edge_id
        assert editor.edge_at(sx, sy + outward * 12) is None
        assert editor.edge_at(sx, sy + outward * 12, TOUCH_EDGE_TOLERANCE).id == edge_id


def test_a_click_on_a_label_picks_its_edge():
    editor = _pair((0, 0), (400, 0), labels=("pays for", "limits"))
    scene = scene_of(editor, still=True)
    for pill in scene.labels:
        sx, sy = editor.world_to_screen(pill.x + pill.width / 2 - 2, pill.y)  # the pill's far end
        want = "e0" if pill.text == "pays for" else "e1"
        assert editor.edge_at(sx, sy).id == want


@pytest.mark.parametrize("angle", range(0, 360, 15))
def test_the_ends_of_shifted_edges_lie_on_the_cards_borders_and_arrowheads_outside(angle):
    """A two-way pair's ends were shifted sideways from the border points, so one end of each
    lay up to 3.5 px under its card and its arrowhead was mostly hidden there (seen on
    Population ↔ Resources). Now every end is on its card's border, at every direction, and
    each arrowhead's tip is on the border with the middle of its base outside the card (a curve
    may meet a border at a slant, so one corner of the base can dip under it by a few px)."""
    far = 190.0
    bx, by = far * math.cos(math.radians(angle)), far * math.sin(math.radians(angle))
    editor = editor_with([("a", "b"), ("b", "a")], positions={"a": (0, 0), "b": (bx, by)})
    nodes = editor.plane.nodes

    def on_border(node, x, y) -> bool:
        return math.isclose(max(abs(x - node.x) / (node.width / 2), abs(y - node.y) / (node.height / 2)), 1.0)

    def under(node, x, y, depth=0.0) -> bool:
        return abs(x - node.x) < node.width / 2 - depth and abs(y - node.y) < node.height / 2 - depth

    for edge in editor.plane.edges.values():
        path = edge_path(editor.plane, edge)
        assert on_border(nodes[edge.a], path[0], path[1]) and on_border(nodes[edge.b], path[-2], path[-1])
    scene = scene_of(editor, still=True)
    tips = [batch.triangles[k : k + 6] for batch in scene.arrows for k in range(0, len(batch.triangles), 6)]
    assert len(tips) == 2
    for tri in tips:
        target = min(nodes.values(), key=lambda n: math.dist((n.x, n.y), (tri[0], tri[1])))
        assert on_border(target, tri[0], tri[1])
        base = ((tri[2] + tri[4]) / 2, (tri[3] + tri[5]) / 2)
        assert not under(target, *base), (angle, tri)
        assert not any(under(target, tri[k], tri[k + 1], 4.0) for k in (2, 4)), (angle, tri)


def test_a_pinned_card_is_marked_quietly_and_an_export_can_leave_the_mark_out():
    """Every created node (pinned where it is made) showed a PINNED header and a
    red dot that read as an error. Now it shows a small grey dot and no header, in both
    themes; ``pins=False`` (a plain exported image) leaves the dot out."""
    import colorsys

    editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (300, 0)})
    made = editor.add_node(100, 200, pinned=True)
    scene = scene_of(editor, still=True)
    card = next(c for c in scene.cards if c.node_id == made)
    assert card.pinned and card.header == ""
    for name in ("light", "dark"):
        theme.use(name)
        try:
            rgb = [int(theme.PIN_MARK[i : i + 2], 16) / 255 for i in (1, 3, 5)]
            assert colorsys.rgb_to_hsv(*rgb)[1] < 0.2, theme.PIN_MARK  # grey, not a signal colour
        finally:
            theme.use("light")
    cards = {n.id: editor.card(n) for n in editor.plane.nodes.values()}
    plain = build_scene(editor.plane, cards, viewport=editor.viewport, pins=False)
    assert not any(c.pinned for c in plain.cards)


@given(
    tx=st.floats(-50, 440),
    ty=st.floats(-50, 900),
    zoom=st.floats(0.2, 3.0),
    text_px=st.floats(20, 300),
)
def test_the_connection_pill_stays_inside_the_window(tx, ty, zoom, text_px):
    """Wherever the target is, the κ pill of a dragged connection is drawn wholly inside the
    window's world box (when it fits across it)."""
    plane = Plane("p", "P")
    plane.add_node(Node("a", "a", x=0.0, y=0.0))
    bounds = (-100.0, -50.0, -100.0 + 390 / zoom, -50.0 + 844 / zoom)
    view = InteractionView(handle="a", link=LinkView("a", (tx, ty), None, "→ b (κ: 0→1)", True))
    pill = overlay_of(plane, view, zoom, lambda text, font: text_px, bounds).label
    assert pill is not None
    assert bounds[0] - 1e-6 <= pill.x - pill.width / 2 and pill.x + pill.width / 2 <= bounds[2] + 1e-6
    assert bounds[1] - 1e-6 <= pill.y - pill.height / 2 and pill.y + pill.height / 2 <= bounds[3] + 1e-6
