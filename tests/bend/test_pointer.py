"""Pointer and keyboard interaction under CPython: the state machine in bend.pointer.machine,
key routing in bend.keys.routing and the ask/confirm protocol in bend.actions.dispatch."""

from __future__ import annotations

import json
import math

import pytest
from bend_helpers import editor_with

from bendscope.bend.actions.commands import REGISTRY, Target
from bendscope.bend.actions.dispatch import ActionManager
from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.url_params import parse_params
from bendscope.bend.keys.routing import KeyConflict, KeyEvent, matches, route
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.elements import MIN_ZOOM
from bendscope.bend.pointer.inputs import DRAG_THRESHOLD, PointerInput
from bendscope.bend.pointer.machine import Tools


def press(tools: Tools, kind: str, x: float, y: float, pointer_id: int = 1, pointer_type: str = "mouse", button=0):
    return tools.pointer(PointerInput(kind, pointer_id, x, y, button, pointer_type))


def setup(positions=None) -> tuple[Editor, Tools]:
    editor = editor_with([("a", "b")], positions=positions or {"a": (0, 0), "b": (400, 0)})
    return editor, Tools(editor)


def test_drag_moves_the_node_and_records_one_undoable_move():
    editor, tools = setup()
    sx, sy = editor.world_to_screen(0, 0)
    response = press(tools, "down", sx, sy)
    assert response.capture and tools.state_name == "pointing-node" and editor.selection == ["a"]
    assert "a" in editor.sim().fixed
    press(tools, "move", sx + 1, sy + 1)
    assert tools.state_name == "pointing-node"  # under the threshold: still a click
    press(tools, "move", sx + 50, sy + 20)
    assert tools.state_name == "dragging-node"
    node = editor.plane.nodes["a"]
    assert (node.x, node.y) == pytest.approx((50, 20))  # follows the pointer from where it was pressed
    depth = len(editor.history.undo_stack)
    press(tools, "up", sx + 50, sy + 20)
    assert tools.state_name == "idle" and "a" not in editor.sim().fixed
    assert len(editor.history.undo_stack) == depth + 1
    editor.undo()
    assert (node.x, node.y) == (0, 0)


def test_a_click_on_a_node_selects_it_and_records_nothing():
    editor, tools = setup()
    sx, sy = editor.world_to_screen(400, 0)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + DRAG_THRESHOLD - 1, sy)
    press(tools, "up", sx + DRAG_THRESHOLD - 1, sy)
    assert editor.selection == ["b"] and not editor.history.can_undo
    assert (editor.plane.nodes["b"].x, editor.plane.nodes["b"].y) == (400, 0)


def test_cancel_puts_the_dragged_node_back_and_records_nothing():
    editor, tools = setup()
    sx, sy = editor.world_to_screen(0, 0)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 80, sy + 80)
    assert editor.plane.nodes["a"].x != 0
    press(tools, "cancel", sx + 80, sy + 80)
    node = editor.plane.nodes["a"]
    assert (node.x, node.y) == (0, 0) and tools.state_name == "idle"
    assert not editor.history.can_undo and "a" not in editor.sim().fixed


def test_escape_during_a_drag_cancels_it():
    editor, tools = setup()
    sx, sy = editor.world_to_screen(0, 0)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 80, sy)
    command = tools.key(KeyEvent("Escape"))
    assert command is not None and command.action_id == "clear-selection"
    assert editor.plane.nodes["a"].x == 0 and tools.state_name == "idle"


def test_pan_on_the_background():
    editor, tools = setup()
    cam = editor.plane.camera
    start = (cam.x, cam.y)
    response = press(tools, "down", 20, 780)
    assert tools.state_name == "panning" and response.cursor == "panning" and editor.selection == []
    press(tools, "move", 120, 730)
    press(tools, "up", 120, 730)
    assert (cam.x, cam.y) == (start[0] - 100, start[1] + 50)
    assert tools.state_name == "idle" and not editor.history.can_undo


@pytest.mark.parametrize("pointer_type", ["mouse", "touch"])
def test_a_pan_keeps_the_selection_and_a_tap_on_the_background_clears_it(pointer_type):
    """A press on the empty canvas cleared the selection as it went down, so panning (on a
    phone: the one-finger gesture) closed the inspector."""
    editor, tools = setup()
    editor.select(["a"])
    press(tools, "down", 20, 780, pointer_type=pointer_type)
    assert editor.selection == ["a"]
    press(tools, "move", 120, 730, pointer_type=pointer_type)
    press(tools, "up", 120, 730, pointer_type=pointer_type)
    assert editor.selection == ["a"] and tools.state_name == "idle"
    # a tap (a finger wanders a little) or a click clears it
    press(tools, "down", 20, 780, pointer_type=pointer_type)
    press(tools, "move", 22, 781, pointer_type=pointer_type)
    press(tools, "up", 22, 781, pointer_type=pointer_type)
    assert editor.selection == []


def test_pinch_zooms_around_the_fingers_and_cancels_a_one_finger_drag():
    editor, tools = setup()
    sx, sy = editor.world_to_screen(0, 0)
    press(tools, "down", sx, sy, pointer_id=1, pointer_type="touch")
    press(tools, "move", sx + 40, sy, pointer_id=1, pointer_type="touch")
    assert tools.state_name == "dragging-node"
    press(tools, "down", sx + 240, sy, pointer_id=2, pointer_type="touch")  # the second finger
    assert tools.state_name == "pinching"
    assert editor.plane.nodes["a"].x == 0  # the drag was undone, not recorded
    mid = ((sx + 40 + sx + 240) / 2, sy)
    world_mid = editor.screen_to_world(*mid)
    press(tools, "move", sx + 240 + 200, sy, pointer_id=2, pointer_type="touch")  # spread: distance 200 → 400
    assert editor.plane.camera.zoom == pytest.approx(2.0)
    new_mid = ((sx + 40 + sx + 440) / 2, sy)
    # the world point under the fingers' midpoint follows the midpoint
    assert editor.screen_to_world(*new_mid) == pytest.approx(world_mid)
    press(tools, "up", sx + 440, sy, pointer_id=2, pointer_type="touch")
    assert tools.state_name == "idle"
    press(tools, "up", sx + 40, sy, pointer_id=1, pointer_type="touch")
    assert not editor.history.can_undo


def test_cancelled_pinch_ends_cleanly():
    _editor, tools = setup()
    press(tools, "down", 10, 10, pointer_id=1, pointer_type="touch")
    press(tools, "down", 110, 10, pointer_id=2, pointer_type="touch")
    press(tools, "cancel", 110, 10, pointer_id=2, pointer_type="touch")
    assert tools.state_name == "idle"
    press(tools, "cancel", 10, 10, pointer_id=1, pointer_type="touch")
    assert tools.touches == {}


def test_wheel_zooms_around_the_cursor_and_ignores_garbage():
    editor, tools = setup()
    before = editor.screen_to_world(300, 200)
    tools.wheel(300, 200, -100)
    assert editor.plane.camera.zoom == pytest.approx(math.exp(0.15))
    assert editor.screen_to_world(300, 200) == pytest.approx(before)
    tools.wheel(300, 200, float("nan"))
    tools.wheel(300, 200, float("inf"))
    tools.wheel(300, 200, 1e300, 1)
    assert math.isfinite(editor.plane.camera.x) and editor.plane.camera.zoom == MIN_ZOOM


def test_double_click_edits_enters_or_creates():
    editor = Editor(demo_document())
    tools = Tools(editor)
    request = tools.double_click(*editor.world_to_screen(*_pos(editor, "company")))
    assert request.kind == "edit-text" and request.target.node_id == "company"
    request = tools.double_click(*editor.world_to_screen(*_pos(editor, "research-notes")))
    assert request.kind == "action" and request.action_id == "enter-stargate"
    count = len(editor.plane.nodes)
    request = tools.double_click(5, 5)
    assert request.kind == "edit-text" and len(editor.plane.nodes) == count + 1
    (ax, ay), (bx, by) = _pos(editor, "revenue"), _pos(editor, "r-and-d")  # on an edge: its label, no card
    request = tools.double_click(*editor.world_to_screen(ax + (bx - ax) * 0.35, ay + (by - ay) * 0.35))
    edge = editor.plane.edges[str(request.target.edge_id)]
    assert (request.kind, request.action_id, edge.a, edge.b) == ("action", "edit-label", "revenue", "r-and-d")
    assert len(editor.plane.nodes) == count + 1 and editor.selected_edge == edge.id


def _pos(editor: Editor, node_id: str) -> tuple[float, float]:
    node = editor.plane.nodes[node_id]
    return node.x, node.y


def test_context_menu_selects_what_is_under_the_pointer():
    editor, tools = setup()
    request = tools.context_menu(*editor.world_to_screen(400, 0))
    assert (request.menu, request.target.node_id, editor.selection) == ("node", "b", ["b"])
    request = tools.context_menu(*editor.world_to_screen(200, 0))
    assert (request.menu, request.target.edge_id, editor.selected_edge) == ("edge", "e0", "e0")
    request = tools.context_menu(*editor.world_to_screen(200, 300))
    assert request.menu == "background" and (request.target.x, request.target.y) == pytest.approx((200, 300))


def test_keys_are_ignored_while_editing_text_or_typing_in_a_field():
    editor, tools = setup()
    editor.select(["a"])
    tools.begin_text_edit("a")
    assert tools.key(KeyEvent("Delete")) is None
    tools.end_text_edit()
    assert tools.key(KeyEvent("Delete", target="field")) is None
    assert tools.key(KeyEvent("Enter", target="button")) is None
    command = tools.key(KeyEvent("Delete"))
    assert command is not None and (command.kind, command.action_id) == ("action", "delete-selection")


def test_key_routing():
    editor = Editor(demo_document())
    assert route(editor, KeyEvent("z", mod=True)) is None  # nothing to undo: disabled
    editor.add_node(0, 0, "x")
    assert route(editor, KeyEvent("z", mod=True)).action_id == "undo"
    assert route(editor, KeyEvent("Z", mod=True, shift=True)) is None  # nothing to redo
    editor.select(["company"])
    assert route(editor, KeyEvent("p")).action_id == "pin"
    editor.set_pinned("company", True)
    assert route(editor, KeyEvent("p")).action_id == "unpin"
    command = route(editor, KeyEvent("c"))
    assert (command.kind, command.action_id, command.target.node_id) == ("submenu", "connect", "company")
    assert route(editor, KeyEvent("F10", shift=True)).menu == "node"
    editor.select([])
    assert route(editor, KeyEvent("p")) is None  # node keys need one selected node
    assert route(editor, KeyEvent("ContextMenu")).menu == "background"


def test_every_key_press_in_every_selection_state_has_at_most_one_action():
    """No two enabled actions ever claim a key (checked over the demo's nodes and edges)."""
    editor = Editor(demo_document())
    editor.add_node(0, 0, "x")
    editor.undo()  # undo and redo both possible
    editor.add_node(0, 0, "y")
    keys = {k for act in REGISTRY.values() for k in act.keys}
    selections = [[]] + [[n] for n in editor.plane.nodes]
    for selection in selections:
        editor.select(selection)
        for key in keys:
            assert len(matches(editor, key)) <= 1, (selection, key)
    for edge_id in editor.plane.edges:
        editor.select_edge(edge_id)
        for key in keys:
            assert len(matches(editor, key)) <= 1, (edge_id, key)


def test_a_conflict_is_an_error(monkeypatch):
    editor = editor_with([("a", "b")])
    editor.select(["a"])
    fork = REGISTRY["fork"]
    monkeypatch.setitem(REGISTRY, "fork", type(fork)(**{**fork.__dict__, "keys": ("p",)}))
    with pytest.raises(KeyConflict, match=r"pin, fork|fork, pin"):
        route(editor, KeyEvent("p"))


def test_dispatch_confirm_prompt_refuse_and_done():
    editor = Editor(demo_document())
    manager = ActionManager(editor)
    outcome = manager.request("unbend", Target(node_id="revenue"))
    assert outcome.kind == "confirm" and "Remove edge" in outcome.message
    assert outcome.resume(False) is None
    edges = len(editor.plane.edges)
    done = manager.request(outcome.action_id, outcome.target, outcome.resume(True))
    assert done.kind == "done" and len(editor.plane.edges) == edges - 1
    outcome = manager.request("edit-text", Target(node_id="company"))
    assert outcome.kind == "edit-text"
    outcome = manager.request("edit-label", Target(edge_id="edge-0"))
    assert (outcome.kind, outcome.initial) == ("prompt", "drives")
    assert manager.request("edit-label", Target(edge_id="edge-0"), outcome.resume("grows")).kind == "done"
    assert editor.plane.edges["edge-0"].props.label == "grows"
    assert manager.request("fork", Target(node_id="nope")).kind == "disabled"
    assert manager.request("no-such-action").kind == "refused"
    editor.set_text("company", "x" * 60_000)
    editor.set_text("revenue", "y" * 60_000)
    before = editor.export()
    refused = manager.request("merge", Target(node_id="company"), {"with": "revenue"})
    assert refused.kind == "refused" and "limit" in refused.message and editor.export() == before


def test_url_parameters_are_validated():
    p = parse_params({"seed": "12", "still": "1", "fresh": "1", "exact_limit": "20"})
    assert (p.seed, p.still, p.fresh, p.exact_limit, p.problems) == (12, True, True, 20, [])
    p = parse_params({"seed": "x" * 100, "exact_limit": "-1", "still": "maybe"})
    assert (p.seed, p.exact_limit, p.still) == (None, None, False)
    assert len(p.problems) == 3 and "exact_limit=-1 ignored" in p.problems[1]


def test_a_node_deleted_during_its_drag_is_let_go():
    editor, tools = setup()
    sx, sy = editor.world_to_screen(0, 0)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 20, sy)
    editor.delete_nodes(["a"])
    press(tools, "move", sx + 40, sy)
    assert tools.state_name == "idle" and editor.sim().fixed == set()
    editor.undo()
    assert editor.sim().fixed == set()  # the layout may move it again


def test_a_drag_across_a_plane_change_or_an_import_records_nothing():
    editor = Editor(demo_document())
    tools = Tools(editor)
    sx, sy = editor.world_to_screen(*_pos(editor, "company"))
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 30, sy)
    root_sim = editor.sim()
    editor.enter_stargate("research-notes")
    press(tools, "up", sx + 30, sy)
    assert root_sim.fixed == set() and tools.state_name == "idle"
    assert [e.label for e in editor.history.undo_stack] == ["Open stargate"]
    editor.go_to_plane("plane-root")
    assert _pos(editor, "company") == tuple(demo_positions()["company"])
    # an import while dragging: the new document's node of the same id is not touched
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 30, sy)
    assert editor.load('{"nodes": [{"id": "company", "x": 500, "y": 500}]}') is None
    press(tools, "up", sx + 30, sy)
    assert [e.label for e in editor.history.undo_stack] == ["Open stargate", "Import"]
    assert _pos(editor, "company") == (500, 500)


def demo_positions() -> dict:
    from bendscope.bend.model.demo import POSITIONS

    return POSITIONS


def test_new_node_opens_its_text_editor_and_esc_discards_it():
    editor, tools = setup()
    manager = ActionManager(editor)
    before = editor.export()
    made = manager.request("new-node", Target(x=100, y=200))
    assert made.kind == "done" and made.edit_node == made.result and made.result in editor.plane.nodes
    tools.begin_text_edit(made.result, fresh=True)
    assert tools.state_name == "editing-text"
    tools.end_text_edit(cancelled=True)  # Esc: the node goes, and no undo or redo step is left of it
    assert made.result not in editor.plane.nodes and tools.state_name == "idle"
    assert not editor.history.redo_stack and len(editor.plane.nodes) == 2
    assert editor.export() == before
    # committing keeps it; Esc on a node that was not just made keeps it too
    kept = manager.request("new-stargate", Target(x=0, y=300)).result
    tools.begin_text_edit(kept, fresh=True)
    tools.end_text_edit(cancelled=False)
    tools.begin_text_edit("a")
    tools.end_text_edit(cancelled=True)
    assert kept in editor.plane.nodes and "a" in editor.plane.nodes
    editor.set_text(kept, "Portal")
    assert editor.discard_new_node(kept) is False  # its creation is no longer the last step
    assert editor.plane.nodes[kept].text == "Portal"


@pytest.mark.parametrize("how", ["menu", "double-click"])
def test_making_a_card_and_typing_its_text_is_one_undo_step(how):
    """New node here, type, Ctrl+Enter, Ctrl+Z left an empty card (the
    creation and the text were two steps); now one undo takes the card away, one redo
    brings it back with its text."""
    editor, tools = setup()
    before = editor.export()
    if how == "menu":
        node_id = ActionManager(editor).request("new-node", Target(x=100, y=200)).edit_node
    else:
        request = tools.double_click(300, 500)
        assert request.fresh
        node_id = request.target.node_id
    tools.begin_text_edit(node_id, fresh=True)
    editor.set_text(node_id, "Water table")  # what the text editor's commit does
    tools.end_text_edit(cancelled=False)
    assert len(editor.history.undo_stack) == 1 and editor.history.undo_stack[0].label == "Add node"
    editor.undo()
    assert node_id not in editor.plane.nodes and editor.export() == before and not editor.history.can_undo
    editor.redo()
    assert editor.plane.nodes[node_id].text == "Water table" and editor.plane.nodes[node_id].pinned


def test_only_a_new_cards_own_text_joins_its_creation():
    editor, tools = setup()
    made = ActionManager(editor).request("new-node", Target(x=100, y=200)).result
    editor.set_text("a", "something else")  # another step between: the two stay apart
    tools.begin_text_edit(made, fresh=True)
    editor.set_text(made, "Typed")
    tools.end_text_edit(cancelled=False)
    assert [e.label for e in editor.history.undo_stack] == ["Add node", "Edit text", "Edit text"]
    tools.begin_text_edit("a")  # an existing card's edit is its own step
    editor.set_text("a", "again")
    tools.end_text_edit(cancelled=False)
    assert len(editor.history.undo_stack) == 4
    assert editor.fold_into_creation("a") is False


def test_export_topology_names_each_node_by_its_text():
    """Export topology named nodes by id only."""
    editor = Editor(demo_document())
    exported = editor.topology_export()
    assert {
        k: exported[k] for k in ("sccs", "dag_nodes", "routing", "max_kappa", "scc_count")
    } == editor.topology().result
    assert exported["names"]["market-share"] == "# Market share Share of the segment we win."
    assert exported["names"]["company"] == "# Company Acme Analytics"
    everyone = {n for scc in exported["sccs"] for n in scc["nodes"]} | set(exported["dag_nodes"])
    assert set(exported["names"]) == everyone == set(editor.plane.nodes)
    editor.select(["market-share", "revenue"])
    chosen = editor.topology_export()
    assert set(chosen["names"]) == {"market-share", "revenue"}
    editor.set_text("revenue", "  Revenue\n\n" + "x" * 80)
    assert editor.topology_export()["names"]["revenue"] == "Revenue " + "x" * 71 + "…"


def test_other_actions_open_no_text_editor():
    editor, _ = setup()
    outcome = ActionManager(editor).request("fork", Target(node_id="a"))
    assert outcome.kind == "done" and outcome.edit_node is None


def test_a_dropped_node_stays_where_it_was_dropped():
    """The layout pulled a dropped node back ~100 px within 2 s."""
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a")], positions={"a": (0, 0), "b": (200, 0), "c": (100, 150)})
    tools = Tools(editor)
    editor.sim().settle()
    sx, sy = editor.world_to_screen(editor.plane.nodes["a"].x, editor.plane.nodes["a"].y)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 200, sy + 120)
    press(tools, "up", sx + 200, sy + 120)
    node = editor.plane.nodes["a"]
    dropped = (node.x, node.y)
    assert node.pinned
    sim = editor.sim()
    sim.reheat(1.0)
    for _ in range(300):
        sim.step()
    assert (node.x, node.y) == pytest.approx(dropped)
    run_unpin = ActionManager(editor).request("unpin", Target(node_id="a"))
    assert run_unpin.kind == "done" and not node.pinned
    editor.undo()
    editor.undo()  # the drop: back to where the drag started, unpinned
    assert not node.pinned


def test_double_click_on_the_background_makes_a_fresh_node_that_esc_discards():
    editor, tools = setup()
    request = tools.double_click(300, 500)
    assert request.kind == "edit-text" and request.fresh
    tools.begin_text_edit(request.target.node_id, fresh=request.fresh)
    tools.end_text_edit(cancelled=True)
    assert sorted(editor.plane.nodes) == ["a", "b"] and not editor.history.can_undo
    sx, sy = editor.world_to_screen(0, 0)
    assert tools.double_click(sx, sy).fresh is False  # an existing node


# ---------------------------------------------------------------- multi-select, connect, long press
def four() -> tuple[Editor, Tools]:
    positions = {"a": (0, 0), "b": (300, 0), "c": (0, 300), "d": (300, 300)}
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")], positions=positions)
    editor.viewport = (1200.0, 900.0)
    return editor, Tools(editor)


def click(tools: Tools, x: float, y: float, shift: bool = False, pointer_type: str = "mouse", pointer_id: int = 1):
    for kind in ("down", "up"):
        tools.pointer(PointerInput(kind, pointer_id, x, y, 0, pointer_type, shift))


def test_shift_click_adds_and_removes_and_a_plain_click_selects_one():
    editor, tools = four()
    at = {n: editor.world_to_screen(editor.plane.nodes[n].x, editor.plane.nodes[n].y) for n in "abcd"}
    click(tools, *at["a"])
    click(tools, *at["b"], shift=True)
    click(tools, *at["d"], shift=True)
    assert editor.selection == ["a", "b", "d"]
    click(tools, *at["b"], shift=True)
    assert editor.selection == ["a", "d"]
    click(tools, *at["d"])  # a click on a node of the selection, no drag: only it stays
    assert editor.selection == ["d"]


def test_dragging_a_selected_node_moves_the_group_as_one_undo_step():
    editor, tools = four()
    nodes = editor.plane.nodes
    before = {n: (nodes[n].x, nodes[n].y) for n in "abcd"}
    editor.select(["a", "b"])
    sx, sy = editor.world_to_screen(0, 0)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 40, sy + 10)
    press(tools, "move", sx + 100, sy + 50)
    press(tools, "up", sx + 100, sy + 50)
    zoom = editor.plane.camera.zoom
    for n in "ab":
        assert (nodes[n].x, nodes[n].y) == pytest.approx((before[n][0] + 100 / zoom, before[n][1] + 50 / zoom))
        assert nodes[n].pinned
    assert (nodes["c"].x, nodes["c"].y) == before["c"] and not nodes["c"].pinned
    assert editor.selection == ["a", "b"]
    editor.undo()
    assert all((nodes[n].x, nodes[n].y) == before[n] and not nodes[n].pinned for n in "ab")


def test_shift_drag_on_the_background_selects_what_the_band_touches():
    editor, tools = four()
    x0, y0 = editor.world_to_screen(-200, -100)
    x1, y1 = editor.world_to_screen(350, 100)  # touches a and b, not c or d
    tools.pointer(PointerInput("down", 1, x0, y0, 0, "mouse", True))
    tools.pointer(PointerInput("move", 1, x1, y1, 0, "mouse", True))
    assert tools.state_name == "brushing" and tools.view().brush is not None
    tools.pointer(PointerInput("up", 1, x1, y1, 0, "mouse", True))
    assert editor.selection == ["a", "b"] and tools.state_name == "idle"
    # Esc during a band puts the old selection back
    tools.pointer(PointerInput("down", 1, x0, y0 + 250, 0, "mouse", True))
    tools.pointer(PointerInput("move", 1, x1, y1 + 300, 0, "mouse", True))
    tools.key(KeyEvent("Escape"))
    assert editor.selection == ["a", "b"]


def test_select_all_key_and_group_pin():
    editor, tools = four()
    command = tools.key(KeyEvent("a", mod=True))
    assert command is not None and command.action_id == "select-all"
    ActionManager(editor).request(command.action_id, command.target)
    assert editor.selection == ["a", "b", "c", "d"]
    command = tools.key(KeyEvent("p"))
    assert command.action_id == "pin-selection"
    ActionManager(editor).request(command.action_id, command.target)
    assert all(n.pinned for n in editor.plane.nodes.values())
    assert tools.key(KeyEvent("p")).action_id == "unpin-selection"
    editor.undo()
    assert not any(n.pinned for n in editor.plane.nodes.values())


def test_kappa_of_the_selection_is_the_induced_subgraph():
    editor, _ = four()
    assert editor.selection_topology() is None
    editor.select(["a", "b", "c"])
    topo = editor.selection_topology()
    assert topo.max_kappa == 1 and topo.result["sccs"][0]["nodes"] == ["a", "b", "c"]
    editor.select(["a", "b", "d"])  # the loop is cut by leaving c out
    topo = editor.selection_topology()
    assert topo.max_kappa == 0 and topo.result["dag_nodes"] == ["a", "b", "d"]
    assert topo.result["routing"] == "fast"


def test_drag_from_the_handle_connects_with_a_live_kappa_preview():
    editor, tools = four()
    nodes = editor.plane.nodes
    d = nodes["d"]
    # hover d: its handle shows at the middle of its right edge
    tools.pointer(PointerInput("move", 1, *editor.world_to_screen(d.x, d.y)))
    assert tools.view().handle == "d"
    hx, hy = editor.world_to_screen(d.x + d.width / 2, d.y)
    press(tools, "down", hx, hy)
    assert tools.state_name == "connecting"
    press(tools, "move", *editor.world_to_screen(nodes["a"].x, nodes["a"].y))
    link = tools.view().link
    assert link.target == "a" and link.changes and link.label == "→ a (κ: 1→1 — enlarges loop)"
    press(tools, "move", 900, 880)  # over nothing: no target, no preview
    assert tools.view().link.target is None and tools.view().link.label == ""
    press(tools, "move", *editor.world_to_screen(nodes["c"].x, nodes["c"].y))
    press(tools, "up", *editor.world_to_screen(nodes["c"].x, nodes["c"].y))
    added = [e for e in editor.plane.edges.values() if (e.a, e.b) == ("d", "c")]
    assert len(added) == 1 and added[0].props.kind == "causal" and editor.topology().max_kappa == 1
    editor.undo()
    assert not [e for e in editor.plane.edges.values() if (e.a, e.b) == ("d", "c")]
    # released back on the card it started from: nothing is added
    press(tools, "down", hx, hy)
    press(tools, "up", *editor.world_to_screen(d.x, d.y))
    assert len(editor.plane.edges) == 4 and len(nodes) == 4


def test_touch_long_press_opens_the_menu_and_a_moved_finger_does_not():
    editor, tools = four()
    sx, sy = editor.world_to_screen(0, 0)
    response = press(tools, "down", sx, sy, pointer_type="touch", pointer_id=7)
    assert response.long_press > 0
    request = tools.long_press(7)
    assert request.kind == "menu" and request.target.node_id == "a" and tools.state_name == "idle"
    press(tools, "up", sx, sy, pointer_type="touch", pointer_id=7)
    assert editor.plane.nodes["a"].x == 0 and not editor.history.can_undo  # nothing moved or recorded
    press(tools, "down", sx, sy, pointer_type="touch", pointer_id=8)
    press(tools, "move", sx + 40, sy, pointer_type="touch", pointer_id=8)  # a drag began
    assert tools.long_press(8) is None
    press(tools, "up", sx + 40, sy, pointer_type="touch", pointer_id=8)
    bx, by = 1100, 850  # the background: a long press opens the background menu there
    press(tools, "down", bx, by, pointer_type="touch", pointer_id=9)
    assert tools.long_press(9).menu == "background"


def test_the_shortcut_sheet_lists_every_key_of_the_registry():
    from bendscope.bend.keys.shortcuts import key_label, sheet

    listed = {keys for _, lines in sheet() for keys, _ in lines}
    for act in REGISTRY.values():
        if act.keys:
            assert " · ".join(key_label(k) for k in act.keys) in listed, act.id
    editor, tools = setup()
    command = tools.key(KeyEvent("?", shift=True))
    assert command.action_id == "help"
    outcome = ActionManager(editor).request("help")
    assert outcome.kind == "show" and outcome.message == "help" and not editor.history.can_undo


def test_freeze_layout_holds_every_card_still():
    editor, tools = setup()
    editor.sim().reheat(1.0)
    command = tools.key(KeyEvent("l"))
    ActionManager(editor).request(command.action_id, command.target)
    assert editor.layout_frozen and not editor.animating
    before = {n.id: (n.x, n.y) for n in editor.plane.nodes.values()}
    for _ in range(50):
        assert editor.tick() is False
    assert {n.id: (n.x, n.y) for n in editor.plane.nodes.values()} == before
    ActionManager(editor).request("freeze-layout")
    assert not editor.layout_frozen and editor.animating  # it runs on from where it was


def test_copy_paste_and_duplicate_keep_edges_and_are_one_undo_step():
    from bendscope.bend.persist import clipboard

    editor, tools = four()
    text = clipboard.copy_fragment(editor, ["a", "b", "c"])
    assert json.loads(text)["format"] == "bendscope-fragment"
    made = clipboard.paste(editor, text, (1000.0, 1000.0))
    assert len(made) == 3 and editor.selection == made
    inside = [(e.a, e.b) for e in editor.plane.edges.values() if e.a in made and e.b in made]
    assert len(inside) == 3  # the loop a→b→c→a, not c→d (d was not copied)
    xs = [editor.plane.nodes[n].x for n in made]
    assert (min(xs) + max(xs)) / 2 == pytest.approx(1000.0)
    assert editor.topology().scc_count == 2  # the copy is a loop of its own
    editor.undo()
    assert len(editor.plane.nodes) == 4 and len(editor.plane.edges) == 4
    editor.select(["c", "d"])
    command = tools.key(KeyEvent("d", mod=True))
    assert command.action_id == "duplicate"
    ActionManager(editor).request(command.action_id, command.target)
    assert len(editor.plane.nodes) == 6 and len(editor.selection) == 2 and editor.selection[0] not in "cd"
    # plain text becomes a node; a damaged fragment is refused with a message and changes nothing
    (note,) = clipboard.paste(editor, "just a thought", (0.0, 0.0))
    assert editor.plane.nodes[note].text == "just a thought"
    before = editor.export()
    bad = json.dumps({"format": "bendscope-fragment", "version": 1, "nodes": [{"id": "x", "x": "far"}], "edges": []})
    with pytest.raises(ValueError, match="not a usable fragment"):
        clipboard.paste(editor, bad, (0.0, 0.0))
    assert editor.export() == before


# ---------------------------------------------------------------- review findings (each failed before its fix)
def test_bold_keeps_code_and_links_inside_it():
    from bendscope.bend.render.textlayout import approx_measure, layout_card, parse_inline

    assert parse_inline("**see `code` here**") == [("see ", "b"), ("code", "code"), (" here", "b")]
    assert parse_inline("**bold [link](http://x) end**") == [("bold ", "b"), ("link", "link"), (" end", "b")]
    assert layout_card("**see `code` here**", approx_measure).lines[0].text == "see code here"


def test_selection_topology_is_not_served_from_another_document():
    editor, _ = four()
    first = json.dumps({"nodes": ["a", "b", "c"], "edges": [["a", "b"], ["b", "a"], ["b", "c"]]})
    second = json.dumps({"nodes": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"], ["c", "b"]]})
    for text, loop in ((first, ["a", "b"]), (second, ["b", "c"])):
        doc = json.loads(text)
        doc["edges"] = [{"source": s, "target": t, "kind": "causal"} for s, t in doc["edges"]]
        assert editor.load(json.dumps(doc)) is None
        editor.select(["a", "b", "c"])
        assert editor.selection_topology().result["sccs"][0]["nodes"] == loop


def test_long_press_on_an_edge_opens_its_menu():
    editor, tools = four()
    a, b = editor.plane.nodes["a"], editor.plane.nodes["b"]
    mx, my = editor.world_to_screen((a.x + b.x) / 2, (a.y + b.y) / 2)
    assert editor.edge_at(mx, my) is not None
    press(tools, "down", mx, my, pointer_type="touch", pointer_id=3)
    request = tools.long_press(3)
    assert request is not None and request.menu == "edge"


def test_a_connection_whose_source_goes_away_ends_quietly():
    editor, tools = four()
    editor.select(["a"])
    a = editor.plane.nodes["a"]
    press(tools, "down", *editor.world_to_screen(a.x + a.width / 2, a.y))
    assert tools.state_name == "connecting"
    editor.delete_nodes(["a"])  # e.g. Ctrl+X, or an undo, while the edge is being dragged
    b = editor.plane.nodes["b"]
    press(tools, "move", *editor.world_to_screen(b.x, b.y))
    assert tools.state_name == "idle" and tools.view().link is None


def test_a_refused_paste_keeps_the_selection_and_missing_edges_are_fine():
    from bendscope.bend.persist import clipboard

    editor, _ = four()
    editor.select(["a", "b"])
    bad = json.dumps({"format": "bendscope-fragment", "version": True, "nodes": [], "edges": []})
    with pytest.raises(ValueError, match="another Bendscope version"):
        clipboard.paste(editor, bad, (0.0, 0.0))
    too_long = json.dumps({"format": "bendscope-fragment", "version": 1, "nodes": [{"id": "x", "text": "y"}] * 2})
    with pytest.raises(ValueError):
        clipboard.paste(editor, too_long, (0.0, 0.0))  # duplicate ids: refused
    assert editor.selection == ["a", "b"]
    lone = {"format": "bendscope-fragment", "version": 1, "nodes": [{"id": "x", "text": "no edges key"}]}
    (made,) = clipboard.paste(editor, json.dumps(lone), (0.0, 0.0))
    assert editor.plane.nodes[made].text == "no edges key"


def test_right_click_during_a_drag_ends_it_and_shift_f10_opens_the_selection_menu():
    editor, tools = four()
    sx, sy = editor.world_to_screen(0, 0)
    press(tools, "down", sx, sy)
    press(tools, "move", sx + 80, sy)
    tools.context_menu(sx + 80, sy)
    assert tools.state_name == "idle" and editor.plane.nodes["a"].x == 0 and not editor.history.can_undo
    editor.select(["a", "b"])
    command = tools.key(KeyEvent("F10", shift=True))
    assert command.kind == "menu" and command.menu == "node" and command.target.node_id == "a"


def test_a_bendscope_document_without_its_header_is_refused_by_name():
    from bendscope.bend.model.demo import demo_document
    from bendscope.bend.model.document import DocumentError, document_to_data, parse_document

    data = document_to_data(demo_document())
    del data["format"]
    with pytest.raises(DocumentError, match='"format" must be "bendscope"'):
        parse_document(json.dumps(data))


def test_a_node_made_here_stays_here():
    editor, tools = four()
    made = ActionManager(editor).request("new-node", Target(x=900, y=-400)).result
    request = tools.double_click(*editor.world_to_screen(-700, 700))
    sim = editor.sim()
    sim.reheat(1.0)
    for _ in range(200):
        sim.step()
    assert (editor.plane.nodes[made].x, editor.plane.nodes[made].y) == (900, -400)
    other = editor.plane.nodes[request.target.node_id]
    assert (other.x, other.y) == pytest.approx((-700, 700)) and other.pinned


# ---------------------------------------------------------------- keyboard alone
def test_tab_is_left_to_the_browser_and_arrows_move_between_cards():
    """Tab stepped through the cards, so it never reached the toolbar; now Tab moves
    between the page's controls and the arrow keys between the cards."""
    editor = editor_with([("a", "b"), ("a", "c")], positions={"a": (0, 0), "b": (300, 0), "c": (0, 300)})
    for key, shift in (("Tab", False), ("Tab", True)):
        assert route(editor, KeyEvent(key, shift=shift)) is None
        assert route(editor, KeyEvent(key, shift=shift, target="button")) is None
    command = route(editor, KeyEvent("ArrowRight"))
    assert command is not None and command.action_id == "go-right"
    assert route(editor, KeyEvent("ArrowRight", target="button")) is None  # a control's own arrows
    manager = ActionManager(editor)
    editor.plane.camera.x, editor.plane.camera.y = 0.0, 0.0
    manager.request("go-right", Target())
    assert editor.selection == ["a"]  # none selected: the card nearest the middle of the view
    manager.request("go-right", Target())
    assert editor.selection == ["b"]
    manager.request("go-left", Target())
    assert editor.selection == ["a"]
    manager.request("go-down", Target())
    assert editor.selection == ["c"]
    manager.request("go-down", Target())
    assert editor.selection == ["c"]  # nothing below: stays
    manager.request("go-first", Target())
    assert editor.selection == ["a"]
    manager.request("go-last", Target())
    assert editor.selection == ["c"]


def test_e_steps_through_a_cards_edges_for_the_edge_menu():
    editor = editor_with([("a", "b"), ("a", "c"), ("b", "c")], positions={"a": (0, 0), "b": (300, 0), "c": (0, 300)})
    manager = ActionManager(editor)
    editor.select(["a"])
    mine = [e.id for e in editor.plane.edges.values() if "a" in (e.a, e.b)]
    manager.request("next-edge", Target())
    assert editor.selected_edge == mine[0] and editor.selection == []
    manager.request("next-edge", Target())
    assert editor.selected_edge == mine[1]
    manager.request("next-edge", Target())
    assert editor.selected_edge == mine[0]  # round the card's edges
    manager.request("previous-edge", Target())
    assert editor.selected_edge == mine[1]
    command = route(editor, KeyEvent("F10", shift=True))
    assert command is not None and command.menu == "edge" and command.target.edge_id == mine[1]


def test_moving_by_keyboard_brings_a_card_off_screen_into_view():
    editor = editor_with([("a", "b")], positions={"a": (0, 0), "b": (5_000, 0)})
    editor.plane.camera.x = editor.plane.camera.y = 0.0
    editor.select(["a"])
    assert not editor.in_view("b")
    ActionManager(editor).request("go-right", Target())
    assert editor.selection == ["b"] and editor.in_view("b")


def test_a_drag_from_the_handle_makes_an_edge_of_the_chosen_kind():
    """The kind chosen in Connect to… is the kind a drag makes too (Alt: temporal),
    and the live preview says what that kind does."""
    editor, tools = four()
    nodes = editor.plane.nodes
    d = nodes["d"]
    editor.set_connect_kind("associative")
    tools.pointer(PointerInput("move", 1, *editor.world_to_screen(d.x, d.y)))
    hx, hy = editor.world_to_screen(d.x + d.width / 2, d.y)
    press(tools, "down", hx, hy)
    press(tools, "move", *editor.world_to_screen(nodes["a"].x, nodes["a"].y))
    assert tools.view().link.label.startswith("→ a (κ: 1→1 — no change") and not tools.view().link.changes
    press(tools, "up", *editor.world_to_screen(nodes["a"].x, nodes["a"].y))
    added = [e for e in editor.plane.edges.values() if (e.a, e.b) == ("d", "a")]
    assert [e.props.kind for e in added] == ["associative"]


def test_new_node_here_lands_outside_a_loop_regions_halo_and_in_sight():
    from bendscope.bend.actions.commands import _halo_boxes, free_spot
    from bendscope.bend.model.demo import demo_document

    editor = Editor(demo_document(), seed=1)
    editor.settle()
    editor.fit_view()
    editor.topology()  # (the page's frames have computed what it shows)
    boxes = _halo_boxes(editor, 180.0, 60.0)
    assert boxes  # (the demo has a loop region)
    cx, cy, _, _ = boxes[0]
    made = ActionManager(editor).request("new-node", Target(x=cx, y=cy)).result
    node = editor.plane.nodes[made]
    assert not any(abs(node.x - bx) < rx and abs(node.y - by) < ry for bx, by, rx, ry in boxes)
    sx, sy = editor.world_to_screen(node.x, node.y)
    w, h = editor.viewport
    assert 0 < sx < w and 96 <= sy <= h - 56
    assert free_spot(editor, node.x, node.y) != (node.x, node.y)  # (taken now)
