"""The halos' trees of a topology just found are made in κ's last slice, before the frame that
first shows them (the page's ``Ahead.kappa_found``): that frame's plan update then sends the
halos a frame making them itself sends, without making the trees again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from graphs import giant_scc_document

from bendscope.bend.editor.editor import Editor
from bendscope.bend.render import halos
from bendscope.bend.render.sceneplan import ScenePlanner


def loaded(n: int, seed: int) -> Editor:
    editor = Editor()
    assert editor.load(json.dumps(giant_scc_document(n, seed=seed)), label=None) is None
    editor.topology_cache.shown(editor.plane, editor.exact_limit, 1e9)
    return editor


def kappa_frame(editor: Editor, planner: ScenePlanner) -> dict[str, Any]:
    """The plan update of the frame that first shows κ (after one that showed none): its calls."""
    plane, topology = editor.plane, editor.shown_topology(None)
    assert not topology.pending and topology.max_kappa > 0
    common = {"doc_version": editor.version, "measure": editor.measure, "viewport": editor.viewport}
    planner.update(plane, editor.card, topology=None, tree_epoch=editor.rests, **common)
    return dict(planner.update(plane, editor.card, topology=topology, tree_epoch=editor.rests, **common))


@pytest.mark.parametrize(("n", "seed"), [(40, 1), (150, 2), (400, 3)])
def test_trees_made_ahead_give_the_frame_the_halos_it_makes_itself(n, seed, monkeypatch):
    editor = loaded(n, seed)
    halos._TREES.clear()
    eager = kappa_frame(editor, ScenePlanner())
    halos._TREES.clear()
    halos.halo_trees(editor.plane, editor.shown_topology(None), editor.rests)  # (κ's last slice)
    made: list[str] = []
    real = halos._root
    monkeypatch.setattr(halos, "_root", lambda parent, node: made.append(node) or real(parent, node))
    ahead = kappa_frame(editor, ScenePlanner())
    assert made == []  # (the frame made no tree)
    assert set(ahead) == set(eager) and "setHalos" in ahead
    for name in ahead:
        assert repr(ahead[name]) == repr(eager[name]), name


def test_trees_made_ahead_at_another_rest_are_made_again(monkeypatch):
    """(A layout that came to rest between the slice and the frame raises the trees' epoch:
    the frame makes them for the positions at rest, as it would have.)"""
    editor = loaded(150, 4)
    halos._TREES.clear()
    halos.halo_trees(editor.plane, editor.shown_topology(None), editor.rests)
    editor.rests += 1
    made: list[str] = []
    real = halos._root
    monkeypatch.setattr(halos, "_root", lambda parent, node: made.append(node) or real(parent, node))
    calls = kappa_frame(editor, ScenePlanner())
    assert made and "setHalos" in calls
