"""Applying an arrangement: one undoable step that holds only the cards' places, made ready
between frames (``Editor.prepare_arrangement``: the places and the halos' trees for them), then
written at once — so the frame after it makes no halo tree, and a save sees the document before
or after, never between. The centres here are a grid (any centres in range apply; the drawing
itself is ``test_arrange``'s)."""

from __future__ import annotations

import json
import random

import pytest

from bendscope.bend.editor.editor import Editor
from bendscope.bend.live.sync import undo_conflict
from bendscope.bend.model.document import serialize_document
from bendscope.bend.model.elements import Camera, Document, Edge, EdgeProps, Node, Plane
from bendscope.bend.render import halos
from bendscope.kappa.steps import finish


def regions(groups: int = 6, size: int = 9, seed: int = 5) -> Editor:
    """``groups`` loop regions of ``size`` cards (a cycle and chords each), some cards pinned,
    joined by forward arcs; texts of several lengths."""
    rng = random.Random(seed)
    plane = Plane("p", "P")
    n = groups * size
    for i in range(n):
        plane.add_node(Node(f"n{i}", f"card {i}" + " words" * rng.randrange(4), x=rng.uniform(-900, 900),
                            y=rng.uniform(-900, 900), pinned=rng.random() < 0.2))  # fmt: skip
    arcs = []
    for g in range(groups):
        members = list(range(g * size, (g + 1) * size))
        rng.shuffle(members)
        arcs += [(members[k], members[(k + 1) % size]) for k in range(size)]
        arcs += [tuple(rng.sample(members, 2)) for _ in range(size // 3)]
        if g + 1 < groups:
            arcs.append((g * size, (g + 1) * size + 1))
    for k, (a, b) in enumerate(arcs):
        plane.add_edge(Edge(f"e{k}", f"n{a}", f"n{b}", EdgeProps("", "causal", 2)))
    editor = Editor(Document([plane], "p"))
    editor.refresh_sizes(editor.plane)
    return editor


def grid(editor: Editor) -> list[float]:
    xy: list[float] = []
    for k in range(len(editor.plane.nodes)):
        xy += [300.0 * (k % 8) + 0.5, 120.25 * (k // 8)]
    return xy


def document_of(editor: Editor) -> dict:
    doc = json.loads(editor.export())
    for plane in doc["planes"]:
        plane.pop("camera", None)
    return doc


def test_the_step_holds_only_places_and_undo_and_redo_put_every_card_back():
    editor = regions()
    before = document_of(editor)
    for node in editor.plane.nodes.values():
        node.vx = node.vy = 0.0  # (what the step does not hold: velocities and the view)
    camera = editor.plane.camera.to_dict()

    def exact() -> int:
        editor.plane.camera = Camera(**camera)
        return len(serialize_document(editor.doc))

    start, size = exact(), editor.capacity.size  # (an estimate: its changes are exact)
    editor.apply_arrangement(editor.arrange_job("LR"), grid(editor))
    after = document_of(editor)
    entry = editor.history.undo_stack[-1]
    assert entry.label == "Arrange left to right" and len(editor.history.undo_stack) == 1
    assert {frozenset(side) for sides in entry.changes.values() for side in sides} == {
        frozenset({"id", "x", "y", "pinned"})
    }
    assert all(n["pinned"] for n in after["planes"][0]["nodes"])
    assert editor.capacity.size - size == exact() - start
    editor.undo()
    assert document_of(editor) == before
    assert editor.capacity.size - size == exact() - start
    editor.redo()
    assert document_of(editor) == after
    assert editor.capacity.size - size == exact() - start


def test_a_card_moved_and_edited_in_one_step_is_undone_whole():
    editor = regions(2, 5)
    plane = editor.plane
    before = document_of(editor)
    with editor.transaction("Both"):
        plane.place_nodes({"n1": (10.0, 20.0), "n2": (30.0, 40.0)}, pinned=True)
        plane.update_node("n1", text="renamed")
        plane.place_nodes({"n1": (50.0, 60.0)})
    entry = editor.history.undo_stack[-1]
    assert entry.changes[("node", "p", "n1")][1]["text"] == "renamed"  # (a whole snapshot once text changed)
    assert (plane.nodes["n1"].x, plane.nodes["n1"].y, plane.nodes["n1"].pinned) == (50.0, 60.0, True)
    editor.undo()
    assert document_of(editor) == before
    with pytest.raises(KeyError):
        plane.place_nodes({"gone": (0.0, 0.0)})


def test_the_frame_after_arrange_makes_no_halo_tree(monkeypatch):
    """The halos' trees for the new places are made with the preparation, between frames; the
    frame after the step used to make them (a Kruskal over every loop region's arcs, in one task)."""
    editor = regions()
    job, xy = editor.arrange_job("LR"), grid(editor)
    steps = editor.prepare_arrangement(job, xy)
    next(steps)  # (a slice: nothing changes)
    prepared = finish(steps)
    editor.apply_arrangement(job, xy, prepared)
    topology = editor.topology()
    made_now = finish(halos.tree_steps(editor.plane, topology))

    def no_tree(*args: object) -> str:
        raise AssertionError("a halo tree was made in the frame")

    monkeypatch.setattr(halos, "_root", no_tree)
    trees = halos.halo_trees(editor.plane, topology, editor.rests)
    assert trees == made_now and len(trees) == 6 and all(len(t) == 8 for t in trees.values())


def test_a_preparation_the_document_outran_is_made_again_or_refused():
    editor = regions()
    job, xy = editor.arrange_job("TB"), grid(editor)
    prepared = finish(editor.prepare_arrangement(job, xy))
    editor.set_text("n3", "a new text")  # (the same cards: the arrangement still holds)
    editor.apply_arrangement(job, xy, prepared)
    assert [(n.x, n.y) for n in editor.plane.nodes.values()] == list(zip(xy[::2], xy[1::2], strict=True))
    assert editor.plane.nodes["n3"].text == "a new text"
    editor.undo()
    prepared = finish(editor.prepare_arrangement(job, xy))
    editor.add_node(0.0, 0.0, "new")
    kept = editor.export()
    with pytest.raises(ValueError, match="changed while it was being arranged"):
        editor.apply_arrangement(job, xy, prepared)
    assert editor.export() == kept
    with pytest.raises(ValueError, match="out of range"):
        finish(editor.prepare_arrangement(editor.arrange_job("TB"), [*grid(editor)[:-1], 1e300]))


def test_undoing_an_arrangement_conflicts_with_nothing_in_live_mode():
    editor = regions(2, 5)
    editor.apply_arrangement(editor.arrange_job("LR"), grid(editor))
    entry = editor.history.undo_stack[-1]
    assert undo_conflict(editor, entry, 0) is None
    editor.undo()
    assert undo_conflict(editor, entry, 1) is None
