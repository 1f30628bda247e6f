"""The cycle collector kept out of a gesture's frames (``bend.pointer.collector``): off from
the press until the gesture has ended and the layout rests (or a while after), given back
then; what a gesture leaves stays bounded."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.pointer.collector import GestureCollector


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def cycles(count: int) -> None:
    """``count`` garbage cycles (two containers each): only the collector frees them."""
    for _ in range(count):
        a: list[object] = []
        b: list[object] = [a]
        a.append(b)


def test_off_during_the_gesture_and_given_back_once_it_ended_and_the_layout_rests() -> None:
    gc.enable()
    c = GestureCollector()
    c.pressed()
    assert not gc.isenabled() and c.held
    assert not c.frame(gesture=True, resting=True, now_ms=0.0)  # (a drag: never given back during it)
    assert not c.frame(gesture=False, resting=False, now_ms=10.0)  # released, the reheat still runs
    assert not c.frame(gesture=False, resting=False, now_ms=500.0)
    assert c.frame(gesture=False, resting=True, now_ms=600.0)
    c.release()
    assert gc.isenabled() and not c.held and c.runs == 1
    assert not c.frame(gesture=False, resting=True, now_ms=700.0)  # (nothing held: nothing to give back)


def test_given_back_a_while_after_the_gesture_even_if_the_layout_keeps_running() -> None:
    gc.enable()
    c = GestureCollector(latest_ms=1000.0)
    c.pressed()
    c.frame(gesture=True, resting=False, now_ms=0.0)
    assert not c.frame(gesture=False, resting=False, now_ms=100.0)
    assert not c.frame(gesture=False, resting=False, now_ms=1099.0)
    assert c.frame(gesture=False, resting=False, now_ms=1100.0)


def test_a_press_again_before_it_is_given_back_keeps_it_off() -> None:
    gc.enable()
    c = GestureCollector(latest_ms=1000.0)
    c.pressed()
    c.frame(gesture=False, resting=False, now_ms=0.0)
    c.pressed()  # (a second gesture begins during the first one's reheat)
    assert not c.frame(gesture=True, resting=False, now_ms=2000.0)
    assert not c.frame(gesture=False, resting=False, now_ms=2100.0)  # (its own end counts from now)
    assert not gc.isenabled()


def test_a_runtime_with_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    c = GestureCollector()
    c.pressed()
    assert not c.held
    assert not c.frame(gesture=False, resting=True, now_ms=0.0)
    c.release()
    assert not gc.isenabled()


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3_000), min_size=1, max_size=30))
def test_what_a_gesture_leaves_stays_bounded(per_frame: list[int]) -> None:
    """However long a gesture and however much garbage each frame makes, after each frame the
    young objects are within the limit (the collection forced when over it)."""
    gc.enable()
    gc.collect()
    c = GestureCollector(limit=2_000)
    c.pressed()
    for count in per_frame:
        cycles(count)
        c.frame(gesture=True, resting=False, now_ms=0.0)
        assert gc.get_count()[0] <= c.limit + 100, (gc.get_count(), count)
    assert not gc.isenabled()
    assert c.forced >= sum(per_frame) * 2 // (c.limit + 6_100)  # (forced at least once per limit's worth)
    c.frame(gesture=False, resting=True, now_ms=0.0)
    c.release()
    assert gc.isenabled()
