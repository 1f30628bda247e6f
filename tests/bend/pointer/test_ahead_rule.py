"""What the page draws at rest ahead of a drag's press (bend.pointer.ahead_rule)."""

from __future__ import annotations

import itertools

from bendscope.bend.pointer.ahead_rule import PRIME_DELAY_MS, WARM_DELAY_MS, ahead_of_press


def test_a_hovered_card_at_rest_gets_its_drags_layer_after_the_short_delay() -> None:
    for resting, ready in itertools.product((True, False), repeat=2):
        assert ahead_of_press(hovered=True, resting=resting, layer_ready=ready) == (PRIME_DELAY_MS, "card")


def test_a_page_with_no_layer_draws_a_first_one_at_rest_with_no_card_hovered() -> None:
    # (the first press of a page, landing on a card with no rest on it, then draws its layer
    # into a canvas already made and sized, by drawing code already run)
    assert ahead_of_press(hovered=False, resting=True, layer_ready=False) == (WARM_DELAY_MS, "warm")
    assert WARM_DELAY_MS > PRIME_DELAY_MS  # (a pointer on its way to a card gets its own first)


def test_nothing_is_drawn_ahead_while_anything_moves_or_once_a_layer_is_made() -> None:
    assert ahead_of_press(hovered=False, resting=False, layer_ready=False) is None
    assert ahead_of_press(hovered=False, resting=False, layer_ready=True) is None
    assert ahead_of_press(hovered=False, resting=True, layer_ready=True) is None
