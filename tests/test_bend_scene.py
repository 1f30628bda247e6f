"""The scene step: halos, badges, dashed fault lines, pulses, culling, arrowheads."""

from __future__ import annotations

from bend_helpers import K22, editor_with
from kappa_helpers import BUSINESS

from bendscope.bend import theme
from bendscope.bend.demo import demo_document
from bendscope.bend.editor import Editor
from bendscope.bend.scene import band, build_scene, edge_segment, parallel_offsets, pulse_value


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
    assert dashed_segments(scene) == 2
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
    assert "κ≈4" in {h.badge.text for h in scene.halos}


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

    for _ in range(50):
        first = editor_with([("a", "b"), ("b", "a")])
        assert parallel_offsets(first.plane)["e0"] != 0
        version = first.plane.version
        del first
        gc.collect()
        second = editor_with([("a", "b"), ("c", "d")])
        second.plane.version = version
        assert parallel_offsets(second.plane) == {"e0": 0.0, "e1": 0.0}


def test_many_visible_edges_become_hairlines_without_arrowheads_or_labels():
    from bendscope.bend.scene import EDGE_DETAIL_LIMIT, HAIRLINE

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
    """Issue 9, bug 3: the halo was the members' bounding box, so a node outside the loop
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
