"""On a touch screen the inspector and the demo name a finger's gestures, never a key or a
double-click; with a mouse they keep naming the keys."""

from __future__ import annotations

import re

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.inspector import inspector_rows
from bendscope.bend.model.demo import demo_document

KEY_HINT = re.compile(r"\((?:[A-Z]\b|.*\b[A-Z] (?:sets|shows)\b)")


def every_rows(editor: Editor, touch: bool) -> list[str]:
    """The inspector's rows of every card and every edge, and of the whole plane selected."""
    topo, loops, cuts = editor.topology(), editor.loops(wait=True), editor.loop_cuts(wait=True)
    texts: list[str] = []
    for node_id in editor.plane.nodes:
        editor.select([node_id])
        texts += [text for text, _ in inspector_rows(editor, topo, loops, cuts, touch=touch)[1]]
    editor.select(list(editor.plane.nodes))
    texts += [text for text, _ in inspector_rows(editor, topo, loops, cuts, touch=touch)[1]]
    for edge_id in editor.plane.edges:
        editor.select_edge(edge_id)
        texts += [text for text, _ in inspector_rows(editor, topo, loops, cuts, touch=touch)[1]]
    return texts


def test_the_inspector_names_no_key_on_a_touch_screen():
    editor = Editor(demo_document())
    desk = every_rows(editor, touch=False)
    assert any("(S or the edge's menu sets it)" in text for text in desk)
    assert "Show them (K)" in desk
    assert [text for text in desk if KEY_HINT.search(text)] != []
    phone = every_rows(editor, touch=True)
    assert len(phone) == len(desk)
    assert [text for text in phone if KEY_HINT.search(text)] == []
    assert any("long-press the edge, then Polarity" in text for text in phone)
    assert "Show them" in phone


def test_the_demo_stargate_names_the_gesture_of_the_device():
    touch = demo_document(touch=True).planes["plane-root"].nodes["research-notes"].text
    mouse = demo_document().planes["plane-root"].nodes["research-notes"].text
    assert "double-tap to enter" in touch and "click" not in touch
    assert "double-click to enter" in mouse
