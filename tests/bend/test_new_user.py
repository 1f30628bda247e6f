"""What a person new to the editor met, DOM-free: the names of downloaded files, the connection
handle after a drag-to-connect, the camera kept by the autosave, Fit inside the area the
panels leave, the view kept while a new card's layout moves the graph, the Loops panel's words."""

from __future__ import annotations

import asyncio

import pytest
from bend_helpers import editor_with

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.document import parse_document
from bendscope.bend.model.elements import Document, Plane
from bendscope.bend.persist.autosave import KEY, MemoryStore, Saver
from bendscope.bend.persist.filenames import file_name, graph_name, remember_source, safe_stem
from bendscope.bend.pointer.inputs import PointerInput
from bendscope.bend.pointer.machine import Tools


def press(tools: Tools, kind: str, x: float, y: float, pointer_type: str = "mouse"):
    return tools.pointer(PointerInput(kind, 1, x, y, 0, pointer_type))


# ---------------------------------------------------------------- file names


def test_a_file_is_named_after_the_graph_made_safe_else_bendscope():
    doc = Document([Plane("p", "Main")], "p")
    assert file_name(doc, ".json") == "bendscope.json"
    remember_source(doc, "C:\\Users\\ann\\Water cycle.v2.csv")
    assert file_name(doc, ".json") == "Water cycle.v2.json"
    assert file_name(doc, ".png", plane=True) == "Water cycle.v2.png"
    named = Document([Plane("p", 'Q3: plan/"risks" <draft>')], "p")
    assert file_name(named, ".csv", plane=True) == "Q3- plan-risks- -draft-.csv"
    for bad in ("", "   ", "...", "NUL", "com1.txt", "\x00\x1f\u202e"):
        assert safe_stem(bad) == "", bad
        assert file_name(Document([Plane("p", bad or "x")], "p"), ".svg") in ("bendscope.svg", "x.svg")
    assert len(safe_stem("a" * 500)) == 80
    assert safe_stem("line\nbreak\ttab") == "line break tab"


def test_a_file_of_a_plane_inside_a_stargate_is_named_after_that_plane():
    doc = Document([Plane("root", "Company"), Plane("child", "Research notes", "root", "a")], "root")
    doc.active_plane_id = "child"
    assert graph_name(doc) == "Company"
    assert file_name(doc, ".json") == "Company.json"
    assert file_name(doc, ".mmd", plane=True) == "Research notes.mmd"


def test_an_imported_file_names_the_files_made_from_it():
    editor = Editor()
    assert editor.load("source,target\nrain,river\nriver,sea\n", name="water-cycle.csv") is None
    assert file_name(editor.doc, ".graphml", plane=True) == "water-cycle.graphml"
    editor.undo()  # the graph before the import has no name of its own
    assert file_name(editor.doc, ".json") == "bendscope.json"


# ---------------------------------------------------------------- the connection handle


def test_the_handle_of_a_drag_to_connect_goes_when_the_gesture_ends():
    """Released on another card, the source's handle stayed drawn (a stale dot) until the
    pointer moved again; the handle is now the card under the mouse, none for a finger."""
    for pointer_type, expected in (("mouse", "b"), ("pen", "b"), ("touch", "b")):
        editor = editor_with([("a", "c"), ("b", "c")], positions={"a": (0, 0), "b": (400, 0), "c": (0, 300)})
        tools = Tools(editor)
        node = editor.plane.nodes["a"]
        sx, sy = editor.world_to_screen(node.x, node.y)
        if pointer_type == "touch":
            editor.select(["a"])  # (a finger's handle is the selected card's)
        else:
            press(tools, "move", sx, sy, pointer_type)
        assert tools.view().handle == "a"
        hx = sx + node.width * editor.plane.camera.zoom / 2
        press(tools, "down", hx, sy, pointer_type)
        assert tools.state_name == "connecting"
        bx, by = editor.world_to_screen(400, 0)
        press(tools, "move", bx, by, pointer_type)
        press(tools, "up", bx, by, pointer_type)
        assert tools.state_name == "idle" and ("a", "b") in {(e.a, e.b) for e in editor.plane.edges.values()}
        # the mouse and the pen hover b; a finger hovers nothing: b is selected and shows it
        assert tools.hover == (None if pointer_type == "touch" else "b"), pointer_type
        assert tools.view().handle == expected, pointer_type
    # released on empty canvas with nothing under it: no card is hovered any more
    editor = editor_with([("a", "c")], positions={"a": (0, 0), "c": (0, 300)})
    tools = Tools(editor)
    node = editor.plane.nodes["a"]
    sx, sy = editor.world_to_screen(node.x, node.y)
    press(tools, "move", sx, sy)
    press(tools, "down", sx + node.width / 2, sy)
    press(tools, "move", sx + 300, sy - 200)
    press(tools, "up", sx + 300, sy - 200)
    assert tools.hover is None


# ---------------------------------------------------------------- the view over a reload


def _saver(editor: Editor, store: MemoryStore) -> Saver:
    return Saver(editor, store, clock=lambda: "now")


def test_the_autosave_keeps_the_camera_of_an_edited_or_restored_graph():
    """The camera was saved only with an edit: a person who edited, then panned and zoomed,
    reloaded into the view of the last edit."""
    editor = editor_with([("a", "b"), ("b", "a")])
    store = MemoryStore()
    saver = _saver(editor, store)
    assert not saver.dirty  # (a graph only looked at writes nothing)
    editor.zoom_at(2.0)
    assert not saver.dirty
    editor.add_node(50.0, 50.0, "new")
    assert saver.dirty and asyncio.run(saver.save())
    editor.pan_by(120.0, -40.0)
    editor.zoom_at(0.5, 10.0, 10.0)
    cam = editor.plane.camera
    assert saver.dirty
    assert not saver.due(0.0) and not saver.due(700.0) and saver.due(700.0 + 2400.0)  # (a view alone waits longer)
    assert asyncio.run(saver.save()) and not saver.dirty
    saved = parse_document(store.data[KEY])
    assert saved.active.camera.x == cam.x and saved.active.camera.y == cam.y and saved.active.camera.zoom == cam.zoom
    # a reload: restored, then only panned — that is saved too
    again = Editor()
    reloaded = _saver(again, store)
    doc = asyncio.run(reloaded.restore()).doc
    assert doc is not None
    again.replace_document(doc, alpha=0.0)
    assert not reloaded.dirty
    again.pan_by(30.0, 0.0)
    assert reloaded.dirty and reloaded.flush_items() is not None
    # a fresh page that shows the demo instead (``fresh=1``) never writes its view over the save
    other = Editor()
    fresh = _saver(other, store)
    asyncio.run(fresh.restore())
    other.pan_by(30.0, 0.0)
    assert not fresh.dirty


# ---------------------------------------------------------------- Fit and the panels


def test_fit_frames_the_graph_clear_of_a_two_row_hud_and_the_panels():
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a")], positions={"a": (0, 0), "b": (700, 0), "c": (350, 500)})
    editor.viewport = (390.0, 844.0)
    bars = [(10.0, 10.0, 380.0, 52.0), (10.0, 738.0, 380.0, 834.0)]  # a phone's toolbar, its HUD of two rows
    editor.obstacles = lambda: bars
    editor.fit_view()
    rects = [r for r in card_rects_all(editor)]
    assert all(r[0] >= 0 and r[2] <= 390 and r[1] >= 52 and r[3] <= 738 for r in rects), rects
    assert editor.plane.camera.zoom > 390 / 1000  # (12 px from the sides, not 60)
    # a panel open at the left of a wide window: the graph is framed beside it
    editor.viewport = (1280.0, 800.0)
    panel = (10.0, 78.0, 370.0, 500.0)
    editor.obstacles = lambda: [(10.0, 10.0, 970.0, 47.0), panel, (10.0, 765.0, 660.0, 790.0)]
    editor.fit_view()
    assert not any(_overlaps(r, panel) for r in card_rects_all(editor))


def card_rects_all(editor: Editor) -> list[tuple[float, float, float, float]]:
    zoom = editor.plane.camera.zoom
    out = []
    for n in editor.plane.nodes.values():
        x, y = editor.world_to_screen(n.x, n.y)
        out.append((x - n.width * zoom / 2, y - n.height * zoom / 2, x + n.width * zoom / 2, y + n.height * zoom / 2))
    return out


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# ---------------------------------------------------------------- the view while the layout moves


def test_the_cards_in_view_stay_clear_of_the_toolbar_while_a_new_cards_layout_moves_them():
    from bendscope.bend.editor.viewkeep import ViewKeeper

    editor = editor_with([("a", "b"), ("b", "a")], positions={"a": (0, 0), "b": (200, 0)})
    editor.viewport = (1000.0, 800.0)
    toolbar, hud = (10.0, 10.0, 900.0, 50.0), (10.0, 760.0, 700.0, 790.0)
    keeper = ViewKeeper(editor)
    assert not keeper.frame(False, lambda: [toolbar, hud])
    editor.add_node(100.0, 200.0, "new")  # an edit; the layout moves the cards (imitated)
    assert editor.animating
    editor.plane.camera.y = 0.0
    assert keeper.frame(False, lambda: [toolbar, hud]) and keeper.mode == "keep"
    for node_id in ("a", "b"):
        editor.plane.nodes[node_id].y -= 400.0  # pushed up, under the toolbar
    keeper.frame(False, lambda: [toolbar, hud])
    for r in card_rects_all(editor)[:2]:
        assert r[1] >= 50.0, r
    # a gesture (the person pans) ends the keeping: the view is theirs
    editor.pan_by(0.0, -300.0)
    assert not keeper.frame(True, lambda: [toolbar, hud]) and keeper.mode is None


def test_a_zoom_while_an_opening_graph_is_followed_ends_the_following():
    """(The follower's own ``opening_view`` counted as a graph opening again: each frame it
    began anew from the camera as it was then, so a zoom by the person or the API — Zoom in,
    + — was undone in the next frame for as long as the first layout ran.)"""
    from bendscope.bend.editor.viewkeep import ViewKeeper

    editor = editor_with([("a", "b"), ("b", "a")], positions={"a": (0, 0), "b": (200, 0)})
    editor.viewport = (1000.0, 800.0)
    keeper = ViewKeeper(editor)
    editor.opening_view()
    editor.add_node(100.0, 200.0, "new")  # (the layout moves cards: imitated)
    assert editor.animating
    for _ in range(3):
        keeper.frame(False, lambda: [])
        assert keeper.mode == "fit"
    fitted = editor.plane.camera.zoom
    editor.zoom_at(1.2)
    keeper.frame(False, lambda: [])
    assert keeper.mode is None
    assert editor.plane.camera.zoom == pytest.approx(fitted * 1.2)


def test_a_change_someone_else_made_moves_no_view_and_the_persons_own_edit_does():
    """(On the live page the memory's agent writes while the person watches: the cards that
    its new cards push are not followed by the view; the person's own edit is.)"""
    from bendscope.bend.editor.viewkeep import ViewKeeper
    from bendscope.bend.model.elements import Node

    toolbar, hud = (10.0, 10.0, 900.0, 50.0), (10.0, 760.0, 700.0, 790.0)
    for remote in (True, False):
        editor = editor_with([("a", "b"), ("b", "a")], positions={"a": (0, 0), "b": (200, 0)})
        editor.viewport = (1000.0, 800.0)
        keeper = ViewKeeper(editor)
        keeper.frame(False, lambda: [toolbar, hud])
        editor.plane.camera.y = 0.0
        if remote:
            with editor.remote_change():
                editor.plane.add_node(Node("new", "New", x=100.0, y=200.0))
        else:
            editor.add_node(100.0, 200.0, "new")
        assert editor.animating
        keeper.frame(False, lambda: [toolbar, hud])
        for node_id in ("a", "b"):
            editor.plane.nodes[node_id].y -= 400.0  # pushed up, under the toolbar
        keeper.frame(False, lambda: [toolbar, hud])
        assert (editor.plane.camera.y == 0.0) is remote, remote
