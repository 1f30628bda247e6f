"""What Bend's menu item and the drag-to-connect line say matches the edge they make,
whatever the editor's kind for new edges: Bend always makes a causal edge, and a drag
released with Alt a temporal one."""

from __future__ import annotations

from bend_helpers import editor_with

from bendscope.bend.actions.commands import Target, run
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.menus import catalog
from bendscope.bend.pointer.inputs import PointerInput
from bendscope.bend.pointer.machine import Tools


def chain():
    """a → b → c: c → a or c → b closes a loop (b is c's nearest)."""
    return editor_with([("a", "b"), ("b", "c")], positions={"a": (0, 0), "b": (300, 0), "c": (300, 300)})


def test_bends_item_says_what_its_causal_edge_does_whatever_the_kind_for_new_edges():
    editor = chain()
    editor.set_connect_kind("associative")
    items = {i.item_id: i for i in catalog.node_menu(editor, "c")}
    assert items["bend"].label == "Bend → b (κ: 0→1 — creates feedback loop)"
    run(editor, "bend", Target(node_id="c"))
    assert editor.topology().max_kappa == 1  # (what the item said)


def test_bends_item_is_not_already_connected_by_an_edge_of_another_kind():
    editor = chain()
    editor.set_connect_kind("associative")
    editor.add_edge("c", "b", kind="associative")
    preview = kappa_ui.bend_preview(editor, "c")
    assert preview is not None and preview.label == "Bend → b (κ: 0→1 — creates feedback loop)"


def test_an_alt_drag_previews_the_temporal_edge_it_makes():
    editor = chain()
    editor.viewport = (1200.0, 900.0)
    editor.set_connect_kind("associative")
    tools = Tools(editor)
    c, a = editor.plane.nodes["c"], editor.plane.nodes["a"]
    tools.pointer(PointerInput("move", 1, *editor.world_to_screen(c.x, c.y)))
    hx, hy = editor.world_to_screen(c.x + c.width / 2, c.y)
    tools.pointer(PointerInput("down", 1, hx, hy))
    assert tools.state_name == "connecting"
    over_a = editor.world_to_screen(a.x, a.y)
    tools.pointer(PointerInput("move", 1, *over_a))
    assert "associative edges are in no loop" in tools.view().link.label
    tools.pointer(PointerInput("move", 1, *over_a, alt=True))  # (Alt pressed over the card)
    link = tools.view().link
    assert link.label == "→ a (κ: 0→1 — creates feedback loop)" and link.changes
    tools.pointer(PointerInput("up", 1, *over_a, alt=True))
    made = [e for e in editor.plane.edges.values() if (e.a, e.b) == ("c", "a")]
    assert [e.props.kind for e in made] == ["temporal"] and editor.topology().max_kappa == 1
