"""The page's geometry split in two (static/scene.js ``view.only`` / ``view.side``, which a
drag's frames draw as a kept layer and a moving part over it, see static/damage.js): what does
not move and what moves together hold exactly the whole frame's cards, edge segments, arrows,
halo parts and badges — none lost, none drawn twice — in the whole frame's batches and order,
whichever cards move.

Needs node (it comes with npm, which `make vendor` needs too)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.render.sceneplan import ScenePlanner, positions
from tests.bend.render.test_scene_geometry import ROOT, plain, run_js

DAMAGE = ROOT / "static" / "damage.js"


def frames(editor: Editor, only: list[int] | None) -> list[Any]:
    """The whole geometry, then (with ``only``) the side that does not move and the moving one."""
    plane = editor.plane
    calls = ScenePlanner().update(
        plane, editor.card, doc_version=editor.version, topology=editor.topology(), measure=editor.measure,
        viewport=editor.viewport, selection=list(plane.nodes)[:2],
    )  # fmt: skip
    cam = plane.camera
    w, h = editor.viewport
    view = {"cx": cam.x, "cy": cam.y, "zoom": cam.zoom, "width": w, "height": h, "pulse": 0.8}
    xy = plain(positions(plane))
    sides = [view, {**view, "only": only, "side": 0}, {**view, "only": only, "side": 1}]
    return run_js({"calls": plain(calls), "frames": [{"xy": xy, "view": v} for v in sides]})


def pieces(g: dict[str, Any]) -> dict[str, Counter]:
    """Each kind of primitive as a multiset (cards' boxes, edge segments by colour and width, arrow
    triangles, halo boxes and bands, badges and labels)."""

    def chunks(flat: list[float], size: int, key: str = "") -> list[tuple]:
        return [(key, *flat[i : i + size]) for i in range(0, len(flat), size)]

    out: dict[str, Counter] = {k: Counter() for k in ("cards", "edges", "arrows", "halos", "bands", "pills")}
    out["cards"].update(chunks(g["cards"]["normal"] + g["cards"]["stargate"], 4))
    for color, width, _dash, segments in g["edges"]:
        out["edges"].update(chunks(segments, 4, f"{color}|{width}"))
    for color, triangles in g["arrows"]:
        out["arrows"].update(chunks(triangles, 6, color))
    for fill, _stroke, _simple, rects, quads in g["halos"]:
        out["halos"].update(chunks(rects, 4, fill))
        out["bands"].update(chunks(quads, 8, fill))
    out["pills"].update(tuple(p) for p in g["badges"] + g["labels"])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_two_sides_together_are_the_whole_frame(seed):
    editor = Editor(demo_document())
    editor.settle()
    n = len(editor.plane.nodes)
    rng = random.Random(seed)
    moving = sorted(rng.sample(range(n), rng.randint(1, max(1, n // 3))))
    only = [1 if i in moving else 0 for i in range(n)]
    whole, still, moves = frames(editor, only)
    a, b, c = pieces(whole), pieces(still), pieces(moves)
    for kind in a:
        if kind == "pills":
            continue
        assert b[kind] + c[kind] == a[kind], kind
    assert b["pills"] + c["pills"] == a["pills"]
    # the batches keep the whole frame's order on each side (so crossing lines look the same)
    order = [(color, width) for color, width, _d, _s in whole["edges"]]
    for side in (still, moves):
        assert [(color, width) for color, width, _d, _s in side["edges"]] == order
    # the cards that move are on the moving side, every other card on the other
    flat = moves["cards"]["normal"] + moves["cards"]["stargate"]
    boxes = {(flat[i], flat[i + 1]) for i in range(0, len(flat), 4)}
    xy = plain(positions(editor.plane))
    sizes = [(node.width, node.height) for node in editor.plane.nodes.values()]
    drawn = {(xy[2 * i] - sizes[i][0] / 2, xy[2 * i + 1] - sizes[i][1] / 2) for i in moving}
    assert boxes <= drawn


def test_without_a_split_the_frame_is_the_same():
    editor = Editor(demo_document())
    editor.settle()
    whole, still, moves = frames(editor, None)
    assert whole == still
    assert pieces(moves) == pieces(whole)


def test_the_damage_script_loads_in_node_beside_the_scene():
    """(static/damage.js only needs the scene script and a canvas: its pure parts run in node.)"""
    assert DAMAGE.exists()
    out = run_js({"scripts": [str(ROOT / "static" / "scene.js"), str(DAMAGE)], "calls": [], "frames": []})
    assert out == []
