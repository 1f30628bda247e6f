"""Small things a new user met on a large graph: a menu's key hints, what Connect to… lists,
the inspector's words, the Import tooltip."""

from __future__ import annotations

import re
from pathlib import Path

from bend_helpers import editor_with
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.kappa_view.inspector import inspector_rows
from bendscope.bend.keys import routing as keys
from bendscope.bend.keys.routing import KeyEvent
from bendscope.bend.menus import catalog as menus

ROOT = Path(__file__).resolve().parents[2]


def press(hint: str) -> KeyEvent:
    """The key press a menu's hint names ("Shift+L", "L", "Delete")."""
    *mods, key = hint.split("+")
    return KeyEvent(key if len(key) > 1 else (key.upper() if "Shift" in mods else key.lower()),
                    mod="Ctrl/⌘" in mods, shift="Shift" in mods)  # fmt: skip


def test_every_key_a_menu_shows_runs_that_item():
    """The canvas menu said L and T for Arrange, whose keys are Shift+L and Shift+T (L froze the layout)."""
    editor = editor_with([("a", "b"), ("b", "c"), ("c", "a")])
    built = [menus.background_menu(editor, 10.0, 10.0)]
    editor.select(["a"])
    built.append(menus.node_menu(editor, "a"))
    hinted = [item for items in built for item in items if item.key_hint and item.enabled]
    assert {"arrange-lr", "arrange-tb"} <= {item.action_id for item in hinted}
    for item in hinted:
        command = keys.route(editor, press(item.key_hint))
        assert command is not None and command.action_id == item.action_id, (item.label, item.key_hint)


def test_connect_to_says_that_typing_searches_the_whole_plane():
    editor = editor_with([("a", "b"), ("b", "c")])
    items = menus.connect_submenu(editor, "a")
    assert menus.SEARCH_HINT in [item.label for item in items] and "whole plane" in menus.SEARCH_HINT
    lonely = editor_with([("a", "b")], positions={"a": (0.0, 0.0), "b": (5000.0, 0.0)})
    (empty, _kind) = menus.connect_submenu(lonely, "a")
    assert "type to search" in empty.label
    assert menus.SEARCH_HINT not in [item.label for item in menus.connect_submenu(editor, "a", "c")]


def test_the_inspector_explains_routing_without_repeating_it():
    """It read "routing: deliberate (deliberate)"."""
    editor = editor_with([("a", "b"), ("b", "a"), ("b", "c")])
    editor.select(["a", "b"])
    _, rows = inspector_rows(editor, editor.topology())
    (routing,) = [text for text, _ in rows if text.startswith("routing")]
    assert routing == "routing: deliberate (loops: reason them through)"
    assert not re.search(r"(\w+) \(\1\)", routing)


def test_the_import_button_names_every_format_it_reads():
    """Its tooltip said "Import a JSON document"; it reads CSV, GraphML, DOT and Mermaid too."""
    page = (ROOT / "index.html").read_text()
    (title,) = re.findall(r'id="btn-import" title="([^"]*)"', page)
    assert all(word in title for word in ("JSON", "CSV", "GraphML", "DOT", "Mermaid"))


def test_loop_regions_are_named_for_people_not_by_the_engines_ids():
    """The inspector, the outline and the Loops panel said "scc-0"."""
    from bendscope.bend.kappa_view.loops_panel import panel_view
    from bendscope.bend.kappa_view.outline import outline_of

    editor = editor_with([("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")])
    editor.select(["a"])
    _, rows = inspector_rows(editor, editor.topology(), editor.loops(wait=True))
    outline = outline_of(editor, editor.topology())
    editor.select([])
    panel = panel_view(editor, editor.loops(wait=True))
    words = [text for text, _ in rows] + [*outline.loops, *outline.cards] + [g.title for g in panel.groups]
    assert not any("scc-" in w for w in words), words
    assert "in loop region 1 (2 cards)" in words and any(w.startswith("Loop region 2 ·") for w in words)
    assert any(w.startswith("Loop region 1, κ 1") for w in outline.loops)


snapshots = st.dictionaries(
    st.sampled_from(["id", "x", "y", "text", "pinned", "props", "data"]),
    st.one_of(st.floats(allow_nan=False), st.integers(), st.booleans(), st.text(max_size=8), st.none(),
              st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["node", "edge", "plane"]), st.one_of(st.none(), snapshots), st.data())
def test_a_changes_size_is_read_from_what_changed_as_from_the_whole(kind, before, data):
    """Arrange's one step moves every card; its size was measured by writing out every card's
    snapshot twice (most of a 2,000-card Arrange's main-thread time). The same number, from the
    fields that changed."""
    from bendscope.bend.model.capacity import _size, size_change

    same_keys = before is not None and data.draw(st.booleans())
    if same_keys:
        after = {k: data.draw(snapshots.map(lambda d: next(iter(d.values()), 0.5))) for k in before}
    else:
        after = data.draw(st.one_of(st.none(), snapshots))
    assert size_change(kind, before, after) == _size(kind, after) - _size(kind, before)


def test_new_node_here_asked_again_at_the_same_point_never_stacks_cards():
    """Shift+F10 → New node here put every new card on the same spot (their texts overlapped)."""
    from bendscope.bend.actions.commands import Target
    from bendscope.bend.actions.dispatch import ActionManager
    from bendscope.bend.editor.editor import Editor

    editor = Editor()
    manager = ActionManager(editor)
    made = [manager.request("new-node", Target(x=100.0, y=50.0)).result for _ in range(4)]
    for node_id in made:
        editor.set_text(node_id, f"Card {node_id}")
    editor.refresh_sizes(editor.plane)
    cards = [editor.plane.nodes[n] for n in made]
    assert (cards[0].x, cards[0].y) == (100.0, 50.0)  # (a free spot: exactly where asked)
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            assert abs(a.x - b.x) >= (a.width + b.width) / 2 or abs(a.y - b.y) >= (a.height + b.height) / 2


def test_a_connection_dropped_on_empty_canvas_makes_a_card_there():
    """Dropping a drag-to-connect on empty canvas did nothing (draw.io, Kumu and tldraw make a
    connected card there). One step: undo (or Esc in its text editor) takes card and edge back."""
    from bend_helpers import editor_with as made_with

    from bendscope.bend.pointer.inputs import PointerInput
    from bendscope.bend.pointer.machine import Tools

    editor = made_with([("a", "b")], positions={"a": (0.0, 0.0), "b": (300.0, 0.0)})
    editor.refresh_sizes(editor.plane)
    tools = Tools(editor)
    a = editor.plane.nodes["a"]
    tools.pointer(PointerInput("move", 1, *editor.world_to_screen(a.x, a.y)))
    handle = editor.world_to_screen(a.x + a.width / 2, a.y)
    tools.pointer(PointerInput("down", 1, *handle))
    assert tools.state_name == "connecting"
    drop = editor.world_to_screen(0.0, 400.0)
    tools.pointer(PointerInput("move", 1, *drop))
    response = tools.pointer(PointerInput("up", 1, *drop))
    made = response.edit_new
    assert made is not None and editor.selection == [made]
    card = editor.plane.nodes[made]
    assert (round(card.x), round(card.y)) == (0, 400)
    assert [(e.a, e.b, e.props.kind) for e in editor.plane.edges.values() if e.b == made] == [("a", made, "causal")]
    assert editor.discard_new_node(made)  # (Esc in its text editor)
    assert set(editor.plane.nodes) == {"a", "b"} and len(editor.plane.edges) == 1


def test_the_inspector_says_how_to_set_a_polarity_on_a_phone_too():
    """It said "(S sets it)": a phone has no S key."""
    editor = editor_with([("a", "b")])
    editor.select_edge(next(iter(editor.plane.edges)))
    _, rows = inspector_rows(editor, editor.topology())
    (polarity,) = [text for text, _ in rows if text.startswith("polarity")]
    assert "menu" in polarity
