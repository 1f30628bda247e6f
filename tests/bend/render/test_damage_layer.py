"""When a drag's kept layer of what does not move must be drawn again (static/damage.js
``prepare`` over a scene plan, run in node): after any change to the plan, but not after a
change to the look of cards the layer leaves out alone (their selection, pin or size — such
as selecting or dropping the held card), nor when fewer cards move; and always when a card it
shows changes or moves, or more cards move.

Needs node (it comes with npm, which `make vendor` needs too)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.demo import demo_document
from bendscope.bend.render.sceneplan import ScenePlanner, positions
from tests.bend.render.test_scene_geometry import ROOT, plain

DRIVER = ROOT / "tests" / "support" / "damage_prepare.js"
SCRIPTS = [str(ROOT / "static" / "scene.js"), str(ROOT / "static" / "damage.js")]
ENV = {"cx": 0, "cy": 0, "zoom": 1, "width": 800, "height": 600, "dpr": 1, "background": "#fff", "grid": ""}


def run(steps: list[dict[str, Any]]) -> list[list[Any]]:
    node = shutil.which("node")
    assert node, "node is needed (it comes with npm, which `make vendor` needs too)"
    job = json.dumps({"scripts": SCRIPTS, "steps": steps})
    done = subprocess.run([node, str(DRIVER)], input=job, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def planned() -> tuple[list[dict[str, Any]], list[float], list[Any]]:
    """The demo plane's plan calls, positions and its ``setFlags`` arguments (the card ids
    last)."""
    editor = Editor(demo_document())
    editor.settle()
    calls = ScenePlanner().update(
        editor.plane, editor.card, doc_version=editor.version, topology=editor.topology(), measure=editor.measure,
        viewport=editor.viewport,
    )  # fmt: skip
    flags = next(list(plain(args)) for name, args in calls if name == "setFlags")
    flags.append(list(editor.plane.nodes))
    return [{"call": [name, plain(args)]} for name, args in calls], plain(positions(editor.plane)), flags


def prepare(xy: list[float], moving: list[int]) -> dict[str, Any]:
    return {"prepare": {"xy": xy, "env": ENV, "moving": moving}}


def with_flag(flags: list[Any], card: int, bit: int = 1) -> dict[str, Any]:
    """``setFlags`` with ``card``'s ``bit`` (1: selected) turned over, nothing else changed."""
    cards = list(flags[0])
    cards[card] ^= bit
    return {"call": ["setFlags", [cards, *flags[1:-1]]]}


def test_the_look_of_a_card_the_layer_leaves_out_keeps_it_and_of_one_it_shows_does_not():
    calls, xy, flags = planned()
    n, ids = len(xy) // 2, flags[-1]
    out = run([
        *calls,
        prepare(xy, [0, 1]),
        prepare(xy, [0, 1]),
        with_flag(flags, 1),  # the held card selected
        prepare(xy, [0, 1]),
        {"call": ["patchNodes", [[0], [150.0, 60.0], [0], [1]]]},  # the held card dropped: pinned
        prepare(xy, [0, 1]),
        with_flag(flags, 2),  # a card the layer shows selected (and the held card no longer)
        prepare(xy, [0, 1]),
        {"call": ["patchNodes", [[3], [150.0, 60.0], [0], [1]]]},  # a card it shows pinned
        prepare(xy, [0, 1]),
        {"call": ["setArt", [[], [ids[1]], [0, 0, 0, 0], []]]},  # the held card's text (no lines now)
        prepare(xy, [0, 1]),
        {"call": ["setArt", [[], [ids[4]], [0, 0, 0, 0], []]]},  # the text of a card it shows
        prepare(xy, [0, 1]),
        {"call": ["setFlags", [flags[0], 0, *flags[2:-1]]]},  # an edge selected
        prepare(xy, [0, 1]),
        {"call": ["setHalos", [{k: [] for k in ("members", "memberEnds", "pairs", "pairEnds", "style", "styles",
                                                 "badges", "badgeWidths")}]]},  # (no halo)
        prepare(xy, [0, 1]),
        {"call": ["setTags", [[{"node": 3, "text": "Revenue", "width": 50.0}]]]},  # a loop's names tagged
        prepare(xy, [0, 1]),
        {"call": ["setTags", [[]]]},  # and no longer
        prepare(xy, [0, 1]),
    ])  # fmt: skip
    assert n > 4
    assert [reason for reason, _ in out] == [
        "nothing kept", "kept", "kept", "kept", "plan", "plan", "kept", "plan", "plan", "plan", "plan", "plan"
    ]  # fmt: skip
    assert all(only == [0, 1] for _, only in out)


def test_fewer_cards_moving_keep_the_layer_and_more_or_a_shown_card_moved_do_not():
    calls, xy, _ = planned()
    moved = list(xy)
    moved[2 * 3] += 5.0  # a card the layer shows makes way
    out = run([*calls, prepare(xy, [0, 1, 2]), prepare(xy, [1]), prepare(xy, [1, 4]), prepare(moved, [1])])
    assert out == [
        ["nothing kept", [0, 1, 2]],
        ["kept", [0, 1, 2]],
        ["moved", [0, 1, 2, 4]],
        ["moved", [0, 1, 2, 3, 4]],
    ]


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.sampled_from([1, 2, 4, 8])), min_size=1, max_size=12))
def test_after_any_flag_changes_the_layer_is_kept_exactly_when_only_cards_it_leaves_out_changed(changes):
    calls, xy, flags = planned()
    moving = [0, 1, 2]
    steps = [*calls, prepare(xy, moving)]
    cards = list(flags[0])
    expected = []
    for card, bit in changes:
        cards[card] ^= bit
        steps += [{"call": ["setFlags", [list(cards), *flags[1:-1]]]}, prepare(xy, moving)]
        expected.append("kept" if card in moving else "plan")  # (a layer drawn again holds the change)
    out = run(steps)
    assert [reason for reason, _ in out[1:]] == expected


def test_a_layer_drawn_ahead_is_kept_only_for_exactly_the_cards_it_leaves_out():
    """(``prime``: a layer kept for other cards is drawn afresh, never grown to leave out both
    sets, as ``prepare`` grows it during a drag.)"""
    calls, xy, _ = planned()
    out = run([
        *calls,
        {"leavesOut": [0, 1]},  # (no layer yet)
        prepare(xy, [0, 1]),
        {"leavesOut": [0, 1]},
        {"leavesOut": [1, 0, 1]},
        {"leavesOut": [0]},
        {"leavesOut": [0, 1, 2]},
        {"leavesOut": [2, 3]},
        prepare(xy, [1, 2]),  # (during a drag the layer grows: it leaves out 0, 1 and 2 now)
        {"leavesOut": [1, 2]},
        {"leavesOut": [0, 1, 2]},
    ])  # fmt: skip
    assert out == [False, ["nothing kept", [0, 1]], True, True, False, False, False, ["moved", [0, 1, 2]], False, True]
