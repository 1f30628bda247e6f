"""The inspector of a card in a loop region never reads as if the card were on no loop: a card
whose loops are all longer than the Loops panel lists (it lists the shortest) is on loops still."""

from __future__ import annotations

from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.inspector import inspector_rows
from bendscope.kappa.loops import MAX_LENGTH


def test_a_card_on_a_loop_too_long_to_list_is_said_to_be_on_loops() -> None:
    editor = Editor()
    ring = [editor.add_node(k * 200.0, 0.0, f"card {k}", pinned=True) for k in range(MAX_LENGTH + 3)]
    for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
        assert editor.add_edge(a, b) is not None
    editor.select([ring[0]])
    rows = [text for text, _ in inspector_rows(editor, editor.topology(), editor.loops(wait=True))[1]]
    assert not any("none of" in r or "no loop" in r for r in rows), rows
    assert "on loops longer than those listed (the Loops panel lists this region's shortest)" in rows
