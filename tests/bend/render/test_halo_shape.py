"""One loop region's halo reads as one connected shape, on the canvas and in the images,
wherever its cards stand: a large region laid out in a row (as Arrange lays a loop out) is
joined along the row."""

from __future__ import annotations

from bend_helpers import editor_with

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.elements import Camera
from bendscope.bend.render.halos import halo_trees
from bendscope.bend.render.scene import BAND_MEMBERS, LONG_BAND, LONG_BANDS, Halo, build_scene
from bendscope.bend.render.svgexport import image_view


def ring_in_a_row(n: int) -> Editor:
    """A loop of ``n`` cards 260 apart in one row: the arc that closes it spans the row."""
    pairs = [(f"n{k}", f"n{(k + 1) % n}") for k in range(n)]
    return editor_with(pairs, positions={f"n{k}": (260.0 * k, 0.0) for k in range(n)})


def connected(editor: Editor, halo: Halo) -> bool:
    """Whether the halo's bands join all its cards into one piece (each band runs from one
    card's centre to another's)."""
    centres = {(round(n.x, 6), round(n.y, 6)): n.id for n in editor.plane.nodes.values()}
    parent = {n: n for n in centres.values()}

    def root(n: str) -> str:
        while parent[n] != n:
            n = parent[n]
        return n

    q = halo.links
    for i in range(0, len(q), 8):
        start = (round((q[i] + q[i + 6]) / 2, 6), round((q[i + 1] + q[i + 7]) / 2, 6))
        end = (round((q[i + 2] + q[i + 4]) / 2, 6), round((q[i + 3] + q[i + 5]) / 2, 6))
        parent[root(centres[start])] = root(centres[end])
    return len({root(n) for n in parent}) == 1


def test_a_large_loop_in_a_row_is_one_halo_on_the_canvas_and_in_the_images():
    n = BAND_MEMBERS + 10
    editor = ring_in_a_row(n)
    assert 260.0 * (n - 1) > LONG_BAND  # the closing arc is a long one
    editor.plane.camera.x, editor.plane.camera.zoom = 260.0 * n / 2, 0.05
    scene = build_scene(editor.plane, editor.card, viewport=(1e4, 1e3), topology=editor.topology(),
                        measure=editor.measure)  # fmt: skip
    (halo,) = scene.halos
    assert len(halo.rects) // 4 == n and connected(editor, halo)
    (exported,) = image_view(editor, None, ()).scene.halos
    assert connected(editor, exported)


def test_the_halo_tree_is_the_shortest_its_arcs_allow_and_follows_the_cards():
    editor = ring_in_a_row(8)
    pairs = halo_trees(editor.plane, editor.topology())["scc-0"]
    assert sorted(sorted(p) for p in pairs) == sorted(sorted((f"n{k}", f"n{k + 1}")) for k in range(7))
    # the cards move (the row turned end for end round n3): a new epoch gives the new shortest tree
    for node in editor.plane.nodes.values():
        node.x = 260.0 * ((int(node.id[1:]) + 4) % 8)
    assert halo_trees(editor.plane, editor.topology()) is not halo_trees(editor.plane, editor.topology(), 1)
    moved = halo_trees(editor.plane, editor.topology(), 1)["scc-0"]
    assert ("n7", "n0") in moved and all(sorted(p) != ["n3", "n4"] for p in moved)


def star_of_loops(spokes: int) -> Editor:
    """``spokes`` two-card loops round a hub, each joined to the hub and back, the hub's arcs
    all long: one region whose tree has ``spokes`` long bands and nothing shorter to use."""
    pairs = []
    positions = {"hub": (0.0, 0.0)}
    for k in range(spokes):
        a, b = f"a{k}", f"b{k}"
        pairs += [("hub", a), (a, b), (b, "hub")]
        positions[a] = (3000.0 * (k + 1), 0.0)
        positions[b] = (3000.0 * (k + 1), 200.0)
    return editor_with(pairs, positions=positions)


def test_a_large_region_draws_its_long_bands_only_when_they_are_few():
    """Few long bands (a region laid out along its loops) are drawn, so it reads as one shape;
    a tangle of them (hundreds across the view, each as costly as a line across it) is not."""
    few = star_of_loops(BAND_MEMBERS // 2 + 1)  # more than BAND_MEMBERS cards, few long arcs
    assert len(few.plane.nodes) > BAND_MEMBERS
    scene = build_scene(few.plane, few.card, viewport=(1e4, 1e3), topology=few.topology(), measure=few.measure,
                        camera=Camera(0.0, 0.0, 1e-3))  # fmt: skip
    (halo,) = scene.halos
    assert connected(few, halo)
    many = star_of_loops(LONG_BANDS + 1)
    scene = build_scene(many.plane, many.card, viewport=(1e4, 1e3), topology=many.topology(), measure=many.measure,
                        camera=Camera(0.0, 0.0, 1e-3))  # fmt: skip
    (halo,) = scene.halos
    assert not connected(many, halo) and len(halo.links) // 8 == LONG_BANDS + 1  # only the short ones
