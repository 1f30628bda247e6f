"""The page's scene geometry (static/scene.js, run in node) against the Python reference:
for the same plane, camera and state, the page's geometry from a scene plan
(bend.render.sceneplan) equals ``draw_list(build_scene(...))`` — every halo part, edge segment,
arrowhead, label, badge, card box, header, pin, pulse, bar, decoration and text run, in
the same order — at every level of detail, culled or not, in both themes. Also: the path
builders' operation counts grow linearly and never use closePath (quadratic in Chromium).

Needs node (it comes with npm, which `make vendor` needs too).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from array import array
from pathlib import Path
from typing import Any

import pytest
from bend_helpers import K22, editor_with
from kappa_helpers import BUSINESS

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import Camera, Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.render import theme
from bendscope.bend.render.drawlist import DrawList, draw_list
from bendscope.bend.render.scene import LoopMarker, build_scene, loop_marker, pulse_value
from bendscope.bend.render.sceneplan import ScenePlanner, positions

ROOT = Path(__file__).resolve().parents[3]
DRIVER = ROOT / "tests" / "support" / "scene_geometry.js"
SCRIPT = ROOT / "static" / "scene.js"


def plain(value: Any) -> Any:
    """Arrays, bytes and tuples as JSON lists (what to_js makes of them, as far as the page's
    code can tell)."""
    if isinstance(value, (array, bytes, tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def run_js(job: dict[str, Any]) -> Any:
    node = shutil.which("node")
    assert node, "node is needed (it comes with npm, which `make vendor` needs too)"
    job = {"scripts": [str(SCRIPT)], **job}
    done = subprocess.run([node, str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def pill(p) -> list[Any]:
    return [p.x, p.y, p.width, p.height, p.text, p.font, p.fill, p.color, p.border]


def canonical(dl: DrawList, lod: str) -> dict[str, Any]:
    c = dl.cards
    return plain(
        {
            "lod": lod,
            "halos": [[h.fill, h.stroke, h.simple, h.rects, h.quads] for h in dl.halos],
            "edges": [[color, width, list(dash), segs] for color, width, dash, segs in dl.edges],
            "arrows": [[color, tris] for color, tris in dl.arrows],
            "labels": [pill(p) for p in dl.labels],
            "badges": [pill(p) for p in dl.badges],
            "dim": dl.dim,
            "markers": [[m.label, m.x, m.y, m.clockwise, m.color, pill(m.disk), m.arc, m.head] for m in dl.markers],
            "tags": [pill(p) for p in dl.tags],
            "cards": {
                "far": c.far,
                "normal": c.normal,
                "stargate": c.stargate,
                "headers": [[k, v] for k, v in c.headers.items()],
                "decorations": [[k, v] for k, v in c.decorations.items()],
                "pulses": [[k, v] for k, v in c.pulses.items()],
                "pins": c.pins,
                "selected": c.selected,
                "bars": c.bars,
                "texts": [[font, color, texts, xy] for (font, color), (texts, xy) in c.texts.items()],
            },
        }
    )


def same(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, (int, float)) and isinstance(b, (int, float)), f"{where}: {a!r} != {b!r}"
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9), f"{where}: {a!r} != {b!r}"
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{where}: {len(a)} items != {len(b)}: {a[:8]} … / {b[:8]} …"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def frame_of(editor: Editor, state: dict[str, Any], t_ms: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the reference geometry, the page's frame input) for the editor's plane in ``state``."""
    plane = editor.plane
    scene = build_scene(
        plane,
        editor.card,
        viewport=editor.viewport,
        selection=set(state.get("selection", ())),
        selected_edge=state.get("selected_edge"),
        topology=editor.topology(),
        time_ms=t_ms,
        editing=state.get("editing"),
        measure=editor.measure,
        dimmed=set(state.get("dimmed", ())),
        pins=state.get("pins", True),
        markers=state.get("markers", ()),
        loop_edges=set(state.get("loop_edges", ())),
        loop_class=state.get("loop_class", "?"),
        cut_edges=set(state.get("cut_edges", ())),
        tags=state.get("tags", ()),
    )
    cam = plane.camera
    w, h = editor.viewport
    view = {"cx": cam.x, "cy": cam.y, "zoom": cam.zoom, "width": w, "height": h, "pulse": round(pulse_value(t_ms), 4)}
    if "pins" in state:
        view["pins"] = state["pins"]
    return canonical(draw_list(scene), scene.lod), {"xy": plain(positions(plane)), "view": view}


def check(editor: Editor, cameras: list[tuple[float, float, float]], states: list[dict[str, Any]]) -> int:
    """Every (camera, state) frame of the page's geometry equals the reference; returns the
    number of frames checked. One planner follows all the states, as the page's does."""
    planner = ScenePlanner()
    calls: list[Any] = []
    expected, frames = [], []
    plane = editor.plane
    for state in states:
        for k, (x, y, zoom) in enumerate(cameras):
            plane.camera.x, plane.camera.y, plane.camera.zoom = x, y, zoom
            reference, frame = frame_of(editor, state, 900.0 * k)
            update = planner.update(
                plane,
                editor.card,
                doc_version=editor.version,
                topology=editor.topology(),
                selection=state.get("selection", ()),
                selected_edge=state.get("selected_edge"),
                dimmed=state.get("dimmed", ()),
                editing=state.get("editing"),
                measure=editor.measure,
                viewport=editor.viewport,
                markers=state.get("markers", ()),
                loop_edges=state.get("loop_edges", ()),
                loop_class=state.get("loop_class", "?"),
                cut_edges=state.get("cut_edges", ()),
                tags=state.get("tags", ()),
            )
            calls.extend(update)
            # the page applies each frame's calls before its geometry: one job per frame
            got = run_js({"calls": plain(calls), "frames": [frame]})[0]
            same(got, reference, f"camera {(x, y, zoom)}, state {state}")
            expected.append(reference)
            frames.append(frame)
    return len(frames)


def cameras_for(editor: Editor) -> list[tuple[float, float, float]]:
    editor.fit_view()
    cam = editor.plane.camera
    first = next(iter(editor.plane.nodes.values()))
    return [
        (cam.x, cam.y, cam.zoom),  # everything in view
        (first.x + 90.0, first.y - 40.0, 1.0),  # culled: a corner of the graph
        (cam.x, cam.y, 0.3),  # greek
        (cam.x, cam.y, 0.12),  # far
        (first.x, first.y, 2.8),  # very close
    ]


def test_the_demo_in_every_state_and_level_of_detail():
    editor = Editor(demo_document())
    editor.settle()
    ids = list(editor.plane.nodes)
    edge_ids = list(editor.plane.edges)
    states = [
        {},
        {"selection": ids[:3], "selected_edge": edge_ids[2]},
        {"dimmed": ids[2:6], "editing": ids[1]},
    ]
    assert check(editor, cameras_for(editor), states) == 15


@pytest.mark.parametrize("pairs", [BUSINESS, K22], ids=["business", "k22"])
def test_halos_badges_and_fault_lines(pairs):
    editor = editor_with(pairs)
    editor.settle()
    check(editor, cameras_for(editor), [{}, {"selected_edge": next(iter(editor.plane.edges))}])


def test_markup_pins_stargates_placeholders_and_the_dark_theme():
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    editor.set_text("a", "# Heading\n- **bold** and *it* `code`\n> quote\n    indented code\n[link](https://x.org)")
    editor.set_text("b", "")
    editor.set_pinned("c", True)
    editor.set_type("d", "stargate")
    editor.set_edge(next(iter(editor.plane.edges)), label="a label " * 8)
    editor.settle()
    try:
        theme.use("dark")
        check(editor, cameras_for(editor)[:3], [{}, {"editing": "a"}])
    finally:
        theme.use("light")
    check(editor, cameras_for(editor)[:3], [{"selection": ["a", "d"]}, {"pins": False}])


def test_curved_edges_between_the_same_two_nodes():
    """Two-way pairs and groups of three, horizontal, vertical and slanted, labelled, directed
    and not, some with a polarity, one of them a fault line and one selected: the page's
    curves, arrowheads, label places and polarity marks equal the reference."""
    plane = Plane("p", "P")
    spots = {"a": (0, 0), "b": (420, 0), "c": (0, 360), "d": (300, 700), "e": (-400, 500)}
    for name, (x, y) in spots.items():
        plane.add_node(Node(name, f"card {name}", x=float(x), y=float(y), pinned=True))
    arcs = [("a", "b", "causal", "+"), ("b", "a", "causal", "−"), ("a", "c", "temporal", "then"),
            ("c", "a", "associative", "a much longer label on this side"), ("c", "d", "causal", ""),
            ("d", "c", "context", "ctx"), ("c", "d", "causal", "twice"), ("e", "c", "causal", "one way")]  # fmt: skip
    signs = {0: "+", 1: "-", 2: "-", 6: "+", 7: "-"}
    for k, (a, b, kind, label) in enumerate(arcs):
        plane.add_edge(Edge(f"e{k}", a, b, EdgeProps(label, kind, 1 + k % 5, signs.get(k))))
    editor = Editor(Document([plane], "p"))
    editor.plane.camera.zoom = 1.0
    scene = build_scene(editor.plane, editor.card, viewport=(4000, 4000), measure=editor.measure)
    assert sorted(p.text for p in scene.labels if p.width == theme.POLARITY_SIZE) == ["+", "+", "−", "−", "−"]
    assert editor.topology().fault_edges  # a→b→a is a loop: one of its arcs is dashed
    check(editor, cameras_for(editor), [{}, {"selected_edge": "e3"}])


def _dense(n: int, m: int, seed: int = 2, two_way: tuple[tuple[str, str], ...] = ()) -> Editor:
    """``n`` cards and ``m`` random edges; ``two_way``: pairs joined both ways as well (curves)."""
    rng = random.Random(seed)
    plane = Plane("p", "P")
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"node {i}", x=rng.uniform(-3000, 3000), y=rng.uniform(-2000, 2000)))
    kinds = ["causal", "causal", "temporal", "associative", "context"]
    for k in range(m):
        a, b = rng.randrange(n), rng.randrange(n)
        plane.add_edge(
            Edge(f"e{k}", f"n{a}", f"n{b}", EdgeProps("l" if k % 50 == 0 else "", rng.choice(kinds), 1 + k % 5))
        )
    for k, (a, b) in enumerate(two_way):
        plane.add_edge(Edge(f"two{k}", a, b, EdgeProps("", "causal", 2)))
        plane.add_edge(Edge(f"back{k}", b, a, EdgeProps("", "causal", 2)))
    return Editor(Document([plane], "p"))


def test_many_edges_hairlines_and_a_big_halo():
    editor = _dense(400, 2600)
    topology = editor.topology()
    assert max(len(s["nodes"]) for s in topology.result["sccs"]) > 100
    check(editor, cameras_for(editor)[:4], [{}, {"selected_edge": "e7"}])


def test_the_planner_sends_only_what_changed():
    editor = Editor(demo_document())
    editor.settle()
    planner = ScenePlanner()

    def names(**state: Any) -> list[str]:
        calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                               measure=editor.measure, **state)  # fmt: skip
        return [name for name, _ in calls]

    assert names() == ["setConstants", "setNodes", "setArt", "setEdges", "setHalos", "setMarkers", "setFlags"]
    assert names() == []  # nothing changed: nothing sent (positions go with every frame)
    first = next(iter(editor.plane.nodes))
    assert names(selection=[first]) == ["setFlags"]
    editor.set_text(first, "new text")
    calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                           measure=editor.measure, selection=[first])  # fmt: skip
    assert [n for n, _ in calls] == ["patchNodes", "setArt"]
    assert list(calls[0][1][0]) == [0]  # the size of the one card whose text changed
    assert calls[1][1][1] == [first]  # and its art
    theme.use("dark")
    try:
        assert names(selection=[first])[0] == "setConstants"
    finally:
        theme.use("light")


def test_path_builders_are_linear_and_never_close_a_path():
    """Path2D.closePath costs O(path length) in Chromium, so halo() and
    fillTriangles() were quadratic. Count every call the drawing makes: none is closePath,
    and the counts grow in proportion to what is drawn."""
    ratios = []
    for n in (60, 120, 240, 480):
        editor = _dense(n, 3 * n, seed=n)
        editor.settle()
        editor.fit_view()
        planner = ScenePlanner()
        calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                               measure=editor.measure)  # fmt: skip
        editor.plane.camera.zoom = 0.5  # detail enough for halos with outlines and arrowheads
        editor.viewport = (1e6, 1e6)  # everything in view
        reference, frame = frame_of(editor, {}, 0.0)
        counted = run_js({"calls": plain(calls), "frames": [frame], "count": True})
        assert not any(name.endswith("closePath") for name in counted), counted
        operations = sum(v for k, v in counted.items() if k.startswith("path."))
        # (a band is five path operations by design: its four corners and the line that closes it)
        items = sum(len(h[3]) // 4 + 5 * (len(h[4]) // 8) for h in reference["halos"])
        items += sum(len(b[3]) // 4 for b in reference["edges"]) + sum(len(a[1]) // 6 for a in reference["arrows"])
        cards = reference["cards"]
        items += (
            len(cards["normal"]) // 4
            + len(cards["stargate"]) // 4
            + len(reference["labels"])
            + len(reference["badges"])
        )
        assert any(len(h[3]) for h in reference["halos"]) and reference["arrows"]  # halos and arrowheads were drawn
        ratios.append(operations / items)
    # a bounded number of path operations per item drawn, whatever the size (linear)
    assert max(ratios) < 6 and max(ratios) < 1.3 * min(ratios), ratios


def test_outlined_halos_are_filled_not_clipped_and_lone_wide_lines_have_butt_caps():
    """The two costs of the software rasteriser a whole frame can do without: an outlined halo's
    inside is repainted by filling its path, not through a clip the canvas's size; a wide line
    standing alone (ending under a card or in its arrowhead) is stroked with butt caps — a plain
    polygon —, while the pieces of a curve keep their round caps (they close the joints)."""
    editor = _dense(60, 160, seed=5, two_way=(("n1", "n2"), ("n3", "n4")))
    editor.settle()
    editor.fit_view()
    planner = ScenePlanner()
    calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                           measure=editor.measure)  # fmt: skip
    editor.plane.camera.zoom = 0.5  # (detail enough for outlined halos and arrowheads)
    editor.viewport = (1e6, 1e6)
    reference, frame = frame_of(editor, {}, 0.0)
    assert any(not h[2] and h[3] for h in reference["halos"])  # (an outlined halo was drawn)
    counted = run_js({"calls": plain(calls), "frames": [frame], "count": True})
    assert "ctx.clip" not in counted, counted
    alone = joined = dashed = 0
    for _, width, dash, flat in reference["edges"]:
        if not width or dash:
            dashed += 1 if dash else 0  # (a dashed batch is stroked with butt caps, as before)
            continue
        for i in range(0, len(flat), 4):
            after = i > 0 and flat[i : i + 2] == flat[i - 2 : i]
            before = i + 4 < len(flat) and flat[i + 2 : i + 4] == flat[i + 4 : i + 6]
            alone, joined = (alone, joined + 1) if after or before else (alone + 1, joined)
    assert alone > 0 and joined > 0, (alone, joined)
    assert counted["ctx.lineCap=butt"] == alone + dashed, counted


def test_far_out_thin_halo_bands_are_hairlines_not_filled_polygons():
    """Far out a halo's band is a few device px wide, and a filled polygon costs the software
    rasteriser ~5 µs however small (2,000 bands: 13 ms a frame): a band up to 3 device px wide
    is drawn as hairlines along it (its width in px, rounded), in as few strokes as the layers; a wider one (still
    far, nearer) is filled as before. The boxes stay one fillRect each."""
    editor = _dense(160, 480, seed=9)
    editor.settle()
    editor.fit_view()
    planner = ScenePlanner()
    calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                           measure=editor.measure)  # fmt: skip
    editor.viewport = (1e6, 1e6)  # everything in view
    for zoom, lines in ((0.03, 1), (0.05, 2), (0.08, 3), (0.15, 0)):  # bands 1.1, 1.8, 2.9 and 5.4 px wide
        editor.plane.camera.zoom = zoom
        reference, frame = frame_of(editor, {}, 0.0)
        assert reference["lod"] == "far"
        layers = len(reference["halos"])
        bands = sum(len(h[4]) // 8 for h in reference["halos"])
        boxes = sum(len(h[3]) // 4 for h in reference["halos"])
        assert bands > 50 and layers >= 1, (bands, layers)
        job = {"calls": plain(calls), "frames": [frame], "count": True}
        every = run_js(job)
        rest = run_js({**job, "env": {"skip": {"halos": 1}}})
        halos = {k: v - rest.get(k, 0) for k, v in every.items() if v != rest.get(k, 0)}
        assert halos["ctx.fillRect"] == boxes, halos
        if lines:
            assert "ctx.fill" not in halos, halos  # no band filled
            assert halos["ctx.stroke"] == layers, halos
            assert halos["path.moveTo"] == halos["path.lineTo"] == lines * bands, halos
        else:
            assert halos["ctx.fill"] == layers and "ctx.stroke" not in halos, halos
            assert halos["path.lineTo"] == 4 * bands, halos  # (each band: a moveTo and four lineTo)


def test_cards_art_is_made_only_for_cards_near_the_view_and_never_far_out():
    editor = _dense(400, 800)
    planner = ScenePlanner()
    plane = editor.plane

    def art_sent(**kw: Any) -> list[str]:
        calls = planner.update(plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                               measure=editor.measure, viewport=(800.0, 600.0), **kw)  # fmt: skip
        return [i for name, args in calls if name == "setArt" for i in args[1]]

    plane.camera.x, plane.camera.y, plane.camera.zoom = 0.0, 0.0, 0.1  # far: boxes only
    assert art_sent() == []
    plane.camera.zoom = 1.0
    near = art_sent()
    assert 0 < len(near) < 60  # the cards in and around an 800 × 600 view, not the 400
    for node_id in near:
        node = plane.nodes[node_id]
        assert abs(node.x) <= 800 + node.width and abs(node.y) <= 600 + node.height
    assert art_sent() == []  # held already
    plane.camera.x = 2500.0  # panned: the cards there now
    assert set(art_sent()).isdisjoint(near)
    # an export's painter sees the plane through its own camera: with the screen far out (no
    # art at all) an image of the whole plane at zoom 1 still gets every card's text
    plane.camera.zoom = 0.1
    export = ScenePlanner()
    calls = export.update(plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                          measure=editor.measure, viewport=(8000.0, 6000.0), camera=Camera(0.0, 0.0, 1.0))  # fmt: skip
    assert len([i for name, args in calls if name == "setArt" for i in args[1]]) == len(plane.nodes)


def test_a_new_plane_of_the_same_version_is_never_taken_for_the_last_one():
    """The planner holds the plane it planned for: a replaced document's plane with an equal
    version (and possibly the old one's address) gets all its parts sent again."""
    planner = ScenePlanner()
    calls = None
    for pairs in ([("a", "b"), ("b", "a")], [("x", "y"), ("y", "z")]):
        editor = editor_with(pairs)
        editor.plane.version = 7
        editor.version = 3
        calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                               measure=editor.measure)  # fmt: skip
    assert calls is not None
    assert {name for name, _ in calls} >= {"setNodes", "setEdges", "setHalos", "setFlags"}


def _markers_of(editor: Editor) -> list[LoopMarker]:
    report = editor.loops(wait=True)
    assert report is not None
    loops = [loop for group in report.groups for loop in group.loops]
    return [LoopMarker(f"{loop.polarity}{k + 1}", loop.polarity, loop.nodes) for k, loop in enumerate(loops)]


def test_loop_markers_and_the_edges_shown_on_request():
    """Loop markers (at the loops' centres, turning each loop's way), a shown loop's edges in
    its class's colour and the edges shown as breaking every loop: the page's geometry equals
    the reference at every level of detail and in both themes, with the selected edge too."""
    positions = {"a": (0.0, 0.0), "b": (300.0, 0.0), "c": (150.0, 250.0), "d": (600.0, 100.0)}
    pairs = [("a", "b"), ("b", "c"), ("c", "a"), ("b", "d"), ("d", "b"), ("a", "c"), ("c", "b"), ("b", "a")]
    editor = editor_with(pairs, positions=positions)
    for edge_id in editor.plane.edges:
        editor.set_edge(edge_id, polarity="+")
    markers = _markers_of(editor)
    directions = {m.label: loop_marker(editor.plane, m) for m in markers}
    assert {m.clockwise for m in directions.values() if m is not None} == {True, False}  # both ways round
    loop = editor.loops(wait=True).groups[0].loops[-1]
    shown = {"markers": markers, "loop_edges": loop.edges, "loop_class": loop.polarity, "tags": loop.nodes}
    states = [{"markers": markers}, shown, {**shown, "cut_edges": ["e0", "e3"], "selected_edge": "e5"}]
    check(editor, cameras_for(editor), states)
    try:
        theme.use("dark")
        check(editor, cameras_for(editor)[:1], states[1:])
    finally:
        theme.use("light")


def test_shown_edges_keep_their_width_among_hairlines_and_go_on_top():
    editor = _dense(400, 2600)
    loop = next(loop for g in editor.loops(wait=True).groups for loop in g.loops)
    state = {"loop_edges": loop.edges, "loop_class": loop.polarity, "cut_edges": ["e7"], "markers": _markers_of(editor)}
    check(editor, cameras_for(editor)[:4], [state])
    editor.fit_view()
    reference, _ = frame_of(editor, state, 0.0)
    colours = [(color, width) for color, width, _, _ in reference["edges"]]
    assert all(width == 0 for _, width in colours[:-2])  # hairlines …
    assert [c for c, _ in colours[-2:]] == [theme.CUT_COLOR, theme.LOOP_COLOR[loop.polarity]]  # … then these, wide
    assert all(width >= 3.0 for _, width in colours[-2:])


def test_a_shown_loops_names_are_tagged_at_a_readable_size_where_its_text_cannot_be_read():
    """Zoomed out (text as bars, or boxes only), each card of the shown loop carries its name in a
    tag of the same size on the screen at any zoom, centred on the card; at the detail zoom (the
    text itself is read) and for a card without text, none. The page's tags equal the reference's."""
    positions = {"a": (0.0, 0.0), "b": (900.0, 0.0), "c": (450.0, 700.0), "d": (1800.0, 300.0)}
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a"), ("b", "d")], positions=positions)
    editor.set_text("a", "# Customer retention\nmore lines")
    editor.set_text("b", "Word of mouth " * 4)
    editor.set_text("c", "")
    loop = editor.loops(wait=True).groups[0].loops[0]
    assert set(loop.nodes) == {"a", "b", "c"}
    shown = {"loop_edges": loop.edges, "loop_class": loop.polarity, "tags": loop.nodes}
    check(editor, cameras_for(editor), [shown, {**shown, "selection": ["a"]}])
    plane, measure = editor.plane, editor.measure
    for zoom in (0.3, 0.12, 0.03):
        plane.camera.x, plane.camera.y, plane.camera.zoom = 900.0, 300.0, zoom
        scene = build_scene(plane, editor.card, viewport=(1200, 800), topology=editor.topology(), measure=measure,
                            loop_edges=set(loop.edges), loop_class=loop.polarity, tags=loop.nodes)  # fmt: skip
        tags = {t.text: t for t in scene.tags}
        assert set(tags) == {"Customer retention", ("Word of mouth " * 3)[: theme.TAG_CHARS - 1] + "…"}, zoom
        for tag in tags.values():
            assert math.isclose(tag.height * zoom, theme.TAG_HEIGHT)
            assert math.isclose(tag.width * zoom, measure(tag.text, theme.TAG_FONT) + 2 * theme.TAG_PAD)
            assert tag.font.startswith("600 ") and math.isclose(float(tag.font.split()[1][:-2]) * zoom, 13.0)
            assert tag.border == theme.LOOP_COLOR[loop.polarity]
        assert (tags["Customer retention"].x, tags["Customer retention"].y) == positions["a"]
    plane.camera.zoom = 1.0
    scene = build_scene(plane, editor.card, viewport=(1200, 800), measure=measure, tags=loop.nodes)
    assert scene.lod == "detail" and scene.tags == []
    # cards close together: their tags are moved apart, not drawn over each other
    editor.set_text("c", "Price")
    plane.nodes["b"].x, plane.nodes["b"].y = 12.0, 6.0
    plane.nodes["c"].x, plane.nodes["c"].y = -8.0, 3.0
    check(editor, cameras_for(editor)[2:4], [shown])
    for zoom in (0.3, 0.12):
        plane.camera.x, plane.camera.y, plane.camera.zoom = 0.0, 0.0, zoom
        tags = build_scene(plane, editor.card, viewport=(1200, 800), measure=measure, tags=loop.nodes).tags
        assert len(tags) == 3 and all(t.x in (0.0, 12.0, -8.0) for t in tags)
        for k, one in enumerate(tags):
            for other in tags[k + 1 :]:
                assert abs(one.y - other.y) >= (one.height + other.height) / 2, (zoom, one, other)


def test_the_planner_sends_the_tags_when_they_change_and_not_otherwise():
    editor = editor_with([("a", "b"), ("b", "a")])
    planner = ScenePlanner()

    def names(**state: Any) -> list[str]:
        calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                               measure=editor.measure, **state)  # fmt: skip
        return [name for name, _ in calls if name == "setTags"]

    assert names() == []  # (none: the page's plan starts with none)
    calls = planner.update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                           measure=editor.measure, tags=("a", "b", "gone"))  # fmt: skip
    (tags,) = [args[0] for name, args in calls if name == "setTags"]
    assert [(t["node"], t["text"]) for t in tags] == [(0, "a"), (1, "b")]
    assert tags[0]["width"] == editor.measure("a", theme.TAG_FONT)
    assert names(tags=("a", "b", "gone")) == []
    editor.set_text("a", "Renamed")
    assert names(tags=("a", "b", "gone")) == ["setTags"]  # (a name changed)
    assert names() == ["setTags"]  # (the loop no longer shown: none)
    assert names() == []


def test_a_long_loop_tags_its_first_cards_only():
    """A loop of 150 named cards: its first ``theme.TAG_MAX`` (100) in the loop's order are
    tagged, by the page's plan and the reference alike (placing each clear of the others is
    quadratic)."""
    ring = [(f"n{i}", f"n{(i + 1) % 150}") for i in range(150)]
    editor = editor_with(ring, positions={f"n{i}": (i * 40.0, 0.0) for i in range(150)})
    order = [f"n{i}" for i in range(150)]
    calls = ScenePlanner().update(editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(),
                                  measure=editor.measure, tags=order)  # fmt: skip
    (tags,) = [args[0] for name, args in calls if name == "setTags"]
    assert [t["text"] for t in tags] == order[: theme.TAG_MAX] and theme.TAG_MAX == 100
    plane = editor.plane
    plane.camera.x, plane.camera.y, plane.camera.zoom = 3000.0, 0.0, 0.05
    scene = build_scene(plane, editor.card, viewport=(1200, 800), measure=editor.measure, tags=order)
    assert sorted(t.text for t in scene.tags) == sorted(order[: theme.TAG_MAX])
