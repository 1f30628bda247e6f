"""The plane's topology cache: recomputed on structural edits only, never on moves."""

from __future__ import annotations

from bend_helpers import editor_with

from bend.demo import demo_document
from bend.editor import Editor
from bend.scene import build_scene


def recomputes(editor: Editor, change) -> int:
    editor.topology()
    before = editor.topology_cache.recomputes
    change()
    editor.topology()
    editor.topology()
    return editor.topology_cache.recomputes - before


def test_moves_layout_and_camera_never_recompute():
    editor = Editor(demo_document())
    assert recomputes(editor, lambda: editor.move_node("company", 10, 10)) == 0
    assert recomputes(editor, editor.settle) == 0
    assert recomputes(editor, lambda: [editor.tick() for _ in range(20)]) == 0
    assert recomputes(editor, lambda: editor.zoom_at(1.5)) == 0
    assert recomputes(editor, lambda: editor.set_text("company", "x")) == 0
    assert recomputes(editor, lambda: editor.set_pinned("company", True)) == 0
    assert recomputes(editor, lambda: editor.set_edge("edge-0", label="new label", strength=4)) == 0
    cards = {n.id: editor.card(n) for n in editor.plane.nodes.values()}
    assert (
        recomputes(
            editor,
            lambda: [
                build_scene(editor.plane, cards, viewport=(800, 600), topology=editor.topology()) for _ in range(5)
            ],
        )
        == 0
    )


def test_every_structural_edit_recomputes_once():
    editor = Editor(demo_document())
    assert recomputes(editor, lambda: editor.add_node(0, 0, "n")) == 1
    assert recomputes(editor, lambda: editor.add_edge("ceo-alice", "company")) == 1
    assert recomputes(editor, lambda: editor.set_edge("edge-0", kind="context")) == 1
    assert recomputes(editor, lambda: editor.reverse_edge("edge-1")) == 1
    assert recomputes(editor, lambda: editor.delete_edge("edge-2")) == 1
    assert recomputes(editor, lambda: editor.delete_nodes(["ceo-alice"])) == 1
    assert recomputes(editor, editor.undo) == 1
    assert recomputes(editor, editor.redo) == 1


def test_topology_reflects_edits_and_only_directed_kinds():
    editor = editor_with([("a", "b"), ("b", "a")], kind="context")
    assert editor.topology().max_kappa == 0
    editor.set_edge("e0", kind="causal")
    editor.set_edge("e1", kind="temporal")
    assert editor.topology().max_kappa == 1
    assert editor.topology().scc("a")["id"] == "scc-0"
    assert editor.topology().fault_edges in ({"e0"}, {"e1"})


def test_unchanged_sccs_are_not_cut_again():
    editor = editor_with([("a", "b"), ("b", "a"), ("x", "y"), ("y", "x")])
    editor.topology()
    cache = editor.topology_cache._kappa_caches["plane-root"]
    misses = cache.misses
    editor.add_edge("a", "x")  # joins nothing: both SCCs keep their arcs
    editor.topology()
    assert cache.misses == misses and cache.hits >= 2


def test_log_line_format():
    line = Editor(demo_document()).topology().log_line()
    assert line.startswith("[κ] topology: ") and line.endswith("ms, maxκ=1, sccs=1")


def test_exact_limit_override():
    ring = [(f"n{i}", f"n{(i + 1) % 6}") for i in range(6)]
    editor = editor_with(ring)
    assert editor.topology().max_kappa == 1
    editor.exact_limit_override = 3
    editor.topology_cache.invalidate()
    scc = editor.topology().result["sccs"][0]
    assert scc["approximate"] is True and scc["kappa"] == 6
