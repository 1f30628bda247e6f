"""What a person new to the editor met, DOM-free: the names of downloaded files, the connection
handle after a drag-to-connect, the camera kept by the autosave, Fit inside the area the
panels leave, the view kept while a new card's layout moves the graph, the Loops panel's words."""

from __future__ import annotations

import asyncio

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
