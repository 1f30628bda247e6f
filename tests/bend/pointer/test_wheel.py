"""Pan or zoom, chosen once per wheel gesture (``WheelIntent``): a mostly up-and-down trackpad
swipe whose events carry a sideways part of 0 or a pixel by turns used to zoom and pan by
turns, since each event chose for itself (``dx and not ctrl``)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from bendscope.bend.pointer.inputs import WHEEL_GAP_MS, WheelIntent

#: a mostly up-and-down two-finger swipe as Chrome reports it: 60 Hz, deltaX 0 or ±1 by turns
VERTICAL_SWIPE = [(i * 16.7, (0.0, 1.0, 0.0, -1.0)[i % 4], 12.0 - i * 0.3) for i in range(30)]
#: a diagonal swipe whose later events lose their sideways part
DIAGONAL_SWIPE = [(1000 + i * 16.7, 8.0 if i < 5 else 0.0, 10.0) for i in range(20)]


def _choices(intent: WheelIntent, events: list[tuple[float, float, float]], ctrl: bool = False) -> list[bool]:
    return [intent.pans(t, dx, dy, ctrl) for t, dx, dy in events]


def test_a_mostly_vertical_swipe_zooms_throughout() -> None:
    assert _choices(WheelIntent(), VERTICAL_SWIPE) == [False] * len(VERTICAL_SWIPE)


def test_a_swipe_that_starts_sideways_pans_throughout() -> None:
    assert _choices(WheelIntent(), DIAGONAL_SWIPE) == [True] * len(DIAGONAL_SWIPE)


def test_a_pause_begins_a_new_gesture_that_chooses_again() -> None:
    intent = WheelIntent()
    assert _choices(intent, DIAGONAL_SWIPE) == [True] * len(DIAGONAL_SWIPE)
    later = DIAGONAL_SWIPE[-1][0] + WHEEL_GAP_MS
    assert intent.pans(later, 0.0, 100.0) is False  # the mouse's wheel, after the swipe ended
    assert intent.pans(later + 20, 60.0, 0.0) is False  # (still that wheel's gesture)
    assert intent.pans(later + 20 + WHEEL_GAP_MS, 60.0, 0.0) is True  # a sideways wheel


def test_a_small_sideways_part_does_not_make_a_pan() -> None:
    intent = WheelIntent()
    assert intent.pans(0.0, 4.0, 10.0) is False  # 4 is not more than half of 10
    assert intent.pans(500.0, 6.0, 10.0) is True
    assert intent.pans(1000.0, 60.0, 0.0) is True
    assert intent.pans(1500.0, 0.0, 0.0) is False  # (nothing at all: the zoom by 0 does nothing)


def test_ctrl_always_zooms_even_inside_a_pan() -> None:
    intent = WheelIntent()
    assert intent.pans(0.0, 30.0, 0.0) is True
    assert intent.pans(16.0, 30.0, 0.0, ctrl=True) is False
    assert _choices(intent, [(2000 + i * 16.0, 9.0, -3.0) for i in range(5)], ctrl=True) == [False] * 5


def test_non_finite_deltas_zoom_and_time_going_back_starts_afresh() -> None:
    intent = WheelIntent()
    assert intent.pans(0.0, math.nan, 1.0) is False
    assert intent.pans(10.0, math.inf, 0.0) is False
    assert intent.pans(20.0, 0.0, 30.0) is False  # (the same gesture: zoom)
    assert intent.pans(5.0, 30.0, 0.0) is True  # a timestamp before the last one: a new gesture


@given(
    st.lists(
        st.tuples(
            st.floats(0, WHEEL_GAP_MS - 1), st.floats(-50, 50, allow_nan=False), st.floats(-50, 50, allow_nan=False)
        ),
        min_size=1,
        max_size=40,
    )
)
def test_one_gesture_never_switches_between_pan_and_zoom(steps: list[tuple[float, float, float]]) -> None:
    intent, now, seen = WheelIntent(), 0.0, set()
    for gap, dx, dy in steps:
        now += gap
        seen.add(intent.pans(now, dx, dy))
    assert len(seen) == 1
