"""Work done at rest ahead of a drag (app.ahead): the pointer resting on a card draws the layer
of what its drag will not move before the press, so that the press's frame only copies it —
and the frames still equal whole frames outside the moving part; the cycle collector is off
from the press until the layout rests after the gesture, and runs once then."""

from __future__ import annotations

import json

from harness import region_by_centre
from test_drag_layer import NEXT_FRAME, check_drawn_as_whole, move, redrawn

#: layers drawn ahead so far, whatever they needed
PRIMED = "() => Object.values(window.bendscope.patch_state().primed).reduce((a, b) => a + b, 0)"


def rest_on_central_card(app, cards: int = 600) -> tuple[str, float, float, str]:
    """Load the mixed graph, wait for rest, select a card of the loop region the press will
    unselect, and move the pointer onto the region's card nearest the middle (no press): its
    id, where, and the card selected before."""
    page = app.page
    ranked = region_by_centre(app, cards)
    (node, (x, y)), other = ranked[0], ranked[5][0]
    app.api("id => window.bendscope.select(id)", other)
    app.api(NEXT_FRAME)
    page.mouse.move(x, y)
    return node, x, y, other


def test_resting_on_a_card_draws_its_drags_layer_before_the_press_and_the_press_only_copies_it(app_factory):
    app = app_factory("seed=1&fresh=1")
    page = app.page
    node, x, y, other = rest_on_central_card(app)
    page.wait_for_function(f"({PRIMED})() > 0", timeout=10_000)
    assert app.api("window.bendscope.patch_state()")["patched"] == 0  # (at rest: frames still whole)
    made = redrawn(app)
    page.mouse.down()
    app.api(NEXT_FRAME)
    state = app.api("window.bendscope.patch_state()")
    # the press's frame only copied the layer drawn ahead; the card selected before (unselected
    # by the press, so its look changed) is left out of it and drawn over it
    assert state["reason"] == "kept" and redrawn(app) == made, state["reasons"]
    assert node in state["left_out"] and other in state["left_out"]
    check_drawn_as_whole(app, "press")
    for k in range(1, 13):
        move(app, x + 8 * k, y + 3 * k)
        if k % 4 == 0:
            check_drawn_as_whole(app, f"move {k}")
    assert redrawn(app) == made, app.api("window.bendscope.patch_state()")["reasons"]
    page.mouse.up()
    app.api(NEXT_FRAME)
    after = app.api("window.bendscope.redraw_check()")
    assert after["patched"] == 0 or after["outside_visible"] <= 50, json.dumps(after)


def test_a_change_while_the_pointer_rests_draws_the_layer_ahead_again(app_factory):
    app = app_factory("seed=1&fresh=1")
    page = app.page
    _, x, y, _ = rest_on_central_card(app)
    page.wait_for_function(f"({PRIMED})() > 0", timeout=10_000)
    primed = app.api(PRIMED)
    app.api("document.getElementById('btn-theme').click()")  # (every pixel of the layer changes)
    page.wait_for_function(f"({PRIMED})() > {primed}", timeout=10_000)
    reasons = app.api("window.bendscope.patch_state()")["primed"]
    assert reasons.get("plan", 0) + reasons.get("view", 0) >= 1, reasons  # (drawn again: not kept)
    made = redrawn(app)
    page.mouse.down()
    app.api(NEXT_FRAME)
    assert redrawn(app) == made, app.api("window.bendscope.patch_state()")["reasons"]
    check_drawn_as_whole(app, "press after the theme")
    move(app, x + 20, y + 8)
    check_drawn_as_whole(app, "drag after the theme")
    page.mouse.up()


def test_the_collector_is_off_during_a_drag_and_runs_once_at_rest_after_it(app_factory):
    app = app_factory("seed=1&fresh=1")
    page = app.page
    _, x, y, _ = rest_on_central_card(app)
    page.mouse.down()
    for k in range(1, 9):
        move(app, x + 8 * k, y + 3 * k)
        assert app.api("window.bendscope.patch_state()")["collector"]["held"]
    page.mouse.up()
    page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    page.wait_for_function("!window.bendscope.patch_state().collector.held", timeout=10_000)
    state = app.api("window.bendscope.patch_state()")["collector"]
    assert state["runs"] >= 1, state
    ran = [t for t in json.loads(app.api("window.bendscope.task_log()")) if t[2] == "collect"]
    assert ran, "the collection at rest is a task of its own"


def test_a_drags_layout_frames_write_only_the_cards_its_local_reheat_moves(app_factory):
    # (each worker frame of the drag's local reheat writes to Python only the cards whose place
    # changed, not every card of the plane: app/d3layout.py)
    app = app_factory("seed=1&fresh=1")
    page = app.page
    ranked = region_by_centre(app, 600)
    _, (x, y) = ranked[0]
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 9):
        move(app, x + 10 * k, y)
    check_drawn_as_whole(app, "drag")
    state = app.api("window.bendscope.layout_state()")
    assert state["active"] and 0 <= state["written"] <= 150, state["written"]
    page.mouse.up()
